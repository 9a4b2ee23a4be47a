/* br_agent.h — an approximate best response to a fixed agent, by playouts against it.
 *
 * Spec: br:target=SPEC[,rollout=SPEC][,seed=N] (a SPEC holding commas in quotes: br:target='az:net=x.h5,
 * sims=0'). At each decision it tries every legal move and plays the game out with `target` in every other
 * seat and `rollout` (default greedy) for its own later moves, then plays the move whose playout ends best
 * for it (its final value, game_values; a playout past BR_MAX_PLIES is scored as the game's stopped values;
 * equal values are ranked by the final margin in two-player games with one, then the move rollout itself
 * plays at the position first, then the lower slot). Against a deterministic target that is a one-step policy improvement of
 * `rollout` with an exact model of the opponents (Tesauro & Galperin 1996's rollout improvement; the
 * exploitability of `target` by a best response is the quantity OpenSpiel's best_response computes exactly
 * for small games): `match br:target=X X` measures how far X can be exploited. It is not a trained agent;
 * its figures name the target it was given.
 *
 * Cost per decision: legal moves × the playout's length × the target's and rollout's move costs. */
#ifndef SOWZERO_EVAL_BR_AGENT_H
#define SOWZERO_EVAL_BR_AGENT_H

#include "env/game.h"

#define BR_MAX_PLIES 4000

typedef struct br_agent br_agent;

/* Whether spec is of kind br ("br:..."). */
int br_spec_is_br(const char *spec);

/* The agent of spec for g (borrowed); its target and rollout are created with game_agent_create. NULL with a
 * message naming the spec in err (AGENT_ERRLEN) on a bad spec (no target, an unknown key, a key given twice,
 * a sub-spec that does not create) or no memory. */
br_agent *br_agent_create(const char *spec, const game *g, char *err);
void br_agent_free(br_agent *b); /* NULL allowed */

/* The sub-agents' new game (game_agent_new_game) and abort flag (game_agent_set_abort, NULL: none). */
void br_agent_new_game(br_agent *b, const game_pos *start, uint64_t game_seed);
void br_agent_set_abort(br_agent *b, const int *flag);

/* The move at p (unfinished) into *move: AGENT_OK, AGENT_ESTOPPED when the abort flag was raised, or a
 * sub-agent's failure code, with the message in err (AGENT_ERRLEN). *value (may be NULL) gets the chosen
 * playout's final value for the mover (-1..1). */
int br_agent_choose(br_agent *b, const game_pos *p, int *move, double *value, char *err);

#endif
