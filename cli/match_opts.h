/* match_opts.h — the options `match` and `tournament` share. */
#ifndef SOWZERO_MATCH_OPTS_H
#define SOWZERO_MATCH_OPTS_H

#include "eval/match.h"

/* getopt_long short codes of the shared options: --games 'g', --openings 'o', --threads 't', --seed 's'. */
#define MATCH_OPTIONS                                                                                       \
    {"games", required_argument, 0, 'g'}, {"openings", required_argument, 0, 'o'},                         \
        {"threads", required_argument, 0, 't'}, {"seed", required_argument, 0, 's'}

/* Parses option code c (with its argument) into cfg when it is a shared one. Returns 1 when handled, 0
 * when c is not a shared option, -1 after printing an error naming the option (exit status 2). */
int cli_match_option(const char *cmd, int c, const char *arg, match_config *cfg);

#endif
