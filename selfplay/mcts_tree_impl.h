/* mcts_tree_impl.h — the two-player PUCT tree (conventions in mcts.h): pools, descent, expansion, backup,
 * proofs, noise, reuse, results and inspection, written against a position type and its rules as
 * env/vecenv_impl.h is against an ISA; selfplay/mcts2.c compiles it for the game_pos of every two-player
 * game of the game interface. The includer includes selfplay/mcts_impl.h and defines:
 *
 *   MT_TREE, MT_TREE_TAG, MT_MANY   the tree type (a typedef of struct MT_TREE_TAG) and the scratch of
 *                                   select_many, as its public header declares them
 *   MT(name)                        the public name of `name` (mcts2_tree_create, ...)
 *   MT_POS                          the position type: a plain value with an `over` byte
 *   MT_RULES_T, MT_RULES_ARG        the rules the tree keeps (a value) and tree_create's rules parameter
 *   MT_RULES_CHECK(r, cfg, err)     MCTS_OK or MCTS_EINVAL with a message: rules (and what cfg asks of them)
 *   MT_RULES_SET(t, r)              keeps r in t->r
 *   MT_MAX_MOVES                    the most children of a node (<= 8: selection reads eight lanes)
 *   MT_MOVES(t)                     move slots of the rules
 *   MT_SIDE(p)                      the player to move at p, 0 or 1
 *   MT_START(t, p), MT_SOW(t, p, m), MT_LEGAL(t, p)   start position, play slot m, legal-slot mask
 *   MT_WINNER(t, p)                 finished p's result for player 0: +1, 0, −1
 *   MT_MARGIN(t, p), MT_MARGIN_SCALE(t)   finished p's final margin for player 0, and the seeds that
 *                                   divide it in the margin utility (all of them)
 *   MT_TB_CHECK(t, cfg, err)        beyond mcts_config_check: what tablebase_seeds > 0 needs
 *   MT_TB_PROBE(t, p, &m)           1 and the exact final margin for p's mover when unfinished p is a
 *                                   tablebase leaf (mcts.h) under cfg.tablebase_seeds, else 0 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#ifdef __SSE2__
#include <immintrin.h>
#endif

#include "selfplay/mcts_pages.h"
#include "selfplay/mcts_root.h"

struct MT_TREE_TAG {
    /* first cache line: everything mcts_done, mcts_select_begin and a descent step read */
    _Alignas(64) mnode *pool;
    MT_POS *ppool;
    int count, pcount;
    float c_puct, fpu_reduction;  /* cfg's values as float, the precision selection works in */
    int start_n;                /* N(root) when the current move's search began: it runs cfg.sims more */
    int npend;
    int sims, leaves;           /* cfg.sims, cfg.leaves_per_game */
    int pcap;
    uint8_t solver;             /* cfg.solver */
    uint8_t over;               /* root_pos.over */
    uint8_t rootsel;            /* the root chooses by mcts_root_select (gumbel or forced playouts) */
    uint8_t scored;             /* score proofs instead of win/draw/loss ones (solver with margin_utility) */
    uint64_t pend_used;         /* bit h: slot h holds a pending leaf */
    /* then the slots (slot 0, the only one with leaves_per_game = 1, in the second line) */
    mslot slot[MAX_PENDING];
    int cap;
    mnode *spare;               /* the second pool, the target of compaction on reuse */
    int spare_cap;
    /* Positions of the reached nodes (about one per simulation, not one per node): a descent reads them
     * instead of re-sowing every move from the root, and sows only once, into a node reached the first
     * time. On reuse they move (compacted, in the nodes' order) only once most of the pool is garbage. */
    MT_POS *pspare;
    int pspare_cap;
    /* Gumbel root (mcts_root.h), drawn when the root is expanded: g of each root child (by child index),
     * the net's value of the root for its mover, and the halving schedule of this root's search. */
    float gumbel[MT_MAX_MOVES];
    float root_raw;
    /* The root's priors by relative pit as the evaluator gave them, before the root noise mixes into the
     * children's (mcts_root_prior; recorded by add_root_noise whenever a root is expanded or reused). */
    float root_prior[MT_MAX_MOVES];
    int *halving;
    int halving_len, halving_cap;
    MT_RULES_T r;
    mcts_config cfg;
    mcts_rng rng;
    MT_POS root_pos;
};

/* The root levers (mcts_root.h; their hooks are instantiated from mcts_root_impl.h at the end). begin: the
 * root was just expanded with the net's value `raw` for its mover (draws g, lays out the halving;
 * MCTS_ENOMEM when the schedule cannot be held, the root then falls back to PUCT). select: the root child a
 * descent takes (a node index). policy: the target into pi (MT_MOVES floats) when a lever decides it,
 * returning 1; 0 = the plain visit rule. choose: the Gumbel move (a slot), or −1 when the root is not the
 * Gumbel root. */
static int tree_root_begin(MT_TREE *t, float raw);
static int tree_root_select(const MT_TREE *t);
static int tree_root_policy(const MT_TREE *t, double tau, float *pi);
static int tree_root_choose(const MT_TREE *t);

/* The best root child by the tau = 0 rule of choose, or −1 when the root is not expanded. */
static int best_root_child(const MT_TREE *t);

#define BAD(...) (err ? snprintf(err, MCTS_ERRLEN, __VA_ARGS__) : 0, MCTS_EINVAL)

/* What a tree needs beyond mcts_config_check. */
static int tree_config_check(const MT_TREE *t, const mcts_config *c, char *err)
{
    int rc = mcts_config_check(c, err);
    return rc == MCTS_OK ? MT_TB_CHECK(t, c, err) : rc;
}

/* sqrtf(k) for small k, filled once: the visit counts on a descent's path are mostly small, and a load
 * is shorter than sqrtss on the chain every descent step waits on. The same values as sqrtf. */
#define SQRT_TABLE 2048
static float sqrt_table[SQRT_TABLE];
static pthread_once_t sqrt_once = PTHREAD_ONCE_INIT;
#if defined(__x86_64__) && defined(__GNUC__) && defined(__SSE2__)
#define MCTS_AVX2 1
static int have_avx2;  /* the CPU runs best_child8 (set with the table) */
#endif
static void sqrt_fill(void)
{
#ifdef MCTS_AVX2
    __builtin_cpu_init();
    have_avx2 = __builtin_cpu_supports("avx2");
#endif
    for (int k = 0; k < SQRT_TABLE; k++)
        sqrt_table[k] = sqrtf((float)k);
}

static inline float sqrt_count(int k) { return k < SQRT_TABLE ? sqrt_table[k] : sqrtf((float)k); }

