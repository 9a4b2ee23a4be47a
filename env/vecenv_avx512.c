/* vecenv_avx512.c — the vecenv kernel for AVX-512BW: 64 boards per instruction, lane masks in k registers.
 * Compiled with -mavx512f -mavx512bw -mavx512vl (env/CMakeLists.txt); vecenv.c calls it only when the CPU
 * has all three. The kernel itself is the template in vecenv_impl.h; this file supplies its vocabulary. */
#include "env/vecenv_impl.h"

#if defined(VECENV_X86) && defined(__AVX512BW__)
#include <immintrin.h>
#include <string.h>

#define W 64
typedef __m512i V;
typedef __mmask64 K;

#define VE_INL static inline __attribute__((always_inline))
VE_INL V v_ld(const void *p) { return _mm512_load_si512(p); }
VE_INL void v_st(void *p, V x) { _mm512_store_si512(p, x); }
VE_INL V v_ldu(const void *p) { return _mm512_loadu_si512(p); }
VE_INL void v_stu(void *p, V x) { _mm512_storeu_si512(p, x); }
VE_INL V v_set1(int b) { return _mm512_set1_epi8((char)b); }
VE_INL V v_tab(const uint8_t *t) { return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t)); }
VE_INL V v_add(V a, V b) { return _mm512_add_epi8(a, b); }
VE_INL V v_sub(V a, V b) { return _mm512_sub_epi8(a, b); }
VE_INL V v_and(V a, V b) { return _mm512_and_si512(a, b); }
VE_INL V v_or(V a, V b) { return _mm512_or_si512(a, b); }
VE_INL V v_xor(V a, V b) { return _mm512_xor_si512(a, b); }
VE_INL V v_min(V a, V b) { return _mm512_min_epu8(a, b); }
VE_INL V v_subs(V a, V b) { return _mm512_subs_epu8(a, b); }
VE_INL V v_sel(K k, V a, V b) { return _mm512_mask_blend_epi8(k, a, b); }
VE_INL V v_clr(V a, K k) { return _mm512_maskz_mov_epi8(~k, a); }
VE_INL V v_inc(V a, K k) { return _mm512_mask_add_epi8(a, k, a, _mm512_set1_epi8(1)); }
VE_INL V v_dec(V a, K k) { return _mm512_mask_sub_epi8(a, k, a, _mm512_set1_epi8(1)); }
VE_INL V v_subk(V a, K k, V b) { return _mm512_mask_sub_epi8(a, k, a, b); }
VE_INL V v_shuf(V table, V idx) { return _mm512_shuffle_epi8(table, idx); }
VE_INL K k_nz(V a) { return _mm512_test_epi8_mask(a, a); }
VE_INL K k_z(V a) { return _mm512_testn_epi8_mask(a, a); }
VE_INL K k_eq(V a, V b) { return _mm512_cmpeq_epi8_mask(a, b); }
VE_INL K k_gt(V a, V b) { return _mm512_cmpgt_epu8_mask(a, b); }
VE_INL K k_bit(V a, V bits) { return _mm512_test_epi8_mask(a, bits); }
VE_INL K k_and(K a, K b) { return a & b; }
VE_INL K k_or(K a, K b) { return a | b; }
VE_INL K k_andn(K a, K b) { return ~a & b; }
VE_INL int k_any(K k) { return k != 0; }
VE_INL int k_count(K k) { return __builtin_popcountll(k); }

/* xorshift64 (13, 7, 17) on each 64-bit lane: one state per 8 boards. */
VE_INL V v_xs(V x)
{
    x = _mm512_xor_si512(x, _mm512_slli_epi64(x, 13));
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 7));
    return _mm512_xor_si512(x, _mm512_slli_epi64(x, 17));
}

/* (u * cnt) >> 16 per board: even boards take their 16-bit u from a, odd ones from b (vecenv.h). The
 * 16-bit products land in the word's low byte, which is the even board's; odd results move up a byte. */
VE_INL V v_pick(V a, V b, V cnt)
{
    const V even = _mm512_mulhi_epu16(a, _mm512_and_si512(cnt, _mm512_set1_epi16(0xFF)));
    const V odd = _mm512_mulhi_epu16(b, _mm512_srli_epi16(cnt, 8));
    return _mm512_or_si512(even, _mm512_slli_epi16(odd, 8));
}

