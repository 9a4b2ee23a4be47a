/* vecenv_impl.h — private to env/vecenv*.c: the state the kernels share, and the SIMD kernel written once
 * against a small vector/mask vocabulary that vecenv_avx2.c and vecenv_avx512.c define before including
 * this file with VECENV_TEMPLATE set. Public contract: env/vecenv.h. */
#ifndef SOWZERO_VECENV_IMPL_H
#define SOWZERO_VECENV_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "env/kalah.h"
#include "env/vecenv.h"

#if defined(__x86_64__) || defined(__i386__)
#define VECENV_X86 1
#endif

/* Everything a kernel reads and writes. Planes are 64-byte aligned, batch a multiple of 64. */
typedef struct {
    int m;             /* pits */
    int batch;         /* B */
    int seeds;         /* start seeds per pit (the reset position) */
    int capture;       /* kalah_capture */
    int end;           /* kalah_end */
    int max_sows;      /* 0 = none */
    int auto_reset;
    uint8_t *cell;     /* the cells, mover-relative orientation (vecenv.h), blocked: the boards in blocks
                        * of 64, each block's 2m+2 planes of 64 bytes (cell c of its boards) one after the
                        * other (ve_at). A kernel's block of boards then lies in one run of (2m+2) * 64
                        * bytes, its planes at constant offsets from one pointer. Planes of B bytes each
                        * (the layout before) put 14 streams 4 KB apart through the cache on every step,
                        * and their 14 addresses did not fit in x86-64's registers beside the sowing: the
                        * AVX2 kernel spilled and reloaded them in every block. */
    size_t block;      /* bytes per block of 64 boards: (2m+2) * 64 */
    uint8_t *side;     /* B: absolute side to move, 0 South, 1 North */
    uint16_t *sows;    /* B: sowings since the start */
    uint64_t *rng;     /* B/8 xorshift64 states */
    uint64_t n_sows, n_games, n_south, n_north; /* statistics */
    /* Set for one kernel call by vecenv_gym_step / vecenv_gym_observe (vecenv_gym.c), else NULL: */
    const vecenv_gym_out *gym;
    size_t active;     /* boards 0..active-1 take part in a Gymnasium step */
} vecenv_state;

/* The offset in st->cell of cell c (0..2m+1) of board i. */
static inline size_t ve_at(const vecenv_state *st, int c, size_t i)
{
    return i / 64 * st->block + (size_t)c * 64 + i % 64;
}

/* A kernel: `steps` steps of every board. moves == NULL: random moves (steps >= 0, out may be given only
 * with steps == 1); else moves[B] were checked legal for every unfinished board and steps == 1. */
typedef void (*vecenv_kernel_fn)(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps);

void vecenv_kernel_scalar(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps);
#ifdef VECENV_X86
void vecenv_kernel_avx2(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps);
void vecenv_kernel_avx512(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps);
struct vecenv {
    kalah_rules rules;
    vecenv_kernel kernel;
    vecenv_kernel_fn fn;
    vecenv_state st;
};

/* vecenv_gym_moves (wide != 0: actions are int64) and vecenv_gym_moves8 (bytes) for the AVX-512 kernel
 * (vecenv_avx512.c). */
int vecenv_gym_moves_avx512(const vecenv_state *st, const void *actions, int wide, size_t n, uint8_t *moves,
                            int *bad);
/* The same for the AVX2 kernel (vecenv_avx2.c). */
int vecenv_gym_moves_avx2(const vecenv_state *st, const void *actions, int wide, size_t n, uint8_t *moves,
                          int *bad);
#endif

/* The Gymnasium outputs of boards off..off+w-1 (w a multiple of 8) from their planes in memory, after a
 * step (or none): over[j] != 0 where board off+j's game ended in this step, winner[j] its result (+1 South,
 * -1 North, 0 draw; read only where over), pick[j] its sample move (read only when st->gym->sample).
 * The portable emitter of the scalar kernel (vecenv_gym.c); vecenv_avx2.c and vecenv_avx512.c write their
 * rows from registers. */
