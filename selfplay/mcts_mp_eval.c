/* mcts_mp_eval.c — the evaluators of any game (net: game_encode → one nn_forward; random rollouts), their
 * factories, and the single-position search mcts_mp_search (conventions in mcts_mp.h). */
#include "selfplay/mcts_mp.h"
#include "selfplay/workers.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

void mcts_mp_eval_free(mcts_mp_eval *e)
{
    if (e)
        e->destroy(e);
}

/* ---- net ---- */

typedef struct {
    mcts_mp_eval base;
    const nn_net *net;
    nn_workspace *ws;
    float *x, *v;
    uint8_t *legal;
    double margin_w; /* > 0: the margin utility's w (two players, a margin head) */
    float *margin;   /* max_batch margin-head outputs when margin_w > 0 */
} net_eval;

static int net_evaluate(mcts_mp_eval *e, const game_pos *pos, int n, float *prior, float *value)
{
    net_eval *ne = (net_eval *)e;
    const game *g = e->game;
    const int dim = game_encode_dim(g), m = game_moves(g), np = game_players(g), nv = game_value_dim(g);
    if (n < 1 || n > e->max_batch)
        return MCTS_EINVAL;
    for (int i = 0; i < n; i++) {
        game_encode(g, &pos[i], ne->x + (size_t)i * dim);
        unsigned legal = game_legal(g, &pos[i]);
        for (int k = 0; k < m; k++)
            ne->legal[i * m + k] = (uint8_t)(legal >> k & 1u);
    }
    double t0 = sp_now();
    int rc;
    if (ne->margin_w > 0) {
        nn_outputs o = {.policy = prior, .value = ne->v, .margin = ne->margin};
        rc = nn_forward_ex(ne->net, ne->ws, ne->x, ne->legal, n, &o);
        for (int i = 0; i < n; i++) { /* one value output: the mover's */
            float mg = ne->margin[i] > 1.0f ? 1.0f : ne->margin[i] < -1.0f ? -1.0f : ne->margin[i];
            ne->v[i] = (float)((ne->v[i] + ne->margin_w * mg) / (1.0 + ne->margin_w));
        }
    } else {
        rc = nn_forward(ne->net, ne->ws, ne->x, ne->legal, n, prior, ne->v);
    }
    e->forward_seconds += sp_now() - t0;
    e->calls++;
    e->positions += (uint64_t)n;
    /* value output j is relative player j (mover first): rotate to absolute order; a single output is the
     * mover's value in a two-player zero-sum game */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < np; j++)
            value[i * np + (pos[i].to_move + j) % np] = nv == 1 ? (j ? -ne->v[i] : ne->v[i]) : ne->v[i * np + j];
    return rc == NN_OK ? MCTS_OK : MCTS_EEVAL;
}

static void net_destroy(mcts_mp_eval *e)
{
    net_eval *ne = (net_eval *)e;
    nn_workspace_free(ne->ws);
    free(ne->x);
    free(ne->v);
    free(ne->legal);
    free(ne->margin);
    free(ne);
}

int mcts_mp_net_check(const nn_net *net, const game *g, char *err)
{
    const nn_config *c = nn_net_config(net);
    if (c->input_dim != game_encode_dim(g) || c->n_policy != game_moves(g) || c->n_value != game_value_dim(g)) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "net has input_dim %d, n_policy %d, n_value %d; the rules %s need %d, %d and %d",
                     c->input_dim, c->n_policy, c->n_value, game_spec(g), game_encode_dim(g), game_moves(g),
                     game_value_dim(g));
        return MCTS_EINVAL;
    }
    return MCTS_OK;
}

mcts_mp_eval *mcts_mp_eval_net_create(const nn_net *net, const game *g, int max_batch, char *err)
{
    return mcts_mp_eval_net_create_utility(net, g, max_batch, 0.0, err);
}