/* The 64 counters are two vectors of 32 words; mask bit i is board i, so each half takes 32 bits. */
VE_INL K sows_inc(uint16_t *p, K live, int max)
{
    const V one = _mm512_set1_epi16(1);
    V lo = _mm512_mask_add_epi16(_mm512_load_si512(p), (__mmask32)live, _mm512_load_si512(p), one);
    V hi = _mm512_mask_add_epi16(_mm512_load_si512(p + 32), (__mmask32)(live >> 32), _mm512_load_si512(p + 32),
                                 one);
    _mm512_store_si512(p, lo);
    _mm512_store_si512(p + 32, hi);
    if (!max)
        return 0;
    const V mv = _mm512_set1_epi16((short)max);
    return (K)_mm512_cmpge_epu16_mask(lo, mv) | (K)_mm512_cmpge_epu16_mask(hi, mv) << 32;
}

VE_INL void sows_clear(uint16_t *p, K k)
{
    _mm512_store_si512(p, _mm512_maskz_mov_epi16(~(__mmask32)k, _mm512_load_si512(p)));
    _mm512_store_si512(p + 32, _mm512_maskz_mov_epi16(~(__mmask32)(k >> 32), _mm512_load_si512(p + 32)));
}

VE_INL K k_none(void) { return 0; }
VE_INL K k_first(size_t n) { return n >= 64 ? ~(K)0 : ((K)1 << n) - 1; } /* lanes 0..n-1 */

/* Mask rows of m bytes, 8 boards at a time: after the 8-plane transpose below, each 128-bit lane holds two
 * boards' 8 bytes; packb[m] keeps the first m of each (pshufb, 0x80 = zero), packw[m] then joins the four
 * lanes' 2m bytes (m words each) into the 8m contiguous bytes of 8 consecutive boards (vpermw). */
#define VE_PB(m, i) ((i) < (m) ? (i) : (i) < 2 * (m) ? (i) - (m) + 8 : 0x80)
#define VE_PB_ROW(m)                                                                                         \
    {VE_PB(m, 0),  VE_PB(m, 1),  VE_PB(m, 2),  VE_PB(m, 3),  VE_PB(m, 4),  VE_PB(m, 5),  VE_PB(m, 6),  VE_PB(m, 7), \
     VE_PB(m, 8),  VE_PB(m, 9),  VE_PB(m, 10), VE_PB(m, 11), VE_PB(m, 12), VE_PB(m, 13), VE_PB(m, 14), VE_PB(m, 15)}
#define VE_PW(m, w) ((w) < 4 * (m) ? (w) / (m) * 8 + (w) % (m) : 0)
#define VE_PW8(m, b)                                                                                         \
    VE_PW(m, b), VE_PW(m, b + 1), VE_PW(m, b + 2), VE_PW(m, b + 3), VE_PW(m, b + 4), VE_PW(m, b + 5),            \
        VE_PW(m, b + 6), VE_PW(m, b + 7)
#define VE_PW_ROW(m) {VE_PW8(m, 0), VE_PW8(m, 8), VE_PW8(m, 16), VE_PW8(m, 24)}
static const uint8_t packb[KALAH_MAX_PITS + 1][16] = {{0},          VE_PB_ROW(1), VE_PB_ROW(2), VE_PB_ROW(3),
                                                      VE_PB_ROW(4), VE_PB_ROW(5), VE_PB_ROW(6), VE_PB_ROW(7)};

static const uint16_t packw[KALAH_MAX_PITS + 1][32] = {{0},          VE_PW_ROW(1), VE_PW_ROW(2), VE_PW_ROW(3),
                                                       VE_PW_ROW(4), VE_PW_ROW(5), VE_PW_ROW(6), VE_PW_ROW(7)};

/* 8 planes of boards off..off+63 (r[0..7], zero for planes not wanted) transposed by bytes: each plane
 * permuted by board pairs so that lane L holds pairs {4k + L} (vpermw), then three stages of in-lane
 * unpacks (8, 16, 32 bits), which leave in t[k] boards 8 rev3[k] .. +7, lane L holding boards
 * 8 rev3[k] + 2L and + 1, one qword each: its bytes are the 8 planes in order (checked by enumeration):
 * 8 + 8 + 8 + 8 shuffles for 64 boards. */
static const int rev3[8] = {0, 4, 2, 6, 1, 5, 3, 7};

