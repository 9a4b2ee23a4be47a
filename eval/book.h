/* book.h — opening books for matches (`match --book FILE`, `tournament --book FILE`): positions or move
 * lists, one opening a line, that the match plays instead of random openings, each with both colours
 * (eval/game_match.h: group i of the seat plan starts from entry i).
 *
 * Format (plain text, UTF-8; docs/records.md "Opening books"):
 *   - '#' starts a comment that runs to the end of the line; blank lines (after the comment is cut) are
 *     skipped.
 *   - A line holding a ',' is a position in the game's notation (docs/design.md §2, game_pos_parse):
 *         4,4,0,5,5,5,1,4,4,4,4,4,4,0 S
 *     The game starts there (a record's [Start]); its sowing count is 0 (only max_sows reads it).
 *   - Any other line is a move list from the rules' start position: moves in the game's notation separated
 *     by blanks (Kalah: a..f South, A..F North; an extra turn is simply the next move by the same player):
 *         c f A
 *     The game starts at the rules' start and these moves are its opening (a record's moves, with
 *     [Opening "3"]), played for both seats whichever agent sits there.
 *   - An opening must leave the game unfinished. At most BOOK_MAX_MOVES moves a line, BOOK_MAX_ENTRIES
 *     entries a file, BOOK_MAX_LINE bytes a line.
 * Every error names the file and line: "fair.book:12: move 2 'C': ...", "fair.book:7: the moves end the
 * game", "fair.book:3: position '4,4': ...". A file with no opening at all is an error too.
 *
 * Library code: nothing is printed; errors come back as codes and messages.
 */
#ifndef SOWZERO_EVAL_BOOK_H
#define SOWZERO_EVAL_BOOK_H

#include "env/status.h"

#include <stdint.h>

#include "env/game.h"

#define BOOK_ERRLEN SZ_ERRLEN
#define BOOK_MAX_MOVES 1000
#define BOOK_MAX_ENTRIES 10000000
#define BOOK_MAX_LINE 65536

enum { BOOK_OK = SZ_OK, BOOK_BLANK = 1, BOOK_EINVAL = SZ_EINVAL, BOOK_EIO = SZ_EIO, BOOK_ENOMEM = SZ_ENOMEM };

typedef struct {
    game_pos start;   /* where the game starts: the position of a position line, the rules' start otherwise */
    int at_start;     /* 1: start is the rules' start position (a move list) */
    uint8_t *moves;   /* a move list's slots from start, n_moves of them (NULL for a position line) */
    int n_moves;
    int line;         /* its line in the file (1-based) */
} book_entry;

typedef struct {
    book_entry *entry; /* n entries, in file order (owned) */
    int n;
} opening_book;

/* Parses one line's text (the comment already cut or not: '#' onwards is ignored) for game g into *out.
 * BOOK_OK; BOOK_BLANK when the line holds no opening (blank or comment only); BOOK_EINVAL with the
 * reason in err (BOOK_ERRLEN; no file or line prefix); BOOK_ENOMEM. *out owns moves (book_entry_clear). */
int book_parse_line(const game *g, const char *text, book_entry *out, char *err);
void book_entry_clear(book_entry *e);

/* Reads the book at path for game g (borrowed). BOOK_OK with *out (free with book_free); BOOK_EINVAL
 * ("PATH:LINE: reason", or "PATH: no openings"), BOOK_EIO ("PATH: cannot open: ..."), BOOK_ENOMEM. */
int book_read(const game *g, const char *path, opening_book **out, char *err);
void book_free(opening_book *b); /* NULL allowed */

/* The position entry e leads to (start with its moves played) into *out. */
void book_entry_position(const game *g, const book_entry *e, game_pos *out);

#endif
