/* mpi_train.c — the MPI learner and self-play workers (contract in mpi_train.h). */
#include "train/mpi_train.h"

#include <stdlib.h>

int mpit_launched(void)
{
#ifdef SOWZERO_MPI
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) >= 2)
            return 1;
    }
#endif
    return 0;
}

#ifdef SOWZERO_MPI
#include <inttypes.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "eval/tbase.h"
#include "selfplay/game_selfplay.h"
#include "selfplay/selfplay.h"
#include "train/mpi_wire.h"
#include "train/rundir.h"
#include "train/train_internal.h"

enum { TAG_NET = 1, TAG_SAMPLES = 2, TAG_STOP = 3, TAG_BYE = 4 };

/* What one worker sent: per iteration (cur) and in this session (tot). */
typedef struct {
    int64_t samples, games, dropped, messages, bytes;
} wcount;

struct mpit_learner {
    const cfg_config *cfg;
    int nw;                     /* workers: ranks 1..nw */
    volatile sig_atomic_t *stop;
    size_t cap;                 /* bytes of one samples receive buffer */
    unsigned char **rbuf;       /* [nw] */
    MPI_Request *rreq;          /* [nw]: the posted receive of each worker (any tag) */
    unsigned char **nbuf;       /* [nw]: the net being sent to each worker */
    size_t nbytes;
    MPI_Request *nreq;          /* [nw] */
    int64_t *sent;              /* [nw]: version of the last net sent, -1 = none */
    int *bye;                   /* [nw] */
    wcount *cur;
    int *idx;
    MPI_Status *sts;
    FILE *csv;
    double t0;
    double last_end;            /* when the previous iteration's collection ended, 0 = none yet */
};

/* snprintf into an error buffer; a long message is cut, which is what the buffer's size is for. */
static void errf(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap(long us)
{
    struct timespec ts = {0, us * 1000L};
    nanosleep(&ts, NULL);
}

/* err gets "what: MPI's message"; returns -1. */
static int mpi_fail(char *err, size_t n, int code, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error %d", code);
    errf(err, n, "%s: %s", what, msg);
    return -1;
}

int mpit_init(int *rank, int *size, char *err)
{
    int provided, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, MPIT_ERRLEN, rc, "MPI_Init_thread");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    if (provided < MPI_THREAD_FUNNELED) {
        errf(err, MPIT_ERRLEN, "the MPI library offers no MPI_THREAD_FUNNELED (self-play runs threads)");
        return -1;
    }
    return 0;
}

void mpit_finalize(void)
{
    MPI_Finalize();
}

void mpit_abort(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
}

/* ---- learner ---- */

static int post_recv(mpit_learner *l, int w, char *err, size_t n)
{
    int rc = MPI_Irecv(l->rbuf[w], (int)l->cap, MPI_BYTE, w + 1, MPI_ANY_TAG, MPI_COMM_WORLD, &l->rreq[w]);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, n, rc, "MPI_Irecv");
}

