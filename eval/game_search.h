/* game_search.h — depth-limited and exact game-tree search for every game of the game interface
 * (env/game.h; generalises the básico search).
 *
 * Values are vectors, one entry per player in [-1, 1] (game_values once over, game_estimate at the
 * horizon). One ply = one move; an extra turn is simply the same player choosing again, so nothing special
 * is needed. Two classic searches over the vectors:
 *   max^n    (Luckhardt & Irani 1986): every node's mover picks the child that maximises its own entry;
 *   paranoid (Sturtevant & Korf 2000): the root player maximises its own entry, every other player is
 *            assumed to minimise it — a two-sided game, so alpha-beta pruning applies. With two players
 *            it IS alpha-beta minimax (Knuth & Moore 1975) on the root player's value.
 * Ties between moves go to the lowest slot, so searches are deterministic.
 *
 * Exact solve (two-player games with a margin, game_has_margin): fail-soft alpha-beta in negamax form on
 * the final margin (player 0 minus player 1, negated for player 1; an extra turn keeps the sign, docs/design.md
 * §3.5) to the end of the game, with a transposition table (eval/tt.h, exact entries only) and the game's
 * endgame database when it has one. What the kind declares in game_solve_props (env/game.h) makes it
 * faster, never changes a value:
 *   - the table key is the board, to_move and extra[], plus the plies left before the kind's ply limit
 *     (max_sows − ply) when it has one, nothing of ply without one (a kind without solve_props: ply as
 *     is, since the solver cannot know what play reads);
 *   - GAME_SOLVE_SCORES_INERT: the score cells are left out of the key and the table keeps bounds on
 *     value − margin, so positions that differ only in how the banked seeds are split share an entry;
 *   - GAME_SOLVE_SCORE_CELLS: cut-offs use the store bounds (the final margin lies within the margin ± the
 *     seeds left in the pits) and moves are ordered by the mover's score gain (extra turns next).
 * Every optimal root move comes from a null-window probe per move after the solve (the table makes them
 * cheap). Termination: a game without cycles always ends; a line deeper than GS_MAX_PLY plies stops the
 * solve with GS_EDEEP rather than overflowing the stack (Oware with max_sows = 0 can cycle).
 * A kind with a faster solver of its own runs it behind the same calls (below: Kalah's MTD(f) alpha-beta
 * with its endgame database); the oracle of small boards, tests/vectors/families-solved.txt, is checked
 * with the generic one. A gs_solver is not thread-safe: one per thread (its own threads aside).
 */
#ifndef SOWZERO_GAME_SEARCH_H
#define SOWZERO_GAME_SEARCH_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

#include "env/game.h"

typedef enum { GS_MAXN = 0, GS_PARANOID = 1 } gs_kind;

typedef struct {
    int move;                          /* best slot of the player to move, -1 if over */
    double value[GAME_MAX_PLAYERS];    /* backed-up value vector (paranoid: only the root's entry is exact;
                                          the others are those of the chosen line) */
    uint64_t nodes;                    /* positions visited */
} gs_result;

/* The search's own codes, beside GAME_OK, GAME_EINVAL, GAME_EOVER, GAME_ENOMEM. GS_EABORTED: an abort
 * flag (another thread's or a signal handler's, read with relaxed atomic loads every 256 positions) was
 * set; the result is meaningless. */
enum { GS_ESTOPPED = SZ_ELIMIT, GS_EDEEP = SZ_EDEEP, GS_EGAME = SZ_EGAME, GS_EABORTED = SZ_ESTOPPED };

/* Searches p to `depth` plies (1..64) with the given method. abort: a flag that stops the search
 * (GS_EABORTED), or NULL. Returns GAME_OK, GAME_EOVER if p is over (out->move = -1, value = the final
 * values), GAME_EINVAL for a bad depth or kind, GS_EABORTED. */
int gs_search(const game *g, const game_pos *p, gs_kind kind, int depth, const int *abort, gs_result *out);

#define GS_MAX_PLY 4000

typedef struct {
    int move;          /* a best slot (the lowest of equal ones), -1 if over */
    int value;         /* exact final margin for the player to move under perfect play */
    unsigned best_mask; /* bit k: slot k reaches `value` (every optimal move) */
    uint64_t nodes;    /* positions visited, leaves included (deterministic for a fresh solver) */
    double seconds;    /* wall-clock time of the solve */
} gs_solution;

typedef struct gs_solver gs_solver;

/* Whether the exact solver can solve games under g's rules: GAME_OK, or GAME_EINVAL with a message in err
 * (GAME_ERRLEN) naming the rules when the game has not two players, has no margin, or its positions can
 * repeat without a ply limit (GAME_SOLVE_CAN_REPEAT and ply_limit 0: Oware with max_sows=0, whose
 * position graph has cycles, so no solve ends). A property of the rules, not of a position: callers check
 * it before any search (bad input), gs_solver_create and gs_solve refuse the same rules. */