VE_INL void ve_transpose8(V *t, const V *r8)
{
    /* word w of the permuted plane is pair 4 (w % 8) + w / 8, two words per dword */
    const V pairs = _mm512_setr_epi32(0x00040000, 0x000C0008, 0x00140010, 0x001C0018, 0x00050001, 0x000D0009,
                                      0x00150011, 0x001D0019, 0x00060002, 0x000E000A, 0x00160012, 0x001E001A,
                                      0x00070003, 0x000F000B, 0x00170013, 0x001F001B);
    V r[8];
#pragma GCC unroll 8
    for (int c = 0; c < 8; c++)
        r[c] = _mm512_permutexvar_epi16(pairs, r8[c]);
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        t[i] = _mm512_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
        t[i + 4] = _mm512_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        r[i] = _mm512_unpacklo_epi16(t[2 * i], t[2 * i + 1]);
        r[i + 4] = _mm512_unpackhi_epi16(t[2 * i], t[2 * i + 1]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        t[i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[i + 4] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
}

/* The mask rows of boards 8 rev3[k] .. +7 from ve_transpose8's t[k] of 0/1 planes (the first M bytes of
 * each qword wanted): packb[M] keeps the first M bytes of each of a lane's two qwords (pshufb, 0x80 =
 * zero), packw[M] then joins the four lanes' 2M bytes (M words each) into the 8M contiguous bytes of the 8
 * boards (vpermw); one masked store per 8 boards. out = the mask row of board off. */
VE_INL void ve_store_mask(uint8_t *out, const V *t, const int M)
{
    const V pb = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)packb[M]));
    const V pw = _mm512_loadu_si512(packw[M]);
    const __mmask64 bytes = M == 8 ? ~(__mmask64)0 : ((__mmask64)1 << (8 * M)) - 1;
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        _mm512_mask_storeu_epi8(out + (size_t)(8 * rev3[k] * M), bytes,
                                _mm512_permutexvar_epi16(pw, _mm512_shuffle_epi8(t[k], pb)));
}

/* The mask rows of boards off..off+63: the M pit planes as 0/1 bytes, transposed and packed. */
VE_INL void ve_emit_mask(uint8_t *out, const V *R, const int M)
{
    const V one = _mm512_set1_epi8(1);
    V r[8], t[8];
#pragma GCC unroll 8
    for (int c = 0; c < 8; c++)
        r[c] = c < M ? _mm512_min_epu8(R[c], one) : _mm512_setzero_si512();
    ve_transpose8(t, r);
    ve_store_mask(out, t, M);
}

/* obs8's final gather (vpermt2w over ve_transpose8's t[k] of planes 0-7 and of planes 8-15, the same 8
 * boards, 4 words of a board per qword): row s of the four boards 4h + s (h = 0, 1) is words t = 0..M
 * (planes 2t, 2t+1), at 8L + 4q + t in the first vector (t < 4) or 32 + 8L + 4q + t - 4 in the second,
 * L = (4h + s) / 2, q = (4h + s) % 2; the four rows of M+1 words follow one another. */
#define VE_O8B(m, h, w) (4 * (h) + (w) / ((m) + 1))
#define VE_O8T(m, w) ((w) % ((m) + 1))
#define VE_O8(m, h, w)                                                                                       \
    ((w) >= 4 * ((m) + 1) ? 0                                                                                \
                          : (VE_O8T(m, w) < 4 ? 0 : 32 - 4) + 8 * (VE_O8B(m, h, w) / 2) + 4 * (VE_O8B(m, h, w) % 2) + \
                                VE_O8T(m, w))
#define VE_O8_8(m, h, b)                                                                                     \
    VE_O8(m, h, b), VE_O8(m, h, b + 1), VE_O8(m, h, b + 2), VE_O8(m, h, b + 3), VE_O8(m, h, b + 4),              \
        VE_O8(m, h, b + 5), VE_O8(m, h, b + 6), VE_O8(m, h, b + 7)
#define VE_O8_ROW(m, h) {VE_O8_8(m, h, 0), VE_O8_8(m, h, 8), VE_O8_8(m, h, 16), VE_O8_8(m, h, 24)}
#define VE_O8_M(m) {VE_O8_ROW(m, 0), VE_O8_ROW(m, 1)}
static const uint16_t obs8w[KALAH_MAX_PITS + 1][2][32] = {{{0}},       VE_O8_M(1), VE_O8_M(2), VE_O8_M(3),
                                                          VE_O8_M(4), VE_O8_M(5), VE_O8_M(6), VE_O8_M(7)};

