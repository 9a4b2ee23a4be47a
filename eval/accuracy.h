/* accuracy.h — how close an agent plays to perfect play on a solved position set (eval/gposset.h).
 *
 * For every position of the set the agent chooses a move; against the set's exact margins that move is
 *   optimal   when it reaches the position's value (it is one of `best`);
 *   regret    = value − margin of the chosen move, in seeds (>= 0; 0 exactly when optimal);
 *   a blunder when regret >= ACCURACY_BLUNDER seeds.
 * Figures (over all positions, and by phase, gps_phase of eval/gposset.h: thirds of the total seeds in the pits):
 *   optimal_rate and blunder_rate with 95% Wilson intervals (Wilson 1927; eval/elo.h, elo_wilson);
 *   mean_regret with a 95% normal-approximation interval, mean ± 1.96·s/√n (s: the sample standard
 *   deviation of the regrets; with n = 1 the interval is the mean itself; the lower end is clipped at 0,
 *   since no regret is negative).
 *
 * Determinism: before position i the agent is restarted with game_agent_new_game(a, position, game_seed) where
 * game_seed = SplitMix64 of (seed, i) (accuracy_game_seed), so its move depends only on (spec, set, seed,
 * i) — not on the thread count or on which positions an instance judged before (except for agents with a
 * time limit such as ab:ms=). Threads: each worker thread has its own agent instance, all created by the
 * calling thread before the workers start (az agents read HDF5, which is not thread-safe).
 *
 * Library code: never prints; errors come back as ACCURACY_* codes with a message.
 */
#ifndef SOWZERO_ACCURACY_H
#define SOWZERO_ACCURACY_H

#include "env/status.h"

#include <stdint.h>

#include "eval/posset.h"   /* PS_PHASES */

#define ACCURACY_ERRLEN SZ_ERRLEN
#define ACCURACY_BLUNDER 4     /* seeds of regret from which a move is a blunder */

enum { ACCURACY_OK = SZ_OK, ACCURACY_EINVAL = SZ_EINVAL, ACCURACY_EAGENT = SZ_EAGENT, ACCURACY_ENOMEM = SZ_ENOMEM,
       ACCURACY_EFAIL = SZ_EFAIL };

typedef struct {
    int positions, optimal, blunders;
    double optimal_rate, optimal_lo, optimal_hi;   /* share of optimal moves, 95% Wilson interval */
    double mean_regret, regret_lo, regret_hi;      /* seeds, 95% normal-approximation interval */
    double blunder_rate, blunder_lo, blunder_hi;   /* share of blunders, 95% Wilson interval */
} accuracy_stats;

typedef struct {
    accuracy_stats all, phase[PS_PHASES];
    int n;            /* positions (= gps_count) */
    int *move;        /* n entries: the slot chosen at each position (owned) */
    int *regret;      /* n entries: its regret in seeds (owned) */
    double seconds;   /* wall-clock time of accuracy_run (0 from accuracy_tally) */
    char *agent;      /* accuracy_run: game_agent_describe of the agent (how it played: az's effective search
                         settings); owned, NULL from accuracy_tally or when out of memory */
} accuracy_result;

typedef struct {
    int threads;      /* worker threads, 1..256 (capped at the positions) */
    uint64_t seed;    /* agent reseeding per position (see above) */
    void (*progress)(void *ud, int done, int total); /* may be NULL; called under a lock, one at a time */
    void *progress_ud;
    /* NULL, or the agent built from settings and a net in memory (game_agent_create_az, eval/game_agent.h;
     * training's evaluation): the spec is then only its name, never parsed */
    const struct game_agent_az *az;
} accuracy_config;

/* The game seed of position i (see determinism above). */
uint64_t accuracy_game_seed(uint64_t seed, int i);

struct gps_set;

/* Scores the given moves (moves[i]: the slot chosen at position i, gps_count entries) against the set (a
 * set of any game, eval/gposset.h): fills *out (free with accuracy_result_free). Returns ACCURACY_OK,
 * ACCURACY_EINVAL when a move is not legal at its position (message names the set's line), or
 * ACCURACY_ENOMEM. Phases: gps_phase. */
int accuracy_tally(const struct gps_set *set, const int *moves, accuracy_result *out, char *err);

/* Runs the agent `spec` (eval/game_agent.h, created for gps_game(set): Kalah's agents on a Kalah set, the
 * game agents on every other game's) on every position and scores its moves. Before position i the agent
 * is restarted with game_agent_new_game(a, position, accuracy_game_seed(seed, i)); the position carries its
 * ply, so agents see the sowings left under max_sows. Returns ACCURACY_OK; ACCURACY_EINVAL (bad config, an
 * empty set), ACCURACY_EAGENT (the spec does not parse or does not fit the set's rules, e.g. a net trained
 * for other rules: the agent's message), ACCURACY_EFAIL (the agent failed at a position: the message names
 * the set's line), ACCURACY_ENOMEM; *out is then empty. */
int accuracy_run(const struct gps_set *set, const char *spec, const accuracy_config *cfg, accuracy_result *out,
                 char *err);

void accuracy_result_free(accuracy_result *res);

#endif
