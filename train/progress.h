/* progress.h — what the trainer shows while it runs: a one-line progress bar redrawn in place on a
 * terminal, or one plain log line per iteration otherwise (a pipe, a CI log, a file).
 *
 * The bar: "[#####.....] 12/40  games 1200  loss 1.234  8.1k pos/s  eval 0.62  acc 71.3%/0.84  ETA 5m12s"
 * (acc: with [eval] positions, the search's optimal-move share / mean regret in seeds). Messages
 * (warnings, evaluation tables) are printed on their own lines above it. Everything goes to the FILE the
 * caller chooses (the train command uses stderr, keeping stdout free).
 */
#ifndef SOWZERO_TRAIN_PROGRESS_H
#define SOWZERO_TRAIN_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

/* One iteration's summary, as the trainer reports it. */
typedef struct {
    int64_t iteration, iterations;  /* done so far (1-based), and the run's total */
    int64_t games, samples;         /* cumulative */
    int have_loss;
    double loss, lr;
    double pos_per_s;               /* self-play positions per second in this iteration */
    int have_eval;
    double eval_score;              /* mean score over the opponents, when have_eval and opponents exist */
    int have_accuracy;              /* [eval] positions: the search's accuracy on the set */
    double accuracy, regret;        /* its optimal-move share and mean regret (seeds) */
    double elapsed_s;               /* since the run started (resumes continue the count) */
    double eta_s;                   /* estimated seconds left; < 0 when unknown */
} train_progress_info;

typedef struct train_progress train_progress;

/* tty: 1 draws the bar (use isatty(fileno(out))), 0 writes log lines. NULL when out of memory. */
train_progress *train_progress_create(FILE *out, int tty);

/* Redraws the bar (tty) or writes one log line. */
void train_progress_update(train_progress *p, const train_progress_info *info);

/* The bar line for a terminal of cols columns into buf (n bytes, >= cols): at most cols - 1 characters,
 * so it never wraps (a wrapped bar is redrawn below itself at every update). The bar shrinks (24 to 8
 * marks) and then is dropped before the numbers are cut. Returns buf. train_progress_update asks the
 * terminal's width (TIOCGWINSZ; 80 when unknown) at every update. */
char *train_progress_bar(const train_progress_info *info, int cols, char *buf, size_t n);

/* Prints a message on its own line(s) (the bar, if any, is redrawn on the next update). */
void train_progress_message(train_progress *p, const char *msg);

/* Ends the bar's line (if one is drawn) and frees p. NULL is allowed. */
void train_progress_free(train_progress *p);

/* Formats seconds as "45s", "5m12s" or "2h03m" into buf (size n). Returns buf. */
char *train_format_duration(double s, char *buf, size_t n);

#endif
