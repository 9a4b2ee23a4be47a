/* sowzero bench selfplay — self-play speed with the default net (docs/design.md §4–5): simulations per second
 * per core, and per simulation the search's own time beside the net's (the share of time in the net is no
 * target: it falls when the net gets faster); positions and games per second, the batch size reached. */
#include <getopt.h>
#include <stdio.h>

#include "cli/bench.h"
#include "cli/cli.h"
#include "nn/net.h"
#include "env/game.h"
#include "selfplay/game_selfplay.h"

static void help(void)
{
    puts("usage: sowzero bench selfplay [--threads N] [--sims S] [--games-per-thread G] [--games N]\n"
         "                              [--leaves L] [--rules SPEC] [--seed N] [--json]\n"
         "Self-play with the default net (nn_config_default, fresh seeded weights) and the default search\n"
         "(noise and temperature on, tree reuse, solver); OpenBLAS runs 1 thread per worker.\n"
         "Headline: simulations per second per core (PUCT simulations completed / the workers' wall seconds:\n"
         "one worker per core), and per simulation the search's own time (a worker's time outside the net's\n"
         "forward calls: selection, expansion, backup, the batcher) beside the net's (inside them), in µs.\n"
         "  --threads N           worker threads (default 1)\n"
         "  --sims S              simulations per move (default 100)\n"
         "  --games-per-thread G  games each worker runs at once = the batch it reaches (default 64)\n"
         "  --games N             games to play (default 2 * G * threads)\n"
         "  --leaves L            leaves per game per batch, virtual loss above 1 (default 1)\n"
         "  --rules SPEC          any registered game (default kalah), all through the one self-play driver\n"
         "                        (selfplay/game_selfplay.h) that training runs\n"
         "  --seed N              master seed (default 1)\n"
         "  --json                print {\"sims_per_s_per_core\",\"search_us_per_sim\",\"net_us_per_sim\",\n"
         "                        \"simulations\",\"positions_per_s\",\"games_per_s\",\"avg_batch\",\"forward_share\",\n"
         "                        \"threads\",\"sims\",\"games\",\"positions\",\"evals\",\"seconds\",\"params\"}");
}

int bench_selfplay(int argc, char **argv)
{
    static const struct option opts[] = {{"threads", required_argument, 0, 't'},
                                         {"sims", required_argument, 0, 's'},
                                         {"games-per-thread", required_argument, 0, 'g'},
                                         {"games", required_argument, 0, 'n'},
                                         {"leaves", required_argument, 0, 'l'},
                                         {"rules", required_argument, 0, 'r'},
                                         {"seed", required_argument, 0, 'S'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "bench selfplay", *rules_spec = NULL;
    long threads = 1, sims = 100, gpt = 64, games = 0, leaves = 1, seed = 1;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 't': if (!cli_long(cmd, "--threads", optarg, 1, 256, &threads)) return 2; break;
        case 's': if (!cli_long(cmd, "--sims", optarg, 1, 1000000, &sims)) return 2; break;
        case 'g': if (!cli_long(cmd, "--games-per-thread", optarg, 1, 4096, &gpt)) return 2; break;
        case 'n': if (!cli_long(cmd, "--games", optarg, 1, 100000000, &games)) return 2; break;
        case 'l': if (!cli_long(cmd, "--leaves", optarg, 1, 64, &leaves)) return 2; break;
        case 'r': rules_spec = optarg; break;
        case 'S': if (!cli_long(cmd, "--seed", optarg, 0, 0x7fffffffL, &seed)) return 2; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error(cmd);
        }
    }
    if (optind != argc) {
        cli_error(cmd, "unexpected argument '%s'", argv[optind]);
        return cli_usage_error(cmd);
    }
    char err[NN_ERRLEN > MCTS_ERRLEN ? NN_ERRLEN : MCTS_ERRLEN];
    const char *spec = rules_spec ? rules_spec : "kalah";
    game *g = game_create(spec, err);
    if (!g) {
        cli_error(cmd, "--rules '%s': %s", spec, err);
        return 2;
    }
    nn_set_blas_threads(1);
    nn_config nc = nn_config_default(game_encode_dim(g), game_moves(g));
    nc.n_value = game_value_dim(g);
    nn_net *net = nn_net_create(&nc, (uint64_t)seed, err);
    if (!net) {
        cli_error(cmd, "%s", err);
        game_free(g);
        return 1;
    }
    selfplay_config sc = selfplay_config_default();
    sc.threads = (int)threads;
    sc.games_per_thread = (int)gpt;
    sc.games = games ? (int)games : (int)(2 * gpt * threads);
    mcts_config mc = mcts_config_default();
    mc.sims = (int)sims;
    mc.leaves_per_game = (int)leaves;
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_net(net);
    game_selfplay_stats st = {0};
    int rc = game_selfplay_run(g, &sc, &mc, &ef, NULL, (uint64_t)seed, &st, err);
    size_t params = nn_param_count(net);
    nn_net_free(net);
    game_free(g);
    if (rc != MCTS_OK) {
        cli_error(cmd, "%s", err);
        return 1;
    }
    double sims_total = (double)st.simulations;
    double per_core = st.thread_seconds > 0 ? sims_total / st.thread_seconds : 0;
    double search_us = sims_total > 0 ? 1e6 * (st.thread_seconds - st.forward_seconds) / sims_total : 0;
    double net_us = sims_total > 0 ? 1e6 * st.forward_seconds / sims_total : 0;
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "sims_per_s_per_core", per_core);
        cJSON_AddNumberToObject(o, "search_us_per_sim", search_us);
        cJSON_AddNumberToObject(o, "net_us_per_sim", net_us);
        cJSON_AddNumberToObject(o, "simulations", sims_total);
        cJSON_AddNumberToObject(o, "positions_per_s", st.positions_per_s);
        cJSON_AddNumberToObject(o, "games_per_s", st.games_per_s);
        cJSON_AddNumberToObject(o, "avg_batch", st.avg_batch);
        cJSON_AddNumberToObject(o, "forward_share", st.forward_share);
        cJSON_AddNumberToObject(o, "threads", (double)threads);
        cJSON_AddNumberToObject(o, "sims", (double)sims);
        cJSON_AddNumberToObject(o, "games", (double)st.games);
        cJSON_AddNumberToObject(o, "positions", (double)st.samples);
        cJSON_AddNumberToObject(o, "evals", (double)st.evals);
        cJSON_AddNumberToObject(o, "seconds", st.seconds);
        cJSON_AddNumberToObject(o, "params", (double)params);
        return cli_print_json(o);
    }
    printf("self-play: %d %s, %ld sims, %d games/thread at once, net of %zu parameters\n", sc.threads,
           cli_threads(sc.threads), sims, sc.games_per_thread, params);
    printf("simulations/s per core %.0f  per simulation: search %.2f us, net %.2f us\n", per_core, search_us,
           net_us);
    printf("games %llu  positions %llu  simulations %llu  evals %llu  in %.2f s\n", (unsigned long long)st.games,
           (unsigned long long)st.samples, (unsigned long long)st.simulations, (unsigned long long)st.evals,
           st.seconds);
    printf("positions/s %.1f  games/s %.2f  avg batch %.1f\n", st.positions_per_s, st.games_per_s, st.avg_batch);
    return 0;
}
