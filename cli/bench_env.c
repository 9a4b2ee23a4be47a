/* sowzero bench env — random-playout throughput of the batched stepper (env/vecenv.h) on N threads, each
 * with its own vecenv (docs/design.md §4, §5: compare with ../shared/bench/compare-env.sh). */
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/bench.h"
#include "cli/cli.h"
#include "env/game.h"
#include "env/vecenv.h"

#define CMD "bench env"

static void help(void)
{
    puts("usage: sowzero bench env [--threads N] [--seconds S | --steps N] [--batch B] [--rules SPEC]\n"
         "                         [--kernel K] [--mode M] [--seed N] [--json]\n"
         "Random playouts with the batched SIMD stepper: every board sows a uniformly random legal pit each\n"
         "step and finished games restart at once; reports games/s and sowings/s over all threads.\n"
         "  --threads N      worker threads, each with its own boards (default 1)\n"
         "  --seconds S      how long to run (default 3)\n"
         "  --steps N        run exactly N steps per thread instead (deterministic: same counts on every\n"
         "                   kernel for the same seed)\n"
         "  --batch B        boards per thread, a multiple of 64 (default 128)\n"
         "  --rules SPEC     rules (default kalah); another game (basico:players=3,pits=4, ...) runs its\n"
         "                   scalar stepper through the game interface instead\n"
         "  --kernel K       auto, avx512, avx2 or scalar (default auto: the best this CPU runs)\n"
         "  --mode M         playout (default): vecenv_run_random, moves drawn inside the kernel, boards kept\n"
         "                   in registers for many steps, nothing written; gym: vecenv_gym_step, the Python\n"
         "                   VecEnv's step without Python (next-step restarts, every output row written:\n"
         "                   observations, masks, to_play, rewards, ended, and the next random moves);\n"
         "                   gym-noobs: the same without observations; gym-u8: with uint8 observations\n"
         "                   (obs_dtype='uint8': the seed counts as bytes)\n"
         "  --seed N         random seed (default 1)\n"
         "  --json           print {\"games_per_s\",\"sows_per_s\",\"threads\",\"kernel\",\"batch\",\"seconds\",\n"
         "                   \"games\",\"sows\",\"sows_per_game\",\"south_win_rate\",\"north_win_rate\",\n"
         "                   \"draw_rate\",\"rules\",\"mode\",\"cpu_seconds\",\"sows_per_cpu_s\"}: cpu_seconds is\n"
         "                   the process's CPU time over the run, a steadier rate than the wall clock's on a\n"
         "                   loaded machine");
}

/* The start line: workers wait until main says go (1) or abort (-1); deadline is set before go. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;
    double deadline;
} start_line;

enum { MODE_PLAYOUT, MODE_GYM, MODE_GYM_NOOBS, MODE_GYM_U8, N_MODES };
static const char *mode_names[N_MODES] = {"playout", "gym", "gym-noobs", "gym-u8"};

typedef struct {
    vecenv *env;
    int mode;
    vecenv_gym_out gym; /* the output rows of a gym mode; gym.sample doubles as the moves */
    long steps; /* > 0: exactly this many; else until the deadline */
    start_line *start;
    vecenv_stats stats;
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
    if (w->mode != MODE_PLAYOUT) {
        const int B = vecenv_batch(w->env);
        vecenv_gym_observe(w->env, B, &(vecenv_gym_out){.sample = w->gym.sample});
        const long chunk = 262144 / B > 0 ? 262144 / B : 1;
        long done = 0;
        do
            for (long s = 0; s < chunk && (w->steps <= 0 || done < w->steps); s++, done++)
                vecenv_gym_step(w->env, w->gym.sample, B, &w->gym);
        while (w->steps > 0 ? done < w->steps : now() < deadline);
    } else if (w->steps > 0) {
        vecenv_run_random(w->env, w->steps);
    } else {
        /* chunks of ~256k sowings: a few ms on any kernel, so the deadline is overshot by little */
        const long chunk = 262144 / vecenv_batch(w->env) > 0 ? 262144 / vecenv_batch(w->env) : 1;
        do
            vecenv_run_random(w->env, chunk);
        while (now() < deadline);
    }
    vecenv_stats_get(w->env, &w->stats);
    return NULL;
}

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

/* The rows a gym mode writes, as the Python VecEnv holds them (mode: which observations); returns 0, or
 * -1 out of memory. */
