/* vecenv_avx2.c — the vecenv kernel for AVX2: 32 boards per instruction, lane masks as 0x00/0xFF bytes.
 * Compiled with -mavx2 (env/CMakeLists.txt); vecenv.c calls it only when the CPU has AVX2. The kernel
 * itself is the template in vecenv_impl.h; this file supplies its vocabulary. */
#include "env/vecenv_impl.h"

#if defined(VECENV_X86) && defined(__AVX2__)
#include <immintrin.h>
#include <string.h>

#define W 32
typedef __m256i V;
typedef __m256i K;

#define VE_INL static inline __attribute__((always_inline))
VE_INL V v_ld(const void *p) { return _mm256_load_si256((const __m256i *)p); }
VE_INL void v_st(void *p, V x) { _mm256_store_si256((__m256i *)p, x); }
VE_INL V v_ldu(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
VE_INL void v_stu(void *p, V x) { _mm256_storeu_si256((__m256i *)p, x); }
VE_INL V v_set1(int b) { return _mm256_set1_epi8((char)b); }
VE_INL V v_tab(const uint8_t *t) { return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t)); }
VE_INL V v_add(V a, V b) { return _mm256_add_epi8(a, b); }
VE_INL V v_sub(V a, V b) { return _mm256_sub_epi8(a, b); }
VE_INL V v_and(V a, V b) { return _mm256_and_si256(a, b); }
VE_INL V v_or(V a, V b) { return _mm256_or_si256(a, b); }
VE_INL V v_xor(V a, V b) { return _mm256_xor_si256(a, b); }
VE_INL V v_min(V a, V b) { return _mm256_min_epu8(a, b); }
VE_INL V v_subs(V a, V b) { return _mm256_subs_epu8(a, b); }
VE_INL V v_sel(K k, V a, V b) { return _mm256_blendv_epi8(a, b, k); }
VE_INL V v_clr(V a, K k) { return _mm256_andnot_si256(k, a); }
VE_INL V v_inc(V a, K k) { return _mm256_sub_epi8(a, k); } /* a mask byte is -1 */
VE_INL V v_dec(V a, K k) { return _mm256_add_epi8(a, k); }
VE_INL V v_subk(V a, K k, V b) { return _mm256_sub_epi8(a, _mm256_and_si256(k, b)); }
VE_INL V v_shuf(V table, V idx) { return _mm256_shuffle_epi8(table, idx); }
VE_INL K k_z(V a) { return _mm256_cmpeq_epi8(a, _mm256_setzero_si256()); }
VE_INL K k_nz(V a) { return _mm256_xor_si256(k_z(a), _mm256_set1_epi8(-1)); }
VE_INL K k_eq(V a, V b) { return _mm256_cmpeq_epi8(a, b); }
/* Unsigned a > b: a - b saturates to zero exactly when a <= b. */
VE_INL K k_gt(V a, V b) { return k_nz(_mm256_subs_epu8(a, b)); }
VE_INL K k_bit(V a, V bits) { return _mm256_cmpeq_epi8(_mm256_and_si256(a, bits), bits); }
VE_INL K k_and(K a, K b) { return _mm256_and_si256(a, b); }
VE_INL K k_or(K a, K b) { return _mm256_or_si256(a, b); }
VE_INL K k_andn(K a, K b) { return _mm256_andnot_si256(a, b); }
VE_INL int k_any(K k) { return !_mm256_testz_si256(k, k); }
VE_INL int k_count(K k) { return __builtin_popcount((unsigned)_mm256_movemask_epi8(k)); }

/* xorshift64 (13, 7, 17) on each 64-bit lane: one state per 8 boards. */
VE_INL V v_xs(V x)
{
    x = _mm256_xor_si256(x, _mm256_slli_epi64(x, 13));
    x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 7));
    return _mm256_xor_si256(x, _mm256_slli_epi64(x, 17));
}

/* (u * cnt) >> 16 per board: even boards take their 16-bit u from a, odd ones from b (vecenv.h). */
VE_INL V v_pick(V a, V b, V cnt)
{
    const V even = _mm256_mulhi_epu16(a, _mm256_and_si256(cnt, _mm256_set1_epi16(0xFF)));
    const V odd = _mm256_mulhi_epu16(b, _mm256_srli_epi16(cnt, 8));
    return _mm256_or_si256(even, _mm256_slli_epi16(odd, 8));
}

