/* mcts.c — the PUCT tree: pools, descent, expansion, backup, solver, noise, reuse (conventions in mcts.h,
 * layout in mcts_impl.h; results and inspection in mcts_results.c). */
#include "selfplay/mcts_impl.h"
#include "selfplay/mcts_pages.h"
#include "nn/search_ranges.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#ifdef __SSE2__
#include <immintrin.h>
#endif

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
                     .reuse_tree = 1,
                     .root = MCTS_ROOT_PUCT,
                     .gumbel_k = 16,
                     .gumbel_c_visit = 50.0,
                     .gumbel_c_scale = 1.0,
                     .gumbel_scale = 1.0,
                     .forced_playouts_k = 0.0,
                     .margin_utility = 0.0};
    return c;
}

#define BAD(...) (err ? snprintf(err, MCTS_ERRLEN, __VA_ARGS__) : 0, MCTS_EINVAL)

int mcts_config_check(const mcts_config *c, char *err)
{
    if (!c)
        return BAD("mcts config is NULL");
    if (c->sims < 1 || c->sims > SEARCH_SIMS_MAX)
        return BAD("mcts.sims must be in 1..%d, got %d", SEARCH_SIMS_MAX, c->sims);
    if (!(c->c_puct >= SEARCH_C_PUCT_MIN && c->c_puct <= SEARCH_C_PUCT_MAX))
        return BAD("mcts.c_puct must be in [%g, %g], got %g", SEARCH_C_PUCT_MIN, SEARCH_C_PUCT_MAX, c->c_puct);
    if (!(c->fpu_reduction >= 0 && c->fpu_reduction <= SEARCH_FPU_MAX))
        return BAD("mcts.fpu_reduction must be in [0, %g], got %g", SEARCH_FPU_MAX, c->fpu_reduction);
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
    if (c->root != MCTS_ROOT_PUCT && c->root != MCTS_ROOT_GUMBEL)
        return BAD("mcts.root must be puct or gumbel, got %d", c->root);
    if (c->gumbel_k < 1 || c->gumbel_k > SEARCH_GUMBEL_K_MAX)
        return BAD("mcts.gumbel_k must be in 1..%d, got %d", SEARCH_GUMBEL_K_MAX, c->gumbel_k);
    if (!(c->gumbel_c_visit >= 0 && c->gumbel_c_visit <= SEARCH_GUMBEL_C_VISIT_MAX))
        return BAD("mcts.gumbel_c_visit must be in [0, %g], got %g", SEARCH_GUMBEL_C_VISIT_MAX, c->gumbel_c_visit);
    if (!(c->gumbel_c_scale >= SEARCH_GUMBEL_C_SCALE_MIN && c->gumbel_c_scale <= SEARCH_GUMBEL_C_SCALE_MAX))
        return BAD("mcts.gumbel_c_scale must be in [%g, %g], got %g", SEARCH_GUMBEL_C_SCALE_MIN,
                   SEARCH_GUMBEL_C_SCALE_MAX, c->gumbel_c_scale);
    if (!(c->gumbel_scale >= 0 && c->gumbel_scale <= 1e6))
        return BAD("mcts.gumbel_scale must be >= 0, got %g", c->gumbel_scale);
    if (!(c->forced_playouts_k >= 0 && c->forced_playouts_k <= 1e6))
        return BAD("mcts.forced_playouts_k must be >= 0, got %g", c->forced_playouts_k);
    if (c->forced_playouts_k > 0 && c->root == MCTS_ROOT_GUMBEL)
        return BAD("mcts.forced_playouts_k must be 0 with mcts.root = gumbel (the halving decides the root's visits)");
    if (!(c->margin_utility >= 0 && c->margin_utility <= SEARCH_MARGIN_MAX))
        return BAD("mcts.margin_utility must be in [0, %g], got %g", SEARCH_MARGIN_MAX, c->margin_utility);
    if (c->tablebase_seeds < 0 || c->tablebase_seeds > 127)
        return BAD("mcts.tablebase_seeds must be in 0..127, got %d", c->tablebase_seeds);
    return MCTS_OK;
}