mpit_learner *mpit_learner_create(const cfg_config *cfg, int size, volatile sig_atomic_t *stop, char *err)
{
    mpit_learner *l = calloc(1, sizeof *l);
    int nw = size - 1;
    if (!l || nw < 1) {
        errf(err, MPIT_ERRLEN, nw < 1 ? "an MPI job needs 2 or more ranks" : "out of memory");
        free(l);
        return NULL;
    }
    l->cfg = cfg;
    l->nw = nw;
    l->stop = stop;
    l->t0 = now();
    l->cap = mpiw_samples_size(cfg->net.input_dim, cfg->net.n_policy, cfg->net.n_value, cfg->mpi.samples_per_message);
    l->rbuf = calloc((size_t)nw, sizeof *l->rbuf);
    l->nbuf = calloc((size_t)nw, sizeof *l->nbuf);
    l->rreq = malloc((size_t)nw * sizeof *l->rreq);
    l->nreq = malloc((size_t)nw * sizeof *l->nreq);
    l->sent = malloc((size_t)nw * sizeof *l->sent);
    l->bye = calloc((size_t)nw, sizeof *l->bye);
    l->cur = calloc((size_t)nw, sizeof *l->cur);
    l->idx = malloc((size_t)nw * sizeof *l->idx);
    l->sts = malloc((size_t)nw * sizeof *l->sts);
    int ok = l->rbuf && l->nbuf && l->rreq && l->nreq && l->sent && l->bye && l->cur && l->idx && l->sts;
    for (int w = 0; ok && w < nw; w++) {
        l->rreq[w] = l->nreq[w] = MPI_REQUEST_NULL;
        l->sent[w] = -1;
        ok = (l->rbuf[w] = malloc(l->cap)) != NULL;
    }
    if (!ok) {
        errf(err, MPIT_ERRLEN, "out of memory for %d workers' receive buffers (%zu bytes each)", nw, l->cap);
        mpit_learner_free(l);
        return NULL;
    }
    for (int w = 0; w < nw; w++)
        if (post_recv(l, w, err, MPIT_ERRLEN) != 0) {
            mpit_learner_free(l);
            return NULL;
        }
    return l;
}

void mpit_learner_free(mpit_learner *l)
{
    if (!l)
        return;
    for (int w = 0; w < l->nw; w++) {
        /* Only after mpit_learner_finish are all requests complete; otherwise the job is ending. */
        if (l->rbuf && l->rreq && l->rreq[w] != MPI_REQUEST_NULL) {
            MPI_Cancel(&l->rreq[w]);
            MPI_Request_free(&l->rreq[w]);
        }
        if (l->rbuf)
            free(l->rbuf[w]);
        if (l->nbuf)
            free(l->nbuf[w]);
    }
    if (l->csv)
        fclose(l->csv);
    free(l->rbuf);
    free(l->nbuf);
    free(l->rreq);
    free(l->nreq);
    free(l->sent);
    free(l->bye);
    free(l->cur);
    free(l->idx);
    free(l->sts);
    free(l);
}

/* The current net to every worker whose previous net has gone (at most one send in flight each). */
static int send_nets(mpit_learner *l, const nn_net *net, int64_t version, char *err, size_t n)
{
    for (int w = 0; w < l->nw; w++) {
        if (l->sent[w] == version || l->bye[w])
            continue;
        int done = 1, rc = MPI_SUCCESS;
        if (l->nreq[w] != MPI_REQUEST_NULL)
            rc = MPI_Test(&l->nreq[w], &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, n, rc, "sending a net");
        if (!done)
            continue;
        mpiw_pack_net(net, version, l->nbuf[w]);
        rc = MPI_Isend(l->nbuf[w], (int)l->nbytes, MPI_BYTE, w + 1, TAG_NET, MPI_COMM_WORLD, &l->nreq[w]);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, n, rc, "MPI_Isend of a net");
        l->sent[w] = version;
    }
    return 0;
}

/* One completed receive from worker w: samples (added to rb when fresh enough; rb NULL: counted as late),
 * or its BYE. Reposts the receive unless it was the BYE. 0 or -1 with err. */
