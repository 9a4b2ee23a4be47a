/* rng.h — the small, seedable random generator of the selfplay module (search noise, temperature sampling,
 * rollouts, replay sampling). A plain value (4 words): copy it, store it in a checkpoint as bytes.
 *
 * Generator: xoshiro256** 1.0 (Blackman & Vigna 2018, https://prng.di.unimi.it/xoshiro256starstar.c),
 * seeded by expanding a 64-bit seed with SplitMix64 (Steele, Lea & Flood 2014) as the authors recommend.
 * Gamma draws: Marsaglia & Tsang 2000, "A simple method for generating gamma variables" (shape >= 1), with
 * the shape boost G(a) = G(a + 1) * U^(1/a) for a < 1 (same paper, §6). Normal draws: Box–Muller.
 * Same seed → same sequence on every platform (integer arithmetic; doubles via IEEE-754 operations only).
 */
#ifndef SOWZERO_SELFPLAY_RNG_H
#define SOWZERO_SELFPLAY_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} mcts_rng;

/* Seeds r from one 64-bit value (any value, 0 included). */
void mcts_rng_seed(mcts_rng *r, uint64_t seed);

/* SplitMix64 step: advances *state and returns the next output. Used to derive independent seeds
 * (per thread, per game) from a master seed. */
uint64_t mcts_splitmix64(uint64_t *state);

/* Next 64 random bits. */
uint64_t mcts_rng_next(mcts_rng *r);

/* Uniform integer in [0, n), n >= 1 (Lemire's multiply-shift with rejection: no modulo bias). */
uint32_t mcts_rng_below(mcts_rng *r, uint32_t n);

/* Uniform double in [0, 1) with 53 random bits. */
double mcts_rng_uniform(mcts_rng *r);

/* Standard normal N(0, 1) (Box–Muller, one value per call). */
double mcts_rng_normal(mcts_rng *r);

/* Gamma(shape, 1) for shape > 0 (Marsaglia–Tsang, boosted below 1); always > 0 and finite. */
double mcts_rng_gamma(mcts_rng *r, double shape);

/* A Dirichlet(alpha, ..., alpha) sample over n components into out[n] (n >= 1, alpha > 0): independent
 * Gamma(alpha, 1) draws divided by their sum; sums to 1 (up to rounding). */
void mcts_rng_dirichlet(mcts_rng *r, double alpha, int n, double *out);

#endif
