/* vecenv.c — the batched stepper's API, kernel choice, and the portable scalar kernel (the reference the
 * SIMD kernels in vecenv_avx2.c / vecenv_avx512.c must match bit for bit). Contract: env/vecenv.h. */
#include "env/vecenv.h"
#include "env/errbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "env/vecenv_impl.h"

#define set_err(err, ...) errbuf_set(err, KALAH_ERRLEN, __VA_ARGS__)

/* ---- kernels ---- */

static const char *kernel_names[] = {"auto", "scalar", "avx2", "avx512"};

int vecenv_kernel_parse(const char *s, vecenv_kernel *out)
{
    for (int i = 0; s && i < 4; i++)
        if (!strcmp(s, kernel_names[i])) {
            *out = (vecenv_kernel)i;
            return KALAH_OK;
        }
    return KALAH_EINVAL;
}

const char *vecenv_kernel_name(vecenv_kernel k) { return (unsigned)k < 4 ? kernel_names[k] : "?"; }

int vecenv_kernel_supported(vecenv_kernel k)
{
    switch (k) {
    case VECENV_AUTO:
    case VECENV_SCALAR: return 1;
#ifdef VECENV_X86
    /* __builtin_cpu_supports also checks that the OS saves the wide registers (XCR0). */
    case VECENV_AVX2: __builtin_cpu_init(); return __builtin_cpu_supports("avx2") != 0;
    case VECENV_AVX512: /* exactly the file's compile flags: GCC may use VL forms on xmm16..31 */
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
#endif
    default: return 0;
    }
}

vecenv_kernel vecenv_kernel_best(void)
{
    if (vecenv_kernel_supported(VECENV_AVX512))
        return VECENV_AVX512;
    if (vecenv_kernel_supported(VECENV_AVX2))
        return VECENV_AVX2;
    return VECENV_SCALAR;
}

/* ---- the scalar kernel ---- */

