/* game_search.c — max^n, paranoid / alpha-beta and exact solve over the game interface (game_search.h). */
#include "eval/game_search.h"
#include "eval/game_search_impl.h"
#include "env/errbuf.h"
#include "eval/tt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define set_err(err, ...) errbuf_set(err, GAME_ERRLEN, __VA_ARGS__)
#define NP GAME_MAX_PLAYERS

/* A depth-limited search's count of positions and its abort flag (gs_search). */
typedef struct {
    uint64_t nodes;
    const int *abort;
    int stopped;
} walk;

/* Counts a position; 1 when the search is to unwind (the abort flag, looked at every 256 positions). */
static inline int walk_node(walk *w)
{
    if (!(++w->nodes & 255) && w->abort && __atomic_load_n(w->abort, __ATOMIC_RELAXED))
        w->stopped = 1;
    return w->stopped;
}

static void maxn(const game *g, const game_pos *p, int depth, double *value, int *best, walk *nodes)
{
    *best = -1;
    if (walk_node(nodes) || p->over || depth == 0) {
        game_estimate(g, p, value);
        return;
    }
    const int me = p->to_move;
    double child[NP];
    for (unsigned legal = game_legal(g, p); legal; legal &= legal - 1) {
        int k = __builtin_ctz(legal), ignored;
        game_pos c = *p;
        game_apply(g, &c, k, NULL);
        maxn(g, &c, depth - 1, child, &ignored, nodes);
        if (*best < 0 || child[me] > value[me]) {
            *best = k;
            memcpy(value, child, sizeof child);
        }
    }
}

/* Alpha-beta on the root player's entry; the line's full vector comes back in `vec`. */
static double paranoid(const game *g, const game_pos *p, int root, int depth, double alpha, double beta,
                       double *vec, int *best, walk *nodes)
{
    *best = -1;
    if (walk_node(nodes) || p->over || depth == 0) {
        game_estimate(g, p, vec);
        return vec[root];
    }
    const int maximise = p->to_move == root;
    double bestv = maximise ? -3.0 : 3.0, child[NP];
    for (unsigned legal = game_legal(g, p); legal; legal &= legal - 1) {
        int k = __builtin_ctz(legal), ignored;
        game_pos c = *p;
        game_apply(g, &c, k, NULL);
        double v = paranoid(g, &c, root, depth - 1, alpha, beta, child, &ignored, nodes);
        if (maximise ? v > bestv : v < bestv) {
            bestv = v;
            *best = k;
            memcpy(vec, child, sizeof child);
        }
        if (maximise ? (bestv > alpha && (alpha = bestv) >= beta) : (bestv < beta && (beta = bestv) <= alpha))
            break;
    }
    return bestv;
}

int gs_search(const game *g, const game_pos *p, gs_kind kind, int depth, const int *abort, gs_result *out)
{
    memset(out, 0, sizeof *out);
    out->move = -1;
    if (depth < 1 || depth > 64 || (kind != GS_MAXN && kind != GS_PARANOID))
        return GAME_EINVAL;
    if (p->over) {
        game_values(g, p, out->value);
        return GAME_EOVER;
    }
    walk w = {0, abort, 0};
    if (kind == GS_MAXN)
        maxn(g, p, depth, out->value, &out->move, &w);
    else
        paranoid(g, p, p->to_move, depth, -3.0, 3.0, out->value, &out->move, &w);
    out->nodes = w.nodes;
    return w.stopped ? GS_EABORTED : GAME_OK;
}

/* ---- exact solve (the básico family_search over the game interface) ---- */

#define INF 30000 /* beyond any margin; a bound meaning "none" (fits the table's int16 bounds) */

