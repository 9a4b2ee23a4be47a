/* mcts_root.c — Gumbel AlphaZero's root and KataGo's forced playouts with target pruning (mcts_root.h). */
#include "selfplay/mcts_root.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "selfplay/mcts_impl.h"

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

/* ---- the tree hooks ---- */

/* The root's children as the formulas take them: visits, Q for the root's mover, prior. */
static int root_arrays(const mcts_tree *t, int *n, double *q, double *prior)
{
    const mnode *root = &t->pool[0], *ch = &t->pool[root->child];
    for (int i = 0; i < root->nchild; i++) {
        n[i] = ch[i].n;
        q[i] = ch[i].n > 0 || ch[i].proven != MCTS_UNPROVEN ? mnode_q(&ch[i]) : 0.0;
        prior[i] = ch[i].prior;
    }
    return root->nchild;
}

static void gumbel_scores(const mcts_tree *t, double *score)
{
    int n[KALAH_MAX_PITS] = {0};
    double q[KALAH_MAX_PITS] = {0}, prior[KALAH_MAX_PITS] = {0}, sigma[KALAH_MAX_PITS];
    int nc = root_arrays(t, n, q, prior);
    mcts_gumbel_sigma(n, q, prior, nc, t->root_raw, t->cfg.gumbel_c_visit, t->cfg.gumbel_c_scale, sigma);
    for (int i = 0; i < nc; i++)
        score[i] = t->gumbel[i] + logit_of(prior[i]) + sigma[i];
}

int mcts_root_begin(mcts_tree *t, float raw)
{
    const mnode *root = &t->pool[0];
    t->root_raw = raw;
    t->halving_len = 0;
    if (t->cfg.root != MCTS_ROOT_GUMBEL)
        return MCTS_OK;
    for (int i = 0; i < root->nchild; i++) {
        double g = 0;
        if (t->cfg.gumbel_scale > 0) { /* no draw at scale 0: the evaluation search stays deterministic */
            double u = mcts_rng_uniform(&t->rng);
            g = -log(-log(u > DBL_MIN ? u : DBL_MIN)) * t->cfg.gumbel_scale;
        }
        t->gumbel[i] = (float)g;
    }
    int n = t->sims - 1, m = t->cfg.gumbel_k < root->nchild ? t->cfg.gumbel_k : root->nchild;
    if (n > t->halving_cap) {
        int *h = realloc(t->halving, (size_t)n * sizeof *h);
        if (!h)
            return MCTS_ENOMEM;
        t->halving = h;
        t->halving_cap = n;
    }
    mcts_gumbel_halving(m, n, t->halving);
    t->halving_len = n;
    return MCTS_OK;
}

int mcts_root_select(const mcts_tree *t)
{
    const mnode *root = &t->pool[0], *ch = &t->pool[root->child];
    int nc = root->nchild;
    if (t->cfg.root != MCTS_ROOT_GUMBEL) { /* forced playouts; PUCT (−1) when none is owed */
        int total = 0, any_ok = 0;
        for (int i = 0; i < nc; i++) {
            total += ch[i].n;
            any_ok |= ch[i].proven != -1;
        }
        for (int i = 0; i < nc; i++)
            if (!(any_ok && ch[i].proven == -1) &&
                ch[i].n + ch[i].vl < mcts_forced_playouts(t->cfg.forced_playouts_k, ch[i].prior, total))
                return root->child + i;
        return -1;
    }
    double score[KALAH_MAX_PITS];
    gumbel_scores(t, score);
    int idx = 0, lo = 1 << 30;
    for (int i = 0; i < nc; i++) {
        idx += ch[i].n + ch[i].vl;
        lo = ch[i].n + ch[i].vl < lo ? ch[i].n + ch[i].vl : lo;
    }
    /* the schedule's count for this simulation; past its end (or without one) the least visited */
    int want = t->halving_len > 0 ? t->halving[idx < t->halving_len ? idx : t->halving_len - 1] : lo;
    for (int pass = 0; pass < 2; pass++, want = lo) {
        int best = -1;
        for (int i = 0; i < nc; i++)
            if (ch[i].n + ch[i].vl == want && (best < 0 || score[i] > score[best]))
                best = i;
        if (best >= 0)
            return root->child + best;
    }
    return root->child; /* not reached: some child has the least count */
}

int mcts_root_policy(const mcts_tree *t, double tau, float *pi)
{
    const mnode *root = &t->pool[0], *ch = &t->pool[root->child];
    int n[KALAH_MAX_PITS] = {0}, nc;
    double q[KALAH_MAX_PITS] = {0}, prior[KALAH_MAX_PITS] = {0}, w[KALAH_MAX_PITS];
    if (t->cfg.root == MCTS_ROOT_GUMBEL) {
        double sigma[KALAH_MAX_PITS];
        nc = root_arrays(t, n, q, prior);
        mcts_gumbel_sigma(n, q, prior, nc, t->root_raw, t->cfg.gumbel_c_visit, t->cfg.gumbel_c_scale, sigma);
        mcts_gumbel_target(prior, sigma, nc, w);
        for (int i = 0; i < nc; i++)
            pi[ch[i].move] = (float)w[i];
        return 1;
    }
    if (!(t->cfg.forced_playouts_k > 0) || tau <= 0)
        return 0;
    nc = root_arrays(t, n, q, prior);
    double pruned[KALAH_MAX_PITS], sum = 0;
    mcts_forced_prune(n, q, prior, nc, t->cfg.c_puct, root->n, t->cfg.forced_playouts_k, pruned);
    for (int i = 0; i < nc; i++) {
        w[i] = pruned[i] > 0 ? pow(pruned[i], 1.0 / tau) : 0.0;
        sum += w[i];
    }
    if (!(sum > 0) || !isfinite(sum))
        return 0;
    for (int i = 0; i < nc; i++)
        pi[ch[i].move] = (float)(w[i] / sum);
    return 1;
}

int mcts_root_choose(const mcts_tree *t)
{
    int b = mcts_best_root_child(t);
    if (t->cfg.root != MCTS_ROOT_GUMBEL || b < 0)
        return -1;
    if (t->pool[b].proven == 1)
        return t->pool[b].move;
    const mnode *root = &t->pool[0], *ch = &t->pool[root->child];
    int any_ok = 0, max_n = -1, best = -1;
    for (int i = 0; i < root->nchild; i++)
        any_ok |= ch[i].proven != -1;
    for (int i = 0; i < root->nchild; i++)
        if (!(any_ok && ch[i].proven == -1) && ch[i].n > max_n)
            max_n = ch[i].n;
    double score[KALAH_MAX_PITS];
    gumbel_scores(t, score);
    for (int i = 0; i < root->nchild; i++)
        if (!(any_ok && ch[i].proven == -1) && ch[i].n == max_n && (best < 0 || score[i] > score[best]))
            best = i;
    return ch[best].move;
}
