/* levers.h — the self-play levers of selfplay_config (selfplay.h) written once against the game interface
 * (env/game.h), for the self-play driver of every game (game_selfplay.c).
 *   opening_plies     sp_random_opening: the random opening a game starts after
 *   full_sims_prob,   sp_search_configs / sp_decision_search: which search a decision gets (full, fast or
 *   opening_sims        the deeper opening search)
 *   surprise_weight   sp_policy_surprise, sp_surprise_sum, sp_surprise_copies: how many times a decision is
 *                       written to the replay buffer
 * selfplay.h documents what each lever does and where it comes from. Internal to selfplay/. */
#ifndef SOWZERO_SELFPLAY_LEVERS_H
#define SOWZERO_SELFPLAY_LEVERS_H

#include "env/game.h"
#include "selfplay/mcts.h"
#include "selfplay/rng.h"
#include "selfplay/selfplay.h"

/* selfplay.opening_plies = K (>= 0): *out is the start of g after k sowings, k uniform in 0..K, each uniform
 * over the legal moves, all drawn from rng (one draw for k, one per sowing); an opening that finishes the
 * game is drawn again. With K = 0 the start itself, one draw taken. */
void sp_random_opening(const game *g, int plies, mcts_rng *rng, game_pos *out);

/* The searches of playout cap randomization and of opening_sims, derived from the full search mc: *fast
 * (fast_sims simulations, at least 1; no Dirichlet noise, no forced playouts) and *opening (opening_sims
 * simulations when set, else mc->sims). MCTS_OK, or MCTS_EINVAL with mcts_config_check's message. */
int sp_search_configs(const selfplay_config *sc, const mcts_config *mc, mcts_config *fast, mcts_config *opening,
                      char *err);

enum { SP_SEARCH_FAST = 0, SP_SEARCH_FULL = 1, SP_SEARCH_OPENING = 2 };

/* Which search the next decision gets (selfplay.h): fast with probability 1 − full_sims_prob (one uniform
 * draw from rng, none while full_sims_prob = 1), else the opening search when opening_sims is on and the
 * decision's position has at least opening_seeds seeds in the pits (seeds_in_pits; read only then), else
 * the full one. Returns SP_SEARCH_*; the full and the opening one are policy samples, a fast one is not. */
int sp_decision_search(const selfplay_config *sc, mcts_rng *rng, int seeds_in_pits);

/* selfplay.surprise_weight: KL(π ‖ P) in nats from the prior P (m entries by slot, the net's before noise,
 * floored at 1e-6 so that a move the net all but excluded counts as very surprising, not infinitely) to
 * the written target π (m entries); >= 0. */
float sp_policy_surprise(const float *prior, const float *pi, int m);

/* The priors a search expands a node with (the masking of mcts_mp.h's leaves): raw[slot] restricted to the
 * legal slots and renormalised, uniform over them when the legal entries sum to 0 or are not finite;
 * 0 on illegal slots. out[m] may alias raw. */
void sp_legal_prior(const float *raw, unsigned legal, int m, float *out);

/* The sum of a game's n decisions' surprises (surprise[t] >= 0: a policy sample; < 0: a value-only decision,
 * left out) and, in *policy_samples, how many entered it: the normalisation of the weights. */
double sp_surprise_sum(const float *surprise, int n, int *policy_samples);

/* How many times a decision of surprise kl is written, for surprise_weight s: floor(w), or floor(w) + 1 with
 * probability w − floor(w) (one draw from rng), w = (1 − s) + s · policy_samples · kl / sum — or w = 1 for
 * a value-only decision (kl < 0) or a game whose surprises sum to 0. */
int sp_surprise_copies(float kl, double s, double sum, int policy_samples, mcts_rng *rng);

#endif
