/* twoside.c — perft over a twoside_game (Kalah, Congklak, Oware). */
#include "env/twoside.h"

#include <string.h>

int twoside_row_seeds(const uint8_t *cell, int m, int side)
{
    int lo = side ? m + 1 : 0, t = 0;
    for (int i = lo; i < lo + m; i++)
        t += cell[i];
    return t;
}

void twoside_sweep(uint8_t *cell, int m)
{
    for (int i = 0; i < m; i++) {
        cell[m] = (uint8_t)(cell[m] + cell[i]);
        cell[i] = 0;
        cell[2 * m + 1] = (uint8_t)(cell[2 * m + 1] + cell[m + 1 + i]);
        cell[m + 1 + i] = 0;
    }
}

static unsigned kalah_legal_fn(const void *r, const kalah_pos *p) { return kalah_legal(r, p); }

static int kalah_play_fn(const void *r, kalah_pos *p, int k)
{
    kalah_sow(r, p, k, NULL);
    return 0;
}

twoside_game twoside_kalah(const kalah_rules *r)
{
    return (twoside_game){.name = "kalah", .rules = r, .pits = r->pits, .max_sows = r->max_sows, .stores_inert = 1,
                          .legal = kalah_legal_fn, .play = kalah_play_fn};
}

static int perft_rec(const twoside_game *g, const kalah_pos *p, int ply, int depth, uint64_t *nodes)
{
    unsigned legal = g->legal(g->rules, p);
    nodes[ply] += (uint64_t)__builtin_popcount(legal);
    if (ply + 1 == depth)
        return 0;
    while (legal) {
        int k = __builtin_ctz(legal);
        legal &= legal - 1;
        kalah_pos c = *p;
        int rc = g->play(g->rules, &c, k);
        if (rc < 0)
            return rc;
        if (!c.over && (rc = perft_rec(g, &c, ply + 1, depth, nodes)) < 0)
            return rc;
    }
    return 0;
}

int twoside_perft(const twoside_game *g, const kalah_pos *p, int depth, uint64_t *nodes)
{
    memset(nodes, 0, (size_t)(depth > 0 ? depth : 0) * sizeof *nodes);
    if (depth > 0 && !p->over)
        return perft_rec(g, p, 0, depth, nodes);
    return 0;
}
