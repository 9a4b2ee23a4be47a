/* family_search.c — exact negamax alpha-beta over a twoside_game (see family_search.h). */
#include "eval/family_search.h"
#include "env/errbuf.h"
#include "eval/tt.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define set_err(err, ...) errbuf_set(err, KALAH_ERRLEN, __VA_ARGS__)

struct fs_solver {
    twoside_game g;
    tt_table tt;
    uint64_t nodes, limit;
    int status;        /* FS_OK, or the error that unwinds the search */
    int game_rc;       /* the failing move's code for FS_EGAME */
    uint64_t store_mask[2]; /* the board words with the store bytes cleared when the stores are inert */
};

fs_solver *fs_create(const twoside_game *g, size_t tt_mb, char *err)
{
    if (tt_mb < 1 || tt_mb > 65536) {
        set_err(err, "transposition table size %zu MiB is out of range 1..65536", tt_mb);
        return NULL;
    }
    fs_solver *s = calloc(1, sizeof *s);
    if (!s || tt_init(&s->tt, tt_mb) != 0) {
        free(s);
        set_err(err, "out of memory for a %zu MiB transposition table", tt_mb);
        return NULL;
    }
    s->g = *g;
    uint8_t mask[KALAH_CELLS];
    memset(mask, 0xff, sizeof mask);
    if (g->stores_inert)
        mask[g->pits] = mask[2 * g->pits + 1] = 0;
    memcpy(s->store_mask, mask, sizeof mask);
    return s;
}

void fs_free(fs_solver *s)
{
    if (!s)
        return;
    tt_destroy(&s->tt);
    free(s);
}

static tt_key key_of(const fs_solver *s, const kalah_pos *p)
{
    uint64_t w[2];
    memcpy(w, p->cell, sizeof w);
    unsigned left = s->g.max_sows ? (unsigned)(s->g.max_sows - p->sows) : 0;
    return tt_make_key(w[0] & s->store_mask[0], w[1] & s->store_mask[1], p->side, left);
}

/* Own store minus the opponent's, for the player to move. */
static inline int store_diff(const fs_solver *s, const kalah_pos *p)
{
    int m = s->g.pits, d = (int)p->cell[m] - (int)p->cell[2 * m + 1];
    return p->side ? -d : d;
}

static inline int pit_seeds(const fs_solver *s, const kalah_pos *p)
{
    int m = s->g.pits, t = 0;
    for (int i = 0; i < 2 * m + 2; i++)
        t += p->cell[i];
    return t - p->cell[m] - p->cell[2 * m + 1];
}

/* The value of child c for the player who moved into it (`side`). */
static int search(fs_solver *s, const kalah_pos *p, int ply, int alpha, int beta);

static inline int child_value(fs_solver *s, const kalah_pos *c, int side, int ply, int alpha, int beta)
{
    if (c->side == side)
        return search(s, c, ply + 1, alpha, beta);
    return -search(s, c, ply + 1, -beta, -alpha);
}

