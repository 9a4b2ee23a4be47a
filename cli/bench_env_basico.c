/* Random playouts of Mancala básico for `sowzero bench env --rules basico:...`: the plain scalar
 * env/basico.h on N threads (the game's circuit changes as players leave, so there is no SIMD kernel). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/bench.h"
#include "cli/cli.h"
#include "env/basico.h"

typedef struct {
    const basico_rules *rules;
    double seconds;
    uint64_t rng;
    uint64_t games, sows, first[BASICO_MAX_PLAYERS];
} basico_worker;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *basico_work(void *arg)
{
    basico_worker *w = arg;
    const basico_rules *r = w->rules;
    const double deadline = now() + w->seconds;
    uint64_t x = w->rng | 1;
    do {
        for (int g = 0; g < 256; g++) {
            basico_pos p;
            basico_start(r, &p);
            while (!p.over) {
                unsigned legal = basico_legal(r, &p);
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                /* multiply-shift on the top 32 bits: a uniform pick among the legal pits */
                int pick = (int)(((x >> 32) * (uint64_t)__builtin_popcount(legal)) >> 32);
                while (pick--)
                    legal &= legal - 1;
                basico_play(r, &p, __builtin_ctz(legal), NULL);
                w->sows++;
            }
            w->games++;
            for (int q = 0; q < r->players; q++)
                w->first[q] += p.place[q] == 1;
        }
    } while (now() < deadline);
    return NULL;
}

int bench_env_basico(const char *spec, long threads, double seconds, long seed, int json)
{
    basico_rules r;
    char err[KALAH_ERRLEN];
    if (basico_rules_parse(spec, &r, err) != BASICO_OK) {
        cli_error("bench env", "--rules '%s': %s", spec, err);
        return 2;
    }
    basico_worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    if (!w || !tid) {
        free(w);
        free(tid);
        cli_error("bench env", "out of memory");
        return 1;
    }
    const double t0 = now();
    long started = 0;
    for (long t = 0; t < threads; t++) {
        w[t] = (basico_worker){.rules = &r, .seconds = seconds,
                               .rng = 0x9E3779B97F4A7C15ull * (uint64_t)(seed + t + 1)};
        if (pthread_create(&tid[t], NULL, basico_work, &w[t])) {
            cli_error("bench env", "cannot start thread %ld", t);
            break;
        }
        started++;
    }
    uint64_t games = 0, sows = 0, first[BASICO_MAX_PLAYERS] = {0};
    for (long t = 0; t < started; t++) {
        pthread_join(tid[t], NULL);
        games += w[t].games;
        sows += w[t].sows;
        for (int q = 0; q < BASICO_MAX_PLAYERS; q++)
            first[q] += w[t].first[q];
    }
    const double secs = now() - t0;
    free(w);
    free(tid);
    if (started < threads)
        return 1;
    char rbuf[128];
    basico_rules_format(&r, rbuf, sizeof rbuf);
    if (json) {
        cJSON *o = cJSON_CreateObject(), *fr = NULL;
        cJSON_AddNumberToObject(o, "games_per_s", (double)games / secs);
        cJSON_AddNumberToObject(o, "sows_per_s", (double)sows / secs);
        cJSON_AddNumberToObject(o, "threads", (double)threads);
        cJSON_AddStringToObject(o, "kernel", "scalar");
        cJSON_AddNumberToObject(o, "seconds", secs);
        cJSON_AddNumberToObject(o, "games", (double)games);
        cJSON_AddNumberToObject(o, "sows_per_game", (double)sows / (double)(games ? games : 1));
        fr = cJSON_AddArrayToObject(o, "first_place_rate");
        for (int q = 0; q < r.players; q++)
            cJSON_AddItemToArray(fr, cJSON_CreateNumber((double)first[q] / (double)(games ? games : 1)));
        cJSON_AddStringToObject(o, "rules", rbuf);
        return cli_print_json(o);
    }
    printf("rules=%s kernel=scalar threads=%ld seconds=%.3f games=%llu\ngames/s=%.0f sows/s=%.0f sows/game=%.2f first:",
           rbuf, threads, secs, (unsigned long long)games, (double)games / secs, (double)sows / secs,
           (double)sows / (double)(games ? games : 1));
    for (int q = 0; q < r.players; q++)
        printf(" %d=%.4f", q, (double)first[q] / (double)(games ? games : 1));
    putchar('\n');
    return 0;
}
