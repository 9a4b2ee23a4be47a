/* rundir.h — the run directory's file system chores (docs/design.md §3.4): creating it, naming it, finding and
 * pruning checkpoints.
 *
 * Layout of a run directory:
 *   config.ini                 the effective config (file + --set overrides), written by cfg_write
 *   metrics.csv                one row per iteration (train/metrics.h)
 *   checkpoints/iter-NNNNNN.h5 checkpoints (nn_ckpt_save: tmp + rename), NNNNNN = iterations completed
 *   latest.h5, best.h5         exports of the newest net and of the best-evaluated one
 *   loss.png, eval.png         plots (train/plot.h)
 *   lock                       the pid of the process training in it, flock()ed while it runs
 *
 * Crash safety: every file is written to "<name>.tmp" and renamed, so a killed run leaves whole files and
 * perhaps some *.tmp (removed when the directory is next opened, under the lock). A checkpoint that cannot
 * be read is renamed "iter-NNNNNN.h5.corrupt" and checkpoints newer than one chosen to resume from
 * "iter-NNNNNN.h5.abandoned", one whose contents do not fit its name (another iteration) "*.foreign" and one
 * that cannot be opened at all "*.unreadable": all are kept for inspection and no longer match the
 * checkpoint pattern.
 *
 * Errors: functions return 0 or -1 and, where given, fill err (errlen bytes) with a message naming the
 * path and strerror. They never print.
 */
#ifndef SOWZERO_TRAIN_RUNDIR_H
#define SOWZERO_TRAIN_RUNDIR_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Creates dir and every missing parent (mode 0777 before umask); an existing directory is fine. */
int train_mkdirs(const char *dir, char *err, size_t errlen);

/* The default run directory: "<parent>/<name>-<YYYYmmdd-HHMMSS>" in local time t. Returns buf, or NULL when
 * it does not fit in n bytes. */
char *train_default_run_dir(char *buf, size_t n, const char *parent, const char *name, time_t t);

/* "<run_dir>/checkpoints/iter-<iteration, 6+ digits>.h5" into buf; NULL when it does not fit. */
char *train_checkpoint_path(char *buf, size_t n, const char *run_dir, int64_t iteration);

/* Finds the checkpoint with the highest iteration in <run_dir>/checkpoints (files named as above; anything
 * else, including *.tmp left by a crash, is ignored). Returns 1 and fills path/iteration when one exists,
 * 0 when there is none, -1 on error (the directory cannot be read). */
int train_find_latest_checkpoint(const char *run_dir, char *path, size_t n, int64_t *iteration, char *err,
                                 size_t errlen);

/* Deletes all but the `keep` newest checkpoints (keep >= 1). Returns the number deleted, -1 on error. */
int train_prune_checkpoints(const char *run_dir, int keep, char *err, size_t errlen);

/* The iterations of all checkpoints in <run_dir>/checkpoints, ascending, into *iterations (malloc'd, the
 * caller frees; NULL when none) and their number into *count. 0, or -1 on error (err filled). */
int train_list_checkpoints(const char *run_dir, int64_t **iterations, int *count, char *err, size_t errlen);

/* Creates a new default run directory "<parent>/<name>-<YYYYmmdd-HHMMSS>" (local time t), or with "-2",
 * "-3", ... appended when that exists: mkdir() is atomic, so two runs started in the same second get two
 * directories. Parents are created. Returns buf (n bytes), or NULL with err. */
char *train_create_default_run_dir(char *buf, size_t n, const char *parent, const char *name, time_t t, char *err,
                                   size_t errlen);

/* Takes the run directory's lock: <run_dir>/lock opened and flock()ed (exclusive, non-blocking) and this
 * process's pid written into it. The kernel releases an flock when its process dies, so a lock left by a
 * killed run never blocks (no stale-pid guessing). Returns the lock's file descriptor (>= 0; keep it open
 * while training, train_unlock releases it), -2 when another process holds it (*holder = its pid, or -1
 * when it has not written it yet), -1 on error (err filled). */
int train_lock(const char *run_dir, long *holder, char *err, size_t errlen);

/* Releases a lock from train_lock (fd < 0: nothing). */
void train_unlock(int fd);

/* Deletes every "*.tmp" file in run_dir and run_dir/checkpoints (what a killed run leaves behind; call it
 * only under the lock). Returns the number deleted, -1 on error (err filled). */
int train_remove_tmp(const char *run_dir, char *err, size_t errlen);

/* "<a>/<b>" into buf; NULL when it does not fit. */
char *train_join(char *buf, size_t n, const char *a, const char *b);

/* 1 when path exists (any type). */
int train_exists(const char *path);

/* Whether dir may become a fresh run's directory: 1 when it is missing (or not a directory: creating it then
 * fails with the reason) or holds only what a run that was
 * starting leaves before its config.ini (the lock, *.tmp files, a checkpoints/ with nothing else), 0 when it
 * holds anything else (what, n bytes, gets the first such name), -1 when it cannot be read (what gets the
 * reason). */
int train_dir_blank(const char *dir, char *what, size_t n);

/* The number of checkpoints set aside in <run_dir>/checkpoints ("iter-NNNNNN.h5.<reason>": *.corrupt,
 * *.abandoned, ...; *.tmp not counted): they prove that the run had checkpoints. -1 on error. */
int train_count_set_aside(const char *run_dir, char *err, size_t errlen);

/* Starting a run again: creates <run_dir>/restart-<k> (the first k free; its path into sub, n bytes) and
 * moves into it every file of run_dir but the lock, *.tmp, checkpoints/ and earlier restart-* directories,
 * and the set-aside checkpoints (into restart-<k>/checkpoints/). Nothing is deleted. Returns the number
 * moved, -1 on error (err filled). */
int train_move_aside(const char *run_dir, char *sub, size_t n, char *err, size_t errlen);

#endif
