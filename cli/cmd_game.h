/* cmd_game.h — the forms of `match`, `tournament` and `play` for every game but Kalah (issues 8 and 14):
 * cmd_match / cmd_tournament / cmd_play hand their whole argv over when --rules names another registered
 * game (env/game.h); Kalah keeps its own fast paths there. */
#ifndef SOWZERO_CLI_CMD_GAME_H
#define SOWZERO_CLI_CMD_GAME_H

#include <stdio.h>

#include "env/game.h"
#include "eval/game_match.h"

/* 1 when argv (argv[0] = the command) has --rules VALUE or --rules=VALUE (or an abbreviation of --rules
 * that getopt_long accepts, --r at least) whose VALUE names a registered game other than kalah
 * (game_kind_find); scanning stops at "--". */
int cli_game_wanted(int argc, char **argv);

/* Creates the game of a rules spec for command cmd; prints the error ("--rules 'SPEC': ...") and returns
 * NULL, or returns the game (the caller frees it with game_free). */
game *cli_game_create(const char *cmd, const char *spec);

/* Options shared by the two commands: --games/--openings/--threads/--seed into cfg (1 handled, 0 not one of
 * them, -1 after printing an error). Unlike Kalah's, --games may be odd (seat plans are not pairs). */
int cli_game_match_option(const char *cmd, int c, const char *arg, game_match_config *cfg);

/* Writes the records of res to f; 0, or -1 (write error). */
int cli_game_write_records(FILE *f, const game_match_result *res);

int cmd_match_game(int argc, char **argv);
int cmd_tournament_game(int argc, char **argv);
int cmd_play_game(int argc, char **argv);

#endif
