/* game_search.h — depth-limited and exact game-tree search for every game of the game interface
 * (env/game.h, issue 14; generalises issue 8's básico search).
 *
 * Values are vectors, one entry per player in [-1, 1] (game_values once over, game_estimate at the
 * horizon). One ply = one move; an extra turn is simply the same player choosing again, so nothing special
 * is needed. Two classic searches over the vectors:
 *   max^n    (Luckhardt & Irani 1986): every node's mover picks the child that maximises its own entry;
 *   paranoid (Sturtevant & Korf 2000): the root player maximises its own entry, every other player is
 *            assumed to minimise it — a two-sided game, so alpha-beta pruning applies. With two players
 *            it IS alpha-beta minimax (Knuth & Moore 1975) on the root player's value.
 * Ties between moves go to the lowest slot, so searches are deterministic.
 *
 * Exact solve (two-player games with a margin, game_has_margin): alpha-beta in negamax form on the final
 * margin (player 0 minus player 1, negated for player 1; an extra turn keeps the sign, DESIGN.md §3.5) to
 * the end of the game, with a transposition table keyed by the whole position (ply included, as max_sows
 * depends on it) and the game's endgame database when it has one. For small boards: a node budget bounds
 * the work. Library code: no printing.
 */
#ifndef SOWZERO_GAME_SEARCH_H
#define SOWZERO_GAME_SEARCH_H

#include <stdint.h>

#include "env/game.h"

typedef enum { GS_MAXN = 0, GS_PARANOID = 1 } gs_kind;

typedef struct {
    int move;                          /* best slot of the player to move, -1 if over */
    double value[GAME_MAX_PLAYERS];    /* backed-up value vector (paranoid: only the root's entry is exact;
                                          the others are those of the chosen line) */
    uint64_t nodes;                    /* positions visited */
} gs_result;

/* Searches p to `depth` plies (1..64) with the given method. Returns GAME_OK, GAME_EOVER if p is over
 * (out->move = -1, value = the final values), GAME_EINVAL for a bad depth or kind. */
int gs_search(const game *g, const game_pos *p, gs_kind kind, int depth, gs_result *out);

typedef struct {
    int move;          /* a best slot (the lowest of equal ones), -1 if over */
    int value;         /* exact final margin for the player to move under perfect play */
    uint64_t nodes;    /* positions visited */
} gs_solution;

/* Solves p exactly (see above), visiting at most max_nodes positions (0: 50 million). GAME_OK;
 * GAME_EINVAL (with a message in err, GAME_ERRLEN) when the game has no margin or more than two players,
 * or when the budget ran out ("too large to solve"); GAME_ENOMEM. A finished p gives GAME_OK, move -1 and
 * its margin. */
int gs_solve(const game *g, const game_pos *p, uint64_t max_nodes, gs_solution *out, char *err);

#endif
