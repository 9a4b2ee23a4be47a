/* tbase.h — the endgame database (eval/endgame.h) as a tablebase shared by the whole process.
 *
 * A database takes a minute and hundreds of MB to build (Kalah(6,·) with 20 seeds in the pits: 226 MB),
 * and it is the same for every searcher of one rule set: the self-play threads, the az agents of every
 * match thread and the solver agents. So databases live in one process-wide cache: tb_acquire returns a
 * counted reference to a database of these rules covering at least the seeds asked (an existing one when
 * there is one, else a tablebase file found by eg_find (endgame.h), else it builds it, under the cache's
 * lock); tb_release drops it, and the last release frees it. A caller that wants a database to outlive the agents it creates (a training run) holds one reference
 * for its whole life. Everything a reference gives is only read, so any number of threads may probe it.
 *
 * Which seeds: a database of N seeds values every unfinished position with at most N seeds in its pits
 * (N is capped at the rule set's total; a bigger database serves a smaller request). Rules with a sow
 * limit (max_sows > 0) have none (the value then depends on the sow count).
 */
#ifndef SOWZERO_EVAL_TBASE_H
#define SOWZERO_EVAL_TBASE_H

#include "env/game.h"
#include "env/kalah.h"
#include "eval/endgame.h"
#include "selfplay/mcts_tb.h"

typedef struct tb_ref tb_ref;

/* A reference to a database of rules r covering at least min(seeds, all seeds of r) seeds (1..127),
 * built with `threads` threads (>= 1) when none is cached. *built_seconds (may be NULL) gets the wall time
 * this call spent building (0 when it reused one or mapped a file). NULL with a message in err (KALAH_ERRLEN
 * bytes, may be NULL) on max_sows > 0, a bad seed count, a damaged or unfitting tablebase file, or no
 * memory. Thread-safe. */
tb_ref *tb_acquire(const kalah_rules *r, int seeds, int threads, double *built_seconds, char *err);

/* Does this module build endgame databases for g's rules (Kalah's without a sow limit: the database has no
 * sow count)? 1 or 0. */
int tb_supports(const game *g);

/* Why tb_supports(g) is 0 although g's kind is one this module builds databases for, as a phrase for a
 * message ("its rules have a sow limit (max_sows = 100) and the database has no sow count") into buf[n];
 * NULL when g's kind is not (the kind's own endgame hook is then the only source). */
const char *tb_unsupported_reason(const game *g, char *buf, size_t n);

/* tb_acquire for a game instance of the rules tb_supports: NULL with a message naming the rules otherwise.
 * What Kalah's database gives a game is tb_game_endgame's (game_set_endgame). */
tb_ref *tb_acquire_game(const game *g, int seeds, int threads, double *built_seconds, char *err);

/* What tb_acquire_info did to get its database. */
typedef struct {
    int built;                 /* 1: built by this call (no cached one, no file) */
    int bad_file;              /* 1 (with NULL returned): a file was found but is damaged or for other rules */
    double seconds;            /* building or mapping it (0: it was already in the cache) */
    char path[4096];           /* the file mapped, or written after the build; "" when none */
    char save_err[KALAH_ERRLEN]; /* why a build of at least save_bytes could not be written ("" if it was) */
} tb_info;

/* tb_acquire, and when it has to build the database and the build has at least save_bytes bytes
 * (0: never), writes it to its standard file (eg_default_path) for the next process; a failed write only
 * fills info->save_err. info may be NULL. */
tb_ref *tb_acquire_info(const kalah_rules *r, int seeds, int threads, size_t save_bytes, tb_info *info, char *err);

/* Drops the reference (NULL allowed); the database is freed with its last reference. Thread-safe. */
void tb_release(tb_ref *t);

/* The seeds the database covers (>= the seeds acquired, capped at the total). */
int tb_seeds(const tb_ref *t);

/* The database itself, for the alpha-beta solver (ab_borrow_endgame); valid while the reference is held. */
const eg_db *tb_db(const tb_ref *t);

/* The exact-value oracle for the search's tablebase leaves (selfplay/mcts.h, mcts_config.tablebase);
 * valid while the reference is held. */
const mcts_tb *tb_oracle(const tb_ref *t);

/* The same database for a "kalah" game instance of its rules (game_set_endgame: Kalah's self-play and
 * searches through the game interface); valid while the reference is held. */
const game_endgame_db *tb_game_endgame(const tb_ref *t);

/* The final margin under perfect play for p->side of position p (of the database's rules): 1 with it in
 * *margin when the database covers p (unfinished, at most tb_seeds seeds in the pits), else 0. */
int tb_margin(const tb_ref *t, const kalah_pos *p, int *margin);

#endif