int gs_solvable(const game *g, char *err);

/* A solver for g (borrowed: must outlive the solver) with a transposition table of tt_mb MiB (1..65536).
 * NULL with a message in err (GAME_ERRLEN): the rules are not solvable (gs_solvable), a size out of
 * range, out of memory. Free with gs_solver_free (NULL allowed). */
gs_solver *gs_solver_create(const game *g, size_t tt_mb, char *err);
void gs_solver_free(gs_solver *s);

/* Solves p exactly (see above) and fills *out, every optimal move included. node_limit > 0 stops the
 * solve after that many positions. Returns GAME_OK; GAME_EOVER when p is already over (value = its final
 * margin for p->to_move, move -1, nodes 0); GS_ESTOPPED at the node limit ("node limit" in err, out->nodes
 * set, the value meaningless); GS_EDEEP (see above; err names max_sows); GS_EGAME when a move of the game
 * failed (its code in err). The table persists between calls (solves of related positions share work);
 * results do not depend on what it holds. */
int gs_solver_run(gs_solver *s, const game_pos *p, uint64_t node_limit, gs_solution *out, char *err);

/* Progress of a long solve: fn(ctx, nodes) is called from inside gs_solver_run, on the solving thread,
 * once each time the count of positions visited in this run (gs_solution.nodes so far) passes another
 * multiple of `every` (>= 1; 0 counts as 1), at the first unfinished position searched from there on (the
 * finished ones, leaves, are counted unchecked, as for node_limit). It must not call the solver. fn NULL (the default) reports nothing. Reporting never
 * changes the search: values, moves and node counts are those of a solver without it. */
/* A kind's specialised solver (below) reports no progress this way; see gs_solver_set_bounds. */
typedef void (*gs_progress_fn)(void *ctx, uint64_t nodes);
void gs_solver_set_progress(gs_solver *s, uint64_t every, gs_progress_fn fn, void *ctx);

/* Progress of a solver that closes in on the value by null-window probes (Kalah's MTD(f), eval/alphabeta.h
 * ab_set_progress): fn(ctx, move, lo, hi, nodes) after each probe, on the solving thread, with the bounds
 * proven so far on the final margin of the position being solved for its mover (lo = INT_MIN / hi =
 * INT_MAX while open; lo == hi once exact) and the positions visited; move is −1, or in gs_solver_moves
 * the move slot whose value (for the position's mover) the bounds are on. The generic solver reports
 * nothing this way (it has gs_solver_set_progress). fn NULL removes it; reporting never changes the
 * search. */
typedef void (*gs_bounds_fn)(void *ctx, int move, int lo, int hi, uint64_t nodes);
void gs_solver_set_bounds(gs_solver *s, gs_bounds_fn fn, void *ctx);

/* A flag (borrowed; NULL: none) that stops a running gs_solver_run with GS_EABORTED ("stopped" in err)
 * once set (see GS_EABORTED). The flag must outlive the solves. */
void gs_solver_set_abort(gs_solver *s, const int *flag);

/* ---- a kind's own exact solver behind the same calls ----
 *
 * A game kind may come with a faster exact solver of its own (Kalah: eval/alphabeta.h's MTD(f) with its
 * endgame database and parallel search threads). gs_solver_create then returns a solver that runs it, so every
 * caller (solve, positions, serve, agents, adjudication) names no game: the values are the same exact
 * final margins, only faster. Which one a solver runs: gs_solver_name. gs_solver_create_generic always
 * gives the game interface's own solver above (the independent oracle that tests check the specialised
 * one against). The specialised solvers are listed in eval/game_search_impl.h. */

/* The game interface's own solver (above), even where the kind has a specialised one; as gs_solver_create
 * otherwise. */
gs_solver *gs_solver_create_generic(const game *g, size_t tt_mb, char *err);

/* What s runs, for reports: "generic" (the game interface's solver) or the specialised one's name. */
const char *gs_solver_name(const gs_solver *s);

/* Threads for one solve (1..64): the specialised solver's parallel search (Kalah: Lazy SMP or ABDADA on
 * the shared table, gs_solver_set_smp; the same values and best moves, node counts vary) and its endgame
 * database build. GAME_OK; GAME_EINVAL with a message when threads is out of range or > 1 for a solver
 * that runs on one thread. */
int gs_solver_set_threads(gs_solver *s, int threads, char *err);

