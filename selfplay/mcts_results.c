/* mcts_results.c — what a finished search tells: the move to play, the policy target, root statistics, and
 * node inspection for tests (conventions in mcts.h, layout in mcts_impl.h). */
#include "selfplay/mcts_impl.h"

#include <math.h>
#include <string.h>

/* ---- results ---- */

/* The best root child (tau = 0 rule of mcts_choose), or −1 when the root is not expanded. */
int mcts_best_root_child(const mcts_tree *t)
{
    const mnode *root = &t->pool[0];
    if (!(root->flags & F_EXPANDED) || root->nchild == 0)
        return -1;
    const mnode *ch = &t->pool[root->child];
    if (mcts_root_scored(t)) { /* every child is exact: the best utility (ties: lower pit) */
        int bi = 0;
        for (int i = 1; i < root->nchild; i++)
            if (mnode_q(&ch[i]) > mnode_q(&ch[bi]))
                bi = i;
        return root->child + bi;
    }
    int any_win = 0, any_ok = 0, any_visit = 0;
    for (int i = 0; i < root->nchild; i++) {
        any_win |= ch[i].proven == 1;
        any_ok |= ch[i].proven != -1;
        any_visit |= ch[i].n > 0;
    }
    int bi = -1;
    for (int i = 0; i < root->nchild; i++) {
        const mnode *c = &ch[i];
        if ((any_win && c->proven != 1) || (any_ok && c->proven == -1))
            continue;
        if (bi < 0) {
            bi = i;
            continue;
        }
        const mnode *b = &ch[bi];
        int better = any_visit ? (c->n > b->n || (c->n == b->n && mnode_q(c) > mnode_q(b))) : c->prior > b->prior;
        if (better)
            bi = i;
    }
    return root->child + bi;
}

int mcts_choose(mcts_tree *t, double tau)
{
    int b = mcts_best_root_child(t);
    if (b < 0)
        return MCTS_EINVAL;
    int scored = mcts_root_scored(t); /* a scored root plays its exact best, whatever tau or the root lever */
    int gm = t->cfg.root == MCTS_ROOT_GUMBEL && !scored ? mcts_root_choose(t) : -1; /* tau does not apply to it */
    if (gm >= 0)
        return gm;
    const mnode *root = &t->pool[0], *ch = &t->pool[root->child];
    if (tau <= 0 || t->pool[b].proven == 1 || scored)
        return t->pool[b].move;
    int any_ok = 0, n[KALAH_MAX_PITS];
    uint8_t lost[KALAH_MAX_PITS];
    for (int i = 0; i < root->nchild; i++)
        any_ok |= ch[i].proven != -1;
    for (int i = 0; i < root->nchild; i++) {
        n[i] = ch[i].n;
        lost[i] = any_ok && ch[i].proven == -1;
    }
    double wt[KALAH_MAX_PITS], wsum = mcts_visit_weights(n, lost, root->nchild, tau, wt);
    if (!(wsum > 0) || !isfinite(wsum))
        return t->pool[b].move;
    int i = mcts_visit_draw(&t->rng, wt, root->nchild, wsum);
    return i >= 0 ? ch[i].move : t->pool[b].move;  /* −1: rounding at the very end of the range */
}

double mcts_visit_weights(const int *n, const uint8_t *skip, int count, double tau, double *wt)
{
    double wsum = 0;
    for (int i = 0; i < count; i++) {
        wt[i] = (skip && skip[i]) || n[i] == 0 || tau <= 0 ? 0.0 : pow((double)n[i], 1.0 / tau);
        wsum += wt[i];
    }
    return wsum;
}

int mcts_visit_draw(mcts_rng *rng, const double *wt, int count, double wsum)
{
    double u = mcts_rng_uniform(rng) * wsum;
    for (int i = 0; i < count; i++) {
        if (wt[i] <= 0)
            continue;
        if (u < wt[i])
            return i;
        u -= wt[i];
    }
    return -1;
}

