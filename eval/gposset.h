/* gposset.h — solved position sets of every two-player game with a margin that an exact solver solves
 * (env/game.h, eval/game_search.h: the game's own, Kalah's alpha-beta with its endgame database for
 * Kalah): sampling from real games, solving every legal move on several threads, the JSON Lines writer
 * and the reader. The format is eval/posset.h's, with what a ply limit needs on top.
 *
 * File format (JSON Lines), version 1, as eval/posset.h, the fields that differ in meaning marked *:
 *   line 1: {"format":"sowzero-positions","format_version":1,"rules":"<game_spec>","count":N,
 *            "command":"...","commit":"...","seed":S}
 *   lines 2..N+1:
 *     {"position":"<game_pos_format>","to_move":"S","seeds_in_pits":K,"ply":P,"sows_left":L,
 *      "source":"game:greedy-vs-random","value":V,"best":["c"],"moves":{"a":-2,...}}
 *   * position: the game's own notation (game_pos_format), which holds no ply count;
 *   * ply:      the sowings played before it; they count toward the rules' max_sows, so the values depend
 *               on them (a ply limit cuts the game short) and the reader restores them into the position;
 *   * sows_left: max_sows − ply, present exactly when the rules have a ply limit (the solver's horizon);
 *   * to_move:  the first letter of the mover's seat name ("S"/"N" for the two-row games);
 *     seeds_in_pits: seeds on the board not in a score cell (board seeds − both scores);
 *     moves: every legal move's text (game_move_format, in slot order) → the exact final margin after it
 *     for the player to move here; value = the largest, best = every move reaching it.
 * Phases: as eval/posset.h, thirds of the seeds in play at the start T (board seeds of the start
 * position): early s > 2T/3, middle T/3 < s <= 2T/3, late s <= T/3.
 *
 * Library code: never prints; errors come back as PS_* codes with a message (PS_ERRLEN, or
 * GPS_LOAD_ERRLEN for the reader, whose messages carry the path and line).
 */
#ifndef SOWZERO_EVAL_GPOSSET_H
#define SOWZERO_EVAL_GPOSSET_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

#include "env/game.h"
#include "eval/posset.h"

#define GPS_LOAD_ERRLEN SZ_ERRLEN
#define GPS_NO_VALUE (-32768)   /* values[k] of a slot that is not a legal move */

typedef struct {
    game_pos pos;                   /* its ply = the sowings played before it */
    char source[PS_SOURCE_MAX];     /* how it was reached: "opening:K", "game:A-vs-B" */
    int solved;
    int values[GAME_MAX_MOVES];     /* per slot: the exact margin after it for the mover; GPS_NO_VALUE */
    int value;                      /* max of values[] (set by the solve or the reader) */
    unsigned best_mask;             /* slots reaching value */
    int seeds_in_pits;
    int line;                       /* the reader: line of the file (2..); 0 otherwise */
    double seconds;                 /* wall time of its solve */
    uint64_t nodes;                 /* positions its solve visited */
} gps_entry;

typedef struct gps_set gps_set;

/* An empty set for g (borrowed, must outlive the set). NULL with a message in err when the exact solver
 * cannot solve g's rules (gs_solvable: two players, a margin, a ply limit where positions can repeat) or
 * out of memory. */
gps_set *gps_create(const game *g, char *err);
void gps_free(gps_set *s);
const game *gps_game(const gps_set *s);
size_t gps_count(const gps_set *s);
gps_entry *gps_get(gps_set *s, size_t i);              /* owned by the set; valid until the next add */
const gps_entry *gps_get_const(const gps_set *s, size_t i);

/* Adds p (its ply as played) unless it is over or already in the set (same position, ply aside). Returns
 * 1 added, 0 skipped, PS_ENOMEM. */
int gps_add(gps_set *s, const game_pos *p, const char *source);

/* The phase 0..2 of a position with seeds_in_pits seeds in its pits (game_seeds_in_pits) and a phase's range
 * (see above). */
int gps_phase(const game *g, int seeds_in_pits);
void gps_phase_range(const game *g, int phase, int *hi, int *lo);