/* ---- pools ---- */

/* Geometric growth of a pool to hold at least `need` elements; 0 when out of memory. */
static int next_cap(int cap, int need)
{
    int nc = cap ? cap : 256;
    while (nc < need)
        nc = nc > (1 << 29) ? need : nc * 2;
    return nc;
}

/* Pools live in huge pages (mcts_pages.h: the descents are bound by memory, TLB misses included) and grow
 * by copying; node pools are 64-byte aligned (a node never straddles a line; selection loads nodes with
 * aligned SSE loads). */
static int grow_block(void **pool, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 1;
    int nc = next_cap(*cap, need);
    void *p = mcts_pages_alloc((size_t)nc * elem);
    if (!p)
        return 0;
    if (*pool)
        memcpy(p, *pool, (size_t)*cap * elem);
    mcts_pages_free(*pool, (size_t)*cap * elem);
    *pool = p;
    *cap = nc;
    return 1;
}

static int grow(mnode **pool, int *cap, int need)
{
    void *p = *pool;
    int ok = grow_block(&p, cap, need, sizeof **pool);
    *pool = p;
    return ok;
}

static int grow_pos(MT_POS **pool, int *cap, int need)
{
    void *p = *pool;
    int ok = grow_block(&p, cap, need, sizeof **pool);
    *pool = p;
    return ok;
}

/* The final result of finished position p for `side`: +1 win, 0 draw, −1 loss. */
static int result_for(const MT_TREE *t, const MT_POS *p, int side)
{
    int w = MT_WINNER(t, p);
    return side == 0 ? w : -w;
}

/* Tablebase leaves (mcts.h): MT_TB_PROBE(t, p, &m) is 1 with m the exact final margin for p's mover under
 * perfect play when unfinished position p is covered (at most cfg.tablebase_seeds seeds in its pits), else
 * 0. */

/* The exact result (+1 win / 0 draw / −1 loss) for `side` of a covered position p whose exact margin for
 * its mover is m. */
static int tb_result(const MT_POS *p, int m, int side)
{
    int res = (m > 0) - (m < 0);
    return side == MT_SIDE(p) ? res : -res;
}

/* The utility in player 0's view of a covered position p whose exact margin for its mover is m: its exact
 * result, with mcts.margin_utility w its exact final margin mixed in as terminal_value does for a finished
 * position (KataGo's score utility, Wu 2019 §4), so the search still prefers the larger of two proven wins.
 * With w = 0 it is the proven value itself. */
static float tb_value(const MT_TREE *t, const MT_POS *p, int m)
{
    int ms = MT_SIDE(p) == 0 ? m : -m;
    float v = (float)((ms > 0) - (ms < 0));
    double w = t->cfg.margin_utility;
    if (w > 0)
        v = (float)((v + w * ms / MT_MARGIN_SCALE(t)) / (1.0 + w));
    return v;
}

/* cfg (checked) and the copies of it the hot paths read from the tree's first cache line. */
static void set_config(MT_TREE *t, const mcts_config *cfg)
{
    t->cfg = *cfg;
    t->c_puct = (float)cfg->c_puct;
    t->fpu_reduction = (float)cfg->fpu_reduction;
    t->sims = cfg->sims;
    t->leaves = cfg->leaves_per_game;
    t->scored = cfg->solver && cfg->margin_utility > 0;
    t->solver = cfg->solver && !t->scored;  /* the win/draw/loss solver */
    t->rootsel = cfg->root == MCTS_ROOT_GUMBEL || cfg->forced_playouts_k > 0;
}

static void init_root(MT_TREE *t)
{
    mnode *n = &t->pool[0];
    memset(n, 0, sizeof *n);
    n->prior = 1.0f;
    n->parent = -1;
    n->child = -1;
    n->move = 0xff;
    n->side = n->pside = MT_SIDE(&t->root_pos);
    n->flags = F_REACHED;
    n->proven = MCTS_UNPROVEN;
    n->pos = 0;
    t->ppool[0] = t->root_pos;
    t->pcount = 1;
    t->over = t->root_pos.over;
    if (t->root_pos.over) {
        n->flags |= F_TERMINAL;
        if (t->solver)
            n->proven = (int8_t)result_for(t, &t->root_pos, n->pside);
    }
    t->count = 1;
    t->start_n = 0;
    t->npend = 0;
    t->pend_used = 0;
    for (int h = 0; h < MAX_PENDING; h++)
        t->slot[h].node = -1;
}

MT_TREE *MT(tree_create)(MT_RULES_ARG r, const mcts_config *cfg, uint64_t seed, char *err)
{
    if (MT_RULES_CHECK(r, cfg, err) != MCTS_OK)
        return NULL;
    pthread_once(&sqrt_once, sqrt_fill);
    MT_TREE *t = aligned_alloc(64, sizeof *t);  /* sizeof is a multiple of the 64-byte alignment */
    if (t)
        memset(t, 0, sizeof *t);
    if (!t || !grow(&t->pool, &t->cap, 1024) || !grow_pos(&t->ppool, &t->pcap, 256)) {
        MT(tree_free)(t);
        if (err)
            snprintf(err, MCTS_ERRLEN, "out of memory");
        return NULL;
    }
    MT_RULES_SET(t, r);
    if (tree_config_check(t, cfg, err) != MCTS_OK) {
        MT(tree_free)(t);
        return NULL;
    }
    set_config(t, cfg);
    mcts_rng_seed(&t->rng, seed);
    MT_START(t, &t->root_pos);
    init_root(t);
    return t;
}

void MT(tree_free)(MT_TREE *t)
{
    if (!t)
        return;
    mcts_pages_free(t->pool, (size_t)t->cap * sizeof *t->pool);
    mcts_pages_free(t->spare, (size_t)t->spare_cap * sizeof *t->spare);
    mcts_pages_free(t->ppool, (size_t)t->pcap * sizeof *t->ppool);
    mcts_pages_free(t->pspare, (size_t)t->pspare_cap * sizeof *t->pspare);
    for (int h = 0; h < MAX_PENDING; h++)
        free(t->slot[h].path);
    free(t->halving);
    free(t);
}

int MT(tree_set_config)(MT_TREE *t, const mcts_config *cfg, char *err)
{
    int rc = tree_config_check(t, cfg, err);
    if (rc == MCTS_OK)
        set_config(t, cfg);
    return rc;
}

mcts_rng *MT(tree_rng)(MT_TREE *t) { return &t->rng; }
const MT_POS *MT(root_pos)(const MT_TREE *t) { return &t->root_pos; }
int MT(pending)(const MT_TREE *t) { return t->npend; }

