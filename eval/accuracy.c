/* accuracy.c — an agent's moves on a solved position set against perfect play (definitions in accuracy.h). */
#include "eval/accuracy.h"
#include "env/errbuf.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/game_agent.h"
#include "eval/gposset.h"
#include "eval/elo.h"

#define set_err(err, ...) errbuf_set(err, ACCURACY_ERRLEN, __VA_ARGS__)

#define Z95 1.959963984540054

uint64_t accuracy_game_seed(uint64_t seed, int i)
{
    /* SplitMix64 (Steele, Lea & Flood 2014) finalisation of the pair, so nearby indices get unrelated seeds. */
    uint64_t z = seed + 0x9e3779b97f4a7c15ULL * ((uint64_t)i + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void accuracy_result_free(accuracy_result *res)
{
    if (!res)
        return;
    free(res->move);
    free(res->regret);
    free(res->agent);
    memset(res, 0, sizeof *res);
}

/* Running sums of one group of positions. */
typedef struct {
    int n, optimal, blunders;
    double sum, sumsq;
} acc_sums;

static void finish(const acc_sums *s, accuracy_stats *o)
{
    memset(o, 0, sizeof *o);
    o->positions = s->n;
    o->optimal = s->optimal;
    o->blunders = s->blunders;
    if (!s->n) { /* an empty phase: no evidence, the whole range */
        o->optimal_hi = o->blunder_hi = 1;
        return;
    }
    double n = s->n;
    o->optimal_rate = s->optimal / n;
    o->blunder_rate = s->blunders / n;
    elo_wilson(s->optimal, n, Z95, &o->optimal_lo, &o->optimal_hi);
    elo_wilson(s->blunders, n, Z95, &o->blunder_lo, &o->blunder_hi);
    o->mean_regret = s->sum / n;
    double var = s->n > 1 ? fmax(0.0, (s->sumsq - s->sum * s->sum / n) / (n - 1)) : 0.0;
    double half = Z95 * sqrt(var / n);
    o->regret_lo = fmax(0.0, o->mean_regret - half);
    o->regret_hi = o->mean_regret + half;
}

/* ---- the parallel run ---- */

int accuracy_tally(const gps_set *set, const int *moves, accuracy_result *out, char *err)
{
    memset(out, 0, sizeof *out);
    const int n = (int)gps_count(set);
    const game *g = gps_game(set);
    if (n == 0) {
        set_err(err, "the position set has no positions");
        return ACCURACY_EINVAL;
    }
    out->move = malloc((size_t)n * sizeof *out->move);
    out->regret = malloc((size_t)n * sizeof *out->regret);
    if (!out->move || !out->regret) {
        accuracy_result_free(out);
        set_err(err, "out of memory");
        return ACCURACY_ENOMEM;
    }
    out->n = n;
    acc_sums all = {0}, ph[PS_PHASES] = {{0}};
    for (int i = 0; i < n; i++) {
        const gps_entry *e = gps_get_const(set, (size_t)i);
        int k = moves[i];
        if (k < 0 || k >= GAME_MAX_MOVES || e->values[k] == GPS_NO_VALUE) {
            set_err(err, "position %d (line %d): move %d is not legal there", i, e->line, k);
            accuracy_result_free(out);
            return ACCURACY_EINVAL;
        }
        int regret = e->value - e->values[k];
        out->move[i] = k;
        out->regret[i] = regret;
        acc_sums *grp[2] = {&all, &ph[gps_phase(g, e->seeds_in_pits)]};
        for (int j = 0; j < 2; j++) {
            grp[j]->n++;
            grp[j]->optimal += regret == 0;
            grp[j]->blunders += regret >= ACCURACY_BLUNDER;
            grp[j]->sum += regret;
            grp[j]->sumsq += (double)regret * regret;
        }
    }
    finish(&all, &out->all);
    for (int p = 0; p < PS_PHASES; p++)
        finish(&ph[p], &out->phase[p]);
    return ACCURACY_OK;
}

typedef struct {
    const gps_set *set;
    const accuracy_config *cfg;
    int *moves;
    int next, done, failed;
    char *err;
    pthread_mutex_t lock;
} run_state;

typedef struct {
    run_state *run;
    game_agent *a;
} worker_ctx;

static void *worker(void *arg)
{
    worker_ctx *w = arg;
    run_state *run = w->run;
    const int n = (int)gps_count(run->set);
    for (;;) {
        pthread_mutex_lock(&run->lock);
        int i = run->failed ? n : run->next++;
        pthread_mutex_unlock(&run->lock);
        if (i >= n)
            return NULL;
        const gps_entry *e = gps_get_const(run->set, (size_t)i);
        int mv = -1;
        game_agent_new_game(w->a, &e->pos, accuracy_game_seed(run->cfg->seed, i));
        int rc = game_agent_choose(w->a, &e->pos, &mv);
        pthread_mutex_lock(&run->lock);
        if (rc != AGENT_OK) {
            if (!run->failed)
                set_err(run->err, "agent '%s' at position %d (line %d): %s", game_agent_spec(w->a), i, e->line,
                        game_agent_error(w->a));
            run->failed = 1;
        } else {
            run->moves[i] = mv;
            run->done++;
            if (run->cfg->progress)
                run->cfg->progress(run->cfg->progress_ud, run->done, n);
        }
        pthread_mutex_unlock(&run->lock);
    }
}

int accuracy_run(const gps_set *set, const char *spec, const accuracy_config *cfg, accuracy_result *out, char *err)
{
    memset(out, 0, sizeof *out);
    const int n = (int)gps_count(set);
    if (cfg->threads < 1 || cfg->threads > 256) {
        set_err(err, "threads %d is not in 1..256", cfg->threads);
        return ACCURACY_EINVAL;
    }
    if (n == 0) {
        set_err(err, "the position set has no positions");
        return ACCURACY_EINVAL;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int nt = cfg->threads < n ? cfg->threads : n, rc = ACCURACY_OK;
    worker_ctx *ctx = calloc((size_t)nt, sizeof *ctx);
    pthread_t *tid = calloc((size_t)nt, sizeof *tid);
    run_state run = {set, cfg, malloc((size_t)n * sizeof(int)), 0, 0, 0, err, PTHREAD_MUTEX_INITIALIZER};
    if (!ctx || !tid || !run.moves) {
        set_err(err, "out of memory");
        rc = ACCURACY_ENOMEM;
        goto out;
    }
    char aerr[AGENT_ERRLEN];
    for (int t = 0; t < nt; t++) {
        ctx[t].run = &run;
        ctx[t].a = cfg->az ? game_agent_create_az(gps_game(set), cfg->az, aerr)
                           : game_agent_create(spec, gps_game(set), aerr);
        if (!ctx[t].a) {
            set_err(err, "%s", aerr);
            rc = ACCURACY_EAGENT;
            goto out;
        }
    }
    int started = 0;
    for (; started < nt - 1; started++)
        if (pthread_create(&tid[started], NULL, worker, &ctx[started + 1]))
            break;
    worker(&ctx[0]);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    if (run.failed) {
        rc = ACCURACY_EFAIL;
        goto out;
    }
    rc = accuracy_tally(set, run.moves, out, err);
    if (rc == ACCURACY_OK)
        out->agent = strdup(game_agent_describe(ctx[0].a));
out:
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc == ACCURACY_OK)
        out->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    for (int t = 0; ctx && t < nt; t++)
        game_agent_free(ctx[t].a);
    free(ctx);
    free(tid);
    free(run.moves);
    pthread_mutex_destroy(&run.lock);
    return rc;
}
