/* match_opts.h — the options `match` and `tournament` share. */
#ifndef SOWZERO_MATCH_OPTS_H
#define SOWZERO_MATCH_OPTS_H

#include "env/game.h"
#include "eval/game_match.h"

/* getopt_long short codes of the shared options: --games 'g', --openings 'o', --threads 't', --seed 's'. */
#define MATCH_OPTIONS                                                                                       \
    {"games", required_argument, 0, 'g'}, {"openings", required_argument, 0, 'o'},                         \
        {"threads", required_argument, 0, 't'}, {"seed", required_argument, 0, 's'}

/* Parses option code c (with its argument) into cfg when it is a shared one. Returns 1 when handled, 0
 * when c is not a shared option, -1 after printing an error naming the option (exit status 2). --games may
 * be odd here: cli_match_games_check refuses it once the game is known. */
int cli_match_option(const char *cmd, int c, const char *arg, game_match_config *cfg);

/* Two-player games come in colour-swapped pairs (eval/game_match.h): 1 when games suits g, else 0 after
 * printing an error naming --games (exit status 2). */
int cli_match_games_check(const char *cmd, const game *g, int games);

#endif