void vecenv_gym_rows(const vecenv_state *st, size_t off, size_t w, const uint8_t *over, const int8_t *winner,
                     const uint8_t *pick);

#endif /* SOWZERO_VECENV_IMPL_H */

#ifdef VECENV_TEMPLATE
/* ---------------------------------------------------------------------------------------------------
 * The SIMD kernel. The including file defines: W (lanes per vector), V (byte vector), K (lane mask) and
 *   v_ld v_st (aligned) v_ldu v_stu (caller buffers) v_set1 v_tab(16-byte table broadcast) v_add v_sub
 *   v_and v_or v_xor v_min v_subs(unsigned saturating) v_sel(k,a,b)=k?b:a v_clr(a,k)=k?0:a v_inc(a,k)
 *   v_dec(a,k) v_subk(a,k,b) v_shuf(pshufb)
 *   k_nz k_z k_eq k_gt(unsigned) k_bit(a,bits)=(a&bits)!=0 k_and k_or k_andn(a,b)=~a&b k_any k_count
 *   v_xs(xorshift64 per 64-bit lane) v_pick(a,b,cnt) (the random pick of vecenv.h)
 *   sows_inc(uint16_t*, live, max) → lanes that reached max (none when max == 0), sows_clear(uint16_t*, k).
 * Per step and block of W boards (one byte lane each, mover-relative cells R[0..2m+1]):
 *   choose the pit (one-hot masks), take its n seeds, split n = q*L + r (L = 2m+1, a rarely iterated
 *   loop), add q to every cycle cell and 1 to the r cells after the origin — those form one 16-bit set
 *   per lane, looked up with pshufb from the origin and the end (cells p+1..min(p+r, 2m) and, wrapped,
 *   0..p+r-L), so each cell costs one bit test and one masked add — then capture, extra turn, end and
 *   sweep as masked operations, a masked swap of the halves where the turn passes, and auto-reset.
 * ------------------------------------------------------------------------------------------------- */

/* Bit c of the 16-bit set = cell c; lo/hi = its two bytes. GE[k] = cells >= k, LT[k] = cells < k. */
static const uint8_t ve_ge_lo[16] = {0xFF, 0xFE, 0xFC, 0xF8, 0xF0, 0xE0, 0xC0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t ve_ge_hi[16] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                     0xFF, 0xFE, 0xFC, 0xF8, 0xF0, 0xE0, 0xC0, 0x80};
static const uint8_t ve_lt_lo[16] = {0, 1, 3, 7, 15, 31, 63, 127, 255, 255, 255, 255, 255, 255, 255, 255};
static const uint8_t ve_lt_hi[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 7, 15, 31, 63, 127};

