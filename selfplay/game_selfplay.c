/* game_selfplay.c — self-play workers for every game: many games per thread, one evaluator call per round
 * (game_selfplay.h); the trees are mcts_mp trees, two-player ones driven through their mcts2 tree. */
#include "selfplay/game_selfplay.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selfplay/levers.h"
#include "selfplay/workers.h"

#define NO_EXACT INT16_MIN
#define BAD(...) (err ? snprintf(err, MCTS_ERRLEN, __VA_ARGS__) : 0, MCTS_EINVAL)

typedef struct {
    const game *g;
    const selfplay_config *sc;
    const mcts_config *mc;
    mcts_config fast;       /* the search of a fast decision (playout cap randomization, levers.h) */
    mcts_config opening;    /* the search of a full decision with >= opening_seeds seeds in the pits */
    const mcts_mp_eval_factory *ef;
    const game_selfplay_league *league; /* NULL: every seat self-play */
    replay_buffer *rb;
    game_selfplay_game_fn on_game; /* may be NULL */
    void *on_game_ctx;
    uint64_t seed;
    int threads;
    atomic_int abort;
} shared;

/* One game in progress in a worker. */
typedef struct {
    mcts_mp_tree *tree;
    int active, n, cap;
    int full;               /* the decision being searched is a full one (a policy sample) */
    const mcts_config *cfg; /* the search its tree has now: sh->mc, &sh->fast or &sh->opening */
    int start_visits;       /* the root's visits when its search began (those kept from the last one) */
    float *x, *pi;
    uint8_t *legal, *mover;
    uint8_t *moves;         /* the slot played at each decision (the game's moves, for on_game) */
    game_pos start;         /* where the game's decisions began (after its random opening) */
    float *surprise;        /* selfplay.surprise_weight: KL(π ‖ P) of each decision, −1 for a value-only one */
    int16_t *exact;         /* selfplay.rescore: the exact final margin for each decision's mover, NO_EXACT */
    float *q;               /* selfplay.q_ratio: each decision's root Q, GAME_MAX_PLAYERS floats (absolute order) */
    unsigned opp_seats;     /* the seats a league opponent plays in this game (bit per player), 0: none;
                             * decision t is a sample when its mover's seat is not among them (own) */
    int opp;                /* which opponent, when opp_seats */
    game_pos *pos;          /* selfplay.surprise_weight: each decision's position (its prior is read at the end) */
} slot;

typedef struct {
    shared *sh;
    int index;          /* worker t of T */
    int next_game;      /* the next game index this worker plays: index, index + T, ... */
    uint64_t seed;
    /* selfplay.surprise_weight: an evaluator of its own for the decisions' priors (so the search's evaluator,
     * a rollout one included, sees what it sees without the lever), its buffers (max_batch positions), and
     * the copies' draws (a stream of their own: the games do not depend on the key) */
    mcts_mp_eval *prior_ev;
    void **opp;             /* the league's opponents, this worker's own (league->count) */
    game_pos *prior_pos;
    float *prior_out, *prior_value;
    mcts_rng copies;
    /* the samples and games of this worker's finished games, handed over after the join (game_selfplay.h) */
    struct {
        float *x, *pi, *z, *margin;
        uint8_t *legal;
        size_t n, cap;
    } out;
    struct {
        game_pos *start;
        size_t *end;      /* game i's moves are moves[end[i-1] .. end[i]) */
        uint8_t *moves;
        size_t n, cap, nmoves, cap_moves;
    } log;
    int rc;
    char err[MCTS_ERRLEN];
    game_selfplay_stats st;
} worker;

static int slot_reserve(slot *s, int dim, int m)
{
    if (s->n < s->cap)
        return 1;
    int nc = s->cap ? 2 * s->cap : 128;
    float *x = realloc(s->x, (size_t)nc * dim * sizeof *x);
    if (x)
        s->x = x;
    float *pi = realloc(s->pi, (size_t)nc * m * sizeof *pi);
    if (pi)
        s->pi = pi;
    uint8_t *legal = realloc(s->legal, (size_t)nc * m);
    if (legal)
        s->legal = legal;
    uint8_t *mover = realloc(s->mover, (size_t)nc);
    if (mover)
        s->mover = mover;
    uint8_t *moves = realloc(s->moves, (size_t)nc);
    if (moves)
        s->moves = moves;
    float *surprise = realloc(s->surprise, (size_t)nc * sizeof *surprise);
    if (surprise)
        s->surprise = surprise;
    game_pos *pos = realloc(s->pos, (size_t)nc * sizeof *pos);
    if (pos)
        s->pos = pos;
    int16_t *exact = realloc(s->exact, (size_t)nc * sizeof *exact);
    if (exact)
        s->exact = exact;
    float *q = realloc(s->q, (size_t)nc * GAME_MAX_PLAYERS * sizeof *q);
    if (q)
        s->q = q;
    if (!x || !pi || !legal || !mover || !moves || !surprise || !pos || !exact || !q)
        return 0;
    s->cap = nc;
    return 1;
}

