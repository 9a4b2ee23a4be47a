/* vecenv_avx512.c — the vecenv kernel for AVX-512BW: 64 boards per instruction, lane masks in k registers.
 * Compiled with -mavx512f -mavx512bw -mavx512vl (env/CMakeLists.txt); vecenv.c calls it only when the CPU
 * has all three. The kernel itself is the template in vecenv_impl.h; this file supplies its vocabulary. */
#include "env/vecenv_impl.h"

#if defined(VECENV_X86) && defined(__AVX512BW__)
#include <immintrin.h>

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

#define VECENV_TEMPLATE
#include "env/vecenv_impl.h"

void vecenv_kernel_avx512(vecenv_state *st, const uint8_t *moves, const vecenv_out *out, long steps)
{
    ve_dispatch(st, moves, out, steps);
}
#endif
