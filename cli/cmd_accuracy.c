/* sowzero accuracy — an agent's moves on a solved position set against perfect play
 * (eval/accuracy.h, eval/gposset.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/net_search.h"
#include "cli/game_progress.h"
#include "eval/accuracy.h"
#include "eval/gposset.h"

#define CMD "accuracy"
#define DEFAULT_POSITIONS "data/kalah-6-4.positions.jsonl"

static void help(void)
{
    puts("usage: sowzero accuracy AGENT [--positions FILE] [--threads N] [--seed S] [--json]\n"
         "Lets AGENT choose a move at every position of a solved position set and compares it with perfect\n"
         "play: the share of optimal moves (95% Wilson interval), the mean regret (value - the chosen move's\n"
         "exact margin, in seeds; 95% normal-approximation interval, mean +- 1.96 s/sqrt(n)), the share of\n"
         "blunders (regret >= 4 seeds; Wilson interval), overall and by phase (seeds left in the pits, in\n"
         "thirds of the total: Kalah(6,4) 48-33, 32-17, 16-0). The agent plays under the set's rules (an az\n"
         "net must have been trained for them). Before position i the agent is reseeded from (S, i), so the\n"
         "figures do not depend on --threads.\n"
         "AGENT is an agent of the set's game (its header's rules; docs/agents.md), each with ,seed=N:\n"
         "Kalah's random, greedy, ab:depth=8, mcts:sims=800, az:net=PATH.h5,sims=200 (sims=0: the raw\n"
         "policy), solver; every other game's random, greedy, ab:depth=N, maxn:depth=N, mcts:sims=N,\n"
         "az:net=PATH.h5 (a net of the set's rules), solve.\n"
         "  --positions FILE  the set, JSON Lines (format: eval/posset.h; written by `sowzero positions --solve`)\n"
         "                    (default " DEFAULT_POSITIONS ", or an installed sowzero's copy in\n"
         "                    share/sowzero/ when the working directory has none)\n"
         "  --threads N       worker threads, one agent instance each (default: the number of CPUs)\n"
         "  --seed S          seed of the agents' per-position randomness (default 0)\n"
         "  --json            print {\"agent\",\"positions_file\",\"rules\",\"positions\",\"optimal\",\n"
         "                    \"optimal_rate\",\"optimal_lo\",\"optimal_hi\",\"mean_regret\",\"regret_lo\",\n"
         "                    \"regret_hi\",\"blunders\",\"blunder_rate\",\"blunder_lo\",\"blunder_hi\",\n"
         "                    \"by_phase\":[{\"phase\",\"seeds_from\",\"seeds_to\",...the same figures}],\n"
         "                    \"seed\",\"threads\",\"seconds\",\"plays\",\"plays_note\"}; plays: when the spec\n"
         "                    does not say it all, a spec that plays the same with every search key spelt\n"
         "                    out (az: some from the net's search record, eval/agent.h), else null;\n"
         "                    plays_note: where those values came from, else null (the text output shows\n"
         "                    both as \"plays as\")\n"
         "Exit status 2: a bad agent spec, a missing file, a file that is not a valid set, a net for other\n"
         "rules; 1: the agent failed during the run.");
}

static void stats_json(cJSON *o, const accuracy_stats *s)
{
    cJSON_AddNumberToObject(o, "positions", s->positions);
    cJSON_AddNumberToObject(o, "optimal", s->optimal);
    cJSON_AddNumberToObject(o, "optimal_rate", s->optimal_rate);
    cJSON_AddNumberToObject(o, "optimal_lo", s->optimal_lo);
    cJSON_AddNumberToObject(o, "optimal_hi", s->optimal_hi);
    cJSON_AddNumberToObject(o, "mean_regret", s->mean_regret);
    cJSON_AddNumberToObject(o, "regret_lo", s->regret_lo);
    cJSON_AddNumberToObject(o, "regret_hi", s->regret_hi);
    cJSON_AddNumberToObject(o, "blunders", s->blunders);
    cJSON_AddNumberToObject(o, "blunder_rate", s->blunder_rate);
    cJSON_AddNumberToObject(o, "blunder_lo", s->blunder_lo);
    cJSON_AddNumberToObject(o, "blunder_hi", s->blunder_hi);
}

static void stats_line(const char *label, const accuracy_stats *s)
{
    printf("  %-16s %6d   %5.1f%% [%5.1f, %5.1f]   %5.2f [%5.2f, %5.2f]   %5.1f%% [%5.1f, %5.1f]\n", label,
           s->positions, 100 * s->optimal_rate, 100 * s->optimal_lo, 100 * s->optimal_hi, s->mean_regret,
           s->regret_lo, s->regret_hi, 100 * s->blunder_rate, 100 * s->blunder_lo, 100 * s->blunder_hi);
}

int cmd_accuracy(int argc, char **argv)
{
    static const struct option opts[] = {{"positions", required_argument, 0, 'p'},
                                         {"threads", required_argument, 0, 't'},
                                         {"seed", required_argument, 0, 's'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *const default_path = DEFAULT_POSITIONS;
    const char *path = default_path;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), threads = cpus > 0 ? cpus : 1;
    accuracy_config cfg = {0};
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'p': path = optarg; break;
        case 't':
            if (!cli_long(CMD, "--threads", optarg, 1, 256, &threads))
                return 2;
            break;
        case 's':
            if (!cli_seed(CMD, "--seed", optarg, &cfg.seed))
                return 2;
            break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error(CMD);
        }
    }
    if (argc - optind != 1) {
        cli_error(CMD, "needs one agent spec (got %d arguments)", argc - optind);
        return cli_usage_error(CMD);
    }
    const char *spec = argv[optind];
    char err[ACCURACY_ERRLEN > GPS_LOAD_ERRLEN ? ACCURACY_ERRLEN : GPS_LOAD_ERRLEN], data_path[4096];
    if (path == default_path)   /* the shipped set: also found in an installed share/sowzero/ */
        path = cli_data_path(path, data_path, sizeof data_path);
    gps_set *gset = NULL;
    game *g = NULL;
    int rc = gps_load(path, &gset, &g, err);
    if (rc != PS_OK) {
        cli_error(CMD, "--positions %s", err);
        return rc == PS_ENOMEM ? 1 : 2;
    }
    const int count = (int)gps_count(gset);
    const char *rules_str = game_spec(g);
    int from[PS_PHASES], to[PS_PHASES];
    for (int p = 0; p < PS_PHASES; p++)
        gps_phase_range(g, p, &from[p], &to[p]);
    cfg.threads = (int)threads;
    game_progress gp;
    game_progress_init(&gp, count);
    cfg.progress = game_progress_cb;
    cfg.progress_ud = &gp;
    accuracy_result res;
    rc = accuracy_run(gset, spec, &cfg, &res, err);
    game_progress_end(&gp);
    if (rc != ACCURACY_OK) {
        cli_error(CMD, "%s", err);
        gps_free(gset);
        game_free(g);
        return rc == ACCURACY_EAGENT || rc == ACCURACY_EINVAL ? 2 : 1;
    }
    int used_threads = cfg.threads < res.n ? cfg.threads : res.n;
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "agent", spec);
        ns_add_plays_json(o, spec, res.agent);
        cJSON_AddStringToObject(o, "positions_file", path);
        cJSON_AddStringToObject(o, "rules", rules_str);
        stats_json(o, &res.all);
        cJSON *arr = cJSON_AddArrayToObject(o, "by_phase");
        for (int p = 0; p < PS_PHASES; p++) {
            cJSON *ph = cJSON_CreateObject();
            cJSON_AddStringToObject(ph, "phase", ps_phase_name(p));
            cJSON_AddNumberToObject(ph, "seeds_from", from[p]);
            cJSON_AddNumberToObject(ph, "seeds_to", to[p]);
            stats_json(ph, &res.phase[p]);
            cJSON_AddItemToArray(arr, ph);
        }
        cJSON_AddNumberToObject(o, "seed", (double)cfg.seed);
        cJSON_AddNumberToObject(o, "threads", used_threads);
        cJSON_AddNumberToObject(o, "seconds", res.seconds);
        rc = cli_print_json(o);
    } else {
        printf("accuracy of %s\n", spec);
        ns_print_plays("  ", spec, res.agent);
        printf("on %s (%s; %d positions), seed %llu, %d %s, %.2f s\n\n", path, rules_str, res.n,
               (unsigned long long)cfg.seed, used_threads, cli_threads(used_threads), res.seconds);
        printf("  %-16s %6s   %-21s   %-19s   %s\n", "seeds in pits", "n", "optimal moves (95%)",
               "mean regret (95%)", "blunders >= 4 (95%)");
        stats_line("all", &res.all);
        for (int p = 0; p < PS_PHASES; p++) {
            char label[40];
            snprintf(label, sizeof label, "%s %d-%d", ps_phase_name(p), from[p], to[p]);
            stats_line(label, &res.phase[p]);
        }
        rc = 0;
    }
    accuracy_result_free(&res);
    gps_free(gset);
    game_free(g);
    return rc;
}