static void slot_free(slot *s)
{
    mcts_mp_tree_free(s->tree);
    free(s->x), free(s->pi), free(s->legal), free(s->mover), free(s->surprise), free(s->pos), free(s->exact);
    free(s->moves), free(s->q);
}

/* Chooses the search of s's next decision, at position next (sp_decision_search, drawn from the tree's RNG),
 * and gives it to s's tree before the search's root is set or reached (the root noise follows the config). */
static void cap_draw(const shared *sh, slot *s, const game_pos *next)
{
    int kind = sp_decision_search(sh->sc, mcts_mp_tree_rng(s->tree),
                                  sh->sc->opening_sims > 0 ? game_seeds_in_pits(sh->g, next) : 0);
    s->full = kind != SP_SEARCH_FAST;
    const mcts_config *cfg = kind == SP_SEARCH_FAST ? &sh->fast : kind == SP_SEARCH_OPENING ? &sh->opening : sh->mc;
    if (cfg != s->cfg)
        mcts_mp_tree_set_config(s->tree, cfg, NULL); /* all three checked by game_selfplay_run */
    s->cfg = cfg;
}

/* Starts this worker's next game in s (by game index), or leaves s inactive when its games are done. */
static void slot_start(worker *w, slot *s)
{
    shared *sh = w->sh;
    int gi = w->next_game;
    s->active = !atomic_load(&sh->abort) && gi < sh->sc->games;
    s->n = 0;
    if (s->active) {
        w->next_game += sh->threads;
        uint64_t st = sh->seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(gi + 1));
        mcts_rng_seed(mcts_mp_tree_rng(s->tree), mcts_splitmix64(&st));
        s->opp_seats = 0;
        const game_selfplay_league *lg = sh->league;
        if (lg && lg->share > 0 && mcts_rng_uniform(mcts_mp_tree_rng(s->tree)) < lg->share) {
            /* k of the seats, k uniform in 1..np-1, chosen by a partial Fisher-Yates shuffle */
            mcts_rng *r = mcts_mp_tree_rng(s->tree);
            const int np = game_players(sh->g), k = 1 + (int)mcts_rng_below(r, (uint32_t)(np - 1));
            int seat[GAME_MAX_PLAYERS];
            for (int q = 0; q < np; q++)
                seat[q] = q;
            for (int q = 0; q < k; q++) {
                int j = q + (int)mcts_rng_below(r, (uint32_t)(np - q)), t = seat[q];
                seat[q] = seat[j], seat[j] = t;
                s->opp_seats |= 1u << seat[q];
            }
            s->opp = (int)mcts_rng_below(r, (uint32_t)lg->count);
        }
        game_pos p;
        if (sh->sc->opening_plies > 0)
            sp_random_opening(sh->g, sh->sc->opening_plies, mcts_mp_tree_rng(s->tree), &p);
        else
            game_start(sh->g, &p);
        cap_draw(sh, s, &p);
        mcts_mp_set_root(s->tree, &p);
        s->start = p;
        s->start_visits = 0;
    }
}

/* selfplay.surprise_weight: the surprise of each of s's policy samples (surprise[t] >= 0, marked when the
 * decision was made) against the net's prior at its position, read by w's own evaluator in batches of its
 * max_batch: the prior the search expanded that position with, before the root noise (sp_legal_prior). */
static int game_surprises(worker *w, slot *s)
{
    const game *g = w->sh->g;
    const int m = game_moves(g), B = w->prior_ev->max_batch;
    int idx[256];
    for (int t0 = 0; t0 < s->n;) {
        int k = 0;
        for (; t0 < s->n && k < B && k < 256; t0++)
            if (s->surprise[t0] >= 0) {
                idx[k] = t0;
                w->prior_pos[k++] = s->pos[t0];
            }
        if (k == 0)
            continue;
        if (w->prior_ev->evaluate(w->prior_ev, w->prior_pos, k, w->prior_out, w->prior_value) != MCTS_OK)
            return MCTS_EEVAL;
        for (int j = 0; j < k; j++) {
            float *prior = w->prior_out + (size_t)j * m;
            sp_legal_prior(prior, game_legal(g, &w->prior_pos[j]), m, prior);
            s->surprise[idx[j]] = sp_policy_surprise(prior, s->pi + (size_t)idx[j] * m, m);
        }
    }
    return MCTS_OK;
}

