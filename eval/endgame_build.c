/* endgame_build.c — filling the endgame database (endgame.h): in memory, or layer by layer into its file
 * when the table is bigger than the memory the build may use. */
#include "eval/endgame.h"
#include "eval/endgame_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define UNKNOWN INT8_MIN

/* Scratch board of arrangement c: the mover is South, stores empty. Returns 1 when the rules say the game
 * is already over there (then F = own row - opponent's row: each side sweeps its own). */
static int board_of(const eg_db *db, const uint8_t *c, kalah_pos *p, int *f_over)
{
    const int m = db->r.pits;
    memset(p, 0, sizeof *p);
    int own = 0, opp = 0;
    for (int k = 0; k < m; k++) {
        p->cell[k] = c[k];
        p->cell[(m + 1 + k) & (KALAH_CELLS - 1)] = c[m + k]; /* & 15: see alphabeta.c */
        own += c[k];
        opp += c[m + k];
    }
    *f_over = own - opp;
    return db->r.end == KALAH_END_EITHER_EMPTY ? (!own || !opp) : !own;
}

/* One arrangement of a batch: its rank and, per move, the store-difference gain, whether the turn passes
 * and the child's rank (or none when the move ends the game). */
typedef struct {
    uint64_t idx;
    int n, over_value, over;
    int gain[KALAH_MAX_PITS], sign[KALAH_MAX_PITS];
    uint64_t child[KALAH_MAX_PITS];
} eg_item;

#define NO_CHILD UINT64_MAX
#define BATCH 64

/* Build order. A move either lowers the number of seeds in the pits (a seed reaches the store, a capture,
 * the end) or keeps it and carries seeds forward inside the mover's row, which raises
 * phi = sum_i c_i * (i mod pits) (a row's seeds weighted by their distance from the row's start; phi
 * ignores whose turn it is). So arrangements are built by seed count n ascending and, within n, by phi
 * descending: every child is then known, and the arrangements of one (n, phi) class are independent —
 * batched with their children prefetched, and shared between threads. */
typedef struct {
    eg_db *db;
    int n, phi, thread, threads;
    int turn;           /* arrangements are dealt round-robin: this worker takes those at turn 0 */
    eg_item batch[BATCH];
    int nb;
    /* The layered build (eg_build_layered): pass 1 takes the moves into the block [b0, b1) of the layers
     * below n; pass 2 those into the last block, the moves that stay in layer n (held in lay, rank ls
     * first) and the game's ends. */
    int pass;           /* 0: the whole table in db->val */
    int8_t *lay;
    const int8_t *blk;
    uint64_t ls, b0, b1;
} eg_worker;

/* Where the build reads the value of rank `child`, or NULL when this pass does not take that move. */
static inline const int8_t *child_value(const eg_worker *w, uint64_t child)
{
    switch (w->pass) {
    case 0:
        return &w->db->val[child];
    case 1:
        return child >= w->b0 && child < w->b1 ? &w->blk[child - w->b0] : NULL;
    default:
        if (child >= w->ls)
            return &w->lay[child - w->ls];
        return child >= w->b0 && child < w->b1 ? &w->blk[child - w->b0] : NULL;
    }
}

static void prepare(const eg_worker *w, const uint8_t *c, eg_item *it)
{
    const eg_db *db = w->db;
    const int m = db->r.pits;
    kalah_pos p;
    it->idx = rank_of(db, c);
    it->n = 0;
    it->over = board_of(db, c, &p, &it->over_value);
    if (it->over)
        return;
    unsigned legal = kalah_legal(&db->r, &p);
    while (legal) {
        int k = __builtin_ctz(legal);
        legal &= legal - 1;
        kalah_pos ch = p;
        kalah_sow(&db->r, &ch, k, NULL);
        int j = it->n++;
        it->gain[j] = (int)ch.cell[m] - (int)ch.cell[2 * m + 1];
        it->sign[j] = ch.side == p.side ? 1 : -1;
        it->child[j] = NO_CHILD;
        if (!ch.over) {
            uint8_t cc[EG_MAXP];
            relative_pits(db, &ch, cc);
            it->child[j] = rank_of(db, cc);
            const int8_t *v = child_value(w, it->child[j]);
            if (v)
                __builtin_prefetch(v);
        }
    }
}