/* Byte-lane mask bytes 0..15 / 16..31 widened to word masks for the two vectors of 16 counters. */
VE_INL V widen_lo(K k) { return _mm256_cvtepi8_epi16(_mm256_castsi256_si128(k)); }
VE_INL V widen_hi(K k) { return _mm256_cvtepi8_epi16(_mm256_extracti128_si256(k, 1)); }

VE_INL K sows_inc(uint16_t *p, K live, int max)
{
    V lo = _mm256_sub_epi16(_mm256_load_si256((const __m256i *)p), widen_lo(live));
    V hi = _mm256_sub_epi16(_mm256_load_si256((const __m256i *)(p + 16)), widen_hi(live));
    _mm256_store_si256((__m256i *)p, lo);
    _mm256_store_si256((__m256i *)(p + 16), hi);
    if (!max)
        return _mm256_setzero_si256();
    const V mv = _mm256_set1_epi16((short)max);
    const V ge_lo = _mm256_cmpeq_epi16(_mm256_max_epu16(lo, mv), lo);
    const V ge_hi = _mm256_cmpeq_epi16(_mm256_max_epu16(hi, mv), hi);
    /* packs works per 128-bit half: [lo0 hi0 lo1 hi1] in qwords, put back in board order */
    return _mm256_permute4x64_epi64(_mm256_packs_epi16(ge_lo, ge_hi), 0xD8);
}

VE_INL void sows_clear(uint16_t *p, K k)
{
    _mm256_store_si256((__m256i *)p, _mm256_andnot_si256(widen_lo(k), _mm256_load_si256((const __m256i *)p)));
    _mm256_store_si256((__m256i *)(p + 16),
                       _mm256_andnot_si256(widen_hi(k), _mm256_load_si256((const __m256i *)(p + 16))));
}

VE_INL K k_none(void) { return _mm256_setzero_si256(); }
/* Lanes 0..n-1 (all when n >= 32). */
VE_INL K k_first(size_t n)
{
    const V iota = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                    23, 24, 25, 26, 27, 28, 29, 30, 31);
    return _mm256_cmpgt_epi8(_mm256_set1_epi8((char)(n < 32 ? n : 32)), iota);
}

/* The 16 planes p[0..15] of 32 boards transposed by bytes within each 128-bit lane: y[r] is the row of
 * board r (low lane) and of board 16 + r (high lane), its bytes plane by plane. Planes go in groups of
 * four: an 8-bit and a 16-bit unpack stage give, for group g and quarter q, boards 4q..4q+3 with the
 * group's four bytes each; a 32-bit and a 64-bit stage then join a quarter's four groups into its four
 * rows. 64 unpacks for 32 boards, as a butterfly over all 16 registers, but no stage holds more than
 * eight registers live (the butterfly kept 32, and the spills cost more than the shuffles). */
VE_INL void ve_transpose16(V *y, const V *p)
{
    V Q[4][4]; /* Q[g][q]: boards 4q..4q+3 (per lane), planes 4g..4g+3 */
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        const V a0 = _mm256_unpacklo_epi8(p[4 * g], p[4 * g + 1]), a1 = _mm256_unpackhi_epi8(p[4 * g], p[4 * g + 1]);
        const V b0 = _mm256_unpacklo_epi8(p[4 * g + 2], p[4 * g + 3]);
        const V b1 = _mm256_unpackhi_epi8(p[4 * g + 2], p[4 * g + 3]);
        Q[g][0] = _mm256_unpacklo_epi16(a0, b0);
        Q[g][1] = _mm256_unpackhi_epi16(a0, b0);
        Q[g][2] = _mm256_unpacklo_epi16(a1, b1);
        Q[g][3] = _mm256_unpackhi_epi16(a1, b1);
    }
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) {
        const V e0 = _mm256_unpacklo_epi32(Q[0][q], Q[1][q]), e1 = _mm256_unpackhi_epi32(Q[0][q], Q[1][q]);
        const V f0 = _mm256_unpacklo_epi32(Q[2][q], Q[3][q]), f1 = _mm256_unpackhi_epi32(Q[2][q], Q[3][q]);
        y[4 * q] = _mm256_unpacklo_epi64(e0, f0);
        y[4 * q + 1] = _mm256_unpackhi_epi64(e0, f0);
        y[4 * q + 2] = _mm256_unpacklo_epi64(e1, f1);
        y[4 * q + 3] = _mm256_unpackhi_epi64(e1, f1);
    }
}

