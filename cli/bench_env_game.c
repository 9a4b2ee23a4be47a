/* Random playouts of any registered game through the game interface (env/game.h) for `sowzero bench env
 * --rules SPEC` where the game has no batched SIMD stepper of its own (Congklak, Oware): one scalar
 * stepper per thread, uniform random legal moves. */
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
    uint64_t games, plies, relays, wins[2], draws;
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
    const int two = game_players(g) == 2;
    const double deadline = now() + w->seconds;
    uint64_t x = w->rng | 1;
    game_pos start;
    game_start(g, &start);
    do {
        for (int n = 0; n < 64; n++) {
            game_pos p = start;
            game_step ev;
            while (!p.over) {
                unsigned legal = game_legal(g, &p);
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                /* multiply-shift on the top 32 bits: a uniform pick among the legal slots */
                int pick = (int)(((x >> 32) * (uint64_t)__builtin_popcount(legal)) >> 32);
                while (pick--)
                    legal &= legal - 1;
                game_apply(g, &p, __builtin_ctz(legal), &ev);
                w->plies++;
                w->relays += ev.relays;
            }
            w->games++;
            if (two) {
                int m = game_margin(g, &p);
                if (m)
                    w->wins[m < 0]++;
                else
                    w->draws++;
            }
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
    game_worker sum = {0};
    for (long t = 0; t < started; t++) {
        pthread_join(tid[t], NULL);
        sum.games += w[t].games;
        sum.plies += w[t].plies;
        sum.relays += w[t].relays;
        sum.wins[0] += w[t].wins[0];
        sum.wins[1] += w[t].wins[1];
        sum.draws += w[t].draws;
    }
    const double secs = now() - t0, games = (double)(sum.games ? sum.games : 1);
    free(w);
    free(tid);
    if (started < threads) {
        game_free(g);
        return 1;
    }
    int rc = 0;
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "games_per_s", (double)sum.games / secs);
        cJSON_AddNumberToObject(o, "sows_per_s", (double)sum.plies / secs);
        cJSON_AddNumberToObject(o, "threads", (double)threads);
        cJSON_AddStringToObject(o, "kernel", "scalar");
        cJSON_AddNumberToObject(o, "seconds", secs);
        cJSON_AddNumberToObject(o, "games", (double)sum.games);
        cJSON_AddNumberToObject(o, "sows_per_game", (double)sum.plies / games);
        cJSON_AddNumberToObject(o, "relays_per_sow", (double)sum.relays / (double)(sum.plies ? sum.plies : 1));
        if (game_players(g) == 2) {
            cJSON_AddNumberToObject(o, "south_win_rate", (double)sum.wins[0] / games);
            cJSON_AddNumberToObject(o, "draw_rate", (double)sum.draws / games);
        }
        cJSON_AddStringToObject(o, "rules", game_spec(g));
        rc = cli_print_json(o);
    } else {
        printf("rules=%s kernel=scalar threads=%ld seconds=%.3f games=%llu\ngames/s=%.0f sows/s=%.0f "
               "sows/game=%.2f relays/sow=%.3f",
               game_spec(g), threads, secs, (unsigned long long)sum.games, (double)sum.games / secs,
               (double)sum.plies / secs, (double)sum.plies / games,
               (double)sum.relays / (double)(sum.plies ? sum.plies : 1));
        if (game_players(g) == 2)
            printf(" south_win=%.4f draw=%.4f", (double)sum.wins[0] / games, (double)sum.draws / games);
        putchar('\n');
    }
    game_free(g);
    return rc;
}
