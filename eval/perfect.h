/* perfect.h — an agent's play measured against perfect play: how far the final margins it reaches fall
 * from the exact values of the positions its games started from.
 *
 * The measure. A game starts (after its random opening) at a position whose exact value V is the final
 * margin under perfect play by both sides (eval/alphabeta.h, exact = 1). The game ends with margin M.
 * Both are South's store − North's store (env/kalah.h kalah_margin); for the agent in seat s the
 * difference is
 *     d = M − V           (s = South)        d = (−M) − (−V) = V − M   (s = North)
 * so d > 0 means the agent got more than perfect play would have given it (only possible when its opponent
 * erred), d < 0 that it gave seeds away, and d = 0 that it reached the exact value. Against the `solver`
 * agent d <= 0 always: the solver never lets the other side gain on the exact value.
 *
 * Statistics over the n games of one seat: the mean of d with a 95% Student-t interval
 * mean ± t(0.975, n − 1) · s / sqrt(n), s the sample standard deviation (the margins are bounded and
 * discrete, so the interval is the usual large-sample one; with n < 2 there is none); the number of games
 * with d >= 0 ("reached the exact value"); and the mean exact value V in the agent's view.
 *
 * Library code: nothing is printed.
 */
#ifndef SOWZERO_EVAL_PERFECT_H
#define SOWZERO_EVAL_PERFECT_H

#include "env/kalah.h"
#include "eval/agent.h"

typedef struct {
    int games;            /* n: games the agent played in this seat */
    double mean;          /* mean of d (seeds), 0 when n = 0 */
    double lo, hi;        /* its 95% interval (seeds); = mean when have_interval is 0 */
    int have_interval;    /* 1 when n >= 2 */
    int reached;          /* games with d >= 0 */
    double exact_mean;    /* mean of V in the agent's view (seeds) */
} perfect_stats;

/* The exact value of the unfinished position p, South's view (seeds), found by the solver agent `solver`
 * (an agent of kind "solver", eval/agent.h: its transposition table and endgame database are kept, so a
 * game it then plays from p starts with its first solve already in the table). Consumes none of the
 * agent's game state: agent_new_game reseeds it before a game anyway. Returns AGENT_OK, AGENT_EINVAL
 * (solver is not a solver agent, or p is finished), or the agent's error (message in agent_error). */
int perfect_value(agent *solver, const kalah_pos *p, int *south_value);

/* The statistics above for the agent in seat `seat` (KALAH_SOUTH or KALAH_NORTH) over n >= 0 games:
 * margin_south[i] is game i's final margin M, exact_south[i] the exact value V of its starting position,
 * both South's view. */
void perfect_stats_compute(const int *margin_south, const int *exact_south, int n, int seat, perfect_stats *out);

/* t(0.975, df): the 97.5% quantile of Student's t with df >= 1 degrees of freedom (a table to 6 decimals
 * for df <= 30, above it the Cornish-Fisher expansion of Abramowitz & Stegun 26.7.5, error < 1e-5);
 * NaN for df < 1. */
double perfect_t975(int df);

#endif
