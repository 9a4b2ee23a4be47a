/* sowzero positions — sample positions of a two-player game over every phase, solve every legal move
 * exactly and write the position set (eval/gposset.h: sampling, solving and the format). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/output_path.h"
#include "cli/commands.h"
#include "eval/game_search.h"
#include "eval/gposset.h"

#define CMD "positions"

static void help(void)
{
    puts("usage: sowzero positions --solve --out FILE [--rules R] [--count N] [--min-early K] [--max-seeds M]\n"
         "                         [--seed S] [--threads N] [--tt-mb M] [--endgame E] [--net F] [--max-sows-left L]\n"
         "                         [--progress] [--json]\n"
         "Samples positions of a two-player game with a margin over every phase of the game, solves every\n"
         "legal move of each exactly (the game's exact solver: Kalah's MTD(f) alpha-beta with an endgame\n"
         "database, the game interface's solver for the others; one transposition table per thread shared\n"
         "by all positions) and writes the solved position set to FILE (a temporary file renamed at the end:\n"
         "FILE is never left half written).\n"
         "  --solve          solve and write the set (required: every line of the set carries its values)\n"
         "  --out FILE       the set to write (JSON Lines, below)\n"
         "  --rules R        rules spec (default kalah = Kalah(6,4)); max_sows must be 0 with --endgame\n"
         "  --count N        positions, 1..1000000 (default 200)\n"
         "  --min-early K    of them in the early phase (more than 2/3 of the seeds in the pits; Kalah(6,4):\n"
         "                   33-48), 0..N (default N/5); the other N-K are split evenly between the middle\n"
         "                   (1/3..2/3: 17-32) and late (at most 1/3: 0-16) phases\n"
         "  --max-seeds M    only positions with at most M seeds in the pits (default: no cap; a phase wholly\n"
         "                   above M hands its share to the next); the first plies of Kalah(6,4) (44-48)\n"
         "                   take 10 s to minutes each to solve\n"
         "  --seed S         sampling seed, 0..2^53 (default 1): the same options give the same set\n"
         "  --threads N      solving threads, 1..64 (default 1); they also build the endgame database\n"
         "  --tt-mb M        transposition table MiB in all, split between the threads (default 1024)\n"
         "  --endgame E      endgame database of every arrangement of at most E seeds in the pits, for a\n"
         "                   solver that has one (Kalah without max_sows; default 18: Kalah(6,4) 87 MB; 20:\n"
         "                   226 MB; 0 = none; capped at the total; default 0 for the other games)\n"
         "  --net F          also sample games of az:net=F,sims=100 (a net of the same rules)\n"
         "  --max-sows-left L  other games with a ply limit: only positions with at most L sowings left\n"
         "                   before max_sows (the solve's horizon, so its cost)\n"
         "  --progress       a line on stderr per solved position\n"
         "  --json           print one object on stdout: {\"out\",\"rules\",\"count\",\"threads\",\"tt_mb\",\n"
         "                   \"endgame\",\"endgame_seconds\",\"sample_seconds\",\"solve_seconds\",\"seconds\",\n"
         "                   \"nodes\",\"phases\":[{\"phase\",\"seeds\",\"positions\",\"seconds_per_position\",\n"
         "                   \"seconds\"}]} (seconds: the whole command, the database's build or load included;\n"
         "                   phase seconds: the sum of the positions' solve times)\n"
         "Sources: random openings of 1..6*pits sowings (source \"opening:K\") and games between agents\n"
         "drawn from random, greedy, ab:depth=2/4, mcts:sims=100 (and az with --net) after 0..3 random\n"
         "sowings (source \"game:A-vs-B\", A played South). No duplicates (same board and side to move), no\n"
         "finished positions. A report of seconds per position by phase goes to stderr.\n"
         "Format (JSON Lines, UTF-8, one object per line). Line 1, the header:\n"
         "  {\"format\":\"sowzero-positions\",\"format_version\":1,\"rules\":\"<full rules spec>\",\"count\":N,\n"
         "   \"command\":\"<this command line>\",\"commit\":\"<git commit of the working directory or unknown>\",\n"
         "   \"seed\":S}\n"
         "Lines 2..N+1, one position each:\n"
         "  {\"position\":\"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":48,\"ply\":K,\n"
         "   \"source\":\"opening:6\",\"value\":8,\"best\":[\"c\"],\"moves\":{\"a\":-2,\"b\":0,\"c\":8,...}}\n"
         "  moves: EVERY legal move letter (a.. South, A.. North) -> the exact final margin under perfect play\n"
         "  after that move, for the player to move here (own store - opponent's store at the end; an extra\n"
         "  turn keeps the perspective); value = the largest; best = every move reaching it (letter order);\n"
         "  ply = sowings from the start.\n"
         "Other two-player games (--rules oware:...,max_sows=N, congklak:...): the same (no --endgame; Oware\n"
         "needs max_sows > 0: its positions can repeat). Lines add \"sows_left\" (max_sows - ply) when the\n"
         "rules have a ply limit, and ply counts toward it.\n"
         "Kalah(6,4), 2000 positions: sowzero positions --solve --count 2000 --min-early 400 --max-seeds 43\n"
         "  --threads 2 --tt-mb 2048 --endgame 20 --out data/kalah-6-4.positions.jsonl (data/README.md)\n"
         "Exit status: 0; 1 a runtime failure (memory, a failed solve or write); 2 bad input (a flag, the rules,\n"
         "an --out that cannot be written, is the --net file or a tablebase file (*.sztb); a damaged\n"
         "tablebase file; a board with too few positions for the counts asked).");
}

/* The git commit of the working directory (what the set was generated from), or "unknown". */
static void git_commit(char *buf, size_t n)
{
    snprintf(buf, n, "unknown");
    FILE *p = popen("git rev-parse HEAD 2>/dev/null", "r");
    if (!p)
        return;
    char line[128];
    if (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\r\n")] = 0;
        if (strlen(line) == 40)
            snprintf(buf, n, "%s", line);
    }
    pclose(p);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    const game *g;
    double t0;
} progress_ctx;

