/* alphabeta.c — negamax alpha-beta with iterative deepening, MTD(f) exact solving and root tie sets
 * (alphabeta.h). Move ordering lives in ordering.c, the transposition table in tt.c, the endgame
 * database in endgame.c. */
#include "eval/alphabeta.h"

#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/endgame.h"
#include "eval/ordering.h"
#include "eval/tt.h"

#define INF 1000             /* beyond any margin (|margin| <= 255) */
#define DEPTH_EXACT TT_DEPTH_EXACT
#define GUESS_BUDGET 20000 /* nodes: a solve deepens its guessing passes until one costs more */

struct ab_search {
    kalah_rules r;
    tt_table *tt;            /* tt_own, or the main search's table in a parallel solve's helper */
    tt_table tt_own;
    eg_db *db;               /* NULL: no endgame database */
    int db_borrowed;         /* db belongs to another search (ab_share_endgame): not freed here */
    int db_seeds;            /* positions with at most this many seeds in the pits are looked up */
    int total;               /* seeds on the board (set per search from the root) */
    uint64_t pit_lo, pit_hi; /* byte masks of the pits (stores and unused bytes zero), for the key */
    int use_sows;            /* the sow count is part of the key (max_sows > 0) */
    int threads;             /* threads for building the endgame database */
    /* per-call state */
    uint64_t nodes, node_limit;
    int64_t deadline_ns;     /* 0: none */
    int limits_on;           /* limits are ignored until depth 1 has completed */
    int stop;
    int horizon;             /* a horizon value (or a bound resting on one) was used */
    /* a parallel solve's helper (ab_think with threads > 1): its move-order perturbation (0: the main
     * search) and the main search's "done" flag, which stops it */
    int rotate;
    const int *abort;
    ab_bounds_fn progress;   /* ab_set_progress (the main search only) */
    void *progress_ctx;
    int prog_lo, prog_hi;    /* the bounds it last reported (INT_MIN / INT_MAX: open) */
    int prog_move, prog_flip; /* ab_solve_moves: the root move being solved (else −1), and whether its
                               * child's mover is the other player (the bounds are then negated) */
    int smp;                 /* AB_SMP_LAZY or AB_SMP_ABDADA (ab_set_smp) */
    uint64_t *busy;          /* ABDADA: the key.check of the positions some thread is searching, by
                              * check & BUSY_MASK (0: free); the main search's, shared with its helpers */
};

/* ABDADA's table of positions being searched (simplified ABDADA: one slot per index, a collision only
 * costs a deferral) and the smallest subtree it is consulted for, in seeds above the endgame database:
 * below that a deferral saves less than the lookup costs. */
#define BUSY_SLOTS (1u << 16)
#define BUSY_MASK (BUSY_SLOTS - 1)
#define BUSY_MIN_SEEDS 4

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void set_err(char *err, const char *msg)
{
    if (err)
        snprintf(err, KALAH_ERRLEN, "%s", msg);
}

ab_search *ab_create(const kalah_rules *r, size_t tt_mb, char *err)
{
    if (!r || kalah_rules_check(r, err) != KALAH_OK)
        return NULL;
    if (tt_mb < 1 || tt_mb > 65536) {
        if (err)
            snprintf(err, KALAH_ERRLEN, "transposition table size %zu MiB is out of range 1..65536", tt_mb);
        return NULL;
    }
    ab_search *s = calloc(1, sizeof *s);
    if (!s || tt_init(&s->tt_own, tt_mb) != 0) {
        free(s);
        set_err(err, "out of memory for the transposition table");
        return NULL;
    }
    s->tt = &s->tt_own;
    s->r = *r;
    uint8_t mask[KALAH_CELLS] = {0};
    /* "& 15": pits <= 7 keeps every index below 16; the mask lets GCC's -O3 bounds analysis see it. */
    for (int k = 0; k < r->pits; k++)
        mask[k] = mask[(r->pits + 1 + k) & (KALAH_CELLS - 1)] = 0xFF;
    memcpy(&s->pit_lo, mask, 8);
    memcpy(&s->pit_hi, mask + 8, 8);
    s->use_sows = r->max_sows > 0;
    s->db_seeds = -1;
    s->threads = 1;
    s->prog_move = -1;
    s->smp = AB_SMP_ABDADA;
    return s;
}

void ab_free(ab_search *s)
{
    if (!s)
        return;
    tt_destroy(&s->tt_own);
    free(s->busy);
    if (!s->db_borrowed)
        eg_free(s->db);
    free(s);
}

