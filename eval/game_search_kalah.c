/* game_search_kalah.c — Kalah's own exact solver (eval/alphabeta.h: MTD(f) null-window alpha-beta, the
 * endgame database, Lazy SMP threads) behind gs_solver (eval/game_search_impl.h). Kalah's game_pos holds
 * its kalah_pos (env/game_twoside.h's layout: cells, to_move = side, ply = sows). */
#include "eval/game_search_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/errbuf.h"
#include "env/game_twoside.h" /* gt_to_kalah */
#include "eval/alphabeta.h"
#include "eval/tbase.h"

#define set_err(err, ...) errbuf_set(err, GAME_ERRLEN, __VA_ARGS__)

typedef struct {
    kalah_rules r;
    ab_search *ab;
    tb_ref *tb;          /* the endgame database (set_endgame), shared with the process */
    int threads;
    const int *abort;
} kalah_solver;

static kalah_pos to_kalah(const game_pos *p)
{
    kalah_pos k;
    memset(&k, 0, sizeof k); /* padding too: searches may hash the whole struct */
    gt_to_kalah(p, &k);
    return k;
}

static void *ks_create(const game *g, size_t tt_mb, char *err)
{
    kalah_solver *x = calloc(1, sizeof *x);
    if (!x) {
        set_err(err, "out of memory");
        return NULL;
    }
    x->r = *(const kalah_rules *)game_rules(g);
    x->threads = 1;
    char kerr[KALAH_ERRLEN];
    if (!(x->ab = ab_create(&x->r, tt_mb, kerr))) {
        set_err(err, "%s", kerr);
        free(x);
        return NULL;
    }
    return x;
}

static void ks_free(void *v)
{
    kalah_solver *x = v;
    ab_free(x->ab);
    tb_release(x->tb);
    free(x);
}

static int stopped(const kalah_solver *x) { return x->abort && __atomic_load_n(x->abort, __ATOMIC_RELAXED); }

static int ks_run(void *v, const game_pos *p, uint64_t node_limit, gs_solution *out, char *err)
{
    kalah_solver *x = v;
    kalah_pos k = to_kalah(p);
    ab_limits lim = {.exact = 1, .nodes = node_limit};
    ab_result res;
    int rc = ab_think(x->ab, &k, &lim, &res);
    memset(out, 0, sizeof *out);
    out->move = -1;
    out->value = res.value;
    out->nodes = res.nodes;
    out->seconds = res.seconds;
    if (rc == AB_EOVER)
        return GAME_EOVER;
    if (rc != AB_OK) {
        set_err(err, "Kalah's solver failed (code %d)", rc);
        return GAME_EINVAL;
    }
    if (!res.exact) {
        if (stopped(x)) {
            set_err(err, "stopped");
            return GS_EABORTED;
        }
        set_err(err, "node limit of %llu reached", (unsigned long long)node_limit);
        return GS_ESTOPPED;
    }
    out->best_mask = res.best_mask;
    out->move = res.best_mask ? __builtin_ctz(res.best_mask) : -1;
    return GAME_OK;
}

static int ks_moves(void *v, const game_pos *p, int *values, uint64_t *nodes, char *err)
{
    kalah_solver *x = v;
    kalah_pos k = to_kalah(p);
    int kv[KALAH_MAX_PITS];
    uint64_t n = 0;
    int rc = ab_solve_moves(x->ab, &k, kv, &n);
    for (int i = 0; i < GAME_MAX_MOVES; i++)
        values[i] = i < KALAH_MAX_PITS ? kv[i] : GS_NO_VALUE;
    if (nodes)
        *nodes = n;
    if (rc == AB_EOVER)
        return GAME_EOVER;
    if (rc != AB_OK) {
        set_err(err, "Kalah's solver failed (code %d)", rc);
        return GAME_EINVAL;
    }
    if (stopped(x)) {
        set_err(err, "stopped");
        return GS_EABORTED;
    }
    return GAME_OK;
}

static void ks_set_abort(void *v, const int *flag)
{
    kalah_solver *x = v;
    x->abort = flag;
    ab_set_abort(x->ab, flag);
}