static inline __attribute__((always_inline)) void ve_block(vecenv_state *st, size_t off, const uint8_t *moves,
                                                            const vecenv_out *out, long steps, const int M,
                                                            const int RANDOM)
{
    const int L = 2 * M + 1, NC = 2 * M + 2;
    uint8_t *cell = st->cell + ve_at(st, 0, off); /* plane c at cell + 64 c */
    uint16_t *sows = st->sows + off;
    const int capture = st->capture, either = st->end == KALAH_END_EITHER_EMPTY, max_sows = st->max_sows;
    const int auto_reset = st->auto_reset;
    const V zero = v_set1(0), one = v_set1(1), Lv = v_set1(L), Lm1 = v_set1(L - 1), seeds = v_set1(st->seeds);
    const V ge_lo = v_tab(ve_ge_lo), lt_lo = v_tab(ve_lt_lo), ge_hi = v_tab(ve_ge_hi), lt_hi = v_tab(ve_lt_hi);

    V R[16];
#pragma GCC unroll 16
    for (int c = 0; c < NC; c++)
        R[c] = v_ld(cell + (size_t)c * 64);
    V side = v_ld(st->side + off);
    V rs = RANDOM ? v_ld(st->rng + off / 8) : zero;
    uint64_t n_sows = 0, n_games = 0, n_south = 0, n_north = 0;

    for (long s = 0; s < steps; s++) {
        /* 1. the move: one-hot masks chosen[c] over the mover's pits */
        K legal[KALAH_MAX_PITS], chosen[KALAH_MAX_PITS];
        V cnt = zero;
#pragma GCC unroll 8
        for (int c = 0; c < M; c++) {
            legal[c] = k_nz(R[c]);
            cnt = v_inc(cnt, legal[c]);
        }
        const K live = k_nz(cnt); /* unfinished boards: a finished one has swept (empty) pits */
        if (RANDOM) {
            V a = v_xs(rs), b = v_xs(a);
            rs = b;
            V j = v_pick(a, b, cnt); /* the j-th legal pit, j < cnt */
#pragma GCC unroll 8
            for (int c = 0; c < M; c++) {
                chosen[c] = k_and(legal[c], k_z(j));
                j = v_dec(j, legal[c]);
            }
        } else {
            V mv = v_ldu(moves + off);
#pragma GCC unroll 8
            for (int c = 0; c < M; c++)
                chosen[c] = k_and(legal[c], k_eq(mv, v_set1(c)));
        }
        /* 2. take the seeds; p1 = origin + 1 (1 on finished boards, which sow nothing) */
        V n = zero, p1 = one;
#pragma GCC unroll 8
        for (int c = 0; c < M; c++) {
            n = v_sel(chosen[c], n, R[c]);
            p1 = v_sel(chosen[c], p1, v_set1(c + 1));
            R[c] = v_clr(R[c], chosen[c]);
        }
        /* 3. n = q*L + r; full laps are rare, so the loop usually runs zero times */
        V q = zero, r = n;
        K big = k_gt(r, Lm1);
        const int laps = k_any(big);
        while (k_any(big)) {
            q = v_inc(q, big);
            r = v_subk(r, big, Lv);
            big = k_gt(r, Lm1);
        }
        if (laps) {
#pragma GCC unroll 16
            for (int c = 0; c < L; c++)
                R[c] = v_add(R[c], q);
        }
        /* 4. the remainder: cells p+1..min(p+r, 2m), and 0..p+r-L when it wraps */
        const V e1 = v_add(p1, r), top = v_min(e1, Lv), wrap = v_subs(e1, Lv);
        const V lo = v_or(v_and(v_shuf(ge_lo, p1), v_shuf(lt_lo, top)), v_shuf(lt_lo, wrap));
        const V hi = M >= 4 ? v_or(v_and(v_shuf(ge_hi, p1), v_shuf(lt_hi, top)), v_shuf(lt_hi, wrap)) : zero;
#pragma GCC unroll 16
        for (int c = 0; c < L; c++)
            R[c] = v_inc(R[c], k_bit(c < 8 ? lo : hi, v_set1(1 << (c & 7))));
        const V e = v_sub(e1, one);
        const V last = v_min(e, v_sub(e, Lv)); /* (p + r) mod L: e < 2L, and e - L wraps high when e < L */

        /* 5. capture: the last seed made an own pit hold exactly 1 */
        V cap = zero;
        if (capture != KALAH_CAPTURE_NONE) {
#pragma GCC unroll 8
            for (int c = 0; c < M; c++) {
                const int o = 2 * M - c;
                K kc = k_and(k_eq(last, v_set1(c)), k_eq(R[c], one));
                if (capture == KALAH_CAPTURE_OPPOSITE)
                    kc = k_and(kc, k_nz(R[o]));
                cap = v_sel(kc, cap, v_add(R[o], one));
                R[o] = v_clr(R[o], kc);
                R[c] = v_clr(R[c], kc);
            }
            R[M] = v_add(R[M], cap);
        }

        /* 6. extra turn, end, sowing limit */
        const K extra = k_eq(last, v_set1(M));
        V own = R[0], opp = R[M + 1];
#pragma GCC unroll 8
        for (int c = 1; c < M; c++) {
            own = v_add(own, R[c]);
            opp = v_add(opp, R[M + 1 + c]);
        }
        K over = either ? k_or(k_z(own), k_z(opp)) : k_or(k_and(extra, k_z(own)), k_andn(extra, k_z(opp)));
        over = k_and(k_or(over, sows_inc(sows, live, max_sows)), live);
        const K flip = k_andn(extra, live);

        /* 7. statistics from the swept stores (the mover's sweep: own pits to own store) */
        const V fown = v_add(R[M], own), fopp = v_add(R[2 * M + 1], opp);
        const K south = k_z(side), own_gt = k_gt(fown, fopp), opp_gt = k_gt(fopp, fown);
        const K sw = k_or(k_and(south, own_gt), k_andn(south, opp_gt));
        const K nw = k_or(k_and(south, opp_gt), k_andn(south, own_gt));
        n_sows += (uint64_t)k_count(live);
        n_games += (uint64_t)k_count(over);
        n_south += (uint64_t)k_count(k_and(over, sw));
        n_north += (uint64_t)k_count(k_and(over, nw));

        if (out || !auto_reset) {
            const V ms = v_sel(over, R[M], fown), os = v_sel(over, R[2 * M + 1], fopp);
            if (out) {
                if (out->move)
                    v_stu(out->move + off, v_sel(live, v_set1(255), v_sub(p1, one)));
                if (out->extra_turn)
                    v_stu(out->extra_turn + off, v_sel(k_andn(over, k_and(extra, live)), zero, one));
                if (out->captured)
                    v_stu(out->captured + off, cap);
                if (out->ended)
                    v_stu(out->ended + off, v_sel(over, zero, one));
                if (out->store_south)
                    v_stu(out->store_south + off, v_sel(south, os, ms));
                if (out->store_north)
                    v_stu(out->store_north + off, v_sel(south, ms, os));
            }
            if (!auto_reset) {
                R[M] = ms;
                R[2 * M + 1] = os;
#pragma GCC unroll 8
                for (int c = 0; c < M; c++) {
                    R[c] = v_clr(R[c], over);
                    R[M + 1 + c] = v_clr(R[M + 1 + c], over);
                }
            }
        }

        /* 8. the turn passes: swap the halves (mover's pits+store <-> opponent's) */
#pragma GCC unroll 8
        for (int c = 0; c <= M; c++) {
            const V a = R[c], b = R[M + 1 + c];
            R[c] = v_sel(flip, a, b);
            R[M + 1 + c] = v_sel(flip, b, a);
        }
        side = v_xor(side, v_sel(flip, zero, one));

        /* 9. auto-reset: the start position is the same in either orientation */
        if (auto_reset) {
#pragma GCC unroll 16
            for (int c = 0; c < NC; c++)
                R[c] = v_sel(over, R[c], (c == M || c == 2 * M + 1) ? zero : seeds);
            side = v_clr(side, over);
            sows_clear(sows, over);
        }
    }

#pragma GCC unroll 16
    for (int c = 0; c < NC; c++)
        v_st(cell + (size_t)c * 64, R[c]);
    v_st(st->side + off, side);
    if (RANDOM)
        v_st(st->rng + off / 8, rs);
    st->n_sows += n_sows;
    st->n_games += n_games;
    st->n_south += n_south;
    st->n_north += n_north;
}