struct gs_solver {
    const game *g;
    const void *rules;     /* the kind's rules and its two hot functions, called directly: the solve is */
    const game_kind *kind; /* millions of moves, the wrappers of env/game.c one call too many */
    tt_table tt;
    game_solve_props props;
    int cells, inert, has_endgame, seeds; /* props' flags; seeds: on the board at the root (conserved) */
    uint64_t key_mask[GAME_MAX_CELLS / 8]; /* the board words, score bytes cleared when inert */
    uint64_t nodes, limit;
    /* One compare per node serves the node limit and the progress report: search() calls checkpoint()
     * once nodes reaches check_at, the nearer of the two (UINT64_MAX: neither). */
    uint64_t check_at, every, report_at;
    gs_progress_fn progress;
    void *progress_ctx;
    const int *abort;     /* gs_solver_set_abort; NULL: none */
    int status, game_rc; /* GAME_OK, or the error that unwinds the search; the failing move's code */
    const gs_special *sp; /* the kind's own solver, which runs instead (game_search_impl.h); NULL: none */
    void *spx;
};

/* The specialised solvers, found by their kind. */
static const gs_special *const specials[] = {&gs_special_kalah};

static const gs_special *special_for(const game *g)
{
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        if (specials[i]->kind == game_get_kind(g))
            return specials[i];
    return NULL;
}

int gs_solvable(const game *g, char *err)
{
    if (game_players(g) != 2 || !game_has_margin(g)) {
        set_err(err, "exact solve needs a two-player game with a margin; %s has %d players%s", game_spec(g),
                game_players(g), game_has_margin(g) ? "" : " and no margin");
        return GAME_EINVAL;
    }
    game_solve_props props;
    game_solve_properties(g, &props);
    if ((props.flags & GAME_SOLVE_CAN_REPEAT) && props.ply_limit == 0) {
        set_err(err, "%s: with max_sows=0 positions can repeat (the position graph has cycles): no solve "
                "ends; set max_sows > 0", game_spec(g));
        return GAME_EINVAL;
    }
    return GAME_OK;
}

static gs_solver *create(const game *g, size_t tt_mb, const gs_special *sp, char *err)
{
    if (gs_solvable(g, err) != GAME_OK)
        return NULL;
    if (tt_mb < 1 || tt_mb > 65536) {
        set_err(err, "transposition table size %zu MiB is out of range 1..65536", tt_mb);
        return NULL;
    }
    if (sp) {
        gs_solver *s = calloc(1, sizeof *s);
        if (!s || !(s->spx = sp->create(g, tt_mb, err))) {
            if (!s)
                set_err(err, "out of memory");
            free(s);
            return NULL;
        }
        s->g = g;
        s->sp = sp;
        return s;
    }
    gs_solver *s = calloc(1, sizeof *s);
    if (!s || tt_init(&s->tt, tt_mb) != 0) {
        free(s);
        set_err(err, "out of memory for a %zu MiB transposition table", tt_mb);
        return NULL;
    }
    s->g = g;
    s->rules = game_rules(g);
    s->kind = game_get_kind(g);
    game_solve_properties(g, &s->props);
    s->cells = (s->props.flags & GAME_SOLVE_SCORE_CELLS) != 0;
    s->inert = s->cells && (s->props.flags & GAME_SOLVE_SCORES_INERT);
    s->has_endgame = game_get_kind(g)->endgame != NULL;
    uint8_t mask[GAME_MAX_CELLS];
    memset(mask, 0xff, sizeof mask);
    if (s->inert)
        mask[s->props.score_cell[0]] = mask[s->props.score_cell[1]] = 0;
    memcpy(s->key_mask, mask, sizeof mask);
    return s;
}

gs_solver *gs_solver_create(const game *g, size_t tt_mb, char *err) { return create(g, tt_mb, special_for(g), err); }

gs_solver *gs_solver_create_generic(const game *g, size_t tt_mb, char *err) { return create(g, tt_mb, NULL, err); }

const char *gs_solver_name(const gs_solver *s) { return s->sp ? s->sp->name : "generic"; }