/* The best move's value (pass 0), or the best of the moves this pass takes folded into the layer's entry
 * (passes 1 and 2: UNKNOWN, below every value, until a move is taken). */
static void finish(eg_worker *w, const eg_item *it)
{
    int8_t *out = w->pass ? &w->lay[it->idx - w->ls] : &w->db->val[it->idx];
    if (it->over) {
        if (w->pass != 1)
            *out = (int8_t)it->over_value;
        return;
    }
    int best = w->pass ? *out : -128;
    for (int j = 0; j < it->n; j++) {
        int v = it->gain[j];
        if (it->child[j] != NO_CHILD) {
            const int8_t *cv = child_value(w, it->child[j]);
            if (!cv)
                continue;
            v += it->sign[j] * *cv;
        } else if (w->pass == 1) {
            continue;
        }
        if (v > best)
            best = v;
    }
    *out = (int8_t)best;
}


static void flush(eg_worker *w)
{
    for (int i = 0; i < w->nb; i++)
        finish(w, &w->batch[i]);
    w->nb = 0;
}

static inline int floor_div(int a, int b) /* b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static void visit(eg_worker *w, uint8_t *c, int i, int left, int wleft)
{
    const int m = w->db->r.pits, cells = w->db->cells;
    const int wi = i % m;
    if (i == cells - 1) {
        if (left * wi != wleft)
            return;
        c[i] = (uint8_t)left;
        if (w->turn == 0) {
            prepare(w, c, &w->batch[w->nb++]);
            if (w->nb == BATCH)
                flush(w);
        }
        if (++w->turn == w->threads)
            w->turn = 0;
        return;
    }
    /* Pits i+1.. carry the consecutive weights lo..M (M = m-1), so r seeds there can make any weight
     * between r*lo and r*M. With v seeds here (r = left - v, remaining weight wleft - v*wi) that reads
     *   v*(lo - wi) >= lo*left - wleft   and   v*(M - wi) <= M*left - wleft,
     * which bounds v directly. */
    const int lo = i + 1 < m ? 0 : (i + 1) % m, M = m - 1;
    const int A = lo - wi, Ca = lo * left - wleft, B = M - wi, Cb = M * left - wleft;
    int vmin = 0, vmax = left;
    if (A > 0) {
        int t = -floor_div(-Ca, A); /* ceil(Ca / A) */
        if (t > vmin)
            vmin = t;
    } else if (A < 0) {
        if (-Ca < 0)
            return;
        int t = floor_div(-Ca, -A);
        if (t < vmax)
            vmax = t;
    } else if (Ca > 0) {
        return;
    }
    if (B > 0) {
        if (Cb < 0)
            return;
        int t = Cb / B;
        if (t < vmax)
            vmax = t;
    } else if (Cb < 0) {
        return;
    }
    for (int v = vmin; v <= vmax; v++) {
        c[i] = (uint8_t)v;
        visit(w, c, i + 1, left - v, wleft - v * wi);
    }
}

/* Threads meet after every class. A hand-made barrier (mutex + condition) rather than
 * pthread_barrier_t, because the number of threads is only known once they have all started. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int parties;         /* 0 until the starting thread has counted the helpers that really started */
    int waiting;
    unsigned long phase;
} eg_gate;

