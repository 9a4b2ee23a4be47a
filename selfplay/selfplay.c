/* selfplay.c — worker threads, each running many games whose leaves share one evaluator call (selfplay.h). */
#include "selfplay/selfplay.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/game_twoside.h" /* gt_to_kalah: "kalah"'s game_pos holds a kalah_pos */
#include "selfplay/batcher.h"
#include "selfplay/levers.h"
#include "selfplay/mcts_tb.h"
#include "selfplay/workers.h"

selfplay_config selfplay_config_default(void)
{
    selfplay_config c = {.threads = 1, .games_per_thread = 64, .games = 256, .max_moves = 1000, .pi_visits = 0,
                         .pi_temperature = 1.0,
                         .full_sims_prob = 1.0, .fast_sims = 0,
                         .rescore = 0, .rescore_policy = 0, .opening_plies = 0,
                         .opening_sims = 0, .opening_seeds = 33, .surprise_weight = 0};
    return c;
}

#define BAD(...) (err ? snprintf(err, MCTS_ERRLEN, __VA_ARGS__) : 0, MCTS_EINVAL)

int selfplay_config_check(const selfplay_config *c, char *err)
{
    if (!c)
        return BAD("selfplay config is NULL");
    if (c->threads < 1 || c->threads > 256)
        return BAD("selfplay.threads must be in 1..256, got %d", c->threads);
    if (c->games_per_thread < 1 || c->games_per_thread > 4096)
        return BAD("selfplay.games_per_thread must be in 1..4096, got %d", c->games_per_thread);
    if (c->games < 1)
        return BAD("selfplay.games must be >= 1, got %d", c->games);
    if (c->max_moves < 1)
        return BAD("selfplay.max_moves must be >= 1, got %d", c->max_moves);
    if (c->pi_visits != 0 && c->pi_visits != 1)
        return BAD("selfplay.pi_visits must be 0 or 1, got %d", c->pi_visits);
    if (!(c->pi_temperature > 0 && c->pi_temperature <= 100))
        return BAD("selfplay.pi_temperature must be in (0, 100], got %g", c->pi_temperature);
    if (!(c->full_sims_prob >= 0 && c->full_sims_prob <= 1))
        return BAD("selfplay.full_sims_prob must be in [0, 1], got %g", c->full_sims_prob);
    if (c->fast_sims < 0 || c->fast_sims > 100000000 || (c->full_sims_prob < 1 && c->fast_sims < 1))
        return BAD("selfplay.fast_sims must be in 1..100000000 when selfplay.full_sims_prob < 1, got %d",
                   c->fast_sims);
    if (c->rescore != 0 && c->rescore != 1)
        return BAD("selfplay.rescore must be 0 or 1, got %d", c->rescore);
    if (c->rescore_policy != 0 && c->rescore_policy != 1)
        return BAD("selfplay.rescore_policy must be 0 or 1, got %d", c->rescore_policy);
    if (c->rescore_policy && !c->rescore)
        return BAD("selfplay.rescore_policy needs selfplay.rescore");
    if (c->opening_plies < 0 || c->opening_plies > 100)
        return BAD("selfplay.opening_plies must be in 0..100, got %d", c->opening_plies);
    if (c->opening_sims < 0 || c->opening_sims > 100000000)
        return BAD("selfplay.opening_sims must be in 0..100000000, got %d", c->opening_sims);
    if (c->opening_seeds < 1 || c->opening_seeds > 255)
        return BAD("selfplay.opening_seeds must be in 1..255, got %d", c->opening_seeds);
    if (!(c->surprise_weight >= 0 && c->surprise_weight <= 1))
        return BAD("selfplay.surprise_weight must be in [0, 1], got %g", c->surprise_weight);
    return MCTS_OK;
}

typedef struct {
    const kalah_rules *r;
    game *game;             /* r as a game of the game interface, for the levers written against it (levers.h);
                             * created only when opening_plies needs it */
    const selfplay_config *sc;
    const mcts_config *mc;
    mcts_config fast;       /* the search of a fast decision (playout cap randomization) */
    mcts_config opening;    /* the search of a full decision with >= opening_seeds seeds in the pits */
    const mcts_eval_factory *ef;
    replay_buffer *rb;
    int records;            /* game records wanted (each worker writes its own, joined in order) */
    atomic_int abort;
} shared;