void ab_clear(ab_search *s) { tt_clear(s->tt); }

/* ABDADA's table, once a solve has more than one thread to share it. */
static int need_busy(ab_search *s)
{
    if (s->smp == AB_SMP_ABDADA && s->threads > 1 && !s->busy && !(s->busy = calloc(BUSY_SLOTS, sizeof *s->busy)))
        return AB_ENOMEM;
    return AB_OK;
}

int ab_set_threads(ab_search *s, int threads)
{
    if (threads < 1 || threads > 64)
        return AB_EINVAL;
    s->threads = threads;
    return need_busy(s);
}

int ab_set_smp(ab_search *s, ab_smp smp)
{
    if (smp != AB_SMP_LAZY && smp != AB_SMP_ABDADA)
        return AB_EINVAL;
    s->smp = smp;
    return need_busy(s);
}

void ab_set_abort(ab_search *s, const int *flag) { s->abort = flag; }

void ab_set_progress(ab_search *s, ab_bounds_fn fn, void *ctx)
{
    s->progress = fn;
    s->progress_ctx = ctx;
}

/* ab_set_progress's report after a probe (the main search only: a helper has rotate != 0). In
 * ab_solve_moves the bounds of the child are turned into the move's value for the root's mover. */
static void emit(ab_search *s)
{
    if (s->prog_move >= 0 && s->prog_flip)
        s->progress(s->progress_ctx, s->prog_move, s->prog_hi == INT_MAX ? INT_MIN : -s->prog_hi,
                    s->prog_lo == INT_MIN ? INT_MAX : -s->prog_lo, s->nodes);
    else
        s->progress(s->progress_ctx, s->prog_move, s->prog_lo, s->prog_hi, s->nodes);
}

static void report(ab_search *s, int lo, int hi)
{
    s->prog_lo = lo == -INF ? INT_MIN : lo;
    s->prog_hi = hi == INF ? INT_MAX : hi;
    if (s->progress && !s->rotate)
        emit(s);
}

static void drop_endgame(ab_search *s)
{
    if (!s->db_borrowed)
        eg_free(s->db);
    s->db = NULL;
    s->db_borrowed = 0;
    s->db_seeds = -1;
}

/* The rules fields a database depends on. */
static int same_rules(const kalah_rules *a, const kalah_rules *b)
{
    return a->pits == b->pits && a->seeds == b->seeds && a->capture == b->capture && a->end == b->end &&
           a->max_sows == b->max_sows;
}

int ab_share_endgame(ab_search *s, const ab_search *owner, char *err)
{
    drop_endgame(s);
    if (!same_rules(&s->r, &owner->r)) {
        set_err(err, "the searches have different rules");
        return AB_EINVAL;
    }
    return ab_borrow_endgame(s, owner->db, err);
}

int ab_borrow_endgame(ab_search *s, const eg_db *db, char *err)
{
    drop_endgame(s);
    if (!db)
        return AB_OK;
    if (!eg_serves(db, &s->r)) {
        set_err(err, "the endgame database was built for other rules");
        return AB_EINVAL;
    }
    s->db = (eg_db *)db; /* only read: db_borrowed keeps it from being freed here */
    s->db_borrowed = 1;
    s->db_seeds = eg_max_seeds(db);
    return AB_OK;
}

int ab_set_endgame(ab_search *s, int max_seeds, char *err)
{
    drop_endgame(s);
    if (max_seeds <= 0)
        return AB_OK;
    int file;
    s->db = eg_find(&s->r, max_seeds, NULL, 0, &file, err);
    if (file == EG_FILE_NONE)
        s->db = eg_create(&s->r, max_seeds, s->threads, err);
    if (!s->db)
        return AB_EINVAL;
    s->db_seeds = eg_max_seeds(s->db);
    return AB_OK;
}

static inline tt_key key_of(const ab_search *s, const kalah_pos *p)
{
    uint64_t lo, hi;
    memcpy(&lo, p->cell, 8);
    memcpy(&hi, p->cell + 8, 8);
    return tt_make_key(lo & s->pit_lo, hi & s->pit_hi, p->side, s->use_sows ? p->sows : 0);
}

/* Store difference for the player to move. */
static inline int store_diff(const ab_search *s, const kalah_pos *p)
{
    int m = s->r.pits;
    int d = (int)p->cell[m] - (int)p->cell[2 * m + 1];
    return p->side ? -d : d;
}

