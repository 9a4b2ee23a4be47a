/* mcts_mp_root.c — the root levers of every game's search (mcts_mp.h): Gumbel AlphaZero's root and KataGo's
 * forced playouts with policy target pruning, by the rules of mcts_root.h that Kalah's search applies too.
 * Each node chooses for its own mover, so the root's Q (sigma's completed Q, the pruning's PUCT) is the root
 * mover's entry of its children's value vectors; a child decided for that mover counts with its exact
 * value, and one decided at −1 (last place) is Kalah's proven loss: never chosen while another exists. */
#include <stdlib.h>

#include "selfplay/mcts_mp_impl.h"
#include "selfplay/mcts_root.h"

/* The root's children as the rules take them: visits, Q for the root's mover, prior (noise included). */
static int root_arrays(const mcts_mp_tree *t, int *n, double *q, double *prior)
{
    const mpnode *root = &t->pool[0], *ch = &t->pool[root->child];
    for (int i = 0; i < root->nchild; i++) {
        n[i] = ch[i].n;
        q[i] = ch[i].n > 0 || (ch[i].flags & F_DECIDED) ? mp_child_q(&ch[i], root->mover) : 0.0;
        prior[i] = ch[i].prior;
    }
    return root->nchild;
}

static void gumbel_scores(const mcts_mp_tree *t, double *score)
{
    int n[GAME_MAX_MOVES] = {0};
    double q[GAME_MAX_MOVES] = {0}, prior[GAME_MAX_MOVES] = {0};
    int nc = root_arrays(t, n, q, prior);
    mcts_gumbel_scores(n, q, prior, t->gumbel, nc, t->root_raw, t->cfg.gumbel_c_visit, t->cfg.gumbel_c_scale, score);
}

/* skip[i]: child i is decided at −1 for the root's mover while another child is not. */
static void lost_children(const mcts_mp_tree *t, uint8_t *skip)
{
    const mpnode *root = &t->pool[0], *ch = &t->pool[root->child];
    int any_ok = 0;
    for (int i = 0; i < root->nchild; i++) {
        skip[i] = (ch[i].flags & F_DECIDED) && ch[i].dv <= -1.0f;
        any_ok |= !skip[i];
    }
    for (int i = 0; i < root->nchild; i++)
        skip[i] = skip[i] && any_ok;
}

int mp_root_begin(mcts_mp_tree *t, float raw)
{
    const mpnode *root = &t->pool[0];
    t->root_raw = raw;
    t->halving_len = 0;
    if (t->cfg.root != MCTS_ROOT_GUMBEL)
        return MCTS_OK;
    mcts_gumbel_draw(&t->rng, t->cfg.gumbel_scale, root->nchild, t->gumbel);
    int n = t->cfg.sims - 1, m = t->cfg.gumbel_k < root->nchild ? t->cfg.gumbel_k : root->nchild;
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

int mp_root_select(const mcts_mp_tree *t)
{
    if (t->cfg.root != MCTS_ROOT_GUMBEL && !(t->cfg.forced_playouts_k > 0))
        return -1;
    const mpnode *root = &t->pool[0], *ch = &t->pool[root->child];
    int nc = root->nchild, n[GAME_MAX_MOVES], cnt[GAME_MAX_MOVES];
    for (int i = 0; i < nc; i++) {
        n[i] = ch[i].n;
        cnt[i] = ch[i].n + ch[i].vl;
    }
    if (t->cfg.root != MCTS_ROOT_GUMBEL) { /* forced playouts; PUCT (−1) when none is owed */
        double prior[GAME_MAX_MOVES];
        uint8_t skip[GAME_MAX_MOVES];
        for (int i = 0; i < nc; i++)
            prior[i] = ch[i].prior;
        lost_children(t, skip);
        int i = mcts_forced_pick(n, cnt, prior, skip, nc, t->cfg.forced_playouts_k);
        return i >= 0 ? root->child + i : -1;
    }
    double score[GAME_MAX_MOVES];
    gumbel_scores(t, score);
    return root->child + mcts_gumbel_pick(cnt, score, nc, t->halving, t->halving_len);
}

int mp_root_policy(const mcts_mp_tree *t, double tau, float *pi)
{
    const mpnode *root = &t->pool[0], *ch = &t->pool[root->child];
    int n[GAME_MAX_MOVES] = {0}, nc;
    double q[GAME_MAX_MOVES] = {0}, prior[GAME_MAX_MOVES] = {0}, w[GAME_MAX_MOVES];
    if (t->cfg.root == MCTS_ROOT_GUMBEL) { /* the completed-Q target, whatever tau */
        double sigma[GAME_MAX_MOVES];
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
    if (!mcts_forced_target(n, q, prior, nc, t->cfg.c_puct, root->n, t->cfg.forced_playouts_k, tau, w))
        return 0;
    for (int i = 0; i < nc; i++)
        pi[ch[i].move] = (float)w[i];
    return 1;
}

int mp_root_choose(const mcts_mp_tree *t)
{
    int b = mp_best_root_child(t);
    if (t->cfg.root != MCTS_ROOT_GUMBEL || b < 0)
        return -1;
    if ((t->pool[b].flags & F_DECIDED) && t->pool[b].dv >= 1.0f) /* a proven first place is played first */
        return t->pool[b].move;
    const mpnode *root = &t->pool[0], *ch = &t->pool[root->child];
    int n[GAME_MAX_MOVES];
    uint8_t skip[GAME_MAX_MOVES];
    double score[GAME_MAX_MOVES];
    for (int i = 0; i < root->nchild; i++)
        n[i] = ch[i].n;
    lost_children(t, skip);
    gumbel_scores(t, score);
    return ch[mcts_gumbel_choose(n, skip, score, root->nchild)].move;
}
