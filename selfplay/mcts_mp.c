/* mcts_mp.c — the multi-player PUCT tree: pools, descent, expansion, vector backup, max^n proofs, noise,
 * reuse (conventions in mcts_mp.h). Laid out like mcts.c; the differences are the value vectors. The root
 * levers (Gumbel, forced playouts) are mcts_mp_root.c. */
#include "selfplay/mcts_mp.h"
#include "selfplay/mcts_mp_impl.h"
#include "selfplay/mcts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(mpnode **pool, int *cap, int need)
{
    if (need <= *cap)
        return 1;
    int nc = *cap ? *cap : 256;
    while (nc < need)
        nc = nc > (1 << 28) ? need : nc * 2;
    mpnode *p = realloc(*pool, (size_t)nc * sizeof *p);
    if (!p)
        return 0;
    *pool = p;
    *cap = nc;
    return 1;
}

/* The exact value vector of a finished position: its game_values. */
static void exact_value(const mcts_mp_tree *t, const game_pos *p, float *v)
{
    double d[NP] = {0};
    game_values(t->g, p, d);
    for (int q = 0; q < NP; q++)
        v[q] = (float)d[q];
}

/* The margin utility needs two players and a final margin: two-player games run on mcts.h's tree, so
 * this tree (three and four players) refuses it. MCTS_OK, else MCTS_EINVAL. */
static int check_utility(const game *g, const mcts_config *cfg, char *err)
{
    if (cfg->margin_utility > 0) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts.margin_utility needs two players and a final margin; %s has more than "
                     "two players", game_spec(g));
        return MCTS_EINVAL;
    }
    return MCTS_OK;
}

/* Marks node nd reached at position pos: its mover, and what is exact there — everything once the game is
 * over, the chooser's entry once the game says it is fixed (game_decided: a básico player who left). */
static void reach(mcts_mp_tree *t, mpnode *nd, const game_pos *pos)
{
    nd->flags |= F_REACHED;
    nd->mover = pos->to_move;
    if (pos->over) {
        nd->flags |= F_TERMINAL;
        exact_value(t, pos, nd->pv);
        if (t->cfg.solver) {
            nd->flags |= F_PROVEN | F_DECIDED;
            nd->dv = nd->pv[nd->pmover];
        }
    } else if (t->cfg.solver) {
        double v;
        if (game_decided(t->g, pos, nd->pmover, &v)) {
            nd->flags |= F_DECIDED;
            nd->dv = (float)v;
        }
    }
}

static void init_root(mcts_mp_tree *t)
{
    mpnode *n = &t->pool[0];
    memset(n, 0, sizeof *n);
    n->prior = 1.0f;
    n->parent = -1;
    n->child = -1;
    n->move = 0xff;
    n->pmover = t->root_pos.to_move;
    reach(t, n, &t->root_pos);
    t->count = 1;
    t->start_n = 0;
    t->npend = 0;
    t->halving_len = 0;
    for (int h = 0; h < MP_MAX_PENDING; h++)
        t->pend_node[h] = -1;
}

mcts_mp_tree *mcts_mp_tree_create(const game *g, const mcts_config *cfg, uint64_t seed, char *err)
{
    if (!g) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts_mp_tree_create: no game");
        return NULL;
    }
    if (game_players(g) == 2) { /* the two-player tree (mcts.h) */
        mcts_mp_tree *t = calloc(1, sizeof *t);
        if (t && !(t->two = mcts2_tree_create(g, cfg, seed, err))) {
            free(t);
            return NULL;
        }
        if (!t && err)
            snprintf(err, MCTS_ERRLEN, "out of memory");
        if (t) {
            t->g = g;
            t->players = 2;
            t->moves = game_moves(g);
        }
        return t;
    }
    if (mcts_config_check(cfg, err) != MCTS_OK || check_utility(g, cfg, err) != MCTS_OK)
        return NULL;
    mcts_mp_tree *t = calloc(1, sizeof *t);
    if (!t || !grow(&t->pool, &t->cap, 1024)) {
        free(t);
        if (err)
            snprintf(err, MCTS_ERRLEN, "out of memory");
        return NULL;
    }
    t->g = g;
    t->players = game_players(g);
    t->moves = game_moves(g);
    t->cfg = *cfg;
    mcts_rng_seed(&t->rng, seed);
    game_start(g, &t->root_pos);
    init_root(t);
    return t;
}

