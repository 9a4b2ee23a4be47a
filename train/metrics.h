/* metrics.h — metrics.csv of a run directory: one row per training iteration (docs/design.md §3.4).
 *
 * Columns, in order (numbers in C locale, '.' decimal point):
 *   iteration            iterations completed (1-based)
 *   games, samples       cumulative self-play games and positions generated since the run started
 *   replay               positions in the replay window after this iteration's self-play
 *   steps                cumulative SGD steps
 *   loss, loss_policy, loss_value, loss_margin, loss_l2
 *                        mean over this iteration's SGD steps of each weighted loss term (nn/net.h,
 *                        nn_loss); empty when no step was taken (replay below train.min_replay)
 *   lr                   learning rate of the iteration's last step (empty when none)
 *   selfplay_pos_per_s   positions generated per wall-clock second of self-play
 *   selfplay_s, train_s, eval_s   wall-clock seconds of each phase in this iteration
 *   then per evaluation opponent k (column name = the agent spec with every character outside
 *   [A-Za-z0-9] replaced by '_', e.g. "ab:depth=4" -> "ab_depth_4"):
 *   score_<k>, south_<k>, north_<k>
 *                        the trained agent's score (wins + draws/2) / games, overall, as South and as North;
 *                        empty in iterations without an evaluation. Mancala básico runs keep the column
 *                        names (one schema for every run) with the básico meaning (train.h,
 *                        train_eval_result): the mean rank score overall, in seat 0 (south_) and in the
 *                        other seats (north_)
 *   elapsed_s            wall-clock seconds since the run started (resumed runs continue the count)
 *   accuracy_raw, regret_raw, accuracy_search, regret_search
 *                        with [eval] positions: the share of optimal moves and the mean regret in seeds
 *                        (eval/accuracy.h) on the set of the raw policy (sims = 0) and of the search
 *                        (eval.sims); empty in iterations without an evaluation or without a set
 *
 * On resume the file is cut back to the rows of iterations <= the checkpoint's (rows written after the
 * checkpoint describe work that is being redone) and appended to.
 */
#ifndef SOWZERO_TRAIN_METRICS_H
#define SOWZERO_TRAIN_METRICS_H

#include <stddef.h>
#include <stdint.h>

#define TRAIN_MAX_OPPONENTS 8

typedef struct {
    int64_t iteration, games, samples, replay, steps;
    int have_loss;                  /* 0: the loss and lr cells are left empty */
    double loss, loss_policy, loss_value, loss_margin, loss_l2, lr;
    double selfplay_pos_per_s, selfplay_s, train_s, eval_s;
    int have_eval;                  /* 0: the score cells are left empty */
    double score[TRAIN_MAX_OPPONENTS], south[TRAIN_MAX_OPPONENTS], north[TRAIN_MAX_OPPONENTS];
    double elapsed_s;
    int have_accuracy;              /* 0: the accuracy cells are left empty */
    double accuracy_raw, regret_raw, accuracy_search, regret_search;
} train_row;

typedef struct train_metrics train_metrics;

/* Opens path for appending rows with columns for the n_opp (<= TRAIN_MAX_OPPONENTS) opponent specs.
 * keep_through < 0: a new file (truncates any old one) with the header line. keep_through >= 0: the file
 * must exist with the same header; rows with iteration > keep_through are dropped (rewritten through
 * path.tmp + rename) and new rows follow. NULL on error with a message in err. */
train_metrics *train_metrics_open(const char *path, const char *const *opponents, int n_opp,
                                  int64_t keep_through, char *err, size_t errlen);

/* Checks, changing nothing, that path exists and has the header line of these opponents' columns (what
 * train_metrics_open with keep_through >= 0 needs). 0 when it has, 1 when it has another header or is empty
 * (the config does not fit the run: bad input), -1 when it cannot be read; err says which. */
int train_metrics_check(const char *path, const char *const *opponents, int n_opp, char *err, size_t errlen);

/* Appends one row and flushes it to the file. 0 or -1 (message in err). */
int train_metrics_append(train_metrics *m, const train_row *row, char *err, size_t errlen);

void train_metrics_close(train_metrics *m);

/* The CSV-safe column suffix for an agent spec (see above) into buf (size n). Returns buf. */
char *train_metrics_column_name(const char *spec, char *buf, size_t n);

#endif
