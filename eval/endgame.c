/* endgame.c — building and probing the endgame database (endgame.h). */
#include "eval/endgame.h"
#include "eval/endgame_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define UNKNOWN INT8_MIN

static void set_err(char *err, const char *msg)
{
    if (err)
        snprintf(err, KALAH_ERRLEN, "%s", msg);
}

/* Rank of the arrangement c (see endgame.h). bt is the binomial table stored by column: bt[(i+1) * rows + s]
 * = C(s, i+1), so the loop walks forward through memory. */
static inline uint64_t rank_of(const eg_db *db, const uint8_t *c)
{
    const uint64_t *bt = db->bt;
    const size_t rows = db->rows;
    const int cells = db->cells;
    uint64_t r = 0;
    size_t s = (size_t)-1;
    for (int i = 0; i < cells; i++) {
        s += (size_t)c[i] + 1;
        r += bt[(size_t)(i + 1) * rows + s];
    }
    return r;
}

/* The pits of p in mover-first order. */
static inline void relative_pits(const eg_db *db, const kalah_pos *p, uint8_t *c)
{
    const int m = db->r.pits, own = p->side ? m + 1 : 0, opp = p->side ? 0 : m + 1;
    for (int k = 0; k < m; k++) {
        c[k] = p->cell[own + k];
        c[m + k] = p->cell[opp + k];
    }
}

const int8_t *eg_value_at(const eg_db *db, const kalah_pos *p)
{
    uint8_t c[EG_MAXP];
    relative_pits(db, p, c);
    return &db->val[rank_of(db, c)];
}

int eg_value(const eg_db *db, const kalah_pos *p) { return *eg_value_at(db, p); }

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

static void prepare(const eg_db *db, const uint8_t *c, eg_item *it)
{
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
            __builtin_prefetch(&db->val[it->child[j]]);
        }
    }
}

static void finish(eg_db *db, const eg_item *it)
{
    int best = it->over_value;
    if (!it->over) {
        best = -128;
        for (int j = 0; j < it->n; j++) {
            int v = it->gain[j];
            if (it->child[j] != NO_CHILD)
                v += it->sign[j] * db->val[it->child[j]];
            if (v > best)
                best = v;
        }
    }
    db->val[it->idx] = (int8_t)best;
}

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
} eg_worker;

