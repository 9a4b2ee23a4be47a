/* sowzero bench env — random-playout throughput of any game's batched stepper (game_playouts_create,
 * env/game.h: Kalah's SIMD stepper, every other game's scalar one) on N threads, each with its own boards
 * (docs/design.md §4, §5: compare with ../shared/bench/compare-env.sh). */
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/bench.h"
#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "env/game.h"

#define CMD "bench env"

static void help(void)
{
    puts("usage: sowzero bench env [--threads N] [--seconds S | --steps N] [--batch B] [--rules SPEC]\n"
         "                         [--kernel K] [--mode M] [--seed N] [--json]\n"
         "Random playouts with the game's batched stepper (Kalah: SIMD kernels; every other game: the scalar\n"
         "stepper of the game interface): every board sows a uniformly random legal pit each step and\n"
         "finished games restart at once; reports games/s and sowings/s over all threads.\n"
         "  --threads N      worker threads, each with its own boards (default 1)\n"
         "  --seconds S      how long to run (default 3)\n"
         "  --steps N        run exactly N steps per thread instead (deterministic: same counts on every\n"
         "                   kernel for the same seed)\n"
         "  --batch B        boards per thread (default 128), a multiple of the stepper's lanes (Kalah: 64)\n"
         "  --rules SPEC     the game and its rules (default kalah)\n"
         "  --kernel K       auto, avx512, avx2 or scalar (default auto: the best this CPU runs; games\n"
         "                   without SIMD kernels have scalar only)\n"
         "  --mode M         playout (default): moves drawn inside the kernel, boards kept in registers for\n"
         "                   many steps, nothing written; gym: vecenv_gym_step, the Python VecEnv's step\n"
         "                   without Python (next-step restarts, every output row written: observations,\n"
         "                   masks, to_play, rewards, ended, and the next random moves); gym-noobs: the same\n"
         "                   without observations; gym-u8: with uint8 observations (obs_dtype='uint8': the\n"
         "                   seed counts as bytes). The gym modes need the game's batched Gymnasium step\n"
         "                   (Kalah)\n"
         "  --seed N         random seed (default 1)\n"
         "  --json           print {\"games_per_s\",\"sows_per_s\",\"threads\",\"kernel\",\"batch\",\"seconds\",\n"
         "                   \"games\",\"sows\",\"sows_per_game\",\"relays_per_sow\",\"first_place_rate\",\n"
         "                   \"rules\",\"mode\",\"cpu_seconds\",\"sows_per_cpu_s\"}, with two players also\n"
         "                   \"south_win_rate\",\"north_win_rate\",\"draw_rate\": first_place_rate[q] is the\n"
         "                   share of games seat q won alone; cpu_seconds is the process's CPU time over the\n"
         "                   run, a steadier rate than the wall clock's on a loaded machine");
}

/* The start line: workers wait until main says go (1) or abort (-1); deadline is set before go. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;
    double deadline;
} start_line;

static const char *mode_names[GAME_PLAYOUT_MODES] = {"playout", "gym", "gym-noobs", "gym-u8"};

typedef struct {
    game_playouts *boards;
    long steps; /* > 0: exactly this many; else until the deadline */
    long chunk; /* steps between looks at the clock */
    start_line *start;
    game_playout_stats stats;
} worker;

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }

static void *work(void *arg)
{
    worker *w = arg;
    start_line *sl = w->start;
    pthread_mutex_lock(&sl->mu);
    while (!sl->state)
        pthread_cond_wait(&sl->cv, &sl->mu);
    const int state = sl->state;
    const double deadline = sl->deadline;
    pthread_mutex_unlock(&sl->mu);
    if (state < 0)
        return NULL;
    if (w->steps > 0)
        game_playouts_run(w->boards, w->steps);
    else
        do
            game_playouts_run(w->boards, w->chunk);
        while (now() < deadline);
    game_playouts_stats(w->boards, &w->stats);
    return NULL;
}

/* The summed counts as text or JSON; returns the exit status. */
static int report(const game *g, const char *kname, int mode, long threads, long batch, double secs, double cpu,
                  const game_playout_stats *sum, int json)
{
    const int np = game_players(g);
    const double games = (double)sum->games, n = games > 0 ? games : 1, sows = (double)sum->sows;
    if (json) {
        cJSON *o = cJSON_CreateObject(), *fr;
        cJSON_AddNumberToObject(o, "games_per_s", games / secs);
        cJSON_AddNumberToObject(o, "sows_per_s", sows / secs);
        cJSON_AddNumberToObject(o, "threads", (double)threads);
        cJSON_AddStringToObject(o, "kernel", kname);
        cJSON_AddNumberToObject(o, "batch", (double)batch);
        cJSON_AddNumberToObject(o, "seconds", secs);
        cJSON_AddNumberToObject(o, "games", games);
        cJSON_AddNumberToObject(o, "sows", sows);
        cJSON_AddNumberToObject(o, "sows_per_game", sows / n);
        cJSON_AddNumberToObject(o, "relays_per_sow", (double)sum->relays / (sows > 0 ? sows : 1));
        if (np == 2) {
            cJSON_AddNumberToObject(o, "south_win_rate", (double)sum->first[0] / n);
            cJSON_AddNumberToObject(o, "north_win_rate", (double)sum->first[1] / n);
            cJSON_AddNumberToObject(o, "draw_rate", (double)sum->shared / n);
        }
        fr = cJSON_AddArrayToObject(o, "first_place_rate");
        for (int q = 0; q < np; q++)
            cJSON_AddItemToArray(fr, cJSON_CreateNumber((double)sum->first[q] / n));
        cJSON_AddStringToObject(o, "rules", game_spec(g));
        cJSON_AddStringToObject(o, "mode", mode_names[mode]);
        cJSON_AddNumberToObject(o, "cpu_seconds", cpu);
        cJSON_AddNumberToObject(o, "sows_per_cpu_s", sows / (cpu > 0 ? cpu : secs));
        return cli_print_json(o);
    }
    printf("rules=%s kernel=%s mode=%s threads=%ld batch=%ld seconds=%.3f games=%.0f sows=%llu\n"
           "games/s=%.0f sows/s=%.0f sows/game=%.2f relays/sow=%.3f",
           game_spec(g), kname, mode_names[mode], threads, batch, secs, games, (unsigned long long)sum->sows,
           games / secs, sows / secs, sows / n, (double)sum->relays / (sows > 0 ? sows : 1));
    if (np == 2)
        printf(" south_win=%.4f north_win=%.4f draw=%.4f\n", (double)sum->first[0] / n, (double)sum->first[1] / n,
               (double)sum->shared / n);
    else {
        printf(" first:");
        for (int q = 0; q < np; q++)
            printf(" %d=%.4f", q, (double)sum->first[q] / n);
        putchar('\n');
    }
    return 0;
}