void mcts_mp_tree_free(mcts_mp_tree *t)
{
    if (!t)
        return;
    if (t->two) {
        mcts2_tree_free(t->two);
        free(t);
        return;
    }
    free(t->pool);
    free(t->spare);
    free(t->halving);
    free(t);
}

int mcts_mp_tree_set_config(mcts_mp_tree *t, const mcts_config *cfg, char *err)
{
    if (t->two)
        return mcts2_tree_set_config(t->two, cfg, err);
    int rc = mcts_config_check(cfg, err);
    if (rc == MCTS_OK)
        rc = check_utility(t->g, cfg, err);
    if (rc == MCTS_OK)
        t->cfg = *cfg;
    return rc;
}

mcts2_tree *mcts_mp_two(mcts_mp_tree *t) { return t->two; }
mcts_rng *mcts_mp_tree_rng(mcts_mp_tree *t) { return t->two ? mcts2_tree_rng(t->two) : &t->rng; }
const game_pos *mcts_mp_root_pos(const mcts_mp_tree *t) { return t->two ? mcts2_root_pos(t->two) : &t->root_pos; }
int mcts_mp_pending(const mcts_mp_tree *t) { return t->two ? mcts2_pending(t->two) : t->npend; }

void mcts_mp_set_root(mcts_mp_tree *t, const game_pos *p)
{
    if (t->two) {
        mcts2_set_root(t->two, p);
        return;
    }
    t->root_pos = *p;
    init_root(t);
}

static void add_root_noise(mcts_mp_tree *t)
{
    mpnode *root = &t->pool[0];
    double eps = t->cfg.dirichlet_eps, eta[GAME_MAX_MOVES];
    if (eps <= 0 || !(root->flags & F_EXPANDED) || root->nchild == 0 || t->cfg.root == MCTS_ROOT_GUMBEL)
        return; /* the Gumbel root explores by its own g (mcts_root.h) */
    mcts_rng_dirichlet(&t->rng, t->cfg.dirichlet_alpha, root->nchild, eta);
    for (int i = 0; i < root->nchild; i++) {
        mpnode *c = &t->pool[root->child + i];
        c->prior = (float)((1.0 - eps) * c->prior + eps * eta[i]);
    }
}

/* ---- descent ---- */

/* PUCT for p's mover m over p's children (mcts_mp.h); ties to the lower pit. A child whose value for m is
 * exact (F_DECIDED) uses it as Q; one that gives m last place (−1) is skipped while another exists. */
static int best_child(const mcts_mp_tree *t, const mpnode *p)
{
    const mpnode *ch = &t->pool[p->child];
    const int m = p->mover;
    float qp = p->n > 0 ? p->w[m] / (float)p->n : 0.0f;
    float fpu = qp - (float)t->cfg.fpu_reduction;
    fpu = fpu < -1.0f ? -1.0f : fpu > 1.0f ? 1.0f : fpu;
    float cp = (float)t->cfg.c_puct * sqrtf((float)(p->n + p->vl)), best = -INFINITY;
    int bi = 0;
    for (int i = 0; i < p->nchild; i++) {
        const mpnode *c = &ch[i];
        int ne = c->n + c->vl;
        float score;
        if ((c->flags & F_DECIDED) && c->dv <= -1.0f) {
            score = -1e30f;
        } else {
            float q = (c->flags & F_DECIDED) ? c->dv : ne > 0 ? (c->w[m] - (float)c->vl) / (float)ne : fpu;
            score = q + cp * c->prior / (float)(1 + ne);
        }
        if (score > best) {
            best = score;
            bi = i;
        }
    }
    return p->child + bi;
}