/* Fail-soft negamax; the value is for p->side. */
static int search(fs_solver *s, const kalah_pos *p, int ply, int alpha, int beta)
{
    s->nodes++;
    const int d = store_diff(s, p);
    if (p->over)
        return d;
    if (s->status)
        return 0;
    if (ply > FS_MAX_PLY) {
        s->status = FS_EDEEP;
        return 0;
    }
    if (s->limit && s->nodes > s->limit) {
        s->status = FS_ESTOPPED;
        return 0;
    }
    const int rest = pit_seeds(s, p);
    if (d + rest <= alpha)
        return d + rest;
    if (d - rest >= beta)
        return d - rest;
    const tt_key key = key_of(s, p);
    int lo = d - rest, hi = d + rest, tt_move = -1;
    tt_entry *e = tt_probe(&s->tt, key);
    if (e) {
        tt_move = e->move == TT_NO_MOVE ? -1 : e->move;
        if (tt_usable(e, TT_DEPTH_EXACT)) {
            if (e->lower != -TT_INF && e->lower + d > lo)
                lo = e->lower + d;
            if (e->upper != TT_INF && e->upper + d < hi)
                hi = e->upper + d;
            if (lo >= beta || lo == hi)
                return lo;
            if (hi <= alpha)
                return hi;
        }
    }
    if (lo > alpha)
        alpha = lo;
    if (hi < beta)
        beta = hi;

    /* Children in order: the table's move, then by the mover's store gain (extra turns and captures
     * first), lower pits first among equals (deterministic). */
    kalah_pos child[KALAH_MAX_PITS];
    int order[KALAH_MAX_PITS], gain[KALAH_MAX_PITS], n = 0;
    unsigned legal = s->g.legal(s->g.rules, p);
    while (legal) {
        int k = __builtin_ctz(legal);
        legal &= legal - 1;
        child[k] = *p;
        int rc = s->g.play(s->g.rules, &child[k], k);
        if (rc < 0) {
            s->status = FS_EGAME;
            s->game_rc = rc;
            return 0;
        }
        int cd = store_diff(s, &child[k]);
        gain[k] = (child[k].side == p->side ? cd : -cd) - d + (k == tt_move ? 1000 : 0) +
                  (child[k].side == p->side && !child[k].over ? 50 : 0);
        int j = n++;
        while (j > 0 && gain[order[j - 1]] < gain[k]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
    int best = -TT_INF, best_move = TT_NO_MOVE;
    const uint64_t nodes0 = s->nodes;
    for (int i = 0; i < n; i++) {
        int k = order[i];
        int v = child_value(s, &child[k], p->side, ply, alpha > best ? alpha : best, beta);
        if (s->status)
            return 0;
        if (v > best) {
            best = v;
            best_move = k;
            if (v >= beta)
                break;
        }
    }
    /* The window was narrowed by bounds that hold (stores, table), so a fail-soft result against it is
     * still a valid bound; tt_store intersects it with what the entry already had. */
    tt_store(&s->tt, key, TT_DEPTH_EXACT, 1, alpha - d, beta - d, best - d, best_move, s->nodes - nodes0);
    return best;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int finish(fs_solver *s, char *err)
{
    switch (s->status) {
    case FS_ESTOPPED: set_err(err, "node limit of %llu reached", (unsigned long long)s->limit); break;
    case FS_EDEEP:
        set_err(err, "a line ran past %d plies without the game ending (a cycle: give the rules a max_sows)",
                FS_MAX_PLY);
        break;
    case FS_EGAME: set_err(err, "a move of %s failed with code %d", s->g.name, s->game_rc); break;
    default: break;
    }
    return s->status;
}

int fs_solve(fs_solver *s, const kalah_pos *p, uint64_t node_limit, fs_result *out, char *err)
{
    memset(out, 0, sizeof *out);
    out->best = -1;
    const double t0 = now_s();
    s->nodes = 0;
    s->limit = node_limit;
    s->status = FS_OK;
    if (p->over) {
        out->value = store_diff(s, p);
        return FS_EOVER;
    }
    const int bound = pit_seeds(s, p) + 1 + abs(store_diff(s, p));
    int value = search(s, p, 0, -bound, bound);
    if (s->status)
        goto done;
    /* Every optimal root move: a null-window probe per move, v >= value (the table makes it cheap). */
    unsigned legal = s->g.legal(s->g.rules, p);
    while (legal) {
        int k = __builtin_ctz(legal);
        legal &= legal - 1;
        kalah_pos c = *p;
        int rc = s->g.play(s->g.rules, &c, k);
        if (rc < 0) {
            s->status = FS_EGAME;
            s->game_rc = rc;
            goto done;
        }
        int v = child_value(s, &c, p->side, 0, value - 1, value);
        if (s->status)
            goto done;
        if (v >= value)
            out->best_mask |= 1u << k;
    }
    out->value = value;
    out->best = out->best_mask ? __builtin_ctz(out->best_mask) : -1;
done:
    out->nodes = s->nodes;
    out->seconds = now_s() - t0;
    return finish(s, err);
}
