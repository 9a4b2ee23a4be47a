/* sowzero match — two agents, colour-swapped pairs from random openings (issue 7, eval/match.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "cli/match_opts.h"
#include "cli/commands.h"
#include "cli/game_progress.h"
#include "eval/match.h"

static void help(void)
{
    puts("usage: sowzero match A B [--games N] [--openings K] [--threads T] [--rules SPEC] [--seed S]\n"
         "                    [--pgn FILE] [--exact] [--json]\n"
         "Plays agent A against agent B in colour-swapped pairs: both games of a pair start from the same\n"
         "random opening of K sowings, A as South in one and as North in the other. Reports A's wins, draws\n"
         "and losses overall and per seat, A's score (a draw = 1/2) with its 95% Wilson interval, and the\n"
         "Elo difference A - B the score implies (400 log10(s/(1-s)); at a 0% or 100% score it is shown at\n"
         "n - 1/2 points of n and marked as a bound).\n"
         "Agents: random, greedy, ab:depth=8 (nodes=, ms=, tt_mb=), mcts:sims=800, az:net=PATH.h5,sims=200,\n"
         "solver (perfect play; tt_mb=, endgame=), each with ,seed=N (see eval/agent.h). ab's and solver's\n"
         "table (tt_mb MiB) is allocated per agent and per worker thread: ab against ab with --threads T uses\n"
         "2 x T x tt_mb MiB.\n"
         "  --games N      games, even (default 100)\n"
         "  --openings K   random sowings before the agents play (default 2)\n"
         "  --threads T    worker threads (default: the number of CPUs)\n"
         "  --rules SPEC   rules (default: kalah; basico:players=3,... see --rules basico --help)\n"
         "  --seed S       seed of the openings and the agents' per-game randomness (default 1)\n"
         "  --pgn FILE     write every game record to FILE (eval/record.h format)\n"
         "  --exact        also measure A against perfect play (the default when A or B is a solver): the exact\n"
         "                 value V of every opening (one solve per pair; --openings 0: the start position) and,\n"
         "                 per seat, A's mean margin M - V (South's margin; North: V - M; seeds) with its 95%\n"
         "                 Student-t interval and the games where A reached V (eval/perfect.h); a solver agent\n"
         "                 per worker when neither A nor B is one\n"
         "  --json         print {\"a\",\"b\",\"games\",\"wins\",\"draws\",\"losses\",\"score\",\"score_lo\",\n"
         "                 \"score_hi\",\"elo\",\"elo_lo\",\"elo_hi\",\"elo_bound\",\"per_seat\" (with south_seconds and\n"
         "                 north_seconds: mean seconds per game by A's seat),\"avg_sows\",\n"
         "                 \"seconds\"} (elo_bound: \"lower\"/\"upper\" when A won/lost every point, else null);\n"
         "                 with exact values also \"perfect\": {\"south\",\"north\": {\"games\",\"mean\",\"lo\",\"hi\",\n"
         "                 \"reached\",\"exact_mean\"}, \"start_value\" (--openings 0: V for South, else null),\n"
         "                 \"seconds_per_solve\"}");
}

static void tally_json(cJSON *o, const match_tally *t, double score)
{
    cJSON_AddNumberToObject(o, "wins", t->wins);
    cJSON_AddNumberToObject(o, "draws", t->draws);
    cJSON_AddNumberToObject(o, "losses", t->losses);
    cJSON_AddNumberToObject(o, "score", score);
}

static void print_text(const char *a, const char *b, const kalah_rules *r, const match_config *cfg,
                       const match_result *res)
{
    char rules[128];
    printf("match  A = %s\n       B = %s\n", a, b);
    printf("%d games (%d opening pairs of %d random sowings), %d threads, rules %s, seed %llu\n", res->games,
           res->games / 2, cfg->opening_plies, cfg->threads, kalah_rules_format(r, rules, sizeof rules),
           (unsigned long long)cfg->seed);
    printf("\n             wins  draws  losses   score\n");
    printf("  A overall  %5d  %5d  %6d   %.3f  [%.3f, %.3f] 95%%\n", res->all.wins, res->all.draws, res->all.losses,
           res->score, res->score_lo, res->score_hi);
    static const char *seat[2] = {"A South ", "A North "};
    for (int s = 0; s < 2; s++)
        printf("  %s   %5d  %5d  %6d   %.3f\n", seat[s], res->seat[s].wins, res->seat[s].draws,
               res->seat[s].losses, res->seat_score[s]);
    if (res->elo_clamped > 0)
        printf("\nElo A - B: > %+.0f  (A scored every point: the estimate is +infinity; shown at %d.5 of %d "
               "points), 95%% lower bound %+.0f\n",
               res->elo, res->games - 1, res->games, res->elo_lo);
    else if (res->elo_clamped < 0)
        printf("\nElo A - B: < %+.0f  (A scored no point: the estimate is -infinity; shown at 0.5 of %d points), "
               "95%% upper bound %+.0f\n",
               res->elo, res->games, res->elo_hi);
    else
        printf("\nElo A - B: %+.1f  [%+.0f, %+.0f] 95%%\n", res->elo, res->elo_lo, res->elo_hi);
    printf("%.1f sowings per game; %.3f s, %.1f games/s; %.3f s per game with A South, %.3f with A North\n",
           res->avg_sows, res->seconds, res->seconds > 0 ? res->games / res->seconds : 0,
           res->seat_seconds[KALAH_SOUTH], res->seat_seconds[KALAH_NORTH]);
}

/* A against the exact values (eval/perfect.h): one line per seat. */
static void print_perfect(const match_config *cfg, const match_result *res)
{
    if (cfg->opening_plies == 0)
        printf("\nagainst perfect play, from the start position (exact value %+d for South):\n", res->exact[0]);
    else
        printf("\nagainst perfect play (the exact value V of each of the %d openings; mean %+.2f for South):\n",
               res->games / 2, res->perfect[KALAH_SOUTH].exact_mean);
    printf("             games   margin - V (seeds)   95%% interval      reached V\n");
    static const char *seat[2] = {"A South ", "A North "};
    for (int s = 0; s < 2; s++) {
        const perfect_stats *p = &res->perfect[s];
        printf("  %s   %5d   %+8.2f             ", seat[s], p->games, p->mean);
        if (p->have_interval)
            printf("[%+6.2f, %+6.2f]", p->lo, p->hi);
        else
            printf("%-16s", "(one game)");
        printf("   %d of %d\n", p->reached, p->games);
    }
    printf("%.3f s per opening's exact solve (the solver's endgame database included; its table then serves "
           "the games)\n", res->exact_seconds);
}