static void gprogress(void *ctx, size_t done, size_t total, const gps_entry *e)
{
    const progress_ctx *c = ctx;
    char pos[GAME_POS_STR];
    fprintf(stderr, "sowzero positions: %zu/%zu solved, %.0f s: %s after %d sowings (%d seeds in the pits) %.2f s\n",
            done, total, now_s() - c->t0, game_pos_format(c->g, &e->pos, pos, sizeof pos), e->pos.ply,
            e->seeds_in_pits, e->seconds);
}

/* Sampled with the game agents, solved by the game's exact solver (eval/gposset.h, eval/game_search.h). */
static int positions(int argc, char **argv, game *g, const char *out, const ps_sample_opts *so, long threads,
                     long tt_mb, long endgame, double endgame_seconds, int show, int json)
{
    char err[GPS_LOAD_ERRLEN];
    gps_set *set = gps_create(g, err);
    if (!set) {
        cli_error(CMD, "--rules %s", err);
        return 2;
    }
    char commit[48];
    git_commit(commit, sizeof commit);
    const double t0 = now_s();
    int rc = gps_sample(set, so, err);
    if (rc != PS_OK) {
        cli_error(CMD, "%s", err);
        gps_free(set);
        return rc == PS_EINVAL || rc == PS_EFAIL ? 2 : 1; /* EFAIL: the options ask for too few positions */
    }
    const double t_sample = now_s() - t0;
    progress_ctx pc = {.g = g, .t0 = now_s()};
    gps_solve_opts vo = {.threads = (int)threads, .tt_mb = (size_t)tt_mb, .endgame = (int)endgame,
                         .progress = show ? gprogress : NULL, .ctx = &pc};
    ps_solve_stats st;
    rc = gps_solve(set, &vo, &st, err);
    st.endgame_seconds = endgame_seconds; /* built (or mapped) before the sampling: the holder in cmd_positions */
    char *cmdline = rc == PS_OK ? cli_command_line(argc, argv) : NULL;
    ps_header h = {.command = cmdline ? cmdline : "sowzero positions", .commit = commit, .seed = so->seed};
    if (rc == PS_OK)
        rc = gps_write(set, &h, out, err);
    free(cmdline);
    if (rc != PS_OK) {
        cli_error(CMD, "%s", err);
        gps_free(set);
        return rc == PS_EINVAL ? 2 : 1;
    }
    const double total = now_s() - t0 + endgame_seconds; /* the database was built before t0 */
    size_t n[PS_PHASES] = {0};
    double secs[PS_PHASES] = {0};
    for (size_t i = 0; i < gps_count(set); i++) {
        const gps_entry *e = gps_get(set, i);
        int ph = gps_phase(g, e->seeds_in_pits);
        n[ph]++;
        secs[ph] += e->seconds;
    }
    char lab[PS_PHASES][24];
    for (int ph = 0; ph < PS_PHASES; ph++) {
        int hi, lo;
        gps_phase_range(g, ph, &hi, &lo);
        snprintf(lab[ph], sizeof lab[ph], "%d-%d", hi, lo);
    }
    fprintf(stderr, "sowzero positions: %zu positions of %s written to %s\n", gps_count(set), game_spec(g), out);
    fprintf(stderr, "  seeds in pits  positions  s/position  s (sum over threads)\n");
    for (int ph = 0; ph < PS_PHASES; ph++)
        fprintf(stderr, "  %-13s  %9zu  %10.3f  %.1f\n", lab[ph], n[ph], n[ph] ? secs[ph] / (double)n[ph] : 0.0,
                secs[ph]);
    fprintf(stderr, "  sampling %.1f s, endgame database (%ld seeds) %.1f s, solving %.1f s on %d %s, total %.1f s, "
                    "%llu nodes\n", t_sample, endgame, st.endgame_seconds, st.seconds, st.threads,
            cli_threads(st.threads), total, (unsigned long long)st.nodes);
    int status = 0;
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "out", out);
        cJSON_AddStringToObject(o, "rules", game_spec(g));
        cJSON_AddNumberToObject(o, "count", (double)gps_count(set));
        cJSON_AddNumberToObject(o, "threads", st.threads);
        cJSON_AddNumberToObject(o, "tt_mb", (double)tt_mb);
        cJSON_AddNumberToObject(o, "endgame", (double)endgame);
        cJSON_AddNumberToObject(o, "endgame_seconds", st.endgame_seconds);
        cJSON_AddNumberToObject(o, "sample_seconds", t_sample);
        cJSON_AddNumberToObject(o, "solve_seconds", st.seconds);
        cJSON_AddNumberToObject(o, "seconds", total);
        cJSON_AddNumberToObject(o, "nodes", (double)st.nodes);
        cJSON *arr = cJSON_AddArrayToObject(o, "phases");
        for (int ph = 0; ph < PS_PHASES; ph++) {
            cJSON *q = cJSON_CreateObject();
            cJSON_AddNumberToObject(q, "phase", ph);
            cJSON_AddStringToObject(q, "seeds", lab[ph]);
            cJSON_AddNumberToObject(q, "positions", (double)n[ph]);
            cJSON_AddNumberToObject(q, "seconds_per_position", n[ph] ? secs[ph] / (double)n[ph] : 0.0);
            cJSON_AddNumberToObject(q, "seconds", secs[ph]);
            cJSON_AddItemToArray(arr, q);
        }
        status = cli_print_json(o);
    }
    gps_free(set);
    return status;
}

