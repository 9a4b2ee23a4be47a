/* vecenv_playouts.c — Kalah's batched random playouts behind the game interface (game_kind.playouts,
 * env/game.h): the SIMD stepper of env/vecenv.h, in random mode (vecenv_run_random: moves drawn inside the
 * kernel, boards kept in registers) or as the Python VecEnv's Gymnasium step (vecenv_gym_step, every output
 * row written). */
#include <stdlib.h>

#include "env/errbuf.h"
#include "env/game.h"
#include "env/vecenv.h"
#include "env/vecenv_playouts.h"

typedef struct {
    vecenv *env;
    int mode, observed;
    vecenv_gym_out gym; /* the rows of a Gymnasium mode; gym.sample doubles as the moves */
} kalah_playouts;

static void gym_free(vecenv_gym_out *g)
{
    free(g->obs);
    free(g->obs8);
    free(g->mask);
    free(g->to_play);
    free(g->rewards);
    free(g->ended);
    free(g->sample);
}

/* The rows a Gymnasium mode writes, as the Python VecEnv holds them; 0, or -1 out of memory. */
static int gym_alloc(vecenv_gym_out *g, const kalah_rules *r, int batch, int mode)
{
    const size_t B = (size_t)batch, m = (size_t)r->pits;
    const int obs = mode == GAME_PLAYOUT_GYM, obs8 = mode == GAME_PLAYOUT_GYM_U8;
    *g = (vecenv_gym_out){.obs = obs ? malloc(B * (2 * m + 2) * sizeof(float)) : NULL,
                          .obs8 = obs8 ? malloc(B * (2 * m + 2)) : NULL, .mask = malloc(B * m),
                          .to_play = malloc(B), .rewards = calloc(2 * B, sizeof(float)),
                          .ended = calloc(B, 1), .sample = malloc(B), .kept = 1}; /* zeros: kept holds */
    return (obs && !g->obs) || (obs8 && !g->obs8) || !g->mask || !g->to_play || !g->rewards || !g->ended ||
                   !g->sample
               ? -1
               : 0;
}

static void kp_free(void *s)
{
    kalah_playouts *k = s;
    if (!k)
        return;
    vecenv_free(k->env);
    gym_free(&k->gym);
    free(k);
}

static void *kp_create(const void *r, int batch, const char *kernel, int mode, uint64_t seed, char *err)
{
    vecenv_kernel kn;
    if (vecenv_kernel_parse(kernel, &kn) != KALAH_OK) {
        errbuf_set(err, GAME_ERRLEN, "kernel '%s': expected auto, avx512, avx2 or scalar", kernel);
        return NULL;
    }
    if (!vecenv_kernel_supported(kn)) {
        errbuf_set(err, GAME_ERRLEN, "kernel %s: this CPU does not support it", vecenv_kernel_name(kn));
        return NULL;
    }
    kalah_playouts *k = calloc(1, sizeof *k);
    if (!k) {
        errbuf_set(err, GAME_ERRLEN, "out of memory");
        return NULL;
    }
    k->mode = mode;
    char kerr[KALAH_ERRLEN];
    if (vecenv_create(r, batch, kn, mode == GAME_PLAYOUT_RANDOM, seed, &k->env, kerr)) {
        errbuf_set(err, GAME_ERRLEN, "%s", kerr);
        kp_free(k);
        return NULL;
    }
    if (mode != GAME_PLAYOUT_RANDOM && gym_alloc(&k->gym, r, batch, mode)) {
        errbuf_set(err, GAME_ERRLEN, "out of memory");
        kp_free(k);
        return NULL;
    }
    return k;
}

static void kp_run(void *s, long steps)
{
    kalah_playouts *k = s;
    if (k->mode == GAME_PLAYOUT_RANDOM) {
        vecenv_run_random(k->env, steps);
        return;
    }
    const int B = vecenv_batch(k->env);
    if (!k->observed) { /* the first moves, as VecEnv.reset draws them */
        vecenv_gym_observe(k->env, B, &(vecenv_gym_out){.sample = k->gym.sample});
        k->observed = 1;
    }
    for (long t = 0; t < steps; t++)
        vecenv_gym_step(k->env, k->gym.sample, B, &k->gym);
}

static void kp_stats(const void *s, game_playout_stats *out)
{
    vecenv_stats v;
    vecenv_stats_get(((const kalah_playouts *)s)->env, &v);
    *out = (game_playout_stats){.sows = v.sows, .games = v.games, .shared = v.draws,
                                .first = {v.south_wins, v.north_wins}};
}

static const char *kp_kernel(const void *s)
{
    return vecenv_kernel_name(vecenv_kernel_used(((const kalah_playouts *)s)->env));
}

const game_playout_ops kalah_playout_ops = {
    .batch_multiple = VECENV_LANES,
    .create = kp_create,
    .run = kp_run,
    .stats = kp_stats,
    .kernel = kp_kernel,
    .free = kp_free,
};