static void perfect_json(cJSON *o, const match_config *cfg, const match_result *res)
{
    cJSON *pj = cJSON_AddObjectToObject(o, "perfect");
    static const char *seat[2] = {"south", "north"};
    for (int s = 0; s < 2; s++) {
        const perfect_stats *p = &res->perfect[s];
        cJSON *q = cJSON_AddObjectToObject(pj, seat[s]);
        cJSON_AddNumberToObject(q, "games", p->games);
        cJSON_AddNumberToObject(q, "mean", p->mean);
        if (p->have_interval) {
            cJSON_AddNumberToObject(q, "lo", p->lo);
            cJSON_AddNumberToObject(q, "hi", p->hi);
        } else {
            cJSON_AddNullToObject(q, "lo");
            cJSON_AddNullToObject(q, "hi");
        }
        cJSON_AddNumberToObject(q, "reached", p->reached);
        cJSON_AddNumberToObject(q, "exact_mean", p->exact_mean);
    }
    cJSON_AddNumberToObject(pj, "seconds_per_solve", res->exact_seconds);
    if (cfg->opening_plies == 0)
        cJSON_AddNumberToObject(pj, "start_value", res->exact[0]);
    else
        cJSON_AddNullToObject(pj, "start_value");
}

static int write_pgn(const char *path, match_result *res)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error("match", "--pgn %s: cannot open for writing", path);
        return 1;
    }
    char err[RECORD_ERRLEN];
    for (int g = 0; g < res->n_records; g++)
        if (record_write(f, &res->records[g], err)) {
            cli_error("match", "--pgn %s: %s", path, err);
            fclose(f);
            return 1;
        }
    if (fclose(f)) {
        cli_error("match", "--pgn %s: write failed", path);
        return 1;
    }
    return 0;
}