void MT(set_root)(MT_TREE *t, const MT_POS *p)
{
    t->root_pos = *p;
    init_root(t);
}

/* The utility of finished position p in South's view: the result, with mcts.margin_utility w the final
 * margin mixed in as (result + w · margin / (2 · pits · seeds)) / (1 + w) (KataGo's score utility, Wu 2019
 * §4; divided by 1 + w so it stays in [−1, 1] and every win still beats every draw and loss). */
static float terminal_value(const MT_TREE *t, const MT_POS *p)
{
    float v = (float)MT_WINNER(t, p);
    double w = t->cfg.margin_utility;
    if (w > 0)
        v = (float)((v + w * MT_MARGIN(t, p) / MT_MARGIN_SCALE(t)) / (1.0 + w));
    return v;
}

/* ---- noise ---- */

/* Called when a root has just been expanded or reached by reuse, so its children's priors are still the
 * evaluator's: they are kept first (mcts_root_prior: selfplay.surprise_weight measures the search's target
 * against the net, not against the noise), then mixed with the noise. */
static void add_root_noise(MT_TREE *t)
{
    mnode *root = &t->pool[0];
    double eps = t->cfg.dirichlet_eps, eta[MT_MAX_MOVES];
    if (!(root->flags & F_EXPANDED))
        return;
    memset(t->root_prior, 0, sizeof t->root_prior);
    for (int i = 0; i < root->nchild; i++)
        t->root_prior[t->pool[root->child + i].move] = t->pool[root->child + i].prior;
    if (eps <= 0 || root->nchild == 0 || t->cfg.root == MCTS_ROOT_GUMBEL)
        return; /* the Gumbel root explores by its own g (mcts_root.h) */
    mcts_rng_dirichlet(&t->rng, t->cfg.dirichlet_alpha, root->nchild, eta);
    for (int i = 0; i < root->nchild; i++) {
        mnode *c = &t->pool[root->child + i];
        c->prior = (float)((1.0 - eps) * c->prior + eps * eta[i]);
    }
}

/* ---- descent ---- */

/* PUCT over p's children (mcts.h); ties go to the lower pit. A child proven lost for p's mover is skipped
 * while another exists (a proven node's Q is its exact value). */
/* PUCT (mcts.h): child X of node p maximises Q(X) + c_puct · P(X) · sqrt(N(p)) / (1 + N(X)), ties to the
 * lower pit; a child proven lost for p's mover is skipped while another exists (a proven node's Q is its
 * exact value). The vector forms below compute each child's score with the same IEEE float operations in
 * the same order as the scalar loop at the end, so the same bits; every real score is finite (priors in
 * [0, 1], W a sum of clamped values, −1e30 for a lost child), so the first lane equal to the maximum is
 * exactly the scalar loop's strict-> argmax. Lanes past the last child read a "lost" dummy row (score
 * −1e30, after every real child with that score), so they never win and never read past the block. */

/* c_puct · sqrt(N(p) + vl(p)) and the first-play-urgency value of p's unvisited children */
static inline __attribute__((always_inline)) void parent_terms(const MT_TREE *t, const mnode *p, float *cp,
                                                              float *fpu)
{
    *cp = t->c_puct * sqrt_count(p->n + p->vl);
    float qp = p->n > 0 ? p->w / (float)p->n : 0.0f;
    if (p->side != p->pside)
        qp = -qp;
    float f = qp - t->fpu_reduction;
    *fpu = f < -1.0f ? -1.0f : f > 1.0f ? 1.0f : f;
}

/* rows {prior, w, n, vl | proven << 16 | flags << 24}: a child proven lost for the selecting player */
static const mnode lost_row __attribute__((aligned(64))) = {.proven = -1};

/* r[i] = child i's row for i < nc, else the lost row: with masks, not branches (a branch per step on the
 * child count mispredicts) */
static inline __attribute__((always_inline)) void rows8(const mnode *ch, int nc, const float **r)
{
    uintptr_t base = (uintptr_t)&ch[0].prior, lost = (uintptr_t)&lost_row.prior;
    for (int i = 0; i < 8; i++) {
        uintptr_t in = (uintptr_t)0 - (uintptr_t)(i < nc);
        r[i] = (const float *)(((base + (uintptr_t)i * sizeof(mnode)) & in) | (lost & ~in));
    }
}

#ifdef __SSE2__
/* Scores of the four children whose rows are at r[0..3]. */
static inline __attribute__((always_inline)) __m128 puct4(const float *const *r, __m128 vcp, __m128 vfpu)
{
    __m128 r0 = _mm_load_ps(r[0]), r1 = _mm_load_ps(r[1]), r2 = _mm_load_ps(r[2]), r3 = _mm_load_ps(r[3]);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    __m128i n = _mm_castps_si128(r2), misc = _mm_castps_si128(r3);
    __m128i vl = _mm_srai_epi32(_mm_slli_epi32(misc, 16), 16);
    __m128i pv = _mm_srai_epi32(_mm_slli_epi32(misc, 8), 24);
    __m128i ne = _mm_add_epi32(n, vl);
    /* lanes with ne == 0 divide by zero here and take fpu instead just below */
    __m128 qv = _mm_div_ps(_mm_sub_ps(r1, _mm_cvtepi32_ps(vl)), _mm_cvtepi32_ps(ne));
    __m128 visited = _mm_castsi128_ps(_mm_cmpgt_epi32(ne, _mm_setzero_si128()));
    __m128 q = _mm_or_ps(_mm_and_ps(visited, qv), _mm_andnot_ps(visited, vfpu));
    __m128 open = _mm_castsi128_ps(_mm_cmpeq_epi32(pv, _mm_set1_epi32(MCTS_UNPROVEN)));
    q = _mm_or_ps(_mm_and_ps(open, q), _mm_andnot_ps(open, _mm_cvtepi32_ps(pv)));
    __m128 u = _mm_div_ps(_mm_mul_ps(vcp, r0), _mm_cvtepi32_ps(_mm_add_epi32(ne, _mm_set1_epi32(1))));
    __m128 s = _mm_add_ps(q, u);
    __m128 out = _mm_castsi128_ps(_mm_cmpeq_epi32(pv, _mm_set1_epi32(-1)));
    return _mm_or_ps(_mm_and_ps(out, _mm_set1_ps(-1e30f)), _mm_andnot_ps(out, s));
}

