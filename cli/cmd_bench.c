/* sowzero bench — dispatches to the sub-benchmarks declared in cli/bench.h (one row each below). */
#include <stdio.h>
#include <string.h>

#include "cli/bench.h"
#include "cli/cli.h"
#include "cli/commands.h"

static const struct subbench {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} benches[] = {
    {"env", bench_env, "random-playout games/s and sowings/s of a game's batched stepper (Kalah: SIMD)"},
    {"net", bench_net, "network forward positions/s and GFLOP/s next to bare sgemm; one training step"},
    {"selfplay", bench_selfplay, "self-play positions/s and games/s, batch size, share of time in the net"},
    {"search", bench_search, "alpha-beta nodes (the search's signature) and nodes/s on fixed positions"},
    {"solve", bench_solve, "per-move exact solves of early positions: full window vs MTD(f), shared table"},
};

static void help(FILE *f)
{
    fprintf(f, "usage: sowzero bench WHAT [options]   (sowzero bench WHAT --help for its options)\n\n");
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        fprintf(f, "  %-10s %s\n", benches[i].name, benches[i].summary);
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2) {
        cli_error("bench", "which benchmark? (sowzero bench --help)");
        help(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        help(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        if (!strcmp(argv[1], benches[i].name))
            return benches[i].run(argc - 1, argv + 1);
    cli_error("bench", "unknown benchmark '%s'", argv[1]);
    help(stderr);
    return 2;
}
