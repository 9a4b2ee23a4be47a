/* train.h — the training loop (docs/design.md §3.4):
 *
 *   repeat run.iterations times:
 *     self-play  selfplay.games games with the current net (game_selfplay_run, selfplay.threads workers), their
 *                samples appended to the replay buffer (the newest train.replay_window are kept)
 *     SGD        train.steps_per_iteration steps of train.batch_size samples drawn uniformly from the buffer
 *                (once it holds train.min_replay), nn_train_grad + nn_optim_step
 *     export     latest.h5 (the net as it is now)
 *     evaluate   every eval.every iterations and after the last: a match of the trained agent
 *                (az:net=latest.h5 with eval.sims) against each eval.opponents spec (eval/game_match.h;
 *                two players: colour-swapped pairs);
 *                the mean score over opponents picks best.h5 — unless eval.positions names a solved
 *                position set: then the accuracy of the raw policy and of the search on it is measured
 *                too (eval/accuracy.h), and best.h5 is the net with the best search accuracy (ties: the
 *                lower mean regret), a measure without the noise of a few dozen games
 *     checkpoint every run.checkpoint_every iterations, after the last, when stopped and when the evaluation
 *                found a new best net; best.h5 is written from the checkpoint's best net right after it
 *     metrics    one metrics.csv row; plots when something new was evaluated or checkpointed
 *
 * Overlap (train.overlap = 1): self-play of iteration it + 1's round runs on a thread of its own during
 * iteration it's SGD, export and evaluation, with a copy of the self-play net as it was before that SGD, into
 * a buffer of its own that joins the replay buffer (replay_drain) after the evaluation, before the
 * checkpoint; the first iteration of a run plays its own round first. SGD then trains on games one
 * iteration older than in the sequential loop (what KataGo's and Leela's asynchronous self-play does, with a
 * lag that is fixed rather than timing-dependent), and since every phase meets the same buffer at the same
 * point whatever the threads' timing, the run stays deterministic and resumes bit for bit (the checkpoint's
 * selfplay_rounds says whether the next round is already in). SGD runs on one BLAS thread (train.threads =
 * 1: OpenBLAS's thread count is process-wide) beside selfplay.threads workers; not under mpirun.
 *
 * Time budget (run.time_limit = M minutes, 0 = none): after each iteration's SGD (and gate) the loop estimates what one
 * more iteration would cost — elapsed / iterations done (earlier sessions included, evaluations included),
 * plus its evaluation when one is due, plus the final evaluation (the last evaluation's time, scaled by
 * final_games / its games) — and, when that does not fit in what is left of M, makes this iteration the
 * last: it plays the final evaluation (final_games) and writes the final checkpoint, so that the run ends
 * within M minutes as long as the estimates hold (an evaluation not yet measured counts 0). A run resumed
 * with no time left for an iteration does nothing and says so. The iteration count where the budget ends
 * depends on the clock, so a time-limited run is deterministic only up to that count.
 *
 * Gating (eval.gate = sprt; kalah only): self-play then uses its own copy of the net, the self-play net.
 * After every eval.gate_every-th iteration's SGD the trained net (latest.h5) plays the self-play net
 * (written to selfplay.h5) in colour-swapped pairs from random openings, both as az agents at eval.sims,
 * eval.threads pairs at a time, and a GSPRT on the pairs (eval/sprt.h, pentanomial; H0 elo = gate_elo0,
 * H1 elo = gate_elo1, error rates gate_alpha / gate_beta) decides after each batch; accepting H1 copies the
 * trained net into the self-play net, H0 or reaching gate_games games keeps it (AlphaGo Zero's evaluator
 * with a sequential test, as Leela Zero and fishtest do). Training always continues on the trained net.
 * The self-play net and the counts are in the checkpoints. A gate's outcome depends on eval.threads (the
 * batch size at which the test looks), not on scheduling.
 *
 * Randomness: everything follows from run.seed. The net's initialisation, each iteration's self-play seed and
 * the evaluation seed are fixed functions of (run.seed, iteration); the replay sampler is an mcts_rng whose
 * state is saved in each checkpoint together with the whole replay buffer, the optimiser state and the
 * counters. Self-play is deterministic for a seed at any fixed selfplay.threads (selfplay.h), and so is
 * training for Kalah: a function of the config, and a run stopped (or killed) after k iterations and resumed
 * ends with the same weights, bit for bit, as a run that never stopped (tests/test_train.c and
 * tests/test_train_crash.c check it; the básico driver still claims games from a shared counter, so there
 * only one thread is deterministic). OpenBLAS with a fixed thread count computes the same sgemm
 * results in the same order on one machine; across machines (other kernels) only near-equality holds.
 *
 * Floating point: train_run switches the calling thread to flush-to-zero / denormals-are-zero (x86 MXCSR;
 * the self-play and match threads it starts inherit it) and restores the mode on return, because subnormal
 * numbers made the net 2-20x slower. After every optimiser step, subnormal parameters and optimiser moments are set to 0 (see flush_subnormals
 * in train.c: they made the forward pass 15x slower); this is part of the update, so determinism holds.
 *
 * Stopping: when *opt->stop becomes nonzero (a signal handler sets it) the loop finishes the current
 * iteration's self-play and SGD, skips a pending evaluation, writes a checkpoint and returns TRAIN_STOPPED.
 * The checkpoint says what is still owed: a resume first plays that iteration's skipped evaluation (the
 * final one included, so a finished run always ends with its final table), then goes on.
 *
 * Crash safety (a kill at any moment): the run directory is locked while a process trains in it (rundir.h
 * train_lock: a second train on it fails with TRAIN_EINVAL naming the holder's pid); every file is written
 * through *.tmp + rename, leftovers of a killed run are deleted on the next start; the checkpoint holds the
 * iteration's metrics row, the best net and the last evaluation, and on resume latest.h5, best.h5 and
 * metrics.csv are rebuilt from it, so none of them can describe iterations the crash abandoned (the
 * checkpoint holds the earlier metrics rows too: a missing or damaged metrics.csv is rebuilt whole, the
 * damaged one kept as metrics.csv.corrupt). A checkpoint that does not read back is set aside (*.corrupt,
 * or *.unreadable when it cannot even be opened), one holding another iteration than its name says
 * (*.foreign), and the one before it used. A run with no checkpoint yet (killed or diverged in its first
 * iterations) resumes from iteration 0 with its config; one that has trained but has no usable checkpoint
 * left (all set aside or deleted: proven by set-aside checkpoints, best.h5, a damaged metrics.csv, rows
 * past the first checkpoint's iteration, or latest.h5 or a plot with no metrics.csv) is refused with TRAIN_EINVAL, changing nothing, unless
 * train_options.restart asks to start it again.
 * A non-finite loss or parameter stops the run with TRAIN_EDIVERGED before anything of that iteration is
 * saved: the last checkpoint on disk is the last good one.
 *
 * Threads: train_run itself runs on the calling thread and starts self-play and match workers. OpenBLAS is
 * set to 1 thread while those run (they call nn_forward concurrently) and to train.threads for the SGD steps.
 * HDF5 is only touched from the calling thread. Nothing is printed: progress and messages go to the
 * callbacks.
 */