/* Room for k more staged samples in w->out. */
static int out_reserve(worker *w, size_t k, int dim, int m, int nv)
{
    if (w->out.n + k <= w->out.cap)
        return 1;
    size_t nc = w->out.cap ? 2 * w->out.cap : 1024;
    while (nc < w->out.n + k)
        nc *= 2;
    float *x = realloc(w->out.x, nc * (size_t)dim * sizeof *x);
    if (x)
        w->out.x = x;
    float *pi = realloc(w->out.pi, nc * (size_t)m * sizeof *pi);
    if (pi)
        w->out.pi = pi;
    float *z = realloc(w->out.z, nc * (size_t)nv * sizeof *z);
    if (z)
        w->out.z = z;
    float *mg = realloc(w->out.margin, nc * sizeof *mg);
    if (mg)
        w->out.margin = mg;
    uint8_t *legal = realloc(w->out.legal, nc * (size_t)m);
    if (legal)
        w->out.legal = legal;
    if (!x || !pi || !z || !mg || !legal)
        return 0;
    w->out.cap = nc;
    return 1;
}

/* Appends s's finished game to w's log (on_game). */
static int log_game(worker *w, const slot *s)
{
    if (w->log.n == w->log.cap) {
        size_t nc = w->log.cap ? 2 * w->log.cap : 64;
        game_pos *st = realloc(w->log.start, nc * sizeof *st);
        if (st)
            w->log.start = st;
        size_t *end = realloc(w->log.end, nc * sizeof *end);
        if (end)
            w->log.end = end;
        if (!st || !end)
            return MCTS_ENOMEM;
        w->log.cap = nc;
    }
    if (w->log.nmoves + (size_t)s->n > w->log.cap_moves) {
        size_t nc = w->log.cap_moves ? 2 * w->log.cap_moves : 4096;
        while (nc < w->log.nmoves + (size_t)s->n)
            nc *= 2;
        uint8_t *mv = realloc(w->log.moves, nc);
        if (!mv)
            return MCTS_ENOMEM;
        w->log.moves = mv;
        w->log.cap_moves = nc;
    }
    memcpy(w->log.moves + w->log.nmoves, s->moves, (size_t)s->n);
    w->log.nmoves += (size_t)s->n;
    w->log.start[w->log.n] = s->start;
    w->log.end[w->log.n++] = w->log.nmoves;
    return MCTS_OK;
}

/* Whether s's decision t was the search's (a sample), not a league opponent's. */
static int own(const slot *s, int t) { return !(s->opp_seats >> s->mover[t] & 1u); }

static int slot_finish(worker *w, slot *s)
{
    shared *sh = w->sh;
    const game *g = sh->g;
    const int dim = game_encode_dim(g), m = game_moves(g), np = game_players(g), nv = game_value_dim(g);
    const game_pos *end = mcts_mp_root_pos(s->tree);
    double v[GAME_MAX_PLAYERS], best = -2;
    game_stopped_values(g, end, v);
    const int margin = game_margin(g, end);
    const float scale = 1.0f / (float)game_seeds(g);
    w->st.games++;
    for (int t = 0; t < s->n; t++)
        w->st.samples += (uint64_t)own(s, t);
    w->st.capped += !end->over;
    for (int q = 0; q < np; q++)
        best = v[q] > best ? v[q] : best;
    for (int q = 0; q < np; q++)
        w->st.wins[q] += v[q] == best;
    if (s->opp_seats) { /* the search's score against this game's league opponent */
        double sum = 0;
        int seats = 0;
        for (int q = 0; q < np; q++)
            if (!(s->opp_seats >> q & 1u))
                sum += (v[q] + 1) / 2, seats++;
        w->st.league_games[s->opp]++;
        w->st.league_score[s->opp] += seats ? sum / seats : 0;
    }
    int rc = sh->on_game ? log_game(w, s) : MCTS_OK;
    if (sh->rb && rc == MCTS_OK) {
        /* with surprise_weight each decision is written sp_surprise_copies times, the copies adjacent */
        const double sw = sh->sc->surprise_weight;
        double sum = 0;
        int policy_samples = 0;
        if (sw > 0 && (rc = game_surprises(w, s)) == MCTS_OK)
            sum = sp_surprise_sum(s->surprise, s->n, &policy_samples);
        for (int t = 0; t < s->n && rc == MCTS_OK; t++) {
            if (!own(s, t)) /* a league opponent's move: not a sample */
                continue;
            const int mv = s->mover[t], ex = s->exact[t];
            const float *qt = s->q + (size_t)t * GAME_MAX_PLAYERS;
            const double r = sh->sc->q_ratio;
            const int c = sw > 0 ? sp_surprise_copies(s->surprise[t], sw, sum, policy_samples, &w->copies) : 1;
            if (!out_reserve(w, (size_t)c, dim, m, nv)) {
                rc = MCTS_ENOMEM;
                break;
            }
            for (int k = 0; k < c; k++, w->out.n++) {
                const size_t o = w->out.n;
                memcpy(w->out.x + o * (size_t)dim, s->x + (size_t)t * dim, (size_t)dim * sizeof *s->x);
                memcpy(w->out.pi + o * (size_t)m, s->pi + (size_t)t * m, (size_t)m * sizeof *s->pi);
                memcpy(w->out.legal + o * (size_t)m, s->legal + (size_t)t * m, (size_t)m);
                for (int q = 0; q < nv; q++) /* rescored: the exact value replaces the game's outcome */
                    w->out.z[o * (size_t)nv + (size_t)q] =
                        ex != NO_EXACT ? (float)(q == 0 ? (ex > 0) - (ex < 0) : (ex < 0) - (ex > 0))
                        : r > 0        ? (float)((1 - r) * v[(mv + q) % np] + r * qt[(mv + q) % np])
                                       : (float)v[(mv + q) % np];
                w->out.margin[o] = (float)(ex != NO_EXACT ? ex : mv ? -margin : margin) * scale;
            }
        }
    }
    return rc;
}