/* Bytes k .. k + 7 of a row moved to its front (pshufb), for the float row's second half. */
static const uint8_t ve_from[9][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},       {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},             {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {6, 7, 8, 9, 10, 11, 12, 13, 14, 15},                   {7, 8, 9, 10, 11, 12, 13, 14, 15},
    {8, 9, 10, 11, 12, 13, 14, 15}};

/* The first n bytes of x at o: one whole 16-byte store where `room` bytes are left in the buffer from o,
 * else a copy of just the n. */
VE_INL void ve_store_bytes(uint8_t *o, __m128i x, size_t n, size_t room)
{
    if (room < 16) {
        _Alignas(16) uint8_t t[16];
        _mm_store_si128((__m128i *)t, x);
        memcpy(o, t, n);
    } else {
        _mm_storeu_si128((__m128i *)o, x);
    }
}

/* Row r of the block (0..31) from the transposed registers: board r's 16 bytes, plane by plane. */
VE_INL __m128i ve_row(const V *y, int r)
{
    return r < 16 ? _mm256_castsi256_si128(y[r]) : _mm256_extracti128_si256(y[r - 16], 1);
}

/* The uint8 observation rows (`n` = d bytes each) of the block's 32 boards at o, row r from ve_row(y, r).
 * Whole 16-byte stores run past a row into the following boards' rows, which their own stores then
 * overwrite: boards go in increasing order. With `room` boards left in the buffer from o, the last row's
 * store ends at 31 n + 16 bytes, inside the room * n there whenever room >= 47 for
 * every n >= 1: such blocks (all but the last, batches being multiples of 64) take the branch-free path;
 * in the last, a board whose store would run past the buffer's end goes through a copy. */
VE_INL void ve_byte_rows(uint8_t *o, const V *y, const int n, size_t room)
{
    if (room >= 47) {
#pragma GCC unroll 32
        for (int r = 0; r < 32; r++)
            ve_store_bytes(o + (size_t)r * (size_t)n, ve_row(y, r), (size_t)n, 16);
    } else {
        for (int r = 0; r < 32 && (size_t)r < room; r++)
            ve_store_bytes(o + (size_t)r * (size_t)n, ve_row(y, r), (size_t)n, (room - (size_t)r) * (size_t)n);
    }
}

/* One board's float row (d floats: the exact int -> float conversion times the same float scale,
 * kalah_encode's float bit for bit) from its bytes x: floats 0..7 and d-8..d-1 (d >= 8; both halves in
 * the row), or one masked store (d < 8). No store leaves its row. */
VE_INL void ve_float_row(float *o, __m128i x, __m256 sc, const int d)
{
    const __m256 lo = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(x)), sc);
    if (d >= 8) {
        _mm256_storeu_ps(o, lo);
        if (d > 8) {
            const __m128i from = _mm_loadu_si128((const __m128i *)ve_from[d - 8]);
            const __m256i tail = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(x, from));
            _mm256_storeu_ps(o + d - 8, _mm256_mul_ps(_mm256_cvtepi32_ps(tail), sc));
        }
    } else {
        const __m256i first = _mm256_cmpgt_epi32(_mm256_set1_epi32(d), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        _mm256_maskstore_ps(o, first, lo);
    }
}

/* The float rows of the block's 32 boards at o, row r from ve_row(y, r). */
VE_INL void ve_float_rows(float *o, const V *y, float scale, const int d)
{
    const __m256 sc = _mm256_set1_ps(scale);
#pragma GCC unroll 32
    for (int r = 0; r < 32; r++, o += d)
        ve_float_row(o, ve_row(y, r), sc, d);
}

/* Bytes k .. of x moved to its front (k = 0..8). A table, not _mm_srli_si128: clang wants that one's
 * shift as a constant before inlining (the fuzz targets' build). */