static inline uint64_t xorshift64(uint64_t x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

/* One board (lane i) one step, in the mover-relative orientation; pick = the random 16-bit value u, or
 * -1 when moves[i] gives the pit. Mirrors kalah_sow step by step (docs/design.md §1.1). */
static inline __attribute__((always_inline)) void scalar_lane(vecenv_state *st, size_t i, int pick,
                                                               const uint8_t *moves, const vecenv_out *out,
                                                               const int m)
{
    const int L = 2 * m + 1, nc = 2 * m + 2;
    uint8_t R[KALAH_CELLS];
    for (int c = 0; c < nc; c++)
        R[c] = st->cell[ve_at(st, c, i)];
    const int south = st->side[i] == 0;

    unsigned legal = 0;
    int cnt = 0;
    for (int c = 0; c < m; c++)
        if (R[c]) {
            legal |= 1u << c;
            cnt++;
        }
    if (!cnt) { /* finished (pits swept): nothing moves */
        if (out) {
            if (out->move)
                out->move[i] = 255;
            if (out->extra_turn)
                out->extra_turn[i] = 0;
            if (out->captured)
                out->captured[i] = 0;
            if (out->ended)
                out->ended[i] = 0;
            if (out->store_south)
                out->store_south[i] = south ? R[m] : R[2 * m + 1];
            if (out->store_north)
                out->store_north[i] = south ? R[2 * m + 1] : R[m];
        }
        return;
    }
    int p;
    if (pick >= 0) {
        int k = (int)(((unsigned)pick * (unsigned)cnt) >> 16);
        unsigned l = legal;
        while (k--)
            l &= l - 1;
        p = __builtin_ctz(l);
    } else {
        p = moves[i];
    }

    int r = R[p];
    R[p] = 0;
    if (r >= L) { /* full laps: rare */
        const int q = r / L;
        r -= q * L;
        for (int c = 0; c < L; c++)
            R[c] = (uint8_t)(R[c] + q);
    }
    /* the r cells after p: p+1..min(p+r, 2m), then 0..p+r-L when it wraps */
    const int e = p + r;
    for (int c = p + 1; c <= e && c < L; c++)
        R[c]++;
    for (int c = 0; c <= e - L; c++)
        R[c]++;
    const int last = e < L ? e : e - L;

    int cap = 0;
    if (st->capture != KALAH_CAPTURE_NONE && last < m && R[last] == 1) {
        const int o = 2 * m - last;
        if (R[o]) {
            cap = R[o] + 1;
            R[o] = 0;
            R[last] = 0;
        } else if (st->capture == KALAH_CAPTURE_ALWAYS) {
            cap = 1;
            R[last] = 0;
        }
        R[m] = (uint8_t)(R[m] + cap);
    }

    const int extra = last == m;
    const uint16_t sows = (uint16_t)(st->sows[i] + 1);
    st->sows[i] = sows;
    int own = 0, opp = 0;
    for (int c = 0; c < m; c++) {
        own += R[c];
        opp += R[m + 1 + c];
    }
    int over = st->end == KALAH_END_EITHER_EMPTY ? (!own || !opp) : extra ? !own : !opp;
    if (st->max_sows && sows >= st->max_sows)
        over = 1;

    st->n_sows++;
    if (over) {
        R[m] = (uint8_t)(R[m] + own);
        R[2 * m + 1] = (uint8_t)(R[2 * m + 1] + opp);
        for (int c = 0; c < m; c++)
            R[c] = R[m + 1 + c] = 0;
        const int s = south ? R[m] : R[2 * m + 1], nn = south ? R[2 * m + 1] : R[m];
        st->n_games++;
        st->n_south += s > nn;
        st->n_north += nn > s;
    }
    if (out) {
        if (out->move)
            out->move[i] = (uint8_t)p;
        if (out->extra_turn)
            out->extra_turn[i] = (uint8_t)(extra && !over);
        if (out->captured)
            out->captured[i] = (uint8_t)cap;
        if (out->ended)
            out->ended[i] = (uint8_t)over;
        if (out->store_south)
            out->store_south[i] = south ? R[m] : R[2 * m + 1];
        if (out->store_north)
            out->store_north[i] = south ? R[2 * m + 1] : R[m];
    }
    int side = st->side[i];
    if (!extra) { /* the turn passes: the opponent's half comes first */
        for (int c = 0; c <= m; c++) {
            uint8_t t = R[c];
            R[c] = R[m + 1 + c];
            R[m + 1 + c] = t;
        }
        side ^= 1;
    }
    if (over && st->auto_reset) {
        for (int c = 0; c < nc; c++)
            R[c] = (c == m || c == 2 * m + 1) ? 0 : (uint8_t)st->seeds;
        side = 0;
        st->sows[i] = 0;
    }
    st->side[i] = (uint8_t)side;
    for (int c = 0; c < nc; c++)
        st->cell[ve_at(st, c, i)] = R[c];
}

static inline int scalar_finished(const vecenv_state *st, size_t i, const int m)
{
    int seeds = 0;
    for (int c = 0; c < m; c++)
        seeds += st->cell[ve_at(st, c, i)];
    return !seeds;
}

/* A Gymnasium step (steps 1) or none (0) of every board, group by group (vecenv.h, vecenv_gym_step): the
 * reference the SIMD kernels' Gymnasium step (ve_block_gym) and observation (ve_block_observe) match. */
static inline __attribute__((always_inline)) void scalar_gym(vecenv_state *st, const uint8_t *moves, long steps,
                                                              const int m)
{
    const size_t B = (size_t)st->batch;
    for (size_t g = 0; g < B / 8; g++) {
        uint8_t over[8] = {0}, pick[8] = {0};
        int8_t winner[8] = {0};
        for (size_t j = 0; j < 8; j++) {
            const size_t i = g * 8 + j;
            if (!steps || i >= st->active)
                continue;
            if (scalar_finished(st, i, m)) { /* next-step autoreset */
                for (int c = 0; c < 2 * m + 2; c++)
                    st->cell[ve_at(st, c, i)] = (c == m || c == 2 * m + 1) ? 0 : (uint8_t)st->seeds;
                st->side[i] = 0;
                st->sows[i] = 0;
                continue;
            }
            scalar_lane(st, i, -1, moves, NULL, m);
            if (scalar_finished(st, i, m)) {
                const int side = st->side[i];
                const int mine = st->cell[ve_at(st, m, i)];
                const int theirs = st->cell[ve_at(st, 2 * m + 1, i)];
                const int south = side ? theirs : mine, north = side ? mine : theirs;
                over[j] = 1;
                winner[j] = (int8_t)((south > north) - (north > south));
            }
        }
        if (st->gym->sample) {
            const uint64_t a = xorshift64(st->rng[g]), b = xorshift64(a);
            st->rng[g] = b;
            for (size_t j = 0; j < 8; j++) {
                const size_t i = g * 8 + j;
                unsigned legal = 0;
                for (int c = 0; c < m; c++)
                    legal |= (unsigned)(i < st->active && st->cell[ve_at(st, c, i)] != 0) << c;
                const unsigned u = (unsigned)((j & 1 ? b : a) >> (16 * (j >> 1))) & 0xFFFF;
                int k = (int)((u * (unsigned)__builtin_popcount(legal)) >> 16);
                while (k--)
                    legal &= legal - 1;
                pick[j] = legal ? (uint8_t)__builtin_ctz(legal) : 0;
            }
        }
        vecenv_gym_rows(st, g * 8, 8, over, winner, pick);
    }
}

/* One function per board size, so that every loop bound above is a constant. */
#define SCALAR_SIZE(M)                                                                                       \
    static void scalar_##M(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps)        \
    {                                                                                                        \
        const size_t groups = (size_t)st->batch / 8;                                                         \
        if (st->gym) {                                                                                       \
            scalar_gym(st, moves, steps, M);                                                                 \
            return;                                                                                          \
        }                                                                                                    \
        for (long s = 0; s < steps; s++)                                                                     \
            for (size_t g = 0; g < groups; g++) {                                                            \
                uint64_t a = 0, b = 0;                                                                       \
                if (!moves) {                                                                                \
                    a = xorshift64(st->rng[g]);                                                              \
                    b = xorshift64(a);                                                                       \
                    st->rng[g] = b;                                                                          \
                }                                                                                            \
                for (int j = 0; j < 8; j++) {                                                                \
                    int pick = moves ? -1 : (int)(((j & 1 ? b : a) >> (16 * (j >> 1))) & 0xFFFF);            \
                    scalar_lane(st, g * 8 + (size_t)j, pick, moves, out, M);                                 \
                }                                                                                            \
            }                                                                                                \
    }
SCALAR_SIZE(1)
SCALAR_SIZE(2)
SCALAR_SIZE(3)
SCALAR_SIZE(4)
SCALAR_SIZE(5)
SCALAR_SIZE(6)
SCALAR_SIZE(7)
#undef SCALAR_SIZE

void vecenv_kernel_scalar(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps)
{
    static void (*const by_size[])(vecenv_state *, const uint8_t *, const vecenv_out *, long) = {
        NULL, scalar_1, scalar_2, scalar_3, scalar_4, scalar_5, scalar_6, scalar_7};
    if (st->m >= 1 && st->m <= KALAH_MAX_PITS)
        by_size[st->m](st, moves, out, steps);
}

/* ---- lifetime ---- */

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

void vecenv_seed(vecenv *v, uint64_t seed)
{
    for (size_t g = 0; g < (size_t)v->st.batch / 8; g++) {
        uint64_t x = splitmix64(seed + g);
        v->st.rng[g] = x ? x : 0x9E3779B97F4A7C15ULL; /* xorshift's only fixed point is 0 */
    }
}

void vecenv_reset(vecenv *v)
{
    const size_t B = (size_t)v->st.batch;
    const int m = v->st.m;
    for (size_t i = 0; i < B; i += 64)
        for (int c = 0; c < 2 * m + 2; c++)
            memset(v->st.cell + ve_at(&v->st, c, i), (c == m || c == 2 * m + 1) ? 0 : v->st.seeds, 64);
    memset(v->st.side, 0, B);
    memset(v->st.sows, 0, B * sizeof *v->st.sows);
}

int vecenv_create(const kalah_rules *r, int batch, vecenv_kernel kernel, int auto_reset, uint64_t seed,
                  vecenv **out, char *err)
{
    *out = NULL;
    if (kalah_rules_check(r, err) != KALAH_OK)
        return KALAH_EINVAL;
    if (batch <= 0 || batch % VECENV_LANES || batch > VECENV_MAX_BATCH) {
        set_err(err, "batch=%d: must be a positive multiple of %d, at most %d", batch, VECENV_LANES,
                VECENV_MAX_BATCH);
        return KALAH_EINVAL;
    }
    if ((unsigned)kernel > VECENV_AVX512) {
        set_err(err, "unknown kernel %d", (int)kernel);
        return KALAH_EINVAL;
    }
    if (kernel == VECENV_AUTO)
        kernel = vecenv_kernel_best();
    if (!vecenv_kernel_supported(kernel)) {
        set_err(err, "kernel %s: this CPU does not support it", vecenv_kernel_name(kernel));
        return KALAH_EINVAL;
    }
    vecenv *v = calloc(1, sizeof *v);
    const size_t B = (size_t)batch, nc = 2 * (size_t)r->pits + 2;
    if (v) { /* every size below is a multiple of 64 bytes, as aligned_alloc wants */
        v->st.block = nc * 64; /* vecenv_state.cell: blocks of 64 boards */
        v->st.cell = aligned_alloc(64, B / 64 * v->st.block);
        v->st.side = aligned_alloc(64, B);
        v->st.sows = aligned_alloc(64, B * sizeof(uint16_t));
        v->st.rng = aligned_alloc(64, B); /* B/8 states of 8 bytes */
    }
    if (!v || !v->st.cell || !v->st.side || !v->st.sows || !v->st.rng) {
        vecenv_free(v);
        set_err(err, "out of memory for %d boards", batch);
        return KALAH_EINVAL;
    }
    v->rules = *r;
    v->kernel = kernel;
    switch (kernel) {
#ifdef VECENV_X86
    case VECENV_AVX2: v->fn = vecenv_kernel_avx2; break;
    case VECENV_AVX512: v->fn = vecenv_kernel_avx512; break;
#endif
    default: v->fn = vecenv_kernel_scalar; break;
    }
    v->st.m = r->pits;
    v->st.batch = batch;
    v->st.seeds = r->seeds;
    v->st.capture = (int)r->capture;
    v->st.end = (int)r->end;
    v->st.max_sows = r->max_sows;
    v->st.auto_reset = auto_reset != 0;
    vecenv_reset(v);
    vecenv_seed(v, seed);
    *out = v;
    return KALAH_OK;
}

void vecenv_free(vecenv *v)
{
    if (!v)
        return;
    free(v->st.cell);
    free(v->st.side);
    free(v->st.sows);
    free(v->st.rng);
    free(v);
}

int vecenv_batch(const vecenv *v) { return v->st.batch; }
vecenv_kernel vecenv_kernel_used(const vecenv *v) { return v->kernel; }
const kalah_rules *vecenv_rules(const vecenv *v) { return &v->rules; }

/* ---- boards ---- */

/* Plane of the absolute index a for a board whose mover is `side`: North to move puts North's half
 * (indices m+1..2m+1) first. */
static inline size_t plane_of(int m, int side, int a)
{
    return side ? (size_t)((a + m + 1) % (2 * m + 2)) : (size_t)a;
}

int vecenv_set(vecenv *v, int i, const kalah_pos *p)
{
    const int m = v->st.m, nc = 2 * m + 2;
    const size_t B = (size_t)v->st.batch;
    if (i < 0 || (size_t)i >= B || p->side > 1)
        return KALAH_EINVAL;
    int total = 0, mover = 0, pits = 0;
    for (int a = 0; a < KALAH_CELLS; a++) {
        if (a >= nc && p->cell[a])
            return KALAH_EINVAL;
        total += p->cell[a];
    }
    for (int k = 0; k < m; k++) {
        mover += p->cell[kalah_pit_index(&v->rules, p->side, k)];
        pits += p->cell[k] + p->cell[m + 1 + k];
    }
    if (total > 255 || (p->over && pits) || (!p->over && !mover))
        return KALAH_EINVAL;
    if (p->over && v->st.auto_reset)
        return KALAH_EOVER;
    for (int a = 0; a < nc; a++)
        v->st.cell[ve_at(&v->st, (int)plane_of(m, p->side, a), (size_t)i)] = p->cell[a];
    v->st.side[i] = p->side;
    v->st.sows[i] = p->sows;
    return KALAH_OK;
}

void vecenv_get(const vecenv *v, int i, kalah_pos *out)
{
    const int m = v->st.m, side = v->st.side[i];
    memset(out, 0, sizeof *out);
    int mover = 0;
    for (int a = 0; a < 2 * m + 2; a++)
        out->cell[a] = v->st.cell[ve_at(&v->st, (int)plane_of(m, side, a), (size_t)i)];
    for (int k = 0; k < m; k++)
        mover += v->st.cell[ve_at(&v->st, k, (size_t)i)];
    out->side = (uint8_t)side;
    out->over = mover == 0;
    out->sows = v->st.sows[i];
}

void vecenv_legal(const vecenv *v, uint8_t *out)
{
    const size_t B = (size_t)v->st.batch;
    memset(out, 0, B);
    for (size_t i0 = 0; i0 < B; i0 += 64)
        for (int c = 0; c < v->st.m; c++) {
            const uint8_t *plane = v->st.cell + ve_at(&v->st, c, i0);
            for (size_t i = 0; i < 64; i++)
                out[i0 + i] |= (uint8_t)((plane[i] != 0) << c);
        }
}

#ifdef __SSE2__
/* One SSE2 stage of the 16 x 16 byte transpose: row i gets the low halves of rows 2i and 2i+1
 * interleaved in units of the stage's width, row i+8 the high halves. */
#define VE_STAGE(r, t, W)                                                                                \
    for (int i = 0; i < 8; i++) {                                                                      \
        t[i] = _mm_unpacklo_##W(r[2 * i], r[2 * i + 1]);                                               \
        t[i + 8] = _mm_unpackhi_##W(r[2 * i], r[2 * i + 1]);                                           \
    }

/* Boards i0..i0+15: their d planes (in kalah_encode order) are transposed in registers, so every board's
 * row is written with whole-vector stores (the column-by-column loop below stores one float at a time).
 * Stages of width 8, 16, 32, 64 bits leave board bitrev4(k) in row k (checked by enumeration). The
 * floats are the same: the exact int -> float conversion times the same float scale. */
static void observe16(const vecenv_state *st, const int *plane, int d, size_t i0, float scale, float *out)
{
    static const int rev[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
    __m128i r[16], t[16];
    for (int j = 0; j < 16; j++) /* i0 is a multiple of 16: the 16 boards lie in one block */
        r[j] = j < d ? _mm_loadu_si128((const __m128i *)(st->cell + ve_at(st, plane[j], i0))) : _mm_setzero_si128();
    VE_STAGE(r, t, epi8)
    VE_STAGE(t, r, epi16)
    VE_STAGE(r, t, epi32)
    VE_STAGE(t, r, epi64)
    const __m128i zero = _mm_setzero_si128();
    const __m128 sc = _mm_set1_ps(scale);
    for (int k = 0; k < 16; k++) {
        const __m128i lo = _mm_unpacklo_epi8(r[k], zero), hi = _mm_unpackhi_epi8(r[k], zero);
        const __m128 f[4] = {_mm_mul_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, zero)), sc),
                             _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, zero)), sc),
                             _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, zero)), sc),
                             _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpackhi_epi16(hi, zero)), sc)};
        float *row = out + (i0 + (size_t)rev[k]) * (size_t)d;
        int j = 0;
        for (; j + 4 <= d; j += 4)
            _mm_storeu_ps(row + j, f[j / 4]);
        if (j < d) /* d = 2m + 2 is even: two floats left */
            _mm_storel_pi((__m64 *)(row + j), f[j / 4]);
    }
}
#undef VE_STAGE
#endif