/* What node x's children make exact (mcts_mp.h): the whole vector (F_PROVEN) when every child is proven,
 * or a proven child gives x's mover m first place — the vector of m's best child (ties: lower pit); and
 * the value for x's chooser (F_DECIDED) when x is proven, or, when the chooser is m itself (x was reached
 * by an extra sowing, or x is the root), as soon as a child is decided at +1 or every child is decided
 * (the best of them). Returns 1 when anything changed. */
static int try_prove(mcts_mp_tree *t, int x)
{
    mpnode *nd = &t->pool[x];
    if (!(nd->flags & F_EXPANDED) || ((nd->flags & F_PROVEN) && (nd->flags & F_DECIDED)))
        return 0;
    const int m = nd->mover;
    const mpnode *ch = &t->pool[nd->child];
    int changed = 0;
    if (!(nd->flags & F_PROVEN)) {
        int all = 1, bi = -1;
        for (int i = 0; i < nd->nchild; i++) {
            if (!(ch[i].flags & F_PROVEN)) {
                all = 0;
                continue;
            }
            if (bi < 0 || ch[i].pv[m] > ch[bi].pv[m])
                bi = i;
        }
        if (bi >= 0 && (all || ch[bi].pv[m] >= 1.0f)) {
            memcpy(nd->pv, ch[bi].pv, sizeof nd->pv);
            nd->flags |= F_PROVEN;
            changed = 1;
        }
    }
    if (nd->flags & F_DECIDED)
        return changed;
    if (nd->flags & F_PROVEN) {
        nd->dv = nd->pv[nd->pmover];
        nd->flags |= F_DECIDED;
        return 1;
    }
    if (nd->pmover != m)
        return changed;
    int all = 1;
    float best = -INFINITY;
    for (int i = 0; i < nd->nchild; i++) {
        if (!(ch[i].flags & F_DECIDED))
            all = 0;
        else if (ch[i].dv > best)
            best = ch[i].dv;
    }
    if (best >= 1.0f || (all && nd->nchild > 0)) {
        nd->dv = best;
        nd->flags |= F_DECIDED;
        return 1;
    }
    return changed;
}

/* Adds value vector v to every node from x up to the root, removing one virtual loss from each; proofs
 * travel up while they keep changing a node. */
static void backup(mcts_mp_tree *t, int x, const float *v)
{
    int prop = t->cfg.solver && (t->pool[x].flags & (F_PROVEN | F_DECIDED));
    const int np = t->players;
    while (x >= 0) {
        mpnode *nd = &t->pool[x];
        nd->vl--;
        nd->n++;
        for (int q = 0; q < np && q < NP; q++)
            nd->w[q] += v[q];
        if (prop && nd->parent >= 0)
            prop = try_prove(t, nd->parent);
        x = nd->parent;
    }
}

static void uncharge(mcts_mp_tree *t, int x)
{
    for (; x >= 0; x = t->pool[x].parent)
        t->pool[x].vl--;
}

int mcts_mp_done(const mcts_mp_tree *t)
{
    if (t->two)
        return mcts2_done(t->two);
    const mpnode *root = &t->pool[0];
    /* the root's chooser is its mover: once decided, the best move is known */
    return t->root_pos.over || (root->flags & (F_PROVEN | F_DECIDED)) || root->n >= t->start_n + t->cfg.sims;
}