int cmd_positions(int argc, char **argv)
{
    static const struct option opts[] = {{"solve", no_argument, 0, 'S'},
                                         {"out", required_argument, 0, 'o'},
                                         {"rules", required_argument, 0, 'r'},
                                         {"count", required_argument, 0, 'n'},
                                         {"min-early", required_argument, 0, 'k'},
                                         {"seed", required_argument, 0, 's'},
                                         {"max-seeds", required_argument, 0, 'm'},
                                         {"max-sows-left", required_argument, 0, 'L'},
                                         {"threads", required_argument, 0, 'T'},
                                         {"tt-mb", required_argument, 0, 't'},
                                         {"endgame", required_argument, 0, 'e'},
                                         {"net", required_argument, 0, 'N'},
                                         {"progress", no_argument, 0, 'P'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = NULL, *rules_spec = NULL, *net = NULL;
    long count = 200, early = -1, seed = 1, max_seeds = 0, max_left = 0, threads = 1, tt_mb = 1024, endgame = 18;
    int solve = 0, show = 0, json = 0, endgame_given = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'S': solve = 1; break;
        case 'o': out = optarg; break;
        case 'r': rules_spec = optarg; break;
        case 'n':
            if (!cli_long(CMD, "--count", optarg, 1, 1000000, &count))
                return 2;
            break;
        case 'k':
            if (!cli_long(CMD, "--min-early", optarg, 0, 1000000, &early))
                return 2;
            break;
        case 's':
            if (!cli_long(CMD, "--seed", optarg, 0, 9007199254740992L, &seed))
                return 2;
            break;
        case 'm':
            if (!cli_long(CMD, "--max-seeds", optarg, 1, 255, &max_seeds))
                return 2;
            break;
        case 'L':
            if (!cli_long(CMD, "--max-sows-left", optarg, 1, GS_MAX_PLY, &max_left))
                return 2;
            break;
        case 'T':
            if (!cli_long(CMD, "--threads", optarg, 1, 64, &threads))
                return 2;
            break;
        case 't':
            if (!cli_long(CMD, "--tt-mb", optarg, 1, 65536, &tt_mb))
                return 2;
            break;
        case 'e':
            if (!cli_long(CMD, "--endgame", optarg, 0, 127, &endgame))
                return 2;
            endgame_given = 1;
            break;
        case 'N': net = optarg; break;
        case 'P': show = 1; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error(CMD);
        }
    }
    if (optind != argc) {
        cli_error(CMD, "unexpected argument '%s'", argv[optind]);
        return cli_usage_error(CMD);
    }
    if (!solve) {
        cli_error(CMD, "give --solve: every line of a position set carries its solved values (--help)");
        return 2;
    }
    if (!out) {
        cli_error(CMD, "--out FILE is required");
        return 2;
    }
    /* A long run must not end in a path it cannot write, nor replace the net it sampled with: checked first. */
    char what[600];
    snprintf(what, sizeof what, "the --net file %.500s", net ? net : "");
    const cli_input net_in = {what, net};
    if (!cli_output_check(CMD, "--out", out, CLI_OUT_REPLACE, &net_in, 1))
        return 2;
    if (early < 0)
        early = count / 5;
    if (early > count) {
        cli_error(CMD, "--min-early %ld: more than --count %ld", early, count);
        return 2;
    }
    char gerr[GAME_ERRLEN];
    game *g = game_create(rules_spec ? rules_spec : "kalah", gerr);
    if (!g) {
        cli_error(CMD, "--rules %s", gerr);
        return 2;
    }
    /* The endgame database is the solver's (Kalah's): by default where it has one, refused by its reason
     * where asked for and it has none. */
    if (endgame > 0 && gs_endgame_available(g, gerr) != GAME_OK) {
        if (endgame_given) {
            cli_error(CMD, "--endgame %ld: %s (give --endgame 0)", endgame, gerr);
            game_free(g);
            return 2;
        }
        endgame = 0;
    }
    /* The database is acquired before the sampling and held for the run (eval/tbase.h's cache: gps_solve's
     * solvers share it): a damaged or unfitting tablebase file fails at once, not after the sampling. (--out
     * naming a tablebase file was refused above: cli_output_check.) */
    gs_solver *holder = NULL;
    gs_endgame eg = {.seeds = (int)endgame};
    if (endgame > 0) {
        int erc = GAME_ENOMEM;
        holder = gs_solver_create(g, 1, gerr);
        if (holder && (erc = gs_solver_set_threads(holder, (int)threads, gerr)) == GAME_OK)
            erc = gs_solver_use_endgame(holder, &eg, gerr);
        if (erc != GAME_OK) {
            cli_error(CMD, "--endgame %ld: %s", endgame, gerr);
            gs_solver_free(holder);
            game_free(g);
            return erc == GAME_EINVAL ? 2 : 1;
        }
    }
    ps_sample_opts so = {.count = (size_t)count, .early = (size_t)early, .seed = (uint64_t)seed, .net = net,
                         .max_seeds = (int)max_seeds, .max_sows_left = (int)max_left};
    int status = positions(argc, argv, g, out, &so, threads, tt_mb, endgame, eg.built ? eg.seconds : 0, show, json);
    gs_solver_free(holder);
    game_free(g);
    return status;
}
