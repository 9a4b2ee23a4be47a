/* mcts_tb.c — exact margins of every move from the tablebase oracle (mcts_tb.h). */
#include "selfplay/mcts_tb.h"

#include <stdint.h>

int mcts_tb_seeds_in_pits(const kalah_rules *r, const kalah_pos *p)
{
    return 2 * r->pits * r->seeds - p->cell[r->pits] - p->cell[2 * r->pits + 1];
}

int mcts_tb_move_margins(const mcts_tb *tb, int seeds, const kalah_rules *r, const kalah_pos *p, int *margin)
{
    if (!tb || p->over || seeds < 1 || mcts_tb_seeds_in_pits(r, p) > seeds)
        return INT16_MIN;
    unsigned legal = kalah_legal(r, p);
    int best = INT16_MIN;
    for (int k = 0; k < r->pits; k++) {
        margin[k] = INT16_MIN;
        if (!(legal >> k & 1u))
            continue;
        kalah_pos q = *p;
        kalah_sow(r, &q, k, NULL);
        int south = kalah_margin(r, &q); /* finished: the final margin for South */
        int m = q.over ? (p->side == KALAH_SOUTH ? south : -south)
                       : (q.side == p->side ? 1 : -1) * tb->probe(tb, &q);
        margin[k] = m;
        best = m > best ? m : best;
    }
    return best;
}