/* One game slot of a worker: its tree and the decisions recorded so far. */
typedef struct {
    mcts_tree *tree;
    int active, n, cap;
    int full;               /* the decision being searched is a full one (a policy sample) */
    const mcts_config *cfg; /* the search its tree has now: sh->mc, &sh->fast or &sh->opening */
    float *x, *pi;
    uint8_t *legal, *side, *moves;
    int16_t *exact;   /* selfplay.rescore: the exact final margin for the mover of each decision, NO_EXACT */
    float *surprise;  /* selfplay.surprise_weight: KL(π ‖ P) of each decision, −1 for a value-only one */
    kalah_pos start;  /* where the recorded decisions begin (after the random opening, selfplay.opening_plies) */
} slot;

#define NO_EXACT INT16_MIN /* a decision whose position the database does not cover */

/* A worker's finished games' samples, in the order its games ended, until selfplay_run hands them to the
 * replay buffer worker after worker (so that the buffer's order does not depend on thread timing). */
typedef struct {
    float *x, *pi, *z, *margin;
    uint8_t *legal;
    size_t n, cap;
} staged;

typedef struct {
    shared *sh;
    uint64_t seed;
    int count, next;          /* this worker's block of games (see selfplay_run), and how many have started */
    staged out;
    mcts_rng copies;          /* selfplay.surprise_weight's draws: a stream of its own, so the games do not
                               * depend on the key */
    FILE *records;            /* open_memstream over rec_buf when records are wanted */
    char *rec_buf;
    size_t rec_len;
    int rc;
    char err[MCTS_ERRLEN];
    selfplay_stats st;
} worker;

static int slot_reserve(slot *g, int dim, int m)
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
    uint8_t *side = realloc(g->side, (size_t)nc);
    if (side)
        g->side = side;
    uint8_t *moves = realloc(g->moves, (size_t)nc);
    if (moves)
        g->moves = moves;
    int16_t *exact = realloc(g->exact, (size_t)nc * sizeof *exact);
    if (exact)
        g->exact = exact;
    float *surprise = realloc(g->surprise, (size_t)nc * sizeof *surprise);
    if (surprise)
        g->surprise = surprise;
    if (!x || !pi || !legal || !side || !moves || !exact || !surprise)
        return 0;
    g->cap = nc;
    return 1;
}

static void slot_free(slot *g)
{
    mcts_tree_free(g->tree);
    free(g->x), free(g->pi), free(g->legal), free(g->side), free(g->moves), free(g->exact), free(g->surprise);
}

/* Chooses the search of g's next decision, at position next, and gives it to g's tree before the search's
 * root is set or reached (the root noise follows the config): sp_decision_search (levers.h), drawn from the
 * tree's RNG; next's seeds in the pits are counted only for opening_sims. */
static void cap_draw(const shared *sh, slot *g, const kalah_pos *next)
{
    int kind = sp_decision_search(sh->sc, mcts_tree_rng(g->tree),
                                  sh->sc->opening_sims > 0 ? mcts_tb_seeds_in_pits(sh->r, next) : 0);
    g->full = kind != SP_SEARCH_FAST;
    const mcts_config *cfg = kind == SP_SEARCH_FAST ? &sh->fast : kind == SP_SEARCH_OPENING ? &sh->opening : sh->mc;
    if (cfg != g->cfg)
        mcts_tree_set_config(g->tree, cfg, NULL); /* all three checked by selfplay_run */
    g->cfg = cfg;
}

/* Starts the worker's next game in g, or deactivates g when all of its games have started. */
static void slot_start(worker *w, slot *g)
{
    shared *sh = w->sh;
    g->active = !atomic_load(&sh->abort) && w->next < w->count;
    w->next += g->active;
    g->n = 0;
    if (g->active) {
        kalah_pos p;
        if (sh->sc->opening_plies > 0) {
            game_pos q;
            sp_random_opening(sh->game, sh->sc->opening_plies, mcts_tree_rng(g->tree), &q);
            gt_to_kalah(&q, &p);
        } else {
            kalah_start(sh->r, &p);
        }
        g->start = p;
        cap_draw(sh, g, &p);
        mcts_set_root(g->tree, &p);
    }
}

/* Final margin South − North, sweeping each side's pits into its own store when the game did not end. */
static int final_margin(const kalah_rules *r, const kalah_pos *p)
{
    int m = r->pits, d = 0;
    for (int i = 0; i <= m; i++)
        d += p->cell[i] - p->cell[m + 1 + i];
    return d;
}