static void flush(eg_worker *w)
{
    for (int i = 0; i < w->nb; i++)
        finish(w->db, &w->batch[i]);
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
            prepare(w->db, c, &w->batch[w->nb++]);
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

typedef struct {
    eg_worker w;
    eg_gate *gate;
} eg_thread;

static void *build_thread(void *arg)
{
    eg_thread *t = arg;
    eg_worker *w = &t->w;
    const int m = w->db->r.pits;
    uint8_t c[EG_MAXP];
    /* Wait for the final count of threads (and so this worker's share). */
    pthread_mutex_lock(&t->gate->mu);
    while (!t->gate->parties)
        pthread_cond_wait(&t->gate->cv, &t->gate->mu);
    w->threads = t->gate->parties;
    pthread_mutex_unlock(&t->gate->mu);
    for (int n = 0; n <= w->db->n; n++) {
        for (int phi = n * (m - 1); phi >= 0; phi--) {
            w->n = n;
            w->phi = phi;
            w->turn = (w->threads - w->thread) % w->threads;
            memset(c, 0, sizeof c);
            visit(w, c, 0, n, phi);
            flush(w);
            if (w->threads > 1)
                gate_wait(t->gate);
        }
    }
    return NULL;
}

int eg_build_values(eg_db *db, int threads)
{
    if (threads < 1)
        threads = 1;
    memset(db->val, UNKNOWN, db->size);
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

eg_db *eg_alloc_tables(const kalah_rules *r, int max_seeds, char *err)
{
    eg_db *db = calloc(1, sizeof *db);
    if (!db) {
        set_err(err, "out of memory");
        return NULL;
    }
    db->r = *r;
    db->n = max_seeds;
    db->cells = 2 * r->pits;
    if (eg_entries(r->pits, max_seeds) > EG_MAX_BYTES) { /* before the binomials, which would overflow */
        eg_free(db);
        set_err(err, "endgame database would exceed 1 TiB; use fewer seeds");
        return NULL;
    }
    int rows = db->n + db->cells + 1;
    db->binom = calloc((size_t)rows, sizeof *db->binom);
    db->bt = calloc((size_t)rows * (EG_MAXP + 1), sizeof *db->bt);
    if (!db->binom || !db->bt) {
        eg_free(db);
        set_err(err, "out of memory");
        return NULL;
    }
    for (int a = 0; a < rows; a++) {
        db->binom[a][0] = 1;
        for (int b = 1; b <= EG_MAXP && b <= a; b++)
            db->binom[a][b] = db->binom[a - 1][b - 1] + (b < a ? db->binom[a - 1][b] : 0);
    }
    db->rows = (size_t)rows;
    for (int a = 0; a < rows; a++)
        for (int b = 0; b <= EG_MAXP; b++)
            db->bt[(size_t)b * (size_t)rows + (size_t)a] = db->binom[a][b];
    db->size = (size_t)db->binom[db->n + db->cells][db->cells];
    return db;
}

int eg_check_request(const kalah_rules *r, int *max_seeds, char *err)
{
    if (kalah_rules_check(r, err) != KALAH_OK)
        return -1;
    if (r->max_sows > 0) {
        set_err(err, "no endgame database with max_sows > 0: the value then depends on the sow count");
        return -1;
    }
    if (*max_seeds < 1 || *max_seeds > 127) {
        set_err(err, "endgame database seeds out of range 1..127");
        return -1;
    }
    int total = 2 * r->pits * r->seeds;
    if (*max_seeds > total)
        *max_seeds = total;
    return 0;
}

int8_t *eg_alloc_values(size_t bytes)
{
    const size_t huge = (size_t)2 << 20, len = (bytes + huge - 1) / huge * huge;
    if (bytes < huge)
        return malloc(bytes ? bytes : 1);
    int8_t *v = aligned_alloc(huge, len);
#ifdef MADV_HUGEPAGE
    if (v)
        madvise(v, len, MADV_HUGEPAGE); /* advice only: without it the values still work on 4 KiB pages */
#endif
    return v;
}

uint64_t eg_entries(int pits, int max_seeds)
{
    const int cells = 2 * pits;
    uint64_t c = 1; /* C(max_seeds + cells, k) for k = 0..cells, each step exact */
    for (int k = 1; k <= cells; k++) {
        const uint64_t a = (uint64_t)(max_seeds + k);
        if (c > UINT64_MAX / a)
            return UINT64_MAX;
        c = c * a / (uint64_t)k;
    }
    return c;
}

size_t eg_memory_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return (size_t)16 << 30;
    return (size_t)pages / 4 * 3 * (size_t)page;
}

eg_db *eg_create(const kalah_rules *r, int max_seeds, int threads, char *err)
{
    if (eg_check_request(r, &max_seeds, err) != 0)
        return NULL;
    eg_db *db = eg_alloc_tables(r, max_seeds, err);
    if (!db)
        return NULL;
    if (db->size > eg_memory_budget()) {
        char msg[KALAH_ERRLEN];
        snprintf(msg, sizeof msg,
                 "the endgame database of %d seeds takes %.1f GB, more than three quarters of this machine's memory "
                 "(%.1f GB): build it on disk once with sowzero tablebase build (later processes map the file)",
                 max_seeds, 1e-9 * (double)db->size, 1e-9 * (double)eg_memory_budget() / 3 * 4);
        set_err(err, msg);
        eg_free(db);
        return NULL;
    }
    db->val = eg_alloc_values(db->size);
    if (!db->val) {
        eg_free(db);
        set_err(err, "out of memory for the endgame database");
        return NULL;
    }
    if (eg_build_values(db, threads) != 0) {
        eg_free(db);
        set_err(err, "out of memory");
        return NULL;
    }
    return db;
}

void eg_free(eg_db *db)
{
    if (!db)
        return;
    if (db->map)
        munmap(db->map, db->map_len);
    else
        free(db->val);
    free(db->binom);
    free(db->bt);
    free(db);
}

int eg_max_seeds(const eg_db *db) { return db->n; }
const kalah_rules *eg_rules(const eg_db *db) { return &db->r; }
size_t eg_bytes(const eg_db *db) { return db->size; }
const int8_t *eg_values(const eg_db *db) { return db->val; }

int eg_serves(const eg_db *db, const kalah_rules *r)
{
    return db->r.pits == r->pits && db->r.capture == r->capture && db->r.end == r->end && r->max_sows == 0;
}
