/* basico_selfplay.c — básico self-play workers: many games per thread, one evaluator call per round
 * (basico_selfplay.h). The structure follows selfplay.c; the trees are mcts_mp trees. */
#include "selfplay/basico_selfplay.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selfplay/workers.h"

#define BAD(...) (err ? snprintf(err, MCTS_ERRLEN, __VA_ARGS__) : 0, MCTS_EINVAL)

void basico_selfplay_score(const basico_rules *r, const basico_pos *p, float *out)
{
    int finished = 0;
    for (int i = 0; i < p->n_left; i++)
        finished += !p->resigned[i];
    for (int q = 0; q < r->players; q++) {
        int place = p->place[q];
        if (!place) {  /* still in play: first-finisher rule from here (basico_selfplay.h) */
            int better = 0, mine = basico_pit_stones(r, p, q);
            for (int o = 0; o < r->players; o++)
                if (!p->place[o] && basico_pit_stones(r, p, o) < mine)
                    better++;
            place = finished + 1 + better;
        }
        out[q] = (float)(2.0 * (double)(r->players - place) / (double)(r->players - 1) - 1.0);
    }
}

typedef struct {
    const basico_rules *r;
    const selfplay_config *sc;
    const mcts_config *mc;
    const mcts_mp_eval_factory *ef;
    replay_buffer *rb;
    atomic_int started, abort;
} shared;

typedef struct {
    mcts_mp_tree *tree;
    int active, n, cap;
    float *x, *pi;
    uint8_t *legal, *mover;
} game;

typedef struct {
    shared *sh;
    uint64_t seed;
    int rc;
    char err[MCTS_ERRLEN];
    basico_selfplay_stats st;
} worker;

static int game_reserve(game *g, int dim, int m)
{
    if (g->n < g->cap)
        return 1;
    int nc = g->cap ? 2 * g->cap : 128;
    float *x = realloc(g->x, (size_t)nc * dim * sizeof *x);
    if (x)
        g->x = x;
    float *pi = realloc(g->pi, (size_t)nc * m * sizeof *pi);
    if (pi)
        g->pi = pi;
    uint8_t *legal = realloc(g->legal, (size_t)nc * m);
    if (legal)
        g->legal = legal;
    uint8_t *mover = realloc(g->mover, (size_t)nc);
    if (mover)
        g->mover = mover;
    if (!x || !pi || !legal || !mover)
        return 0;
    g->cap = nc;
    return 1;
}

static void game_free(game *g)
{
    mcts_mp_tree_free(g->tree);
    free(g->x), free(g->pi), free(g->legal), free(g->mover);
}

static void game_start(shared *sh, game *g)
{
    g->active = !atomic_load(&sh->abort) && atomic_fetch_add(&sh->started, 1) < sh->sc->games;
    g->n = 0;
    if (g->active) {
        basico_pos p;
        basico_start(sh->r, &p);
        mcts_mp_set_root(g->tree, &p);
    }
}

static int game_finish(worker *w, game *g)
{
    shared *sh = w->sh;
    const basico_rules *r = sh->r;
    const int dim = basico_encode_dim(r), m = r->pits, np = r->players;
    const basico_pos *end = mcts_mp_root_pos(g->tree);
    float v[BASICO_MAX_PLAYERS], z[256][BASICO_MAX_PLAYERS];
    basico_selfplay_score(r, end, v);
    w->st.games++;
    w->st.samples += (uint64_t)g->n;
    w->st.capped += !end->over;
    for (int q = 0; q < np; q++)
        w->st.wins[q] += v[q] >= 1.0f;
    int rc = MCTS_OK;
    if (sh->rb) {
        replay_sample s[256];
        for (int i = 0; i < g->n && rc == MCTS_OK; i += 256) {
            int k = g->n - i < 256 ? g->n - i : 256;
            for (int j = 0; j < k; j++) {
                int t = i + j;
                for (int q = 0; q < np; q++)
                    z[j][q] = v[(g->mover[t] + q) % np];
                s[j] = (replay_sample){.x = g->x + (size_t)t * dim,
                                       .legal = g->legal + (size_t)t * m,
                                       .pi = g->pi + (size_t)t * m,
                                       .z = z[j],
                                       .margin = 0.0f};
            }
            rc = replay_add(sh->rb, s, k);
        }
    }
    return rc;
}