/* Room for k more samples in the worker's staging arrays. */
static int staged_reserve(staged *o, size_t k, int dim, int m)
{
    if (o->n + k <= o->cap)
        return 1;
    size_t nc = o->cap ? 2 * o->cap : 1024;
    while (nc < o->n + k)
        nc *= 2;
    float *x = realloc(o->x, nc * (size_t)dim * sizeof *x);
    if (x)
        o->x = x;
    float *pi = realloc(o->pi, nc * (size_t)m * sizeof *pi);
    if (pi)
        o->pi = pi;
    float *z = realloc(o->z, nc * sizeof *z);
    if (z)
        o->z = z;
    float *margin = realloc(o->margin, nc * sizeof *margin);
    if (margin)
        o->margin = margin;
    uint8_t *legal = realloc(o->legal, nc * (size_t)m);
    if (legal)
        o->legal = legal;
    if (!x || !pi || !z || !margin || !legal)
        return 0;
    o->cap = nc;
    return 1;
}

static void staged_free(staged *o)
{
    free(o->x), free(o->pi), free(o->z), free(o->margin), free(o->legal);
}

/* Appends a worker's staged samples to rb, 256 at a time. */
static int staged_flush(const staged *o, replay_buffer *rb, int dim, int m)
{
    replay_sample s[256];
    int rc = MCTS_OK;
    for (size_t i = 0; i < o->n && rc == MCTS_OK; i += 256) {
        int k = o->n - i < 256 ? (int)(o->n - i) : 256;
        for (int j = 0; j < k; j++) {
            size_t t = i + (size_t)j;
            s[j] = (replay_sample){.x = o->x + t * (size_t)dim, .legal = o->legal + t * (size_t)m,
                                   .pi = o->pi + t * (size_t)m, .z = &o->z[t], .margin = o->margin[t]};
        }
        rc = replay_add(rb, s, k);
    }
    return rc;
}

/* The value and margin targets of g's decision t in a game that ended with `margin` (South − North) and
 * result res: the outcome for its mover, or its exact value when rescored (selfplay.h). */
static void value_targets(const slot *g, int t, int res, int margin, float scale, float *z, float *mg)
{
    int sgn = g->side[t] == KALAH_SOUTH ? 1 : -1, ex = g->exact[t];
    if (ex != NO_EXACT) { /* rescored (selfplay.h): the exact value replaces the game's outcome */
        *z = (float)((ex > 0) - (ex < 0));
        *mg = (float)ex * scale;
        return;
    }
    *z = (float)(sgn * res);
    *mg = (float)(sgn * margin) * scale;
}

static int slot_finish(worker *w, slot *g)
{
    shared *sh = w->sh;
    const kalah_rules *r = sh->r;
    int dim = kalah_encode_dim(r), m = r->pits, rc = MCTS_OK;
    int margin = final_margin(r, mcts_root_pos(g->tree)), res = (margin > 0) - (margin < 0);
    float scale = 1.0f / (float)(2 * r->pits * r->seeds);
    w->st.games++;
    w->st.samples += (uint64_t)g->n;
    w->st.south_wins += res > 0;
    w->st.north_wins += res < 0;
    w->st.draws += res == 0;
    if (sh->rb) {
        staged *o = &w->out;
        double sw = sh->sc->surprise_weight, sum = 0;
        int policy_samples = 0;
        if (sw > 0)
            sum = sp_surprise_sum(g->surprise, g->n, &policy_samples);
        for (int t = 0; t < g->n; t++) {
            int c = sw > 0 ? sp_surprise_copies(g->surprise[t], sw, sum, policy_samples, &w->copies) : 1;
            if (!staged_reserve(o, (size_t)c, dim, m))
                return MCTS_ENOMEM;
            for (; c > 0; c--, o->n++) {
                memcpy(o->x + o->n * (size_t)dim, g->x + (size_t)t * dim, (size_t)dim * sizeof *g->x);
                memcpy(o->pi + o->n * (size_t)m, g->pi + (size_t)t * m, (size_t)m * sizeof *g->pi);
                memcpy(o->legal + o->n * (size_t)m, g->legal + (size_t)t * m, (size_t)m);
                value_targets(g, t, res, margin, scale, &o->z[o->n], &o->margin[o->n]);
            }
        }
    }
    if (w->records && rc == MCTS_OK) {
        rc = selfplay_record_write(w->records, r, &g->start, g->moves, g->n, "sowzero self-play", "selfplay",
                                   "selfplay");
    }
    return rc;
}

/* selfplay.rescore: the exact final margin for the mover of unfinished position p when the search's
 * tablebase covers it (at most mcts.tablebase_seeds seeds in the pits), else NO_EXACT. */