/* The uint8 observation rows (vecenv_gym_out.obs8, out = row off) and, when mask is non-NULL, the mask
 * rows of boards off..off+63 from one transpose: the d = 2M+2 planes in kalah_encode order go through
 * ve_transpose8 as planes 0-7 and 8-15 (about 60 shuffles; zero planes fold away), one vpermt2w per 4
 * boards joins their two halves into 4 rows of d bytes, back to back, stored with one masked store; the
 * mask is the first M bytes of the first half (the mover's pits), clamped to 1, packed as
 * ve_emit_mask packs it. About 92 shuffles for both rows, where the dword transpose of the float rows
 * plus a byte gather and ve_emit_mask take 132. */
VE_INL void ve_emit_obs8(uint8_t *out, uint8_t *mask, const V *R, const int M)
{
    const int d = 2 * M + 2;
    V p[16], lo[8], hi[8];
#pragma GCC unroll 16
    for (int j = 0; j < 16; j++)
        p[j] = j >= d ? _mm512_setzero_si512() : R[j < M ? j : j < 2 * M ? j + 1 : j == 2 * M ? M : 2 * M + 1];
    ve_transpose8(lo, p);
    ve_transpose8(hi, p + 8);
    const V w0 = _mm512_loadu_si512(obs8w[M][0]), w1 = _mm512_loadu_si512(obs8w[M][1]);
    const __mmask64 bytes = 4 * d == 64 ? ~(__mmask64)0 : ((__mmask64)1 << (4 * d)) - 1;
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        uint8_t *row = out + (size_t)(8 * rev3[k]) * (size_t)d;
        _mm512_mask_storeu_epi8(row, bytes, _mm512_permutex2var_epi16(lo[k], w0, hi[k]));
        _mm512_mask_storeu_epi8(row + 4 * d, bytes, _mm512_permutex2var_epi16(lo[k], w1, hi[k]));
    }
    if (mask) {
        const V one = _mm512_set1_epi8(1);
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++)
            lo[k] = _mm512_min_epu8(lo[k], one);
        ve_store_mask(mask, lo, M);
    }
}

/* The observation rows of boards off..off+63 (out = row off): the d = 2M+2 <= 16 planes in kalah_encode
 * order, as 16 x 16 dwords (dword g of a plane = boards 4g..4g+3), go through a dword transpose (unpack
 * epi32, epi64, then two vshufi32x4 stages: 64 shuffles for 64 boards, where a byte transpose and a
 * byte -> dword widening per board take 128 on the one 512-bit shuffle port), which leaves in dword j of
 * x[g] plane j's bytes of boards 4g..4g+3. Board 4g+s's row is then byte s of each dword, widened with a
 * shift and an AND on the ALU ports, turned into a float exactly with the magic-number trick (the bits
 * 0x4B000000 | c are the float 2^23 + c for c < 2^23) and scaled by one fused multiply-add,
 * (2^23 + c) * scale - 2^23 * scale, which is count * scale rounded once: kalah_encode's float
 * bit for bit (2^23 * scale is exact, a power-of-two multiple of a float; 0 gives +0.0). One masked
 * store of d floats per board. */
VE_INL void ve_emit_obs(float *out, const V *R, float scale, const int M)
{
    const int d = 2 * M + 2;
    V p[16], u[16], x[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; j++)
        p[j] = j >= d ? _mm512_setzero_si512() : R[j < M ? j : j < 2 * M ? j + 1 : j == 2 * M ? M : 2 * M + 1];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) { /* u[4i + mu], lane l = planes 4i..4i+3 at dword mu of lane l */
        const V lo0 = _mm512_unpacklo_epi32(p[4 * i], p[4 * i + 1]);
        const V hi0 = _mm512_unpackhi_epi32(p[4 * i], p[4 * i + 1]);
        const V lo1 = _mm512_unpacklo_epi32(p[4 * i + 2], p[4 * i + 3]);
        const V hi1 = _mm512_unpackhi_epi32(p[4 * i + 2], p[4 * i + 3]);
        u[4 * i] = _mm512_unpacklo_epi64(lo0, lo1);
        u[4 * i + 1] = _mm512_unpackhi_epi64(lo0, lo1);
        u[4 * i + 2] = _mm512_unpacklo_epi64(hi0, hi1);
        u[4 * i + 3] = _mm512_unpackhi_epi64(hi0, hi1);
    }
