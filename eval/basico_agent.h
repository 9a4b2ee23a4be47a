/* basico_agent.h — agent specs for Mancala básico (DESIGN.md §1.2, §2; issue 8) → one move-choosing
 * interface, the counterpart of eval/agent.h for the 2–4 player game.
 *
 * Specs: KIND or KIND:key=value,key=value,...
 *   random                          uniform over the legal pits (seeded)
 *   greedy                          basico_greedy_move (eval/basico_search.h): the pit that leaves the fewest
 *                                   stones in the mover's pits at the end of its turn (extra sowings followed
 *                                   greedily); ties go to the LOWEST pit, so greedy is deterministic and its
 *                                   seed has no effect
 *   maxn:depth=4                    max^n search to `depth` plies (1..12, default 4) with basico_estimate at
 *   paranoid:depth=4                the horizon (bs_search); ties to the lowest pit, deterministic; no
 *                                   pruning for max^n, so each ply costs about 4x the time
 *   mcts:sims=800[,rollouts=1]      multi-player PUCT (selfplay/mcts_mp.h, mcts_mp_search) valued by random
 *      [,c_puct=1.5][,solver=1]     playouts (mcts_mp_eval_rollout_create), no noise, most-visited move
 *   az:net=PATH.h5,sims=200         multi-player PUCT guided by the net in PATH (export or checkpoint); the
 *      [,c_puct=1.5][,fpu=0.25]     file's rules attribute must equal basico_rules_format of the game's rules,
 *      [,batch=1]                   its encoding BASICO_ENCODING_NAME, input_dim basico_encode_dim, n_policy
 *                                   pits and n_value players; sims=0 plays the raw policy's argmax over the
 *                                   legal pits (ties: lower pit); batch = leaves per net call (virtual loss)
 * and for every kind ,seed=N (default 0; a kind without keys takes it as KIND,seed=N or KIND:seed=N).
 * Rules keys (players, pits, seeds, full_ranking) are errors pointing at --rules; Kalah kinds (ab) and
 * unknown keys are errors too; every message names the spec and the kind, key or value at fault, in the
 * words of agent_create, e.g. "agent 'maxn:dept=3': unknown key 'dept' for maxn (keys: depth, seed)".
 *
 * Randomness and determinism: basico_agent_new_game(a, start, game_seed) restarts the agent's randomness
 * from (spec seed, game_seed). random draws from a generator advanced by each choice; mcts and az seed each
 * search from (spec seed, game_seed, the position searched), so their choice depends on the position only,
 * not on what the instance searched before. A game therefore depends only on the specs, the rules, the
 * opening and the seeds — not on threads or on the games an instance played before. Without any new_game
 * call an agent behaves as after basico_agent_new_game(a, start, 0).
 *
 * The searches keep no state between moves (each mcts/az move is a fresh mcts_mp_search), so
 * basico_agent_notify is accepted and ignored; it exists so drivers keep the shape of eval/agent.h.
 *
 * Threads: an instance is not thread-safe; create one per thread, on the calling thread (az reads HDF5,
 * which is not thread-safe: eval/basico_match.c creates every instance before its workers start).
 * Library functions never print; errors come back as codes (AGENT_* of eval/agent.h) and messages.
 */
#ifndef SOWZERO_BASICO_AGENT_H
#define SOWZERO_BASICO_AGENT_H

#include <stdint.h>

#include "env/basico.h"
#include "eval/agent.h"   /* AGENT_ERRLEN, AGENT_SPEC_MAX, AGENT_* codes */

typedef struct basico_agent basico_agent;

/* Parses spec and builds the agent for rules r (checked, copied). NULL on error with the message in err
 * (AGENT_ERRLEN bytes, may be NULL). */
basico_agent *basico_agent_create(const char *spec, const basico_rules *r, char *err);

/* NULL allowed. */
void basico_agent_free(basico_agent *a);

/* The spec as given (owned by the agent) and its kind: "random", "greedy", "maxn", "paranoid", "mcts",
 * "az". */
const char *basico_agent_spec(const basico_agent *a);
const char *basico_agent_kind(const basico_agent *a);

/* Starts a new game from `start` and reseeds from (spec seed, game_seed). */
void basico_agent_new_game(basico_agent *a, const basico_pos *start, uint64_t game_seed);

/* Relative pit `move` was played from `before` (by anyone). Ignored by every current kind (see above). */
void basico_agent_notify(basico_agent *a, const basico_pos *before, int move);

/* Chooses a legal relative pit (0..pits-1) for the player to move at p. AGENT_OK, AGENT_EOVER (p is over),
 * AGENT_EFAIL / AGENT_ENOMEM with the reason in basico_agent_error(a). */
int basico_agent_choose(basico_agent *a, const basico_pos *p, int *move_out);

/* The message of the last failed choose ("" if none). */
const char *basico_agent_error(const basico_agent *a);

#endif