static inline __attribute__((always_inline)) int best_child(const MT_TREE *t, const mnode *p)
{
    const mnode *ch = &t->pool[p->child];
    int nc = p->nchild;
    float cp, fpu;
    parent_terms(t, p, &cp, &fpu);
    const float *r[8];
    rows8(ch, nc, r);
    __m128 vcp = _mm_set1_ps(cp), vfpu = _mm_set1_ps(fpu);
    __m128 s0 = puct4(r, vcp, vfpu), s1 = _mm_set1_ps(-INFINITY);
    if (nc > 4)
        s1 = puct4(r + 4, vcp, vfpu);
    __m128 m = _mm_max_ps(s0, s1);
    m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
    m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
    int bits = _mm_movemask_ps(_mm_cmpeq_ps(s0, m)) | _mm_movemask_ps(_mm_cmpeq_ps(s1, m)) << 4;
    return p->child + __builtin_ctz((unsigned)bits | 1u << 8) % 8;  /* lane 0 when no children (never) */
}

#ifdef MCTS_AVX2
/* All (up to eight) children in one 256-bit pass: no branch on the child count. Used when the CPU has
 * AVX2 (mcts_select_many checks once); the same operations as puct4, eight lanes wide. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) int best_child8(const MT_TREE *t,
                                                                                          const mnode *p)
{
    const mnode *ch = &t->pool[p->child];
    int nc = p->nchild;
    float cp, fpu;
    parent_terms(t, p, &cp, &fpu);
    const float *r[8];
    rows8(ch, nc, r);
    __m256 r0 = _mm256_loadu2_m128(r[4], r[0]), r1 = _mm256_loadu2_m128(r[5], r[1]);
    __m256 r2 = _mm256_loadu2_m128(r[6], r[2]), r3 = _mm256_loadu2_m128(r[7], r[3]);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 prior = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 w = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m256i n = _mm256_castps_si256(_mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)));
    __m256i misc = _mm256_castps_si256(_mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)));
    __m256i vl = _mm256_srai_epi32(_mm256_slli_epi32(misc, 16), 16);
    __m256i pv = _mm256_srai_epi32(_mm256_slli_epi32(misc, 8), 24);
    __m256i ne = _mm256_add_epi32(n, vl);
    __m256 qv = _mm256_div_ps(_mm256_sub_ps(w, _mm256_cvtepi32_ps(vl)), _mm256_cvtepi32_ps(ne));
    __m256 visited = _mm256_castsi256_ps(_mm256_cmpgt_epi32(ne, _mm256_setzero_si256()));
    __m256 q = _mm256_blendv_ps(_mm256_set1_ps(fpu), qv, visited);
    __m256 open = _mm256_castsi256_ps(_mm256_cmpeq_epi32(pv, _mm256_set1_epi32(MCTS_UNPROVEN)));
    q = _mm256_blendv_ps(_mm256_cvtepi32_ps(pv), q, open);
    __m256 u = _mm256_div_ps(_mm256_mul_ps(_mm256_set1_ps(cp), prior),
                             _mm256_cvtepi32_ps(_mm256_add_epi32(ne, _mm256_set1_epi32(1))));
    __m256 s = _mm256_add_ps(q, u);
    __m256 out = _mm256_castsi256_ps(_mm256_cmpeq_epi32(pv, _mm256_set1_epi32(-1)));
    s = _mm256_blendv_ps(s, _mm256_set1_ps(-1e30f), out);
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
    m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
    int bits = _mm256_movemask_ps(_mm256_cmp_ps(s, _mm256_set_m128(m, m), _CMP_EQ_OQ));
    return p->child + __builtin_ctz((unsigned)bits | 1u << 8) % 8;
}
#endif
#else
static inline __attribute__((always_inline)) int best_child(const MT_TREE *t, const mnode *p)
{
    const mnode *ch = &t->pool[p->child];
    float cp, fpu, best = -INFINITY;
    parent_terms(t, p, &cp, &fpu);
    int bi = 0;
    for (int i = 0; i < p->nchild; i++) {
        const mnode *c = &ch[i];
        int ne = c->n + c->vl;
        float score;
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
#endif

/* Can node p be proven from its children's proofs? Sets p->proven and returns 1 when it changes. */
static int try_prove(MT_TREE *t, int p)
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

/* Score proofs (mcts.h): the exact utility of expanded node nd for its parent's mover when all its children
 * are scored — the best of theirs for nd's mover (they keep W / N in nd's mover's view) — else NAN. */
static float scored_utility(const MT_TREE *t, const mnode *nd)
{
    if (!(nd->flags & F_EXPANDED) || nd->nchild == 0)
        return NAN;
    const mnode *ch = &t->pool[nd->child];
    float best = -INFINITY;
    for (int i = 0; i < nd->nchild; i++) {
        if (!mnode_scored(&ch[i]))
            return NAN;
        float q = mnode_q(&ch[i]); /* W / N: a scored node is never "proven" */
        best = q > best ? q : best;
    }
    return nd->side == nd->pside ? best : -best;
}

/* Backs up vs (the value in South's view) along path[0..len) (root first) from its last node up, removing
 * one virtual loss per node; with the solver, proofs travel up while they keep changing a node. With score
 * proofs a node all of whose children are scored becomes scored; a scored interior node's W is reset to
 * its exact utility times N (so W / N stays exact), and that utility, not the leaf's value, is what its
 * ancestors receive. */
static void backup(MT_TREE *t, const int32_t *path, int len, float vs)
{
    int prop = t->solver && t->pool[path[len - 1]].proven != MCTS_UNPROVEN;
    int sprop = t->scored && (t->pool[path[len - 1]].flags & F_SCORED);
    for (int i = len - 1; i >= 0; i--) {
        mnode *nd = &t->pool[path[i]];
        nd->vl--;
        nd->n++;
        nd->w += nd->pside == 0 ? vs : -vs;
        if (sprop && (nd->flags & F_SCORED) && !(nd->flags & (F_TERMINAL | F_EXACT))) {
            float u = scored_utility(t, nd);
            nd->w = u * (float)nd->n;
            vs = nd->pside == 0 ? u : -u;
        }
        if (prop && i > 0)
            prop = try_prove(t, path[i - 1]);
        if (sprop && i > 0) {
            mnode *up = &t->pool[path[i - 1]];
            if (!(up->flags & F_SCORED) && !isnan(scored_utility(t, up)))
                up->flags |= F_SCORED;
            sprop = (up->flags & F_SCORED) != 0;
        }
    }
}

static void uncharge(MT_TREE *t, const int32_t *path, int len)
{
    for (int i = 0; i < len; i++)
        t->pool[path[i]].vl--;
}