#pragma GCC unroll 4
    for (int mu = 0; mu < 4; mu++) { /* x[4l + mu] lane i = u[4i + mu] lane l: a 4 x 4 transpose of lanes */
        const V s0 = _mm512_shuffle_i32x4(u[mu], u[4 + mu], 0x44);
        const V s1 = _mm512_shuffle_i32x4(u[mu], u[4 + mu], 0xEE);
        const V s2 = _mm512_shuffle_i32x4(u[8 + mu], u[12 + mu], 0x44);
        const V s3 = _mm512_shuffle_i32x4(u[8 + mu], u[12 + mu], 0xEE);
        x[mu] = _mm512_shuffle_i32x4(s0, s2, 0x88);
        x[4 + mu] = _mm512_shuffle_i32x4(s0, s2, 0xDD);
        x[8 + mu] = _mm512_shuffle_i32x4(s1, s3, 0x88);
        x[12 + mu] = _mm512_shuffle_i32x4(s1, s3, 0xDD);
    }
    const V byte = _mm512_set1_epi32(0xFF), magic = _mm512_set1_epi32(0x4B000000);
    const __m512 sc = _mm512_set1_ps(scale), bias = _mm512_set1_ps(-8388608.0f * scale);
    const __mmask16 row = (__mmask16)((1u << d) - 1);
#pragma GCC unroll 16
    for (int g = 0; g < 16; g++) {
        const V c[4] = {_mm512_ternarylogic_epi32(x[g], byte, magic, 0xEA), /* (a & b) | c */
                        _mm512_ternarylogic_epi32(_mm512_srli_epi32(x[g], 8), byte, magic, 0xEA),
                        _mm512_ternarylogic_epi32(_mm512_srli_epi32(x[g], 16), byte, magic, 0xEA),
                        _mm512_or_si512(_mm512_srli_epi32(x[g], 24), magic)};
#pragma GCC unroll 4
        for (int s = 0; s < 4; s++)
            _mm512_mask_storeu_ps(out + (size_t)(4 * g + s) * (size_t)d, row,
                                  _mm512_fmadd_ps(_mm512_castsi512_ps(c[s]), sc, bias));
    }
}

/* The Gymnasium rows of boards off..off+63 straight from the block's registers (vecenv_gym_rows gives the
 * same bytes from memory). */
/* cell: the block's planes in memory, the same as R (the AVX2 emitter reads them there) */
VE_INL void ve_emit(vecenv_state *st, size_t off, const uint8_t *cell, const V *R, V side, V over, V winner, V pick,
                    const int M)
{
    (void)cell;
    const vecenv_gym_out *g = st->gym;
    if (g->obs8) /* the mask rows from the same transpose */
        ve_emit_obs8(g->obs8 + off * (size_t)(2 * M + 2), g->mask ? g->mask + off * (size_t)M : NULL, R, M);
    else if (g->mask)
        ve_emit_mask(g->mask + off * (size_t)M, R, M);
    if (g->obs)
        ve_emit_obs(g->obs + off * (size_t)(2 * M + 2), R, 1.0f / (float)st->seeds, M);
    if (g->to_play)
        _mm512_storeu_si512(g->to_play + off, side);
    if (g->rewards) { /* (South, North) float pairs as 64-bit words: +1,-1 / -1,+1 / 0,0 */
        static const uint64_t pair[3] = {0x3F800000BF800000ull, 0, 0xBF8000003F800000ull}; /* winner + 1 */
        if (g->kept && g->ended) {
            /* one 8-byte store per board that ended now or before (~2.8 of 64), the first 6 without a
             * branch: a slot past the last such board rewrites board 63's pair as it is (its value is
             * right either way). The loop over their groups of 8 (a 64-byte store each, its trip count
             * varying per block) that this replaced cost about twice as much (rewards and terminations
             * 0.9-1.1 against ~0.55 us per 4096-board step, alternated harness runs); four group stores
             * without a branch, the spare ones repeating the last group, were slower still. */
            uint64_t end8 = k_nz(over) | k_nz(_mm512_loadu_si512(g->ended + off));
            int8_t w[64];
            _mm512_storeu_si512(w, winner);
            float *rw = g->rewards + 2 * off;
#pragma GCC unroll 6
            for (int t = 0; t < 6; t++) {
                const int i = __builtin_ctzll(end8 | 1ull << 63); /* none left: board 63, rewritten as it is */
                memcpy(rw + 2 * i, &pair[w[i] + 1], 8);
                end8 &= end8 - 1;
            }
            for (; end8; end8 &= end8 - 1) {
                const int i = __builtin_ctzll(end8);
                memcpy(rw + 2 * i, &pair[w[i] + 1], 8);
            }
        } else {
            const V sw = _mm512_set1_epi64((long long)0xBF8000003F800000ull);
            const V nw = _mm512_set1_epi64((long long)0x3F800000BF800000ull);
            const K south = _mm512_cmpeq_epi8_mask(winner, _mm512_set1_epi8(1));
            const K north = _mm512_cmpeq_epi8_mask(winner, _mm512_set1_epi8(-1));
            for (int q = 0; q < 8; q++) {
                const V x = _mm512_mask_mov_epi64(_mm512_maskz_mov_epi64((__mmask8)(south >> (8 * q)), sw),
                                                  (__mmask8)(north >> (8 * q)), nw);
                _mm512_storeu_si512(g->rewards + 2 * (off + 8 * (size_t)q), x);
            }
        }
    }
    if (g->ended)
        _mm512_storeu_si512(g->ended + off, over);
    if (g->sample)
        _mm512_storeu_si512(g->sample + off, pick);
}