/* Byte constants as memory operands for ve_block_gym: there each v_set1 of a small constant was
 * rematerialised in every block (mov, vmovd, vpbroadcastb: three instructions where a load folds into
 * the compare that uses it). Rows 0..15 hold k in every byte, rows 16..23 1 << (k - 16). */
#define VE_R4(x) x, x, x, x
#define VE_R16(x) VE_R4(x), VE_R4(x), VE_R4(x), VE_R4(x)
#define VE_R64(x) {VE_R16(x), VE_R16(x), VE_R16(x), VE_R16(x)}
static const uint8_t ve_const[24][64] __attribute__((aligned(64))) = {
    VE_R64(0), VE_R64(1), VE_R64(2),  VE_R64(3),  VE_R64(4),  VE_R64(5),  VE_R64(6),  VE_R64(7),
    VE_R64(8), VE_R64(9), VE_R64(10), VE_R64(11), VE_R64(12), VE_R64(13), VE_R64(14), VE_R64(15),
    VE_R64(1), VE_R64(2), VE_R64(4),  VE_R64(8),  VE_R64(16), VE_R64(32), VE_R64(64), VE_R64(128)};
#undef VE_R64
#undef VE_R16
#undef VE_R4
/* k in every byte / 1 << (k & 7), from the table `kt` (ve_const passed through an empty asm, so that the
 * compiler cannot see the values and turn the loads back into broadcasts) */