int gs_solver_set_smp(gs_solver *s, gs_smp smp, char *err)
{
    if (smp != GS_SMP_LAZY && smp != GS_SMP_ABDADA) {
        set_err(err, "unknown way of sharing a parallel search (%d)", (int)smp);
        return GAME_EINVAL;
    }
    if (s->sp && s->sp->set_smp)
        return s->sp->set_smp(s->spx, smp, err);
    return GAME_OK; /* a solver of one thread shares nothing */
}

int gs_solver_set_threads(gs_solver *s, int threads, char *err)
{
    if (threads < 1 || threads > 64) {
        set_err(err, "threads must be 1..64, got %d", threads);
        return GAME_EINVAL;
    }
    if (s->sp && s->sp->set_threads)
        return s->sp->set_threads(s->spx, threads, err);
    if (threads > 1) {
        set_err(err, "the %s solver runs on one thread", game_name(s->g));
        return GAME_EINVAL;
    }
    return GAME_OK;
}

int gs_solver_use_endgame(gs_solver *s, gs_endgame *e, char *err)
{
    e->covered = e->built = 0;
    e->seconds = 0;
    e->path[0] = e->save_err[0] = 0;
    if (e->seeds < 1 || e->seeds > 127) {
        set_err(err, "endgame database seeds must be 1..127, got %d", e->seeds);
        return GAME_EINVAL;
    }
    if (!s->sp || gs_endgame_available(s->g, err) != GAME_OK) {
        if (!s->sp)
            set_err(err, "%s: no endgame database for %s", game_spec(s->g), game_name(s->g));
        return GAME_EINVAL;
    }
    return s->sp->set_endgame(s->spx, e, err);
}

int gs_solver_set_endgame(gs_solver *s, int seeds, double *built_seconds, char *err)
{
    gs_endgame e = {.seeds = seeds};
    int rc = gs_solver_use_endgame(s, &e, err);
    if (built_seconds)
        *built_seconds = e.built ? e.seconds : 0;
    return rc;
}

int gs_solver_window(gs_solver *s, const game_pos *p, int lo, int hi, int *value, int *where, uint64_t *nodes,
                     char *err)
{
    if (nodes)
        *nodes = 0;
    if (lo > hi) {
        set_err(err, "window [%d, %d] is empty", lo, hi);
        return GAME_EINVAL;
    }
    if (s->sp && s->sp->window)
        return s->sp->window(s->spx, p, lo, hi, value, where, nodes, err);
    gs_solution sol;
    int rc = gs_solver_run(s, p, 0, &sol, err);
    if (nodes)
        *nodes = sol.nodes;
    *value = sol.value;
    *where = sol.value < lo ? -1 : sol.value > hi ? 1 : 0;
    return rc;
}

int gs_endgame_available(const game *g, char *err)
{
    const gs_special *sp = special_for(g);
    if (!sp || !sp->set_endgame) {
        set_err(err, "%s: no endgame database for %s (its exact solver has none)", game_spec(g), game_name(g));
        return GAME_EINVAL;
    }
    return sp->endgame_ok ? sp->endgame_ok(g, err) : GAME_OK;
}

int gs_solver_endgame_seeds(const gs_solver *s)
{
    return s->sp && s->sp->endgame_seeds ? s->sp->endgame_seeds(s->spx) : 0;
}

void gs_solver_set_progress(gs_solver *s, uint64_t every, gs_progress_fn fn, void *ctx)
{
    s->progress = fn;
    s->progress_ctx = ctx;
    s->every = every ? every : 1;
}

void gs_solver_set_bounds(gs_solver *s, gs_bounds_fn fn, void *ctx)
{
    if (s->sp && s->sp->set_bounds)
        s->sp->set_bounds(s->spx, fn, ctx);
}

void gs_solver_set_abort(gs_solver *s, const int *flag)
{
    s->abort = flag;
    if (s->sp)
        s->sp->set_abort(s->spx, flag);
}

/* The nearest of the node limit (stop once nodes exceeds it), the next progress report and, with an abort
 * flag, the next multiple of 256 positions. */