void vecenv_observe(const vecenv *v, float *out)
{
    const int m = v->st.m, d = 2 * m + 2;
    const size_t B = (size_t)v->st.batch;
    const float scale = 1.0f / (float)v->st.seeds; /* as kalah_encode: count * (1/seeds) */
#ifdef __SSE2__
    int plane[2 * KALAH_MAX_PITS + 2];
    for (int j = 0; j < d; j++) /* kalah_encode order: own pits, opponent's pits, own store, opponent's */
        plane[j] = j < m ? j : j < 2 * m ? j + 1 : j == 2 * m ? m : 2 * m + 1;
    for (size_t i0 = 0; i0 < B; i0 += 16) /* B is a multiple of 64 */
        observe16(&v->st, plane, d, i0, scale, out);
#else
    /* Without SSE2: tiles of VECENV_LANES boards, whose rows (at most 64 x 16 floats) stay in L1 while
     * every plane writes its column, instead of each plane striding over the whole output. */
    for (size_t i0 = 0; i0 < B; i0 += VECENV_LANES) {
        float *tile = out + i0 * (size_t)d;
        for (int j = 0; j < d; j++) {
            /* kalah_encode order: own pits, opponent's pits, own store, opponent's store */
            const int c = j < m ? j : j < 2 * m ? j + 1 : j == 2 * m ? m : 2 * m + 1;
            const uint8_t *plane = v->st.cell + ve_at(&v->st, c, i0);
            for (size_t i = 0; i < VECENV_LANES; i++)
                tile[i * (size_t)d + (size_t)j] = plane[i] * scale;
        }
    }
#endif
}