static int exact_margin(const mcts_config *mc, const kalah_rules *r, const kalah_pos *p)
{
    return mcts_tb_seeds_in_pits(r, p) <= mc->tablebase_seeds ? mc->tablebase->probe(mc->tablebase, p) : NO_EXACT;
}

/* selfplay.rescore_policy: pi = uniform over the optimal moves of covered position p (mcts_tb.h). */
static void optimal_policy(const mcts_config *mc, const kalah_rules *r, const kalah_pos *p, float *pi)
{
    int val[KALAH_MAX_PITS], count = 0;
    int best = mcts_tb_move_margins(mc->tablebase, mc->tablebase_seeds, r, p, val);
    for (int k = 0; k < r->pits; k++)
        count += val[k] == best;
    for (int k = 0; k < r->pits; k++)
        pi[k] = val[k] == best ? 1.0f / (float)count : 0.0f;
}

/* selfplay.surprise_weight: the surprise of the target π about to be written against the root's prior before
 * noise (mcts_root_prior; sp_policy_surprise); −1 (weight 1) when the root has no prior. */
static float policy_surprise(const mcts_tree *t, const float *pi, int m)
{
    float prior[KALAH_MAX_PITS];
    if (mcts_root_prior(t, prior) != MCTS_OK)
        return -1.0f; /* unreachable after a search; weight 1, as a value-only decision */
    return sp_policy_surprise(prior, pi, m);
}

/* The root search of g is done: record the decision, play it, and finish/restart the game when it ends. */
static int slot_move(worker *w, slot *g)
{
    shared *sh = w->sh;
    const kalah_rules *r = sh->r;
    int dim = kalah_encode_dim(r), m = r->pits;
    const kalah_pos *root = mcts_root_pos(g->tree);
    if (!slot_reserve(g, dim, m))
        return MCTS_ENOMEM;
    double tau = g->n < sh->mc->temp_moves ? sh->mc->temperature : 0.0;
    kalah_encode(r, root, g->x + (size_t)g->n * dim);
    unsigned legal = kalah_legal(r, root);
    for (int k = 0; k < m; k++)
        g->legal[g->n * m + k] = (uint8_t)(legal >> k & 1u);
    int rc = mcts_policy(g->tree, sh->sc->pi_visits ? sh->sc->pi_temperature : tau, g->pi + (size_t)g->n * m);
    int move = rc == MCTS_OK ? mcts_choose(g->tree, tau) : rc;
    if (move < 0)
        return MCTS_EINVAL;
    if (!g->full) /* a fast decision: a value-only sample, policy weight 0 (replay.h) */
        memset(g->pi + (size_t)g->n * m, 0, (size_t)m * sizeof *g->pi);
    g->side[g->n] = root->side;
    g->exact[g->n] = sh->sc->rescore ? exact_margin(sh->mc, r, root) : NO_EXACT;
    if (sh->sc->rescore_policy && g->exact[g->n] != NO_EXACT)
        optimal_policy(sh->mc, r, root, g->pi + (size_t)g->n * m);
    if (sh->sc->surprise_weight > 0)
        g->surprise[g->n] = g->full ? policy_surprise(g->tree, g->pi + (size_t)g->n * m, m) : -1.0f;
    g->moves[g->n++] = (uint8_t)move;
    kalah_pos next = *root; /* the next decision's position: cap_draw reads it only for opening_sims */
    if (sh->sc->opening_sims > 0)
        kalah_sow(r, &next, move, NULL);
    cap_draw(sh, g, &next);
    w->st.simulations += (uint64_t)mcts_sims_done(g->tree);
    rc = mcts_advance(g->tree, move);
    if (rc != MCTS_OK && rc != MCTS_ENOMEM)
        return rc;
    if (mcts_root_pos(g->tree)->over || g->n >= sh->sc->max_moves) {
        rc = slot_finish(w, g);
        slot_start(w, g);
    }
    return rc;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    const kalah_rules *r = sh->r;
    int G = sh->sc->games_per_thread, cap = G * sh->mc->leaves_per_game;
    double t0 = sp_now();
    uint64_t st = w->seed, cs = w->seed ^ 0x5375727072697365ull; /* "Surprise": the copies' own stream */
    mcts_rng_seed(&w->copies, mcts_splitmix64(&cs));
    mcts_eval *ev = sh->ef->create(sh->ef, r, cap, mcts_splitmix64(&st), w->err);
    mcts_batcher *b = mcts_batcher_create(r, cap);
    slot *games = calloc((size_t)G, sizeof *games);
    mcts_tree **live = calloc((size_t)G, sizeof *live);
    int rc = ev ? MCTS_OK : MCTS_EEVAL;
    if (rc == MCTS_OK && (!b || !games || !live))
        rc = MCTS_ENOMEM;
    for (int i = 0; i < G && rc == MCTS_OK; i++) {
        if (!(games[i].tree = mcts_tree_create(r, sh->mc, mcts_splitmix64(&st), w->err)))
            rc = MCTS_ENOMEM;
        games[i].full = 1; /* the tree holds the full search */
        games[i].cfg = sh->mc;
    }
    if (rc == MCTS_OK && sh->records && !(w->records = open_memstream(&w->rec_buf, &w->rec_len)))
        rc = MCTS_ENOMEM;
    if (rc == MCTS_OK)
        for (int i = 0; i < G; i++)
            slot_start(w, &games[i]);
    for (int active = 1; rc == MCTS_OK && active;) {
        /* Moves first, then all live trees descend together: gather_many interleaves their descents
         * (batcher.h), with the same leaves in the same order as gathering one game after the other. */
        active = 0;
        for (int i = 0; i < G && rc == MCTS_OK; i++) {
            slot *g = &games[i];
            while (g->active && rc == MCTS_OK && mcts_done(g->tree))
                rc = slot_move(w, g);
            if (g->active && rc == MCTS_OK)
                live[active++] = g->tree;
        }
        if (rc == MCTS_OK && active) {
            int k = mcts_batcher_gather_many(b, live, active);
            rc = k < 0 ? k : MCTS_OK;
        }
        if (rc == MCTS_OK)
            rc = mcts_batcher_flush(b, ev);
        if (atomic_load(&sh->abort))
            break;
    }
    if (rc != MCTS_OK) {
        atomic_store(&sh->abort, 1);
        if (!w->err[0])
            snprintf(w->err, MCTS_ERRLEN, "self-play worker: %s",
                     rc == MCTS_ENOMEM ? "out of memory" : rc == MCTS_EIO ? "cannot write a game record"
                                                                        : "evaluator failed");
    }
    w->rc = rc;
    if (ev) {
        w->st.evals = ev->positions;
        w->st.forward_seconds = ev->forward_seconds;
    }
    if (b)
        w->st.batches = mcts_batcher_batches(b);
    for (int i = 0; games && i < G; i++)
        slot_free(&games[i]);
    free(games);
    free(live);
    mcts_batcher_free(b);
    mcts_eval_free(ev);
    w->st.thread_seconds = sp_now() - t0;
    return NULL;
}