static void next_check(gs_solver *s)
{
    uint64_t at = s->limit ? s->limit + 1 : UINT64_MAX;
    if (s->progress && s->report_at < at)
        at = s->report_at;
    if (s->abort && (s->nodes | 255) + 1 < at)
        at = (s->nodes | 255) + 1;
    s->check_at = at;
}

/* nodes reached check_at: report progress and/or stop at the node limit or the abort flag. */
static void checkpoint(gs_solver *s)
{
    if (s->abort && __atomic_load_n(s->abort, __ATOMIC_RELAXED))
        s->status = GS_EABORTED;
    if (s->progress && s->nodes >= s->report_at) {
        s->progress(s->progress_ctx, s->nodes);
        s->report_at = (s->nodes / s->every + 1) * s->every;
    }
    if (s->limit && s->nodes > s->limit)
        s->status = GS_ESTOPPED;
    next_check(s);
}

void gs_solver_free(gs_solver *s)
{
    if (!s)
        return;
    if (s->sp)
        s->sp->free(s->spx);
    else
        tt_destroy(&s->tt);
    free(s);
}

/* The table key (see game_search.h): the two-row games' boards fill the first two words, so the rest of
 * the position is mixed in only when it is not zero. */
static tt_key key_of(const gs_solver *s, const game_pos *p)
{
    uint64_t w[GAME_MAX_CELLS / 8], x[GAME_EXTRA / 8];
    memcpy(w, p->cell, sizeof w);
    memcpy(x, p->extra, sizeof x);
    uint64_t lo = w[0] & s->key_mask[0], hi = w[1] & s->key_mask[1];
    const uint64_t w2 = w[2] & s->key_mask[2], w3 = w[3] & s->key_mask[3];
    if (w2 | w3 | x[0] | x[1]) {
        lo ^= tt_fmix(w2 ^ tt_fmix(x[0] + 0x2545f4914f6cdd1dULL));
        hi ^= tt_fmix(w3 ^ tt_fmix(x[1] + 0x94d049bb133111ebULL));
    }
    const int lim = s->props.ply_limit;
    unsigned plies = lim < 0 ? p->ply : lim > 0 && p->ply < lim ? (unsigned)(lim - p->ply) : 0;
    return tt_make_key(lo, hi, p->to_move, plies);
}

/* Own score minus the opponent's for the player to move (the margin once over; 0 for a game without score
 * cells before the end, which then has no store bounds). */
static inline int store_diff(const gs_solver *s, const game_pos *p)
{
    int d;
    if (s->cells)
        d = (int)p->cell[s->props.score_cell[0]] - (int)p->cell[s->props.score_cell[1]];
    else
        d = p->over ? game_margin(s->g, p) : 0;
    return p->to_move ? -d : d;
}

/* Seeds left in the pits (INF without score cells: no bound). */
static inline int pit_seeds(const gs_solver *s, const game_pos *p)
{
    if (!s->cells)
        return INF;
    return s->seeds - p->cell[s->props.score_cell[0]] - p->cell[s->props.score_cell[1]];
}

static int search(gs_solver *s, const game_pos *p, int ply, int alpha, int beta);

/* The value of child c for the player who moved into it (`side`): an extra turn keeps the sign. */
static inline int child_value(gs_solver *s, const game_pos *c, int side, int ply, int alpha, int beta)
{
    if (c->to_move == side)
        return search(s, c, ply + 1, alpha, beta);
    return -search(s, c, ply + 1, -beta, -alpha);
}

/* Fail-soft negamax (Knuth & Moore 1975); the value is for p->to_move. The table keeps bounds on
 * value − store_diff when the scores are inert, on the value itself otherwise (d_key = 0). */
