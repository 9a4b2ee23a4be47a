/* train_internal.h — the trainer's state, shared by train.c (the loop), train_state.c (checkpoints) and
 * train_eval.c (evaluation matches). Internal to train/. */
#ifndef SOWZERO_TRAIN_INTERNAL_H
#define SOWZERO_TRAIN_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "nn/h5io.h"
#include "selfplay/replay.h"
#include "selfplay/selfplay.h"
#include "selfplay/rng.h"
#include "train/metrics.h"
#include "train/train.h"

/* train.overlap: the self-play round played beside an iteration's SGD and evaluation (train_overlap.c). */
typedef struct {
    pthread_t thread;
    int running;            /* the thread is started and not yet joined */
    int64_t index;          /* the round's number (its seed: train_seed(run.seed, 3, index)) */
    nn_net *net;            /* the copy of the self-play net it plays with (owned) */
    replay_buffer *rb;      /* its samples until they join the training buffer (owned) */
    int rc;                 /* MCTS_* result, with err */
    char err[MCTS_ERRLEN];
    selfplay_stats st;
} train_round;

typedef struct {
    const cfg_config *cfg;
    const train_options *opt;
    char dir[TRAIN_PATH_LEN];
    char rules_spec[128];
    const char *encoding;   /* KALAH_ENCODING_NAME or BASICO_ENCODING_NAME, recorded in nets and checkpoints */
    int players;            /* the game's (game_players) */
    char seat[2][24];       /* with two players, their seats' names in texts (game_seat_name: South, North) */

    nn_net *net;            /* trained in place; self-play and exports read it between SGD phases */
    nn_optim *optim;
    nn_workspace *ws;       /* training workspace (batch_size rows) */
    replay_buffer *rb;
    mcts_rng rng;           /* replay sampling: saved in checkpoints */

    /* one mini-batch */
    float *x, *pi, *z, *margin, *grad;
    uint8_t *legal;

    int64_t iteration;      /* iterations completed */
    int64_t last_it;        /* the run's last iteration: run.iterations, or earlier by run.time_limit */
    double last_eval_s;     /* seconds of the last evaluation measured (0: none yet), for run.time_limit */
    int last_eval_games;    /* its games per opponent */
    int64_t games, samples; /* cumulative self-play output */
    /* selfplay.opponents: each league opponent's games and the search's summed score in them, over the
     * rounds since the last evaluation's report (selfplay_stats; not kept across a resume) */
    uint64_t league_games[SELFPLAY_MAX_LEAGUE];
    double league_score[SELFPLAY_MAX_LEAGUE];
    double elapsed_base;    /* seconds of earlier sessions (resume) */
    double t0;              /* monotonic clock at this session's start */
    double best_score;      /* what best.h5 was chosen by (train_best_measure), -1 = none yet */
    int64_t best_iteration;
    nn_net *best_net;       /* the net of best_iteration (saved in checkpoints; best.h5 is written from it) */
    int have_best_net;      /* best_net holds it (0 after loading a checkpoint older than /train/best_params) */
    int64_t eval_iteration; /* iteration of the last evaluation played, 0 = none */
    train_eval_result last_eval[CFG_MAX_OPPONENTS];   /* its results (cfg->eval.n_opponents entries) */
    int have_last_accuracy; /* it measured the accuracy on [eval] positions: */
    double last_accuracy[4]; /* accuracy_raw, regret_raw, accuracy_search, regret_search (train_row) */
    train_row row;          /* the metrics row of iteration `iteration` (saved in checkpoints) */
    int have_row;           /* row is valid (0 before the first iteration or from an older checkpoint) */
    int lock_fd;            /* the run directory's lock (rundir.h train_lock), -1 when not held */

    train_metrics *metrics;
    char *ckpt_rows;        /* the loaded checkpoint's copy of the metrics rows before its own (malloc'd,
                             * NULL: none), what a lost or damaged metrics.csv is rebuilt from */
    size_t ckpt_rows_len;
    char rebuild_why[600];  /* why metrics.csv is rebuilt on resume (train_metrics_check's message) */
    int warned_gnuplot, warned_plot;
    int have_loss_rows, have_eval_rows, have_accuracy_rows;
    cfg_positions positions; /* [eval] positions (owned; all NULL = none) */
    struct tb_ref *tb;      /* the run's endgame database (eval/tbase.h) for mcts/eval.tablebase_seeds, NULL = none;
                             * held for the whole run so that the evaluation's agents find it built */
    nn_net *sp_net;         /* eval.gate = sprt: the self-play net (owned; the trained net replaces it only
                             * when a gate accepts it), NULL: self-play uses net */
    int64_t gate_counts[2]; /* gates played, nets accepted (checkpointed) */
    int64_t rounds;         /* self-play rounds whose samples are in rb: `iteration`, or one more after an
                             * iteration of train.overlap (its round for the next iteration joined; checkpointed) */
    train_round round;      /* train.overlap's round in flight */
    train_summary *sum;
} trainer;

/* Monotonic seconds. */
double train_now(void);

