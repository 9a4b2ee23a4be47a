/* agent.h — Kalah's own agents (docs/design.md §2): alpha-beta and the solver on kalah_pos, with Kalah's
 * transposition table and endgame database, which eval/game_agent.h plays for Kalah's games (random,
 * greedy, mcts, az and the rest are every game's, eval/game_agent.h; Kalah's greedy is its kind's hook,
 * env/game_kalah.c).
 *
 * Specs: KIND or KIND:key=value,key=value,...
 *   ab:depth=8 | nodes=N | ms=T    alpha-beta (eval/alphabeta.h); limits may be combined, default depth=8;
 *      [,tt_mb=4]                  transposition table size in MiB (1..4096), cleared at every new game;
 *                                  each agent instance allocates its own: `match` and `tournament` create
 *                                  one instance of each agent per worker thread, so ab against ab with
 *                                  --threads T takes 2 × T × tt_mb MiB
 *   solver[:tt_mb=256,endgame=E]   perfect play: solves the position exactly (eval/alphabeta.h, exact = 1) and
 *                                  plays one of EVERY optimal move uniformly at random (seeded); endgame = the
 *                                  seeds of the endgame database (eval/endgame.h), default the most whose
 *                                  database fits in 64 MB (Kalah(6,·): 17 seeds, 52 MB; Kalah(4,3): all 24,
 *                                  10 MB; by default never more seeds than the first position has in its
 *                                  pits), 0 = none, built at the first move. The table (tt_mb MiB) and the
 *                                  database are kept for the agent's life, across moves AND games: exact
 *                                  values do not depend on what the table holds, so games stay independent.
 *                                  Memory per instance: tt_mb MiB + the database (the default: 324 MB in all
 *                                  for Kalah(6,4); two games against greedy from 2-sowing openings took 11.5 s
 *                                  of CPU, database included, see the README)
 * and for every kind ,seed=N (default 0; a kind without keys takes it as KIND,seed=N or KIND:seed=N).
 * Rules are not part of an agent spec: a rules key (pits, seeds, capture, end, max_sows) is an error pointing
 * at --rules, as is any other unknown key; every error names the key or value at fault.
 *
 * Randomness and determinism: agent_new_game(a, start, game_seed) restarts the agent's randomness from
 * (spec seed, game_seed), so a game's moves depend only on the specs, the rules, the opening and the seeds —
 * not on which thread played it or what it played before (ab clears its table).
 * Without any agent_new_game call an agent behaves as after agent_new_game(a, start, 0). ab: seed 0 picks the
 * lowest pit among equally valued moves; seed != 0 picks one at random (per game, see eval/alphabeta.h). An
 * `ms=` limit makes ab depend on the clock.
 *
 * Threads: an agent instance is not thread-safe. Create one instance per thread (agent_create the same spec
 * again); create agents from one thread
 * (eval/game_match.c creates every instance before starting its workers).
 *
 * Library functions never print; errors come back as codes and messages.
 */
#ifndef SOWZERO_AGENT_H
#define SOWZERO_AGENT_H

#include <stdint.h>

#include "env/kalah.h"
#include "eval/game_agent.h" /* the AGENT_* codes, game_agent_stats */

typedef struct agent agent;

/* Parses spec and builds the agent for rules r (copied). Returns NULL on error with a message in err
 * (AGENT_ERRLEN bytes, may be NULL) that names the bad kind, key or value, e.g.
 *   "agent 'ab:dept=5': unknown key 'dept' for ab (keys: depth, nodes, ms, tt_mb, seed)". */
agent *agent_create(const char *spec, const kalah_rules *r, char *err);

/* Frees the agent (NULL allowed). */
void agent_free(agent *a);

/* The spec as given (owned by the agent) and its kind ("ab", "solver"). */
const char *agent_spec(const agent *a);
const char *agent_kind(const agent *a);

/* Starts a new game from position `start`: resets per-game state (search trees, tables) and reseeds the
 * agent's randomness from its spec seed and game_seed (see above). */
void agent_new_game(agent *a, const kalah_pos *start, uint64_t game_seed);

/* Tells the agent that relative pit `move` was played from position `before` (by either side). Optional:
 * agents that keep a tree use it to keep the subtree of the move; others ignore it. A call that does not
 * continue the agent's game simply makes it start afresh at the next agent_choose. */
void agent_notify(agent *a, const kalah_pos *before, int move);

/* Chooses a move for the player to move at p (an unfinished position under the agent's rules): *move_out
 * receives a legal relative pit 0..pits-1. Does not change the agent's idea of the game (call agent_notify
 * for the move actually played), so it also serves as a hint. Returns AGENT_OK, AGENT_EOVER (p is finished),
 * or AGENT_EFAIL / AGENT_ENOMEM with the reason in agent_error(a). */
int agent_choose(agent *a, const kalah_pos *p, int *move_out);

/* The message of the last failed agent_choose ("" if none). */
const char *agent_error(const agent *a);

/* A flag (borrowed, read with relaxed atomic loads; NULL: none) that another thread, or a signal handler,
 * sets non-zero to stop a running agent_choose: it returns AGENT_ESTOPPED (no move) within milliseconds
 * (ab and the solver every 256 positions; random and greedy take no time). Building the solver's endgame
 * database does not look at it. While the flag stays set, every agent_choose returns AGENT_ESTOPPED. The flag must outlive the agent's searches. */
void agent_set_abort(agent *a, const int *flag);

/* The agent as it plays (owned by the agent): its spec. */
const char *agent_describe(const agent *a);

/* What the agent saw when it last chose a move (game_agent_stats, eval/game_agent.h; slots are the mover's
 * relative pits; pos is left to the caller, which knows the position in its own form):
 *   ab         value (seed margin for the mover at the last completed depth, eval/alphabeta.h), depth,
 *              nodes, exact, pv (the principal variation)
 *   solver     value (the exact final margin for the mover, exact = 1), nodes, pv; with agent_set_detail
 *              also values (the exact margin after every legal move)
 *   random, greedy: nothing (have_* all 0). */

/* A time budget for every later agent_choose (a match's time control, eval/game_match.h): ms > 0
 * milliseconds of wall-clock time, 0 = none (the spec's own limits only). ab stops its iterative deepening
 * at the budget (as ms=, or the smaller of the two: the result of the last completed depth). random, greedy
 * and the solver take no time budget: they play as they would.
 * Moves then depend on the clock. */
void agent_set_time(agent *a, int64_t ms);

/* Copies the statistics of the last successful agent_choose into *out (valid = 0 before any). */
void agent_last_stats(const agent *a, game_agent_stats *out);

/* detail = 1 asks agent_choose to gather what costs extra: for the solver, the exact value of every legal
 * move (one more solve per move; others ignore it). Default 0. */
void agent_set_detail(agent *a, int detail);

#endif
