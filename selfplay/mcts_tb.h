/* mcts_tb.h — the exact-value oracle of the search's tablebase leaves (mcts.h) and what self-play
 * and the az agent read from it besides a leaf's value: the exact margin after every move of a covered
 * position. eval/tbase.h wraps the endgame database (eval/endgame.h) in one; this module knows only the
 * interface, so selfplay/ does not depend on eval/. */
#ifndef SOWZERO_SELFPLAY_MCTS_TB_H
#define SOWZERO_SELFPLAY_MCTS_TB_H

#include "env/kalah.h"

/* probe(tb, p) is called only for an unfinished position p of the rules the oracle was built for with at
 * most max_seeds seeds in its pits, and returns its final margin under perfect play for p->side (seeds, own
 * store − opponent's at the end). It must be safe to call from many threads at once (it only reads). ctx
 * is the implementation's. */
typedef struct mcts_tb {
    int (*probe)(const struct mcts_tb *tb, const kalah_pos *p);
    int max_seeds;
    const void *ctx;
} mcts_tb;

/* Seeds in the pits of p (all seeds of r minus both stores). */
int mcts_tb_seeds_in_pits(const kalah_rules *r, const kalah_pos *p);

/* When unfinished position p has at most `seeds` (<= tb->max_seeds) seeds in its pits: fills margin[k], for
 * every legal relative pit k, with the exact final margin for p's mover after playing k (a sowing never adds
 * seeds to the pits, so every child is covered or finished; an extra turn keeps the sign), writes
 * INT16_MIN on the other pits, and returns the best of them (the position's own exact margin). Else returns
 * INT16_MIN and leaves margin untouched. margin has r->pits entries. */
int mcts_tb_move_margins(const mcts_tb *tb, int seeds, const kalah_rules *r, const kalah_pos *p, int *margin);

#endif
