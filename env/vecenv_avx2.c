/* vecenv_avx2.c — the vecenv kernel for AVX2: 32 boards per instruction, lane masks as 0x00/0xFF bytes.
 * Compiled with -mavx2 (env/CMakeLists.txt); vecenv.c calls it only when the CPU has AVX2. The kernel
 * itself is the template in vecenv_impl.h; this file supplies its vocabulary. */
#include "env/vecenv_impl.h"

#if defined(VECENV_X86) && defined(__AVX2__)
#include <immintrin.h>

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

/* Gymnasium rows: the portable emitter reads the planes the block just stored. */
VE_INL void ve_emit(vecenv_state *st, size_t off, const V *R, V side, V over, V winner, V pick, const int M)
{
    (void)R;
    (void)side;
    (void)M;
    _Alignas(32) uint8_t o[32], p[32];
    _Alignas(32) int8_t w[32];
    _mm256_store_si256((__m256i *)o, over);
    _mm256_store_si256((__m256i *)w, winner);
    _mm256_store_si256((__m256i *)p, pick);
    vecenv_gym_rows(st, off, W, o, w, p);
}

#define VECENV_TEMPLATE
#include "env/vecenv_impl.h"

void vecenv_kernel_avx2(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps)
{
    ve_dispatch(st, moves, out, steps);
}
#endif