#define v_num(k) v_ld(kt[k])
#define v_bit(k) v_ld(kt[16 + ((k) & 7)])

/* Pass 2 of ve_block_gym: sow, capture, sum, pit c with its opposite pit; LAPS: add q to every cell too. */
static inline __attribute__((always_inline)) void ve_sow_pass(uint8_t *cell, V p1, V q, V lo, V hi, V last, V *cap_out,
                                                               V *own_out, V *opp_out, const uint8_t (*kt)[64],
                                                               const int M, const int capture, const int LAPS)
{
    const V one = v_num(1);
    V cap = v_num(0), own = v_num(0), opp = v_num(0);
#pragma GCC unroll 8
    for (int c = 0; c < M; c++) {
        const int o = 2 * M - c;
        V rc = v_clr(v_ld(cell + (size_t)c * 64), k_eq(p1, v_num(c + 1)));
        V ro = v_ld(cell + (size_t)o * 64);
        if (LAPS) {
            rc = v_add(rc, q);
            ro = v_add(ro, q);
        }
        rc = v_inc(rc, k_bit(c < 8 ? lo : hi, v_bit(c)));
        ro = v_inc(ro, k_bit(o < 8 ? lo : hi, v_bit(o)));
        if (capture != KALAH_CAPTURE_NONE) {
            K kc = k_and(k_eq(last, v_num(c)), k_eq(rc, one));
            if (capture == KALAH_CAPTURE_OPPOSITE)
                kc = k_andn(k_z(ro), kc);
            cap = v_sel(kc, cap, v_add(ro, one));
            ro = v_clr(ro, kc);
            rc = v_clr(rc, kc);
        }
        own = v_add(own, rc);
        opp = v_add(opp, ro);
        v_st(cell + (size_t)c * 64, rc);
        v_st(cell + (size_t)o * 64, ro);
    }
    *cap_out = cap;
    *own_out = own;
    *opp_out = opp;
}

/* One Gymnasium step (vecenv_gym_step, moves given, no auto-reset) of the W boards at off, the same
 * bytes as the scalar kernel's (scalar_gym, vecenv.c; tests/test_vecenv_gym.c holds every kernel to it)
 * but in passes over the block's planes in memory (L1: one run of (2m+2) * 64 bytes) instead of all 2m+2
 * planes in registers: with 14 planes live through the sowing, x86-64's 16 vector registers spilled a
 * quarter of the block's instructions (cachegrind, AVX2). Pass 1 reads the mover's pits (the move); pass 2
 * sows, captures and sums pit by pit with its opposite pit (capture's pairs); pass 3 sweeps, swaps the
 * halves where the turn passes and restarts finished boards pair by pair (the swap's pairs), counting
 * the next position's legal pits for the sample draw on the way. */
