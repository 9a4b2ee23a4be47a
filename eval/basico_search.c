/* basico_search.c — max^n and paranoid search for Mancala básico (see basico_search.h). */
#include "eval/basico_search.h"

#include <string.h>

static void maxn(const basico_rules *r, const basico_pos *p, int depth, double *value, int *best, uint64_t *nodes)
{
    ++*nodes;
    *best = -1;
    if (p->over || depth == 0) {
        basico_estimate(r, p, value);
        return;
    }
    const int me = p->to_move;
    unsigned legal = basico_legal(r, p);
    double child[BASICO_MAX_PLAYERS];
    while (legal) {
        int k = __builtin_ctz(legal), ignored;
        legal &= legal - 1;
        basico_pos c = *p;
        basico_play(r, &c, k, NULL);
        maxn(r, &c, depth - 1, child, &ignored, nodes);
        if (*best < 0 || child[me] > value[me]) {
            *best = k;
            memcpy(value, child, sizeof child);
        }
    }
}

/* Alpha-beta on the root player's entry; the line's full vector comes back in `vec`. */
static double paranoid(const basico_rules *r, const basico_pos *p, int root, int depth, double alpha, double beta,
                       double *vec, int *best, uint64_t *nodes)
{
    ++*nodes;
    *best = -1;
    if (p->over || depth == 0) {
        basico_estimate(r, p, vec);
        return vec[root];
    }
    const int maximise = p->to_move == root;
    unsigned legal = basico_legal(r, p);
    double bestv = maximise ? -1.0 : 2.0, child[BASICO_MAX_PLAYERS];
    while (legal) {
        int k = __builtin_ctz(legal), ignored;
        legal &= legal - 1;
        basico_pos c = *p;
        basico_play(r, &c, k, NULL);
        double v = paranoid(r, &c, root, depth - 1, alpha, beta, child, &ignored, nodes);
        if (maximise ? v > bestv : v < bestv) {
            bestv = v;
            *best = k;
            memcpy(vec, child, sizeof child);
        }
        if (maximise ? (bestv > alpha && (alpha = bestv) >= beta) : (bestv < beta && (beta = bestv) <= alpha))
            break;
    }
    return bestv;
}

int bs_search(const basico_rules *r, const basico_pos *p, bs_kind kind, int depth, bs_result *out)
{
    memset(out, 0, sizeof *out);
    out->move = -1;
    if (depth < 1 || depth > 64 || (kind != BS_MAXN && kind != BS_PARANOID))
        return BASICO_EINVAL;
    if (p->over) {
        basico_estimate(r, p, out->value);
        return BASICO_EOVER;
    }
    if (kind == BS_MAXN)
        maxn(r, p, depth, out->value, &out->move, &out->nodes);
    else
        paranoid(r, p, p->to_move, depth, -1.0, 2.0, out->value, &out->move, &out->nodes);
    return BASICO_OK;
}
