/* sowzero — one binary, many subcommands (docs/design.md §4). */
#include <stdio.h>
#include <string.h>
#include "cli/blas_core.h"
#include "cli/commands.h"

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"perft", cmd_perft, "count positions at each depth (one ply = one sowing)"},
    {"replay", cmd_replay, "apply moves to a position and show each step"},
    {"bench", cmd_bench, "measure speed: bench env|search|net|selfplay|solve (bench WHAT --help)"},
    {"export", cmd_export, "write the weights-only export of a checkpoint"},
    {"net", cmd_net, "the network's policy and value for one position"},
    {"match", cmd_match, "play agents against each other (Kalah: colour-swapped pairs; other games: 2-4 seats)"},
    {"tournament", cmd_tournament, "round robin between agents, then Elo ratings"},
    {"elo", cmd_elo, "Bradley-Terry Elo ratings from game-record files"},
    {"play", cmd_play, "play against an agent in the terminal"},
    {"solve", cmd_solve, "exact value of a position under perfect play and every best move"},
    {"serve", cmd_serve, "play against the agents in a browser (a page and a JSON API over HTTP)"},
    {"train", cmd_train, "train an agent by self-play from an INI config (the main job)"},
    {"positions", cmd_positions, "sample positions over every phase, solve every move exactly, write the set"},
    {"accuracy", cmd_accuracy, "an agent's moves on a solved position set against perfect play"},
    {"move", cmd_move, "one agent's move at a position, with its search statistics"},
    {"metrics", cmd_metrics, "a training run's time-to-accuracy table (search and raw policy against wall time)"},
    {"tablebase", cmd_tablebase, "build, check and list endgame tablebase files (solved endgames, built once)"},
    {"engine", cmd_engine, "an agent as a long-lived engine: KGP 1.x freeplay and sowzero's extension (stdin or --port)"},
    {"kgp", cmd_kgp, "kgp connect HOST:PORT AGENT: play an agent on a KGP tournament server"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: sowzero COMMAND [options]   (sowzero COMMAND --help or sowzero help COMMAND for its "
               "options)\n"
               "       sowzero --version           (prints \"sowzero %s\")\n"
               "       sowzero --help              (this list)\n\ncommands:\n", SOWZERO_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    cli_blas_core_fixup(argv);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "help") && argc >= 3) {
        /* `sowzero help CMD [WHAT]` is `sowzero CMD [WHAT] --help` (it used to print the general help). */
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(argv[2], commands[i].name)) {
                char help[] = "--help";
                char *args[4] = {argv[2], argc >= 4 ? argv[3] : help, argc >= 4 ? help : NULL, NULL};
                return commands[i].run(argc >= 4 ? 3 : 2, args);
            }
        fprintf(stderr, "sowzero help: unknown command '%s'\n", argv[2]);
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("sowzero %s\n", SOWZERO_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "sowzero: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
