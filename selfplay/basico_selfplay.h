/* basico_selfplay.h — self-play of Mancala básico (DESIGN.md §1.2, issue 8) with batched evaluation across
 * games and threads: the multi-player counterpart of selfplay.h, with the same configuration (selfplay_config,
 * mcts_config), the same worker layout (`threads` pthreads, each running games_per_thread games whose leaves
 * share ONE evaluator call per round) and the same replay buffer.
 *
 * Samples: one per decision (extra sowings included), appended when the game ends:
 *   x      basico_encode of the position (mover first), dim basico_encode_dim
 *   legal  the mover's legal pits
 *   π      mcts_mp_policy (as selfplay.h: visit counts sharpened like the move choice, or plain visit shares
 *          with pi_visits = 1)
 *   z      a vector of `players` entries in the MOVER-RELATIVE order of the encoding: z_j = 2·rank score − 1
 *          of player (mover + j) % players (mcts_mp.h) — the targets of a value head with one output per
 *          player (replay buffer with n_value = players)
 *   margin 0 (básico has no margin target)
 * A game still running after max_moves plies is scored as if the first-finisher rule ended it there: the
 * places already given stay, the players still in play are ranked by fewest stones left in their pits, equal
 * counts sharing a place.
 *
 * Randomness: as selfplay.h (worker seeds from SplitMix64 of seed; one thread → identical games).
 */
#ifndef SOWZERO_SELFPLAY_BASICO_SELFPLAY_H
#define SOWZERO_SELFPLAY_BASICO_SELFPLAY_H

#include <stdint.h>

#include "env/basico.h"
#include "selfplay/mcts_mp.h"
#include "selfplay/replay.h"
#include "selfplay/selfplay.h"

/* What one run did (the fields of selfplay_stats that apply; wins[p] counts games player p placed first,
 * shared first places included). */
typedef struct {
    uint64_t games, samples, evals, batches;
    uint64_t wins[BASICO_MAX_PLAYERS];
    uint64_t capped;          /* games stopped by max_moves */
    double seconds, thread_seconds, forward_seconds;
    double avg_batch, forward_share, positions_per_s, games_per_s;
} basico_selfplay_stats;

/* Plays sc->games games of rules r with search mc and evaluators from ef (one per worker, max_batch =
 * games_per_thread × leaves_per_game), appending samples to rb (may be NULL; else its dim, pits and n_value
 * must be basico_encode_dim(r), r->pits, r->players). st may be NULL. Sets BLAS to 1 thread (selfplay.h).
 * Returns MCTS_OK or a negative MCTS_* code with the message in err (MCTS_ERRLEN). */
int basico_selfplay_run(const basico_rules *r, const selfplay_config *sc, const mcts_config *mc,
                        const mcts_mp_eval_factory *ef, replay_buffer *rb, uint64_t seed,
                        basico_selfplay_stats *st, char *err);

/* The final value vector (absolute order, 2·rank score − 1) of p: exact when over, else the first-finisher
 * scoring described at the top. out has r->players entries. */
void basico_selfplay_score(const basico_rules *r, const basico_pos *p, float *out);

#endif