mcts_mp_eval *mcts_mp_eval_net_create_utility(const nn_net *net, const game *g, int max_batch, double margin_utility,
                                              char *err)
{
    if (!net || !g || max_batch < 1) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "net evaluator: %s", !net ? "no net" : !g ? "no game" : "max_batch < 1");
        return NULL;
    }
    if (mcts_mp_net_check(net, g, err) != MCTS_OK)
        return NULL;
    if (!(margin_utility >= 0 && margin_utility <= 1e6) ||
        (margin_utility > 0 && (!nn_net_config(net)->margin_head || game_value_dim(g) != 1))) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts.margin_utility %g needs a two-player game and a net with a margin head "
                     "(net.margin_head)", margin_utility);
        return NULL;
    }
    net_eval *ne = calloc(1, sizeof *ne);
    if (ne) {
        ne->base = (mcts_mp_eval){.evaluate = net_evaluate, .destroy = net_destroy, .game = g,
                                  .max_batch = max_batch};
        ne->net = net;
        ne->ws = nn_workspace_create(net, max_batch);
        ne->x = malloc((size_t)max_batch * (size_t)game_encode_dim(g) * sizeof *ne->x);
        ne->v = malloc((size_t)max_batch * (size_t)game_value_dim(g) * sizeof *ne->v);
        ne->legal = malloc((size_t)max_batch * (size_t)game_moves(g));
        ne->margin_w = margin_utility;
        ne->margin = margin_utility > 0 ? malloc((size_t)max_batch * sizeof *ne->margin) : NULL;
    }
    if (!ne || !ne->ws || !ne->x || !ne->v || !ne->legal || (margin_utility > 0 && !ne->margin)) {
        if (ne)
            net_destroy(&ne->base);
        if (err)
            snprintf(err, MCTS_ERRLEN, "net evaluator: out of memory (batch %d)", max_batch);
        return NULL;
    }
    return &ne->base;
}

/* ---- random rollouts ---- */

/* Every player's value at the end (the game's horizon estimate for a capped playout). */
static inline void rollout_values(const mcts_mp_eval *e, const game_pos *end, float *acc)
{
    double v[GAME_MAX_PLAYERS];
    game_estimate(e->game, end, v);
    for (int q = 0; q < game_players(e->game); q++)
        acc[q] += (float)v[q];
}

typedef struct {
    mcts_mp_eval base;
    int rollouts;
    mcts_rng rng;
} rollout_eval;

/* Every registered game ends (the conformance suite plays random games to the end; games with cycles bound
 * them with max_sows; Kalah's stores never shrink and between store gains every sowing moves seeds towards
 * the mover's store). The cap only guards against a rules bug: a capped playout is scored as it stands. */
#define ROLLOUT_CAP 100000

/* One uniformly random playout from start (the mover picks uniformly among its legal moves), its values
 * added to acc. */
static void playout(const mcts_mp_eval *e, const game_pos *start, mcts_rng *rng, float *acc)
{
    game_pos p = *start;
    for (int s = 0; !p.over && s < ROLLOUT_CAP; s++) {
        unsigned legal = game_legal(e->game, &p);
        uint32_t j = mcts_rng_below(rng, (uint32_t)__builtin_popcount(legal));
        while (j--)
            legal &= legal - 1; /* drop the lowest set bits until the chosen one is lowest */
        game_apply(e->game, &p, __builtin_ctz(legal), NULL);
    }
    rollout_values(e, &p, acc);
}

/* The classic MCTS baseline: uniform priors, the value the mean result of `rollouts` random playouts. */
static int rollout_evaluate(mcts_mp_eval *e, const game_pos *pos, int n, float *prior, float *value)
{
    rollout_eval *re = (rollout_eval *)e;
    const int m = game_moves(e->game), nv = game_players(e->game);
    double t0 = sp_now();
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < m; k++)
            prior[i * m + k] = 1.0f; /* the search keeps the legal ones and renormalises: uniform */
        float acc[GAME_MAX_PLAYERS] = {0};
        for (int j = 0; j < re->rollouts; j++)
            playout(e, &pos[i], &re->rng, acc);
        for (int q = 0; q < nv; q++)
            value[i * nv + q] = acc[q] / (float)re->rollouts;
    }
    e->forward_seconds += sp_now() - t0;
    e->calls++;
    e->positions += (uint64_t)n;
    return MCTS_OK;
}