/* Hands w's staged samples to rb and its games to on_game, in the order they ended; frees them. */
static int hand_over(const shared *sh, worker *w)
{
    const game *g = sh->g;
    const int dim = game_encode_dim(g), m = game_moves(g), nv = game_value_dim(g);
    int rc = MCTS_OK;
    replay_sample smp[256];
    for (size_t i = 0; sh->rb && i < w->out.n && rc == MCTS_OK;) {
        int k = 0;
        for (; k < 256 && i < w->out.n; k++, i++)
            smp[k] = (replay_sample){.x = w->out.x + i * (size_t)dim, .legal = w->out.legal + i * (size_t)m,
                                     .pi = w->out.pi + i * (size_t)m, .z = w->out.z + i * (size_t)nv,
                                     .margin = w->out.margin[i]};
        rc = replay_add(sh->rb, smp, k);
    }
    for (size_t i = 0; sh->on_game && i < w->log.n && rc == MCTS_OK; i++) {
        size_t from = i ? w->log.end[i - 1] : 0;
        if (sh->on_game(sh->on_game_ctx, &w->log.start[i], w->log.moves + from, (int)(w->log.end[i] - from)) != 0)
            rc = MCTS_EIO;
    }
    free(w->out.x), free(w->out.pi), free(w->out.z), free(w->out.margin), free(w->out.legal);
    free(w->log.start), free(w->log.end), free(w->log.moves);
    return rc;
}


/* selfplay.rescore: the exact final margin for the mover of unfinished p when the endgame database covers it
 * (at most mcts.tablebase_seeds seeds in the pits), else NO_EXACT. */
static int exact_margin(const shared *sh, const game_pos *p)
{
    int m0;
    if (p->over || game_seeds_in_pits(sh->g, p) > sh->mc->tablebase_seeds || !game_endgame(sh->g, p, &m0))
        return NO_EXACT;
    return p->to_move == 0 ? m0 : -m0;
}

/* selfplay.rescore_policy: pi = uniform over the optimal moves of covered position p, those whose exact
 * margin for the mover is the best (a sowing never adds seeds to the pits, so every child is finished or
 * covered; one that is not leaves the search's pi). */
static void optimal_policy(const shared *sh, const game_pos *p, float *pi)
{
    const int m = game_moves(sh->g);
    int val[GAME_MAX_MOVES], best = INT16_MIN, count = 0;
    const unsigned legal = game_legal(sh->g, p);
    for (int k = 0; k < m; k++) {
        val[k] = INT16_MIN;
        if (!(legal >> k & 1u))
            continue;
        game_pos c = *p;
        int m0;
        game_apply(sh->g, &c, k, NULL);
        if (c.over)
            m0 = game_margin(sh->g, &c);
        else if (!game_endgame(sh->g, &c, &m0))
            return;
        val[k] = p->to_move == 0 ? m0 : -m0;
        best = val[k] > best ? val[k] : best;
    }
    for (int k = 0; k < m; k++)
        count += val[k] == best && best != INT16_MIN;
    for (int k = 0; k < m && count > 0; k++)
        pi[k] = val[k] == best ? 1.0f / (float)count : 0.0f;
}

/* Plays move in s's tree (its subtree kept as the next search's start); a game that ends there, or
 * reaches max_moves, is finished and the slot's next game started. */
static int slot_advance(worker *w, slot *s, int move)
{
    int rc = mcts_mp_advance(s->tree, move);
    if (rc != MCTS_OK && rc != MCTS_ENOMEM) /* ENOMEM: the tree starts afresh below the move */
        return rc;
    int visits[GAME_MAX_MOVES];
    s->start_visits = mcts_mp_root_visits(s->tree, visits, NULL);
    rc = MCTS_OK;
    if (mcts_mp_root_pos(s->tree)->over || s->n >= w->sh->sc->max_moves) {
        rc = slot_finish(w, s);
        slot_start(w, s);
    }
    return rc;
}