/* How the threads of a parallel solve share the work: GS_SMP_ABDADA (the default: threads defer the
 * positions another thread is searching) or GS_SMP_LAZY (Lazy SMP; eval/alphabeta.h, ab_smp). A solver
 * that runs on one thread takes either. GAME_OK; GAME_EINVAL with a message for another value;
 * GAME_ENOMEM. */
typedef enum { GS_SMP_LAZY = 0, GS_SMP_ABDADA = 1 } gs_smp;
int gs_solver_set_smp(gs_solver *s, gs_smp smp, char *err);

/* An endgame database of every position with at most `seeds` (1..127) seeds in the pits, for the solver
 * that has one (Kalah: a tablebase file when one is found, else built with the solver's threads, shared by
 * the process: eval/tbase.h). *built_seconds (may be NULL): the time spent building. GAME_OK; GAME_EINVAL
 * with a message when the solver has no endgame database (every game but Kalah) or the rules have a sow
 * limit; GAME_ENOMEM. */
int gs_solver_set_endgame(gs_solver *s, int seeds, double *built_seconds, char *err);

/* gs_solver_set_endgame with what a command reports: where the database came from, and a database the
 * call builds written to the tablebase folder for the next process (the solver's own files: Kalah's,
 * eval/endgame.h). */
typedef struct {
    int seeds;               /* in: seeds wanted in the pits, 1..127 (capped at the board's total) */
    int up_to;               /* in: > seeds: a tablebase file of more seeds, up to this many, is used when
                                one is there (the largest such); else a database of `seeds` */
    size_t save_bytes;       /* in: write a database built here of at least this many bytes (0: never) */
    int covered;             /* out: the seeds the database covers */
    int built;               /* out: 1 when built by this call (else mapped from a file or shared) */
    double seconds;          /* out: building or mapping it */
    char path[4096];         /* out: the file mapped or written, "" when none */
    char save_err[SZ_ERRLEN]; /* out: why a build could not be written ("" when it was, or was not asked) */
} gs_endgame;

/* As gs_solver_set_endgame. GAME_EINVAL also for a tablebase file that is damaged or for other rules (err
 * names it: bad input, the caller's exit status 2); GAME_ENOMEM when it cannot be built. */
int gs_solver_use_endgame(gs_solver *s, gs_endgame *e, char *err);

/* The windowed solve (eval/alphabeta.h ab_solve_window for Kalah; the full solve for the generic solver):
 * p's value for its player to move when it lies within [lo, hi] (*where 0, exact), else only which side
 * (*where −1 below lo, +1 above hi; *value then a bound beyond the window). *nodes (may be NULL): the
 * positions visited. GAME_OK; GAME_EOVER (p is over: its final margin, classified); GAME_EINVAL for
 * lo > hi; the errors of gs_solver_run. */
int gs_solver_window(gs_solver *s, const game_pos *p, int lo, int hi, int *value, int *where, uint64_t *nodes,
                     char *err);

/* Whether gs_solver_create's solver for g can have an endgame database (a fact of the kind and its rules,
 * checked before any work): GAME_OK, or GAME_EINVAL with the reason in err. */
int gs_endgame_available(const game *g, char *err);

/* The seeds the solver's endgame database covers (0: none). */
int gs_solver_endgame_seeds(const gs_solver *s);

#define GS_NO_VALUE (-32768) /* gs_solver_moves: not a legal move */

/* The exact final margin after every legal move of unfinished p, for p's player to move (an extra turn
 * keeps the view): values[k] for slot k (GAME_MAX_MOVES entries), GS_NO_VALUE for the others; *nodes (may be
 * NULL) the positions visited. The table carries over (related positions reuse each other's work).
 * GAME_OK; GAME_EOVER (p is over: every value GS_NO_VALUE); the errors of gs_solver_run. */
int gs_solver_moves(gs_solver *s, const game_pos *p, int *values, uint64_t *nodes, char *err);

/* One-shot solve (a fresh 16 MiB table, freed again) for agents and serve: at most max_nodes positions
 * (0: 50 million); abort: a flag that stops it (gs_solver_set_abort), or NULL. GAME_OK (a finished p too:
 * move -1 and its margin); GAME_EINVAL with a message in err (GAME_ERRLEN) when the rules are not solvable
 * (gs_solvable), when the budget ran out ("too large to solve") or a line did not end (GS_EDEEP's
 * message); GAME_ENOMEM; GS_EABORTED. */
int gs_solve(const game *g, const game_pos *p, uint64_t max_nodes, const int *abort, gs_solution *out, char *err);

/* gs_solve by the game interface's own solver, even where the kind has a specialised one (an independent
 * oracle: tests check the specialised solvers against it). */
int gs_solve_generic(const game *g, const game_pos *p, uint64_t max_nodes, const int *abort, gs_solution *out,
                     char *err);

#endif
