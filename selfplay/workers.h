/* workers.h — what the threaded drivers (game_selfplay.c, the evaluators' timers, MPI training) share: the
 * monotonic clock their statistics use and starting / joining their worker threads. Internal to selfplay/. */
#ifndef SOWZERO_SELFPLAY_WORKERS_H
#define SOWZERO_SELFPLAY_WORKERS_H

#include <stdatomic.h>
#include <stddef.h>

/* Seconds on the monotonic clock (CLOCK_MONOTONIC): differences are wall time. */
double sp_now(void);

/* Runs fn(base + i · stride) for i = 0..n-1 on n pthreads and joins them all. If a thread cannot be started,
 * sets *abort (the running workers are expected to watch it and stop) and starts no more. Returns the number
 * of threads that ran: n, or fewer after a failed start. */
int sp_run_threads(int n, void *base, size_t stride, void *(*fn)(void *), atomic_int *abort);

#endif
