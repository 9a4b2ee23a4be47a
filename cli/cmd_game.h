/* cmd_game.h — helpers of the commands that serve every game (match, tournament, play). */
#ifndef SOWZERO_CLI_CMD_GAME_H
#define SOWZERO_CLI_CMD_GAME_H

#include <stdio.h>

#include "env/game.h"
#include "eval/game_match.h"
#include "eval/record.h"

/* Creates the game of a rules spec for command cmd; prints the error ("--rules 'SPEC': ...") and returns
 * NULL, or returns the game (the caller frees it with game_free). */
game *cli_game_create(const char *cmd, const char *spec);

/* The rules recorded in the net files the agent specs specs[0..n) name (net=), when every such net that
 * loads records the same rules: written into buf (len bytes) and returned; NULL when no spec names a
 * readable net or the nets disagree. A command without --rules plays its nets' rules. */
const char *cli_rules_of_nets(const char *const *specs, int n, char *buf, size_t len);

/* The --pgn file of `match` and `tournament`: every game's record is appended as the game ends, so that an
 * interruption, even kill -9, leaves every finished game in the file, and what the file held before stays. */
typedef struct {
    int fd;
    const char *path;
    int error; /* errno of the first failed write, 0 while none */
} cli_records;

/* cli_output_check (cli/output_path.h) of --pgn PATH against the nets of the agent specs (names[i], or the
 * spec when names is NULL, name them in the message), the opening book the games read (book, NULL for
 * none) and one more output (other_flag other_path, NULL for none: --pgn and --csv must not be the same
 * file). 1 when PATH can be written, else 0 after the message. */
int cli_check_records_path(const char *cmd, const char *path, const char *const *specs, int n_specs,
                           const char *const *names, const char *book, const char *other_flag,
                           const char *other_path);

/* Opens path for appending (created 0666 & ~umask when new); when the file holds text that does not end in
 * a blank line, a blank line is added first so that the next record starts on its own. 0; or prints
 * "--pgn PATH: ..." and returns 1 (the caller has checked the path with cli_output_check: a failure here
 * is a runtime one). */
int cli_records_open(const char *cmd, const char *path, cli_records *r);

/* game_match_config.on_record for a cli_records (ud): writes the record whole (one write() loop, no stdio
 * buffer). 0, or -1 with r->error set. */
int cli_records_write(void *ud, int game, const char *record);

/* Closes the file; 0, or -1 with r->error set (a write or close failed). */
int cli_records_close(cli_records *r);

/* Appends the record of g (eval/record.h record_write; the seats' specs set) to path as above. 0, or 1 after
 * printing "--pgn PATH: ..." (the game cannot be written, or the write failed). */
int cli_records_append(const char *cmd, const char *path, record_game *g);

/* SIGINT and SIGTERM stop a match or tournament gracefully (game_match_config.stop): the first one sets
 * the flag cli_stop_flag() returns (to the signal's number) and restores the default action, so a second
 * one ends the process at once. cli_stop_install saves the previous actions, cli_stop_restore puts them
 * back. */
void cli_stop_install(void);
void cli_stop_restore(void);
const atomic_int *cli_stop_flag(void);
/* The signal that stopped the run (SIGINT, SIGTERM), or 0. */
int cli_stop_signal(void);

#endif