static inline __attribute__((always_inline)) void ve_block_gym(vecenv_state *st, size_t off, const uint8_t *moves,
                                                                const int M, const int FULL, const int CAPTURE)
{
    const int L = 2 * M + 1, NC = 2 * M + 2;
    uint8_t *cell = st->cell + ve_at(st, 0, off); /* plane c at cell + 64 c */
    uint16_t *sows = st->sows + off;
    /* CAPTURE: the capture rule as a constant (the code of full blocks), or -1: st->capture's */
    const int capture = CAPTURE >= 0 ? CAPTURE : st->capture, either = st->end == KALAH_END_EITHER_EMPTY;
    const int max_sows = st->max_sows;
    const uint8_t(*kt)[64] = ve_const;
#if defined(__GNUC__)
    __asm__("" : "+r"(kt));
#endif
    const V zero = v_set1(0), one = v_set1(1);
#define VE_P(c) (cell + (size_t)(c) * 64)
    /* FULL: every board of the block takes part (all blocks but the one where `active` ends); else the
     * lanes past it count as having no legal pit (`idle`) and stand still */
    const K ones = k_z(zero);
    const K idle = FULL ? k_none() : k_andn(k_first(st->active > off ? st->active - off : 0), ones);

    /* 1. the move: the chosen pit's seeds n and origin + 1 (0 where nothing sows: then no cell is sown
     * and `last` is out of range, so nothing captures or takes an extra turn). Legal pits as the mask of
     * empty or idle ones (z), whose complement costs nothing in the operations that use it. */
    const V mv = v_ldu(moves + off);
    V cnt = v_num(M), n = zero, p1 = zero;
#pragma GCC unroll 8
    for (int c = 0; c < M; c++) {
        const V rc = v_ld(VE_P(c));
        const K z = FULL ? k_z(rc) : k_or(k_z(rc), idle);
        const K chosen = k_andn(z, k_eq(mv, v_num(c)));
        cnt = v_dec(cnt, z);
        n = v_sel(chosen, n, rc);
        p1 = v_sel(chosen, p1, v_num(c + 1));
    }
    const K live = k_nz(cnt); /* unfinished boards taking part */
    const K fin = FULL ? k_z(cnt) : k_andn(k_or(live, idle), ones); /* finished, taking part: they
                                                                     * restart in pass 3 */

    /* n = q*L + r; full laps are rare */
    V q = zero, r = n;
    K big = k_gt(r, v_num(L - 1));
    const int laps = k_any(big);
    while (k_any(big)) {
        q = v_inc(q, big);
        r = v_subk(r, big, v_num(L));
        big = k_gt(r, v_num(L - 1));
    }
    const V e1 = v_add(p1, r), Lv = v_num(L), top = v_min(e1, Lv), wrap = v_subs(e1, Lv);
    const V lo = v_or(v_and(v_shuf(v_tab(ve_ge_lo), p1), v_shuf(v_tab(ve_lt_lo), top)), v_shuf(v_tab(ve_lt_lo), wrap));
    const V hi = M >= 4 ? v_or(v_and(v_shuf(v_tab(ve_ge_hi), p1), v_shuf(v_tab(ve_lt_hi), top)),
                               v_shuf(v_tab(ve_lt_hi), wrap))
                        : zero;
    const V e = v_sub(e1, one);
    const V last = v_min(e, v_sub(e, Lv)); /* (p + r) mod L */

    /* 2. sow (the chosen pit emptied first), capture, sum: pit c with its opposite o = 2m - c; a copy of
     * the pass without the laps (the common case), so that neither tests per pit */
    V cap = zero, own = zero, opp = zero;
    if (laps)
        ve_sow_pass(cell, p1, q, lo, hi, last, &cap, &own, &opp, kt, M, capture, 1);
    else
        ve_sow_pass(cell, p1, q, lo, hi, last, &cap, &own, &opp, kt, M, capture, 0);
    V mine = v_ld(VE_P(M)), theirs = v_ld(VE_P(2 * M + 1));
    if (laps)
        mine = v_add(mine, q);
    mine = v_add(v_inc(mine, k_bit(M < 8 ? lo : hi, v_bit(M))), cap);

    /* extra turn, end, sowing limit, results (ve_block's steps 6 and 7) */
    const K extra = k_eq(last, v_num(M));
    K over = either ? k_or(k_z(own), k_z(opp)) : k_or(k_and(extra, k_z(own)), k_andn(extra, k_z(opp)));
    over = k_and(k_or(over, sows_inc(sows, live, max_sows)), live);
    const K flip = k_andn(extra, live);
    const V fown = v_add(mine, own), fopp = v_add(theirs, opp);
    V side = v_ld(st->side + off);
    const K south = k_z(side), own_gt = k_gt(fown, fopp), opp_gt = k_gt(fopp, fown);
    const K sw = k_and(over, k_or(k_and(south, own_gt), k_andn(south, opp_gt)));
    const K nw = k_and(over, k_or(k_and(south, opp_gt), k_andn(south, own_gt)));
    st->n_sows += (uint64_t)k_count(live);
    st->n_games += (uint64_t)k_count(over);
    st->n_south += (uint64_t)k_count(sw);
    st->n_north += (uint64_t)k_count(nw);
    mine = v_sel(over, mine, fown); /* the sweep: each side's pits into its store */
    theirs = v_sel(over, theirs, fopp);

    /* 3. sweep, swap the halves where the turn passes, restart the boards that had finished: cell c with
     * cell m+1+c; the mover's pits of the result give the sample draw's legal counts */
    const V seeds = v_set1(st->seeds);
    V lcnt = v_num(M);
    K zs[KALAH_MAX_PITS]; /* empty (or idle) pits of the result */
#pragma GCC unroll 8
    for (int c = 0; c <= M; c++) {
        const V a = c < M ? v_clr(v_ld(VE_P(c)), over) : mine;
        const V b = c < M ? v_clr(v_ld(VE_P(M + 1 + c)), over) : theirs;
        const V start = c < M ? seeds : zero;
        const V na = v_sel(fin, v_sel(flip, a, b), start), nb = v_sel(fin, v_sel(flip, b, a), start);
        v_st(VE_P(c), na);
        v_st(VE_P(M + 1 + c), nb);
        if (c < M) {
            zs[c] = FULL ? k_z(na) : k_or(k_z(na), idle);
            lcnt = v_dec(lcnt, zs[c]);
        }
    }
    side = v_clr(v_xor(side, v_sel(flip, zero, one)), fin);
    v_st(st->side + off, side);
    sows_clear(sows, fin);

    /* the sample move: the stepper's random pick (vecenv.h) among the legal pits after the step */
    V pick = zero;
    if (st->gym->sample) {
        V rs = v_ld(st->rng + off / 8);
        const V a = v_xs(rs), b = v_xs(a);
        v_st(st->rng + off / 8, b);
        /* the j-th legal pit: pit c when it is legal and j + (empty pits before c) == c */
        V t = v_pick(a, b, lcnt);
#pragma GCC unroll 8
        for (int c = 0; c < M; c++) {
            pick = v_sel(k_andn(zs[c], k_eq(t, v_num(c))), pick, v_num(c));
            t = v_inc(t, zs[c]);
        }
    }
    V R[16];
#pragma GCC unroll 16
    for (int c = 0; c < NC; c++)
        R[c] = v_ld(VE_P(c));
    const V winner = v_sub(v_sel(sw, zero, one), v_sel(nw, zero, one));
    ve_emit(st, off, cell, R, side, v_sel(over, zero, one), winner, pick, M);
#undef VE_P
}