static int slot_move(worker *w, slot *s)
{
    shared *sh = w->sh;
    const game *g = sh->g;
    const int dim = game_encode_dim(g), m = game_moves(g);
    const game_pos *root = mcts_mp_root_pos(s->tree);
    if (!slot_reserve(s, dim, m))
        return MCTS_ENOMEM;
    double tau = s->n < sh->mc->temp_moves ? sh->mc->temperature : 0.0;
    game_encode(g, root, s->x + (size_t)s->n * dim);
    unsigned legal = game_legal(g, root);
    for (int k = 0; k < m; k++)
        s->legal[s->n * m + k] = (uint8_t)(legal >> k & 1u);
    int rc = mcts_mp_policy(s->tree, sh->sc->pi_visits ? sh->sc->pi_temperature : tau, s->pi + (size_t)s->n * m);
    int move = rc == MCTS_OK ? mcts_mp_choose(s->tree, tau) : rc;
    if (move < 0)
        return MCTS_EINVAL;
    if (!s->full) /* a fast decision: a value-only sample, policy weight 0 (replay.h) */
        memset(s->pi + (size_t)s->n * m, 0, (size_t)m * sizeof *s->pi);
    s->exact[s->n] = sh->sc->rescore ? (int16_t)exact_margin(sh, root) : NO_EXACT;
    if (sh->sc->rescore_policy && s->exact[s->n] != NO_EXACT) /* a fast decision's too: the database's target */
        optimal_policy(sh, root, s->pi + (size_t)s->n * m);
    s->surprise[s->n] = s->full ? 0.0f : -1.0f; /* a policy sample's is measured when the game ends */
    if (sh->sc->q_ratio > 0)
        mcts_mp_root_value(s->tree, s->q + (size_t)s->n * GAME_MAX_PLAYERS);
    s->pos[s->n] = *root;
    int visits[GAME_MAX_MOVES];
    w->st.simulations += (uint64_t)(mcts_mp_root_visits(s->tree, visits, NULL) - s->start_visits);
    s->moves[s->n] = (uint8_t)move;
    s->mover[s->n++] = root->to_move;
    game_pos next = *root; /* the next decision's position: cap_draw reads it only for opening_sims */
    if (sh->sc->opening_sims > 0)
        game_apply(g, &next, move, NULL);
    cap_draw(sh, s, &next);
    return slot_advance(w, s, move);
}

/* Whether a league opponent is to move in s's game. */
static int opponent_turn(const slot *s)
{
    return s->opp_seats && (s->opp_seats >> mcts_mp_root_pos(s->tree)->to_move & 1u);
}

/* A league opponent's decision in s's game: its move is played in the tree (the search's subtree below it
 * kept) and logged, and no sample is written. */
static int opponent_move(worker *w, slot *s)
{
    shared *sh = w->sh;
    const game *g = sh->g;
    const game_pos *root = mcts_mp_root_pos(s->tree);
    if (!slot_reserve(s, game_encode_dim(g), game_moves(g)))
        return MCTS_ENOMEM;
    int move = -1;
    const uint64_t seed = mcts_rng_next(mcts_mp_tree_rng(s->tree));
    char why[MCTS_ERRLEN] = "";
    if (sh->league->choose(w->opp[s->opp], root, seed, &move, why) != 0) {
        snprintf(w->err, MCTS_ERRLEN, "%s self-play: league opponent %d failed to choose a move: %.900s",
                 game_name(g), s->opp + 1, why[0] ? why : "no reason given");
        return MCTS_EINVAL;
    }
    if (move < 0 || move >= game_moves(g) || !(game_legal(g, root) >> move & 1u)) {
        snprintf(w->err, MCTS_ERRLEN, "%s self-play: league opponent %d chose slot %d, not a legal move",
                 game_name(g), s->opp + 1, move);
        return MCTS_EINVAL;
    }
    s->moves[s->n] = (uint8_t)move;
    s->surprise[s->n] = -1.0f;
    s->exact[s->n] = NO_EXACT;
    s->mover[s->n++] = root->to_move;
    return slot_advance(w, s, move);
}

/* Up to L leaves of each live game (slots[live[0..n-1]]) into leaf/owner/handle, one game after the other;
 * a simulation that ends on a finished or proven node needs no leaf. Returns the leaves or MCTS_ENOMEM. */