/* Seconds since the run started (earlier sessions included). */
double train_elapsed(const trainer *t);

/* A seed for stream `stream` (1 = init, 2 = sampler, 3 = self-play, 4 = evaluation, 5 = gate) and index i, derived
 * from run.seed with SplitMix64 so that nearby (stream, i) give unrelated seeds. */
uint64_t train_seed(uint64_t seed, uint64_t stream, uint64_t i);

/* Formats an error message into err (TRAIN_ERRLEN bytes). */
void train_err(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sends a message to opt->message (printf format). */
void train_msg(const trainer *t, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes checkpoints/iter-<t->iteration>.h5 (net, optimiser, counters, sampler RNG, replay buffer) and
 * prunes old ones. TRAIN_OK or TRAIN_EIO / TRAIN_ENOMEM with err. *path_out (may be NULL) gets the file. */
int train_save_checkpoint(trainer *t, char *path_out, size_t n, char *err);

/* Restores t (net, optimiser, counters, RNG, replay buffer, best net, last evaluation, the iteration's
 * metrics row; the buffers t already allocated for the config are kept) from the checkpoint at path. The
 * optimiser gets cfg's hyperparameters with the saved state. Items added later (best_params, row,
 * eval_iteration, eval) may be absent (older checkpoints): have_best_net / have_row / eval_iteration say.
 * Returns TRAIN_OK; TRAIN_EINVAL when the file does not fit the config (rules, net, optimiser: bad input);
 * TRAIN_EIO when it cannot be read, with *corrupt (may be NULL) = 1 when it is not a whole sowzero training
 * checkpoint (truncated, damaged, items missing) rather than unopenable; TRAIN_ENOMEM. err says why. */
int train_load_checkpoint(trainer *t, const char *path, int *corrupt, char *err);

/* Plays the evaluation matches of the net in latest.h5 against every opponent, `games` games each.
 * res gets one entry per opponent, *mean the mean score. TRAIN_OK or TRAIN_EFAIL with err. */
int train_evaluate(trainer *t, int games, train_eval_result *res, double *mean, char *err);

/* Whether the run measures accuracy: eval.positions named a set (loaded into t->positions). */
static inline int train_has_positions(const trainer *t) { return t->positions.set != NULL; }

/* The accuracy on t->positions (eval/accuracy.h) of the net in latest.h5: its raw policy (sims = 0) and its
 * search (eval.sims, eval.threads), each agent reseeded per position from run.seed (the same at every
 * evaluation). Fills the row's accuracy cells. TRAIN_OK or TRAIN_EFAIL / TRAIN_ENOMEM with err. */
int train_accuracy(trainer *t, train_row *row, char *err);

/* eval.gate = sprt: the GSPRT (eval/sprt.h, pentanomial) of the trained net (latest.h5) against the
 * self-play net (written to selfplay.h5 first, and again when replaced: the file holds the self-play net
 * after every gate), in batches of eval.threads colour-swapped pairs up to
 * eval.gate_games games; accepting H1 copies the trained net into t->sp_net. *accepted (may be NULL) gets
 * 1 then. TRAIN_OK, or TRAIN_EFAIL / TRAIN_ENOMEM / TRAIN_EIO with err. */
int train_gate(trainer *t, int *accepted, char *err);

/* What best.h5 is chosen by, larger = better. With [eval] positions: the search's optimal-move share minus
 * 1e-8 × its mean regret — the share first and, between equal shares, the lower regret (exact for sets
 * below 190 000 positions: two shares differ by at least 1/n, a regret term is at most 510 × 1e-8).
 * Without: the mean evaluation score over the opponents. */
double train_best_measure(const trainer *t, const train_row *row, double mean_score);

/* One round of self-play as training plays it: sc->games games of the rules spec with `net` into rb
 * through game_selfplay_run, with the margin utility and, when tb is given (Kalah's endgame database,
 * borrowed and only read), that database attached to the game (game_set_endgame) for the tablebase leaves
 * (mcts.tablebase_seeds) and rescoring. Shared by train.c
 * and the MPI workers (train/mpi_train.c) so both play the same search. MCTS_OK or an MCTS_* code with the
 * message in err (MCTS_ERRLEN bytes); st gets the round's statistics. */
int train_selfplay_round(const cfg_config *c, const char *rules_spec, const selfplay_config *sc, const nn_net *net,
                         const struct tb_ref *tb, replay_buffer *rb, uint64_t seed, selfplay_stats *st, char *err);

/* train.overlap (train_overlap.c). start: plays round `index` with a copy of net on a new thread, into a
 * buffer of its own. finish: waits for it (nothing to wait for: *st zeroed, TRAIN_OK), moves its samples into
 * t->rb and sets t->rounds; TRAIN_EFAIL (the round's error) / TRAIN_ENOMEM with err. free: waits for a round
 * still in flight and frees the copies (teardown). */
int train_round_start(trainer *t, int64_t index, const nn_net *net, char *err);
int train_round_finish(trainer *t, selfplay_stats *st, char *err);
void train_round_free(trainer *t);

#endif
