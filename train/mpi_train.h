/* mpi_train.h — self-play across machines with MPI, one learner (docs/design.md §3.4's loop with the
 * self-play phase spread over ranks). Built only with SOWZERO_MPI (CMake finds Open MPI); sowzero train
 * uses it when it runs under mpirun with 2 or more ranks, and behaves as before otherwise.
 *
 * Roles: rank 0 is the learner: train_run as in one process (SGD, evaluation, checkpoints, metrics, the
 * run directory and its lock), with its self-play phase replaced by mpit_learner_selfplay. Ranks 1..N-1
 * are self-play workers (mpit_worker_run): each plays rounds of mpi.worker_games games with
 * selfplay.threads threads and the newest net it has, and streams the samples to the learner. Workers
 * write nothing to disk; the run directory only has to be readable by them for --resume (its config.ini).
 *
 * Messages (MPI_COMM_WORLD, MPI_BYTE payloads in the layouts of train/mpi_wire.h):
 *   NET     learner -> worker   a net and its iteration; sent point to point with MPI_Isend, at most one in
 *                               flight per worker: a worker still receiving the last one gets the newest
 *                               net when it is done (not MPI_Ibcast: that collective completes only when
 *                               every rank has joined it, so the slowest worker would hold every other)
 *   SAMPLES worker -> learner   up to mpi.samples_per_message samples tagged with the iteration of the net
 *                               that made them; a round's game count rides on its last message
 *   STOP    learner -> worker   the run is over: i64 version of the last net sent to that worker
 *   BYE     worker -> learner   after all its samples and the last net arrived: the worker finalises
 *
 * One iteration on the learner: send the current net to every worker not busy receiving one, then take
 * samples messages from whichever workers have them (one MPI_Irecv posted per worker, MPI_Testsome), until
 * selfplay.games games have arrived (never waiting on any one worker); a message whose net is more than
 * mpi.max_staleness iterations older than the learner's is counted and dropped. Workers are not drained
 * during SGD (no progress thread): they keep playing and queue up to MPIT_QUEUE messages, then wait.
 * Each iteration writes one line per worker to <run>/mpi.csv (counts, bytes, seconds: the log the ctest
 * and the README's figures read). In metrics.csv, selfplay_s is then the collection's wall time and
 * selfplay_pos_per_s the samples taken over the time since the previous collection ended (the rate the
 * workers deliver, SGD included). Distributed runs are not reproducible bit for bit (which samples arrive
 * before the learner moves on depends on timing); a worker's games are a function of (run.seed, rank,
 * round, net).
 *
 * Faults (Open MPI 4.1, Debian 12): a rank that dies (killed, crashed) makes mpirun terminate the whole job
 * (SIGTERM to every rank, then SIGKILL): the job STOPS, it does not carry on with fewer workers. The
 * error handler cannot change that (MPI_ERRORS_RETURN only turns failed calls into return codes; the
 * runtime still tears the job down, and Open MPI 4 has no ULFM). What the learner wrote is safe: every
 * file goes through *.tmp + rename and the checkpoint is the unit of progress (train.h, crash safety), so
 * `mpirun ... sowzero train --resume DIR` continues from the last checkpoint. A worker's own error (bad
 * message, out of memory) is printed and ends the job with MPI_Abort, same outcome.
 * Stopping: SIGINT / SIGTERM set the stop flag on every rank (mpirun forwards SIGTERM on Ctrl-C): the
 * learner ends the iteration's collection with what it has, trains, checkpoints and sends STOP; workers
 * stop starting rounds. mpirun sends SIGKILL odls_base_sigkill_timeout seconds after its SIGTERM
 * (Open MPI's default: 1 s of grace, hardly enough for SGD and a checkpoint): give it
 * `--mca odls_base_sigkill_timeout 60`, or stop the job with SIGUSR1 to mpirun, which forwards it
 * without killing (the README's cluster lines do both). Killed anyway, the run resumes from its last
 * checkpoint. Nothing in here prints; errors come back with messages.
 */
#ifndef SOWZERO_TRAIN_MPI_TRAIN_H
#define SOWZERO_TRAIN_MPI_TRAIN_H

#include "env/status.h"

#include <signal.h>
#include <stdint.h>

#include "train/config.h"
#include "train/train.h"

#define MPIT_ERRLEN SZ_ERRLEN
#define MPIT_QUEUE 16   /* samples messages a worker keeps in flight before it waits for the learner */

/* Whether this process was started by mpirun with 2 or more ranks (Open MPI's OMPI_COMM_WORLD_SIZE, or
 * PMI_SIZE / PMIX_RANK-style launchers: Slurm's srun). Decided before MPI_Init, so that a plain
 * `sowzero train` never initialises MPI. Always 0 without SOWZERO_MPI. */
int mpit_launched(void);

/* MPI_Init_thread (MPI_THREAD_FUNNELED: only the calling thread makes MPI calls; self-play threads make
 * none); *rank and *size of MPI_COMM_WORLD. Errors are returned on MPI_COMM_WORLD (MPI_ERRORS_RETURN), so
 * that a failed call becomes a message. 0, or -1 with err (MPIT_ERRLEN). */
int mpit_init(int *rank, int *size, char *err);

/* MPI_Finalize. */
void mpit_finalize(void);

/* Ends the whole job from any rank (MPI_Abort with code): for errors the other ranks cannot learn of. */
void mpit_abort(int code);

typedef struct mpit_learner mpit_learner;

/* The learner of a job of `size` ranks (>= 2) for cfg (borrowed, cfg_finish done, kept for the learner's
 * life); stop (may be NULL) is the flag the signal handlers set. NULL with err when out of memory. */
mpit_learner *mpit_learner_create(const cfg_config *cfg, int size, volatile sig_atomic_t *stop, char *err);

/* The train_selfplay_fn of the learner (ud = the mpit_learner): see the top. err gets MCTS_ERRLEN bytes at
 * most. Returns MCTS_OK (also when stopped early) or MCTS_EINVAL (a worker sent a bad message, or left
 * early) / MCTS_ENOMEM / MCTS_EEVAL (an MPI call failed). */
int mpit_learner_selfplay(void *ud, const char *run_dir, const nn_net *net, int64_t net_iteration,
                          replay_buffer *rb, selfplay_stats *st, char *err);

/* After train_run: STOP to every worker, then takes (and discards) their last samples until each has said
 * BYE (at most timeout_s seconds). *late gets the samples discarded. 0, or -1 with err. */
int mpit_learner_finish(mpit_learner *l, double timeout_s, int64_t *late, char *err);

void mpit_learner_free(mpit_learner *l);

/* A self-play worker (rank >= 1) until the learner's STOP: see the top. stop (may be NULL): after a
 * signal no new round starts. 0, or -1 with err (the caller then aborts the job). */
int mpit_worker_run(const cfg_config *cfg, int rank, volatile sig_atomic_t *stop, char *err);

#endif