#define VECENV_TEMPLATE
#include "env/vecenv_impl.h"

/* vecenv_gym_moves (wide: int64 actions) and vecenv_gym_moves8 (bytes) on 64 boards at a time: int64
 * actions saturate to bytes (negative ones become 255), the legal bit of each is looked up with pshufb
 * (indices 8..15 give 0), and a lane fails when its board has legal pits but not that one. */
int vecenv_gym_moves_avx512(const vecenv_state *st, const void *actions, int wide, size_t n, uint8_t *moves,
                            int *bad)
{
    const size_t B = (size_t)st->batch;
    const V bits = _mm512_broadcast_i32x4(_mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, (char)128, 0, 0, 0, 0, 0, 0, 0, 0));
    const V eight = _mm512_set1_epi8(8);
    for (size_t off = 0; off < B; off += 64) {
        const size_t left = n > off ? n - off : 0;
        if (!left) {
            _mm512_storeu_si512(moves + off, _mm512_setzero_si512());
            continue;
        }
        const K act = k_first(left);
        V legal = _mm512_setzero_si512();
        for (int c = 0; c < st->m; c++)
            legal = _mm512_mask_mov_epi8(legal, k_nz(_mm512_load_si512(st->cell + ve_at(st, c, off))),
                                         _mm512_or_si512(legal, _mm512_set1_epi8((char)(1 << c))));
        V mv;
        if (wide) {
            const int64_t *a64 = (const int64_t *)actions + off;
            __m128i q[8];
#pragma GCC unroll 8
            for (int t = 0; t < 8; t++)
                q[t] = _mm512_cvtusepi64_epi8(_mm512_maskz_loadu_epi64((__mmask8)(act >> (8 * t)), a64 + 8 * t));
            const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi64(q[0], q[1])),
                                                       _mm_unpacklo_epi64(q[2], q[3]), 1);
            const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi64(q[4], q[5])),
                                                       _mm_unpacklo_epi64(q[6], q[7]), 1);
            mv = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
        } else { /* masked: the caller's array ends at board n */
            mv = _mm512_maskz_loadu_epi8(act, (const uint8_t *)actions + off);
        }
        const V bit = _mm512_shuffle_epi8(bits, _mm512_min_epu8(mv, eight));
        const K fail = act & k_nz(legal) & ~_mm512_test_epi8_mask(legal, bit);
        if (fail) {
            *bad = (int)(off + (size_t)__builtin_ctzll(fail));
            return KALAH_EILLEGAL;
        }
        _mm512_storeu_si512(moves + off, _mm512_maskz_mov_epi8(act, mv));
    }
    return KALAH_OK;
}

void vecenv_kernel_avx512(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps)
{
    ve_dispatch(st, moves, out, steps);
}
#endif
