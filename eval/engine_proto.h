/* engine_proto.h — the Kalah Game Protocol (KGP 1.x, github.com/KWARC/kalah-game, spec/) on the wire: one
 * command per line, parsed into id, reference, name and typed arguments; Kalah positions as KGP board
 * literals; a line reader with a deadline (poll) for pipes and sockets. docs/protocol.md is the user's
 * description of the protocol `sowzero engine` speaks and the `engine:` agent kind drives.
 *
 * Grammar (spec/012-grammar.md):  [ID][@REF] NAME ARG...   where ID and REF are digits, NAME is letters and
 * digits, and an argument is an integer ([+-]digits), a real ([+-]digits.digits), a word (letters, digits,
 * '-', ':'), a double-quoted string (\" and \\ escaped) or a board literal <n,a,b,...>.
 *
 * Boards (the engine's view): <n, mover's store, other store, mover's n pits, other's n pits>, each row in its
 * own sowing order (its first pit is the one farthest from its store). The side whose pits come first is
 * always the one to move; a `move k` answers with its k-th pit (1-based).
 *
 * Library code: no printing; errors are -1 with a message in a KGP_ERRLEN buffer (may be NULL).
 */
#ifndef SOWZERO_ENGINE_PROTO_H
#define SOWZERO_ENGINE_PROTO_H

#include "env/status.h"

#include <stddef.h>

#include "env/game.h"

#define KGP_LINE_MAX 4096  /* longest line either side accepts, newline excluded */
#define KGP_MAX_ARGS 16
#define KGP_ERRLEN SZ_ERRLEN
#define KGP_BOARD_MAX_PITS 7 /* Kalah's largest board (env/kalah.h) */
#define KGP_BOARD_VALS (2 * KGP_BOARD_MAX_PITS + 3)

enum { KGP_INT, KGP_REAL, KGP_WORD, KGP_STRING, KGP_BOARD };

typedef struct {
    int type;                /* KGP_* */
    char *text;              /* points into the parsed line: the word, the unescaped string, the raw number */
    long long ival;          /* KGP_INT */
    double rval;             /* KGP_INT, KGP_REAL */
    int nvals;               /* KGP_BOARD: the numbers between < and > (at most KGP_BOARD_VALS) */
    int vals[KGP_BOARD_VALS];
} kgp_arg;

typedef struct {
    int has_id, has_ref;
    long long id, ref;       /* 0..999999999999 */
    char *name;              /* points into the parsed line */
    int argc;
    kgp_arg arg[KGP_MAX_ARGS];
} kgp_cmd;

/* Parses one line (without its line end; a trailing '\r' is ignored) in place: the pointers of *out point
 * into `line`, which is modified. 0, or -1 with a message naming the column and what is wrong (an empty
 * line is an error too: "empty line"). */
int kgp_parse(char *line, kgp_cmd *out, char *err);

/* s as a KGP string argument, quoted and escaped, into buf[n] (cut short, still quoted, when too long).
 * Control characters become spaces. Returns buf. */
char *kgp_quote(const char *s, char *buf, size_t n);

/* Whether KGP boards can carry g's positions, read from g's layout (env/game.h game_layout): 1 for two
 * facing rows of at most KGP_BOARD_MAX_PITS pits and a store each, sown past the opponent's store and swept
 * at the end, with no relay, capture run or hidden end (Kalah's rules, which a KGP board means), else 0. */
int kgp_board_game(const game *g);

/* The board literal of position p (g a game kgp_board_game accepts; p not over) seen from its mover, into buf[n]
 * (KGP_LINE_MAX suffices). Returns buf. */
char *kgp_board_format(const game *g, const game_pos *p, char *buf, size_t n);

/* The pits per row of a board argument: 0 when arg is a well-formed board (n in 1..KGP_BOARD_MAX_PITS,
 * 2n + 3 numbers, at most 255 seeds in all), else -1 with a message. */
int kgp_board_check(const kgp_arg *arg, int *pits, char *err);

/* The sowzero notation (env/game.h, Kalah's "pits,store,pits,store S") of a checked board, South to move
 * (the board's mover), into buf[n] (GAME_POS_STR suffices). Returns buf. */
char *kgp_board_notation(const kgp_arg *arg, char *buf, size_t n);

/* ---- lines from a file descriptor ---- */

typedef struct {
    int fd;
    int eof;                  /* the peer closed its end (or a read failed) */
    int skipping;             /* inside an overlong line: its text is dropped up to its newline */
    size_t len;               /* bytes in buf */
    char buf[2 * KGP_LINE_MAX + 2];
} kgp_reader;

void kgp_reader_init(kgp_reader *r, int fd);

/* The next line (newline and a '\r' before it removed) into line[KGP_LINE_MAX + 1], waiting at most
 * timeout_ms (< 0: forever). 1 a line; 0 the time ran out; -1 end of input (or a read error); -2 a line
 * longer than KGP_LINE_MAX (its text is skipped up to its newline) or one holding a NUL byte. */
int kgp_read_line(kgp_reader *r, char *line, int timeout_ms);

/* 1 when a whole line is already buffered (kgp_read_line will not wait). */
int kgp_line_ready(const kgp_reader *r);

/* Writes the printf-formatted text and the spec's line end "\r\n" to fd; a peer gone is an error, never
 * a SIGPIPE (sockets: MSG_NOSIGNAL; pipes: SIGPIPE blocked in this thread for the write). 0, or -1 when
 * the peer is gone or the line is too long. */
int kgp_send(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Milliseconds of a monotonic clock. */
long long kgp_now_ms(void);

#endif
