/* sowzero bench solve — the per-move exact solve of a position set, three ways side by side on
 * the same fixed sample of early positions: full-window alpha-beta per move with a fresh table per position
 * (ab_root_values depth 0, the anchor), MTD(f) per move with a fresh table (ab_solve_moves after ab_clear),
 * and MTD(f) per move with one table kept across the positions (ab_solve_moves, what `positions` does).
 * All three must give the same values (exit 1 if not). Medians and totals of seconds and nodes. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/bench.h"
#include "cli/cli.h"
#include "eval/alphabeta.h"
#include "env/game_twoside.h" /* gt_to_kalah */
#include "eval/gposset.h"

#define CMD "bench solve"
#define WAYS 3

static const char *const way_name[WAYS] = {"full_window", "mtdf", "mtdf_shared"};

static void help(void)
{
    puts("usage: sowzero bench solve [--rules R] [--count N] [--max-seeds M] [--seed S] [--endgame E]\n"
         "                           [--tt-mb M] [--json]\n"
         "Kalah only (its alpha-beta solver, eval/alphabeta.h; other games: `sowzero positions`). Samples N\n"
         "early positions (as `positions` does: seed S, at most M seeds in the pits) and solves every legal\n"
         "move of each exactly, three ways on one thread: full_window (alpha-beta per move, a fresh table per\n"
         "position: the anchor), mtdf (MTD(f) per move from a shallow guess, a fresh table) and mtdf_shared\n"
         "(the same, one table for all the positions, as `sowzero positions`). The values must agree. Prints\n"
         "per way the total and median seconds per position and the nodes.\n"
         "  --rules R      rules (default kalah)\n"
         "  --count N      positions, 1..1000 (default 20)\n"
         "  --max-seeds M  at most M seeds in the pits (default 36)\n"
         "  --seed S       sampling seed (default 1)\n"
         "  --endgame E    endgame database seeds, shared by all three (default 14; 0 = none)\n"
         "  --tt-mb M      table MiB (default 256)\n"
         "  --json         print {\"positions\",\"ways\":[{\"name\",\"seconds\",\"median_seconds\",\"nodes\"}],\n"
         "                 \"endgame_seconds\"}");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int bench_solve(int argc, char **argv)
{
    static const struct option opts[] = {{"rules", required_argument, 0, 'r'},   {"count", required_argument, 0, 'n'},
                                         {"max-seeds", required_argument, 0, 'm'}, {"seed", required_argument, 0, 's'},
                                         {"endgame", required_argument, 0, 'e'}, {"tt-mb", required_argument, 0, 't'},
                                         {"json", no_argument, 0, 'j'},          {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *rules_spec = NULL;
    long count = 20, max_seeds = 36, seed = 1, endgame = 14, tt_mb = 256;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rules_spec = optarg; break;
        case 'n':
            if (!cli_long(CMD, "--count", optarg, 1, 1000, &count))
                return 2;
            break;
        case 'm':
            if (!cli_long(CMD, "--max-seeds", optarg, 1, 255, &max_seeds))
                return 2;
            break;
        case 's':
            if (!cli_long(CMD, "--seed", optarg, 0, 9007199254740992L, &seed))
                return 2;
            break;
        case 'e':
            if (!cli_long(CMD, "--endgame", optarg, 0, 127, &endgame))
                return 2;
            break;
        case 't':
            if (!cli_long(CMD, "--tt-mb", optarg, 1, 65536, &tt_mb))
                return 2;
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
    kalah_rules r = kalah_rules_default();
    if (rules_spec && !cli_rules(CMD, rules_spec, &r))
        return 2;
    if (endgame > 0 && r.max_sows > 0) {
        cli_error(CMD, "--endgame: not available with max_sows=%d (give --endgame 0)", r.max_sows);
        return 2;
    }
    /* The positions as `positions` samples them (eval/gposset.h), handed to Kalah's solver as kalah_pos. */
    char err[GPS_LOAD_ERRLEN], spec[128];
    kalah_rules_format(&r, spec, sizeof spec);
    game *g = game_create(spec, err);
    gps_set *set = g ? gps_create(g, err) : NULL;
    ps_sample_opts so = {.count = (size_t)count, .early = (size_t)count, .seed = (uint64_t)seed,
                         .max_seeds = (int)max_seeds};
    if (!set || gps_sample(set, &so, err) != PS_OK) {
        cli_error(CMD, "%s", err);
        gps_free(set);
        game_free(g);
        return 2;
    }
    const size_t n = gps_count(set);
    kalah_pos *pos = calloc(n ? n : 1, sizeof *pos);
    for (size_t i = 0; pos && i < n; i++)
        gt_to_kalah(&gps_get(set, i)->pos, &pos[i]);
    gps_free(set);
    game_free(g);
    ab_search *ab = ab_create(&r, (size_t)tt_mb, err);
    double *secs = calloc(WAYS * n, sizeof *secs);
    int *vals = calloc(WAYS * n * KALAH_MAX_PITS, sizeof *vals);
    if (!ab || !secs || !vals || !pos) {
        cli_error(CMD, "%s", ab ? "out of memory" : err);
        ab_free(ab);
        free(secs);
        free(vals);
        free(pos);
        return 1;
    }
    double t0 = now_s();
    if (endgame > 0 && ab_set_endgame(ab, (int)endgame, err) != AB_OK) {
        cli_error(CMD, "--endgame %ld: %s", endgame, err);
        ab_free(ab);
        free(secs);
        free(vals);
        free(pos);
        return 1;
    }
    const double eg_seconds = now_s() - t0;
    const int all_seeds = 2 * r.pits * r.seeds; /* a database covers at most every seed of the board */
    if (endgame > all_seeds)
        endgame = all_seeds;
    uint64_t nodes[WAYS] = {0};
    double total[WAYS] = {0};
    for (int w = 0; w < WAYS; w++) {
        ab_clear(ab);
        for (size_t i = 0; i < n; i++) {
            const kalah_pos *p = &pos[i];
            int *v = vals + (w * n + i) * KALAH_MAX_PITS;
            uint64_t nd = 0;
            double t = now_s();
            if (w == 0) {
                ab_clear(ab);
                ab_root_values(ab, p, 0, v, &nd);
            } else {
                if (w == 1)
                    ab_clear(ab);
                ab_solve_moves(ab, p, v, &nd);
            }
            secs[w * n + i] = now_s() - t;
            total[w] += secs[w * n + i];
            nodes[w] += nd;
        }
    }
    int mismatch = 0;
    for (int w = 1; w < WAYS; w++)
        if (memcmp(vals, vals + w * n * KALAH_MAX_PITS, n * KALAH_MAX_PITS * sizeof *vals) != 0)
            mismatch = w;
    double median[WAYS];
    for (int w = 0; w < WAYS; w++) {
        qsort(secs + w * n, n, sizeof *secs, cmp_double);
        median[w] = n % 2 ? secs[w * n + n / 2] : 0.5 * (secs[w * n + n / 2 - 1] + secs[w * n + n / 2]);
    }
    int status = 0;
    if (mismatch) {
        cli_error(CMD, "the values of %s differ from full_window's: a solver bug", way_name[mismatch]);
        status = 1;
    } else if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "positions", (double)n);
        cJSON_AddNumberToObject(o, "endgame_seconds", eg_seconds);
        cJSON *arr = cJSON_AddArrayToObject(o, "ways");
        for (int w = 0; w < WAYS; w++) {
            cJSON *q = cJSON_CreateObject();
            cJSON_AddStringToObject(q, "name", way_name[w]);
            cJSON_AddNumberToObject(q, "seconds", total[w]);
            cJSON_AddNumberToObject(q, "median_seconds", median[w]);
            cJSON_AddNumberToObject(q, "nodes", (double)nodes[w]);
            cJSON_AddItemToArray(arr, q);
        }
        status = cli_print_json(o);
    } else {
        printf("%zu early positions (at most %ld seeds in the pits, seed %ld), endgame %ld seeds (built in %.1f s)\n",
               n, max_seeds, seed, endgame, eg_seconds);
        printf("%-12s %10s %12s %14s %8s\n", "way", "seconds", "median s/pos", "nodes", "vs anchor");
        for (int w = 0; w < WAYS; w++)
            printf("%-12s %10.2f %12.4f %14llu %7.2fx\n", way_name[w], total[w], median[w],
                   (unsigned long long)nodes[w], total[w] > 0 ? total[0] / total[w] : 0.0);
    }
    ab_free(ab);
    free(secs);
    free(vals);
    free(pos);
    return status;
}