int MT(done)(const MT_TREE *t)
{
    const mnode *root = &t->pool[0];
    return t->over || (t->solver && root->proven != MCTS_UNPROVEN) || (t->scored && (root->flags & F_SCORED)) ||
           root->n >= t->start_n + t->sims;
}

int MT(sims_done)(const MT_TREE *t)
{
    return t->pool[0].n - t->start_n;
}

int MT(leaf_room)(const MT_TREE *t) { return t->npend >= t->leaves ? 0 : t->leaves - t->npend; }

/* Starts loading what the next step of a descent at node c reads: c's children block (at most
 * MT_MAX_MOVES 32-byte nodes, so four lines), and only the lines it spans: with ~45 descents in flight the
 * line fill buffers are the limit, and a wasted prefetch holds one. Unconditional (no branches: they would
 * mispredict); when c is not expanded the addresses are junk, which a prefetch ignores. always_inline: GCC
 * deems a function made only of prefetches pure and drops its calls when it does not inline them. */
static inline __attribute__((always_inline)) void prefetch_below(const MT_TREE *t, const mnode *c)
{
    uintptr_t a = (uintptr_t)t->pool + (uintptr_t)(intptr_t)c->child * sizeof(mnode);
    uintptr_t last = a + (uintptr_t)c->nchild * sizeof(mnode) - 1; /* a - 1 when not expanded: no new line */
    uintptr_t a1 = a + 64 < last ? a + 64 : last, a2 = a + 128 < last ? a + 128 : last;
    uintptr_t a3 = a + 192 < last ? a + 192 : last;
    __builtin_prefetch((const void *)a);
    __builtin_prefetch((const void *)a1);
    __builtin_prefetch((const void *)a2);
    __builtin_prefetch((const void *)a3);
}

int MT(select_begin)(MT_TREE *t, mcts_cursor *c)
{
    const mnode *root = &t->pool[0];
    if (t->npend >= t->leaves || (t->npend > 0 && root->n + root->vl >= t->start_n + t->sims))
        return MCTS_FULL;
    /* A descent reaches at most one new node: room for its position now, before anything is charged. */
    if (!grow_pos(&t->ppool, &t->pcap, t->pcount + 1))
        return MCTS_ENOMEM;
    int h = __builtin_ctzll(~t->pend_used); /* a free slot exists: npend < leaves_per_game <= MAX_PENDING */
    mslot *sl = &t->slot[h];
    if (!sl->path) {
        if (!(sl->path = malloc(64 * sizeof *sl->path)))
            return MCTS_ENOMEM;
        sl->cap = 64;
    }
    c->node = 0;
    c->slot = h;
    c->len = 0;
    c->cap = sl->cap;
    c->path = sl->path;
    prefetch_below(t, root);
    __builtin_prefetch(&t->ppool[t->pcount], 1);  /* where a first reach writes its position */
    __builtin_prefetch(c->path);
    return MCTS_OK;
}

/* The descent ends: its path goes back to its slot (it may have been reallocated). */
static inline void end_descent(MT_TREE *t, const mcts_cursor *c)
{
    mslot *sl = &t->slot[c->slot];
    sl->path = c->path;
    sl->cap = c->cap;
    sl->len = c->len;
}

/* One descent step in general: reaching a node the first time, finished and proven nodes, leaves. */
static __attribute__((noinline)) int step_slow(MT_TREE *t, mcts_cursor *c, MT_POS *leaf)
{
    int x = c->node;
    mnode *nd = &t->pool[x];
    if (c->len == c->cap) {
        int32_t *p = realloc(c->path, 2 * (size_t)c->cap * sizeof *p);
        if (!p) {
            uncharge(t, c->path, c->len);
            end_descent(t, c);
            return MCTS_ENOMEM;
        }
        c->path = p;
        c->cap *= 2;
    }
    c->path[c->len++] = x;
    if (!(nd->flags & F_REACHED)) {
        MT_POS *pp = &t->ppool[t->pcount];
        *pp = t->ppool[t->pool[c->path[c->len - 2]].pos];
        MT_SOW(t, pp, nd->move);
        nd->pos = t->pcount++;
        nd->flags |= F_REACHED;
        nd->side = MT_SIDE(pp);
        int tb_margin = 0;
        if (pp->over) {
            nd->flags |= F_TERMINAL | (t->scored ? F_SCORED : 0);
            if (t->solver)
                nd->proven = (int8_t)result_for(t, pp, nd->pside);
        } else if (t->cfg.tablebase_seeds > 0 && MT_TB_PROBE(t, pp, &tb_margin)) {
            nd->flags |= F_EXACT | (t->scored ? F_SCORED : 0);
            if (t->solver)
                nd->proven = (int8_t)tb_result(pp, tb_margin, nd->pside);
        }
    }
    nd->vl++;
    if (nd->flags & F_TERMINAL) {
        end_descent(t, c);
        backup(t, c->path, c->len, terminal_value(t, &t->ppool[nd->pos]));
        return MCTS_SIM_DONE;
    }
    if (nd->flags & F_EXACT) { /* valued again at every visit, like a finished position (proven or not) */
        end_descent(t, c);
        const MT_POS *pp = &t->ppool[nd->pos];
        int m = 0;
        MT_TB_PROBE(t, pp, &m); /* covered: it was when the node was first reached */
        backup(t, c->path, c->len, tb_value(t, pp, m));
        return MCTS_SIM_DONE;
    }
    if (x != 0 && (nd->flags & F_SCORED)) { /* an exact interior node: its utility, no evaluation */
        end_descent(t, c);
        float u = mnode_q(nd);
        backup(t, c->path, c->len, nd->pside == 0 ? u : -u);
        return MCTS_SIM_DONE;
    }
    if (x != 0 && nd->proven != MCTS_UNPROVEN) {
        end_descent(t, c);
        backup(t, c->path, c->len, (float)(nd->pside == 0 ? nd->proven : -nd->proven));
        return MCTS_SIM_DONE;
    }
    if (!(nd->flags & F_EXPANDED)) {
        end_descent(t, c);
        if (nd->flags & F_PENDING) {
            uncharge(t, c->path, c->len);
            return MCTS_COLLISION;
        }
        int h = c->slot;
        mslot *sl = &t->slot[h];
        const MT_POS *pos = &t->ppool[nd->pos];
        nd->flags |= F_PENDING;
        sl->node = x;
        sl->side = MT_SIDE(pos);
        sl->legal = MT_LEGAL(t, pos);
        t->pend_used |= 1ull << h;
        t->npend++;
        *leaf = *pos;
        return h;
    }
    int rs = x == 0 && t->rootsel ? tree_root_select(t) : -1; /* the root levers (mcts_root.h) */
    c->node = rs >= 0 ? rs : best_child(t, nd);
    prefetch_below(t, &t->pool[c->node]);
    return MCTS_STEP;
}

