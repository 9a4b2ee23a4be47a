/* srv_player.h — one agent seat of a served game: a Kalah agent (eval/agent.h, whose searches report the
 * statistics of the agent's view) or, for every other game, an agent of the game interface
 * (eval/game_agent.h), behind one interface, plus the bound that keeps one request from running long.
 *
 * Bounds ("one request cannot hang the server"): srv_spec_bound rewrites or refuses a spec before
 * any agent is built from it: `ab` without `ms=` gets `ms=MAX_MS` appended (alpha-beta stops at the first
 * limit reached, eval/alphabeta.h), an `ab` `ms=` above MAX_MS is refused; `mcts` / `az` with `sims=` above
 * MAX_SIMS are refused (their default sims are within any sane bound: 800 and 200); básico `maxn` /
 * `paranoid` deeper than 8 plies are refused (each ply costs about 4x, eval/game_agent.h); `solve` gets
 * `nodes=SRV_SOLVE_AGENT_NODES` unless it names fewer (more is refused); Kalah's `solver` (perfect play,
 * eval/agent.h) is refused: it has no node or time limit to bound it by.
 *
 * Threads: a player is used by one thread at a time (the session's lock). Creating one may read HDF5 (az),
 * which is not thread-safe: srv_player_create serialises creation with a process-wide mutex.
 * Library code: errors are codes and messages (SRV_ERRLEN).
 */
#ifndef SOWZERO_SRV_PLAYER_H
#define SOWZERO_SRV_PLAYER_H

#include <stdint.h>

#include "serve/srv_game.h"

#define SRV_SOLVE_AGENT_NODES 5000000

typedef struct srv_player srv_player;

/* Writes the bounded form of spec into out (n bytes; see above). SRV_OK or SRV_EINVAL with the reason. */
int srv_spec_bound(const char *spec, int max_ms, int max_sims, char *out, size_t n, char *err);

/* Builds the agent of spec for rules r. NULL with the agent parser's message in err when the spec does not
 * fit the game (e.g. `ab` for básico) or is bad. */
srv_player *srv_player_create(const char *spec, const srv_rules *r, char *err);
void srv_player_free(srv_player *p);

/* As agent_new_game / agent_notify / agent_choose of eval/agent.h (other games: game_agent_*). */
void srv_player_new_game(srv_player *pl, const srv_pos *start, uint64_t seed);
void srv_player_notify(srv_player *pl, const srv_pos *before, int move);
/* SRV_OK with *move, SRV_EOVER, or SRV_EFAIL with the agent's message in err. */
int srv_player_choose(srv_player *pl, const srv_pos *p, int *move, char *err);

/* The agent's view of its last choice (game_agent_last_stats): a new object
 *   {"kind", "prior":[per pit or null], "visits":[...] or null, "q":[...] or null, "value": number or null,
 *    "value_kind": "expected result" (mcts/az, [-1, 1] for the mover) | "seed margin" (ab) | null,
 *    "depth", "nodes"}
 * or NULL when out of memory. Kinds without statistics (random, greedy, maxn, ...) give nulls. */
cJSON *srv_player_view(const srv_player *pl);

#endif
