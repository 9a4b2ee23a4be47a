/* cmd_game.h — helpers of the commands that serve every game (match, tournament, play),
 * and the form of `play` for every game but Kalah: cmd_play hands its whole argv over when --rules names
 * another registered game (env/game.h). */
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

/* Writes the records of res to f; 0, or -1 (write error). */
int cli_game_write_records(FILE *f, const game_match_result *res);

int cmd_play_game(int argc, char **argv);

#endif