/* What a tree needs beyond mcts_config_check: the oracle behind tablebase_seeds (built by the caller). */
static int tree_config_check(const mcts_config *c, char *err)
{
    int rc = mcts_config_check(c, err);
    if (rc == MCTS_OK && c->tablebase_seeds > 0 && (!c->tablebase || !c->tablebase->probe))
        return BAD("mcts.tablebase_seeds = %d needs an endgame database (none was given to the search)",
                   c->tablebase_seeds);
    if (rc == MCTS_OK && c->tablebase_seeds > 0 && c->tablebase->max_seeds < c->tablebase_seeds)
        return BAD("mcts.tablebase_seeds = %d, but the endgame database covers only %d seeds", c->tablebase_seeds,
                   c->tablebase->max_seeds);
    return rc;
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

static int grow_pos(kalah_pos **pool, int *cap, int need)
{
    void *p = *pool;
    int ok = grow_block(&p, cap, need, sizeof **pool);
    *pool = p;
    return ok;
}

/* The final result of finished position p for `side`: +1 win, 0 draw, −1 loss. */
static int result_for(const kalah_rules *r, const kalah_pos *p, int side)
{
    int w = kalah_winner(r, p);
    return side == KALAH_SOUTH ? w : -w;
}

/* Is unfinished position p a tablebase leaf (mcts.h)? */
static int tb_covers(const mcts_tree *t, const kalah_pos *p)
{
    return mcts_tb_seeds_in_pits(&t->r, p) <= t->cfg.tablebase_seeds;
}

/* The exact result (+1 win / 0 draw / −1 loss) of covered position p for `side`, from the sign of its final
 * margin under perfect play. */
static int tb_result(const mcts_tree *t, const kalah_pos *p, int side)
{
    int m = t->cfg.tablebase->probe(t->cfg.tablebase, p);
    int res = (m > 0) - (m < 0);
    return side == p->side ? res : -res;
}

/* The utility of covered position p in South's view: its exact result, with mcts.margin_utility w its exact
 * final margin mixed in as terminal_value does for a finished position (KataGo's score utility, Wu 2019 §4),
 * so the search still prefers the larger of two proven wins. With w = 0 it is the proven value itself. */
static float tb_value(const mcts_tree *t, const kalah_pos *p)
{
    int m = t->cfg.tablebase->probe(t->cfg.tablebase, p);
    int ms = p->side == KALAH_SOUTH ? m : -m;
    float v = (float)((ms > 0) - (ms < 0));
    double w = t->cfg.margin_utility;
    if (w > 0)
        v = (float)((v + w * ms / (2.0 * t->r.pits * t->r.seeds)) / (1.0 + w));
    return v;
}

/* cfg (checked) and the copies of it the hot paths read from the tree's first cache line. */
static void set_config(mcts_tree *t, const mcts_config *cfg)
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
    t->over = t->root_pos.over;
    if (t->root_pos.over) {
        n->flags |= F_TERMINAL;
        if (t->solver)
            n->proven = (int8_t)result_for(&t->r, &t->root_pos, n->pside);
    }
    t->count = 1;
    t->start_n = 0;
    t->npend = 0;
    t->pend_used = 0;
    for (int h = 0; h < MAX_PENDING; h++)
        t->slot[h].node = -1;
}