static void rollout_reseed(mcts_mp_eval *e, uint64_t seed) { mcts_rng_seed(&((rollout_eval *)e)->rng, seed); }
static void rollout_destroy(mcts_mp_eval *e) { free(e); }

mcts_mp_eval *mcts_mp_eval_rollout_create(const game *g, int rollouts, int max_batch, uint64_t seed, char *err)
{
    if (!g || rollouts < 1 || max_batch < 1) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "rollout evaluator: %s",
                     !g ? "no game" : rollouts < 1 ? "rollouts must be >= 1" : "max_batch < 1");
        return NULL;
    }
    rollout_eval *re = calloc(1, sizeof *re);
    if (!re) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "rollout evaluator: out of memory");
        return NULL;
    }
    re->base = (mcts_mp_eval){.evaluate = rollout_evaluate, .reseed = rollout_reseed, .destroy = rollout_destroy,
                              .game = g, .max_batch = max_batch};
    re->rollouts = rollouts;
    mcts_rng_seed(&re->rng, seed);
    return &re->base;
}

/* ---- factories ---- */

static mcts_mp_eval *net_factory(const mcts_mp_eval_factory *f, const game *g, int max_batch,
                                 uint64_t seed, char *err)
{
    (void)seed;
    return mcts_mp_eval_net_create_utility(f->net, g, max_batch, f->margin_utility, err);
}

static mcts_mp_eval *rollout_factory(const mcts_mp_eval_factory *f, const game *g, int max_batch,
                                     uint64_t seed, char *err)
{
    return mcts_mp_eval_rollout_create(g, f->rollouts, max_batch, seed, err);
}

mcts_mp_eval_factory mcts_mp_eval_factory_net(const nn_net *net)
{
    return (mcts_mp_eval_factory){.create = net_factory, .net = net};
}

mcts_mp_eval_factory mcts_mp_eval_factory_rollout(int rollouts)
{
    return (mcts_mp_eval_factory){.create = rollout_factory, .rollouts = rollouts};
}

/* ---- the single-position search ---- */

/* Milliseconds on CLOCK_MONOTONIC (the time budget of mcts_mp_search_timed). */
static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int mcts_mp_search(const game *g, const game_pos *p, const mcts_config *cfg, mcts_mp_eval *ev,
                   uint64_t seed, mcts_mp_result *out, char *err)
{
    return mcts_mp_search_timed(g, p, cfg, ev, seed, 0, NULL, out, err);
}

int mcts_mp_search_timed(const game *g, const game_pos *p, const mcts_config *cfg, mcts_mp_eval *ev,
                         uint64_t seed, int64_t ms, const int *abort, mcts_mp_result *out, char *err)
{
    if (!g || !p || !cfg || !ev || !out) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts_mp_search: NULL argument");
        return MCTS_EINVAL;
    }
    int rc = mcts_config_check(cfg, err);
    if (rc != MCTS_OK)
        return rc;
    if (ev->max_batch < cfg->leaves_per_game || strcmp(game_spec(ev->game), game_spec(g))) {
        if (err)
            snprintf(err, MCTS_ERRLEN,
                     "mcts_mp_search: evaluator batch %d < mcts.leaves_per_game %d, or its rules differ",
                     ev->max_batch, cfg->leaves_per_game);
        return MCTS_EINVAL;
    }
    if (p->over || game_legal(g, p) == 0) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts_mp_search: the game is over");
        return MCTS_EOVER;
    }
    mcts_config c = *cfg;
    c.dirichlet_eps = 0.0;
    c.gumbel_scale = 0.0;      /* the self-play noises and the training-only lever are off: an agent's search */
    c.forced_playouts_k = 0.0;
    mcts_mp_tree *t = mcts_mp_tree_create(g, &c, seed, err);
    if (!t)
        return MCTS_ENOMEM;
    if (ev->reseed)
        ev->reseed(ev, seed);
    mcts_mp_set_root(t, p);
    uint64_t evals0 = ev->positions;
    rc = mcts_mp_run(t, ev, c.leaves_per_game, ms, abort, err);
    if (rc == MCTS_OK) {
        memset(out, 0, sizeof *out);
        out->root_visits = mcts_mp_root_visits(t, out->visits, NULL);
        mcts_mp_policy(t, 1.0, out->pi);
        out->move = mcts_mp_choose(t, 0.0);
        out->proven = mcts_mp_root_value(t, out->value);
        out->won = mcts_mp_root_won(t);
        out->evals = ev->positions - evals0;
        if (out->move < 0) {
            rc = MCTS_EEVAL;
            if (err)
                snprintf(err, MCTS_ERRLEN, "mcts_mp_search: the search visited no move");
        }
    }
    mcts_mp_tree_free(t);
    return rc;
}

