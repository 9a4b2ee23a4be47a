/* basico_search.c — max^n and paranoid search for Mancala básico (see basico_search.h). */
#include "eval/basico_search.h"

#include <string.h>

void basico_estimate(const basico_rules *r, const basico_pos *p, double *out)
{
    const int n = r->players;
    if (p->over) {
        for (int q = 0; q < n && q < BASICO_MAX_PLAYERS; q++)
            out[q] = basico_rank_score(r, p, q);
        return;
    }
    int first_free = 1; /* top places already given to finishers */
    for (int i = 0; i < p->n_left; i++)
        first_free += !p->resigned[i];
    for (int q = 0; q < n && q < BASICO_MAX_PLAYERS; q++) {
        if (!(p->active & (1u << q))) {
            out[q] = basico_rank_score(r, p, q);
            continue;
        }
        /* Equal counts share the mean of the places they span, so the estimate sums to a constant
         * (with two players max^n then equals minimax). */
        int better = 0, equal = 0, mine = basico_pit_stones(r, p, q);
        for (int o = 0; o < n && o < BASICO_MAX_PLAYERS; o++)
            if (p->active & (1u << o)) {
                int theirs = basico_pit_stones(r, p, o);
                better += theirs < mine;
                equal += theirs == mine;
            }
        double place = first_free + better + (equal - 1) / 2.0;
        out[q] = (n - place) / (double)(n - 1);
    }
}

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

/* Fewest stones the mover can leave in its pits by the end of its turn from p (greedy on extra sowings). */
static int turn_leftover(const basico_rules *r, const basico_pos *p, int k, int budget)
{
    basico_pos c = *p;
    basico_step st;
    basico_play(r, &c, k, &st);
    if (st.finished)
        return 0;
    int mine = basico_pit_stones(r, &c, p->to_move);
    if (!st.extra_turn || budget == 0)
        return mine;
    unsigned legal = basico_legal(r, &c);
    while (legal) {
        int j = __builtin_ctz(legal), left;
        legal &= legal - 1;
        if ((left = turn_leftover(r, &c, j, budget - 1)) < mine)
            mine = left;
    }
    return mine;
}

int basico_greedy_move(const basico_rules *r, const basico_pos *p)
{
    unsigned legal = basico_legal(r, p);
    int best = -1, best_left = 1 << 30;
    while (legal) {
        int k = __builtin_ctz(legal), left;
        legal &= legal - 1;
        /* The budget bounds extra-sowing chains, which can be long with many stores to hit. */
        if ((left = turn_leftover(r, p, k, 6)) < best_left)
            best = k, best_left = left;
    }
    return best;
}