mcts_tree *mcts_tree_create(const kalah_rules *r, const mcts_config *cfg, uint64_t seed, char *err)
{
    if (!r || kalah_rules_check(r, err) != KALAH_OK || tree_config_check(cfg, err) != MCTS_OK)
        return NULL;
    pthread_once(&sqrt_once, sqrt_fill);
    mcts_tree *t = aligned_alloc(64, sizeof *t);  /* sizeof is a multiple of the 64-byte alignment */
    if (t)
        memset(t, 0, sizeof *t);
    if (!t || !grow(&t->pool, &t->cap, 1024) || !grow_pos(&t->ppool, &t->pcap, 256)) {
        if (t)
            mcts_pages_free(t->pool, (size_t)t->cap * sizeof *t->pool);
        free(t);
        if (err)
            snprintf(err, MCTS_ERRLEN, "out of memory");
        return NULL;
    }
    t->r = *r;
    set_config(t, cfg);
    mcts_rng_seed(&t->rng, seed);
    kalah_start(r, &t->root_pos);
    init_root(t);
    return t;
}

void mcts_tree_free(mcts_tree *t)
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

int mcts_tree_set_config(mcts_tree *t, const mcts_config *cfg, char *err)
{
    int rc = tree_config_check(cfg, err);
    if (rc == MCTS_OK)
        set_config(t, cfg);
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

/* The utility of finished position p in South's view: the result, with mcts.margin_utility w the final
 * margin mixed in as (result + w · margin / (2 · pits · seeds)) / (1 + w) (KataGo's score utility, Wu 2019
 * §4; divided by 1 + w so it stays in [−1, 1] and every win still beats every draw and loss). */
static float terminal_value(const mcts_tree *t, const kalah_pos *p)
{
    float v = (float)kalah_winner(&t->r, p);
    double w = t->cfg.margin_utility;
    if (w > 0) {
        int m = t->r.pits, d = 0;
        for (int i = 0; i <= m; i++)
            d += p->cell[i] - p->cell[m + 1 + i];
        v = (float)((v + w * d / (2.0 * m * t->r.seeds)) / (1.0 + w));
    }
    return v;
}

/* ---- noise ---- */

/* Called when a root has just been expanded or reached by reuse, so its children's priors are still the
 * evaluator's: they are kept first (mcts_root_prior: selfplay.surprise_weight measures the search's target
 * against the net, not against the noise), then mixed with the noise. */
static void add_root_noise(mcts_tree *t)
{
    mnode *root = &t->pool[0];
    double eps = t->cfg.dirichlet_eps, eta[KALAH_MAX_PITS];
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
static inline __attribute__((always_inline)) void parent_terms(const mcts_tree *t, const mnode *p, float *cp,
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

static inline __attribute__((always_inline)) int best_child(const mcts_tree *t, const mnode *p)
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
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) int best_child8(const mcts_tree *t,
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
static inline __attribute__((always_inline)) int best_child(const mcts_tree *t, const mnode *p)
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

/* Score proofs (mcts.h): the exact utility of expanded node nd for its parent's mover when all its children
 * are scored — the best of theirs for nd's mover (they keep W / N in nd's mover's view) — else NAN. */
static float scored_utility(const mcts_tree *t, const mnode *nd)
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
static void backup(mcts_tree *t, const int32_t *path, int len, float vs)
{
    int prop = t->solver && t->pool[path[len - 1]].proven != MCTS_UNPROVEN;
    int sprop = t->scored && (t->pool[path[len - 1]].flags & F_SCORED);
    for (int i = len - 1; i >= 0; i--) {
        mnode *nd = &t->pool[path[i]];
        nd->vl--;
        nd->n++;
        nd->w += nd->pside == KALAH_SOUTH ? vs : -vs;
        if (sprop && (nd->flags & F_SCORED) && !(nd->flags & (F_TERMINAL | F_EXACT))) {
            float u = scored_utility(t, nd);
            nd->w = u * (float)nd->n;
            vs = nd->pside == KALAH_SOUTH ? u : -u;
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

static void uncharge(mcts_tree *t, const int32_t *path, int len)
{
    for (int i = 0; i < len; i++)
        t->pool[path[i]].vl--;
}

int mcts_done(const mcts_tree *t)
{
    const mnode *root = &t->pool[0];
    return t->over || (t->solver && root->proven != MCTS_UNPROVEN) || (t->scored && (root->flags & F_SCORED)) ||
           root->n >= t->start_n + t->sims;
}

int mcts_sims_done(const mcts_tree *t)
{
    return t->pool[0].n - t->start_n;
}

int mcts_leaf_room(const mcts_tree *t) { return t->npend >= t->leaves ? 0 : t->leaves - t->npend; }

/* Starts loading what the next step of a descent at node c reads: c's children block (at most
 * KALAH_MAX_PITS 32-byte nodes, so four lines), and only the lines it spans: with ~45 descents in flight the
 * line fill buffers are the limit, and a wasted prefetch holds one. Unconditional (no branches: they would
 * mispredict); when c is not expanded the addresses are junk, which a prefetch ignores. always_inline: GCC
 * deems a function made only of prefetches pure and drops its calls when it does not inline them. */
static inline __attribute__((always_inline)) void prefetch_below(const mcts_tree *t, const mnode *c)
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

int mcts_select_begin(mcts_tree *t, mcts_cursor *c)
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
static inline void end_descent(mcts_tree *t, const mcts_cursor *c)
{
    mslot *sl = &t->slot[c->slot];
    sl->path = c->path;
    sl->cap = c->cap;
    sl->len = c->len;
}

/* One descent step in general: reaching a node the first time, finished and proven nodes, leaves. */
static __attribute__((noinline)) int step_slow(mcts_tree *t, mcts_cursor *c, kalah_pos *leaf)
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
        kalah_pos *pp = &t->ppool[t->pcount];
        *pp = t->ppool[t->pool[c->path[c->len - 2]].pos];
        kalah_sow(&t->r, pp, nd->move, NULL);
        nd->pos = t->pcount++;
        nd->flags |= F_REACHED;
        nd->side = pp->side;
        if (pp->over) {
            nd->flags |= F_TERMINAL | (t->scored ? F_SCORED : 0);
            if (t->solver)
                nd->proven = (int8_t)result_for(&t->r, pp, nd->pside);
        } else if (t->cfg.tablebase_seeds > 0 && tb_covers(t, pp)) {
            nd->flags |= F_EXACT | (t->scored ? F_SCORED : 0);
            if (t->solver)
                nd->proven = (int8_t)tb_result(t, pp, nd->pside);
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
        backup(t, c->path, c->len, tb_value(t, &t->ppool[nd->pos]));
        return MCTS_SIM_DONE;
    }
    if (x != 0 && (nd->flags & F_SCORED)) { /* an exact interior node: its utility, no evaluation */
        end_descent(t, c);
        float u = mnode_q(nd);
        backup(t, c->path, c->len, nd->pside == KALAH_SOUTH ? u : -u);
        return MCTS_SIM_DONE;
    }
    if (x != 0 && nd->proven != MCTS_UNPROVEN) {
        end_descent(t, c);
        backup(t, c->path, c->len, (float)(nd->pside == KALAH_SOUTH ? nd->proven : -nd->proven));
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
        const kalah_pos *pos = &t->ppool[nd->pos];
        nd->flags |= F_PENDING;
        sl->node = x;
        sl->side = pos->side;
        sl->legal = kalah_legal(&t->r, pos);
        t->pend_used |= 1ull << h;
        t->npend++;
        *leaf = *pos;
        return h;
    }
    int rs = x == 0 && t->rootsel ? mcts_root_select(t) : -1; /* the root levers (mcts_root.h) */
    c->node = rs >= 0 ? rs : best_child(t, nd);
    prefetch_below(t, &t->pool[c->node]);
    return MCTS_STEP;
}

/* The common step, inlined into the loops: a reached, expanded, unfinished and unproven node (or the root)
 * with room in the path. Does exactly what step_slow does for such a node. */
static inline __attribute__((always_inline)) int fast_ok(const mcts_tree *t, const mcts_cursor *c)
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

static inline __attribute__((always_inline)) int fast_step(mcts_tree *t, mcts_cursor *c)
{
    if (!fast_ok(t, c))
        return MCTS_FULL;  /* not the common case: step_slow decides */
    FAST_GO(t, c, best_child);
    return MCTS_STEP;
}

static inline __attribute__((always_inline)) int step(mcts_tree *t, mcts_cursor *c, kalah_pos *leaf)
{
    int r = fast_step(t, c);
    return r == MCTS_STEP ? r : step_slow(t, c, leaf);
}

int mcts_select_step(mcts_tree *t, mcts_cursor *c, kalah_pos *leaf) { return step(t, c, leaf); }

int mcts_select(mcts_tree *t, kalah_pos *leaf)
{
    mcts_cursor c;
    int rc = mcts_select_begin(t, &c);
    if (rc != MCTS_OK)
        return rc;
    do
        rc = step(t, &c, leaf);
    while (rc == MCTS_STEP);
    return rc;
}

/* One step of tree i's descent inside mcts_select_many, with what follows its end: the leaf recorded, the
 * next simulation begun. Appends i to m->live at keep while it has a descent under way; returns keep. */
static inline __attribute__((always_inline)) int many_step(mcts_tree *const *t, const mcts_many *m, int i,
                                                           int keep, int *rc)
{
    mcts_tree *ti = t[i];
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
    if (*rc != MCTS_OK || mcts_done(ti))
        return keep;
    r = mcts_select_begin(ti, &m->cur[i]);
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

static int select_rounds_sse(mcts_tree *const *t, const mcts_many *m, int nlive, int rc) { SELECT_ROUNDS(best_child); }

#ifdef MCTS_AVX2
__attribute__((target("avx2"))) static int select_rounds_avx2(mcts_tree *const *t, const mcts_many *m, int nlive,
                                                             int rc)
{
    SELECT_ROUNDS(best_child8);
}
#endif

static int select_rounds(mcts_tree *const *t, const mcts_many *m, int nlive, int rc)
{
#ifdef MCTS_AVX2
    if (have_avx2)
        return select_rounds_avx2(t, m, nlive, rc);
#endif
    return select_rounds_sse(t, m, nlive, rc);
}

int mcts_select_many(mcts_tree *const *t, int n, const mcts_many *m)
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
        if (mcts_done(t[i]))
            continue;
        int r = mcts_select_begin(t[i], &m->cur[i]);
        if (r == MCTS_OK)
            m->live[nlive++] = i;
        else if (r == MCTS_ENOMEM)
            rc = r;
    }
    return select_rounds(t, m, nlive, rc);
}

/* ---- expansion ---- */

/* Bits set in a legal-move mask (KALAH_MAX_PITS <= 8 bits): __builtin_popcount is a library call without
 * -mpopcnt. */
static inline int popcount8(unsigned v)
{
    v = v - ((v >> 1) & 0x55u);
    v = (v & 0x33u) + ((v >> 2) & 0x33u);
    return (int)((v + (v >> 4)) & 0x0fu);
}

/* Children of x for every legal move, in pit order, with priors masked and renormalised (cases 3, 4). */
static int expand(mcts_tree *t, int x, unsigned legal, int side, const float *prior)
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

void mcts_complete_prefetch(const mcts_tree *t, int h, int stage)
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

int mcts_complete(mcts_tree *t, int h, const float *prior, float value)
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
    backup(t, sl->path, sl->len, side == KALAH_SOUTH ? value : -value);
    if (x == 0 && rc == MCTS_OK) {
        add_root_noise(t);
        rc = mcts_root_begin(t, value);
    }
    return rc;
}

/* ---- tree reuse ---- */

int mcts_advance(mcts_tree *t, int move)
{
    if (t->npend > 0 || move < 0 || move >= t->r.pits || !(kalah_legal(&t->r, &t->root_pos) >> move & 1u))
        return MCTS_EINVAL;
    int c = mcts_node_child(t, 0, move);
    kalah_sow(&t->r, &t->root_pos, move, NULL);
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
        kalah_pos *pp = t->ppool;
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