/* The common step, inlined into the loops: a reached, expanded, unfinished and unproven node (or the root)
 * with room in the path. Does exactly what step_slow does for such a node. */
static inline __attribute__((always_inline)) int fast_ok(const MT_TREE *t, const mcts_cursor *c)
{
    const mnode *nd = &t->pool[c->node];
    return (nd->flags & (F_REACHED | F_TERMINAL | F_EXPANDED | F_SCORED)) == (F_REACHED | F_EXPANDED) &&
           (nd->proven == MCTS_UNPROVEN || c->node == 0) && c->len < c->cap && !(c->node == 0 && t->rootsel);
}

/* The common step once fast_ok holds: exactly what step_slow does for such a node, with the selection
 * passed in (BEST: best_child, or best_child8 inside AVX2 code). */
#define FAST_GO(t, c, BEST)                                                                                        \
    do {                                                                                                           \
        mnode *nd_ = &(t)->pool[(c)->node];                                                                        \
        (c)->path[(c)->len++] = (c)->node;                                                                         \
        nd_->vl++;                                                                                                 \
        (c)->node = BEST((t), nd_);                                                                                \
        prefetch_below((t), &(t)->pool[(c)->node]);                                                                \
        if (!((t)->pool[(c)->node].flags & F_REACHED)) /* the next step sows from here */                         \
            __builtin_prefetch(&(t)->ppool[nd_->pos]);                                                             \
    } while (0)

static inline __attribute__((always_inline)) int fast_step(MT_TREE *t, mcts_cursor *c)
{
    if (!fast_ok(t, c))
        return MCTS_FULL;  /* not the common case: step_slow decides */
    FAST_GO(t, c, best_child);
    return MCTS_STEP;
}

static inline __attribute__((always_inline)) int step(MT_TREE *t, mcts_cursor *c, MT_POS *leaf)
{
    int r = fast_step(t, c);
    return r == MCTS_STEP ? r : step_slow(t, c, leaf);
}

int MT(select_step)(MT_TREE *t, mcts_cursor *c, MT_POS *leaf) { return step(t, c, leaf); }

int MT(select)(MT_TREE *t, MT_POS *leaf)
{
    mcts_cursor c;
    int rc = MT(select_begin)(t, &c);
    if (rc != MCTS_OK)
        return rc;
    do
        rc = step(t, &c, leaf);
    while (rc == MCTS_STEP);
    return rc;
}

/* One step of tree i's descent inside mcts_select_many, with what follows its end: the leaf recorded, the
 * next simulation begun. Appends i to m->live at keep while it has a descent under way; returns keep. */
static inline __attribute__((always_inline)) int many_step(MT_TREE *const *t, const MT_MANY *m, int i,
                                                           int keep, int *rc)
{
    MT_TREE *ti = t[i];
    int r = fast_step(ti, &m->cur[i]);
    if (r != MCTS_STEP)
        r = step_slow(ti, &m->cur[i], &m->leaf[i * m->stride + m->found[i]]);
    if (r == MCTS_STEP) {
        m->live[keep++] = i;
        return keep;
    }
    if (r >= 0) {
        m->handle[i * m->stride + m->found[i]++] = r;
        if (ti->npend >= ti->leaves)
            return keep;  /* what mcts_select_begin would say (MCTS_FULL), without touching the root */
    } else if (r != MCTS_SIM_DONE) {
        if (r == MCTS_ENOMEM)
            *rc = r;
        return keep;  /* collision: this tree is finished for this batch */
    }
    if (*rc != MCTS_OK || MT(done)(ti))
        return keep;
    r = MT(select_begin)(ti, &m->cur[i]);
    if (r == MCTS_OK)
        m->live[keep++] = i;
    else if (r == MCTS_ENOMEM)
        *rc = r;
    return keep;
}

/* Round-robin over the live descents m->live[0..nlive), one level each. A tree whose simulation ended
 * without a leaf starts the next one, as the plain loop would, until its search is done or a descent stops
 * it. After an error no new descent starts, but those under way still finish (nothing stays charged). Two
 * trees per iteration when both take the common step: their two selections have no data in common, so the
 * core overlaps them. Instantiated once per selection function (BEST). */
#define SELECT_ROUNDS(BEST)                                                                                        \
    while (nlive > 0) {                                                                                            \
        int keep = 0, k = 0;                                                                                       \
        for (; k + 1 < nlive; k += 2) {                                                                            \
            int i = m->live[k], j = m->live[k + 1];                                                                \
            int fi = fast_ok(t[i], &m->cur[i]), fj = fast_ok(t[j], &m->cur[j]);                                   \
            if (fi && fj) {                                                                                        \
                FAST_GO(t[i], &m->cur[i], BEST);                                                                   \
                FAST_GO(t[j], &m->cur[j], BEST);                                                                   \
                m->live[keep++] = i;                                                                               \
                m->live[keep++] = j;                                                                               \
            } else {                                                                                               \
                keep = many_step(t, m, i, keep, &rc);                                                              \
                keep = many_step(t, m, j, keep, &rc);                                                              \
            }                                                                                                      \
        }                                                                                                          \
        if (k < nlive)                                                                                             \
            keep = many_step(t, m, m->live[k], keep, &rc);                                                         \
        nlive = keep;                                                                                              \
    }                                                                                                              \
    return rc

static int select_rounds_sse(MT_TREE *const *t, const MT_MANY *m, int nlive, int rc) { SELECT_ROUNDS(best_child); }

#ifdef MCTS_AVX2
__attribute__((target("avx2"))) static int select_rounds_avx2(MT_TREE *const *t, const MT_MANY *m, int nlive,
                                                             int rc)
{
    SELECT_ROUNDS(best_child8);
}
#endif

static int select_rounds(MT_TREE *const *t, const MT_MANY *m, int nlive, int rc)
{
#ifdef MCTS_AVX2
    if (have_avx2)
        return select_rounds_avx2(t, m, nlive, rc);
#endif
    return select_rounds_sse(t, m, nlive, rc);
}

