#include "cli/match_opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "eval/game_agent.h"
#include "eval/game_match.h"

int cli_match_games_check(const char *cmd, const game *g, int games)
{
    if (game_players(g) == 2 && games % 2) {
        cli_error(cmd, "--games %d: must be even (two-player games come in colour-swapped pairs)", games);
        return 0;
    }
    return 1;
}

/* Seconds as a decimal number in [lo, hi] into whole milliseconds; 0 when it is not one. */
static int seconds_ms(const char *s, size_t n, double lo, double hi, int64_t *ms)
{
    char buf[32], *end;
    if (!n || n >= sizeof buf || strspn(s, "0123456789.") < n)
        return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    double v = strtod(buf, &end);
    if (errno || *end || !(v >= lo && v <= hi))
        return 0;
    *ms = (int64_t)llround(v * 1000);
    return 1;
}

/* --tc MOVE_MS (whole milliseconds a move) or --tc BASE+INC (seconds: a game clock and its increment). */
static int tc_option(const char *cmd, const char *arg, game_match_config *cfg, cli_match_opts *mo)
{
    const char *plus = strchr(arg, '+');
    if (!plus) {
        long v;
        if (!cli_long(cmd, "--tc", arg, 1, 3600000, &v))
            return -1;
        if (mo->tc_move_given) {
            cli_error(cmd, "--tc %s: a time per move is given twice", arg);
            return -1;
        }
        cfg->tc_move_ms = v;
        mo->tc_move_given = 1;
        return 1;
    }
    int64_t base, inc;
    if (!seconds_ms(arg, (size_t)(plus - arg), 0.001, 1e6, &base) ||
        !seconds_ms(plus + 1, strlen(plus + 1), 0, 3600, &inc)) {
        cli_error(cmd, "--tc %s: not MOVE_MS (whole milliseconds a move, e.g. 100) or BASE+INC (seconds a game and "
                       "the increment a move, e.g. 10+0.1; BASE in 0.001..1e6, INC in 0..3600)", arg);
        return -1;
    }
    if (mo->tc_clock_given) {
        cli_error(cmd, "--tc %s: a game clock is given twice", arg);
        return -1;
    }
    cfg->tc_base_ms = base;
    cfg->tc_inc_ms = inc;
    mo->tc_clock_given = 1;
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
    case MATCH_OPT_TC:
        return tc_option(cmd, arg, cfg, mo);
    case MATCH_OPT_TC_MARGIN:
        if (!cli_long(cmd, "--tc-margin", arg, 0, 60000, &v))
            return -1;
        cfg->tc_margin_ms = v;
        mo->margin_given = 1;
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
    char xerr[AGENT_ERRLEN];
    if (cfg->adjudicate && !game_match_adjudicable(g, xerr)) {
        cli_error(cmd, "--adjudicate: %s", xerr);
        return 0;
    }
    if (mo->margin_given && !mo->tc_move_given && !mo->tc_clock_given) {
        cli_error(cmd, "--tc-margin: only with --tc");
        return 0;
    }
    if (!mo->margin_given)
        cfg->tc_margin_ms = MATCH_TC_MARGIN_MS;
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

const char *cli_match_tc_text(const game_match_config *cfg, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    if (cfg->tc_move_ms > 0)
        at += (size_t)snprintf(buf, n, "%lld ms a move", (long long)cfg->tc_move_ms);
    if (cfg->tc_base_ms > 0 && at < n)
        at += (size_t)snprintf(buf + at, n - at, "%s%g+%g s a game", at ? "; " : "", cfg->tc_base_ms / 1000.0,
                               cfg->tc_inc_ms / 1000.0);
    if (at && at < n)
        snprintf(buf + at, n - at, "; margin %lld ms", (long long)cfg->tc_margin_ms);
    return buf;
}

cJSON *cli_match_tc_json(const game_match_config *cfg)
{
    if (cfg->tc_move_ms <= 0 && cfg->tc_base_ms <= 0)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "move_ms", (double)cfg->tc_move_ms);
    cJSON_AddNumberToObject(o, "base_ms", (double)cfg->tc_base_ms);
    cJSON_AddNumberToObject(o, "inc_ms", (double)cfg->tc_inc_ms);
    cJSON_AddNumberToObject(o, "margin_ms", (double)cfg->tc_margin_ms);
    return o;
}

const char *cli_match_openings_text(const game_match_config *cfg, const cli_match_opts *mo, char *buf, size_t n)
{
    if (cfg->book)
        snprintf(buf, n, "from the book %s of %d openings", mo->book_path, cfg->book->n);
    else
        snprintf(buf, n, "of %d random sowings", cfg->opening_plies);
    return buf;
}
