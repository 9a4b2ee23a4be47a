/* alphabeta.h — negamax alpha-beta search and exact solver for Kalah (docs/design.md §3.5).
 *
 * Values. Every value is a seed margin for the player to move at the position searched:
 *   - a finished game scores its exact final margin, own store − opponent's store (after the sweep);
 *   - at the depth horizon a position scores its store difference, own store − opponent's store, and
 *     nothing else (no extra terms: the margin is what the solver reports, so one scale serves both);
 *   - negamax: a child where the opponent moves contributes −value(child); a child where the same player
 *     moves again (an extra turn) contributes +value(child) — the sign is kept, never flipped blindly.
 * One ply is one sowing (as in perft): an extra turn costs a ply of depth like any other move.
 * A depth-limited value is exactly the fixed-depth minimax value of these rules, whatever the
 * transposition table holds (the table reuses a bound only for the same remaining depth, or an exact game
 * value whose subtree ended within that depth) — except for positions in an endgame database
 * (ab_set_endgame), which are valued exactly at any depth.
 *
 * Exact values. With `exact` set the search runs to the end of the game: `value` is the final margin
 * under perfect play for the player to move, and `best_mask` holds EVERY move that achieves it.
 *
 * Moves are relative pit numbers 0..pits-1 of the player to move (0 = a for South, A for North), as in
 * env/kalah.h; kalah_move_letter(side, k) gives the letter.
 *
 * Tie rule (the `seed` of ab_limits): the root value of every move is resolved far enough to find all
 * moves whose value equals the best one at the last completed depth (best_mask). seed 0 picks the lowest
 * pit of best_mask; seed != 0 picks one of best_mask uniformly at random, drawn from a generator seeded
 * with seed only (so the same seed and position give the same move). The search itself, and so the node
 * count, does not depend on the seed.
 *
 * Determinism. One search object searches with one thread; the same rules, table size, table contents,
 * position and limits give the same move, value and node count. The transposition table persists across
 * ab_think calls (it speeds up a game); call ab_clear first for a history-independent result. Only a
 * millisecond limit makes the result depend on the clock.
 *
 * Transposition table (eval/tt.h): keyed by the pits and the side to move — not the stores, since the
 * value is the store difference plus a function of the pits and side — and by the sow count only when
 * rules.max_sows > 0 (then the end of the game depends on it). It stores bounds, so extra turns need no
 * special care: the side to move is part of the key and values are always for that side.
 *
 * Solving (exact = 1): depth-limited passes while they stay cheap (a fixed node budget) give a first
 * guess; MTD(f) null-window probes then converge on the exact value (values of a solve all have the
 * parity of the seed total); one null-window probe per root move finds every move that reaches it. A
 * solved root's exact value goes into the table; a later solve of a position whose exact value the table
 * holds skips the guessing passes (a solver agent meeting a position again: its next moves of a game, a
 * tournament's next pair from the same opening, eval/game_match.h's pools), same value, same moves.
 * Enhancements: enhanced transposition cutoffs, bounds from the stores (the final margin lies within
 * store difference ± seeds left in the pits), and the optional endgame database (ab_set_endgame).
 * Kalah(6,4) (+8) needs about 1.5 minutes on this project's 2-core machine with
 * `sowzero solve --endgame 18 --threads 2 --tt-mb 2048` (see the solve command's --help).
 *
 * Threading: an ab_search is not thread-safe; use one per thread.
 */
#ifndef SOWZERO_ALPHABETA_H
#define SOWZERO_ALPHABETA_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

#include "env/kalah.h"
#include "eval/endgame.h"

#define AB_MAX_DEPTH 250       /* deepest nominal depth (plies) of a depth-limited search */
#define AB_MAX_PV 64           /* principal-variation moves kept in ab_result */
#define AB_NO_VALUE (-32768)   /* ab_root_values: the pit is not a legal move */

enum { AB_OK = SZ_OK, AB_EINVAL = SZ_EINVAL, AB_ENOMEM = SZ_ENOMEM, AB_EOVER = SZ_EOVER, AB_ESTOPPED = SZ_ESTOPPED };

typedef struct ab_search ab_search;

/* Search limits; zero means "no limit" for depth, nodes and ms. A depth-limited search (exact = 0) with
 * all three zero searches to AB_MAX_DEPTH; in practice give at least one. Iterative deepening stops at the
 * first limit reached; the result is that of the last completed depth (depth 1 always completes, so a
 * legal move is always returned). */
typedef struct {
    int depth;          /* plies (sowings), 1..AB_MAX_DEPTH; ignored when exact */
    uint64_t nodes;     /* stop once this many nodes have been searched (checked at every node) */
    int64_t ms;         /* stop after this many milliseconds of wall-clock time (checked every 1024 nodes) */
    int exact;          /* 1 = solve: search to the end of the game; depth is ignored, nodes/ms still apply
                         * (a stopped solve returns exact = 0 in the result) */
    uint64_t seed;      /* tie-break among equally valued root moves, see the tie rule above */
} ab_limits;