static inline int limit_hit(ab_search *s)
{
    if (s->progress && !(s->nodes & ((1u << 22) - 1)) && !s->rotate) /* between probes too: the count grows */
        emit(s);
    if (s->abort && !(s->nodes & 255) && __atomic_load_n(s->abort, __ATOMIC_RELAXED))
        return s->stop = 1;
    if (!s->limits_on)
        return 0;
    if (s->node_limit && s->nodes >= s->node_limit)
        return s->stop = 1;
    if (s->deadline_ns && !(s->nodes & 1023) && now_ns() >= s->deadline_ns)
        return s->stop = 1;
    return 0;
}

static int search(ab_search *s, const kalah_pos *p, const tt_key *kp, int depth, int alpha, int beta);

/* Value of child c for the player to move at its parent (side `side`): an extra turn keeps the sign. */
static inline int child_value(ab_search *s, const kalah_pos *c, const tt_key *kc, int side, int depth, int alpha,
                              int beta)
{
    if (c->side == side)
        return search(s, c, kc, depth, alpha, beta);
    return -search(s, c, kc, depth, -beta, -alpha);
}

/* Bounds of an entry in value units for a position with store difference sd; returns the value that
 * settles the window (alpha, beta), or INF when the entry does not. */
static inline int tt_cut(const tt_entry *e, int sd, int alpha, int beta)
{
    int lo = e->lower == -TT_INF ? -INF : e->lower + sd;
    int hi = e->upper == TT_INF ? INF : e->upper + sd;
    return lo >= beta ? lo : hi <= alpha ? hi : lo == hi ? lo : INF;
}

/* Exact value, for the player to move at its parent (side `side`), of a child c the endgame database
 * covers: its store difference plus F, the entry at `entry` (eg_value_at). */
static inline int db_child_value(const ab_search *s, const kalah_pos *c, int side, const int8_t *entry)
{
    const int v = store_diff(s, c) + *entry;
    return c->side == side ? v : -v;
}

/* A parallel solve's helpers search the moves after the first (the table's or the ordering's best) in
 * another order at about half the positions (a bit of the hash decides, so a position always gets the same
 * order): the threads then work on different subtrees at once and meet through the table, instead of
 * repeating one another (the move-order variant of Lazy SMP). */
static void rotate_after_first(ord_list *ml, int by)
{
    ord_list o = *ml;
    const int rest = ml->n - 1;
    for (int i = 0; i < rest; i++) {
        const int j = 1 + (i + by) % rest;
        ml->child[1 + i] = o.child[j];
        ml->move[1 + i] = o.move[j];
        ml->gain[1 + i] = o.gain[j];
    }
}

/* Fail-soft negamax alpha-beta; returns the value of p for p->side. depth DEPTH_EXACT never decreases
 * (a solve). The window is (alpha, beta), exclusive. kp: p's table key when the caller computed it (to
 * prefetch the bucket), else NULL. */