#ifndef SOWZERO_TRAIN_TRAIN_H
#define SOWZERO_TRAIN_TRAIN_H

#include "env/status.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "nn/h5io.h"
#include "train/config.h"
#include "train/progress.h"

#define TRAIN_ERRLEN SZ_ERRLEN
#define TRAIN_PATH_LEN 1024

enum {
    TRAIN_OK = SZ_OK,
    TRAIN_STOPPED = 1,      /* stopped by *stop or stop_after; a checkpoint was written */
    TRAIN_EINVAL = SZ_EINVAL,      /* bad config / options (e.g. the run directory is already a run) */
    TRAIN_EIO = SZ_EIO,         /* files: cannot create, write, read; corrupt checkpoint */
    TRAIN_ENOMEM = SZ_ENOMEM,
    TRAIN_EDIVERGED = SZ_EDIVERGED,   /* NaN or infinite loss or weights */
    TRAIN_EFAIL = SZ_EFAIL        /* self-play or an evaluation match failed (message says why) */
};

enum { TRAIN_MSG_INFO = 0, TRAIN_MSG_WARN = 1 };

/* Replaces each iteration's local self-play (train_options.selfplay; train/mpi_train.h is the MPI
 * learner's): called at the start of every iteration with the run directory, the current net (borrowed;
 * net_iteration = iterations completed, the net's version) and the replay buffer. It adds that iteration's
 * samples to rb and fills *st (games, samples, seconds, positions_per_s; the rest may be 0); it may return
 * early with fewer when *train_options.stop is set. MCTS_OK or a negative MCTS_* code with a message in
 * err (MCTS_ERRLEN bytes): the run then ends with TRAIN_EFAIL, its files as after a crash. */