int MT(select_many)(MT_TREE *const *t, int n, const MT_MANY *m)
{
    /* The first touches of each tree (its first lines, then its root node) are prefetched a whole pass
     * ahead of their use; each begin then prefetches its root's children. */
    for (int i = 0; i < n; i++) {
        __builtin_prefetch(t[i]);
        __builtin_prefetch((const char *)t[i] + 64);
    }
    for (int i = 0; i < n; i++)
        __builtin_prefetch(t[i]->pool);
    int nlive = 0, rc = MCTS_OK;
    for (int i = 0; i < n; i++) {
        m->found[i] = 0;
        if (MT(done)(t[i]))
            continue;
        int r = MT(select_begin)(t[i], &m->cur[i]);
        if (r == MCTS_OK)
            m->live[nlive++] = i;
        else if (r == MCTS_ENOMEM)
            rc = r;
    }
    return select_rounds(t, m, nlive, rc);
}

/* ---- expansion ---- */

/* Bits set in a legal-move mask (MT_MAX_MOVES <= 8 bits): __builtin_popcount is a library call without
 * -mpopcnt. */
static inline int popcount8(unsigned v)
{
    v = v - ((v >> 1) & 0x55u);
    v = (v & 0x33u) + ((v >> 2) & 0x33u);
    return (int)((v + (v >> 4)) & 0x0fu);
}

/* Children of x for every legal move, in pit order, with priors masked and renormalised (cases 3, 4). */
static int expand(MT_TREE *t, int x, unsigned legal, int side, const float *prior)
{
    int nc = popcount8(legal);
    if (!grow(&t->pool, &t->cap, t->count + nc))
        return MCTS_ENOMEM;
    double sum = 0;  /* in pit order, as the priors are read below */
    for (unsigned l = legal; l; l &= l - 1) {
        float p = prior[__builtin_ctz(l)];
        if (p > 0)
            sum += p;
        else if (p != p)
            sum = NAN;
    }
    int uniform = !(sum > 0) || !isfinite(sum);
    float up = 1.0f / (float)nc;
    mnode *nd = &t->pool[x], *ch = &t->pool[t->count];
    /* each child built in registers and stored whole: the block is fresh memory */
    const mnode proto = {.parent = x, .child = -1, .pos = -1, .pside = (uint8_t)side, .proven = MCTS_UNPROVEN};
    int i = 0;
    for (unsigned l = legal; l; l &= l - 1, i++) {
        int k = __builtin_ctz(l);
        mnode c = proto;
        c.prior = uniform ? up : prior[k] > 0 ? (float)(prior[k] / sum) : 0.0f;
        c.move = (uint8_t)k;
        ch[i] = c;
    }
    nd->child = t->count;
    nd->nchild = (uint8_t)nc;
    nd->flags |= F_EXPANDED;
    t->count += nc;
    return MCTS_OK;
}

void MT(complete_prefetch)(const MT_TREE *t, int h, int stage)
{
    if (h < 0 || h >= MAX_PENDING)
        return;
    const mslot *sl = &t->slot[h];
    if (stage == 0) {
        __builtin_prefetch(t);
        __builtin_prefetch(sl);
    } else if (stage == 1 && sl->node >= 0) {
        __builtin_prefetch(&t->pool[sl->node]);
        __builtin_prefetch(sl->path);
        const char *end = (const char *)&t->pool[t->count];  /* where the children will go */
        __builtin_prefetch(end, 1);
        __builtin_prefetch(end + 64, 1);
        __builtin_prefetch(end + 128, 1);
    } else if (stage == 2 && sl->node >= 0) {
        /* the path's nodes, which backup updates: independent lines, loaded in parallel */
        for (int i = 1; i < sl->len - 1; i++)
            __builtin_prefetch(&t->pool[sl->path[i]], 1);
    }
}

int MT(complete)(MT_TREE *t, int h, const float *prior, float value)
{
    if (h < 0 || h >= MAX_PENDING || t->slot[h].node < 0)
        return MCTS_EINVAL;
    mslot *sl = &t->slot[h];
    int x = sl->node, side = sl->side;
    sl->node = -1;
    t->pend_used &= ~(1ull << h);
    t->npend--;
    t->pool[x].flags &= (uint8_t)~F_PENDING;
    int rc = expand(t, x, sl->legal, side, prior);
    value = value != value ? 0.0f : value > 1.0f ? 1.0f : value < -1.0f ? -1.0f : value;
    backup(t, sl->path, sl->len, side == 0 ? value : -value);
    if (x == 0 && rc == MCTS_OK) {
        add_root_noise(t);
        rc = tree_root_begin(t, value);
    }
    return rc;
}

/* ---- tree reuse ---- */