static int search(gs_solver *s, const game_pos *p, int ply, int alpha, int beta)
{
    s->nodes++;
    if (p->over)
        return store_diff(s, p);
    if (s->status)
        return 0;
    if (ply > GS_MAX_PLY) {
        s->status = GS_EDEEP;
        return 0;
    }
    if (s->nodes >= s->check_at) {
        checkpoint(s);
        if (s->status)
            return 0;
    }
    int db;
    if (s->has_endgame && game_endgame(s->g, p, &db))
        return p->to_move ? -db : db;
    const int d = store_diff(s, p), rest = pit_seeds(s, p), dk = s->inert ? d : 0;
    if (d + rest <= alpha)
        return d + rest;
    if (d - rest >= beta)
        return d - rest;
    const tt_key key = key_of(s, p);
    int lo = d - rest, hi = d + rest, tt_move = -1;
    tt_entry ebuf;
    const tt_entry *e = tt_probe(&s->tt, key, &ebuf);
    if (e) {
        tt_move = e->move == TT_NO_MOVE ? -1 : e->move;
        if (tt_usable(e, TT_DEPTH_EXACT)) {
            if (e->lower != -TT_INF && e->lower + dk > lo)
                lo = e->lower + dk;
            if (e->upper != TT_INF && e->upper + dk < hi)
                hi = e->upper + dk;
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

    /* Children in order: the table's move, then by the mover's score gain (extra turns and captures
     * first), lower slots first among equals (deterministic). */
    game_pos child[GAME_MAX_MOVES];
    int order[GAME_MAX_MOVES], gain[GAME_MAX_MOVES], n = 0;
    for (unsigned legal = s->kind->legal(s->rules, p); legal; legal &= legal - 1) {
        int k = __builtin_ctz(legal);
        child[k] = *p;
        int rc = s->kind->apply(s->rules, &child[k], k, NULL);
        if (rc < 0) {
            s->status = GS_EGAME;
            s->game_rc = rc;
            return 0;
        }
        if (!child[k].over) /* its table bucket is a cache miss in a big table: start loading it now */
            tt_prefetch(&s->tt, key_of(s, &child[k]));
        const int again = child[k].to_move == p->to_move, cd = store_diff(s, &child[k]);
        gain[k] = (s->cells ? (again ? cd : -cd) - d : 0) + (k == tt_move ? 1000 : 0) +
                  (again && !child[k].over ? 50 : 0);
        int j = n++;
        while (j > 0 && gain[order[j - 1]] < gain[k]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
    int best = -INF, best_move = TT_NO_MOVE;
    const uint64_t nodes0 = s->nodes;
    for (int i = 0; i < n; i++) {
        int k = order[i];
        int v = child_value(s, &child[k], p->to_move, ply, alpha > best ? alpha : best, beta);
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
    tt_store(&s->tt, key, TT_DEPTH_EXACT, 1, alpha - dk, beta - dk, best - dk, best_move, s->nodes - nodes0);
    return best;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int finish(gs_solver *s, char *err)
{
    switch (s->status) {
    case GS_ESTOPPED: set_err(err, "node limit of %llu reached", (unsigned long long)s->limit); break;
    case GS_EDEEP:
        set_err(err, "a line ran past %d plies without the game ending (a cycle: give the rules a max_sows)",
                GS_MAX_PLY);
        break;
    case GS_EGAME: set_err(err, "a move of %s failed with code %d", game_spec(s->g), s->game_rc); break;
    case GS_EABORTED: set_err(err, "stopped"); break;
    default: break;
    }
    return s->status;
}

int gs_solver_run(gs_solver *s, const game_pos *p, uint64_t node_limit, gs_solution *out, char *err)
{
    if (s->sp)
        return s->sp->run(s->spx, p, node_limit, out, err);
    memset(out, 0, sizeof *out);
    out->move = -1;
    const double t0 = now_s();
    s->nodes = 0;
    s->limit = node_limit;
    s->report_at = s->every;
    next_check(s);
    s->status = GAME_OK;
    s->seeds = game_board_seeds(s->g, p);
    if (p->over) {
        out->value = store_diff(s, p);
        return GAME_EOVER;
    }
    const int bound = s->cells ? pit_seeds(s, p) + 1 + abs(store_diff(s, p)) : game_board_seeds(s->g, p) + 1;
    int value = search(s, p, 0, -bound, bound);
    if (s->status)
        goto done;
    /* Every optimal root move: a null-window probe per move, v >= value (the table makes it cheap). */
    for (unsigned legal = game_legal(s->g, p); legal; legal &= legal - 1) {
        int k = __builtin_ctz(legal);
        game_pos c = *p;
        int rc = game_apply(s->g, &c, k, NULL);
        if (rc < 0) {
            s->status = GS_EGAME;
            s->game_rc = rc;
            goto done;
        }
        int v = child_value(s, &c, p->to_move, 0, value - 1, value);
        if (s->status)
            goto done;
        if (v >= value)
            out->best_mask |= 1u << k;
    }
    out->value = value;
    out->move = out->best_mask ? __builtin_ctz(out->best_mask) : -1;
done:
    out->nodes = s->nodes;
    out->seconds = now_s() - t0;
    return finish(s, err);
}

int gs_solver_moves(gs_solver *s, const game_pos *p, int *values, uint64_t *nodes, char *err)
{
    for (int k = 0; k < GAME_MAX_MOVES; k++)
        values[k] = GS_NO_VALUE;
    if (nodes)
        *nodes = 0;
    if (p->over || !game_legal(s->g, p))
        return GAME_EOVER;
    if (s->sp)
        return s->sp->moves(s->spx, p, values, nodes, err);
    for (unsigned legal = game_legal(s->g, p); legal; legal &= legal - 1) {
        int k = __builtin_ctz(legal);
        game_pos c = *p;
        int rc = game_apply(s->g, &c, k, NULL);
        if (rc < 0) {
            s->game_rc = rc;
            s->status = GS_EGAME;
            return finish(s, err);
        }
        if (c.over) { /* the final margin, for p's mover */
            values[k] = p->to_move == 0 ? game_margin(s->g, &c) : -game_margin(s->g, &c);
            continue;
        }
        gs_solution sol;
        rc = gs_solver_run(s, &c, 0, &sol, err);
        if (rc != GAME_OK)
            return rc;
        if (nodes)
            *nodes += sol.nodes;
        values[k] = c.to_move == p->to_move ? sol.value : -sol.value;
    }
    return GAME_OK;
}

static int solve_once(const game *g, const game_pos *p, uint64_t max_nodes, const int *abort, int generic,
                      gs_solution *out, char *err)
{
    memset(out, 0, sizeof *out);
    out->move = -1;
    if (gs_solvable(g, err) != GAME_OK)
        return GAME_EINVAL;
    gs_solver *s = create(g, 16, generic ? NULL : special_for(g), err); /* 1M entries: the small boards agents and serve solve */
    if (!s)
        return GAME_ENOMEM;
    const uint64_t budget = max_nodes ? max_nodes : 50000000ULL;
    gs_solver_set_abort(s, abort);
    int rc = gs_solver_run(s, p, budget, out, err);
    gs_solver_free(s);
    if (rc == GAME_EOVER)
        return GAME_OK;
    if (rc == GS_EABORTED)
        return GS_EABORTED;
    if (rc == GS_ESTOPPED)
        set_err(err, "too large to solve exactly: more than %llu positions (%s)", (unsigned long long)budget,
                game_spec(g));
    return rc == GAME_OK ? GAME_OK : GAME_EINVAL;
}

int gs_solve(const game *g, const game_pos *p, uint64_t max_nodes, const int *abort, gs_solution *out, char *err)
{
    return solve_once(g, p, max_nodes, abort, 0, out, err);
}

int gs_solve_generic(const game *g, const game_pos *p, uint64_t max_nodes, const int *abort, gs_solution *out,
                     char *err)
{
    return solve_once(g, p, max_nodes, abort, 1, out, err);
}