static int take_message(mpit_learner *l, int w, const MPI_Status *s, int64_t version, replay_buffer *rb,
                        int64_t *games, int64_t *samples, char *err, size_t n)
{
    int len = 0;
    MPI_Get_count(s, MPI_BYTE, &len);
    if (s->MPI_TAG == TAG_BYE) {
        if (rb) {
            errf(err, n, "worker rank %d left the job before the learner's stop", w + 1);
            return -1;
        }
        l->bye[w] = 1;
        return 0;
    }
    mpiw_samples_head h;
    char merr[MPIW_ERRLEN];
    if (s->MPI_TAG != TAG_SAMPLES || mpiw_read_samples_head(l->rbuf[w], (size_t)len, &h, merr) != MPIW_OK) {
        errf(err, n, "worker rank %d sent a bad message (tag %d, %d bytes): %s", w + 1, s->MPI_TAG, len,
                 s->MPI_TAG != TAG_SAMPLES ? "unknown tag" : merr);
        return -1;
    }
    wcount *c = &l->cur[w];
    c->messages++;
    c->bytes += len;
    if (!rb) {
        *samples += h.n;
    } else if (version - h.net_iteration > l->cfg->mpi.max_staleness || h.net_iteration > version) {
        c->dropped += h.n;
    } else if (mpiw_unpack_samples(l->rbuf[w], (size_t)len, rb, merr) != MPIW_OK) {
        errf(err, n, "worker rank %d: %s", w + 1, merr);
        return -1;
    } else {
        c->samples += h.n;
        c->games += h.games;
        *samples += h.n;
        *games += h.games;
    }
    return post_recv(l, w, err, n);
}

/* Waits (polling, so the stop flag is seen) for completed receives and hands each to take_message. Returns
 * the number taken (0 when none within one poll), or -1 with err. */
static int poll_messages(mpit_learner *l, int64_t version, replay_buffer *rb, int64_t *games, int64_t *samples,
                         char *err, size_t n)
{
    int out = 0, rc = MPI_Testsome(l->nw, l->rreq, &out, l->idx, l->sts);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, n, rc, "receiving samples");
    if (out == MPI_UNDEFINED || out == 0) {
        nap(100);
        return 0;
    }
    for (int k = 0; k < out; k++)
        if (take_message(l, l->idx[k], &l->sts[k], version, rb, games, samples, err, n) != 0)
            return -1;
    return out;
}

/* One line per worker of what this iteration received (the header when the file is new). */
static void log_iteration(mpit_learner *l, const char *run_dir, int64_t iteration, double start, double collect)
{
    if (!l->csv) {
        char path[TRAIN_PATH_LEN + 32];
        train_join(path, sizeof path, run_dir, "mpi.csv");
        struct stat sb;
        int fresh = stat(path, &sb) != 0 || sb.st_size == 0;
        if (!(l->csv = fopen(path, "a")))
            return; /* a log, not part of the run's state: training goes on without it */
        if (fresh)
            fprintf(l->csv, "iteration,worker_rank,net_sent,samples,games,dropped_stale,messages,bytes,start_s,"
                            "collect_s\n");
    }
    for (int w = 0; w < l->nw; w++) {
        const wcount *c = &l->cur[w];
        fprintf(l->csv, "%" PRId64 ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                ",%.4f,%.4f\n", iteration, w + 1, l->sent[w], c->samples, c->games, c->dropped, c->messages,
                c->bytes, start, collect);
    }
    fflush(l->csv);
}

int mpit_learner_selfplay(void *ud, const char *run_dir, const nn_net *net, int64_t net_iteration,
                          replay_buffer *rb, selfplay_stats *st, char *err)
{
    mpit_learner *l = ud;
    double t0 = now();
    if (!l->nbuf[0]) {
        l->nbytes = mpiw_net_size(nn_param_count(net));
        for (int w = 0; w < l->nw; w++)
            if (!(l->nbuf[w] = malloc(l->nbytes))) {
                errf(err, MCTS_ERRLEN, "out of memory for the net buffers (%zu bytes each)", l->nbytes);
                return MCTS_ENOMEM;
            }
    }
    memset(l->cur, 0, (size_t)l->nw * sizeof *l->cur);
    int64_t games = 0, samples = 0, want = l->cfg->selfplay.games;
    int rc = send_nets(l, net, net_iteration, err, MCTS_ERRLEN);
    while (rc >= 0 && games < want && !(l->stop && *l->stop)) {
        rc = poll_messages(l, net_iteration, rb, &games, &samples, err, MCTS_ERRLEN);
        if (rc >= 0)
            rc = send_nets(l, net, net_iteration, err, MCTS_ERRLEN); /* workers whose last net just went */
    }
    if (rc < 0)
        return MCTS_EEVAL;
    double end = now(), t = end - t0;
    log_iteration(l, run_dir, net_iteration + 1, t0 - l->t0, t);
    /* The rate over a whole iteration (the workers kept playing through the last SGD phase): what the
     * cluster delivers, not how fast queued messages were read. */
    double span = l->last_end > 0 ? end - l->last_end : t;
    l->last_end = end;
    *st = (selfplay_stats){.games = (uint64_t)games, .samples = (uint64_t)samples, .seconds = t,
                           .positions_per_s = span > 0 ? (double)samples / span : 0};
    return MCTS_OK;
}

