/* srv_solve.h — the exact solver's value of every move of a small position of a two-player game with a
 * margin (Kalah, Congklak, Oware), within a budget, for the page's analysis panel.
 *
 * A position qualifies when the seeds left in its pits are at most max_seeds (the stores do not matter to
 * the search). Each legal move is played and the position after it solved — Kalah with ab_think (exact =
 * 1, eval/alphabeta.h), the other games with gs_solve (eval/game_search.h) — under a share of the node
 * budget (nodes / legal moves each); the move's value is the final
 * margin under perfect play for the player who moved (own store − opponent's, docs/design.md §3.5): the child's
 * value when the mover moves again (extra turn), its negation otherwise, the exact final margin when the
 * move ends the game. A child that runs out of budget leaves its value unknown (null).
 */
#ifndef SOWZERO_SRV_SOLVE_H
#define SOWZERO_SRV_SOLVE_H

#include <stdint.h>

#include "serve/srv_game.h"

/* A new object {"solved": bool, "reason": string or null, "values": [per pit: margin, or null for an
 * illegal or unsolved move], "best": [letters of the moves with the best known value when every legal move
 * was solved], "nodes", "seconds", "max_seeds", "budget"}; "solved" is false with a reason when the game has no
 * exact solver (básico: no margin), the position has too many seeds, it is over, or a move was not solved
 * in budget. NULL when out of memory. */
cJSON *srv_solve_moves(const srv_rules *r, const srv_pos *p, int max_seeds, uint64_t nodes);

#endif