static int gather_mp(slot *slots, const int *live, int n, game_pos *leaf, int *owner, int *handle, int L)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        mcts_mp_tree *t = slots[live[i]].tree;
        for (int tries = 0; tries < 4 * L && mcts_mp_pending(t) < L && !mcts_mp_done(t); tries++) {
            int h = mcts_mp_select(t, &leaf[k]);
            if (h >= 0) {
                owner[k] = live[i];
                handle[k++] = h;
            } else if (h == MCTS_ENOMEM) {
                return h;
            }
            if (h == MCTS_FULL || h == MCTS_COLLISION)
                break;
        }
    }
    return k;
}

/* The same for two-player games, whose trees descend together (mcts2_select_many: the interleaved descent
 * ), the leaves in game order. Returns the leaves or MCTS_ENOMEM. */
static int gather_two(slot *slots, const int *live, int n, const mcts2_many *many, mcts2_tree **two,
                      game_pos *leaf, int *owner, int *handle, int L)
{
    for (int i = 0; i < n; i++)
        two[i] = mcts_mp_two(slots[live[i]].tree);
    int rc = mcts2_select_many(two, n, many), k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < many->found[i]; j++) {
            owner[k] = live[i];
            handle[k] = many->handle[i * L + j];
            leaf[k++] = many->leaf[i * L + j];
        }
    return rc == MCTS_OK ? k : rc;
}

static int complete_mp(slot *slots, const int *owner, const int *handle, int n, int m, int np, const float *prior,
                       const float *value)
{
    for (int j = 0; j < n; j++)
        if (mcts_mp_complete(slots[owner[j]].tree, handle[j], prior + (size_t)j * m, value + (size_t)j * np) ==
            MCTS_ENOMEM)
            return MCTS_ENOMEM;
    return MCTS_OK;
}

/* Two-player leaves completed with their mover's value. Each tree's memory is cold after the evaluation:
 * leaf j + 6 gets its first prefetch stage, j + 4 its second and j + 2 its third (the path) while leaf j is
 * completed (mcts2_complete_prefetch). */
