/* sowzero tournament — round robin between named agents, then Bradley–Terry ratings (issue 7). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "cli/match_opts.h"
#include "cli/commands.h"
#include "cli/elo_report.h"
#include "cli/game_progress.h"
#include "eval/elo.h"
#include "eval/match.h"

#define MAX_AGENTS 64

static void help(void)
{
    puts("usage: sowzero tournament --agent NAME=SPEC --agent NAME=SPEC ... [--games N] [--openings K]\n"
         "                         [--threads T] [--rules SPEC] [--seed S] [--anchor NAME=ELO] [--pgn FILE]\n"
         "                         [--csv FILE] [--json]\n"
         "Round robin: every pair of agents plays a match of N games (colour-swapped pairs from random\n"
         "openings, the same openings for every pair), then Bradley-Terry maximum-likelihood ratings over all\n"
         "games (draws = half a win each) with 95% intervals and the likelihood-of-superiority table.\n"
         "  --agent NAME=SPEC  an agent (at least two); a bare SPEC is its own name. An ab agent's table\n"
         "                     (tt_mb MiB, default 4) is allocated per agent and per worker thread: a pair\n"
         "                     of ab agents with --threads T uses 2 x T x tt_mb MiB while it plays\n"
         "  --games N          games per pair, even (default 20)\n"
         "  --openings K       random sowings before the agents play (default 2)\n"
         "  --threads T        worker threads (default: the number of CPUs)\n"
         "  --rules SPEC       rules (default: kalah; basico:... see --rules basico --help)\n"
         "  --seed S           seed of the openings and the agents (default 1)\n"
         "  --anchor NAME=ELO  the agent whose rating is fixed (default: the first agent at 0)\n"
         "  --pgn FILE         write every game record to FILE\n"
         "  --csv FILE         write the ratings table (name,elo,lo,hi,games,score) to FILE\n"
         "  --json             print {\"ratings\":[{\"name\",\"elo\",\"lo\",\"hi\",\"games\",\"score\",\"perfect\"}],\n"
         "                     \"anchor\",\"anchor_elo\",\"prior\",\"los\",\"pairs\",\"seconds\"}");
}

/* NAME=SPEC, where NAME has no ':' (a bare spec such as ab:depth=8 or greedy is its own name). */
static void split_agent(char *text, const char **name, const char **spec)
{
    char *eq = strchr(text, '=');
    if (eq && memchr(text, ':', (size_t)(eq - text)) == NULL && eq != text) {
        *eq = 0;
        *name = text;
        *spec = eq + 1;
    } else {
        *name = *spec = text;
    }
}