static int game_move(worker *w, game *g)
{
    shared *sh = w->sh;
    const basico_rules *r = sh->r;
    const int dim = basico_encode_dim(r), m = r->pits;
    const basico_pos *root = mcts_mp_root_pos(g->tree);
    if (!game_reserve(g, dim, m))
        return MCTS_ENOMEM;
    double tau = g->n < sh->mc->temp_moves ? sh->mc->temperature : 0.0;
    basico_encode(r, root, g->x + (size_t)g->n * dim);
    unsigned legal = basico_legal(r, root);
    for (int k = 0; k < m; k++)
        g->legal[g->n * m + k] = (uint8_t)(legal >> k & 1u);
    int rc = mcts_mp_policy(g->tree, sh->sc->pi_visits ? 1.0 : tau, g->pi + (size_t)g->n * m);
    int move = rc == MCTS_OK ? mcts_mp_choose(g->tree, tau) : rc;
    if (move < 0)
        return MCTS_EINVAL;
    g->mover[g->n++] = root->to_move;
    rc = mcts_mp_advance(g->tree, move);
    if (rc != MCTS_OK && rc != MCTS_ENOMEM)
        return rc;
    rc = MCTS_OK;
    if (mcts_mp_root_pos(g->tree)->over || g->n >= sh->sc->max_moves) {
        rc = game_finish(w, g);
        game_start(sh, g);
    }
    return rc;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    const basico_rules *r = sh->r;
    const int G = sh->sc->games_per_thread, L = sh->mc->leaves_per_game, cap = G * L;
    const int m = r->pits, np = r->players;
    double t0 = sp_now();
    uint64_t st = w->seed;
    mcts_mp_eval *ev = sh->ef->create(sh->ef, r, cap, mcts_splitmix64(&st), w->err);
    game *games = calloc((size_t)G, sizeof *games);
    basico_pos *leaf = malloc((size_t)cap * sizeof *leaf);
    int *owner = malloc((size_t)cap * sizeof *owner), *handle = malloc((size_t)cap * sizeof *handle);
    float *prior = malloc((size_t)cap * (size_t)m * sizeof *prior);
    float *value = malloc((size_t)cap * (size_t)np * sizeof *value);
    int rc = ev ? MCTS_OK : MCTS_EEVAL;
    if (rc == MCTS_OK && (!games || !leaf || !owner || !handle || !prior || !value))
        rc = MCTS_ENOMEM;
    for (int i = 0; i < G && rc == MCTS_OK; i++)
        if (!(games[i].tree = mcts_mp_tree_create(r, sh->mc, mcts_splitmix64(&st), w->err)))
            rc = MCTS_ENOMEM;
    if (rc == MCTS_OK)
        for (int i = 0; i < G; i++)
            game_start(sh, &games[i]);
    for (int active = 1; rc == MCTS_OK && active;) {
        active = 0;
        int n = 0;
        for (int i = 0; i < G && rc == MCTS_OK; i++) {
            game *g = &games[i];
            while (g->active && rc == MCTS_OK && mcts_mp_done(g->tree))
                rc = game_move(w, g);
            if (!g->active || rc != MCTS_OK)
                continue;
            active = 1;
            /* up to L leaves of this game; a simulation that ends on a finished/proven node needs no leaf */
            for (int tries = 0; tries < 4 * L && mcts_mp_pending(g->tree) < L && !mcts_mp_done(g->tree); tries++) {
                int h = mcts_mp_select(g->tree, &leaf[n]);
                if (h >= 0) {
                    owner[n] = i;
                    handle[n++] = h;
                } else if (h == MCTS_ENOMEM) {
                    rc = h;
                }
                if (h == MCTS_FULL || h == MCTS_COLLISION || h == MCTS_ENOMEM)
                    break;
            }
        }
        if (n > 0 && rc == MCTS_OK) {
            rc = ev->evaluate(ev, leaf, n, prior, value) == MCTS_OK ? MCTS_OK : MCTS_EEVAL;
            w->st.batches++;
            for (int j = 0; j < n && rc == MCTS_OK; j++) {
                int c = mcts_mp_complete(games[owner[j]].tree, handle[j], prior + (size_t)j * m,
                                         value + (size_t)j * np);
                rc = c == MCTS_ENOMEM ? c : MCTS_OK;
            }
        }
        if (atomic_load(&sh->abort))
            break;
    }
    if (rc != MCTS_OK) {
        atomic_store(&sh->abort, 1);
        if (!w->err[0])
            snprintf(w->err, MCTS_ERRLEN, "basico self-play worker: %s",
                     rc == MCTS_ENOMEM ? "out of memory" : "evaluator failed");
    }
    w->rc = rc;
    if (ev) {
        w->st.evals = ev->positions;
        w->st.forward_seconds = ev->forward_seconds;
    }
    for (int i = 0; games && i < G; i++)
        game_free(&games[i]);
    free(games), free(leaf), free(owner), free(handle), free(prior), free(value);
    mcts_mp_eval_free(ev);
    w->st.thread_seconds = sp_now() - t0;
    return NULL;
}