int mcts_mp_run(mcts_mp_tree *t, mcts_mp_eval *ev, int leaves, int64_t ms, const int *abort, char *err)
{
    const int64_t deadline = ms > 0 ? now_ms() + ms : 0;
    const int B = leaves, np = game_players(ev->game), m = game_moves(ev->game);
    int rc = MCTS_OK, visits[GAME_MAX_MOVES];
    game_pos *leaf = malloc((size_t)B * sizeof *leaf);
    int *handle = malloc((size_t)B * sizeof *handle);
    float *prior = malloc((size_t)B * (size_t)m * sizeof *prior);
    float *value = malloc((size_t)B * (size_t)np * sizeof *value);
    if (!leaf || !handle || !prior || !value)
        rc = MCTS_ENOMEM;
    /* Gather up to B leaves (collisions end a gather early: the rest of the tree is then pending), evaluate
     * them in one call, complete them. */
    while (rc == MCTS_OK && !mcts_mp_done(t)) {
        int n = 0;
        for (int tries = 0; n < B && tries < 4 * B && !mcts_mp_done(t); tries++) {
            int h = mcts_mp_select(t, &leaf[n]);
            if (h >= 0)
                handle[n++] = h;
            else if (h == MCTS_ENOMEM)
                rc = MCTS_ENOMEM;
            if (h == MCTS_FULL || h == MCTS_COLLISION || h == MCTS_ENOMEM)
                break;
        }
        if (rc == MCTS_OK && n > 0 && ev->evaluate(ev, leaf, n, prior, value) != MCTS_OK) {
            rc = MCTS_EEVAL;  /* the leaves are still completed (neutrally) so the tree is consistent */
            memset(prior, 0, (size_t)n * (size_t)m * sizeof *prior);
            memset(value, 0, (size_t)n * (size_t)np * sizeof *value);
        }
        for (int i = 0; i < n; i++) {
            int crc = mcts_mp_complete(t, handle[i], prior + (size_t)i * m, value + (size_t)i * np);
            if (crc != MCTS_OK && rc == MCTS_OK)
                rc = crc;
        }
        if (deadline && now_ms() >= deadline && mcts_mp_root_visits(t, visits, NULL) > 1)
            break; /* the time is up and a child has been visited: mcts_mp_choose has something to play */
        if (abort && __atomic_load_n(abort, __ATOMIC_RELAXED) && rc == MCTS_OK)
            rc = MCTS_ESTOPPED;
    }
    if (rc != MCTS_OK && err)
        snprintf(err, MCTS_ERRLEN, "mcts_mp_search: %s",
                 rc == MCTS_ENOMEM ? "out of memory" : rc == MCTS_ESTOPPED ? "stopped" : "the evaluator failed");
    free(leaf);
    free(handle);
    free(prior);
    free(value);
    return rc;
}