typedef int (*train_selfplay_fn)(void *ud, const char *run_dir, const nn_net *net, int64_t net_iteration,
                                 replay_buffer *rb, selfplay_stats *st, char *err);

typedef struct {
    const char *run_dir;             /* NULL: <run.dir>/<run.name>-<YYYYmmdd-HHMMSS> */
    int resume;                      /* 1: continue run_dir (required) from its newest checkpoint */
    const char *checkpoint;          /* resume: this checkpoint file instead of the newest (may be NULL); the
                                        run directory's newer checkpoints are set aside as *.abandoned */
    int restart;                     /* resume: when no checkpoint can be used, start again from iteration 0
                                        even though the run has trained (its files are moved into
                                        run_dir/restart-<k>/ first); refused while a checkpoint can be used */
    volatile sig_atomic_t *stop;     /* may be NULL; nonzero = stop after the current iteration */
    int64_t stop_after;              /* > 0: stop as if signalled once this many iterations are done */
    const char *config_header;       /* comment text written at the top of the run's config.ini (may be NULL) */
    void (*message)(void *ud, int level, const char *text);           /* may be NULL */
    void (*progress)(void *ud, const train_progress_info *info);       /* may be NULL */
    void *ud;
    train_selfplay_fn selfplay;      /* NULL: self-play in this process (game_selfplay_run), else see above */
    void *selfplay_ud;
} train_options;

/* One opponent's evaluation result, from the trained agent's point of view.
 * Two-player games: a colour-swapped match (eval/game_match.h), score with its Wilson interval. More players
 * (básico): the trained agent in one seat, the opponent in all the others, the trained agent's seat rotating
 * (eval/game_match.h's field plan); then score is its mean rank score
 * (1 = always first; (players − place) / (players − 1)) with a normal-approximation 95% interval, wins its
 * first places, draws and losses 0, mean_place its mean place, and seat_score[0] / [1] its mean rank score
 * in seat 0 (moving first) / in the other seats (seat_games likewise). */
typedef struct {
    char opponent[CFG_SPEC_LEN];
    int games, wins, draws, losses;
    int seat_games[2], seat_wins[2], seat_draws[2], seat_losses[2];   /* [KALAH_SOUTH], [KALAH_NORTH] */
    double score, score_lo, score_hi;   /* (wins + draws/2) / games and its 95% Wilson interval */
    double seat_score[2];
    double mean_place;                  /* básico: mean place (1 = first); 0 for Kalah */
} train_eval_result;

