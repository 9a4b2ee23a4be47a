/* match_opts.h — the options `match` and `tournament` share. */
#ifndef SOWZERO_MATCH_OPTS_H
#define SOWZERO_MATCH_OPTS_H

#include <cjson/cJSON.h>

#include "env/game.h"
#include "eval/book.h"
#include "eval/game_match.h"

/* getopt_long codes of the shared options: --games 'g', --openings 'o', --threads 't', --seed 's', and the
 * long-only --book, --adjudicate, --tc and --tc-margin. */
enum { MATCH_OPT_BOOK = 0x1100, MATCH_OPT_ADJUDICATE, MATCH_OPT_TC, MATCH_OPT_TC_MARGIN };
#define MATCH_OPTIONS                                                                                       \
    {"games", required_argument, 0, 'g'}, {"openings", required_argument, 0, 'o'},                         \
        {"threads", required_argument, 0, 't'}, {"seed", required_argument, 0, 's'},                       \
        {"book", required_argument, 0, MATCH_OPT_BOOK}, {"adjudicate", required_argument, 0, MATCH_OPT_ADJUDICATE}, \
        {"tc", required_argument, 0, MATCH_OPT_TC}, {"tc-margin", required_argument, 0, MATCH_OPT_TC_MARGIN}

/* --tc-margin's default: how far past its time a move may end before it loses on time. */
#define MATCH_TC_MARGIN_MS 20

/* What the shared options need the game for (cli_match_setup), and what they leave to free. */
typedef struct {
    int games_given, openings_given, tc_move_given, tc_clock_given, margin_given;
    const char *book_path;  /* --book as given */
    opening_book *book;     /* read by cli_match_setup (owned: cli_match_opts_free) */
} cli_match_opts;

/* Parses option code c (with its argument) into cfg and mo when it is a shared one. Returns 1 when
 * handled, 0 when c is not a shared option, -1 after printing an error naming the option (exit status 2).
 * --games may be odd here: cli_match_setup refuses it once the game is known. */
int cli_match_option(const char *cmd, int c, const char *arg, game_match_config *cfg, cli_match_opts *mo);

/* Once the game g is known: reads the --book (errors name FILE:LINE), refuses --book with --openings and
 * --adjudicate for a game other than Kalah (or with max_sows, where the solver's value depends on the sowing
 * count); without --games sets cfg->games to default_games, or
 * with a book and book_games to the book once through (its entries × the seat plan's group of n_agents);
 * then checks the games as cli_match_games_check. 1, or 0 after printing the error (exit status 2). */
int cli_match_setup(const char *cmd, const game *g, int n_agents, int default_games, int book_games,
                    game_match_config *cfg, cli_match_opts *mo);

void cli_match_opts_free(cli_match_opts *mo);

/* Two-player games come in colour-swapped pairs (eval/game_match.h): 1 when games suits g, else 0 after
 * printing an error naming --games (exit status 2). */
int cli_match_games_check(const char *cmd, const game *g, int games);

/* The time control for the text reports ("100 ms a move; 10+0.1 s a game; margin 20 ms"), "" without one. */
const char *cli_match_tc_text(const game_match_config *cfg, char *buf, size_t n);

/* The time control for --json: {"move_ms","base_ms","inc_ms","margin_ms"} (0 where not set), or null. */
cJSON *cli_match_tc_json(const game_match_config *cfg);

/* How the games open, for the text reports: "from the book FILE (N openings)" or "of K random sowings". */
const char *cli_match_openings_text(const game_match_config *cfg, const cli_match_opts *mo, char *buf, size_t n);

#endif