/* Sampling (ps_sample_opts: count, early, seed, max_seeds, max_sows_left, net). Sources, drawn at random
 * (seeded):
 *   "opening:K": K uniform random sowings from the start, K in 1..6·moves, the position reached;
 *   "game:A-vs-B": 0..3 random sowings, then game agents A (player 0) and B (eval/game_agent.h: random,
 *   greedy, ab:depth=2, ab:depth=4, mcts:sims=100 and, with a net, az:net=NET,sims=100: a net of the game's
 *   rules, else PS_EINVAL) play to the end; each phase still short takes one of
 *   the game's positions in that phase with at most max_seeds seeds in the pits, drawn uniformly.
 * Quotas: `early` positions of the early phase, the rest split between the middle and late phases (the
 * middle one takes the odd one); a phase that max_seeds puts out of reach passes its quota to the next
 * one. PS_EFAIL naming the phase when 1000 + 200·count draws do not fill the quotas, PS_EINVAL for bad
 * options, PS_ENOMEM. */
int gps_sample(gps_set *s, const ps_sample_opts *o, char *err);

/* Solving options: threads 1..64 (one gs_solver each, tt_mb / threads MiB of table each, >= 1, kept from
 * one position to the next); endgame: the solver's endgame database of at most that many seeds in the
 * pits (0 = none; gs_solver_set_endgame: games whose solver has one, built on every thread or mapped from a
 * tablebase file, shared by the threads; refused with PS_EINVAL and the reason otherwise); progress as
 * ps_solve_opts (the entry is a gps_entry). */
typedef struct {
    int threads;
    size_t tt_mb;
    int endgame;
    void (*progress)(void *ctx, size_t done, size_t total, const gps_entry *e);
    void *ctx;
} gps_solve_opts;

/* Solves every legal move of every unsolved entry exactly (gs_solver_moves: the game's exact solver, Kalah's
 * own alpha-beta for Kalah; values for the mover, a move that ends the game: its final margin). The values do not depend on the
 * threads or the order (the hardest first: most seeds in the pits, then most sowings left). Returns PS_OK;
 * PS_EINVAL (bad options), PS_ENOMEM, PS_EFAIL (a solve failed: its message and the position). stats may
 * be NULL (ps_solve_stats: endgame_seconds stays 0). */
int gps_solve(gps_set *s, const gps_solve_opts *o, ps_solve_stats *stats, char *err);

/* One line of the format (eval/posset.h), without the newline, into a malloc'd string (*out, caller frees):
 * the header (i = -1) or entry i, which must be solved: PS_OK, PS_EINVAL (entry not solved, index out of
 * range), PS_ENOMEM. And the whole set (every entry solved) written to a temporary file beside path and
 * renamed over it, so a reader never sees half a file: PS_OK, PS_EINVAL (an entry not solved: nothing
 * written), PS_EIO (message naming path; no temporary file left), PS_ENOMEM. */
int gps_format_line(gps_set *s, const ps_header *h, long i, char **out);
int gps_write(gps_set *s, const ps_header *h, const char *path, char *err);

/* Reads and validates a set of any game of the registry (Kalah's included): the header's rules must
 * create a game the solver accepts; every line is checked (the position parses and is not over, to_move,
 * seeds_in_pits, ply >= 0 and below the ply limit, sows_left = limit − ply when there is one, the move texts are exactly the
 * legal moves, margins within ± the board seeds, value = max, best = every argmax). On success *out holds
 * the set and *g_out the game it created (the caller frees both: gps_free first, then game_free).
 * PS_EIO (cannot open or read), PS_EINVAL ("PATH:LINE: what is wrong"), PS_ENOMEM; err holds
 * GPS_LOAD_ERRLEN bytes. */
int gps_load(const char *path, gps_set **out, game **g_out, char *err);
/* The header's rules text, command, commit and seed of a loaded set ("" / 0 when absent or not loaded). */
const char *gps_command(const gps_set *s);
uint64_t gps_seed(const gps_set *s);

/* The rules text of a position set's header line (the first line of path) into buf (n bytes): 1 when read,
 * 0 when the file cannot be read or has no such header (the caller's full load reports why). */
int gps_peek_rules(const char *path, char *buf, size_t n);

#endif