VE_INL __m128i ve_bytes_from(__m128i x, const int k)
{
    return _mm_shuffle_epi8(x, _mm_loadu_si128((const __m128i *)ve_from[k]));
}

/* The first n (1..16) bytes of x at o and not one byte more: for a row whose whole-width store would run
 * into a row already written (ve_rows_stream). Two overlapping stores where n is not a power of two. */
VE_INL void ve_store_exact(uint8_t *o, __m128i x, const int n)
{
    if (n == 16) {
        _mm_storeu_si128((__m128i *)o, x);
    } else if (n >= 8) {
        _mm_storel_epi64((__m128i *)o, x);
        _mm_storel_epi64((__m128i *)(o + n - 8), ve_bytes_from(x, n - 8));
    } else if (n >= 4) {
        const int a = _mm_cvtsi128_si32(x), b = _mm_cvtsi128_si32(ve_bytes_from(x, n - 4));
        memcpy(o + n - 4, &b, 4);
        memcpy(o, &a, 4);
    } else if (n >= 2) {
        const uint16_t a = (uint16_t)_mm_extract_epi16(x, 0), b = (uint16_t)_mm_cvtsi128_si32(ve_bytes_from(x, n - 2));
        memcpy(o + n - 2, &b, 2);
        memcpy(o, &a, 2);
    } else {
        *o = (uint8_t)_mm_cvtsi128_si32(x);
    }
}

/* Rows r (0..15) and r + 16 of n bytes at o from lo and hi, each one 16-byte store, except a row r whose
 * store would reach row 16, already written: ve_rows_stream's order. */
VE_INL void ve_row_pair(uint8_t *o, const int r, __m128i lo, __m128i hi, const int n)
{
    if (r * n + 16 > 16 * n)
        ve_store_exact(o + r * n, lo, n);
    else
        ve_store_bytes(o + r * n, lo, (size_t)n, 16);
    ve_store_bytes(o + (r + 16) * n, hi, (size_t)n, 16);
}


/* pshufb indexes joining two rows' first m bytes (bytes 0..m-1 and 8..8+m-1 of a lane), m = 1..7. */
static const uint8_t ve_mask_join[8][16] = {
    {0},
    {0, 8, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 8, 9, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 8, 9, 10, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 3, 8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 128, 128, 128, 128, 128, 128},
    {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 128, 128, 128, 128},
    {0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 128, 128}};

/* The mask rows (packed, m bytes apart) of the boards 4q..4q+3 and 16+4q..19+4q of a block at o from
 * y[0..3], ve_transpose16's registers of its quarter q: each row's first 8 bytes (the mover's pits first)
 * clamped to 0/1 by lim, two rows' m bytes joined in a lane (pshufb), each lane one 16-byte store whose
 * 16 - 2m bytes past the two rows later stores overwrite (quarters go in order, a quarter's rows 4q, 4q+1
 * before 4q+2, 4q+3), except where those bytes would reach row 16 (written by quarter 0) or pass the
 * block's end (the buffer's end in the last block): the last quarter's second pairs, and for m < 4
 * (more than two rows of spill) every pair, are stored exactly. A 6-byte row took a clamp and a store each. */
VE_INL void ve_mask_rows(uint8_t *o, const V *y, const int q, const V lim, const int M)
{
    const V join = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)ve_mask_join[M]));
    const V a = _mm256_shuffle_epi8(_mm256_min_epu8(_mm256_unpacklo_epi64(y[0], y[1]), lim), join);
    const V b = _mm256_shuffle_epi8(_mm256_min_epu8(_mm256_unpacklo_epi64(y[2], y[3]), lim), join);
    const int r = 4 * q; /* a: rows r, r+1 | 16+r, 17+r; b: rows r+2, r+3 | 18+r, 19+r */
    if (M < 4) {
        ve_store_exact(o + M * r, _mm256_castsi256_si128(a), 2 * M);
        ve_store_exact(o + M * (r + 16), _mm256_extracti128_si256(a, 1), 2 * M);
    } else {
        _mm_storeu_si128((__m128i *)(o + M * r), _mm256_castsi256_si128(a));
        _mm_storeu_si128((__m128i *)(o + M * (r + 16)), _mm256_extracti128_si256(a, 1));
    }
    if (M < 4 || q == 3) {
        ve_store_exact(o + M * (r + 2), _mm256_castsi256_si128(b), 2 * M);
        ve_store_exact(o + M * (r + 18), _mm256_extracti128_si256(b, 1), 2 * M);
    } else {
        _mm_storeu_si128((__m128i *)(o + M * (r + 2)), _mm256_castsi256_si128(b));
        _mm_storeu_si128((__m128i *)(o + M * (r + 18)), _mm256_extracti128_si256(b, 1));
    }
}

