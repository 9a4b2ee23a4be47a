#include "cli/match_opts.h"

#include <getopt.h>
#include <stdlib.h>

#include "cli/cli.h"

int cli_match_games_check(const char *cmd, const game *g, int games)
{
    if (game_players(g) == 2 && games % 2) {
        cli_error(cmd, "--games %d: must be even (two-player games come in colour-swapped pairs)", games);
        return 0;
    }
    return 1;
}

int cli_match_option(const char *cmd, int c, const char *arg, game_match_config *cfg)
{
    long v;
    switch (c) {
    case 'g':
        if (!cli_long(cmd, "--games", arg, 1, 100000000, &v))
            return -1;
        cfg->games = (int)v;
        return 1;
    case 'o':
        if (!cli_long(cmd, "--openings", arg, 0, 1000, &v))
            return -1;
        cfg->opening_plies = (int)v;
        return 1;
    case 't':
        if (!cli_long(cmd, "--threads", arg, 1, 1024, &v))
            return -1;
        cfg->threads = (int)v;
        return 1;
    case 's':
        return cli_seed(cmd, "--seed", arg, &cfg->seed) ? 1 : -1;
    default:
        return 0;
    }
}