int mpit_learner_finish(mpit_learner *l, double timeout_s, int64_t *late, char *err)
{
    int64_t games = 0;
    *late = 0;
    /* A worker whose message ended the run with an error has no receive posted: its BYE needs one. */
    for (int w = 0; w < l->nw; w++)
        if (!l->bye[w] && l->rreq[w] == MPI_REQUEST_NULL && post_recv(l, w, err, MPIT_ERRLEN) != 0)
            return -1;
    for (int w = 0; w < l->nw; w++) {
        int64_t v = l->sent[w];
        int rc = MPI_Send(&v, 8, MPI_BYTE, w + 1, TAG_STOP, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, MPIT_ERRLEN, rc, "sending the stop");
    }
    double t0 = now();
    for (;;) {
        int left = 0;
        for (int w = 0; w < l->nw; w++)
            left += !l->bye[w];
        if (!left)
            break;
        if (now() - t0 > timeout_s) {
            errf(err, MPIT_ERRLEN, "%d worker%s did not finish within %.0f s of the stop", left,
                     left > 1 ? "s" : "", timeout_s);
            return -1;
        }
        if (poll_messages(l, 0, NULL, &games, late, err, MPIT_ERRLEN) < 0)
            return -1;
    }
    int rc = MPI_Waitall(l->nw, l->nreq, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, MPIT_ERRLEN, rc, "finishing the net sends");
}

/* ---- worker ---- */

typedef struct {
    nn_net *net;
    unsigned char *nbuf;
    size_t nbytes;
    MPI_Request nreq;       /* the posted net receive */
    int64_t version;        /* iteration of the net held, -1 = none yet */
    unsigned char *qbuf[MPIT_QUEUE];
    size_t qcap;
    MPI_Request qreq[MPIT_QUEUE];
} worker;

/* Takes every net that has arrived (the newest wins), reposting the receive. 0 or -1 with err. */
static int take_nets(worker *k, char *err)
{
    for (;;) {
        int done = 0;
        MPI_Status s;
        int rc = MPI_Test(&k->nreq, &done, &s);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, MPIT_ERRLEN, rc, "receiving a net");
        if (!done)
            return 0;
        int len = 0;
        char merr[MPIW_ERRLEN];
        MPI_Get_count(&s, MPI_BYTE, &len);
        if (mpiw_unpack_net(k->nbuf, (size_t)len, k->net, &k->version, merr) != MPIW_OK) {
            errf(err, MPIT_ERRLEN, "the learner's net: %s", merr);
            return -1;
        }
        rc = MPI_Irecv(k->nbuf, (int)k->nbytes, MPI_BYTE, 0, TAG_NET, MPI_COMM_WORLD, &k->nreq);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, MPIT_ERRLEN, rc, "MPI_Irecv of a net");
    }
}