int mcts_policy(const mcts_tree *t, double tau, float *pi)
{
    for (int k = 0; k < t->r.pits; k++)
        pi[k] = 0.0f;
    int b = mcts_best_root_child(t);
    if (b < 0)
        return MCTS_EINVAL;
    const mnode *root = &t->pool[0], *ch = &t->pool[root->child];
    if (mcts_root_scored(t)) { /* exact: uniform over the moves of the best utility */
        float best = mnode_q(&t->pool[b]);
        int k = 0;
        for (int i = 0; i < root->nchild; i++)
            k += mnode_q(&ch[i]) >= best - MCTS_SCORE_TIE;
        for (int i = 0; i < root->nchild; i++)
            pi[ch[i].move] = mnode_q(&ch[i]) >= best - MCTS_SCORE_TIE ? 1.0f / (float)k : 0.0f;
        return MCTS_OK;
    }
    if (mcts_root_policy(t, tau, pi)) /* the Gumbel target, or the visits with forced playouts pruned */
        return MCTS_OK;
    int n[KALAH_MAX_PITS];
    for (int i = 0; i < root->nchild; i++)
        n[i] = ch[i].n;
    double wt[KALAH_MAX_PITS], wsum = mcts_visit_weights(n, NULL, root->nchild, tau, wt);
    if (!(wsum > 0) || !isfinite(wsum)) {
        pi[t->pool[b].move] = 1.0f;
        return MCTS_OK;
    }
    for (int i = 0; i < root->nchild; i++)
        pi[ch[i].move] = (float)(wt[i] / wsum);
    return MCTS_OK;
}

int mcts_root_visits(const mcts_tree *t, int *visits, float *q)
{
    const mnode *root = &t->pool[0];
    for (int k = 0; k < t->r.pits; k++) {
        visits[k] = 0;
        if (q)
            q[k] = 0.0f;
    }
    if (root->flags & F_EXPANDED)
        for (int i = 0; i < root->nchild; i++) {
            const mnode *c = &t->pool[root->child + i];
            visits[c->move] = c->n;
            if (q)
                q[c->move] = c->n > 0 || c->proven != MCTS_UNPROVEN ? mnode_q(c) : 0.0f;
        }
    return root->n;
}

int mcts_root_prior(const mcts_tree *t, float *prior)
{
    if (!(t->pool[0].flags & F_EXPANDED))
        return MCTS_EINVAL;
    memcpy(prior, t->root_prior, (size_t)t->r.pits * sizeof *prior);
    return MCTS_OK;
}

float mcts_root_value(const mcts_tree *t)
{
    const mnode *root = &t->pool[0];
    return root->n > 0 ? root->w / (float)root->n : 0.0f;
}

int mcts_root_proven(const mcts_tree *t) { return t->pool[0].proven; }

int mcts_root_scored(const mcts_tree *t) { return t->scored && mnode_scored(&t->pool[0]); }

/* ---- inspection ---- */

int mcts_root_index(const mcts_tree *t)
{
    (void)t;
    return 0;
}

int mcts_node_count(const mcts_tree *t) { return t->count; }

int mcts_node_get(const mcts_tree *t, int index, mcts_node_info *out)
{
    if (index < 0 || index >= t->count)
        return MCTS_EINVAL;
    const mnode *n = &t->pool[index];
    out->parent = n->parent;
    out->move = n->parent < 0 ? -1 : n->move;
    out->side = n->flags & F_REACHED ? n->side : -1;
    out->parent_side = n->pside;
    out->visits = n->n;
    out->w = n->w;
    out->prior = n->prior;
    out->vloss = n->vl;
    out->q_select = n->n + n->vl > 0 ? (n->w - (float)n->vl) / (float)(n->n + n->vl) : 0.0f;
    out->expanded = !!(n->flags & F_EXPANDED);
    out->terminal = !!(n->flags & F_TERMINAL);
    out->exact = !!(n->flags & F_EXACT);
    out->pending = !!(n->flags & F_PENDING);
    out->proven = n->proven;
    out->scored = t->scored && mnode_scored(n);
    out->first_child = n->flags & F_EXPANDED ? n->child : -1;
    out->n_children = n->flags & F_EXPANDED ? n->nchild : 0;
    return MCTS_OK;
}

int mcts_node_child(const mcts_tree *t, int index, int move)
{
    if (index < 0 || index >= t->count)
        return -1;
    const mnode *n = &t->pool[index];
    if (!(n->flags & F_EXPANDED))
        return -1;
    for (int i = 0; i < n->nchild; i++)
        if (t->pool[n->child + i].move == move)
            return n->child + i;
    return -1;
}
