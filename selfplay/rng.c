/* rng.c — xoshiro256** + SplitMix64 seeding, gamma and Dirichlet draws (sources in rng.h). */
#include "selfplay/rng.h"

#include <math.h>

uint64_t mcts_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void mcts_rng_seed(mcts_rng *r, uint64_t seed)
{
    uint64_t st = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = mcts_splitmix64(&st);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t mcts_rng_next(mcts_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint32_t mcts_rng_below(mcts_rng *r, uint32_t n)
{
    /* Lemire 2019, "Fast random integer generation in an interval". */
    uint64_t m = (uint64_t)(uint32_t)(mcts_rng_next(r) >> 32) * n;
    uint32_t lo = (uint32_t)m;
    if (lo < n) {
        uint32_t thresh = (uint32_t)-n % n;
        while (lo < thresh) {
            m = (uint64_t)(uint32_t)(mcts_rng_next(r) >> 32) * n;
            lo = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

double mcts_rng_uniform(mcts_rng *r) { return (double)(mcts_rng_next(r) >> 11) * 0x1.0p-53; }

double mcts_rng_normal(mcts_rng *r)
{
    double u1;
    do
        u1 = mcts_rng_uniform(r);
    while (u1 <= 0.0);
    double u2 = mcts_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double mcts_rng_gamma(mcts_rng *r, double shape)
{
    if (shape < 1.0) {
        /* G(a) = G(a + 1) * U^(1/a); U drawn in (0, 1] so the result stays > 0 unless it underflows. */
        double g = mcts_rng_gamma(r, shape + 1.0), u = 1.0 - mcts_rng_uniform(r);
        double v = g * pow(u, 1.0 / shape);
        return v > 0.0 ? v : 1e-300;
    }
    double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = mcts_rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = mcts_rng_uniform(r);
        if (u < 1.0 - 0.0331 * x * x * x * x)
            return d * v;
        if (u > 0.0 && log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
            return d * v;
    }
}

void mcts_rng_dirichlet(mcts_rng *r, double alpha, int n, double *out)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += out[i] = mcts_rng_gamma(r, alpha);
    for (int i = 0; i < n; i++)
        out[i] /= sum;
}
