#include "cli/match_opts.h"

#include <getopt.h>
#include <stdio.h>
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

int cli_match_option(const char *cmd, int c, const char *arg, game_match_config *cfg, cli_match_opts *mo)
{
    long v;
    switch (c) {
    case 'g':
        if (!cli_long(cmd, "--games", arg, 1, 100000000, &v))
            return -1;
        cfg->games = (int)v;
        mo->games_given = 1;
        return 1;
    case 'o':
        if (!cli_long(cmd, "--openings", arg, 0, 1000, &v))
            return -1;
        cfg->opening_plies = (int)v;
        mo->openings_given = 1;
        return 1;
    case 't':
        if (!cli_long(cmd, "--threads", arg, 1, 1024, &v))
            return -1;
        cfg->threads = (int)v;
        return 1;
    case 's':
        return cli_seed(cmd, "--seed", arg, &cfg->seed) ? 1 : -1;
    case MATCH_OPT_BOOK:
        if (!*arg) {
            cli_error(cmd, "--book: needs a file of openings (docs/records.md, \"Opening books\")");
            return -1;
        }
        mo->book_path = arg;
        return 1;
    case MATCH_OPT_ADJUDICATE:
        if (!cli_long(cmd, "--adjudicate", arg, 0, 255, &v))
            return -1;
        cfg->adjudicate = (int)v;
        return 1;
    default:
        return 0;
    }
}

int cli_match_setup(const char *cmd, const game *g, int n_agents, int default_games, int book_games,
                    game_match_config *cfg, cli_match_opts *mo)
{
    if (cfg->adjudicate && game_get_kind(g) != &game_kind_kalah) {
        cli_error(cmd, "--adjudicate: Kalah only (its exact solver and endgame database); %s has none", game_spec(g));
        return 0;
    }
    if (cfg->adjudicate && ((const kalah_rules *)game_rules(g))->max_sows > 0) {
        cli_error(cmd, "--adjudicate: not with max_sows=%d (the endgame database has no sowing count)",
                  ((const kalah_rules *)game_rules(g))->max_sows);
        return 0;
    }
    if (mo->book_path) {
        if (mo->openings_given) {
            cli_error(cmd, "--book and --openings: give one (the book's openings replace the random ones)");
            return 0;
        }
        char err[BOOK_ERRLEN], buf[4096];
        const char *path = cli_data_path(mo->book_path, buf, sizeof buf); /* data/... of an installed tree too */
        if (book_read(g, path, &mo->book, err) != BOOK_OK) {
            cli_error(cmd, "--book %s", err);
            return 0;
        }
        cfg->book = mo->book;
        cfg->book_first = 0;
    }
    if (!mo->games_given) {
        long long n = (long long)game_match_group_size(n_agents, game_players(g)) * (mo->book ? mo->book->n : 0);
        cfg->games = mo->book && book_games && n >= 1 && n <= 100000000 ? (int)n : default_games;
    }
    return cli_match_games_check(cmd, g, cfg->games);
}

void cli_match_opts_free(cli_match_opts *mo)
{
    book_free(mo->book);
    mo->book = NULL;
}

const char *cli_match_openings_text(const game_match_config *cfg, const cli_match_opts *mo, char *buf, size_t n)
{
    if (cfg->book)
        snprintf(buf, n, "from the book %s of %d openings", mo->book_path, cfg->book->n);
    else
        snprintf(buf, n, "of %d random sowings", cfg->opening_plies);
    return buf;
}