typedef struct {
    int move;           /* chosen relative pit 0..pits-1; -1 when the game is over */
    int value;          /* value of the position for the player to move (margin in seeds, see above) */
    int exact;          /* 1 when value is the proven final margin under perfect play */
    unsigned best_mask; /* bit k set: relative pit k achieves `value` (exact: every optimal move) */
    int depth;          /* deepest completed iteration (plies); 0 for a solve (exact = 1 in the limits) */
    int stopped;        /* 1 when a node or time limit cut the search short */
    uint64_t nodes;     /* positions visited (every call of the search function, leaves included) */
    double seconds;     /* wall-clock time of the call */
    int pv[AB_MAX_PV];  /* principal variation from the table: relative pits, the first is `move`; the
                         * side of each follows from replaying (an extra turn keeps the side) */
    int pv_len;
} ab_result;

/* Creates a search for rules r with a transposition table of tt_mb MiB (1..65536; rounded down to a power
 * of two number of 64-byte buckets). Returns NULL on error with a message in err (KALAH_ERRLEN bytes, may
 * be NULL): invalid rules, a table size out of range, out of memory. Free with ab_free. */
ab_search *ab_create(const kalah_rules *r, size_t tt_mb, char *err);
void ab_free(ab_search *s);

/* Empties the transposition table (and the move-ordering history), as after ab_create. */
void ab_clear(ab_search *s);

/* Threads (1..64; default 1) used by ab_set_endgame to build the database and by the exact solves
 * (ab_think with exact, ab_solve_window, and each child's solve in ab_solve_moves): threads - 1 helper
 * threads then solve the same position on the shared table (Lazy SMP or ABDADA: ab_set_smp), and the
 * calling thread's result is returned: the same values and tie set as on one thread, but node counts
 * (which include the helpers') and the table's contents afterwards vary from run to run. Depth-limited
 * searches, ab_root_values and the guessing passes always run on the calling thread. Returns AB_OK,
 * AB_EINVAL, or AB_ENOMEM (ab_set_smp). */
int ab_set_threads(ab_search *s, int threads);

/* How the threads of a parallel solve share the work. AB_SMP_ABDADA (the default; Weill 1996, in
 * Kerrigan's simplified form): every thread searches in the same order, but defers a move whose position
 * another thread is searching right now until its other moves are done. AB_SMP_LAZY (Lazy SMP as
 * Stockfish runs it): the helpers search the moves after the first in other orders and meet the main
 * search through the table. Both give the same values and tie sets; ABDADA solved Kalah(6,4) about 11%
 * faster on 2 threads (docs/tablebase.md). */
typedef enum { AB_SMP_LAZY = 0, AB_SMP_ABDADA = 1 } ab_smp;

/* Sets how a parallel solve shares the work (ab_smp). AB_OK, AB_EINVAL for another value, or AB_ENOMEM
 * (ABDADA's table of the positions being searched, 512 KiB, taken once both ABDADA and more than one
 * thread are set; ab_set_threads can return AB_ENOMEM for it too). */
int ab_set_smp(ab_search *s, ab_smp smp);

/* A flag another thread may set (read with relaxed atomic loads every 256 positions): once it is nonzero
 * the running ab_think stops as at a limit (out->stopped; an exact solve is then not exact). NULL removes
 * it. The flag must outlive the searches. Building an endgame database does not look at it. */
void ab_set_abort(ab_search *s, const int *flag);

/* Progress of a long solve: fn(ctx, move, lo, hi, nodes) is called on the solving thread after each
 * MTD(f) probe of an exact solve (ab_think with depth 0, ab_solve_moves, ab_solve_window), with the bounds
 * proven so far on the final margin of the position being solved, for its mover (lo = INT_MIN / hi =
 * INT_MAX while that side is still open; lo == hi once exact), and the positions the search has visited in
 * this call; move is −1, except in ab_solve_moves: the relative pit whose child is being solved, the
 * bounds then on that move's value for the position's mover (as ab_solve_moves' values[move]);
 * and between probes every 4 M positions, with the bounds so far. The helper threads report nothing. fn
 * must not call the search. NULL (the default) removes it; reporting never changes the search. */
typedef void (*ab_bounds_fn)(void *ctx, int move, int lo, int hi, uint64_t nodes);
void ab_set_progress(ab_search *s, ab_bounds_fn fn, void *ctx);