/* lim of ve_mask_rows for m pits: 1 for the m pits, 0 for the bytes after them. */
VE_INL V ve_mask_lim(const int M) { return _mm256_set1_epi64x((long long)(0x0101010101010101ull >> (8 * (8 - M)))); }

/* The observation rows (uint8 and/or float) and the mask rows (ve_mask_rows) of boards
 * off..off+31 from the block's planes
 * in memory (cell, 64 bytes apart), each row stored as soon as the transpose yields it: ve_transpose16's
 * stages in two halves (quarters 0-1, then 2-3: eight registers of the first stage live instead of
 * sixteen), its planes read straight from L1. The registers of a quarter hold rows 4q..4q+3 (low lanes)
 * and 16+4q..19+4q (high lanes), so rows go out in the order 0-3, 16-19, 4-7, 20-23, ...: whole-width
 * stores run into the next row, which its own later store overwrites, except from rows 0-15 into 16-31,
 * already written: a low row whose store would reach row 16 is stored exactly. Keeping all sixteen
 * registers of rows for a board-order run of stores spilled them (and stored each twice). Needs the room
 * of ve_byte_rows' branch-free path (room >= 47). */
VE_INL void ve_rows_stream_of(const vecenv_gym_out *g, size_t off, const uint8_t *cell, float scale, const int M,
                              const int U8, const int MASK, const int FLT)
{
    const int d = 2 * M + 2;
    uint8_t *o8 = U8 ? g->obs8 + off * (size_t)d : NULL, *om = MASK ? g->mask + off * (size_t)M : NULL;
    float *of = FLT ? g->obs + off * (size_t)d : NULL;
    const __m256 sc = _mm256_set1_ps(scale);
    const V lim = ve_mask_lim(M);
    const V zero = _mm256_setzero_si256();
#define VE_PL(j) ((j) >= d ? zero : v_ld(cell + 64 * (size_t)((j) < M ? (j) : (j) < 2 * M ? (j) + 1 : (j) == 2 * M ? M : 2 * M + 1)))
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        V Q[4][2]; /* Q[grp][k]: quarter 2h+k of planes 4 grp..4 grp+3 */
#pragma GCC unroll 4
        for (int grp = 0; grp < 4; grp++) {
            const V a = h ? _mm256_unpackhi_epi8(VE_PL(4 * grp), VE_PL(4 * grp + 1))
                          : _mm256_unpacklo_epi8(VE_PL(4 * grp), VE_PL(4 * grp + 1));
            const V b = h ? _mm256_unpackhi_epi8(VE_PL(4 * grp + 2), VE_PL(4 * grp + 3))
                          : _mm256_unpacklo_epi8(VE_PL(4 * grp + 2), VE_PL(4 * grp + 3));
            Q[grp][0] = _mm256_unpacklo_epi16(a, b);
            Q[grp][1] = _mm256_unpackhi_epi16(a, b);
        }
#pragma GCC unroll 2
        for (int k = 0; k < 2; k++) {
            const int q = 2 * h + k;
            const V e0 = _mm256_unpacklo_epi32(Q[0][k], Q[1][k]), e1 = _mm256_unpackhi_epi32(Q[0][k], Q[1][k]);
            const V f0 = _mm256_unpacklo_epi32(Q[2][k], Q[3][k]), f1 = _mm256_unpackhi_epi32(Q[2][k], Q[3][k]);
            const V y[4] = {_mm256_unpacklo_epi64(e0, f0), _mm256_unpackhi_epi64(e0, f0),
                            _mm256_unpacklo_epi64(e1, f1), _mm256_unpackhi_epi64(e1, f1)};
            if (MASK)
                ve_mask_rows(om, y, q, lim, M);
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++) {
                const int r = 4 * q + i; /* and r + 16 */
                const __m128i lo = _mm256_castsi256_si128(y[i]), hi = _mm256_extracti128_si256(y[i], 1);
                if (U8)
                    ve_row_pair(o8, r, lo, hi, d);
                if (FLT) {
                    ve_float_row(of + r * d, lo, sc, d);
                    ve_float_row(of + (r + 16) * d, hi, sc, d);
                }
            }
        }
    }