static int complete_two(slot *slots, const game_pos *leaf, const int *owner, const int *handle, int n, int m,
                        const float *prior, const float *value)
{
    static const int ahead[3] = {6, 4, 2};
    for (int stage = 0; stage < 3; stage++)
        for (int j = 0; j < n && j < ahead[stage]; j++)
            mcts2_complete_prefetch(mcts_mp_two(slots[owner[j]].tree), handle[j], stage);
    for (int j = 0; j < n; j++) {
        for (int stage = 0; stage < 3; stage++)
            if (j + ahead[stage] < n)
                mcts2_complete_prefetch(mcts_mp_two(slots[owner[j + ahead[stage]]].tree), handle[j + ahead[stage]],
                                        stage);
        if (mcts2_complete(mcts_mp_two(slots[owner[j]].tree), handle[j], prior + (size_t)j * m,
                           value[(size_t)j * 2 + leaf[j].to_move]) == MCTS_ENOMEM)
            return MCTS_ENOMEM;
    }
    return MCTS_OK;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    const game *g = sh->g;
    const int G = sh->sc->games_per_thread, L = sh->mc->leaves_per_game, cap = G * L;
    const int m = game_moves(g), np = game_players(g);
    double t0 = sp_now();
    uint64_t st = w->seed;
    mcts_mp_eval *ev = sh->ef->create(sh->ef, g, cap, mcts_splitmix64(&st), w->err);
    slot *slots = calloc((size_t)G, sizeof *slots);
    game_pos *leaf = malloc((size_t)cap * sizeof *leaf);
    int *owner = malloc((size_t)cap * sizeof *owner), *handle = malloc((size_t)cap * sizeof *handle);
    int *live = malloc((size_t)G * sizeof *live);
    /* two players: every game's descents interleaved by mcts2_select_many (many's leaf lists, L per tree) */
    mcts2_tree **two = np == 2 ? malloc((size_t)G * sizeof *two) : NULL;
    mcts2_many many = {0};
    if (np == 2) {
        many = (mcts2_many){.cur = malloc((size_t)G * sizeof *many.cur), .live = malloc((size_t)G * sizeof(int)),
                            .found = malloc((size_t)G * sizeof(int)),
                            .handle = malloc((size_t)cap * sizeof(int)),
                            .leaf = malloc((size_t)cap * sizeof(game_pos)), .stride = L};
    }
    float *prior = malloc((size_t)cap * (size_t)m * sizeof *prior);
    float *value = malloc((size_t)cap * (size_t)np * sizeof *value);
    int rc = ev ? MCTS_OK : MCTS_EEVAL;
    if (rc == MCTS_OK && (!slots || !leaf || !owner || !handle || !prior || !value || !live ||
                          (np == 2 && (!two || !many.cur || !many.live || !many.found || !many.handle || !many.leaf))))
        rc = MCTS_ENOMEM;
    if (rc == MCTS_OK && sh->sc->surprise_weight > 0) { /* its streams apart from st: the games stay those of s = 0 */
        uint64_t cs = w->seed ^ 0x5375727072697365ull; /* "Surprise" */
        mcts_rng_seed(&w->copies, mcts_splitmix64(&cs));
        w->prior_ev = sh->ef->create(sh->ef, g, cap, mcts_splitmix64(&cs), w->err);
        w->prior_pos = malloc((size_t)cap * sizeof *w->prior_pos);
        w->prior_out = malloc((size_t)cap * (size_t)m * sizeof *w->prior_out);
        w->prior_value = malloc((size_t)cap * (size_t)np * sizeof *w->prior_value);
        rc = !w->prior_ev ? MCTS_EEVAL : !w->prior_pos || !w->prior_out || !w->prior_value ? MCTS_ENOMEM : MCTS_OK;
    }
    for (int i = 0; i < G && rc == MCTS_OK; i++) {
        if (!(slots[i].tree = mcts_mp_tree_create(g, sh->mc, mcts_splitmix64(&st), w->err)))
            rc = MCTS_ENOMEM;
        slots[i].cfg = sh->mc; /* the tree holds the full search */
        slots[i].full = 1;
    }
    const game_selfplay_league *lg = sh->league;
    if (rc == MCTS_OK && lg && lg->share > 0) {
        if (!(w->opp = calloc((size_t)lg->count, sizeof *w->opp)))
            rc = MCTS_ENOMEM;
        for (int i = 0; i < lg->count && rc == MCTS_OK; i++)
            if (!(w->opp[i] = lg->create(lg->ctx, i, w->err)))
                rc = MCTS_EINVAL;
    }
    if (rc == MCTS_OK)
        for (int i = 0; i < G; i++)
            slot_start(w, &slots[i]);
    for (int active = 1; rc == MCTS_OK && active;) {
        /* Moves first, then the live games' leaves: one evaluator call for all of them */
        active = 0;
        for (int i = 0; i < G && rc == MCTS_OK; i++) {
            slot *s = &slots[i];
            while (s->active && rc == MCTS_OK && (opponent_turn(s) || mcts_mp_done(s->tree)))
                rc = opponent_turn(s) ? opponent_move(w, s) : slot_move(w, s);
            if (s->active && rc == MCTS_OK)
                live[active++] = i;
        }
        int n = 0;
        if (rc == MCTS_OK && active)
            n = many.cur ? gather_two(slots, live, active, &many, two, leaf, owner, handle, L)
                         : gather_mp(slots, live, active, leaf, owner, handle, L);
        if (n < 0)
            rc = n;
        if (n > 0 && rc == MCTS_OK) {
            rc = ev->evaluate(ev, leaf, n, prior, value) == MCTS_OK ? MCTS_OK : MCTS_EEVAL;
            w->st.batches++;
            if (rc == MCTS_OK)
                rc = many.cur ? complete_two(slots, leaf, owner, handle, n, m, prior, value)
                              : complete_mp(slots, owner, handle, n, m, np, prior, value);
        }
        if (atomic_load(&sh->abort))
            break;
    }
    if (rc != MCTS_OK) {
        atomic_store(&sh->abort, 1);
        if (!w->err[0])
            snprintf(w->err, MCTS_ERRLEN, "%s self-play worker: %s", game_name(g),
                     rc == MCTS_ENOMEM ? "out of memory" : "evaluator failed");
    }
    w->rc = rc;
    if (ev) {
        w->st.evals = ev->positions;
        w->st.forward_seconds = ev->forward_seconds;
    }
    if (w->prior_ev) { /* the surprise's priors are evaluations too */
        w->st.evals += w->prior_ev->positions;
        w->st.forward_seconds += w->prior_ev->forward_seconds;
    }
    for (int i = 0; w->opp && i < lg->count; i++)
        if (w->opp[i])
            lg->free(w->opp[i]);
    free(w->opp);
    w->opp = NULL;
    mcts_mp_eval_free(w->prior_ev);
    free(w->prior_pos), free(w->prior_out), free(w->prior_value);
    w->prior_ev = NULL;
    for (int i = 0; slots && i < G; i++)
        slot_free(&slots[i]);
    free(slots), free(leaf), free(owner), free(handle), free(prior), free(value), free(live), free(two);
    free(many.cur), free(many.live), free(many.found), free(many.handle), free(many.leaf);
    mcts_mp_eval_free(ev);
    w->st.thread_seconds = sp_now() - t0;
    return NULL;
}

int game_selfplay_run(const game *g, const selfplay_config *sc, const mcts_config *mc,
                      const mcts_mp_eval_factory *ef, replay_buffer *rb, uint64_t seed, game_selfplay_stats *st,
                      char *err)
{
    return game_selfplay_run_games(g, sc, mc, ef, rb, NULL, NULL, seed, st, err);
}

