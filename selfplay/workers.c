/* workers.c — clock and worker threads of the self-play drivers (workers.h). */
#include "selfplay/workers.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

double sp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int sp_run_threads(int n, void *base, size_t stride, void *(*fn)(void *), atomic_int *abort)
{
    pthread_t *th = calloc((size_t)(n > 0 ? n : 1), sizeof *th);
    if (!th) {
        atomic_store(abort, 1);
        return 0;
    }
    int started = 0;
    for (; started < n; started++)
        if (pthread_create(&th[started], NULL, fn, (char *)base + (size_t)started * stride) != 0) {
            atomic_store(abort, 1);
            break;
        }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    return started;
}
