/* mcts.c — the PUCT tree: pools, descent, expansion, backup, solver, noise, reuse (conventions in mcts.h). */
#include "selfplay/mcts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PENDING 64

enum { F_EXPANDED = 1, F_TERMINAL = 2, F_PENDING = 4, F_REACHED = 8 };

/* One node = the position reached by `move` from its parent. w, n, proven: parent mover's view (mcts.h). */
typedef struct {
    float prior;
    float w;
    int32_t n;
    int32_t parent;
    int32_t child;      /* first child in the pool, −1 when not expanded */
    int16_t vl;         /* pending virtual losses (descents through this node not yet backed up) */
    uint8_t nchild;
    uint8_t move;
    uint8_t side;       /* player to move here (valid once F_REACHED) */
    uint8_t pside;      /* player to move at the parent; the root's own side for the root */
    uint8_t flags;
    int8_t proven;      /* −1/0/+1 for pside, or MCTS_UNPROVEN */
    int32_t pos;        /* index of this node's position in the position pool once F_REACHED, else −1 */
} mnode;

struct mcts_tree {
    kalah_rules r;
    mcts_config cfg;
    mcts_rng rng;
    kalah_pos root_pos;
    mnode *pool, *spare;        /* spare: the second pool, the target of compaction on reuse */
    int cap, spare_cap, count;
    /* Positions of the reached nodes (about one per simulation, not one per node): a descent reads them
     * instead of re-sowing every move from the root, and sows only once, into a node reached the first
     * time. Compacted together with the nodes on reuse. */
    kalah_pos *ppool, *pspare;
    int pcap, pspare_cap, pcount;
    int start_n;                /* N(root) when the current move's search began: it runs cfg.sims more */
    int npend;
    int32_t pend_node[MAX_PENDING];
    uint8_t pend_side[MAX_PENDING];
    unsigned pend_legal[MAX_PENDING];
    /* The nodes of each slot's descent, root first: backup walks this array instead of chasing parent
     * links, so its loads are independent of each other and overlap. The descent in progress that will
     * take slot h records into path[h] too. */
    int32_t *path[MAX_PENDING];
    int plen[MAX_PENDING], pcap_path[MAX_PENDING];
};

mcts_config mcts_config_default(void)
{
    mcts_config c = {.sims = 200,
                     .c_puct = 1.5,
                     .fpu_reduction = 0.25,
                     .dirichlet_alpha = 1.0,
                     .dirichlet_eps = 0.25,
                     .temp_moves = 10,
                     .temperature = 1.0,
                     .leaves_per_game = 1,
                     .solver = 1,
                     .reuse_tree = 1};
    return c;
}

#define BAD(...) (err ? snprintf(err, MCTS_ERRLEN, __VA_ARGS__) : 0, MCTS_EINVAL)

int mcts_config_check(const mcts_config *c, char *err)
{
    if (!c)
        return BAD("mcts config is NULL");
    if (c->sims < 1 || c->sims > 100000000)
        return BAD("mcts.sims must be in 1..100000000, got %d", c->sims);
    if (!(c->c_puct > 0 && c->c_puct <= 1e6))
        return BAD("mcts.c_puct must be > 0, got %g", c->c_puct);
    if (!(c->fpu_reduction >= 0 && c->fpu_reduction <= 2))
        return BAD("mcts.fpu_reduction must be in [0, 2], got %g", c->fpu_reduction);
    if (!(c->dirichlet_alpha > 0 && c->dirichlet_alpha <= 1e6))
        return BAD("mcts.dirichlet_alpha must be > 0, got %g", c->dirichlet_alpha);
    if (!(c->dirichlet_eps >= 0 && c->dirichlet_eps <= 1))
        return BAD("mcts.dirichlet_eps must be in [0, 1], got %g", c->dirichlet_eps);
    if (c->temp_moves < 0)
        return BAD("mcts.temp_moves must be >= 0, got %d", c->temp_moves);
    if (!(c->temperature > 0 && c->temperature <= 1e6))
        return BAD("mcts.temperature must be > 0, got %g", c->temperature);
    if (c->leaves_per_game < 1 || c->leaves_per_game > MAX_PENDING)
        return BAD("mcts.leaves_per_game must be in 1..%d, got %d", MAX_PENDING, c->leaves_per_game);
    if (c->solver != 0 && c->solver != 1)
        return BAD("mcts.solver must be 0 or 1, got %d", c->solver);
    if (c->reuse_tree != 0 && c->reuse_tree != 1)
        return BAD("mcts.reuse_tree must be 0 or 1, got %d", c->reuse_tree);
    return MCTS_OK;
}

