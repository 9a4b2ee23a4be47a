/* cmd_basico.h — the Mancala básico forms of `match` and `tournament` (issue 8). cmd_match / cmd_tournament
 * hand their whole argv over when --rules names a básico rules spec. */
#ifndef SOWZERO_CLI_CMD_BASICO_H
#define SOWZERO_CLI_CMD_BASICO_H

#include <stdio.h>

#include "env/basico.h"
#include "eval/basico_match.h"

/* 1 when argv (argv[0] = the command) has --rules VALUE or --rules=VALUE (or an abbreviation of --rules
 * that getopt_long accepts, --r at least) whose VALUE starts with "basico"; scanning stops at "--". */
int cli_basico_wanted(int argc, char **argv);

/* Parses a básico rules spec for command cmd; prints the error ("--rules 'SPEC': ...") and returns 0, or
 * returns 1. */
int cli_basico_rules(const char *cmd, const char *spec, basico_rules *out);

/* Options shared by the two commands: --games/--openings/--threads/--seed into cfg (1 handled, 0 not one of
 * them, -1 after printing an error). Unlike Kalah's, --games may be odd (seat plans are not pairs). */
int cli_basico_match_option(const char *cmd, int c, const char *arg, basico_match_config *cfg);

/* Writes the records of res to f; 0, or -1 (write error). */
int cli_basico_write_records(FILE *f, const basico_match_result *res);

int cmd_match_basico(int argc, char **argv);
int cmd_tournament_basico(int argc, char **argv);

#endif
