/* family_search.h — exact solver (negamax alpha-beta with a transposition table) for the two-row games
 * that share Kalah's position layout, through their twoside_game table (env/twoside.h): Congklak
 * (DESIGN.md §1.3) and Oware (§1.4), and Kalah too. eval/alphabeta.h stays Kalah's tuned searcher (MTD(f),
 * endgame database, depth-limited play); this one only solves, and is what the oracle of small boards,
 * tests/vectors/families-solved.txt, is checked with.
 *
 * Values: the final margin (own store or captures − the opponent's, after the end's sweep) under perfect
 * play, for the player to move at the position solved (DESIGN.md §3.5). Negamax: a child where the same
 * player moves again (a Congklak or Kalah extra turn) contributes +value(child), any other −value(child).
 *
 * Transposition table (eval/tt.h, exact entries only): keyed by the board, the side to move and, when the
 * rules have max_sows > 0, the plies left before the limit (max_sows − sows: the game's end depends on
 * it; a position string carries no ply count, so sows count from the position given). For games whose
 * play never reads the stores (Kalah, Congklak: twoside_game.stores_inert) the stores are left out of the
 * key and the table keeps bounds on value − store difference, so positions differing only in how the
 * banked seeds are split share an entry; Oware's majority end reads the captures, so its key is the whole
 * board. Cut-offs also use the bound every game here obeys: stores only grow, so the final margin lies
 * within store difference ± seeds left in the pits.
 *
 * Termination: with max_sows = 0 the search relies on the game having no cycles (Kalah and Congklak: every
 * small board of the oracle solves); a line deeper than FS_MAX_PLY plies stops the solve with FS_EDEEP
 * rather than overflowing the stack (Oware with max_sows = 0 can cycle: give a limit).
 *
 * Not thread-safe: one fs_solver per thread. Library code: no printing, errors in err (KALAH_ERRLEN).
 */
#ifndef SOWZERO_FAMILY_SEARCH_H
#define SOWZERO_FAMILY_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "env/twoside.h"

#define FS_MAX_PLY 4000

enum { FS_OK = 0, FS_EINVAL = -1, FS_ENOMEM = -2, FS_EOVER = -3, FS_ESTOPPED = -4, FS_EDEEP = -5, FS_EGAME = -6 };

typedef struct fs_solver fs_solver;

typedef struct {
    int value;          /* final margin under perfect play for the player to move */
    unsigned best_mask; /* bit k: relative pit k reaches `value` (every optimal move) */
    int best;           /* the lowest optimal pit (-1 when the position is over) */
    uint64_t nodes;     /* positions visited, leaves included (deterministic for a fresh solver) */
    double seconds;     /* wall-clock time */
} fs_result;

/* Creates a solver for game g (copied; g->rules is borrowed and must outlive the solver) with a
 * transposition table of tt_mb MiB (1..65536). NULL on error with a message in err (a size out of range,
 * out of memory). Free with fs_free (NULL allowed). */
fs_solver *fs_create(const twoside_game *g, size_t tt_mb, char *err);
void fs_free(fs_solver *s);

/* Solves p exactly and fills *out. node_limit > 0 stops the solve after that many nodes. Returns FS_OK;
 * FS_EOVER when p is already over (out->value is then its final margin for p->side, best = -1, nodes 0);
 * FS_ESTOPPED when the node limit was reached (out->nodes set, value meaningless); FS_EDEEP (see above);
 * FS_EGAME when a move of the game failed (its code and a message in err). The table persists between
 * calls (solves of related positions share work); results do not depend on what it holds. */
int fs_solve(fs_solver *s, const kalah_pos *p, uint64_t node_limit, fs_result *out, char *err);

#endif
