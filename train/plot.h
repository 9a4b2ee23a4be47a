/* plot.h — PNG plots of a run's metrics.csv with gnuplot (Debian package gnuplot-nox).
 *
 *   loss.png  the loss terms (total, policy, value, margin) per iteration, learning rate on the right axis
 *   eval.png  each opponent's score per iteration (overall solid, as South / as North dashed), 0..1
 *   accuracy.png  with [eval] positions: the optimal-move share of the raw policy and of the search
 *             (left axis, 0..1) and their mean regret in seeds (right axis)
 *   accuracy-time.png  the same optimal-move shares against wall-clock minutes since the run started
 *             (elapsed_s): the time-to-accuracy curve (`sowzero metrics` prints it as a table)
 *
 * gnuplot runs as a child process on a script file (not through a pipe, so a gnuplot that dies early cannot
 * raise SIGPIPE in the trainer, and Ctrl-C reaches the trainer's own handler while it waits). Images are
 * written to NAME.png.tmp and renamed, so a viewer never sees half a file.
 */
#ifndef SOWZERO_TRAIN_PLOT_H
#define SOWZERO_TRAIN_PLOT_H

#include "env/status.h"

#include <stddef.h>

enum { TRAIN_PLOT_OK = SZ_OK, TRAIN_PLOT_NO_GNUPLOT = 1, TRAIN_PLOT_ERROR = SZ_EFAIL };
enum { TRAIN_PLOT_LOSS = 1, TRAIN_PLOT_EVAL = 2, TRAIN_PLOT_ACCURACY = 4 };

/* Plots <run_dir>/metrics.csv into <run_dir>/loss.png (what & TRAIN_PLOT_LOSS) and <run_dir>/eval.png
 * (what & TRAIN_PLOT_EVAL, n_opp > 0) and accuracy.png and accuracy-time.png (what & TRAIN_PLOT_ACCURACY). gnuplot fails on a plot without a single data point, so the caller
 * asks only for plots whose columns hold at least one value. opponents are the n_opp evaluation agent
 * specs (their column names as in train/metrics.h). Returns TRAIN_PLOT_OK,
 * TRAIN_PLOT_NO_GNUPLOT when no gnuplot program is on PATH (nothing written), or TRAIN_PLOT_ERROR with a
 * message in err (gnuplot failed, files cannot be written). */
int train_plot(const char *run_dir, const char *const *opponents, int n_opp, int what, char *err,
               size_t errlen);

#endif