#undef VE_PL
}

/* ve_rows_stream_of for the outputs asked for, each set its own code (a test per output and row cost more
 * than the rows' shuffles). */
VE_INL void ve_rows_stream(const vecenv_gym_out *g, size_t off, const uint8_t *cell, float scale, const int M)
{
    const int u8 = g->obs8 != NULL, mask = g->mask != NULL, flt = g->obs != NULL;
    if (u8 && !flt) {
        if (mask)
            ve_rows_stream_of(g, off, cell, scale, M, 1, 1, 0);
        else
            ve_rows_stream_of(g, off, cell, scale, M, 1, 0, 0);
    } else if (flt && !u8) {
        if (mask)
            ve_rows_stream_of(g, off, cell, scale, M, 0, 1, 1);
        else
            ve_rows_stream_of(g, off, cell, scale, M, 0, 0, 1);
    } else {
        ve_rows_stream_of(g, off, cell, scale, M, 1, mask, 1);
    }
}

/* The Gymnasium rows of boards off..off+31 from the block's planes (cell, in L1; R holds the same planes)
 * (vecenv_gym_rows gives the same bytes board by board and stays the scalar kernel's): one 32-board byte
 * transpose serves the uint8 rows, the mask rows and the float rows, streamed as the transpose yields them
 * (ve_rows_stream) except in the last block, where each observation's 32 rows go in one run with the
 * careful path at the buffer's end (the mask rows never pass their block's end); mask rows alone transpose just the mover's pits; to_play, ended and the
 * sample are one store each; rewards as the AVX-512 kernel writes them. The mask rows are packed
 * (vecenv_gym.c hands this kernel no other stride). */
VE_INL void ve_emit(vecenv_state *st, size_t off, const uint8_t *cell, const V *R, V side, V over, V winner, V pick,
                    const int M)
{
    /* a copy: every byte store may alias *st->gym, and the compiler reloaded its pointers after each one */
    const vecenv_gym_out gym = *st->gym, *g = &gym;
    const int d = 2 * M + 2;
    const size_t room = (size_t)st->batch - off; /* boards from off to the buffer's end */
    V p[16], y[16];
    if ((g->obs8 || g->obs) && room >= 47) {
        ve_rows_stream(g, off, cell, 1.0f / (float)st->seeds, M);
    } else if (g->obs8 || g->obs) {
#pragma GCC unroll 16
        for (int j = 0; j < 16; j++) /* kalah_encode order: own pits, opponent's pits, own store, opponent's */
            p[j] = j >= d ? _mm256_setzero_si256() : R[j < M ? j : j < 2 * M ? j + 1 : j == 2 * M ? M : 2 * M + 1];
        ve_transpose16(y, p);
        if (g->obs8)
            ve_byte_rows(g->obs8 + off * (size_t)d, y, d, room);
        if (g->mask)
            for (int q = 0; q < 4; q++)
                ve_mask_rows(g->mask + off * (size_t)M, y + 4 * q, q, ve_mask_lim(M), M);
        if (g->obs)
            ve_float_rows(g->obs + off * (size_t)d, y, 1.0f / (float)st->seeds, d);
    } else if (g->mask) {
#pragma GCC unroll 16
        for (int j = 0; j < 16; j++) /* the mover's pits (M <= 7): the other stages fold away */
            p[j] = j < M ? R[j] : _mm256_setzero_si256();
        ve_transpose16(y, p);
        for (int q = 0; q < 4; q++)
            ve_mask_rows(g->mask + off * (size_t)M, y + 4 * q, q, ve_mask_lim(M), M);
    }
    if (g->to_play)
        v_stu(g->to_play + off, side);
    if (g->rewards) { /* (South, North) float pairs as 64-bit words: +1,-1 / -1,+1 / 0,0 */
        /* indexed by the winner's byte & 3: 0 none or a draw, 1 South won, 3 (0xFF) North won; unsigned
         * indexes: with int8 winners + 1 every slot spent three sign extensions */
        static const uint64_t pair[4] = {0, 0xBF8000003F800000ull, 0, 0x3F800000BF800000ull};
        _Alignas(32) uint8_t w[32];
        v_st(w, winner);
        float *rw = g->rewards + 2 * off;
        if (g->kept && g->ended) { /* only the boards that ended now or before (their reward was nonzero) */
            uint32_t end = (uint32_t)_mm256_movemask_epi8(k_nz(over)) |
                           (uint32_t)_mm256_movemask_epi8(k_nz(v_ldu(g->ended + off)));
            /* the first four without a branch (their count varies from block to block: the loop's exit
             * mispredicted about once a block); a slot past the last such board rewrites board 31's pair,
             * right either way: winner is 0 where no game ended now */
#pragma GCC unroll 4
            for (int s = 0; s < 4; s++) {
                const size_t i = (size_t)__builtin_ctz(end | 0x80000000u);
                memcpy(rw + 2 * i, &pair[w[i] & 3], 8);
                end &= end - 1;
            }
            for (; end; end &= end - 1) {
                const size_t i = (size_t)__builtin_ctz(end);
                memcpy(rw + 2 * i, &pair[w[i] & 3], 8);
            }
        } else {
            for (size_t i = 0; i < W; i++) /* winner is 0 where the game did not end now */
                memcpy(rw + 2 * i, &pair[w[i] & 3], 8);
        }
    }
    if (g->ended)
        v_stu(g->ended + off, over);
    if (g->sample)
        v_stu(g->sample + off, pick);
}