int MT(advance)(MT_TREE *t, int move)
{
    if (t->npend > 0 || move < 0 || move >= MT_MOVES(t) || !(MT_LEGAL(t, &t->root_pos) >> move & 1u))
        return MCTS_EINVAL;
    int c = MT(node_child)(t, 0, move);
    MT_SOW(t, &t->root_pos, move);
    t->over = t->root_pos.over;
    if (!t->cfg.reuse_tree || t->cfg.root == MCTS_ROOT_GUMBEL || c < 0 || !(t->pool[c].flags & F_REACHED) ||
        t->pool[c].n == 0) { /* the Gumbel root is never reused (mcts_root.h) */
        init_root(t);
        return MCTS_OK;
    }
    if (!grow(&t->spare, &t->spare_cap, t->count)) {
        init_root(t);
        return MCTS_ENOMEM;
    }
    /* Breadth-first copy: node i of the new pool still holds its OLD first-child index until processed,
     * and every child block is appended contiguously, so one pass over the growing new pool suffices. The
     * old blocks are scattered and cold: each is prefetched a few nodes ahead of its copy. */
    mnode *dst = t->spare, *src = t->pool;
    dst[0] = src[c];
    dst[0].parent = -1;
    dst[0].move = 0xff;
    dst[0].vl = 0;
    if (dst[0].flags & F_EXACT) {  /* the root is always searched (mcts.h): it is expanded by the evaluator */
        dst[0].flags &= (uint8_t)~(F_EXACT | F_SCORED);
        dst[0].proven = MCTS_UNPROVEN;
    }
    if (dst[0].side != dst[0].pside) {  /* the root keeps W and proofs in its own mover's view */
        dst[0].w = -dst[0].w;
        if (dst[0].proven != MCTS_UNPROVEN)
            dst[0].proven = (int8_t)-dst[0].proven;
        dst[0].pside = dst[0].side;
    }
    int n = 1, reached = 0;
    for (int i = 0; i < n; i++) {
        if (i + 8 < n && (dst[i + 8].flags & F_EXPANDED))
            prefetch_below(t, &dst[i + 8]);  /* t->pool is still the old pool */
        reached += !!(dst[i].flags & F_REACHED);
        if (!(dst[i].flags & F_EXPANDED))
            continue;
        const mnode *from = &src[dst[i].child];
        for (int j = 0; j < dst[i].nchild; j++) {  /* not memcpy: it became rep movs, slow on 32-224 bytes */
            dst[n + j] = from[j];
            dst[n + j].parent = i;
        }
        dst[i].child = n;
        n += dst[i].nchild;
    }
    /* The positions move only once most of the pool is garbage (the kept nodes' indices stay valid
     * meanwhile): copying them every move cost as much as copying the nodes. */
    if (t->pcount > 4 * reached + 256 && grow_pos(&t->pspare, &t->pspare_cap, reached)) {
        int np = 0;
        for (int i = 0; i < n; i++)
            if (dst[i].flags & F_REACHED) {
                t->pspare[np] = t->ppool[dst[i].pos];
                dst[i].pos = np++;
            }
        MT_POS *pp = t->ppool;
        t->ppool = t->pspare;
        t->pspare = pp;
        int pcap = t->pcap;
        t->pcap = t->pspare_cap;
        t->pspare_cap = pcap;
        t->pcount = np;
    }
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

/* The best root child (tau = 0 rule of mcts_choose), or −1 when the root is not expanded. */
int best_root_child(const MT_TREE *t)
{
    const mnode *root = &t->pool[0];
    if (!(root->flags & F_EXPANDED) || root->nchild == 0)
        return -1;
    const mnode *ch = &t->pool[root->child];
    if (MT(root_scored)(t)) { /* every child is exact: the best utility (ties: lower pit) */
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

int MT(choose)(MT_TREE *t, double tau)
{
    int b = best_root_child(t);
    if (b < 0)
        return MCTS_EINVAL;
    int scored = MT(root_scored)(t); /* a scored root plays its exact best, whatever tau or the root lever */
    int gm = t->cfg.root == MCTS_ROOT_GUMBEL && !scored ? tree_root_choose(t) : -1; /* tau does not apply to it */
    if (gm >= 0)
        return gm;
    const mnode *root = &t->pool[0], *ch = &t->pool[root->child];
    if (tau <= 0 || t->pool[b].proven == 1 || scored)
        return t->pool[b].move;
    int any_ok = 0, n[MT_MAX_MOVES];
    uint8_t lost[MT_MAX_MOVES];
    for (int i = 0; i < root->nchild; i++)
        any_ok |= ch[i].proven != -1;
    for (int i = 0; i < root->nchild; i++) {
        n[i] = ch[i].n;
        lost[i] = any_ok && ch[i].proven == -1;
    }
    double wt[MT_MAX_MOVES], wsum = mcts_visit_weights(n, lost, root->nchild, tau, wt);
    if (!(wsum > 0) || !isfinite(wsum))
        return t->pool[b].move;
    int i = mcts_visit_draw(&t->rng, wt, root->nchild, wsum);
    return i >= 0 ? ch[i].move : t->pool[b].move;  /* −1: rounding at the very end of the range */
}


int MT(policy)(const MT_TREE *t, double tau, float *pi)
{
    for (int k = 0; k < MT_MOVES(t); k++)
        pi[k] = 0.0f;
    int b = best_root_child(t);
    if (b < 0)
        return MCTS_EINVAL;
    const mnode *root = &t->pool[0], *ch = &t->pool[root->child];
    if (MT(root_scored)(t)) { /* exact: uniform over the moves of the best utility */
        float best = mnode_q(&t->pool[b]);
        int k = 0;
        for (int i = 0; i < root->nchild; i++)
            k += mnode_q(&ch[i]) >= best - MCTS_SCORE_TIE;
        for (int i = 0; i < root->nchild; i++)
            pi[ch[i].move] = mnode_q(&ch[i]) >= best - MCTS_SCORE_TIE ? 1.0f / (float)k : 0.0f;
        return MCTS_OK;
    }
    if (tree_root_policy(t, tau, pi)) /* the Gumbel target, or the visits with forced playouts pruned */
        return MCTS_OK;
    int n[MT_MAX_MOVES];
    for (int i = 0; i < root->nchild; i++)
        n[i] = ch[i].n;
    double wt[MT_MAX_MOVES], wsum = mcts_visit_weights(n, NULL, root->nchild, tau, wt);
    if (!(wsum > 0) || !isfinite(wsum)) {
        pi[t->pool[b].move] = 1.0f;
        return MCTS_OK;
    }
    for (int i = 0; i < root->nchild; i++)
        pi[ch[i].move] = (float)(wt[i] / wsum);
    return MCTS_OK;
}

int MT(root_visits)(const MT_TREE *t, int *visits, float *q)
{
    const mnode *root = &t->pool[0];
    for (int k = 0; k < MT_MOVES(t); k++) {
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

int MT(root_prior)(const MT_TREE *t, float *prior)
{
    if (!(t->pool[0].flags & F_EXPANDED))
        return MCTS_EINVAL;
    memcpy(prior, t->root_prior, (size_t)MT_MOVES(t) * sizeof *prior);
    return MCTS_OK;
}

float MT(root_value)(const MT_TREE *t)
{
    const mnode *root = &t->pool[0];
    return root->n > 0 ? root->w / (float)root->n : 0.0f;
}

int MT(root_proven)(const MT_TREE *t) { return t->pool[0].proven; }

int MT(root_scored)(const MT_TREE *t) { return t->scored && mnode_scored(&t->pool[0]); }

/* ---- inspection ---- */

int MT(root_index)(const MT_TREE *t)
{
    (void)t;
    return 0;
}

int MT(node_count)(const MT_TREE *t) { return t->count; }

int MT(node_get)(const MT_TREE *t, int index, mcts_node_info *out)
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

int MT(node_child)(const MT_TREE *t, int index, int move)
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

/* ---- the root levers' hooks (mcts_root_impl.h) ---- */

#define RT_TREE MT_TREE
#define RT_NODE mnode
#define RT_MAX MT_MAX_MOVES
#define RT_SIMS(t) ((t)->sims)
#define RT_EXACT(c) ((c)->proven != MCTS_UNPROVEN)
#define RT_Q(t, c) mnode_q(c)
#define RT_LOST(c) ((c)->proven == -1)
#define RT_WON(c) ((c)->proven == 1)
#define RT_BEST(t) best_root_child(t)
#define RT_BEGIN tree_root_begin
#define RT_SELECT tree_root_select
#define RT_POLICY tree_root_policy
#define RT_CHOOSE tree_root_choose
#include "selfplay/mcts_root_impl.h"
