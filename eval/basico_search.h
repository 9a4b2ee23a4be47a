/* basico_search.h — multi-player search baselines for Mancala básico (DESIGN.md §1.2, issue 8).
 *
 * Values are vectors, one entry per player: the rank score (players - place) / (players - 1), 1 for
 * first place (basico_rank_score). Two classic searches over them, both depth-limited in plies (one ply =
 * one sowing; an extra sowing is simply the same player choosing again, so nothing special is needed):
 *   max^n    (Luckhardt & Irani 1986): every node's mover picks the child that maximises its own entry;
 *   paranoid (Sturtevant & Korf 2000): the root player maximises its own entry, every other player is
 *            assumed to minimise it — a two-sided game, so alpha-beta pruning applies.
 * At the horizon a position is valued by the static estimate basico_estimate (env/basico.h). Ties between moves go to
 * the lowest pit, so searches are deterministic. Library code: no printing, no allocation.
 */
#ifndef SOWZERO_BASICO_SEARCH_H
#define SOWZERO_BASICO_SEARCH_H

#include <stdint.h>

#include "env/basico.h"

typedef enum { BS_MAXN = 0, BS_PARANOID = 1 } bs_kind;

typedef struct {
    int move;                          /* best relative pit of the player to move, -1 if over */
    double value[BASICO_MAX_PLAYERS];  /* backed-up rank-score vector (paranoid: only the root's entry
                                          is exact; the others are those of the chosen line) */
    uint64_t nodes;                    /* positions visited */
} bs_result;

/* Searches p to `depth` plies (1..64) with the given method. Returns BASICO_OK, BASICO_EOVER if p is over
 * (out->move = -1, value = the final scores), BASICO_EINVAL for a bad depth or kind. */
int bs_search(const basico_rules *r, const basico_pos *p, bs_kind kind, int depth, bs_result *out);

#endif