#define VECENV_TEMPLATE
#include "env/vecenv_impl.h"

/* vecenv_gym_moves (wide: int64 actions) and vecenv_gym_moves8 (bytes) on 32 boards at a time: int64
 * actions saturate to bytes (negative ones become 255), the legal bit of each is looked up with pshufb
 * (indices 8..15 give 0), and a lane fails when its board has legal pits but not that one. The caller's
 * array ends at board n: a partial block is copied first. */
int vecenv_gym_moves_avx2(const vecenv_state *st, const void *actions, int wide, size_t n, uint8_t *moves, int *bad)
{
    const size_t B = (size_t)st->batch;
    const V bits = v_tab((const uint8_t[16]){1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0});
    const V eight = v_set1(8);
    for (size_t off = 0; off < B; off += W) {
        const size_t left = n > off ? n - off : 0;
        if (!left) {
            v_stu(moves + off, v_set1(0));
            continue;
        }
        const size_t cnt = left < W ? left : W;
        V legal = v_set1(0);
        for (int c = 0; c < st->m; c++)
            legal = v_or(legal, v_and(k_nz(v_ld(st->cell + ve_at(st, c, off))), v_set1(1 << c)));
        V mv;
        if (wide) {
            const int64_t *a64 = (const int64_t *)actions + off;
            _Alignas(32) uint8_t a8[W] = {0};
            for (size_t i = 0; i < cnt; i++) { /* a negative action wraps high: out of range */
                const uint64_t a = (uint64_t)a64[i];
                a8[i] = a > 255 ? 255 : (uint8_t)a;
            }
            mv = v_ld(a8);
        } else if (cnt == W) {
            mv = v_ldu((const uint8_t *)actions + off);
        } else {
            _Alignas(32) uint8_t a8[W] = {0};
            memcpy(a8, (const uint8_t *)actions + off, cnt);
            mv = v_ld(a8);
        }
        const K act = k_first(cnt);
        const K fail = k_and(act, k_andn(k_nz(v_and(legal, v_shuf(bits, v_min(mv, eight)))), k_nz(legal)));
        const uint32_t f = (uint32_t)_mm256_movemask_epi8(fail);
        if (f) {
            *bad = (int)(off + (size_t)__builtin_ctz(f));
            return KALAH_EILLEGAL;
        }
        v_stu(moves + off, v_and(mv, act));
    }
    return KALAH_OK;
}

void vecenv_kernel_avx2(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps)
{
    ve_dispatch(st, moves, out, steps);
}
#endif
