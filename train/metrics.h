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
 * checkpoint describe work that is being redone) and appended to. Every checkpoint holds the rows before
 * its own (train_metrics_rows), so a missing or damaged file is rebuilt from it (train_metrics_rebuild).
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

enum {
    TRAIN_METRICS_OK = 0,        /* the header of these columns and whole rows */
    TRAIN_METRICS_MISMATCH = 1,  /* a metrics header of other columns: the config does not fit the run */
    TRAIN_METRICS_DAMAGED = 2,   /* not a metrics file any more (err names the first bad line) */
    TRAIN_METRICS_MISSING = 3    /* no such file */
};

/* Checks, changing nothing, that path has the header line of these opponents' columns and rows of
 * consecutive iterations reaching keep_through (when >= 0), each with as many cells as the header (what
 * train_metrics_open with keep_through >= 0 needs). A last line without its newline of an iteration after
 * keep_through (a row a killed run was writing) is not counted. Returns a TRAIN_METRICS_* code with err
 * saying why ("FILE:LINE: ..." when damaged), or -1 when it cannot be read. *last_iteration (may be NULL)
 * gets the iteration of the last whole row before any damage, 0 without rows. */
int train_metrics_check(const char *path, const char *const *opponents, int n_opp, int64_t keep_through,
                        int64_t *last_iteration, char *err, size_t errlen);

/* Writes path anew (through path.tmp + rename): the header of these columns, then those of the rows in
 * rows[0..len) (text as train_metrics_rows gives it) whose iterations increase and are <= keep_through;
 * other lines are skipped. *first gets the first row's iteration (0: none), *count the rows written. 0, or
 * -1 with err. */
int train_metrics_rebuild(const char *path, const char *const *opponents, int n_opp, const char *rows, size_t len,
                          int64_t keep_through, int64_t *first, int64_t *count, char *err, size_t errlen);

/* The text of every row the open file holds (kept on open, then appended), one line each with its newline,
 * without the header; *len gets its length. Borrowed: valid until the next append or close. Checkpoints
 * store it, so that a lost or damaged metrics.csv can be rebuilt. */
const char *train_metrics_rows(const train_metrics *m, size_t *len);

/* Appends one row and flushes it to the file. 0 or -1 (message in err). */
int train_metrics_append(train_metrics *m, const train_row *row, char *err, size_t errlen);

/* The whole row (no newline) of `iteration` in path into out (n bytes, truncated to fit). 1 when found, 0
 * when not (or no file), -1 when the file cannot be read. */
int train_metrics_find_row(const char *path, int64_t iteration, char *out, size_t n);

/* How r's row starts in the file: "iteration,games,samples,replay,steps," into buf (n bytes). Returns buf.
 * These counts tell one run's row of an iteration from another run's. */
char *train_metrics_row_counts(const train_row *r, char *buf, size_t n);

void train_metrics_close(train_metrics *m);

/* The CSV-safe column suffix for an agent spec (see above) into buf (size n). Returns buf. */
char *train_metrics_column_name(const char *spec, char *buf, size_t n);

#endif
