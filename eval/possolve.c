/* possolve.c — threads solving a position set (possolve.h). */
#include "eval/possolve.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "env/errbuf.h"
#include "eval/alphabeta.h"

#define set_err(err, ...) errbuf_set(err, PS_ERRLEN, __VA_ARGS__)

typedef struct {
    ps_set *set;
    const ps_solve_opts *o;
    size_t *order;           /* entry indices in solving order */
    size_t n, next, done;
    pthread_mutex_t mu;
    int failed;              /* an ab_solve_moves error code, 0 if none */
    size_t failed_at;
} job;

typedef struct {
    job *j;
    ab_search *ab;
    uint64_t nodes;
} worker;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *work(void *arg)
{
    worker *w = arg;
    job *j = w->j;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        size_t k = j->failed ? j->n : j->next++;
        pthread_mutex_unlock(&j->mu);
        if (k >= j->n)
            break;
        ps_entry *e = ps_get(j->set, j->order[k]);
        double t0 = now_s();
        uint64_t nodes = 0;
        int rc = ab_solve_moves(w->ab, &e->pos, e->values, &nodes);
        e->seconds = now_s() - t0;
        e->nodes = nodes;
        w->nodes += nodes;
        pthread_mutex_lock(&j->mu);
        if (rc != AB_OK) {
            j->failed = rc;
            j->failed_at = j->order[k];
        } else {
            e->solved = 1;
            j->done++;
            if (j->o->progress)
                j->o->progress(j->o->ctx, j->done, j->n, e);
        }
        pthread_mutex_unlock(&j->mu);
    }
    return NULL;
}

/* Solving order: seeds in the pits descending, then the set's order (qsort is not stable). */
typedef struct {
    int seeds;
    size_t idx;
} order_key;

static int by_seeds_desc(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    return x->seeds != y->seeds ? y->seeds - x->seeds : (x->idx > y->idx) - (x->idx < y->idx);
}

int ps_solve(ps_set *s, const ps_solve_opts *o, ps_solve_stats *stats, char *err)
{
    if (!s || !o || o->threads < 1 || o->threads > 64 || o->tt_mb < 1 || o->endgame < 0 || o->endgame > 127) {
        set_err(err, "solving: threads must be 1..64, tt_mb >= 1, endgame 0..127");
        return PS_EINVAL;
    }
    const kalah_rules *r = ps_rules(s);
    if (o->endgame > 0 && r->max_sows > 0) {
        set_err(err, "endgame: not available with max_sows=%d (the value then depends on the sow count)",
                r->max_sows);
        return PS_EINVAL;
    }
    if (stats)
        memset(stats, 0, sizeof *stats);
    job j = {.set = s, .o = o};
    j.order = malloc((ps_count(s) + 1) * sizeof *j.order);
    worker *ws = calloc((size_t)o->threads, sizeof *ws);
    pthread_t *ids = calloc((size_t)o->threads, sizeof *ids);
    int rc = j.order && ws && ids ? PS_OK : PS_ENOMEM;
    if (rc != PS_OK)
        set_err(err, "out of memory");
    order_key *keys = rc == PS_OK ? malloc((ps_count(s) + 1) * sizeof *keys) : NULL;
    if (rc == PS_OK && !keys) {
        set_err(err, "out of memory");
        rc = PS_ENOMEM;
    }
    for (size_t i = 0; rc == PS_OK && i < ps_count(s); i++)
        if (!ps_get(s, i)->solved)
            keys[j.n++] = (order_key){ps_seeds_in_pits(r, &ps_get(s, i)->pos), i};
    if (rc == PS_OK) {
        qsort(keys, j.n, sizeof *keys, by_seeds_desc);
        for (size_t k = 0; k < j.n; k++)
            j.order[k] = keys[k].idx;
    }
    free(keys);
    size_t mb = o->tt_mb / (size_t)o->threads;
    if (mb < 1)
        mb = 1;
    char aerr[KALAH_ERRLEN];
    for (int t = 0; rc == PS_OK && t < o->threads; t++) {
        ws[t].j = &j;
        ws[t].ab = ab_create(r, mb, aerr);
        if (!ws[t].ab) {
            set_err(err, "transposition table of %zu MiB (thread %d): %s", mb, t + 1, aerr);
            rc = PS_ENOMEM;
        }
    }
    double t0 = now_s();
    if (rc == PS_OK && o->endgame > 0) {
        ab_set_threads(ws[0].ab, o->threads);
        if (ab_set_endgame(ws[0].ab, o->endgame, aerr) != AB_OK) {
            set_err(err, "endgame database of %d seeds: %s", o->endgame, aerr);
            rc = PS_ENOMEM;
        }
        for (int t = 1; rc == PS_OK && t < o->threads; t++)
            if (ab_share_endgame(ws[t].ab, ws[0].ab, aerr) != AB_OK) {
                set_err(err, "endgame database: %s", aerr);
                rc = PS_EFAIL;
            }
    }
    double t1 = now_s();
    int started = 0;
    if (rc == PS_OK) {
        pthread_mutex_init(&j.mu, NULL);
        for (int t = 1; t < o->threads; t++) {
            if (pthread_create(&ids[t], NULL, work, &ws[t]) != 0)
                break;
            started++;
        }
        work(&ws[0]);
        for (int t = 1; t <= started; t++)
            pthread_join(ids[t], NULL);
        pthread_mutex_destroy(&j.mu);
        if (j.failed) {
            set_err(err, "solving position %zu failed (search code %d)", j.failed_at + 1, j.failed);
            rc = PS_EFAIL;
        }
    }
    if (stats) {
        stats->endgame_seconds = t1 - t0;
        stats->seconds = now_s() - t1;
        stats->threads = 1 + started;
        for (int t = 0; t < o->threads && ws; t++)
            stats->nodes += ws[t].nodes;
    }
    /* The borrowers go first: thread 0's search owns the database. */
    for (int t = o->threads - 1; ws && t >= 0; t--)
        ab_free(ws[t].ab);
    free(ws);
    free(ids);
    free(j.order);
    return rc;
}