int mcts_mp_select(mcts_mp_tree *t, game_pos *leaf)
{
    if (t->two) {
        int h = mcts2_select(t->two, leaf);
        if (h >= 0)
            t->pend_mover[h] = leaf->to_move; /* whose value mcts2_complete takes */
        return h;
    }
    const mpnode *root = &t->pool[0];
    if (t->npend >= t->cfg.leaves_per_game || (t->npend > 0 && root->n + root->vl >= t->start_n + t->cfg.sims))
        return MCTS_FULL;
    game_pos pos = t->root_pos;
    int x = 0;
    for (;;) {
        mpnode *nd = &t->pool[x];
        if (!(nd->flags & F_REACHED)) {
            reach(t, nd, &pos);
            if (nd->flags & F_DECIDED) /* a new exact value: tell the ancestors while it changes them */
                for (int y = nd->parent; y >= 0 && try_prove(t, y); y = t->pool[y].parent)
                    ;
        }
        nd->vl++;
        if ((nd->flags & F_TERMINAL) || (x != 0 && (nd->flags & F_PROVEN))) {
            float v[NP];
            memcpy(v, nd->pv, sizeof v);
            backup(t, x, v);
            return MCTS_SIM_DONE;
        }
        if (!(nd->flags & F_EXPANDED)) {
            if (nd->flags & F_PENDING) {
                uncharge(t, x);
                return MCTS_COLLISION;
            }
            int h = 0; /* a free slot exists: npend < leaves_per_game <= MP_MAX_PENDING */
            while (t->pend_node[h] >= 0)
                h++;
            nd->flags |= F_PENDING;
            t->pend_node[h] = x;
            t->pend_mover[h] = pos.to_move;
            t->pend_legal[h] = game_legal(t->g, &pos);
            t->npend++;
            *leaf = pos;
            return h;
        }
        int rs = x == 0 ? mp_root_select(t) : -1; /* the root levers (mcts_mp_root.c) */
        x = rs >= 0 ? rs : best_child(t, nd);
        game_apply(t->g, &pos, t->pool[x].move, NULL);
    }
}

/* ---- expansion ---- */

static int expand(mcts_mp_tree *t, int x, unsigned legal, int mover, const float *prior)
{
    int nc = __builtin_popcount(legal);
    if (!grow(&t->pool, &t->cap, t->count + nc))
        return MCTS_ENOMEM;
    double sum = 0;
    for (int k = 0; k < t->moves; k++)
        if (legal >> k & 1u) {
            float p = prior[k];
            if (p > 0)
                sum += p;
            else if (p != p)
                sum = NAN;
        }
    int uniform = !(sum > 0) || !isfinite(sum);
    mpnode *nd = &t->pool[x], *ch = &t->pool[t->count];
    int i = 0;
    for (int k = 0; k < t->moves; k++) {
        if (!(legal >> k & 1u))
            continue;
        mpnode *c = &ch[i++];
        memset(c, 0, sizeof *c);
        c->prior = uniform ? 1.0f / (float)nc : prior[k] > 0 ? (float)(prior[k] / sum) : 0.0f;
        c->parent = x;
        c->child = -1;
        c->move = (uint8_t)k;
        c->pmover = (uint8_t)mover;
    }
    nd->child = t->count;
    nd->nchild = (uint8_t)nc;
    nd->flags |= F_EXPANDED;
    t->count += nc;
    return MCTS_OK;
}

int mcts_mp_complete(mcts_mp_tree *t, int h, const float *prior, const float *value)
{
    if (t->two)
        return h < 0 || h >= MP_MAX_PENDING ? MCTS_EINVAL : mcts2_complete(t->two, h, prior, value[t->pend_mover[h]]);
    if (h < 0 || h >= MP_MAX_PENDING || t->pend_node[h] < 0)
        return MCTS_EINVAL;
    int x = t->pend_node[h];
    t->pend_node[h] = -1;
    t->npend--;
    t->pool[x].flags &= (uint8_t)~F_PENDING;
    int rc = expand(t, x, t->pend_legal[h], t->pend_mover[h], prior);
    float v[NP] = {0};
    for (int q = 0; q < t->players && q < NP; q++) {
        float a = value[q];
        v[q] = a != a ? 0.0f : a > 1.0f ? 1.0f : a < -1.0f ? -1.0f : a;
    }
    backup(t, x, v);
    if (x == 0 && rc == MCTS_OK) {
        add_root_noise(t);
        rc = mp_root_begin(t, v[t->pool[0].mover]);
    }
    return rc;
}

/* ---- tree reuse ---- */