int cmd_tournament(int argc, char **argv)
{
    if (cli_game_wanted(argc, argv)) /* every other game: cli/cmd_tournament_game.c */
        return cmd_tournament_game(argc, argv);
    static const struct option opts[] = {MATCH_OPTIONS,{"agent", required_argument, 0, 'a'},
                                         {"rules", required_argument, 0, 'r'},
                                         {"anchor", required_argument, 0, 'A'},
                                         {"pgn", required_argument, 0, 'p'},
                                         {"csv", required_argument, 0, 'c'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *name[MAX_AGENTS], *spec[MAX_AGENTS];
    int n = 0, json = 0, c;
    match_config cfg = match_config_default();
    cfg.games = 20;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cfg.threads = cpus > 0 ? (int)cpus : 1;
    const char *rules_spec = "kalah", *anchor = NULL, *pgn = NULL, *csv = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (n == MAX_AGENTS) {
                cli_error("tournament", "--agent: at most %d agents", MAX_AGENTS);
                return 2;
            }
            split_agent(optarg, &name[n], &spec[n]);
            n++;
            break;
        case 'r': rules_spec = optarg; break;
        case 'A': anchor = optarg; break;
        case 'p': pgn = optarg; break;
        case 'c': csv = optarg; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default:
            switch (cli_match_option("tournament", c, optarg, &cfg)) {
            case 1: break;
            case 0: return cli_usage_error("tournament");
            default: return 2;
            }
        }
    }
    if (optind < argc) {
        cli_error("tournament", "unexpected argument '%s' (agents are given with --agent NAME=SPEC)", argv[optind]);
        return 2;
    }
    if (n < 2) {
        cli_error("tournament", "--agent: needs at least two agents (got %d)", n);
        return 2;
    }
    kalah_rules r;
    if (!cli_rules("tournament", rules_spec, &r))
        return 2;
    char aerr[AGENT_ERRLEN];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++)
            if (!strcmp(name[i], name[j])) {
                cli_error("tournament", "--agent: the name '%s' is given twice", name[i]);
                return 2;
            }
        agent *ag = agent_create(spec[i], &r, aerr);
        if (!ag) {
            cli_error("tournament", "--agent %s: %s", name[i], aerr);
            return 2;
        }
        agent_free(ag);
    }
    elo_pool *pool = elo_pool_create();
    FILE *pf = NULL;
    int rc = 1;
    if (!pool) {
        cli_error("tournament", "out of memory");
        return 1;
    }
    for (int i = 0; i < n; i++)
        if (elo_pool_player(pool, name[i]) != i) {
            cli_error("tournament", "out of memory");
            goto out;
        }
    /* The anchor names a player known now: refuse it before hours of games, not after. */
    elo_options eo = {NULL, 0};
    char anchor_buf[AGENT_SPEC_MAX + 32], eerr[ELO_ERRLEN];
    if (anchor) {
        int known = 0;
        if (!elo_report_anchor(anchor, pool, anchor_buf, sizeof anchor_buf, &eo))
            for (int i = 0; i < n; i++)
                known |= !strcmp(eo.anchor, name[i]);
        if (!known) {
            cli_error("tournament", "--anchor %s: expected NAME=ELO with NAME one of the --agent names", anchor);
            rc = 2;
            goto out;
        }
    }
    if (pgn && !(pf = fopen(pgn, "w"))) {
        cli_error("tournament", "--pgn %s: cannot open for writing", pgn);
        goto out;
    }
    int pairs = n * (n - 1) / 2;
    cJSON *pairs_json = cJSON_CreateArray();
    game_progress prog;
    game_progress_init(&prog, pairs * cfg.games);
    cfg.progress = game_progress_cb;
    cfg.progress_ud = &prog;
    cfg.keep_records = pf != NULL;
    cfg.event = "sowzero tournament";
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!json)
        printf("round robin: %d agents, %d games per pair, rules %s\n\n", n, cfg.games, rules_spec);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            match_result res;
            char err[MATCH_ERRLEN];
            cfg.name_a = strcmp(name[i], spec[i]) ? name[i] : NULL;
            cfg.name_b = strcmp(name[j], spec[j]) ? name[j] : NULL;
            if (match_run(spec[i], spec[j], &r, &cfg, &res, err) != MATCH_OK) {
                game_progress_end(&prog);
                cli_error("tournament", "%s vs %s: %s", name[i], name[j], err);
                cJSON_Delete(pairs_json);
                goto out;
            }
            prog.offset += cfg.games;
            elo_pool_add(pool, i, j, res.all.wins, res.all.draws, res.all.losses);
            char rerr[RECORD_ERRLEN];
            for (int g = 0; g < res.n_records; g++)
                if (record_write(pf, &res.records[g], rerr)) {
                    game_progress_end(&prog);
                    cli_error("tournament", "--pgn %s: %s", pgn, rerr);
                    match_result_free(&res);
                    cJSON_Delete(pairs_json);
                    goto out;
                }
            cJSON *pj = cJSON_CreateObject();
            cJSON_AddStringToObject(pj, "a", name[i]);
            cJSON_AddStringToObject(pj, "b", name[j]);
            cJSON_AddNumberToObject(pj, "wins", res.all.wins);
            cJSON_AddNumberToObject(pj, "draws", res.all.draws);
            cJSON_AddNumberToObject(pj, "losses", res.all.losses);
            cJSON_AddNumberToObject(pj, "score", res.score);
            cJSON_AddNumberToObject(pj, "seconds", res.seconds);
            cJSON_AddItemToArray(pairs_json, pj);
            if (!json) {
                game_progress_end(&prog);
                printf("  %-16s vs %-16s  +%d =%d -%d  score %.3f  (%.1f s)\n", name[i], name[j], res.all.wins,
                       res.all.draws, res.all.losses, res.score, res.seconds);
                fflush(stdout);
            }
            match_result_free(&res);
        }
    game_progress_end(&prog);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    elo_result *er;
    int erc = elo_fit(pool, &eo, &er, eerr);
    if (erc) {
        cli_error("tournament", "%s%s", erc == ELO_EINVAL && anchor ? "--anchor: " : "", eerr);
        cJSON_Delete(pairs_json);
        rc = erc == ELO_EINVAL && anchor ? 2 : 1;
        goto out;
    }
    if (csv && elo_report_csv(er, csv)) {
        cli_error("tournament", "--csv %s: cannot write", csv);
        elo_result_free(er);
        cJSON_Delete(pairs_json);
        goto out;
    }
    if (json) {
        cJSON *o = elo_report_json(er);
        cJSON_AddItemToObject(o, "pairs", pairs_json);
        cJSON_AddNumberToObject(o, "games", pairs * cfg.games);
        cJSON_AddNumberToObject(o, "seconds", secs);
        rc = cli_print_json(o);
    } else {
        cJSON_Delete(pairs_json);
        printf("\n%d games in %.1f s\n\n", pairs * cfg.games, secs);
        elo_report_print(er, stdout);
        rc = 0;
    }
    elo_result_free(er);
out:
    if (pf && fclose(pf) && !rc) {
        cli_error("tournament", "--pgn %s: write failed", pgn);
        rc = 1;
    }
    elo_pool_free(pool);
    return rc;
}