int cmd_match(int argc, char **argv)
{
    if (cli_game_wanted(argc, argv)) /* every other game: cli/cmd_match_game.c */
        return cmd_match_game(argc, argv);
    static const struct option opts[] = {MATCH_OPTIONS,
                                         {"rules", required_argument, 0, 'r'},
                                         {"pgn", required_argument, 0, 'p'},
                                         {"json", no_argument, 0, 'j'},
                                         {"exact", no_argument, 0, 'x'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    match_config cfg = match_config_default();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cfg.threads = cpus > 0 ? (int)cpus : 1;
    const char *rules_spec = "kalah", *pgn = NULL;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rules_spec = optarg; break;
        case 'p': pgn = optarg; break;
        case 'j': json = 1; break;
        case 'x': cfg.exact = 1; break;
        case 'h': help(); return 0;
        default:
            switch (cli_match_option("match", c, optarg, &cfg)) {
            case 1: break;
            case 0: return cli_usage_error("match");
            default: return 2;
            }
        }
    }
    if (argc - optind != 2) {
        cli_error("match", "needs two agent specs A and B (got %d arguments)", argc - optind);
        return cli_usage_error("match");
    }
    const char *a = argv[optind], *b = argv[optind + 1];
    kalah_rules r;
    if (!cli_rules("match", rules_spec, &r))
        return 2;
    /* Check both specs before any game runs, so a typo is a usage error. */
    char aerr[AGENT_ERRLEN];
    for (int i = 0; i < 2; i++) {
        agent *ag = agent_create(i ? b : a, &r, aerr);
        if (!ag) {
            cli_error("match", "%s", aerr);
            return 2;
        }
        cfg.exact |= !strcmp(agent_kind(ag), "solver");
        agent_free(ag);
    }
    game_progress prog;
    game_progress_init(&prog, cfg.games);
    cfg.progress = game_progress_cb;
    cfg.progress_ud = &prog;
    cfg.keep_records = pgn != NULL;
    match_result res;
    char err[MATCH_ERRLEN];
    int rc = match_run(a, b, &r, &cfg, &res, err);
    game_progress_end(&prog);
    if (rc != MATCH_OK) {
        cli_error("match", "%s", err);
        return rc == MATCH_EINVAL ? 2 : 1;
    }
    if (pgn && write_pgn(pgn, &res)) {
        match_result_free(&res);
        return 1;
    }
    if (cfg.threads > cfg.games / 2)
        cfg.threads = cfg.games / 2;
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "a", a);
        cJSON_AddStringToObject(o, "b", b);
        char rules[128];
        cJSON_AddStringToObject(o, "rules", kalah_rules_format(&r, rules, sizeof rules));
        cJSON_AddNumberToObject(o, "games", res.games);
        tally_json(o, &res.all, res.score);
        cJSON_AddNumberToObject(o, "score_lo", res.score_lo);
        cJSON_AddNumberToObject(o, "score_hi", res.score_hi);
        cJSON_AddNumberToObject(o, "elo", res.elo);
        cJSON_AddNumberToObject(o, "elo_lo", res.elo_lo);
        cJSON_AddNumberToObject(o, "elo_hi", res.elo_hi);
        /* "lower": elo is only a lower bound (A won every point); "upper": A lost every point. */
        if (res.elo_clamped)
            cJSON_AddStringToObject(o, "elo_bound", res.elo_clamped > 0 ? "lower" : "upper");
        else
            cJSON_AddNullToObject(o, "elo_bound");
        cJSON *seats = cJSON_AddObjectToObject(o, "per_seat");
        tally_json(cJSON_AddObjectToObject(seats, "south"), &res.seat[KALAH_SOUTH], res.seat_score[KALAH_SOUTH]);
        tally_json(cJSON_AddObjectToObject(seats, "north"), &res.seat[KALAH_NORTH], res.seat_score[KALAH_NORTH]);
        cJSON_AddNumberToObject(o, "openings", cfg.opening_plies);
        cJSON_AddNumberToObject(o, "threads", cfg.threads);
        cJSON_AddNumberToObject(o, "seed", (double)cfg.seed);
        cJSON_AddNumberToObject(o, "avg_sows", res.avg_sows);
        cJSON_AddNumberToObject(o, "seconds", res.seconds);
        cJSON_AddNumberToObject(seats, "south_seconds", res.seat_seconds[KALAH_SOUTH]);
        cJSON_AddNumberToObject(seats, "north_seconds", res.seat_seconds[KALAH_NORTH]);
        if (res.have_exact)
            perfect_json(o, &cfg, &res);
        match_result_free(&res);
        return cli_print_json(o);
    }
    print_text(a, b, &r, &cfg, &res);
    if (res.have_exact)
        print_perfect(&cfg, &res);
    match_result_free(&res);
    return 0;
}
