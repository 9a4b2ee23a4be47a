/* curve.h — a run's time-to-accuracy curve read back from its metrics.csv (train/metrics.h): the accuracy
 * against perfect play (eval.positions) of the search and of the raw policy at each evaluation, against
 * the wall-clock time since the run started. `sowzero metrics` prints it; train/plot.h draws it
 * as accuracy-time.png.
 *
 * Library code: nothing is printed; errors name the file and line.
 */
#ifndef SOWZERO_TRAIN_CURVE_H
#define SOWZERO_TRAIN_CURVE_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t iteration, games;     /* iterations completed, cumulative self-play games */
    double elapsed_s;             /* wall-clock seconds since the run started (resumes included) */
    double accuracy_search, regret_search; /* optimal-move share (0..1), mean regret (seeds): eval.sims */
    double accuracy_raw, regret_raw;       /* the same for the raw policy (sims = 0) */
} train_curve_point;

enum { TRAIN_CURVE_OK = SZ_OK, TRAIN_CURVE_EINVAL = SZ_EINVAL, TRAIN_CURVE_EIO = SZ_EIO, TRAIN_CURVE_ENOMEM = SZ_ENOMEM };

/* Reads the rows of the metrics.csv at path that hold an accuracy (iterations with an evaluation on
 * eval.positions), in file order: *out (malloc'd, caller frees; NULL when *n is 0) and *n. Returns
 * TRAIN_CURVE_OK; TRAIN_CURVE_EIO when the file cannot be opened; TRAIN_CURVE_EINVAL when it is no
 * metrics.csv (a column missing from the header, a cell that is not a number: "PATH:LINE: ..."); ENOMEM. */
int train_curve_read(const char *path, train_curve_point **out, int *n, char *err, size_t errlen);

#endif