int selfplay_run(const kalah_rules *r, const selfplay_config *sc, const mcts_config *mc,
                 const mcts_eval_factory *ef, replay_buffer *rb, uint64_t seed, FILE *records,
                 selfplay_stats *st, char *err)
{
    int rc;
    if (!r || !ef || !ef->create)
        return BAD("selfplay: rules and evaluator factory are required");
    if ((rc = kalah_rules_check(r, err)) != KALAH_OK)
        return MCTS_EINVAL;
    if ((rc = selfplay_config_check(sc, err)) != MCTS_OK || (rc = mcts_config_check(mc, err)) != MCTS_OK)
        return rc;
    if (sc->rescore && (mc->tablebase_seeds < 1 || !mc->tablebase))
        return BAD("selfplay.rescore needs the search's tablebase (mcts.tablebase_seeds >= 1 and its database)");
    if (rb && (replay_dim(rb) != kalah_encode_dim(r) || replay_pits(rb) != r->pits || replay_n_value(rb) != 1))
        return BAD("selfplay: the replay buffer holds dim %d / pits %d / n_value %d, the rules need %d / %d / 1",
                   replay_dim(rb), replay_pits(rb), replay_n_value(rb), kalah_encode_dim(r), r->pits);
    /* Workers call the net concurrently: BLAS must not add threads of its own (nn/net.h). Set here, before
     * any worker exists, so no BLAS call is in flight. */
    nn_set_blas_threads(1);
    shared sh = {.r = r, .sc = sc, .mc = mc, .ef = ef, .rb = rb, .records = records != NULL};
    if ((rc = sp_search_configs(sc, mc, &sh.fast, &sh.opening, err)) != MCTS_OK)
        return rc;
    char spec[GAME_SPEC_MAX];
    if (sc->opening_plies > 0 && !(sh.game = game_create(kalah_rules_format(r, spec, sizeof spec), err)))
        return MCTS_ENOMEM; /* kalah_rules_check accepted r */
    atomic_init(&sh.abort, 0);
    int n = sc->threads;
    worker *w = calloc((size_t)n, sizeof *w);
    if (!w) {
        game_free(sh.game);
        return BAD("selfplay: out of memory");
    }
    uint64_t state = seed;
    double t0 = sp_now();
    rc = MCTS_OK;
    /* Games are dealt to workers by index (worker i: a contiguous block), not claimed from a shared counter:
     * which games a worker plays, with which seeds, does not depend on thread timing. */
    for (int i = 0; i < n; i++) {
        w[i].sh = &sh;
        w[i].seed = mcts_splitmix64(&state);
        w[i].count = (int)((int64_t)sc->games * (i + 1) / n - (int64_t)sc->games * i / n);
    }
    int started = sp_run_threads(n, w, sizeof *w, worker_main, &sh.abort);
    if (started < n)
        rc = BAD("selfplay: cannot start worker thread %d", started);
    /* Samples and records worker by worker (each in the order its games ended): the same for a seed. */
    int dim = kalah_encode_dim(r);
    for (int i = 0; i < started; i++) {
        int frc = rb ? staged_flush(&w[i].out, rb, dim, r->pits) : MCTS_OK;
        if (w[i].records && fclose(w[i].records) != 0)
            frc = frc ? frc : MCTS_ENOMEM;
        w[i].records = NULL;
        if (frc == MCTS_OK && records && w[i].rec_len &&
            fwrite(w[i].rec_buf, 1, w[i].rec_len, records) != w[i].rec_len)
            frc = MCTS_EIO;
        if (frc != MCTS_OK && w[i].rc == MCTS_OK) {
            w[i].rc = frc;
            snprintf(w[i].err, MCTS_ERRLEN, "self-play: %s", frc == MCTS_EIO ? "cannot write the game records"
                                                                            : "cannot keep the samples");
        }
    }
    selfplay_stats tot = {0};
    tot.seconds = sp_now() - t0;
    for (int i = 0; i < started; i++) {
        selfplay_stats *s = &w[i].st;
        tot.games += s->games, tot.samples += s->samples;
        tot.south_wins += s->south_wins, tot.north_wins += s->north_wins, tot.draws += s->draws;
        tot.evals += s->evals, tot.batches += s->batches, tot.simulations += s->simulations;
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
    for (int i = 0; i < n; i++) {
        if (w[i].records)
            fclose(w[i].records);
        free(w[i].rec_buf);
        staged_free(&w[i].out);
    }
    free(w);
    game_free(sh.game);
    return rc;
}

/* ---- game records ---- */

static int bad_tag(const char *s) { return !s || strchr(s, '"') || strchr(s, '\n'); }

int selfplay_record_write(FILE *f, const kalah_rules *r, const kalah_pos *start, const uint8_t *moves, int n,
                          const char *event, const char *south, const char *north)
{
    if (!f || !r || !start || (n > 0 && !moves) || bad_tag(event) || bad_tag(south) || bad_tag(north))
        return MCTS_EINVAL;
    kalah_pos p = *start;
    for (int i = 0; i < n; i++) {
        if (p.over || moves[i] >= r->pits || !(kalah_legal(r, &p) >> moves[i] & 1u))
            return MCTS_EINVAL;
        kalah_sow(r, &p, moves[i], NULL);
    }
    char rules[128], pos[80];
    kalah_rules_format(r, rules, sizeof rules);
    kalah_pos_format(r, start, pos, sizeof pos);
    int w = kalah_winner(r, &p);
    const char *res = !p.over ? "*" : w > 0 ? "1-0" : w < 0 ? "0-1" : "1/2-1/2";
    int ok = fprintf(f, "[Event \"%s\"]\n[South \"%s\"]\n[North \"%s\"]\n[Rules \"%s\"]\n[Start \"%s\"]\n"
                        "[Result \"%s\"]\n[Score \"%d-%d\"]\n\n",
                     event, south, north, rules, pos, res, p.cell[r->pits], p.cell[2 * r->pits + 1]) > 0;
    kalah_pos q = *start;
    for (int i = 0; i < n && ok; i++) {
        ok = fprintf(f, "%c ", kalah_move_letter(q.side, moves[i])) > 0;
        kalah_sow(r, &q, moves[i], NULL);
    }
    ok = ok && fprintf(f, "%s\n\n", res) > 0;
    return ok && !ferror(f) ? MCTS_OK : MCTS_EIO;
}