static int search(ab_search *s, const kalah_pos *p, const tt_key *kp, int depth, int alpha, int beta)
{
    if (s->stop)
        return 0;
    s->nodes++;
    if (limit_hit(s))
        return 0;
    const int sd = store_diff(s, p);
    if (p->over)
        return sd;
    const int m = s->r.pits;
    const int pits = s->total - p->cell[m] - p->cell[2 * m + 1];
    /* Whatever happens, the mover keeps its store and the opponent its own: the final margin lies in
     * [sd - pits, sd + pits]. The depth-limited value obeys the same bounds (stores only grow). */
    if (sd - pits >= beta)
        return sd - pits;
    if (sd + pits <= alpha)
        return sd + pits;
    if (pits <= s->db_seeds)
        return sd + eg_value(s->db, p);
    if (depth == 0) {
        s->horizon = 1;
        return sd;
    }

    const tt_key key = kp ? *kp : key_of(s, p);
    tt_entry ebuf;
    const tt_entry *e = tt_probe(s->tt, key, &ebuf);
    int tt_move = -1;
    if (e) {
        tt_move = e->move == TT_NO_MOVE ? -1 : e->move;
        if (tt_usable(e, depth)) {
            int v = tt_cut(e, sd, alpha, beta);
            if (v != INF) {
                if (!(e->work & TT_EXACT))
                    s->horizon = 1;
                return v;
            }
        }
    }

    ord_list ml;
    ord_generate(&s->r, p, tt_move, &ml);
    if (s->rotate && s->smp == AB_SMP_LAZY && ml.n > 2 && (key.check >> 9 & 1))
        rotate_after_first(&ml, s->rotate);
    const int next = depth == DEPTH_EXACT ? DEPTH_EXACT : depth - 1;
    /* The children's table buckets (or, for a child the endgame database covers, its entry there) are
     * fetched together (both are far bigger than the caches, and a probe is mostly a memory miss), then the
     * children's entries are checked for a cutoff before any is searched: an enhanced transposition cutoff
     * (Plaat et al. 1996; about 20% fewer nodes in the solves of Kalah(5,4) and (6,3)); a covered child's
     * value is exact. */
    tt_key ck[KALAH_MAX_PITS];
    const int8_t *cdb[KALAH_MAX_PITS];
    const int have_keys = next > 0;
    if (have_keys) {
        for (int i = 0; i < ml.n; i++) {
            const kalah_pos *c = &ml.child[i];
            cdb[i] = NULL;
            if (!c->over && s->total - c->cell[m] - c->cell[2 * m + 1] <= s->db_seeds) {
                cdb[i] = eg_value_at(s->db, c);
                __builtin_prefetch(cdb[i]);
                continue;
            }
            ck[i] = key_of(s, c);
            tt_prefetch(s->tt, ck[i]);
        }
        for (int i = 0; i < ml.n; i++) {
            const kalah_pos *c = &ml.child[i];
            if (c->over)
                continue;
            int v;
            if (cdb[i]) {
                v = db_child_value(s, c, p->side, cdb[i]);
            } else {
                tt_entry cbuf;
                const tt_entry *ce = tt_probe(s->tt, ck[i], &cbuf);
                if (!ce || !tt_usable(ce, next))
                    continue;
                const int csd = store_diff(s, c);
                if (c->side == p->side) {
                    v = ce->lower == -TT_INF ? -INF : ce->lower + csd;
                } else {
                    v = ce->upper == TT_INF ? -INF : -(ce->upper + csd);
                }
                if (v >= beta && !(ce->work & TT_EXACT))
                    s->horizon = 1;
            }
            if (v >= beta)
                return v;
        }
    }
    const uint64_t nodes0 = s->nodes;
    /* A subtree that never reached the horizon has an exact value: it is stored as such, so later
     * iterations, deeper searches and solves reuse it, and iterative deepening knows when to stop. */
    const int horizon_above = s->horizon;
    s->horizon = 0;
    int best = -INF, best_move = TT_NO_MOVE, a = alpha;
    /* ABDADA (Weill 1996; the simplified form of Kerrigan): a move after the first whose position another
     * thread is searching right now is deferred to a second pass, by when that thread has usually stored
     * its value in the table; the threads so spread over the tree instead of all proving the same child. */
    const int abdada = s->smp == AB_SMP_ABDADA && s->busy && have_keys &&
                       pits >= (s->db_seeds > 0 ? s->db_seeds : 0) + BUSY_MIN_SEEDS;
    int deferred[KALAH_MAX_PITS], n_deferred = 0;
    for (int pass = 0; pass < 2 && a < beta; pass++) {
        const int count = pass ? n_deferred : ml.n;
        for (int j = 0; j < count; j++) {
            const int i = pass ? deferred[j] : j;
            const kalah_pos *c = &ml.child[i];
            const tt_key *kc = have_keys && !cdb[i] ? &ck[i] : NULL;
            int v;
            if (have_keys && cdb[i]) { /* exact, from the database (prefetched above) */
                s->nodes++;
                v = db_child_value(s, c, p->side, cdb[i]);
            } else {
                uint64_t *slot = NULL;
                if (abdada && kc && !c->over) {
                    slot = &s->busy[kc->check & BUSY_MASK];
                    if (!pass && j > 0 && __atomic_load_n(slot, __ATOMIC_RELAXED) == kc->check) {
                        deferred[n_deferred++] = i;
                        continue;
                    }
                    __atomic_store_n(slot, kc->check, __ATOMIC_RELAXED);
                }
                if ((!pass && j == 0) || beta - a == 1) {
                    v = child_value(s, c, kc, p->side, next, a, beta);
                } else {
                    /* Principal variation search: prove the move no better with a null window first. */
                    v = child_value(s, c, kc, p->side, next, a, a + 1);
                    if (v > a && v < beta && !s->stop)
                        v = child_value(s, c, kc, p->side, next, a, beta);
                }
                if (slot) { /* free it unless another thread has taken it since */
                    uint64_t mine = kc->check;
                    __atomic_compare_exchange_n(slot, &mine, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
                }
            }
            if (s->stop)
                return 0;
            if (v > best) {
                best = v;
                best_move = ml.move[i];
                if (v > a) {
                    a = v;
                    if (a >= beta)
                        break;
                }
            }
        }
    }
    tt_store(s->tt, key, depth, !s->horizon, alpha - sd, beta - sd, best - sd, best_move, s->nodes - nodes0);
    s->horizon |= horizon_above;
    return best;
}

/* Principal variation: first move, then the table's moves while they are legal. */
static void fill_pv(ab_search *s, const kalah_pos *p, int first, ab_result *out)
{
    kalah_pos q = *p;
    out->pv_len = 0;
    int k = first;
    while (k >= 0 && out->pv_len < AB_MAX_PV && !q.over && (kalah_legal(&s->r, &q) >> k & 1)) {
        out->pv[out->pv_len++] = k;
        kalah_sow(&s->r, &q, k, NULL);
        if (q.over)
            break;
        tt_entry ebuf;
        const tt_entry *e = tt_probe(s->tt, key_of(s, &q), &ebuf);
        k = e && e->move != TT_NO_MOVE ? e->move : -1;
    }
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The tie rule of alphabeta.h: seed 0 = lowest pit, else uniform among best_mask from the seed. */
static int pick_move(unsigned mask, uint64_t seed)
{
    if (!mask)
        return -1;
    if (!seed)
        return __builtin_ctz(mask);
    uint64_t x = seed;
    int n = __builtin_popcount(mask);
    int j = (int)(splitmix64(&x) % (uint64_t)n); /* modulo bias < n / 2^64: negligible */
    while (j--)
        mask &= mask - 1;
    return __builtin_ctz(mask);
}

/* One root iteration: the value of every move far enough to know the best value and every move that
 * reaches it. Moves are tried in ord_generate's order with `first` (the previous best) in front. */
static int root_iteration(ab_search *s, const kalah_pos *p, int depth, int first, unsigned *mask)
{
    ord_list ml;
    ord_generate(&s->r, p, first, &ml);
    const int next = depth == DEPTH_EXACT ? DEPTH_EXACT : depth - 1;
    int best = -INF;
    *mask = 0;
    for (int i = 0; i < ml.n; i++) {
        const kalah_pos *c = &ml.child[i];
        int v;
        if (i == 0) {
            v = child_value(s, c, NULL, p->side, next, -INF, INF);
        } else {
            /* Null window (best-1, best): is the move at least as good? Only then its exact value. */
            v = child_value(s, c, NULL, p->side, next, best - 1, best);
            if (v >= best && !s->stop)
                v = child_value(s, c, NULL, p->side, next, best - 1, INF);
        }
        if (s->stop)
            return -INF;
        if (v > best) {
            best = v;
            *mask = 1u << ml.move[i];
        } else if (v == best) {
            *mask |= 1u << ml.move[i];
        }
    }
    return best;
}

/* Exact value by MTD(f) (Plaat et al. 1996, "Best-first fixed-depth minimax algorithms"): a sequence of
 * null-window searches converging on the value from a first guess; the table keeps both bounds of every
 * position between probes. Every value of a solve has the parity of the seed total (a final margin
 * own - opp = 2 own - total), so the probes step by two. */
static int mtdf(ab_search *s, const kalah_pos *p, int guess)
{
    int lo = -INF, hi = INF, g = guess;
    s->prog_lo = INT_MIN, s->prog_hi = INT_MAX;
    if (((g - s->total) & 1) != 0)
        g++;
    while (lo < hi) {
        int b = g == lo ? g + 1 : g;
        g = search(s, p, NULL, DEPTH_EXACT, b - 1, b);
        if (s->stop)
            return lo > -INF ? lo : guess;
        if (g < b)
            hi = g;
        else
            lo = g;
        report(s, lo, hi);
    }
    return lo;
}

/* The parallel solve (Lazy SMP: Hyatt's shared-table idea as Stockfish runs it): threads - 1 helpers
 * run the same MTD(f) solve of the root on the shared lockless table (tt.h) with perturbed move orders
 * (rotate_after_first), so that they prove other subtrees first and the main search finds their values
 * in the table. Only the main search's result is used; every entry a helper stores is a true bound, so the
 * value and the tie set are the same as on one thread (node counts and time are not reproducible). */
typedef struct {
    ab_search h;
    kalah_pos root;
    int guess;
    pthread_t id;
} ab_helper;

typedef struct {
    ab_helper *hs;
    int n;
    int done;
} helper_pool;

static void *helper_main(void *arg)
{
    ab_helper *x = arg;
    mtdf(&x->h, &x->root, x->guess);
    return NULL;
}

static int helpers_start(helper_pool *pool, const ab_search *s, const kalah_pos *p, int guess)
{
    pool->n = 0;
    pool->done = 0;
    pool->hs = calloc((size_t)s->threads - 1, sizeof *pool->hs);
    if (!pool->hs)
        return -1;
    for (int i = 0; i < s->threads - 1; i++) {
        ab_helper *x = &pool->hs[i];
        x->h = *s; /* the table, the database and the rules are shared, the counters are its own */
        x->h.db_borrowed = 1;
        x->h.nodes = 0;
        x->h.node_limit = 0;
        x->h.deadline_ns = 0;
        x->h.limits_on = 0;
        x->h.stop = 0;
        x->h.rotate = i + 1;
        x->h.abort = &pool->done;
        x->root = *p;
        x->guess = guess;
        if (pthread_create(&x->id, NULL, helper_main, x) != 0)
            break;
        pool->n++;
    }
    if (!pool->n) {
        free(pool->hs);
        return -1;
    }
    return 0;
}

/* Stops and joins the helpers; returns the positions they searched. */
static uint64_t helpers_stop(helper_pool *pool)
{
    __atomic_store_n(&pool->done, 1, __ATOMIC_RELAXED);
    uint64_t nodes = 0;
    for (int i = 0; i < pool->n; i++) {
        pthread_join(pool->hs[i].id, NULL);
        nodes += pool->hs[i].h.nodes;
    }
    free(pool->hs);
    return nodes;
}

static void begin(ab_search *s, const kalah_pos *root, const ab_limits *lim)
{
    s->total = kalah_total(&s->r, root); /* every descendant keeps it; a caller's board may differ from
                                          * 2*pits*seeds */
    s->nodes = 0;
    s->stop = 0;
    s->limits_on = 0;
    s->node_limit = lim ? lim->nodes : 0;
    s->deadline_ns = lim && lim->ms > 0 ? now_ns() + lim->ms * 1000000 : 0;
    s->tt->gen++;
}

static int finished(ab_search *s, const kalah_pos *p, ab_result *out)
{
    memset(out, 0, sizeof *out);
    out->move = -1;
    if (!p->over && kalah_legal(&s->r, p))
        return 0;
    out->value = store_diff(s, p);
    out->exact = 1;
    return 1;
}

/* MTD(f)'s first guess for a solve of p (after begin): depth-limited passes that deepen while a pass stays
 * cheap (a node budget, so the solve stays deterministic) also give the table its first best moves. A root
 * whose exact value the table already holds (one solved before: a solver agent meeting an opening again,
 * as in a tournament's next pair) needs none: that value is the guess, and MTD(f)'s two probes cut at the
 * root (*solved = 1). *m0: the best moves of the last pass (or the table's). */
static int solve_guess(ab_search *s, const kalah_pos *p, unsigned *m0, int *solved)
{
    tt_entry kbuf;
    const tt_entry *known = tt_probe(s->tt, key_of(s, p), &kbuf);
    *solved = known && tt_usable(known, DEPTH_EXACT) && known->lower == known->upper;
    *m0 = *solved && known->move != TT_NO_MOVE ? 1u << known->move : 0;
    int guess = *solved ? known->lower + store_diff(s, p) : root_iteration(s, p, 1, -1, m0);
    int first = pick_move(*m0, 0);
    s->limits_on = 1;
    for (int d = 2; d <= AB_MAX_DEPTH && !s->stop && !*solved; d++) {
        uint64_t n0 = s->nodes;
        unsigned dm;
        s->horizon = 0;
        int v = root_iteration(s, p, d, first, &dm);
        if (s->stop)
            break;
        guess = v;
        *m0 = dm;
        first = pick_move(dm, 0);
        if (!s->horizon || s->nodes - n0 > GUESS_BUDGET)
            break;
    }
    return guess;
}

int ab_think(ab_search *s, const kalah_pos *p, const ab_limits *lim, ab_result *out)
{
    if (!s || !p || !lim || !out)
        return AB_EINVAL;
    if (!lim->exact && (lim->depth < 0 || lim->depth > AB_MAX_DEPTH))
        return AB_EINVAL;
    if (!lim->exact && !lim->depth && !lim->nodes && lim->ms <= 0)
        return AB_EINVAL;
    if (finished(s, p, out))
        return AB_EOVER;
    const int64_t t0 = now_ns();
    begin(s, p, lim);
    int value = 0, move = -1;
    unsigned mask = 0;
    if (lim->exact) {
        /* Whatever the guess, the value and the tie set are exact, so the result is the same. */
        unsigned m0;
        int solved;
        int guess = solve_guess(s, p, &m0, &solved);
        helper_pool pool;
        const int parallel = !s->stop && !solved && s->threads > 1 && helpers_start(&pool, s, p, guess) == 0;
        value = s->stop ? guess : mtdf(s, p, guess);
        if (!s->stop) {
            /* Every move reaching the value: a null-window probe (value-1, value) per root move. */
            ord_list ml;
            ord_generate(&s->r, p, -1, &ml);
            for (int i = 0; i < ml.n && !s->stop; i++)
                if (child_value(s, &ml.child[i], NULL, p->side, DEPTH_EXACT, value - 1, value) >= value)
                    mask |= 1u << ml.move[i];
        }
        if (parallel)
            s->nodes += helpers_stop(&pool);
        if (s->stop || !mask) {
            tt_entry ebuf;
            const tt_entry *e = tt_probe(s->tt, key_of(s, p), &ebuf);
            mask = e && e->move != TT_NO_MOVE ? 1u << e->move : m0;
            out->stopped = 1;
        } else {
            out->exact = 1;
            /* The root's value as one exact entry: MTD(f)'s probes may leave it a single bound (a probe
             * that an enhanced transposition cutoff settles stores nothing), and the next solve of this
             * position skips its guessing passes only on an exact value (above). */
            const int sd = store_diff(s, p);
            tt_store(s->tt, key_of(s, p), DEPTH_EXACT, 1, value - sd - 1, value - sd + 1, value - sd,
                     pick_move(mask, 0), s->nodes);
        }
        out->depth = 0;
    } else {
        int maxd = lim->depth ? lim->depth : AB_MAX_DEPTH;
        for (int d = 1; d <= maxd; d++) {
            unsigned dm;
            s->horizon = 0;
            int v = root_iteration(s, p, d, move, &dm);
            if (s->stop) {
                out->stopped = 1;
                break;
            }
            value = v;
            mask = dm;
            move = pick_move(mask, 0);
            out->depth = d;
            s->limits_on = 1;
            if (!s->horizon) {
                out->exact = 1; /* the whole tree ended before the horizon: the value is proven */
                break;
            }
        }
    }
    out->value = value;
    out->best_mask = mask;
    out->move = pick_move(mask, lim->seed);
    out->nodes = s->nodes;
    fill_pv(s, p, out->move, out);
    out->seconds = (double)(now_ns() - t0) * 1e-9;
    return AB_OK;
}

/* The start of a per-move solve: every value AB_NO_VALUE; returns 1 when p is finished, else starts the
 * search and fills *ml with the root moves. */
static int root_values_begin(ab_search *s, const kalah_pos *p, int values[KALAH_MAX_PITS], ord_list *ml)
{
    for (int k = 0; k < KALAH_MAX_PITS; k++)
        values[k] = AB_NO_VALUE;
    ab_result tmp;
    if (finished(s, p, &tmp))
        return 1;
    begin(s, p, NULL);
    ord_generate(&s->r, p, -1, ml);
    return 0;
}

int ab_root_values(ab_search *s, const kalah_pos *p, int depth, int values[KALAH_MAX_PITS], uint64_t *nodes_out)
{
    if (depth < 0 || depth > AB_MAX_DEPTH)
        return AB_EINVAL;
    ord_list ml;
    if (root_values_begin(s, p, values, &ml))
        return AB_EOVER;
    const int next = depth == 0 ? DEPTH_EXACT : depth - 1;
    for (int i = 0; i < ml.n; i++)
        values[ml.move[i]] = child_value(s, &ml.child[i], NULL, p->side, next, -INF, INF);
    if (nodes_out)
        *nodes_out = s->nodes;
    return AB_OK;
}

int ab_solve_moves(ab_search *s, const kalah_pos *p, int values[KALAH_MAX_PITS], uint64_t *nodes_out)
{
    if (!s || !p || !values)
        return AB_EINVAL;
    ord_list ml;
    if (root_values_begin(s, p, values, &ml))
        return AB_EOVER;
    /* First guesses: every child's full-window value at increasing depth while a pass stays cheap (the
     * same node budget as ab_think's guessing passes, so the result is deterministic). */
    int guess[KALAH_MAX_PITS] = {0};
    for (int d = 1; d <= AB_MAX_DEPTH; d++) {
        const uint64_t n0 = s->nodes;
        s->horizon = 0;
        for (int i = 0; i < ml.n; i++)
            guess[i] = child_value(s, &ml.child[i], NULL, p->side, d - 1, -INF, INF);
        if (!s->horizon || s->nodes - n0 > GUESS_BUDGET)
            break;
    }
    /* Then each child by MTD(f) from its guess, the most promising first: its exact entries are the ones
     * the later children's probes cut on most (their lines transpose into the best line). */
    int order[KALAH_MAX_PITS];
    for (int i = 0; i < ml.n; i++) {
        int j = i;
        while (j > 0 && guess[order[j - 1]] < guess[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (int j = 0; j < ml.n; j++) {
        const int i = order[j];
        const kalah_pos *c = &ml.child[i];
        const int keep = c->side == p->side, g = keep ? guess[i] : -guess[i];
        helper_pool pool;
        const int parallel = s->threads > 1 && helpers_start(&pool, s, c, g) == 0;
        s->prog_move = ml.move[i];
        s->prog_flip = !keep;
        const int v = mtdf(s, c, g);
        s->prog_move = -1;
        if (parallel)
            s->nodes += helpers_stop(&pool);
        values[ml.move[i]] = keep ? v : -v;
    }
    if (nodes_out)
        *nodes_out = s->nodes;
    return AB_OK;
}

/* MTD(f) (mtdf above) that stops as soon as the value is known to lie outside [wlo, whi]: each probe's
 * null window is kept within [wlo, whi + 1], so a position far from the window is settled by the one probe
 * at its edge. Returns the exact value when it lies in the window, else a bound beyond it (*where −1: the
 * value is at most the return, below wlo; +1: at least the return, above whi; 0: exact). */
static int mtdf_window(ab_search *s, const kalah_pos *p, int guess, int wlo, int whi, int *where)
{
    int lo = -INF, hi = INF, g = guess;
    s->prog_lo = INT_MIN, s->prog_hi = INT_MAX;
    if (((g - s->total) & 1) != 0)
        g++;
    *where = 0;
    while (lo < hi && !s->stop) {
        if (lo > whi) {
            *where = 1;
            return lo;
        }
        if (hi < wlo) {
            *where = -1;
            return hi;
        }
        int b = g == lo ? g + 1 : g;
        b = b > whi + 1 ? whi + 1 : b < wlo ? wlo : b;
        b = b <= lo ? lo + 1 : b > hi ? hi : b; /* every probe must tighten a bound */
        g = search(s, p, NULL, DEPTH_EXACT, b - 1, b);
        if (g < b)
            hi = g;
        else
            lo = g;
        if (!s->stop)
            report(s, lo, hi);
    }
    *where = lo > whi ? 1 : lo < wlo ? -1 : 0;
    return lo;
}

int ab_solve_window(ab_search *s, const kalah_pos *p, int wlo, int whi, ab_window *out)
{
    if (!s || !p || !out || wlo > whi)
        return AB_EINVAL;
    memset(out, 0, sizeof *out);
    ab_result tmp;
    if (finished(s, p, &tmp)) {
        out->value = tmp.value;
        out->where = tmp.value < wlo ? -1 : tmp.value > whi ? 1 : 0;
        return AB_EOVER;
    }
    const int64_t t0 = now_ns();
    begin(s, p, NULL);
    unsigned m0;
    int solved;
    int guess = solve_guess(s, p, &m0, &solved);
    helper_pool pool;
    const int parallel = !solved && s->threads > 1 && helpers_start(&pool, s, p, guess) == 0;
    out->value = mtdf_window(s, p, guess, wlo, whi, &out->where);
    if (parallel)
        s->nodes += helpers_stop(&pool);
    out->nodes = s->nodes;
    out->seconds = (double)(now_ns() - t0) * 1e-9;
    return s->stop ? AB_ESTOPPED : AB_OK;
}