int mcts_mp_node_child(const mcts_mp_tree *t, int index, int move)
{
    if (t->two)
        return mcts2_node_child(t->two, index, move);
    if (index < 0 || index >= t->count)
        return -1;
    const mpnode *n = &t->pool[index];
    if (!(n->flags & F_EXPANDED))
        return -1;
    for (int i = 0; i < n->nchild; i++)
        if (t->pool[n->child + i].move == move)
            return n->child + i;
    return -1;
}

int mcts_mp_advance(mcts_mp_tree *t, int move)
{
    if (t->two)
        return mcts2_advance(t->two, move);
    if (t->npend > 0 || move < 0 || move >= t->moves || !(game_legal(t->g, &t->root_pos) >> move & 1u))
        return MCTS_EINVAL;
    int c = mcts_mp_node_child(t, 0, move);
    game_apply(t->g, &t->root_pos, move, NULL);
    if (!t->cfg.reuse_tree || t->cfg.root == MCTS_ROOT_GUMBEL || c < 0 || !(t->pool[c].flags & F_REACHED) ||
        t->pool[c].n == 0) { /* the Gumbel root is never reused (mcts_root.h) */
        init_root(t);
        return MCTS_OK;
    }
    if (!grow(&t->spare, &t->spare_cap, t->count)) {
        init_root(t);
        return MCTS_ENOMEM;
    }
    /* Breadth-first copy, as in mcts.c: each child block is appended contiguously in one pass. */
    mpnode *dst = t->spare, *src = t->pool;
    dst[0] = src[c];
    dst[0].parent = -1;
    dst[0].move = 0xff;
    dst[0].vl = 0;
    if (dst[0].pmover != dst[0].mover) {  /* what was exact for the old chooser is re-derived below */
        dst[0].pmover = dst[0].mover;
        dst[0].flags &= (uint8_t)~F_DECIDED;
        if (dst[0].flags & F_PROVEN) {
            dst[0].dv = dst[0].pv[dst[0].mover];
            dst[0].flags |= F_DECIDED;
        }
    }
    int n = 1;
    for (int i = 0; i < n; i++) {
        if (!(dst[i].flags & F_EXPANDED))
            continue;
        int old = dst[i].child;
        memcpy(&dst[n], &src[old], (size_t)dst[i].nchild * sizeof *dst);
        for (int j = 0; j < dst[i].nchild; j++)
            dst[n + j].parent = i;
        dst[i].child = n;
        n += dst[i].nchild;
    }
    t->spare = src;
    t->pool = dst;
    int cap = t->cap;
    t->cap = t->spare_cap;
    t->spare_cap = cap;
    t->count = n;
    t->start_n = dst[0].n;
    if (t->cfg.solver)
        try_prove(t, 0);
    add_root_noise(t);
    return MCTS_OK;
}

/* ---- results ---- */

/* The tau = 0 choice: a proven first place for the mover, else the most visited child not proven last
 * (ties: higher Q, then lower pit); before any visit the highest prior. −1 when the root is unexpanded. */
int mp_best_root_child(const mcts_mp_tree *t)
{
    const mpnode *root = &t->pool[0];
    if (!(root->flags & F_EXPANDED) || root->nchild == 0)
        return -1;
    const int m = root->mover;
    const mpnode *ch = &t->pool[root->child];
    if (root->flags & (F_PROVEN | F_DECIDED)) { /* the root's value is exact: a child that keeps it */
        int bi = -1;
        for (int i = 0; i < root->nchild; i++)
            if ((ch[i].flags & F_DECIDED) &&
                (bi < 0 || ch[i].dv > ch[bi].dv || (ch[i].dv == ch[bi].dv && ch[i].n > ch[bi].n)))
                bi = i;
        if (bi >= 0)
            return root->child + bi;
    }
    int any_win = 0, any_ok = 0, any_visit = 0;
    for (int i = 0; i < root->nchild; i++) {
        int dec = ch[i].flags & F_DECIDED;
        any_win |= dec && ch[i].dv >= 1.0f;
        any_ok |= !(dec && ch[i].dv <= -1.0f);
        any_visit |= ch[i].n > 0;
    }
    int bi = -1;
    for (int i = 0; i < root->nchild; i++) {
        const mpnode *c = &ch[i];
        int dec = c->flags & F_DECIDED;
        if ((any_win && !(dec && c->dv >= 1.0f)) || (any_ok && dec && c->dv <= -1.0f))
            continue;
        if (bi < 0) {
            bi = i;
            continue;
        }
        const mpnode *b = &ch[bi];
        int better = any_visit ? (c->n > b->n || (c->n == b->n && mp_child_q(c, m) > mp_child_q(b, m)))
                               : c->prior > b->prior;
        if (better)
            bi = i;
    }
    return root->child + bi;
}