int game_selfplay_run_games(const game *g, const selfplay_config *sc, const mcts_config *mc,
                            const mcts_mp_eval_factory *ef, replay_buffer *rb, game_selfplay_game_fn on_game,
                            void *ctx, uint64_t seed, game_selfplay_stats *st, char *err)
{
    return game_selfplay_run_league(g, sc, mc, ef, NULL, rb, on_game, ctx, seed, st, err);
}

int game_selfplay_run_league(const game *g, const selfplay_config *sc, const mcts_config *mc,
                             const mcts_mp_eval_factory *ef, const game_selfplay_league *league, replay_buffer *rb,
                             game_selfplay_game_fn on_game, void *ctx, uint64_t seed, game_selfplay_stats *st,
                             char *err)
{
    int rc;
    if (!g || !ef || !ef->create)
        return BAD("self-play: a game and an evaluator factory are required");
    if (league && (league->count < 1 || league->count > SELFPLAY_MAX_LEAGUE ||
                   !(league->share >= 0 && league->share <= 1) || !league->create ||
                   !league->choose || !league->free))
        return BAD("%s self-play: a league needs 1..%d opponents, a share in [0, 1] and its three functions",
                   game_name(g), SELFPLAY_MAX_LEAGUE);
    if ((rc = selfplay_config_check(sc, err)) != MCTS_OK || (rc = mcts_config_check(mc, err)) != MCTS_OK)
        return rc;
    if (sc->rescore && (game_players(g) != 2 || mc->tablebase_seeds < 1 ||
                        game_endgame_seeds(g) < mc->tablebase_seeds))
        return BAD("%s self-play: selfplay.rescore needs two players and an endgame database covering "
                   "mcts.tablebase_seeds >= 1 seeds (%s has %d players, %d seeds asked, %d covered)",
                   game_name(g), game_spec(g), game_players(g), mc->tablebase_seeds, game_endgame_seeds(g));
    if (sc->q_ratio > 0 && mc->margin_utility > 0)
        return BAD("%s self-play: selfplay.q_ratio needs mcts.margin_utility = 0 (the root's Q then mixes the "
                   "margin into the value, in other units than the value target), got %g", game_name(g),
                   mc->margin_utility);
    if (rb && (replay_dim(rb) != game_encode_dim(g) || replay_pits(rb) != game_moves(g) ||
               replay_n_value(rb) != game_value_dim(g)))
        return BAD("%s self-play: the replay buffer holds dim %d / pits %d / n_value %d, the rules need "
                   "%d / %d / %d", game_name(g), replay_dim(rb), replay_pits(rb), replay_n_value(rb),
                   game_encode_dim(g), game_moves(g), game_value_dim(g));
    nn_set_blas_threads(1);
    const int n = sc->threads;
    shared sh = {.g = g, .sc = sc, .mc = mc, .ef = ef, .league = league, .rb = rb, .on_game = on_game, .on_game_ctx = ctx,
                 .seed = seed, .threads = n};
    if ((rc = sp_search_configs(sc, mc, &sh.fast, &sh.opening, err)) != MCTS_OK)
        return rc;
    atomic_init(&sh.abort, 0);
    worker *w = calloc((size_t)n, sizeof *w);
    if (!w)
        return BAD("%s self-play: out of memory", game_name(g));
    uint64_t state = seed;
    double t0 = sp_now();
    rc = MCTS_OK;
    for (int i = 0; i < n; i++) {
        w[i].sh = &sh;
        w[i].index = w[i].next_game = i;
        w[i].seed = mcts_splitmix64(&state);
    }
    int started = sp_run_threads(n, w, sizeof *w, worker_main, &sh.abort);
    if (started < n)
        rc = BAD("%s self-play: cannot start worker thread %d", game_name(g), started);
    game_selfplay_stats tot = {0};
    for (int i = 0; i < started; i++) { /* worker by worker: the buffer's order does not depend on timing */
        int h = hand_over(&sh, &w[i]);
        if (h != MCTS_OK && rc == MCTS_OK && w[i].rc == MCTS_OK) {
            rc = h;
            if (err)
                snprintf(err, MCTS_ERRLEN, "%s self-play: %s", game_name(g),
                         h == MCTS_EIO ? "the game callback failed" : "out of memory");
        }
    }
    tot.seconds = sp_now() - t0;
    for (int i = 0; i < started; i++) {
        game_selfplay_stats *s = &w[i].st;
        tot.games += s->games, tot.samples += s->samples, tot.capped += s->capped;
        for (int q = 0; q < GAME_MAX_PLAYERS; q++)
            tot.wins[q] += s->wins[q];
        for (int k = 0; k < SELFPLAY_MAX_LEAGUE; k++)
            tot.league_games[k] += s->league_games[k], tot.league_score[k] += s->league_score[k];
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
    free(w);
    return rc;
}