/* ---- pool ---- */

/* Makes *pool (elements of `size` bytes) hold at least `need`, growing geometrically. 0 when out of memory. */
static int grow_pool(void **pool, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return 1;
    int nc = *cap ? *cap : 256;
    while (nc < need)
        nc = nc > (1 << 29) ? need : nc * 2;
    void *p = realloc(*pool, (size_t)nc * size);
    if (!p)
        return 0;
    *pool = p;
    *cap = nc;
    return 1;
}

static int grow(mnode **pool, int *cap, int need) { return grow_pool((void **)pool, cap, need, sizeof **pool); }
static int grow_pos(kalah_pos **pool, int *cap, int need)
{
    return grow_pool((void **)pool, cap, need, sizeof **pool);
}

/* The final result of finished position p for `side`: +1 win, 0 draw, −1 loss. */
static int result_for(const kalah_rules *r, const kalah_pos *p, int side)
{
    int w = kalah_winner(r, p);
    return side == KALAH_SOUTH ? w : -w;
}

static void init_root(mcts_tree *t)
{
    mnode *n = &t->pool[0];
    memset(n, 0, sizeof *n);
    n->prior = 1.0f;
    n->parent = -1;
    n->child = -1;
    n->move = 0xff;
    n->side = n->pside = t->root_pos.side;
    n->flags = F_REACHED;
    n->proven = MCTS_UNPROVEN;
    n->pos = 0;
    t->ppool[0] = t->root_pos;
    t->pcount = 1;
    if (t->root_pos.over) {
        n->flags |= F_TERMINAL;
        if (t->cfg.solver)
            n->proven = (int8_t)result_for(&t->r, &t->root_pos, n->pside);
    }
    t->count = 1;
    t->start_n = 0;
    t->npend = 0;
    for (int h = 0; h < MAX_PENDING; h++)
        t->pend_node[h] = -1;
}

mcts_tree *mcts_tree_create(const kalah_rules *r, const mcts_config *cfg, uint64_t seed, char *err)
{
    if (!r || kalah_rules_check(r, err) != KALAH_OK || mcts_config_check(cfg, err) != MCTS_OK)
        return NULL;
    mcts_tree *t = calloc(1, sizeof *t);
    if (!t || !grow(&t->pool, &t->cap, 1024) || !grow_pos(&t->ppool, &t->pcap, 256)) {
        if (t)
            free(t->pool);
        free(t);
        if (err)
            snprintf(err, MCTS_ERRLEN, "out of memory");
        return NULL;
    }
    t->r = *r;
    t->cfg = *cfg;
    mcts_rng_seed(&t->rng, seed);
    kalah_start(r, &t->root_pos);
    init_root(t);
    return t;
}

void mcts_tree_free(mcts_tree *t)
{
    if (!t)
        return;
    free(t->pool);
    free(t->spare);
    free(t->ppool);
    free(t->pspare);
    for (int h = 0; h < MAX_PENDING; h++)
        free(t->path[h]);
    free(t);
}

int mcts_tree_set_config(mcts_tree *t, const mcts_config *cfg, char *err)
{
    int rc = mcts_config_check(cfg, err);
    if (rc == MCTS_OK)
        t->cfg = *cfg;
    return rc;
}

mcts_rng *mcts_tree_rng(mcts_tree *t) { return &t->rng; }
const kalah_pos *mcts_root_pos(const mcts_tree *t) { return &t->root_pos; }
int mcts_pending(const mcts_tree *t) { return t->npend; }

void mcts_set_root(mcts_tree *t, const kalah_pos *p)
{
    t->root_pos = *p;
    init_root(t);
}

/* ---- noise ---- */