/* vecenv_gym_observe (no step) for the W boards at off: the rows of the boards as they are, with no end
 * and no result, and a fresh sample draw among the legal pits of the boards taking part (the lanes past
 * st->active count as having none), as ve_block_gym's tail draws it after a step. */
static inline __attribute__((always_inline)) void ve_block_observe(vecenv_state *st, size_t off, const int M)
{
    const int NC = 2 * M + 2;
    const uint8_t *cell = st->cell + ve_at(st, 0, off); /* plane c at cell + 64 c */
    const V zero = v_set1(0);
    const K act = k_first(st->active > off ? st->active - off : 0);
    V R[16];
#pragma GCC unroll 16
    for (int c = 0; c < NC; c++)
        R[c] = v_ld(cell + (size_t)c * 64);
    V pick = zero;
    if (st->gym->sample) {
        V cnt = zero;
        K lg[KALAH_MAX_PITS];
#pragma GCC unroll 8
        for (int c = 0; c < M; c++) {
            lg[c] = k_and(k_nz(R[c]), act);
            cnt = v_inc(cnt, lg[c]);
        }
        const V a = v_xs(v_ld(st->rng + off / 8)), b = v_xs(a);
        v_st(st->rng + off / 8, b);
        V j = v_pick(a, b, cnt); /* the j-th legal pit, j < cnt */
#pragma GCC unroll 8
        for (int c = 0; c < M; c++) {
            pick = v_sel(k_and(lg[c], k_z(j)), pick, v_set1(c));
            j = v_dec(j, lg[c]);
        }
    }
    ve_emit(st, off, cell, R, v_ld(st->side + off), zero, zero, pick, M);
}