static void ks_set_bounds(void *v, gs_bounds_fn fn, void *ctx)
{
    ab_set_progress(((kalah_solver *)v)->ab, fn, ctx); /* the same signature: ab_bounds_fn */
}

static int ks_set_threads(void *v, int threads, char *err)
{
    kalah_solver *x = v;
    const int rc = ab_set_threads(x->ab, threads);
    if (rc == AB_ENOMEM) {
        set_err(err, "out of memory for ABDADA's table");
        return GAME_ENOMEM;
    }
    if (rc != AB_OK) {
        set_err(err, "threads must be 1..64, got %d", threads);
        return GAME_EINVAL;
    }
    x->threads = threads;
    return GAME_OK;
}

static int ks_set_smp(void *v, gs_smp smp, char *err)
{
    const int rc = ab_set_smp(((kalah_solver *)v)->ab, smp == GS_SMP_ABDADA ? AB_SMP_ABDADA : AB_SMP_LAZY);
    if (rc != AB_OK)
        set_err(err, "out of memory for ABDADA's table");
    return rc == AB_OK ? GAME_OK : GAME_ENOMEM;
}

static int ks_set_endgame(void *v, gs_endgame *e, char *err)
{
    kalah_solver *x = v;
    char kerr[KALAH_ERRLEN];
    tb_info info;
    const int larger = e->up_to > e->seeds ? eg_largest_file(&x->r, e->up_to) : 0;
    tb_ref *t = tb_acquire_info(&x->r, larger > e->seeds ? larger : e->seeds, x->threads, e->save_bytes, &info, kerr);
    e->built = info.built;
    e->seconds = info.seconds;
    snprintf(e->path, sizeof e->path, "%s", info.path);
    snprintf(e->save_err, sizeof e->save_err, "%s", info.save_err);
    if (!t) {
        set_err(err, "%s", kerr);
        return info.bad_file ? GAME_EINVAL : GAME_ENOMEM;
    }
    if (ab_borrow_endgame(x->ab, tb_db(t), kerr) != AB_OK) {
        tb_release(t);
        set_err(err, "endgame database: %s", kerr);
        return GAME_EINVAL;
    }
    tb_release(x->tb);
    x->tb = t;
    e->covered = tb_seeds(t);
    return GAME_OK;
}

static int ks_window(void *v, const game_pos *p, int lo, int hi, int *value, int *where, uint64_t *nodes, char *err)
{
    kalah_solver *x = v;
    kalah_pos k = to_kalah(p);
    ab_window w;
    int rc = ab_solve_window(x->ab, &k, lo, hi, &w);
    *value = w.value;
    *where = w.where;
    if (nodes)
        *nodes = w.nodes;
    if (rc == AB_EOVER)
        return GAME_EOVER;
    if (rc == AB_ESTOPPED) {
        set_err(err, "stopped");
        return GS_EABORTED;
    }
    if (rc != AB_OK) {
        set_err(err, "Kalah's solver failed (code %d)", rc);
        return GAME_EINVAL;
    }
    return GAME_OK;
}

static int ks_endgame_ok(const game *g, char *err)
{
    const kalah_rules *r = game_rules(g);
    if (r->max_sows > 0) {
        set_err(err, "%s: no endgame database with max_sows=%d (the value then depends on the sowings played)",
                game_spec(g), r->max_sows);
        return GAME_EINVAL;
    }
    return GAME_OK;
}

static int ks_endgame_seeds(const void *v)
{
    const kalah_solver *x = v;
    return x->tb ? tb_seeds(x->tb) : 0;
}

const gs_special gs_special_kalah = {
    .kind = &game_kind_kalah,
    .name = "Kalah's MTD(f) alpha-beta",
    .create = ks_create,
    .free = ks_free,
    .run = ks_run,
    .moves = ks_moves,
    .set_abort = ks_set_abort,
    .set_bounds = ks_set_bounds,
    .set_threads = ks_set_threads,
    .set_smp = ks_set_smp,
    .set_endgame = ks_set_endgame,
    .endgame_ok = ks_endgame_ok,
    .window = ks_window,
    .endgame_seeds = ks_endgame_seeds,
};