/* ---- stepping ---- */

int vecenv_step(vecenv *v, const uint8_t *moves, const vecenv_out *out, int *bad)
{
    const size_t B = (size_t)v->st.batch;
    const int m = v->st.m;
    for (size_t i = 0; i < B; i++) {
        if (moves[i] < m && v->st.cell[ve_at(&v->st, moves[i], i)])
            continue;
        int mover = 0;
        for (int k = 0; k < m; k++)
            mover += v->st.cell[ve_at(&v->st, k, i)];
        if (mover) {
            if (bad)
                *bad = (int)i;
            return KALAH_EILLEGAL;
        }
    }
    v->fn(&v->st, moves, out, 1);
    return KALAH_OK;
}

void vecenv_step_random(vecenv *v, const vecenv_out *out) { v->fn(&v->st, NULL, out, 1); }

void vecenv_run_random(vecenv *v, long steps)
{
    if (steps > 0)
        v->fn(&v->st, NULL, NULL, steps);
}

void vecenv_stats_get(const vecenv *v, vecenv_stats *out)
{
    out->sows = v->st.n_sows;
    out->games = v->st.n_games;
    out->south_wins = v->st.n_south;
    out->north_wins = v->st.n_north;
    out->draws = v->st.n_games - v->st.n_south - v->st.n_north;
}

void vecenv_stats_clear(vecenv *v) { v->st.n_sows = v->st.n_games = v->st.n_south = v->st.n_north = 0; }