typedef struct {
    char run_dir[TRAIN_PATH_LEN];       /* the run directory used */
    int64_t iterations;                 /* iterations completed (in total, over resumes) */
    int64_t games, samples, steps;
    double elapsed_s;
    int have_eval;                      /* the last evaluation's table below (n_opponents entries) */
    int64_t eval_iteration;             /* iteration after which it was played */
    int n_opponents;
    train_eval_result eval[CFG_MAX_OPPONENTS];
    double best_score;                  /* best.h5's measure (train_internal.h, train_best_measure): with
                                         * [eval] positions the search's accuracy, else the mean score; -1
                                         * when never evaluated */
    int64_t best_iteration;
    int have_accuracy;                  /* [eval] positions: the last evaluation's accuracy (eval/accuracy.h) */
    double accuracy_raw, regret_raw;    /* raw policy (sims = 0): optimal-move share, mean regret in seeds */
    double accuracy_search, regret_search; /* the search (eval.sims) */
    int time_limited;                   /* 1: run.time_limit ended the run before run.iterations */
    int64_t gates, gates_accepted;      /* eval.gate = sprt: tests played, nets that became the self-play net */
} train_summary;

/* Runs (or, with opt->resume, continues) the training described by cfg (which must have passed
 * cfg_finish; on resume the caller loads <run_dir>/config.ini). A run_dir of "" is TRAIN_EINVAL, as is a
 * directory that cannot be created or, for a fresh run, already holds a run (config.ini) or other files
 * (rundir.h train_dir_blank: nothing there is overwritten). On resume, everything (checkpoint, config
 * against the checkpoint and metrics.csv) is checked before anything is written: a config that does not
 * fit changes nothing on disk. sum (may be NULL) receives what happened,
 * also on errors as far as it got. Returns TRAIN_OK (all iterations done), TRAIN_STOPPED, or a negative
 * TRAIN_E* code with a message in err (TRAIN_ERRLEN bytes). */
int train_run(const cfg_config *cfg, const train_options *opt, train_summary *sum, char *err);

/* The trained agent as evaluation, accuracy and the gate play it, for game g: net (borrowed) searched with
 * cfg's eval.sims (raw = 1: 0, the raw policy), eval.batch, mcts.c_puct, fpu_reduction, the root keys,
 * margin_utility and solver (where g has two players and a margin) and eval.tablebase_seeds (search only),
 * named name (borrowed; the agent's name in results and messages). *out feeds game_agent_create_az
 * (eval/game_agent.h). */
struct game;
struct game_agent_az;
struct nn_net;
void train_eval_agent(const cfg_config *cfg, const struct game *g, const struct nn_net *net, const char *name,
                      int raw, struct game_agent_az *out);

/* The search record (nn/h5io.h nn_search) of the nets a run of cfg writes — latest.h5, best.h5, the
 * checkpoints, selfplay.h5 — and of `sowzero export --config`: the settings the trained agent of
 * train_eval_agent plays with (eval.sims, eval.batch, mcts.c_puct, fpu_reduction, margin_utility, root and
 * the gumbel constants) and mcts.solver, so that az:net=FILE without keys plays as the run evaluated it. No
 * tablebase (see nn_search). */
void train_search_record(const cfg_config *cfg, nn_search *out);

/* train.lr_anneal_by = time: the cosine's length in SGD steps, planned at the start of an iteration.
 * steps_done: SGD steps taken; its_done: iterations completed (>= 0), of its_planned (run.iterations);
 * elapsed_s: the run's seconds at the iteration's start (train.c passes the seconds so far less this
 * iteration's self-play); limit_s: run.time_limit in seconds; final_eval_s: the final evaluation's
 * estimated seconds (0 before one was measured). The iterations left are its_planned - its_done, or fewer
 * where the budget holds fewer at the mean time per iteration so far (elapsed_s / its_done, evaluations
 * included: the pace run.time_limit's own stop rule uses), at least this one; the length is steps_done +
 * that many times steps_per_iteration (>= 1). Before any iteration (no pace yet) the plan is all
 * its_planned. The stop rule looks one iteration's evaluation and checkpoint earlier than this plan, so a
 * run may take one iteration past the plan's last: its rate stays within (pi / N)^2 / 4 of the range above
 * lr_min, N the iterations planned then. */
int64_t train_time_anneal_steps(int64_t steps_done, int64_t its_done, int64_t its_planned, double elapsed_s,
                                double limit_s, double final_eval_s, int steps_per_iteration);

#endif
