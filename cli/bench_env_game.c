/* Random playouts of any game but Kalah for `sowzero bench env --rules GAME:...`: the scalar game
 * interface (env/game.h) on N threads; `sows` = plies (a whole relay chain is one). Kalah's bench env keeps
 * its SIMD batched stepper (bench_env.c). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/bench.h"
#include "cli/cli.h"
#include "env/game.h"

typedef struct {
    const game *g;
    double seconds;
    uint64_t rng;
    uint64_t games, sows, relays, draws, first[GAME_MAX_PLAYERS];
} game_worker;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *game_work(void *arg)
{
    game_worker *w = arg;
    const game *g = w->g;
    const int np = game_players(g);
    const double deadline = now() + w->seconds;
    uint64_t x = w->rng | 1;
    do {
        for (int n = 0; n < 256; n++) {
            game_pos p;
            game_start(g, &p);
            while (!p.over) {
                unsigned legal = game_legal(g, &p);
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                /* multiply-shift on the top 32 bits: a uniform pick among the legal pits */
                int pick = (int)(((x >> 32) * (uint64_t)__builtin_popcount(legal)) >> 32);
                while (pick--)
                    legal &= legal - 1;
                game_step ev;
                game_apply(g, &p, __builtin_ctz(legal), &ev);
                w->sows++;
                w->relays += ev.relays;
            }
            w->games++;
            double v[GAME_MAX_PLAYERS], best = -2;
            game_values(g, &p, v);
            for (int q = 0; q < np; q++)
                best = v[q] > best ? v[q] : best;
            for (int q = 0; q < np; q++) /* the first place, shared included (a two-player draw) */
                w->first[q] += v[q] == best;
            w->draws += np == 2 && v[0] == v[1];
        }
    } while (now() < deadline);
    return NULL;
}

int bench_env_game(const char *spec, long threads, double seconds, long seed, int json)
{
    char err[GAME_ERRLEN];
    game *g = game_create(spec, err);
    if (!g) {
        cli_error("bench env", "--rules '%s': %s", spec, err);
        return 2;
    }
    const int np = game_players(g);
    game_worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    if (!w || !tid) {
        free(w);
        free(tid);
        game_free(g);
        cli_error("bench env", "out of memory");
        return 1;
    }
    const double t0 = now();
    long started = 0;
    for (long t = 0; t < threads; t++) {
        w[t] = (game_worker){.g = g, .seconds = seconds, .rng = 0x9E3779B97F4A7C15ull * (uint64_t)(seed + t + 1)};
        if (pthread_create(&tid[t], NULL, game_work, &w[t])) {
            cli_error("bench env", "cannot start thread %ld", t);
            break;
        }
        started++;
    }
    uint64_t games = 0, sows = 0, relays = 0, draws = 0, first[GAME_MAX_PLAYERS] = {0};
    for (long t = 0; t < started; t++) {
        pthread_join(tid[t], NULL);
        games += w[t].games;
        sows += w[t].sows;
        relays += w[t].relays;
        draws += w[t].draws;
        for (int q = 0; q < GAME_MAX_PLAYERS; q++)
            first[q] += w[t].first[q];
    }
    const double secs = now() - t0;
    free(w);
    free(tid);
    char rbuf[GAME_SPEC_MAX];
    snprintf(rbuf, sizeof rbuf, "%s", game_spec(g));
    game_free(g);
    if (started < threads)
        return 1;
    if (json) {
        cJSON *o = cJSON_CreateObject(), *fr = NULL;
        cJSON_AddNumberToObject(o, "games_per_s", (double)games / secs);
        cJSON_AddNumberToObject(o, "sows_per_s", (double)sows / secs);
        cJSON_AddNumberToObject(o, "threads", (double)threads);
        cJSON_AddStringToObject(o, "kernel", "scalar");
        cJSON_AddNumberToObject(o, "seconds", secs);
        cJSON_AddNumberToObject(o, "games", (double)games);
        cJSON_AddNumberToObject(o, "sows_per_game", (double)sows / (double)(games ? games : 1));
        cJSON_AddNumberToObject(o, "relays_per_sow", (double)relays / (double)(sows ? sows : 1));
        if (np == 2) { /* as Kalah's bench env reports them */
            cJSON_AddNumberToObject(o, "south_win_rate", (double)(first[0] - draws) / (double)(games ? games : 1));
            cJSON_AddNumberToObject(o, "draw_rate", (double)draws / (double)(games ? games : 1));
        }
        fr = cJSON_AddArrayToObject(o, "first_place_rate");
        for (int q = 0; q < np; q++)
            cJSON_AddItemToArray(fr, cJSON_CreateNumber((double)first[q] / (double)(games ? games : 1)));
        cJSON_AddStringToObject(o, "rules", rbuf);
        return cli_print_json(o);
    }
    printf("rules=%s kernel=scalar threads=%ld seconds=%.3f games=%llu\ngames/s=%.0f sows/s=%.0f sows/game=%.2f "
           "relays/sow=%.3f first:", rbuf, threads, secs, (unsigned long long)games, (double)games / secs,
           (double)sows / secs, (double)sows / (double)(games ? games : 1), (double)relays / (double)(sows ? sows : 1));
    for (int q = 0; q < np; q++)
        printf(" %d=%.4f", q, (double)first[q] / (double)(games ? games : 1));
    putchar('\n');
    return 0;
}