static void add_root_noise(mcts_tree *t)
{
    mnode *root = &t->pool[0];
    double eps = t->cfg.dirichlet_eps, eta[KALAH_MAX_PITS];
    if (eps <= 0 || !(root->flags & F_EXPANDED) || root->nchild == 0)
        return;
    mcts_rng_dirichlet(&t->rng, t->cfg.dirichlet_alpha, root->nchild, eta);
    for (int i = 0; i < root->nchild; i++) {
        mnode *c = &t->pool[root->child + i];
        c->prior = (float)((1.0 - eps) * c->prior + eps * eta[i]);
    }
}

/* ---- descent ---- */

/* PUCT over p's children (mcts.h); ties go to the lower pit. A child proven lost for p's mover is skipped
 * while another exists (a proven node's Q is its exact value). */
static int best_child(const mcts_tree *t, const mnode *p)
{
    const mnode *ch = &t->pool[p->child];
    float sqrt_n = sqrtf((float)(p->n + p->vl));
    float qp = p->n > 0 ? p->w / (float)p->n : 0.0f;
    if (p->side != p->pside)
        qp = -qp;
    float fpu = qp - (float)t->cfg.fpu_reduction;
    fpu = fpu < -1.0f ? -1.0f : fpu > 1.0f ? 1.0f : fpu;
    float cp = (float)t->cfg.c_puct * sqrt_n, best = -INFINITY;
    int bi = 0;
    for (int i = 0; i < p->nchild; i++) {
        const mnode *c = &ch[i];
        float score;
        int ne = c->n + c->vl;
        if (c->proven == -1) {
            score = -1e30f;
        } else {
            float q = c->proven != MCTS_UNPROVEN ? (float)c->proven
                      : ne > 0                   ? (c->w - (float)c->vl) / (float)ne
                                                 : fpu;
            score = q + cp * c->prior / (float)(1 + ne);
        }
        if (score > best) {
            best = score;
            bi = i;
        }
    }
    return p->child + bi;
}

/* Can node p be proven from its children's proofs? Sets p->proven and returns 1 when it changes. */
static int try_prove(mcts_tree *t, int p)
{
    mnode *nd = &t->pool[p];
    if (nd->proven != MCTS_UNPROVEN || !(nd->flags & F_EXPANDED))
        return 0;
    int best = -2, all = 1;
    for (int i = 0; i < nd->nchild; i++) {
        int pv = t->pool[nd->child + i].proven;
        if (pv == MCTS_UNPROVEN)
            all = 0;
        else if (pv > best)
            best = pv;
    }
    if (best != 1 && !all)
        return 0;
    /* best is for nd's mover; store it for nd's parent's mover */
    nd->proven = (int8_t)(nd->side == nd->pside ? best : -best);
    return 1;
}

/* Backs up vs (the value in South's view) along path[0..len) (root first) from its last node up, removing
 * one virtual loss per node; with the solver, proofs travel up while they keep changing a node. */
static void backup(mcts_tree *t, const int32_t *path, int len, float vs)
{
    int prop = t->cfg.solver && t->pool[path[len - 1]].proven != MCTS_UNPROVEN;
    for (int i = len - 1; i >= 0; i--) {
        mnode *nd = &t->pool[path[i]];
        nd->vl--;
        nd->n++;
        nd->w += nd->pside == KALAH_SOUTH ? vs : -vs;
        if (prop && i > 0)
            prop = try_prove(t, path[i - 1]);
    }
}

static void uncharge(mcts_tree *t, const int32_t *path, int len)
{
    for (int i = 0; i < len; i++)
        t->pool[path[i]].vl--;
}

int mcts_done(const mcts_tree *t)
{
    const mnode *root = &t->pool[0];
    return t->root_pos.over || (t->cfg.solver && root->proven != MCTS_UNPROVEN) ||
           root->n >= t->start_n + t->cfg.sims;
}

int mcts_leaf_room(const mcts_tree *t)
{
    return mcts_done(t) || t->npend >= t->cfg.leaves_per_game ? 0 : t->cfg.leaves_per_game - t->npend;
}