int basico_selfplay_run(const basico_rules *r, const selfplay_config *sc, const mcts_config *mc,
                        const mcts_mp_eval_factory *ef, replay_buffer *rb, uint64_t seed,
                        basico_selfplay_stats *st, char *err)
{
    int rc;
    if (!r || !ef || !ef->create)
        return BAD("basico self-play: rules and evaluator factory are required");
    if (basico_rules_check(r, err) != BASICO_OK)
        return MCTS_EINVAL;
    if ((rc = selfplay_config_check(sc, err)) != MCTS_OK || (rc = mcts_config_check(mc, err)) != MCTS_OK)
        return rc;
    if (rb && (replay_dim(rb) != basico_encode_dim(r) || replay_pits(rb) != r->pits ||
               replay_n_value(rb) != r->players))
        return BAD("basico self-play: the replay buffer holds dim %d / pits %d / n_value %d, the rules need "
                   "%d / %d / %d", replay_dim(rb), replay_pits(rb), replay_n_value(rb), basico_encode_dim(r),
                   r->pits, r->players);
    nn_set_blas_threads(1);
    shared sh = {.r = r, .sc = sc, .mc = mc, .ef = ef, .rb = rb};
    atomic_init(&sh.started, 0);
    atomic_init(&sh.abort, 0);
    const int n = sc->threads;
    worker *w = calloc((size_t)n, sizeof *w);
    if (!w)
        return BAD("basico self-play: out of memory");
    uint64_t state = seed;
    double t0 = sp_now();
    rc = MCTS_OK;
    for (int i = 0; i < n; i++) {
        w[i].sh = &sh;
        w[i].seed = mcts_splitmix64(&state);
    }
    int started = sp_run_threads(n, w, sizeof *w, worker_main, &sh.abort);
    if (started < n)
        rc = BAD("basico self-play: cannot start worker thread %d", started);
    basico_selfplay_stats tot = {0};
    tot.seconds = sp_now() - t0;
    for (int i = 0; i < started; i++) {
        basico_selfplay_stats *s = &w[i].st;
        tot.games += s->games, tot.samples += s->samples, tot.capped += s->capped;
        for (int q = 0; q < BASICO_MAX_PLAYERS; q++)
            tot.wins[q] += s->wins[q];
        tot.evals += s->evals, tot.batches += s->batches;
        tot.thread_seconds += s->thread_seconds, tot.forward_seconds += s->forward_seconds;
        if (w[i].rc != MCTS_OK && rc == MCTS_OK) {
            rc = w[i].rc;
            if (err)
                snprintf(err, MCTS_ERRLEN, "%s", w[i].err);
        }
    }
    tot.avg_batch = tot.batches ? (double)tot.evals / (double)tot.batches : 0.0;
    tot.forward_share = tot.thread_seconds > 0 ? tot.forward_seconds / tot.thread_seconds : 0.0;
    tot.positions_per_s = tot.seconds > 0 ? (double)tot.samples / tot.seconds : 0.0;
    tot.games_per_s = tot.seconds > 0 ? (double)tot.games / tot.seconds : 0.0;
    if (st)
        *st = tot;
    free(w);
    return rc;
}