int mcts_mp_choose(mcts_mp_tree *t, double tau)
{
    if (t->two)
        return mcts2_choose(t->two, tau);
    int b = mp_best_root_child(t);
    if (b < 0)
        return MCTS_EINVAL;
    int gm = mp_root_choose(t); /* the Gumbel root's survivor: tau does not apply to it */
    if (gm >= 0)
        return gm;
    const mpnode *root = &t->pool[0], *ch = &t->pool[root->child];
    if (tau <= 0 || ((t->pool[b].flags & F_DECIDED) && t->pool[b].dv >= 1.0f))
        return t->pool[b].move;
    int any_ok = 0, n[GAME_MAX_MOVES];
    uint8_t lost[GAME_MAX_MOVES];
    for (int i = 0; i < root->nchild; i++)
        any_ok |= !((ch[i].flags & F_DECIDED) && ch[i].dv <= -1.0f);
    for (int i = 0; i < root->nchild; i++) {
        n[i] = ch[i].n;
        lost[i] = any_ok && (ch[i].flags & F_DECIDED) && ch[i].dv <= -1.0f;
    }
    double wt[GAME_MAX_MOVES], wsum = mcts_visit_weights(n, lost, root->nchild, tau, wt);
    if (!(wsum > 0) || !isfinite(wsum))
        return t->pool[b].move;
    int i = mcts_visit_draw(&t->rng, wt, root->nchild, wsum);
    return i >= 0 ? ch[i].move : t->pool[b].move;
}

int mcts_mp_policy(const mcts_mp_tree *t, double tau, float *pi)
{
    if (t->two)
        return mcts2_policy(t->two, tau, pi);
    for (int k = 0; k < t->moves; k++)
        pi[k] = 0.0f;
    int b = mp_best_root_child(t);
    if (b < 0)
        return MCTS_EINVAL;
    if (mp_root_policy(t, tau, pi)) /* the Gumbel target, or the visits with forced playouts pruned */
        return MCTS_OK;
    const mpnode *root = &t->pool[0], *ch = &t->pool[root->child];
    int n[GAME_MAX_MOVES];
    for (int i = 0; i < root->nchild; i++)
        n[i] = ch[i].n;
    double wt[GAME_MAX_MOVES], wsum = mcts_visit_weights(n, NULL, root->nchild, tau, wt);
    if (!(wsum > 0) || !isfinite(wsum)) {
        pi[t->pool[b].move] = 1.0f;
        return MCTS_OK;
    }
    for (int i = 0; i < root->nchild; i++)
        pi[ch[i].move] = (float)(wt[i] / wsum);
    return MCTS_OK;
}

int mcts_mp_root_visits(const mcts_mp_tree *t, int *visits, float *q)
{
    if (t->two)
        return mcts2_root_visits(t->two, visits, q);
    const mpnode *root = &t->pool[0];
    for (int k = 0; k < t->moves; k++) {
        visits[k] = 0;
        if (q)
            q[k] = 0.0f;
    }
    if (root->flags & F_EXPANDED)
        for (int i = 0; i < root->nchild; i++) {
            const mpnode *c = &t->pool[root->child + i];
            visits[c->move] = c->n;
            if (q)
                q[c->move] = c->n > 0 || (c->flags & F_DECIDED) ? mp_child_q(c, root->mover) : 0.0f;
        }
    return root->n;
}