/* A free slot of the send queue, waiting for one when all MPIT_QUEUE are in flight. -1 with err. */
static int free_slot(worker *k, char *err)
{
    for (;;) {
        for (int i = 0; i < MPIT_QUEUE; i++) {
            int done = 1, rc = MPI_SUCCESS;
            if (k->qreq[i] != MPI_REQUEST_NULL)
                rc = MPI_Test(&k->qreq[i], &done, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return mpi_fail(err, MPIT_ERRLEN, rc, "sending samples");
            if (done)
                return i;
        }
        nap(200);
    }
}

/* The round's samples in messages of samples_per_message, its game count on the last. 0 or -1 with err. */
static int send_round(worker *k, const cfg_config *cfg, replay_buffer *rb, int games, char *err)
{
    size_t n = replay_size(rb), spm = (size_t)cfg->mpi.samples_per_message;
    char merr[MPIW_ERRLEN];
    for (size_t from = 0; from < n; from += spm) {
        int slot = free_slot(k, err), cnt = (int)(n - from < spm ? n - from : spm);
        size_t len;
        if (slot < 0)
            return -1;
        if (!k->qbuf[slot] && !(k->qbuf[slot] = malloc(k->qcap))) {
            errf(err, MPIT_ERRLEN, "out of memory for a message buffer (%zu bytes)", k->qcap);
            return -1;
        }
        if (mpiw_pack_samples(rb, from, cnt, from + spm >= n ? games : 0, k->version, k->qbuf[slot], k->qcap, &len,
                              merr) != MPIW_OK) {
            errf(err, MPIT_ERRLEN, "%s", merr);
            return -1;
        }
        int rc = MPI_Isend(k->qbuf[slot], (int)len, MPI_BYTE, 0, TAG_SAMPLES, MPI_COMM_WORLD, &k->qreq[slot]);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, MPIT_ERRLEN, rc, "MPI_Isend of samples");
    }
    /* No progress thread: a message moves only while both sides are inside MPI. Give a collecting learner
     * up to 50 ms to take the round before the next one keeps this rank out of MPI. */
    double t0 = now();
    int all = 0;
    while (!all && now() - t0 < 0.05) {
        int rc = MPI_Testall(MPIT_QUEUE, k->qreq, &all, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, MPIT_ERRLEN, rc, "sending samples");
        if (!all)
            nap(200);
    }
    return 0;
}