static void gate_wait(eg_gate *g)
{
    pthread_mutex_lock(&g->mu);
    unsigned long phase = g->phase;
    if (++g->waiting == g->parties) {
        g->waiting = 0;
        g->phase++;
        pthread_cond_broadcast(&g->cv);
    } else {
        while (g->phase == phase)
            pthread_cond_wait(&g->cv, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
}

/* What the threads of a layered build share (eg_build_layered). */
typedef struct {
    int8_t *lay;        /* the layer being built, rank ls first */
    int8_t *blk;        /* one block of the layers below, read from the file */
    uint64_t block;     /* entries blk holds */
    int fd;
    off_t offset;       /* the file offset of rank 0 */
    int failed;         /* errno of a read or write that failed: set by thread 0 before a gate */
    unsigned long crc;  /* of the layers written so far */
} eg_layers;

typedef struct {
    eg_worker w;
    eg_gate *gate;
    eg_layers *layers;  /* NULL: the whole table in db->val */
} eg_thread;

/* This worker's share of the class (n, phi). */
static void sweep(eg_worker *w, int n, int phi)
{
    uint8_t c[EG_MAXP];
    w->n = n;
    w->phi = phi;
    w->turn = (w->threads - w->thread) % w->threads;
    memset(c, 0, sizeof c);
    visit(w, c, 0, n, phi);
    flush(w);
}

static void build_all(eg_thread *t)
{
    eg_worker *w = &t->w;
    const int m = w->db->r.pits;
    for (int n = 0; n <= w->db->n; n++) {
        for (int phi = n * (m - 1); phi >= 0; phi--) {
            sweep(w, n, phi);
            if (w->threads > 1)
                gate_wait(t->gate);
        }
    }
}

/* crc continued over n bytes (zlib's crc32 takes at most UINT_MAX a call). */
static unsigned long crc_more(unsigned long crc, const int8_t *p, uint64_t n)
{
    while (n) {
        uInt k = n < (1u << 30) ? (uInt)n : 1u << 30;
        crc = crc32(crc, (const Bytef *)p, k);
        p += k;
        n -= k;
    }
    return crc;
}

/* 0 or the errno of a short pread/pwrite. */
static int file_io(int fd, int8_t *buf, uint64_t n, off_t at, int write)
{
    while (n) {
        size_t k = n < ((size_t)1 << 30) ? (size_t)n : (size_t)1 << 30;
        ssize_t got = write ? pwrite(fd, buf, k, at) : pread(fd, buf, k, at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? errno : EIO;
        buf += got;
        at += got;
        n -= (uint64_t)got;
    }
    return 0;
}

/* Layer n (every arrangement of exactly n seeds: ranks ls..le-1, see endgame.h) depends only on itself and
 * the layers below, which are final in the file. Those are read a block at a time; pass 1 folds each
 * arrangement's moves into a block into its entry, for every block but the last; pass 2 takes the last
 * block's moves together with the moves that stay in the layer (the classes by phi, as build_all) and the
 * game's ends. So memory holds one layer and one block, and the file is only read and written in order: a
 * block join instead of random reads of a table the page cache cannot hold (the cost: every block but the
 * last sows the layer's moves once more than a build in memory). */
static void build_layers(eg_thread *t)
{
    eg_worker *w = &t->w;
    eg_layers *L = t->layers;
    const eg_db *db = w->db;
    const int m = db->r.pits, cells = db->cells;
    w->lay = L->lay;
    w->blk = L->blk;
    for (int n = 0; n <= db->n && !L->failed; n++) {
        const uint64_t ls = db->binom[n + cells - 1][cells], le = db->binom[n + cells][cells];
        w->ls = ls;
        if (w->thread == 0)
            memset(L->lay, UNKNOWN, le - ls);
        gate_wait(t->gate);
        w->pass = 1;
        for (uint64_t b0 = 0;; b0 = w->b1) {
            w->b0 = b0;
            w->b1 = ls - b0 < L->block ? ls : b0 + L->block;
            if (w->thread == 0 && w->b1 > b0)
                L->failed = file_io(L->fd, L->blk, w->b1 - b0, L->offset + (off_t)b0, 0);
            gate_wait(t->gate);
            if (L->failed)
                return;
            if (w->b1 == ls) /* the last block (or none below): pass 2 takes it */
                break;
            for (int phi = n * (m - 1); phi >= 0; phi--)
                sweep(w, n, phi);
            gate_wait(t->gate); /* before thread 0 reads the next block over this one */
        }
        w->pass = 2;
        for (int phi = n * (m - 1); phi >= 0; phi--) {
            sweep(w, n, phi);
            gate_wait(t->gate);
        }
        if (w->thread == 0 && !(L->failed = file_io(L->fd, L->lay, le - ls, L->offset + (off_t)ls, 1)))
            L->crc = crc_more(L->crc, L->lay, le - ls);
        gate_wait(t->gate);
    }
}

static void *build_thread(void *arg)
{
    eg_thread *t = arg;
    /* Wait for the final count of threads (and so this worker's share). */
    pthread_mutex_lock(&t->gate->mu);
    while (!t->gate->parties)
        pthread_cond_wait(&t->gate->cv, &t->gate->mu);
    t->w.threads = t->gate->parties;
    pthread_mutex_unlock(&t->gate->mu);
    if (t->layers)
        build_layers(t);
    else
        build_all(t);
    return NULL;
}

/* Runs the build on `threads` threads (the caller's included). 0, or -1 when out of memory. */
static int run_threads(eg_db *db, int threads, eg_layers *layers)
{
    if (threads < 1)
        threads = 1;
    eg_thread *ts = calloc((size_t)threads, sizeof *ts);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    if (!ts || !ids) {
        free(ts);
        free(ids);
        return -1;
    }
    eg_gate gate = {.parties = 0};
    pthread_mutex_init(&gate.mu, NULL);
    pthread_cond_init(&gate.cv, NULL);
    int started = 0;
    for (int i = 0; i < threads; i++) {
        ts[i].w.db = db;
        ts[i].w.thread = i;
        ts[i].gate = &gate;
        ts[i].layers = layers;
    }
    for (int i = 1; i < threads; i++) {
        if (pthread_create(&ids[i], NULL, build_thread, &ts[i]) != 0)
            break;
        started++;
    }
    pthread_mutex_lock(&gate.mu);
    gate.parties = 1 + started;
    pthread_cond_broadcast(&gate.cv);
    pthread_mutex_unlock(&gate.mu);
    build_thread(&ts[0]);
    for (int i = 1; i <= started; i++)
        pthread_join(ids[i], NULL);
    pthread_cond_destroy(&gate.cv);
    pthread_mutex_destroy(&gate.mu);
    free(ts);
    free(ids);
    return 0;
}

int eg_build_values(eg_db *db, int threads)
{
    memset(db->val, UNKNOWN, db->size);
    return run_threads(db, threads, NULL);
}

uint64_t eg_layered_floor(int pits, int max_seeds)
{
    const uint64_t all = eg_entries(pits, max_seeds), below = eg_entries(pits, max_seeds - 1);
    return all - below + (below < EG_MIN_BLOCK ? below : EG_MIN_BLOCK); /* layers grow with the seeds */
}

int eg_layered_fits(const eg_db *db, uint64_t memory, char *err)
{
    const uint64_t floor = eg_layered_floor(db->r.pits, db->n);
    if (memory >= floor)
        return 0;
    if (err)
        snprintf(err, KALAH_ERRLEN, "building %d seeds layer by layer needs at least %.1f MB of memory (the layer "
                 "of %d seeds alone takes %.1f MB); %.1f MB were allowed",
                 db->n, 1e-6 * (double)floor, db->n,
                 1e-6 * (double)(eg_entries(db->r.pits, db->n) - eg_entries(db->r.pits, db->n - 1)),
                 1e-6 * (double)memory);
    return -1;
}

int eg_build_layered(eg_db *db, int threads, int fd, off_t offset, uint64_t memory, unsigned long *crc,
                     char *err)
{
    const int cells = db->cells;
    const uint64_t below = db->binom[db->n + cells - 1][cells], top = db->size - below;
    if (eg_layered_fits(db, memory, err) != 0)
        return -1;
    eg_layers L = {.fd = fd, .offset = offset, .crc = crc32(0L, Z_NULL, 0)};
    L.block = memory - top < below ? memory - top : below;
    L.lay = eg_alloc_values(top);
    L.blk = eg_alloc_values(L.block);
    if (!L.lay || !L.blk || run_threads(db, threads, &L) != 0) {
        free(L.lay);
        free(L.blk);
        if (err)
            snprintf(err, KALAH_ERRLEN, "out of memory");
        return -1;
    }
    free(L.lay);
    free(L.blk);
    *crc = L.crc;
    if (L.failed && err)
        snprintf(err, KALAH_ERRLEN, "%s", strerror(L.failed));
    return L.failed ? -1 : 0;
}
