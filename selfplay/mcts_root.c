/* mcts_root.c — Gumbel AlphaZero's root and KataGo's forced playouts with target pruning (mcts_root.h). */
#include "selfplay/mcts_root.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>


/* ---- the formulas ---- */

void mcts_gumbel_halving(int m, int n, int *seq)
{
    if (m <= 1) { /* one action: it is chosen every time, with i visits at simulation i */
        for (int i = 0; i < n; i++)
            seq[i] = i;
        return;
    }
    int log2max = 0;
    while ((1 << log2max) < m)
        log2max++;
    int visits[64] = {0}, considered = m < 64 ? m : 64, len = 0;
    while (len < n) {
        int extra = (int)((double)n / ((double)log2max * considered));
        if (extra < 1)
            extra = 1;
        for (int e = 0; e < extra && len < n; e++) {
            for (int i = 0; i < considered && len < n; i++)
                seq[len++] = visits[i];
            for (int i = 0; i < considered; i++)
                visits[i]++;
        }
        considered = considered / 2 > 2 ? considered / 2 : 2;
    }
}

void mcts_gumbel_sigma(const int *n, const double *q, const double *prior, int count, double raw, double c_visit,
                       double c_scale, double *sigma)
{
    /* v_mix (appendix D, eq. 33): the net's value mixed with the prior-weighted Q of the visited actions */
    double sum_n = 0, sum_p = 0, pq = 0;
    int max_n = 0;
    for (int i = 0; i < count; i++) {
        sum_n += n[i];
        max_n = n[i] > max_n ? n[i] : max_n;
        if (n[i] > 0) {
            double p = prior[i] > DBL_MIN ? prior[i] : DBL_MIN;
            sum_p += p;
            pq += p * q[i];
        }
    }
    double vmix = sum_p > 0 ? (raw + sum_n * pq / sum_p) / (sum_n + 1) : raw;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < count; i++) {
        sigma[i] = n[i] > 0 ? q[i] : vmix;
        lo = sigma[i] < lo ? sigma[i] : lo;
        hi = sigma[i] > hi ? sigma[i] : hi;
    }
    double span = hi - lo > 1e-8 ? hi - lo : 1e-8, scale = (c_visit + max_n) * c_scale;
    for (int i = 0; i < count; i++)
        sigma[i] = scale * (sigma[i] - lo) / span;
}

static double logit_of(double p) { return log(p > 1e-30 ? p : 1e-30); }

void mcts_gumbel_target(const double *prior, const double *sigma, int count, double *pi)
{
    double mx = -INFINITY, sum = 0;
    for (int i = 0; i < count; i++)
        if (prior[i] > 0 && logit_of(prior[i]) + sigma[i] > mx)
            mx = logit_of(prior[i]) + sigma[i];
    for (int i = 0; i < count; i++) {
        pi[i] = prior[i] > 0 ? exp(logit_of(prior[i]) + sigma[i] - mx) : 0.0;
        sum += pi[i];
    }
    for (int i = 0; i < count; i++)
        pi[i] = sum > 0 ? pi[i] / sum : 1.0 / count;
}

double mcts_forced_playouts(double k, double prior, int total)
{
    double v = k * prior * (double)total;
    return v > 0 ? sqrt(v) : 0.0;
}

int mcts_forced_prune(const int *n, const double *q, const double *prior, int count, double c_puct, int parent_n,
                      double k, double *out)
{
    int total = 0, best = -1;
    for (int i = 0; i < count; i++) {
        out[i] = n[i];
        total += n[i];
        if (n[i] > 0 && (best < 0 || n[i] > n[best]))
            best = i;
    }
    if (best < 0)
        return -1;
    double sq = sqrt((double)parent_n);
    double star = q[best] + c_puct * prior[best] * sq / (1.0 + n[best]);
    for (int i = 0; i < count; i++) {
        if (i == best || n[i] == 0)
            continue;
        double lo = n[i] - mcts_forced_playouts(k, prior[i], total), gap = star - q[i], keep = n[i];
        if (gap > 0) { /* PUCT(c, N') < PUCT(c*) exactly while 1 + N' > c_puct · P · sqrt(N(root)) / gap */
            double nmin = c_puct * prior[i] * sq / gap - 1.0;
            keep = lo > nmin ? lo : nmin;
            keep = keep < n[i] ? keep : n[i];
        }
        out[i] = keep <= 1.0 ? 0.0 : keep;
    }
    return best;
}

/* ---- the rules over a root's children ---- */

void mcts_gumbel_draw(mcts_rng *rng, double scale, int count, float *g)
{
    for (int i = 0; i < count; i++) {
        double x = 0;
        if (scale > 0) {
            double u = mcts_rng_uniform(rng);
            x = -log(-log(u > DBL_MIN ? u : DBL_MIN)) * scale;
        }
        g[i] = (float)x;
    }
}

void mcts_gumbel_scores(const int *n, const double *q, const double *prior, const float *g, int count,
                        double raw, double c_visit, double c_scale, double *score)
{
    double sigma[64];
    mcts_gumbel_sigma(n, q, prior, count, raw, c_visit, c_scale, sigma);
    for (int i = 0; i < count; i++)
        score[i] = g[i] + logit_of(prior[i]) + sigma[i];
}

int mcts_gumbel_pick(const int *cnt, const double *score, int count, const int *seq, int len)
{
    int idx = 0, lo = 1 << 30;
    for (int i = 0; i < count; i++) {
        idx += cnt[i];
        lo = cnt[i] < lo ? cnt[i] : lo;
    }
    /* the schedule's count for this simulation; past its end (or without one) the least visited */
    int want = len > 0 ? seq[idx < len ? idx : len - 1] : lo;
    for (int pass = 0; pass < 2; pass++, want = lo) {
        int best = -1;
        for (int i = 0; i < count; i++)
            if (cnt[i] == want && (best < 0 || score[i] > score[best]))
                best = i;
        if (best >= 0)
            return best;
    }
    return 0; /* not reached: some child has the least count */
}

int mcts_gumbel_choose(const int *n, const uint8_t *skip, const double *score, int count)
{
    int max_n = -1, best = -1;
    for (int i = 0; i < count; i++)
        if (!(skip && skip[i]) && n[i] > max_n)
            max_n = n[i];
    for (int i = 0; i < count; i++)
        if (!(skip && skip[i]) && n[i] == max_n && (best < 0 || score[i] > score[best]))
            best = i;
    return best;
}

int mcts_forced_pick(const int *n, const int *cnt, const double *prior, const uint8_t *skip, int count, double k)
{
    int total = 0;
    for (int i = 0; i < count; i++)
        total += n[i];
    for (int i = 0; i < count; i++)
        if (!(skip && skip[i]) && cnt[i] < mcts_forced_playouts(k, prior[i], total))
            return i;
    return -1;
}

int mcts_forced_target(const int *n, const double *q, const double *prior, int count, double c_puct, int parent_n,
                       double k, double tau, double *pi)
{
    double pruned[64], w[64], sum = 0;
    mcts_forced_prune(n, q, prior, count, c_puct, parent_n, k, pruned);
    for (int i = 0; i < count; i++) {
        w[i] = pruned[i] > 0 ? pow(pruned[i], 1.0 / tau) : 0.0;
        sum += w[i];
    }
    if (!(sum > 0) || !isfinite(sum))
        return 0;
    for (int i = 0; i < count; i++)
        pi[i] = w[i] / sum;
    return 1;
}