int mpit_worker_run(const cfg_config *cfg, int rank, volatile sig_atomic_t *stop, char *err)
{
#if defined(__SSE__)
    /* Flush-to-zero and denormals-are-zero for this rank and its self-play threads, as train_run does for
     * its own (train.c fp_fast_begin: subnormal operands made self-play 2-20x slower). */
    _mm_setcsr(_mm_getcsr() | 0x8040);
#endif
    worker k;
    tb_ref *tb = NULL; /* the learner's tablebase leaves (mcts.tablebase_seeds): each worker builds its own */
    memset(&k, 0, sizeof k);
    k.version = -1;
    k.nreq = MPI_REQUEST_NULL;
    for (int i = 0; i < MPIT_QUEUE; i++)
        k.qreq[i] = MPI_REQUEST_NULL;
    char spec[128], nerr[NN_ERRLEN + MCTS_ERRLEN];
    cfg_rules_spec(cfg, spec, sizeof spec);
    selfplay_config sc = cfg->selfplay;
    sc.games = cfg->mpi.worker_games ? cfg->mpi.worker_games : sc.threads * sc.games_per_thread;
    /* A round's samples: at most max_moves a game (one per ply; with selfplay.surprise_weight at most twice
     * that, as a decision's floor(w) + 1 copies are at most w + 1 and a game's weights sum to its plies),
     * capped to keep the buffer bounded. */
    size_t window = (size_t)sc.games * (size_t)sc.max_moves * (sc.surprise_weight > 0 ? 2 : 1);
    if (window > ((size_t)1 << 22))
        window = (size_t)1 << 22;
    int dim = cfg->net.input_dim, pits = cfg->net.n_policy, nv = cfg->net.n_value;
    k.qcap = mpiw_samples_size(dim, pits, nv, cfg->mpi.samples_per_message);
    k.net = nn_net_create(&cfg->net, 0, nerr);
    replay_buffer *rb = k.net ? replay_create(dim, pits, nv, window, nerr) : NULL;
    int rc = -1;
    int64_t last = -1;
    MPI_Request sreq = MPI_REQUEST_NULL;
    if (!rb || !(k.nbuf = malloc(k.nbytes = mpiw_net_size(nn_param_count(k.net))))) {
        errf(err, MPIT_ERRLEN, "worker rank %d: cannot create its net and buffers: %s", rank,
                 rb ? "out of memory" : nerr);
        goto out;
    }
    game *g = game_create(spec, NULL); /* cfg_check accepted the rules */
    if (tb_supports(g) && cfg->mcts.tablebase_seeds > 0) {
        char kerr[KALAH_ERRLEN];
        double secs = 0;
        tb = tb_acquire_game(g, cfg->mcts.tablebase_seeds, sc.threads, &secs, kerr);
        if (!tb) {
            game_free(g);
            errf(err, MPIT_ERRLEN, "worker rank %d: the endgame database of %d seeds (mcts.tablebase_seeds): %s",
                 rank, cfg->mcts.tablebase_seeds, kerr);
            goto out;
        }
    }
    game_free(g);
    int mrc = MPI_Irecv(k.nbuf, (int)k.nbytes, MPI_BYTE, 0, TAG_NET, MPI_COMM_WORLD, &k.nreq);
    if (mrc == MPI_SUCCESS)
        mrc = MPI_Irecv(&last, 8, MPI_BYTE, 0, TAG_STOP, MPI_COMM_WORLD, &sreq);
    if (mrc != MPI_SUCCESS) {
        mpi_fail(err, MPIT_ERRLEN, mrc, "MPI_Irecv");
        goto out;
    }
    int games = 0;
    for (uint64_t round = 0;;) {
        int stopped = 0;
        if (take_nets(&k, err) != 0)
            goto out;
        if ((mrc = MPI_Test(&sreq, &stopped, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
            mpi_fail(err, MPIT_ERRLEN, mrc, "receiving the stop");
            goto out;
        }
        if (stopped)
            break;
        if (k.version < 0 || (stop && *stop)) { /* no net yet, or signalled: wait for the learner */
            nap(1000);
            continue;
        }
        if (!cfg->mpi.flood || round == 0) {
            selfplay_stats st;
            char serr[MCTS_ERRLEN];
            replay_clear(rb);
            uint64_t seed = train_seed(cfg->run.seed, 16 + (uint64_t)rank, ((uint64_t)k.version << 32) + round);
            if (train_selfplay_round(cfg, spec, &sc, k.net, tb, rb, seed, &st, serr) != MCTS_OK) {
                errf(err, MPIT_ERRLEN, "worker rank %d: self-play failed: %s", rank, serr);
                goto out;
            }
            games = (int)st.games;
        }
        round++;
        if (send_round(&k, cfg, rb, games, err) != 0)
            goto out;
    }
    /* Stopped: the nets already on their way must be received, and every sample sent, before the BYE. */
    while (k.version < last) {
        if (take_nets(&k, err) != 0)
            goto out;
        nap(200);
    }
    MPI_Cancel(&k.nreq);
    MPI_Wait(&k.nreq, MPI_STATUS_IGNORE);
    int slot = free_slot(&k, err);
    if (slot < 0)
        goto out;
    if ((mrc = MPI_Isend(NULL, 0, MPI_BYTE, 0, TAG_BYE, MPI_COMM_WORLD, &k.qreq[slot])) != MPI_SUCCESS ||
        (mrc = MPI_Waitall(MPIT_QUEUE, k.qreq, MPI_STATUSES_IGNORE)) != MPI_SUCCESS) {
        mpi_fail(err, MPIT_ERRLEN, mrc, "the final messages");
        goto out;
    }
    rc = 0;
out:
    tb_release(tb);
    for (int i = 0; i < MPIT_QUEUE; i++)
        free(k.qbuf[i]);
    free(k.nbuf);
    replay_free(rb);
    nn_net_free(k.net);
    return rc;
}
#endif