/* One non-inlined function per board size and move source, each with the size folded in. */
#define VE_SIZE(M)                                                                                           \
    static void ve_random_##M(vecenv_state *st, const vecenv_out *out, long steps)                           \
    {                                                                                                        \
        for (size_t off = 0; off < (size_t)st->batch; off += W)                                              \
            ve_block(st, off, NULL, out, steps, M, 1);                                                       \
    }                                                                                                        \
    static void ve_moves_##M(vecenv_state *st, const uint8_t *moves, const vecenv_out *out)                  \
    {                                                                                                        \
        for (size_t off = 0; off < (size_t)st->batch; off += W)                                              \
            ve_block(st, off, moves, out, 1, M, 0);                                                          \
    }                                                                                                        \
    /* a Gymnasium step is one step (ve_block_gym) or none (vecenv_gym_observe: the rows alone); separate  \
     * loops for the variants, as in one GCC hoisted the planes' loads above the branch and spilled them */ \
    static void ve_gym_##M(vecenv_state *st, const uint8_t *moves, long steps)                               \
    {                                                                                                        \
        if (steps == 1) {                                                                                    \
            const size_t full = st->active < (size_t)st->batch ? st->active / W * W : (size_t)st->batch;   \
            /* every board takes part; the capture rule as a constant */                                     \
            if (st->capture == KALAH_CAPTURE_OPPOSITE)                                                       \
                for (size_t off = 0; off < full; off += W)                                                   \
                    ve_block_gym(st, off, moves, M, 1, KALAH_CAPTURE_OPPOSITE);                              \
            else if (st->capture == KALAH_CAPTURE_ALWAYS)                                                    \
                for (size_t off = 0; off < full; off += W)                                                   \
                    ve_block_gym(st, off, moves, M, 1, KALAH_CAPTURE_ALWAYS);                                \
            else                                                                                             \
                for (size_t off = 0; off < full; off += W)                                                   \
                    ve_block_gym(st, off, moves, M, 1, KALAH_CAPTURE_NONE);                                  \
            for (size_t off = full; off < (size_t)st->batch; off += W)                                       \
                ve_block_gym(st, off, moves, M, 0, -1);                                                      \
        } else                                                                                               \
            for (size_t off = 0; off < (size_t)st->batch; off += W)                                          \
                ve_block_observe(st, off, M);                                                                \
    }
VE_SIZE(1)
VE_SIZE(2)
VE_SIZE(3)
VE_SIZE(4)
VE_SIZE(5)
VE_SIZE(6)
VE_SIZE(7)
#undef VE_SIZE

static void ve_dispatch(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps)
{
#define VE_CASE(M)                                                                                           \
    case M:                                                                                                  \
        if (st->gym)                                                                                         \
            ve_gym_##M(st, moves, steps);                                                                    \
        else if (moves)                                                                                      \
            ve_moves_##M(st, moves, out);                                                                    \
        else                                                                                                 \
            ve_random_##M(st, out, steps);                                                                   \
        break;
    switch (st->m) {
        VE_CASE(1)
        VE_CASE(2)
        VE_CASE(3)
        VE_CASE(4)
        VE_CASE(5)
        VE_CASE(6)
        VE_CASE(7)
    default: break;
    }
#undef VE_CASE
}
#endif /* VECENV_TEMPLATE */