int bench_env(int argc, char **argv)
{
    static const struct option opts[] = {
        {"threads", required_argument, 0, 't'}, {"seconds", required_argument, 0, 's'},
        {"steps", required_argument, 0, 'n'},   {"batch", required_argument, 0, 'b'},
        {"rules", required_argument, 0, 'r'},   {"kernel", required_argument, 0, 'k'},
        {"seed", required_argument, 0, 'S'},    {"json", no_argument, 0, 'j'},
        {"mode", required_argument, 0, 'm'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    long threads = 1, steps = 0, batch = 128, seed = 1;
    double seconds = 3.0;
    const char *rules = "kalah", *kernel = "auto";
    int json = 0, c, mode = GAME_PLAYOUT_RANDOM;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (!cli_long(CMD, "--threads", optarg, 1, 256, &threads))
                return 2;
            break;
        case 's':
            if (!cli_double(CMD, "--seconds", optarg, 0.001, 86400, &seconds))
                return 2;
            break;
        case 'n':
            if (!cli_long(CMD, "--steps", optarg, 1, 1L << 40, &steps))
                return 2;
            break;
        case 'b':
            if (!cli_long(CMD, "--batch", optarg, 1, 1L << 20, &batch))
                return 2;
            break;
        case 'r': rules = optarg; break;
        case 'k': kernel = optarg; break;
        case 'S':
            if (!cli_long(CMD, "--seed", optarg, 0, INT64_MAX, &seed))
                return 2;
            break;
        case 'm':
            for (mode = 0; mode < GAME_PLAYOUT_MODES && strcmp(optarg, mode_names[mode]); mode++)
                ;
            if (mode == GAME_PLAYOUT_MODES) {
                cli_error(CMD, "--mode '%s': expected playout, gym, gym-noobs or gym-u8", optarg);
                return 2;
            }
            break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error(CMD);
        }
    }
    if (optind != argc) {
        cli_error(CMD, "unexpected argument '%s'", argv[optind]);
        return cli_usage_error(CMD);
    }
    game *g = cli_game_create(CMD, rules);
    if (!g)
        return 2;
    worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    start_line sl = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    int rc = 0;
    if (!w || !tid) {
        cli_error(CMD, "out of memory");
        rc = 1;
    }
    for (long t = 0; t < threads && !rc; t++) {
        char err[GAME_ERRLEN];
        /* thread t's boards draw from seeds seed + t*2^32 + board: disjoint for any batch */
        if (!(w[t].boards = game_playouts_create(g, (int)batch, kernel, mode, (uint64_t)seed + ((uint64_t)t << 32),
                                                 err))) {
            cli_error(CMD, "%s", err);
            rc = strstr(err, "out of memory") ? 1 : 2;
        }
        w[t].steps = steps;
        /* chunks of ~256k sowings: a few ms on any kernel, so the deadline is overshot by little */
        w[t].chunk = 262144 / batch > 0 ? 262144 / batch : 1;
        w[t].start = &sl;
    }
    long started = 0;
    while (!rc && started < threads)
        if (pthread_create(&tid[started], NULL, work, &w[started])) {
            cli_error(CMD, "cannot start thread %ld", started);
            rc = 1;
        } else {
            started++;
        }
    /* the clock starts once every thread has its boards */
    pthread_mutex_lock(&sl.mu);
    const double t0 = now(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    sl.deadline = t0 + seconds;
    sl.state = rc ? -1 : 1;
    pthread_cond_broadcast(&sl.cv);
    pthread_mutex_unlock(&sl.mu);
    for (long t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    const double t1 = now(), c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (!rc) {
        game_playout_stats sum = {0};
        for (long t = 0; t < threads; t++) {
            sum.sows += w[t].stats.sows;
            sum.games += w[t].stats.games;
            sum.relays += w[t].stats.relays;
            sum.shared += w[t].stats.shared;
            for (int q = 0; q < GAME_MAX_PLAYERS; q++)
                sum.first[q] += w[t].stats.first[q];
        }
        rc = report(g, game_playouts_kernel(w[0].boards), mode, threads, batch, t1 - t0, c1 - c0, &sum, json);
    }
    for (long t = 0; w && t < threads; t++)
        game_playouts_free(w[t].boards);
    free(w);
    free(tid);
    game_free(g);
    return rc;
}