/* Loads what the next step will read once node c is chosen below node x: c's children block (its
 * selection), or the parent's position (c is reached the first time). always_inline: GCC deems a function
 * made only of prefetches pure and drops its calls when it does not inline them. */
static inline __attribute__((always_inline)) void prefetch_next(const mcts_tree *t, const mnode *x, const mnode *c)
{
    if (c->flags & F_EXPANDED) {
        /* at most KALAH_MAX_PITS nodes: 4 lines when 64-byte aligned, 5 at worst (prefetch never faults) */
        uintptr_t a = (uintptr_t)&t->pool[c->child] & ~(uintptr_t)63;
        uintptr_t e = (uintptr_t)&t->pool[c->child + c->nchild];
        __builtin_prefetch((const void *)a);
        __builtin_prefetch((const void *)(a + 64));
        __builtin_prefetch((const void *)(a + 128));
        if (a + 192 < e)
            __builtin_prefetch((const void *)(a + 192));
        if (a + 256 < e)
            __builtin_prefetch((const void *)(a + 256));
    } else if (!(c->flags & F_REACHED)) {
        __builtin_prefetch(&t->ppool[x->pos]);
    }
}

int mcts_select_begin(mcts_tree *t, mcts_cursor *c)
{
    const mnode *root = &t->pool[0];
    if (t->npend >= t->cfg.leaves_per_game || (t->npend > 0 && root->n + root->vl >= t->start_n + t->cfg.sims))
        return MCTS_FULL;
    /* A descent reaches at most one new node: room for its position now, before anything is charged. */
    if (!grow_pos(&t->ppool, &t->pcap, t->pcount + 1))
        return MCTS_ENOMEM;
    int h = 0; /* a free slot exists: npend < leaves_per_game <= MAX_PENDING */
    while (t->pend_node[h] >= 0)
        h++;
    if (!t->path[h] && !(t->path[h] = malloc(64 * sizeof *t->path[h])))
        return MCTS_ENOMEM;
    if (t->pcap_path[h] < 64)
        t->pcap_path[h] = 64;
    t->plen[h] = 0;
    c->node = 0;
    c->slot = h;
    prefetch_next(t, root, root);
    __builtin_prefetch(&t->ppool[t->pcount], 1);
    return MCTS_OK;
}

int mcts_select_step(mcts_tree *t, mcts_cursor *c, kalah_pos *leaf)
{
    int x = c->node, h = c->slot;
    mnode *nd = &t->pool[x];
    if (t->plen[h] == t->pcap_path[h]) {
        int32_t *p = realloc(t->path[h], 2 * (size_t)t->pcap_path[h] * sizeof *p);
        if (!p) {
            uncharge(t, t->path[h], t->plen[h]);
            return MCTS_ENOMEM;
        }
        t->path[h] = p;
        t->pcap_path[h] *= 2;
    }
    int32_t *path = t->path[h];
    int len = ++t->plen[h];
    path[len - 1] = x;
    if (!(nd->flags & F_REACHED)) {
        kalah_pos *pp = &t->ppool[t->pcount];
        *pp = t->ppool[t->pool[path[len - 2]].pos];
        kalah_sow(&t->r, pp, nd->move, NULL);
        nd->pos = t->pcount++;
        nd->flags |= F_REACHED;
        nd->side = pp->side;
        if (pp->over) {
            nd->flags |= F_TERMINAL;
            if (t->cfg.solver)
                nd->proven = (int8_t)result_for(&t->r, pp, nd->pside);
        }
    }
    nd->vl++;
    if (nd->flags & F_TERMINAL) {
        backup(t, path, len, (float)kalah_winner(&t->r, &t->ppool[nd->pos]));
        return MCTS_SIM_DONE;
    }
    if (x != 0 && nd->proven != MCTS_UNPROVEN) {
        backup(t, path, len, (float)(nd->pside == KALAH_SOUTH ? nd->proven : -nd->proven));
        return MCTS_SIM_DONE;
    }
    if (!(nd->flags & F_EXPANDED)) {
        if (nd->flags & F_PENDING) {
            uncharge(t, path, len);
            return MCTS_COLLISION;
        }
        const kalah_pos *pos = &t->ppool[nd->pos];
        nd->flags |= F_PENDING;
        t->pend_node[h] = x;
        t->pend_side[h] = pos->side;
        t->pend_legal[h] = kalah_legal(&t->r, pos);
        t->npend++;
        *leaf = *pos;
        return h;
    }
    c->node = best_child(t, nd);
    prefetch_next(t, nd, &t->pool[c->node]);
    return MCTS_STEP;
}