/* Maps a tablebase file of at least max_seeds seeds when eg_find (eval/endgame.h) finds one, else builds an
 * endgame database of every arrangement of at most max_seeds seeds in the pits (eval/endgame.h;
 * C(max_seeds + 2·pits, 2·pits) bytes: Kalah(6,·) with 18 seeds 87 MB, built in about 30 s on 2 threads;
 * 20 seeds 226 MB, about 80 s), and uses it from then on in every search: such positions get their exact
 * value without search (so node counts change, also with the file's seeds). max_seeds 0 drops it. Needs
 * rules.max_sows = 0. Returns AB_OK, or AB_EINVAL with a message in err (sow limit, size out of range or
 * bigger than eg_memory_budget (a file built on disk serves those), a damaged or unfitting tablebase file,
 * out of memory; the old database is dropped either way). */
int ab_set_endgame(ab_search *s, int max_seeds, char *err);

/* Uses database db (built elsewhere, eval/tbase.h's shared cache) without copying or owning it: db must
 * outlive the use (free s, or call ab_set_endgame / ab_share_endgame / this again first). NULL drops the
 * database. AB_OK, or AB_EINVAL with a message in err when db was built for other rules. */
int ab_borrow_endgame(ab_search *s, const eg_db *db, char *err);

/* Uses the endgame database of `owner` (built there by ab_set_endgame) without copying it, so that one
 * database serves several searches (one per thread: probes only read it). `owner` must outlive s's use of
 * it: free s, or call ab_set_endgame / ab_share_endgame on s again, before owner is freed. An owner without
 * a database leaves s without one. Returns AB_OK, or AB_EINVAL with a message in err when the two searches'
 * rules differ (s's own database is dropped either way). */
int ab_share_endgame(ab_search *s, const ab_search *owner, char *err);

/* Searches p within the limits and fills *out. Returns AB_OK; AB_EINVAL for bad limits (depth out of
 * range with exact = 0, none of depth/nodes/ms/exact given) or a position whose rules do not match;
 * AB_EOVER when p is already finished — then out->value is its final margin for p->side, out->exact = 1,
 * out->move = -1, best_mask = 0, nodes = 0. */
int ab_think(ab_search *s, const kalah_pos *p, const ab_limits *lim, ab_result *out);

/* The value of every root move at a fixed depth, each searched with a full window (so each value is exact
 * for that depth, not a bound): values[k] for relative pit k, AB_NO_VALUE for illegal pits; depth 0 means
 * to the end of the game (exact values). For tests and analysis (DESIGN search-cases.md case 2). Returns
 * AB_OK, AB_EINVAL (depth out of range), AB_EOVER (finished position). nodes_out may be NULL. */
int ab_root_values(ab_search *s, const kalah_pos *p, int depth, int values[KALAH_MAX_PITS], uint64_t *nodes_out);

/* The exact final margin after every legal root move, from the point of view of the player to move at p
 * (an extra turn keeps it; own store - opponent's store at the end, under perfect play afterwards):
 * values[k] for relative pit k, AB_NO_VALUE for illegal pits. The same values as ab_root_values with
 * depth 0, found faster: cheap depth-limited passes give each child a first guess (the node budget of
 * ab_think's solve, so the result, and on one thread the node count, are deterministic), then each child is solved by MTD(f)
 * from its guess, best guesses first, all sharing the transposition table. The table is NOT cleared: it
 * carries over from earlier calls, so a caller that solves many related positions (the positions of one
 * game, a position set) with one search reuses their subtrees; call ab_clear first for a
 * history-independent node count. Returns AB_OK, AB_EINVAL (a NULL argument) or
 * AB_EOVER (p is finished: every value AB_NO_VALUE). nodes_out (may be NULL) receives the positions
 * visited. */
int ab_solve_moves(ab_search *s, const kalah_pos *p, int values[KALAH_MAX_PITS], uint64_t *nodes_out);

/* Where an exact value lies against a window [wlo, whi] (ab_solve_window). */
typedef struct {
    int value;          /* where == 0: the exact final margin for the player to move; else a bound beyond
                         * the window (where < 0: the value is at most this; where > 0: at least this) */
    int where;          /* −1 below wlo, 0 within (exact), +1 above whi */
    uint64_t nodes;     /* positions visited, the helper threads' included */
    double seconds;     /* wall-clock time of the call */
} ab_window;

/* Solves p only as far as a window [wlo, whi] of final margins (for the player to move) asks: the exact
 * value when it lies within, else only that it lies below or above (a question such as "is this opening
 * within ±2 seeds of even?" — the fair-openings book — is then settled by the one null-window probe at the
 * window's edge, where a full solve needs several, plus one per root move for the tie set). The same
 * first guess, table, endgame database and helper threads (ab_set_threads, ab_set_smp) as an exact ab_think; the
 * table carries over between calls. Returns AB_OK; AB_EOVER when p is finished (out->value its final
 * margin, where set); AB_EINVAL for NULL arguments or wlo > whi; AB_ESTOPPED when the abort flag
 * (ab_set_abort) stopped it (out meaningless). */
int ab_solve_window(ab_search *s, const kalah_pos *p, int wlo, int whi, ab_window *out);

#endif
