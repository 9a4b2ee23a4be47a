/* vecenv_gym.c — Gymnasium steps of the batched stepper (contract: env/vecenv.h, "Gymnasium steps"): the
 * entry points, the portable move check, the portable row emitter the scalar kernel calls once per block
 * (the AVX2 and AVX-512 kernels write their rows from registers, vecenv_avx2.c / vecenv_avx512.c), and the
 * portable mask pass for a SIMD kernel asked for a mask row stride not its own. */
#include <stddef.h>
#include <stdint.h>

#include "env/vecenv.h"
#include "env/vecenv_impl.h"

void vecenv_gym_rows(const vecenv_state *st, size_t off, size_t w, const uint8_t *over, const int8_t *winner,
                     const uint8_t *pick)
{
    const vecenv_gym_out *g = st->gym;
    const size_t m = (size_t)st->m, d = 2 * m + 2;
    const float scale = 1.0f / (float)st->seeds; /* as kalah_encode: count * (1/seeds) */
    const int kept = g->kept && g->rewards && g->ended;
    int plane[2 * KALAH_MAX_PITS + 2];           /* kalah_encode order: own pits, opponent's, own store, theirs */
    for (size_t j = 0; j < d; j++)
        plane[j] = (int)(j < m ? j : j < 2 * m ? j + 1 : j == 2 * m ? m : 2 * m + 1);
    for (size_t j = 0; j < w; j++) {
        const size_t i = off + j;
        if (g->obs)
            for (size_t k = 0; k < d; k++)
                g->obs[i * d + k] = st->cell[ve_at(st, plane[k], i)] * scale;
        if (g->obs8)
            for (size_t k = 0; k < d; k++)
                g->obs8[i * d + k] = st->cell[ve_at(st, plane[k], i)];
        if (g->mask) {
            const size_t stride = g->mask_stride ? g->mask_stride : m;
            for (size_t k = 0; k < stride; k++)
                g->mask[i * stride + k] = k < m && st->cell[ve_at(st, (int)k, i)] != 0;
        }
        if (g->to_play)
            g->to_play[i] = (int8_t)st->side[i];
        if (g->rewards && (!kept || over[j] || g->ended[i])) { /* integer negation first: a draw is +0.0 */
            g->rewards[2 * i] = over[j] ? (float)winner[j] : 0.0f;
            g->rewards[2 * i + 1] = over[j] ? (float)-winner[j] : 0.0f;
        }
        if (g->ended)
            g->ended[i] = over[j] != 0;
        if (g->sample)
            g->sample[i] = pick[j];
    }
}

/* vecenv_gym_moves and vecenv_gym_moves8: actions[i] is int64 when wide, else a byte. */
static int gym_moves(const vecenv *v, const void *actions, int wide, int n, uint8_t *moves, int *bad)
{
    const vecenv_state *st = &v->st;
    const size_t B = (size_t)st->batch, m = (size_t)st->m;
    if (n < 1 || (size_t)n > B)
        return KALAH_EINVAL;
#ifdef VECENV_X86
    if (v->kernel == VECENV_AVX512)
        return vecenv_gym_moves_avx512(st, actions, wide, (size_t)n, moves, bad);
    if (v->kernel == VECENV_AVX2)
        return vecenv_gym_moves_avx2(st, actions, wide, (size_t)n, moves, bad);
#endif
    for (size_t i = 0; i < (size_t)n; i++) {
        unsigned legal = 0;
        for (size_t c = 0; c < m; c++)
            legal |= (unsigned)(st->cell[ve_at(st, (int)c, i)] != 0) << c;
        /* a negative action wraps high: out of range */
        const uint64_t a = wide ? (uint64_t)((const int64_t *)actions)[i] : ((const uint8_t *)actions)[i];
        if (legal && (a >= m || !(legal >> a & 1))) {
            *bad = (int)i;
            return KALAH_EILLEGAL;
        }
        moves[i] = (uint8_t)a;
    }
    for (size_t i = (size_t)n; i < B; i++)
        moves[i] = 0;
    return KALAH_OK;
}

int vecenv_gym_moves(const vecenv *v, const int64_t *actions, int n, uint8_t *moves, int *bad)
{
    return gym_moves(v, actions, 1, n, moves, bad);
}

int vecenv_gym_moves8(const vecenv *v, const uint8_t *actions, int n, uint8_t *moves, int *bad)
{
    return gym_moves(v, actions, 0, n, moves, bad);
}

/* The mask rows of every board at the given stride, from the boards as they are (vecenv_gym_rows' bytes):
 * for a kernel asked for a stride it does not write itself. */
static void gym_mask_rows(const vecenv_state *st, uint8_t *mask, size_t stride)
{
    for (size_t i = 0; i < (size_t)st->batch; i++)
        for (size_t k = 0; k < stride; k++)
            mask[i * stride + k] = k < (size_t)st->m && st->cell[ve_at(st, (int)k, i)] != 0;
}

static int gym_call(vecenv *v, const uint8_t *moves, int n, const vecenv_gym_out *out, long steps)
{
    const size_t m = (size_t)v->st.m, stride = out->mask_stride ? out->mask_stride : m;
    if (v->st.auto_reset || n < 1 || n > v->st.batch || stride < m)
        return KALAH_EINVAL;
    /* the SIMD kernels write packed rows, the scalar one any stride */
    const int own = v->kernel == VECENV_SCALAR || stride == m;
    vecenv_gym_out rows = *out;
    if (!own)
        rows.mask = NULL;
    rows.mask_stride = stride;
    v->st.gym = &rows;
    v->st.active = (size_t)n;
    v->fn(&v->st, moves, NULL, steps);
    v->st.gym = NULL;
    if (!own && out->mask)
        gym_mask_rows(&v->st, out->mask, stride);
    return KALAH_OK;
}

int vecenv_gym_step(vecenv *v, const uint8_t *moves, int n, const vecenv_gym_out *out)
{
    return gym_call(v, moves, n, out, 1);
}

int vecenv_gym_observe(vecenv *v, int n, const vecenv_gym_out *out) { return gym_call(v, NULL, n, out, 0); }