static int gym_alloc(vecenv_gym_out *g, const kalah_rules *r, long batch, int mode)
{
    const size_t B = (size_t)batch, m = (size_t)r->pits;
    const int obs = mode == MODE_GYM;
    *g = (vecenv_gym_out){.obs = obs ? malloc(B * (2 * m + 2) * sizeof(float)) : NULL,
                          .obs8 = mode == MODE_GYM_U8 ? malloc(B * (2 * m + 2)) : NULL, .mask = malloc(B * m),
                          .to_play = malloc(B), .rewards = calloc(2 * B, sizeof(float)),
                          .ended = calloc(B, 1), .sample = malloc(B), .kept = 1}; /* zeros: kept holds */
    return (obs && !g->obs) || (mode == MODE_GYM_U8 && !g->obs8) || !g->mask || !g->to_play || !g->rewards || !g->ended || !g->sample
               ? -1
               : 0;
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
    kalah_rules rules = kalah_rules_default();
    vecenv_kernel kernel = VECENV_AUTO;
    int json = 0, c, mode = MODE_PLAYOUT;
    const char *game_spec_arg = NULL; /* a game other than Kalah */
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
            if (!cli_long(CMD, "--batch", optarg, VECENV_LANES, VECENV_MAX_BATCH, &batch))
                return 2;
            if (batch % VECENV_LANES) {
                cli_error(CMD, "--batch %ld: must be a multiple of %d", batch, VECENV_LANES);
                return 2;
            }
            break;
        case 'r':
            if (game_kind_find(optarg) && strncmp(optarg, "kalah", 5))
                game_spec_arg = optarg;
            else if (!cli_rules(CMD, optarg, &rules))
                return 2;
            break;
        case 'k':
            if (vecenv_kernel_parse(optarg, &kernel) != KALAH_OK) {
                cli_error(CMD, "--kernel '%s': expected auto, avx512, avx2 or scalar", optarg);
                return 2;
            }
            break;
        case 'S':
            if (!cli_long(CMD, "--seed", optarg, 0, INT64_MAX, &seed))
                return 2;
            break;
        case 'm':
            for (mode = 0; mode < N_MODES && strcmp(optarg, mode_names[mode]); mode++)
                ;
            if (mode == N_MODES) {
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
    if (game_spec_arg) {
        if (kernel != VECENV_AUTO && kernel != VECENV_SCALAR) {
            cli_error(CMD, "--kernel %s: only Kalah has SIMD kernels", vecenv_kernel_name(kernel));
            return 2;
        }
        if (steps || mode != MODE_PLAYOUT) {
            cli_error(CMD, "%s: only for Kalah", steps ? "--steps (use --seconds)" : "--mode");
            return 2;
        }
        return bench_env_game(game_spec_arg, threads, seconds, seed, json);
    }
    if (kernel != VECENV_AUTO && !vecenv_kernel_supported(kernel)) {
        cli_error(CMD, "--kernel %s: this CPU does not support it", vecenv_kernel_name(kernel));
        return 2;
    }

    worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    start_line sl = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    int rc = 0;
    if (!w || !tid) {
        cli_error(CMD, "out of memory");
        free(w);
        free(tid);
        return 1;
    }
    for (long t = 0; t < threads && !rc; t++) {
        char err[KALAH_ERRLEN];
        /* thread t's groups draw from seeds seed + t*2^32 + g: disjoint for any batch */
        if (vecenv_create(&rules, (int)batch, kernel, mode == MODE_PLAYOUT, (uint64_t)seed + ((uint64_t)t << 32),
                          &w[t].env, err)) {
            cli_error(CMD, "%s", err);
            rc = 1;
        } else if (mode != MODE_PLAYOUT && gym_alloc(&w[t].gym, &rules, batch, mode)) {
            cli_error(CMD, "out of memory");
            rc = 1;
        }
        w[t].mode = mode;
        w[t].steps = steps;
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
        vecenv_stats sum = {0};
        for (long t = 0; t < threads; t++) {
            sum.sows += w[t].stats.sows;
            sum.games += w[t].stats.games;
            sum.south_wins += w[t].stats.south_wins;
            sum.north_wins += w[t].stats.north_wins;
            sum.draws += w[t].stats.draws;
        }
        const double secs = t1 - t0, games = (double)sum.games, g = games > 0 ? games : 1;
        const char *kname = vecenv_kernel_name(vecenv_kernel_used(w[0].env));
        char rbuf[128];
        kalah_rules_format(&rules, rbuf, sizeof rbuf);
        if (json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "games_per_s", games / secs);
            cJSON_AddNumberToObject(o, "sows_per_s", (double)sum.sows / secs);
            cJSON_AddNumberToObject(o, "threads", (double)threads);
            cJSON_AddStringToObject(o, "kernel", kname);
            cJSON_AddNumberToObject(o, "batch", (double)batch);
            cJSON_AddNumberToObject(o, "seconds", secs);
            cJSON_AddNumberToObject(o, "games", games);
            cJSON_AddNumberToObject(o, "sows", (double)sum.sows);
            cJSON_AddNumberToObject(o, "sows_per_game", (double)sum.sows / g);
            cJSON_AddNumberToObject(o, "south_win_rate", (double)sum.south_wins / g);
            cJSON_AddNumberToObject(o, "north_win_rate", (double)sum.north_wins / g);
            cJSON_AddNumberToObject(o, "draw_rate", (double)sum.draws / g);
            cJSON_AddStringToObject(o, "rules", rbuf);
            cJSON_AddStringToObject(o, "mode", mode_names[mode]);
            cJSON_AddNumberToObject(o, "cpu_seconds", c1 - c0);
            cJSON_AddNumberToObject(o, "sows_per_cpu_s", (double)sum.sows / (c1 - c0 > 0 ? c1 - c0 : secs));
            rc = cli_print_json(o);
        } else {
            printf("rules=%s kernel=%s mode=%s threads=%ld batch=%ld seconds=%.3f games=%.0f sows=%llu\n"
                   "games/s=%.0f sows/s=%.0f sows/game=%.2f south_win=%.4f north_win=%.4f draw=%.4f\n",
                   rbuf, kname, mode_names[mode], threads, batch, secs, games, (unsigned long long)sum.sows,
                   games / secs, (double)sum.sows / secs, (double)sum.sows / g, (double)sum.south_wins / g,
                   (double)sum.north_wins / g, (double)sum.draws / g);
        }
    }
    for (long t = 0; t < threads; t++) {
        vecenv_free(w[t].env);
        gym_free(&w[t].gym);
    }
    free(w);
    free(tid);
    return rc;
}