int mcts_select(mcts_tree *t, kalah_pos *leaf)
{
    mcts_cursor c;
    int rc = mcts_select_begin(t, &c);
    if (rc != MCTS_OK)
        return rc;
    do
        rc = mcts_select_step(t, &c, leaf);
    while (rc == MCTS_STEP);
    return rc;
}

/* ---- expansion ---- */

/* Children of x for every legal move, in pit order, with priors masked and renormalised (cases 3, 4). */
static int expand(mcts_tree *t, int x, unsigned legal, int side, const float *prior)
{
    int nc = __builtin_popcount(legal);
    if (!grow(&t->pool, &t->cap, t->count + nc))
        return MCTS_ENOMEM;
    double sum = 0;
    for (int k = 0; k < t->r.pits; k++)
        if (legal >> k & 1u) {
            float p = prior[k];
            if (p > 0)
                sum += p;
            else if (p != p)
                sum = NAN;
        }
    int uniform = !(sum > 0) || !isfinite(sum);
    mnode *nd = &t->pool[x], *ch = &t->pool[t->count];
    int i = 0;
    for (int k = 0; k < t->r.pits; k++) {
        if (!(legal >> k & 1u))
            continue;
        mnode *c = &ch[i++];
        memset(c, 0, sizeof *c);
        c->prior = uniform ? 1.0f / (float)nc : prior[k] > 0 ? (float)(prior[k] / sum) : 0.0f;
        c->parent = x;
        c->child = -1;
        c->move = (uint8_t)k;
        c->pside = (uint8_t)side;
        c->proven = MCTS_UNPROVEN;
        c->pos = -1;
    }
    nd->child = t->count;
    nd->nchild = (uint8_t)nc;
    nd->flags |= F_EXPANDED;
    t->count += nc;
    return MCTS_OK;
}

int mcts_complete(mcts_tree *t, int h, const float *prior, float value)
{
    if (h < 0 || h >= MAX_PENDING || t->pend_node[h] < 0)
        return MCTS_EINVAL;
    int x = t->pend_node[h], side = t->pend_side[h];
    t->pend_node[h] = -1;
    t->npend--;
    t->pool[x].flags &= (uint8_t)~F_PENDING;
    int rc = expand(t, x, t->pend_legal[h], side, prior);
    value = value != value ? 0.0f : value > 1.0f ? 1.0f : value < -1.0f ? -1.0f : value;
    backup(t, t->path[h], t->plen[h], side == KALAH_SOUTH ? value : -value);
    if (x == 0 && rc == MCTS_OK)
        add_root_noise(t);
    return rc;
}

/* ---- tree reuse ---- */

