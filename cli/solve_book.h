/* solve_book.h — `solve --fair-book K`: a fair-openings book (the idea of Neller's FairKalah: openings whose
 * value under perfect play is close to even) in the format of eval/book.h, for any game the exact solver
 * solves (eval/game_search.h). */
#ifndef SOWZERO_CLI_SOLVE_BOOK_H
#define SOWZERO_CLI_SOLVE_BOOK_H

#include "env/game.h"
#include "eval/game_search.h"

typedef struct {
    int sows;            /* K: positions after 1..K sowings from the root (an extra turn's sowing counts) */
    int within;          /* W: kept when the exact final margin is within -W..+W */
    const char *out;     /* the book to write (a temporary file renamed over it at the end) */
    const char *command; /* the command line, for the header comment */
} solve_book_args;

/* Every distinct position (board, player to move and the rest of the game's state; with a ply limit, its
 * ply too) reached by 1..K sowings from root under g, not finished, solved with s as far as the window ±W
 * asks (gs_solver_window: exact within it, else only which side; one table for all, so later solves reuse
 * earlier ones), and those within ±W written to a->out as move lists from root, the shallowest and then
 * first path (moves in slot order) to each, with the exact final margin for player 0 (South) after '#'.
 * Prints a report (one JSON object with json) and, with show, a progress line on stderr. Returns the exit
 * status: 0, 1 (a failed search or write: printed). */
int cli_solve_book(const char *cmd, const game *g, const game_pos *root, gs_solver *s, const solve_book_args *a,
                   int show, int json);

#endif