int mcts_mp_root_won(const mcts_mp_tree *t)
{
    if (t->two) /* a proven win, or an exact utility that is one */
        return mcts2_root_proven(t->two) == 1 || (mcts2_root_scored(t->two) && mcts2_root_value(t->two) > 0);
    const mpnode *root = &t->pool[0];
    return (root->flags & F_DECIDED) && root->dv >= 1.0f;
}

int mcts_mp_root_value(const mcts_mp_tree *t, float *value)
{
    if (t->two) {
        int proven = mcts2_root_proven(t->two), exact = proven != MCTS_UNPROVEN || mcts2_root_scored(t->two);
        float v = proven != MCTS_UNPROVEN ? (float)proven : mcts2_root_value(t->two); /* the root mover's */
        int m = mcts2_root_pos(t->two)->to_move;
        value[m] = v;
        value[1 - m] = -v;
        return exact;
    }
    const mpnode *root = &t->pool[0];
    for (int q = 0; q < t->players && q < NP; q++)
        value[q] = (root->flags & F_PROVEN) ? root->pv[q] : root->n > 0 ? root->w[q] / (float)root->n : 0.0f;
    return !!(root->flags & F_PROVEN);
}

/* ---- inspection ---- */

/* A node of the two-player tree as the value-vector tree reports its nodes: W and the exact value in both
 * players' views, an exact node (proven, or scored by score proofs) proven and decided at once. */
static int two_node_get(const mcts2_tree *two, int index, mcts_mp_node_info *out)
{
    mcts_node_info ni;
    int rc = mcts2_node_get(two, index, &ni);
    if (rc != MCTS_OK)
        return rc;
    memset(out, 0, sizeof *out);
    out->parent = ni.parent;
    out->move = ni.move;
    out->mover = ni.side;
    out->visits = ni.visits;
    out->expanded = ni.expanded;
    out->terminal = ni.terminal;
    out->proven = out->decided = ni.proven != MCTS_UNPROVEN || ni.scored;
    out->decided_value = ni.proven != MCTS_UNPROVEN ? (float)ni.proven : ni.scored ? (float)(ni.w / ni.visits) : 0.0f;
    out->first_child = ni.first_child;
    out->n_children = ni.n_children;
    out->prior = ni.prior;
    out->w[ni.parent_side] = ni.w;
    out->w[1 - ni.parent_side] = -ni.w;
    return MCTS_OK;
}

int mcts_mp_root_index(const mcts_mp_tree *t)
{
    (void)t;
    return 0;
}

int mcts_mp_node_count(const mcts_mp_tree *t) { return t->two ? mcts2_node_count(t->two) : t->count; }

int mcts_mp_node_get(const mcts_mp_tree *t, int index, mcts_mp_node_info *out)
{
    if (t->two)
        return two_node_get(t->two, index, out);
    if (index < 0 || index >= t->count)
        return MCTS_EINVAL;
    const mpnode *n = &t->pool[index];
    memset(out, 0, sizeof *out);
    out->parent = n->parent;
    out->move = n->parent < 0 ? -1 : n->move;
    out->mover = n->flags & F_REACHED ? n->mover : -1;
    out->visits = n->n;
    out->expanded = !!(n->flags & F_EXPANDED);
    out->terminal = !!(n->flags & F_TERMINAL);
    out->proven = !!(n->flags & F_PROVEN);
    out->decided = !!(n->flags & F_DECIDED);
    out->decided_value = out->decided ? n->dv : 0.0f;
    out->first_child = n->flags & F_EXPANDED ? n->child : -1;
    out->n_children = n->flags & F_EXPANDED ? n->nchild : 0;
    out->prior = n->prior;
    for (int q = 0; q < NP; q++)
        out->w[q] = n->w[q];
    return MCTS_OK;
}