int mcts_advance(mcts_tree *t, int move)
{
    if (t->npend > 0 || move < 0 || move >= t->r.pits || !(kalah_legal(&t->r, &t->root_pos) >> move & 1u))
        return MCTS_EINVAL;
    int c = mcts_node_child(t, 0, move);
    kalah_sow(&t->r, &t->root_pos, move, NULL);
    if (!t->cfg.reuse_tree || c < 0 || !(t->pool[c].flags & F_REACHED) || t->pool[c].n == 0) {
        init_root(t);
        return MCTS_OK;
    }
    if (!grow(&t->spare, &t->spare_cap, t->count) || !grow_pos(&t->pspare, &t->pspare_cap, t->pcount)) {
        init_root(t);
        return MCTS_ENOMEM;
    }
    /* Breadth-first copy: node i of the new pool still holds its OLD first-child index until processed,
     * and every child block is appended contiguously, so one pass over the growing new pool suffices. */
    mnode *dst = t->spare, *src = t->pool;
    dst[0] = src[c];
    dst[0].parent = -1;
    dst[0].move = 0xff;
    dst[0].vl = 0;
    if (dst[0].side != dst[0].pside) {  /* the root keeps W and proofs in its own mover's view */
        dst[0].w = -dst[0].w;
        if (dst[0].proven != MCTS_UNPROVEN)
            dst[0].proven = (int8_t)-dst[0].proven;
        dst[0].pside = dst[0].side;
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
    int np = 0;
    for (int i = 0; i < n; i++)
        if (dst[i].flags & F_REACHED) {
            t->pspare[np] = t->ppool[dst[i].pos];
            dst[i].pos = np++;
        }
    kalah_pos *pp = t->ppool;
    t->ppool = t->pspare;
    t->pspare = pp;
    int pcap = t->pcap;
    t->pcap = t->pspare_cap;
    t->pspare_cap = pcap;
    t->pcount = np;
    t->spare = src;
    t->pool = dst;
    int cap = t->cap;
    t->cap = t->spare_cap;
    t->spare_cap = cap;
    t->count = n;
    t->start_n = dst[0].n;
    add_root_noise(t);
    return MCTS_OK;
}

/* ---- results ---- */

static float child_q(const mnode *c)
{
    if (c->proven != MCTS_UNPROVEN)
        return (float)c->proven;
    return c->n > 0 ? c->w / (float)c->n : 0.0f;
}

/* The best root child (tau = 0 rule of mcts_choose), or −1 when the root is not expanded. */
static int best_root_child(const mcts_tree *t)
{
    const mnode *root = &t->pool[0];
    if (!(root->flags & F_EXPANDED) || root->nchild == 0)
        return -1;
    const mnode *ch = &t->pool[root->child];
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
        int better = any_visit ? (c->n > b->n || (c->n == b->n && child_q(c) > child_q(b))) : c->prior > b->prior;
        if (better)
            bi = i;
    }
    return root->child + bi;
}

int mcts_choose(mcts_tree *t, double tau)
{
    int b = best_root_child(t);
    if (b < 0)
        return MCTS_EINVAL;
    const mnode *root = &t->pool[0], *ch = &t->pool[root->child];
    if (tau <= 0 || t->pool[b].proven == 1)
        return t->pool[b].move;
    int any_ok = 0;
    for (int i = 0; i < root->nchild; i++)
        any_ok |= ch[i].proven != -1;
    double wsum = 0, wt[KALAH_MAX_PITS];
    for (int i = 0; i < root->nchild; i++) {
        wt[i] = (any_ok && ch[i].proven == -1) || ch[i].n == 0 ? 0.0 : pow((double)ch[i].n, 1.0 / tau);
        wsum += wt[i];
    }
    if (!(wsum > 0) || !isfinite(wsum))
        return t->pool[b].move;
    double u = mcts_rng_uniform(&t->rng) * wsum;
    for (int i = 0; i < root->nchild; i++) {
        if (wt[i] <= 0)
            continue;
        if (u < wt[i])
            return ch[i].move;
        u -= wt[i];
    }
    return t->pool[b].move;  /* rounding at the very end of the range */
}

int mcts_policy(const mcts_tree *t, double tau, float *pi)
{
    for (int k = 0; k < t->r.pits; k++)
        pi[k] = 0.0f;
    int b = best_root_child(t);
    if (b < 0)
        return MCTS_EINVAL;
    const mnode *root = &t->pool[0], *ch = &t->pool[root->child];
    double wsum = 0, wt[KALAH_MAX_PITS];
    if (tau > 0) {
        for (int i = 0; i < root->nchild; i++)
            wsum += wt[i] = ch[i].n > 0 ? pow((double)ch[i].n, 1.0 / tau) : 0.0;
    }
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
                q[c->move] = c->n > 0 || c->proven != MCTS_UNPROVEN ? child_q(c) : 0.0f;
        }
    return root->n;
}

float mcts_root_value(const mcts_tree *t)
{
    const mnode *root = &t->pool[0];
    return root->n > 0 ? root->w / (float)root->n : 0.0f;
}

int mcts_root_proven(const mcts_tree *t) { return t->pool[0].proven; }

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
    out->pending = !!(n->flags & F_PENDING);
    out->proven = n->proven;
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
