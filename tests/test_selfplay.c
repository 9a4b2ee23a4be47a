/* test_selfplay.c — the self-play driver (game_selfplay.h) on Kalah: batching across games, samples against
 * the games played, determinism, the levers, the replay buffer (window, uniform sampling, save/restore,
 * threads) and `sowzero bench selfplay`. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <math.h>
#include <pthread.h>
#include <cjson/cJSON.h>
#include "env/game.h"
#include "nn/net.h"
#include "selfplay/game_selfplay.h"
#include "selfplay/mcts_mp.h"
#include "selfplay/selfplay.h"

#define MAX_GAMES 64
#define MAX_PLIES 2000

/* The games of one run as game_selfplay_run_games hands them over. */
typedef struct {
    int count;
    game_pos start[MAX_GAMES];
    int n[MAX_GAMES];
    uint8_t moves[MAX_GAMES][MAX_PLIES];
} games_log;

static int collect(void *ctx, const game_pos *start, const uint8_t *moves, int n)
{
    games_log *l = ctx;
    if (l->count == MAX_GAMES || n > MAX_PLIES)
        return 1;
    l->start[l->count] = *start;
    l->n[l->count] = n;
    memcpy(l->moves[l->count++], moves, (size_t)n);
    return 0;
}

static int same_games(const games_log *a, const games_log *b)
{
    if (a->count != b->count)
        return 0;
    for (int i = 0; i < a->count; i++)
        if (a->n[i] != b->n[i] || memcmp(a->start[i].cell, b->start[i].cell, sizeof a->start[i].cell) ||
            a->start[i].to_move != b->start[i].to_move || memcmp(a->moves[i], b->moves[i], (size_t)a->n[i]))
            return 0;
    return 1;
}

static game *kalah(void)
{
    game *g = game_create("kalah", NULL);
    assert_non_null(g);
    return g;
}

static nn_net *tiny_net(const game *g, uint64_t seed)
{
    nn_config c = nn_config_default(game_encode_dim(g), game_moves(g));
    c.n_hidden = 1;
    c.hidden[0] = 32;
    nn_net *net = nn_net_create(&c, seed, NULL);
    assert_non_null(net);
    return net;
}

static mcts_config fast_search(int sims)
{
    mcts_config c = mcts_config_default();
    c.sims = sims;
    c.temp_moves = 6;
    return c;
}

static replay_buffer *buffer(const game *g)
{
    replay_buffer *rb = replay_create(game_encode_dim(g), game_moves(g), 1, 1000000, NULL);
    assert_non_null(rb);
    return rb;
}

/* Whether two replay buffers hold the same samples in the same order (their saved bytes). */
static int same_buffer(replay_buffer *a, replay_buffer *b)
{
    void *ba, *bb;
    size_t na, nb;
    assert_int_equal(replay_save(a, &ba, &na), MCTS_OK);
    assert_int_equal(replay_save(b, &bb, &nb), MCTS_OK);
    const int same = na == nb && !memcmp(ba, bb, na);
    free(ba), free(bb);
    return same;
}

/* Runs Kalah self-play and returns the games played (caller frees) beside the buffer. */
static games_log *play(const game *g, const selfplay_config *sc, const mcts_config *mc, const mcts_mp_eval_factory *ef,
                       replay_buffer *rb, uint64_t seed, game_selfplay_stats *st)
{
    games_log *l = calloc(1, sizeof *l);
    assert_non_null(l);
    char err[MCTS_ERRLEN];
    if (game_selfplay_run_games(g, sc, mc, ef, rb, collect, l, seed, st, err) != MCTS_OK)
        fail_msg("game_selfplay_run_games: %s", err);
    return l;
}

/* ---- determinism ---- */

static void test_same_seed_identical_games(void **state)
{
    (void)state;
    game *g = kalah();
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 6;
    mcts_config mc = fast_search(24);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    games_log *runs[3];
    void *blob[3];
    size_t n[3];
    uint64_t seeds[3] = {42, 42, 43};
    for (int i = 0; i < 3; i++) {
        replay_buffer *rb = buffer(g);
        game_selfplay_stats st;
        runs[i] = play(g, &sc, &mc, &ef, rb, seeds[i], &st);
        assert_int_equal(st.games, 6);
        assert_int_equal(runs[i]->count, 6);
        assert_int_equal(replay_save(rb, &blob[i], &n[i]), MCTS_OK);
        replay_free(rb);
    }
    assert_true(same_games(runs[0], runs[1]));
    assert_int_equal(n[0], n[1]);
    assert_memory_equal(blob[0], blob[1], n[0]);
    assert_false(same_games(runs[0], runs[2])); /* another seed, other games */
    for (int i = 0; i < 3; i++)
        free(runs[i]), free(blob[i]);
    game_free(g);
}

/* ---- samples against the games ---- */

/* Every sample against the game it came from, replayed from its start: the encoding, the legal mask, π (a
 * distribution on the legal moves, one-hot on the move played after the temperature plies), z and the margin
 * target from the final position for the sample's mover. Returns the samples read. */
static size_t check_samples(const game *g, const games_log *l, replay_buffer *rb, int temp_moves, int finished)
{
    const int dim = game_encode_dim(g), m = game_moves(g);
    float x[64], pi[8], z, margin, want_x[64];
    uint8_t legal[8];
    size_t idx = 0;
    for (int gi = 0; gi < l->count; gi++) {
        game_pos end = l->start[gi];
        for (int i = 0; i < l->n[gi]; i++)
            game_apply(g, &end, l->moves[gi][i], NULL);
        if (finished)
            assert_true(end.over);
        double v[GAME_MAX_PLAYERS];
        game_stopped_values(g, &end, v);
        const int final_margin = game_margin(g, &end);
        game_pos p = l->start[gi];
        for (int i = 0; i < l->n[gi]; i++, idx++) {
            assert_int_equal(replay_get(rb, idx, x, legal, pi, &z, &margin), MCTS_OK);
            game_encode(g, &p, want_x);
            assert_memory_equal(x, want_x, (size_t)dim * sizeof(float));
            unsigned lm = game_legal(g, &p);
            double sum = 0;
            for (int k = 0; k < m; k++) {
                assert_int_equal(legal[k], (int)(lm >> k & 1u));
                if (!legal[k])
                    assert_true(pi[k] == 0.0f);
                sum += pi[k];
            }
            assert_float_equal(sum, 1.0, 1e-5);
            assert_float_equal(z, (float)v[p.to_move], 0);
            int mover_margin = p.to_move == 0 ? final_margin : -final_margin;
            assert_float_equal(margin, mover_margin / (float)game_seeds(g), 1e-6);
            int k = l->moves[gi][i];
            assert_true(lm >> k & 1u);
            if (i >= temp_moves)
                assert_true(pi[k] == 1.0f); /* after the temperature plies: one-hot on the move played */
            game_apply(g, &p, k, NULL);
        }
    }
    return idx;
}

/* One worker with 5 games at once, then three workers with 3 each: the games handed over in the buffer's
 * order (worker by worker), every sample matching its game. */
static void test_samples_match_games(void **state)
{
    (void)state;
    game *g = kalah();
    const struct {
        int threads, per_thread, games;
        uint64_t seed;
    } runs[] = {{1, 5, 8, 5}, {3, 3, 10, 11}};
    for (int r = 0; r < 2; r++) {
        nn_net *net = tiny_net(g, 7 + 2 * (uint64_t)r);
        selfplay_config sc = selfplay_config_default();
        sc.threads = runs[r].threads;
        sc.games_per_thread = runs[r].per_thread;
        sc.games = runs[r].games;
        mcts_config mc = fast_search(32);
        mcts_mp_eval_factory ef = mcts_mp_eval_factory_net(net);
        replay_buffer *rb = buffer(g);
        game_selfplay_stats st;
        games_log *l = play(g, &sc, &mc, &ef, rb, runs[r].seed, &st);
        assert_int_equal(st.games, runs[r].games);
        assert_true(st.wins[0] + st.wins[1] >= st.games); /* a draw counts for both */
        assert_int_equal(replay_total(rb), st.samples);
        assert_true(st.avg_batch > 1.0 && st.avg_batch <= runs[r].per_thread);
        assert_true(st.evals > 0 && st.forward_seconds > 0 && st.forward_share > 0 && st.forward_share <= 1);
        assert_int_equal(l->count, runs[r].games);
        assert_int_equal(check_samples(g, l, rb, mc.temp_moves, 1), st.samples);
        free(l);
        replay_free(rb);
        nn_net_free(net);
    }
    game_free(g);
}

/* selfplay.opening_plies: every game starts k random sowings in, the samples are exactly the decisions from
 * there, the openings differ between games, the same seed repeats them, and the key's range is checked. */
static void test_random_openings(void **state)
{
    (void)state;
    game *g = kalah();
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 8;
    sc.opening_plies = 10;
    mcts_config mc = fast_search(24);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    replay_buffer *rb = buffer(g), *rb2 = buffer(g);
    game_selfplay_stats st, st2;
    games_log *l = play(g, &sc, &mc, &ef, rb, 11, &st), *l2 = play(g, &sc, &mc, &ef, rb2, 11, &st2);
    assert_true(same_games(l, l2));
    assert_int_equal(st.samples, st2.samples);
    game_pos start;
    game_start(g, &start);
    int moved = 0, distinct = 0;
    for (int i = 0; i < l->count; i++) {
        assert_false(l->start[i].over);
        assert_true(l->n[i] >= 1);
        moved += memcmp(l->start[i].cell, start.cell, sizeof start.cell) != 0;
        int fresh = 1;
        for (int j = 0; j < i; j++)
            fresh &= memcmp(l->start[i].cell, l->start[j].cell, sizeof start.cell) != 0;
        distinct += fresh;
    }
    assert_int_equal(l->count, 8);
    assert_int_equal(check_samples(g, l, rb, mc.temp_moves, 1), st.samples);
    assert_true(moved >= 5 && distinct >= 5); /* k = 0 has probability 1/11 per game */
    sc.opening_plies = 101;
    char err[MCTS_ERRLEN];
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.opening_plies"));
    free(l), free(l2);
    replay_free(rb), replay_free(rb2);
    game_free(g);
}

/* selfplay.opening_sims: a decision with at least opening_seeds seeds in the pits is searched with
 * opening_sims simulations. Every unfinished position has one seed or more in its pits, none has 255: those
 * thresholds must give exactly the games of a plain run at opening_sims / at mcts.sims. */
static void test_opening_sims(void **state)
{
    (void)state;
    game *g = kalah();
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 6;
    sc.opening_plies = 6;
    struct {
        int sims, opening_sims, opening_seeds;
    } cfgs[] = {{48, 0, 33}, {16, 48, 1}, {16, 0, 33}, {16, 48, 255}, {16, 48, 33}};
    games_log *runs[5];
    void *blob[5];
    size_t n[5];
    game_selfplay_stats st[5];
    for (int i = 0; i < 5; i++) {
        mcts_config mc = fast_search(cfgs[i].sims);
        sc.opening_sims = cfgs[i].opening_sims;
        sc.opening_seeds = cfgs[i].opening_seeds;
        replay_buffer *rb = buffer(g);
        runs[i] = play(g, &sc, &mc, &ef, rb, 5, &st[i]);
        assert_int_equal(replay_save(rb, &blob[i], &n[i]), MCTS_OK);
        replay_free(rb);
    }
    for (int i = 0; i < 4; i += 2) { /* run 1 is run 0, run 3 is run 2, bit for bit */
        assert_true(same_games(runs[i], runs[i + 1]));
        assert_int_equal(n[i], n[i + 1]);
        assert_memory_equal(blob[i], blob[i + 1], n[i]);
        assert_int_equal(st[i].simulations, st[i + 1].simulations);
    }
    /* the threshold 33 gives the deeper search to some decisions only */
    assert_true(!same_games(runs[4], runs[0]) && !same_games(runs[4], runs[2]));
    double per[5];
    for (int i = 0; i < 5; i++)
        per[i] = (double)st[i].simulations / (double)st[i].samples;
    assert_true(per[4] > per[2] * 1.1 && per[4] < per[0] * 0.9);
    char err[MCTS_ERRLEN];
    sc.opening_seeds = 0;
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.opening_seeds"));
    sc.opening_seeds = 33;
    sc.opening_sims = -1;
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.opening_sims"));
    for (int i = 0; i < 5; i++)
        free(runs[i]), free(blob[i]);
    game_free(g);
}

/* selfplay.pi_temperature: the targets are the visit shares raised to 1/T and renormalised; the games (moves
 * drawn by the search's choice, not from the target) are the same. With T = 0.5 each target is the square of
 * the T = 1 target renormalised (an independent computation from the plain shares N / ΣN). */
static void test_pi_temperature(void **state)
{
    (void)state;
    game *g = kalah();
    const int dim = game_encode_dim(g), m = game_moves(g);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 6;
    sc.pi_visits = 1;
    mcts_config mc = fast_search(32);
    const double temps[2] = {1.0, 0.5};
    games_log *runs[2];
    replay_buffer *rb[2];
    for (int i = 0; i < 2; i++) {
        sc.pi_temperature = temps[i];
        rb[i] = buffer(g);
        game_selfplay_stats st;
        runs[i] = play(g, &sc, &mc, &ef, rb[i], 7, &st);
    }
    assert_true(same_games(runs[0], runs[1]));
    assert_int_equal(replay_size(rb[0]), replay_size(rb[1]));
    int sharper = 0;
    for (size_t i = 0; i < replay_size(rb[0]); i++) {
        float x[2][64], pi[2][8], z[2], mg[2];
        uint8_t legal[2][8];
        for (int k = 0; k < 2; k++)
            assert_int_equal(replay_get(rb[k], i, x[k], legal[k], pi[k], &z[k], &mg[k]), MCTS_OK);
        assert_memory_equal(x[0], x[1], (size_t)dim * sizeof(float));
        double sq = 0;
        for (int a = 0; a < m; a++)
            sq += (double)pi[0][a] * pi[0][a];
        for (int a = 0; a < m; a++) {
            double want = (double)pi[0][a] * pi[0][a] / sq;
            if (fabs(pi[1][a] - want) > 1e-5)
                fail_msg("sample %zu, pit %d: target %g at T = 0.5, %g from the T = 1 shares", i, a, pi[1][a], want);
            sharper |= fabs(pi[1][a] - pi[0][a]) > 1e-3;
        }
    }
    assert_true(sharper);
    char err[MCTS_ERRLEN];
    sc.pi_temperature = 0;
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.pi_temperature"));
    for (int i = 0; i < 2; i++)
        free(runs[i]), replay_free(rb[i]);
    game_free(g);
}

/* One replay sample, for comparing two buffers' records. */
typedef struct {
    float x[64], pi[8], z, margin;
    uint8_t legal[8];
} sample_rec;

static sample_rec get_sample(replay_buffer *rb, size_t i)
{
    sample_rec s;
    memset(&s, 0, sizeof s);
    assert_int_equal(replay_get(rb, i, s.x, s.legal, s.pi, &s.z, &s.margin), MCTS_OK);
    return s;
}

/* Member by member: a struct's padding need not survive being returned. */
static int same_sample(const sample_rec *a, const sample_rec *b)
{
    return !memcmp(a->x, b->x, sizeof a->x) && !memcmp(a->pi, b->pi, sizeof a->pi) &&
           !memcmp(a->legal, b->legal, sizeof a->legal) && !memcmp(&a->z, &b->z, sizeof a->z) &&
           !memcmp(&a->margin, &b->margin, sizeof a->margin);
}

/* selfplay.surprise_weight (KataGo's policy surprise weighting, selfplay.h): the games are those of s = 0
 * (the copies are drawn from a stream of their own), and each decision is written floor(w) or floor(w) + 1
 * times, adjacent, with w = (1 − s) + s · n · KL / ΣKL over its game's n full decisions and
 * KL = Σ π ln(π · L): the divergence from the rollout evaluator's uniform prior over the L legal moves,
 * computed here from the written targets. The root noise (on here) must not enter the prior. A value-only
 * decision (playout cap randomization: π = 0) is written exactly once and left out of the weights. Over the
 * run the copies add up to about the weights' sum. */
static void check_surprise(double full_sims_prob)
{
    game *g = kalah();
    const int m = game_moves(g);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 8;
    sc.pi_visits = 1;
    sc.full_sims_prob = full_sims_prob;
    sc.fast_sims = full_sims_prob < 1 ? 8 : 0;
    mcts_config mc = fast_search(32);
    assert_true(mc.dirichlet_eps > 0);
    games_log *runs[2];
    replay_buffer *rb[2];
    for (int i = 0; i < 2; i++) {
        sc.surprise_weight = i ? 0.5 : 0.0;
        rb[i] = buffer(g);
        game_selfplay_stats st;
        runs[i] = play(g, &sc, &mc, &ef, rb[i], 9, &st);
        assert_int_equal(st.samples, replay_size(rb[0])); /* stats count decisions, not copies */
    }
    assert_true(same_games(runs[0], runs[1]));
    size_t j0 = 0, j1 = 0, n0 = replay_size(rb[0]), n1 = replay_size(rb[1]), copies_all = 0;
    double weights_all = 0;
    int games = 0, repeated = 0, dropped = 0, value_only = 0;
    for (; games < runs[0]->count; games++) {
        const int n = runs[0]->n[games];
        assert_true(n >= 1 && j0 + (size_t)n <= n0);
        double kl[MAX_PLIES], sum = 0;
        int full = 0;
        for (int i = 0; i < n; i++) {
            sample_rec a = get_sample(rb[0], j0 + (size_t)i);
            int legal = 0;
            double mass = 0;
            for (int k = 0; k < m; k++)
                legal += a.legal[k], mass += a.pi[k];
            kl[i] = 0;
            for (int k = 0; k < m; k++)
                if (a.pi[k] > 0)
                    kl[i] += a.pi[k] * log(a.pi[k] * legal);
            if (mass == 0) {
                kl[i] = -1; /* value-only */
                continue;
            }
            kl[i] = kl[i] > 0 ? kl[i] : 0;
            sum += kl[i];
            full++;
        }
        for (int i = 0; i < n; i++) {
            double w = kl[i] < 0 || !(sum > 0) ? 1.0 : 0.5 + 0.5 * full * kl[i] / sum;
            sample_rec a = get_sample(rb[0], j0 + (size_t)i);
            int c = 0;
            for (; j1 < n1; j1++, c++) {
                sample_rec b = get_sample(rb[1], j1);
                if (!same_sample(&a, &b))
                    break;
            }
            if (kl[i] < 0 ? c != 1 : c < (int)floor(w - 1e-4) || c > (int)floor(w + 1e-4) + 1)
                fail_msg("full_sims_prob %g, game %d, decision %d: %d copies for the weight %g (KL %g of %g)",
                         full_sims_prob, games, i, c, w, kl[i], sum);
            value_only += kl[i] < 0;
            repeated += c > 1;
            dropped += c == 0;
            copies_all += (size_t)c;
            weights_all += w;
        }
        j0 += (size_t)n;
    }
    assert_int_equal(games, 8);
    assert_int_equal(j0, n0);
    assert_int_equal(j1, n1);
    assert_true(repeated > 0 && dropped > 0);
    assert_true(full_sims_prob < 1 ? value_only > 0 : value_only == 0);
    if (fabs((double)copies_all - weights_all) > 5 * sqrt((double)n0) + 1)
        fail_msg("%zu copies for weights summing to %g over %zu decisions", copies_all, weights_all, n0);
    for (int i = 0; i < 2; i++)
        free(runs[i]), replay_free(rb[i]);
    game_free(g);
}

static void test_surprise_weighting(void **state)
{
    (void)state;
    check_surprise(1.0);
    check_surprise(0.5);
    selfplay_config sc = selfplay_config_default();
    char err[MCTS_ERRLEN];
    sc.surprise_weight = 1.5;
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.surprise_weight"));
    sc.surprise_weight = -0.1;
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
}

/* ---- batching: one evaluator call carries the leaves of many games ---- */

typedef struct {
    mcts_mp_eval base;
    mcts_mp_eval *inner;
    int calls, max_n, over;
} counting_eval;

static int counting_evaluate(mcts_mp_eval *e, const game_pos *pos, int n, float *prior, float *value)
{
    counting_eval *c = (counting_eval *)e;
    c->calls++;
    if (n > c->max_n)
        c->max_n = n;
    for (int i = 0; i < n; i++)
        c->over |= pos[i].over;
    int rc = c->inner->evaluate(c->inner, pos, n, prior, value);
    e->positions += (uint64_t)n;
    return rc;
}

static void counting_destroy(mcts_mp_eval *e)
{
    mcts_mp_eval_free(((counting_eval *)e)->inner);
}

typedef struct {
    counting_eval ev;
    int created, max_batch;
} counting_box;

static mcts_mp_eval *counting_create(const mcts_mp_eval_factory *f, const game *g, int max_batch, uint64_t seed,
                                     char *err)
{
    counting_box *box = f->user;
    memset(&box->ev, 0, sizeof box->ev);
    box->ev.inner = mcts_mp_eval_rollout_create(g, 1, max_batch, seed, err);
    box->ev.base = (mcts_mp_eval){.evaluate = counting_evaluate, .destroy = counting_destroy, .game = g,
                                  .max_batch = max_batch};
    box->created++;
    box->max_batch = max_batch;
    return &box->ev.base;
}

static void test_batches_span_games(void **state)
{
    (void)state;
    game *g = kalah();
    counting_box box = {0};
    mcts_mp_eval_factory ef = {.create = counting_create, .user = &box};
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 8;
    sc.games = 16;
    mcts_config mc = fast_search(16);
    game_selfplay_stats st;
    free(play(g, &sc, &mc, &ef, NULL, 3, &st));
    assert_int_equal(box.created, 1);
    assert_int_equal(box.max_batch, 8);
    assert_int_equal(box.ev.max_n, 8);     /* full batches: one leaf from each of the 8 games */
    assert_int_equal((uint64_t)box.ev.calls, st.batches);
    assert_int_equal(box.ev.over, 0);      /* finished positions never reach the evaluator */
    assert_true(st.avg_batch > 4.0);
    assert_int_equal(st.games, 16);

    /* several leaves per game (virtual loss) fill larger batches */
    mc.leaves_per_game = 4;
    free(play(g, &sc, &mc, &ef, NULL, 3, &st));
    assert_int_equal(box.max_batch, 32);
    assert_true(box.ev.max_n > 8 && box.ev.max_n <= 32);
    assert_int_equal(box.ev.over, 0);
    game_free(g);
}

/* ---- threads ---- */

/* Two workers, a net evaluator: the same seed gives the same games in the same order and the same replay
 * buffer, byte for byte, whatever the threads' timing (games dealt by index, samples handed over worker by
 * worker after the join). Four runs, so that a timing-dependent order shows. */
static void test_threads_deterministic(void **state)
{
    (void)state;
    game *g = kalah();
    nn_net *net = tiny_net(g, 5);
    selfplay_config sc = selfplay_config_default();
    sc.threads = 2;
    sc.games_per_thread = 2;
    sc.games = 41;
    mcts_config mc = fast_search(8);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_net(net);
    games_log *runs[4];
    void *blob[4];
    size_t n[4];
    for (int i = 0; i < 4; i++) {
        replay_buffer *rb = buffer(g);
        game_selfplay_stats st;
        runs[i] = play(g, &sc, &mc, &ef, rb, 77, &st);
        assert_int_equal(st.games, 41);
        assert_int_equal(replay_save(rb, &blob[i], &n[i]), MCTS_OK);
        replay_free(rb);
    }
    for (int i = 1; i < 4; i++) {
        assert_true(same_games(runs[0], runs[i]));
        assert_int_equal(n[0], n[i]);
        assert_memory_equal(blob[0], blob[i], n[0]);
    }
    for (int i = 0; i < 4; i++)
        free(runs[i]), free(blob[i]);
    nn_net_free(net);
    game_free(g);
}

static void test_max_moves_and_errors(void **state)
{
    (void)state;
    game *g = kalah();
    char err[MCTS_ERRLEN];
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 2;
    sc.games = 3;
    sc.max_moves = 5;
    mcts_config mc = fast_search(8);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    replay_buffer *rb = buffer(g);
    game_selfplay_stats st;
    games_log *l = play(g, &sc, &mc, &ef, rb, 1, &st);
    assert_int_equal(st.samples, 15);
    assert_int_equal(st.capped, 3);
    /* scored by the sweep (game_stopped_values): each side's pits to its own store */
    assert_int_equal(check_samples(g, l, rb, mc.temp_moves, 0), 15);
    float z, margin;
    assert_int_equal(replay_get(rb, 0, NULL, NULL, NULL, &z, &margin), MCTS_OK);
    assert_true(z == -1 || z == 0 || z == 1);
    game_pos end = l->start[0];
    for (int i = 0; i < l->n[0]; i++)
        game_apply(g, &end, l->moves[0][i], NULL);
    int sweep = 0; /* South's pits and store minus North's */
    for (int i = 0; i <= 6; i++)
        sweep += end.cell[i] - end.cell[7 + i];
    assert_true(z == (float)((sweep > 0) - (sweep < 0)) * (l->start[0].to_move == 0 ? 1 : -1));
    free(l);

    /* configuration errors name the field */
    const char *fields[] = {"threads", "games_per_thread", "games", "max_moves", "pi_visits"};
    for (int i = 0; i < 5; i++) {
        selfplay_config b = selfplay_config_default();
        switch (i) {
        case 0: b.threads = 0; break;
        case 1: b.games_per_thread = 0; break;
        case 2: b.games = 0; break;
        case 3: b.max_moves = 0; break;
        case 4: b.pi_visits = 3; break;
        }
        assert_int_equal(selfplay_config_check(&b, err), MCTS_EINVAL);
        if (!strstr(err, fields[i]))
            fail_msg("'%s' does not name %s", err, fields[i]);
        assert_int_equal(game_selfplay_run(g, &b, &mc, &ef, rb, 1, NULL, err), MCTS_EINVAL);
    }
    /* a buffer of other dimensions, a net of other shapes */
    replay_buffer *small = replay_create(4, 2, 1, 10, NULL);
    assert_int_equal(game_selfplay_run(g, &sc, &mc, &ef, small, 1, NULL, err), MCTS_EINVAL);
    replay_free(small);
    game *g4 = game_create("kalah:pits=4", NULL);
    nn_net *net = tiny_net(g4, 1);
    mcts_mp_eval_factory nf = mcts_mp_eval_factory_net(net);
    assert_int_not_equal(game_selfplay_run(g, &sc, &mc, &nf, NULL, 1, NULL, err), MCTS_OK);
    assert_non_null(strstr(err, "input_dim"));
    nn_net_free(net);
    game_free(g4);
    /* rescoring needs an endgame database: Kalah's kind has none until one is attached */
    sc.rescore = 1;
    mc.tablebase_seeds = 8;
    assert_int_equal(game_selfplay_run(g, &sc, &mc, &ef, rb, 1, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "endgame database"));
    /* a callback that fails fails the run */
    sc.rescore = 0;
    mc.tablebase_seeds = 0;
    games_log *full = calloc(1, sizeof *full);
    full->count = MAX_GAMES;
    assert_int_equal(game_selfplay_run_games(g, &sc, &mc, &ef, rb, collect, full, 1, NULL, err), MCTS_EIO);
    free(full);
    replay_free(rb);
    game_free(g);
}

/* ---- replay buffer ---- */

static void fill(replay_buffer *rb, int from, int to)
{
    float x[14], pi[6] = {0, 0, 0, 0, 0, 1};
    uint8_t legal[6] = {1, 1, 1, 1, 1, 1};
    for (int i = from; i < to; i++) {
        for (int k = 0; k < 14; k++)
            x[k] = (float)(i * 100 + k);
        float z = (float)i;
        replay_sample s = {x, legal, pi, &z, (float)-i};
        assert_int_equal(replay_add(rb, &s, 1), MCTS_OK);
    }
}

static void test_replay_window_and_sampling(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    assert_null(replay_create(14, 6, 1, 0, err));
    assert_non_null(strstr(err, "window"));
    replay_buffer *rb = replay_create(14, 6, 1, 4, NULL);
    float x[14], z, margin;
    mcts_rng g;
    mcts_rng_seed(&g, 1);
    assert_int_equal(replay_sample_batch(rb, &g, 1, x, NULL, x, &z, NULL), MCTS_EINVAL); /* empty */
    fill(rb, 0, 10);
    assert_int_equal(replay_size(rb), 4);
    assert_int_equal(replay_total(rb), 10);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(replay_get(rb, (size_t)i, x, NULL, NULL, &z, &margin), MCTS_OK);
        assert_float_equal(z, 6 + i, 0);
        assert_float_equal(margin, -(6 + i), 0);
        assert_float_equal(x[3], (6 + i) * 100 + 3, 0);
    }
    assert_int_equal(replay_get(rb, 4, x, NULL, NULL, &z, NULL), MCTS_EINVAL);
    /* uniform with replacement over what is held */
    int count[10] = {0}, B = 64;
    float bx[64 * 14], bpi[64 * 6], bz[64], bm[64];
    uint8_t bl[64 * 6];
    for (int rep = 0; rep < 500; rep++) {
        assert_int_equal(replay_sample_batch(rb, &g, B, bx, bl, bpi, bz, bm), MCTS_OK);
        for (int i = 0; i < B; i++) {
            int id = (int)bz[i];
            assert_true(id >= 6 && id <= 9);
            assert_float_equal(bx[i * 14 + 5], id * 100 + 5, 0);
            assert_float_equal(bm[i], -id, 0);
            assert_float_equal(bpi[i * 6 + 5], 1, 0);
            count[id]++;
        }
    }
    for (int id = 6; id <= 9; id++)
        assert_true(abs(count[id] - 8000) < 400); /* ~4.5 sigma */
    replay_clear(rb);
    assert_int_equal(replay_size(rb), 0);
    assert_int_equal(replay_total(rb), 10);
    replay_free(rb);
}

/* replay_drain: a buffer filled apart and drained into another holds what adding the same samples there
 * directly gives (oldest first, the window applied), and the source is left empty; other shapes refused. */
static void test_replay_drain(void **state)
{
    (void)state;
    replay_buffer *dst = replay_create(14, 6, 1, 50, NULL), *src = replay_create(14, 6, 1, 40, NULL);
    replay_buffer *other = replay_create(15, 6, 1, 40, NULL);
    fill(dst, 0, 30);
    fill(src, 10, 73); /* wrapped: it keeps samples 33..72 */
    assert_int_equal(replay_drain(dst, src), MCTS_OK);
    assert_int_equal(replay_size(src), 0);
    replay_buffer *want = replay_create(14, 6, 1, 50, NULL);
    fill(want, 0, 30);
    fill(want, 33, 73);
    assert_true(same_buffer(dst, want));
    assert_int_equal(replay_drain(dst, other), MCTS_EINVAL);
    assert_int_equal(replay_drain(dst, dst), MCTS_EINVAL);
    replay_free(dst), replay_free(src), replay_free(other), replay_free(want);
}

static void test_replay_save_restore(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    replay_buffer *a = replay_create(14, 6, 1, 50, NULL), *b = replay_create(14, 6, 1, 50, NULL);
    fill(a, 0, 73); /* wrapped around */
    void *blob;
    size_t n;
    assert_int_equal(replay_save(a, &blob, &n), MCTS_OK);
    assert_int_equal(replay_restore(b, blob, n, err), MCTS_OK);
    assert_int_equal(replay_size(b), 50);
    assert_int_equal(replay_total(b), 73);
    mcts_rng ga, gb;
    mcts_rng_seed(&ga, 9);
    mcts_rng_seed(&gb, 9);
    float xa[8 * 14], xb[8 * 14], pa[8 * 6], pb[8 * 6], za[8], zb[8], ma[8], mb[8];
    uint8_t la[8 * 6], lb[8 * 6];
    for (int rep = 0; rep < 20; rep++) {
        replay_sample_batch(a, &ga, 8, xa, la, pa, za, ma);
        replay_sample_batch(b, &gb, 8, xb, lb, pb, zb, mb);
        assert_memory_equal(xa, xb, sizeof xa);
        assert_memory_equal(la, lb, sizeof la);
        assert_memory_equal(pa, pb, sizeof pa);
        assert_memory_equal(za, zb, sizeof za);
        assert_memory_equal(ma, mb, sizeof ma);
    }
    /* adding after a restore continues the same ring */
    fill(a, 73, 80);
    fill(b, 73, 80);
    void *b1, *b2;
    size_t n1, n2;
    replay_save(a, &b1, &n1);
    replay_save(b, &b2, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1), free(b2);
    /* a smaller window keeps the newest */
    replay_buffer *c = replay_create(14, 6, 1, 10, NULL);
    assert_int_equal(replay_restore(c, blob, n, err), MCTS_OK);
    float z;
    replay_get(c, 0, NULL, NULL, NULL, &z, NULL);
    assert_float_equal(z, 63, 0);
    assert_int_equal(replay_total(c), 73);
    /* broken blobs are refused and leave the buffer alone */
    uint8_t *bad = malloc(n);
    memcpy(bad, blob, n);
    bad[0] = 'X';
    assert_int_equal(replay_restore(c, bad, n, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "magic"));
    assert_int_equal(replay_restore(c, blob, n - 3, err), MCTS_EINVAL);
    assert_int_equal(replay_restore(c, blob, 10, err), MCTS_EINVAL);
    replay_buffer *d = replay_create(10, 4, 1, 10, NULL);
    assert_int_equal(replay_restore(d, blob, n, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "dim"));
    assert_int_equal(replay_size(c), 10);
    replay_get(c, 0, NULL, NULL, NULL, &z, NULL);
    assert_float_equal(z, 63, 0);
    free(bad);
    free(blob);
    replay_free(a), replay_free(b), replay_free(c), replay_free(d);
}

/* A buffer of n_value = 3: z vectors round trip through add/get, sample_batch writes them batch × 3 beside
 * their own x, the blob (version 2) carries them, and mismatched n_value is refused everywhere. */
static void fill3(replay_buffer *rb, int from, int to)
{
    float x[14], pi[6] = {0, 0, 0, 0, 0, 1}, z[3];
    uint8_t legal[6] = {1, 1, 1, 1, 1, 1};
    for (int i = from; i < to; i++) {
        for (int k = 0; k < 14; k++)
            x[k] = (float)(i * 100 + k);
        for (int j = 0; j < 3; j++)
            z[j] = (float)(1000 * j + i);
        replay_sample s = {x, legal, pi, z, (float)-i};
        assert_int_equal(replay_add(rb, &s, 1), MCTS_OK);
    }
}

static void test_replay_vector_z(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    assert_null(replay_create(14, 6, 0, 10, err));
    assert_non_null(strstr(err, "n_value"));
    assert_null(replay_create(14, 6, REPLAY_MAX_VALUE + 1, 10, err));
    assert_non_null(strstr(err, "n_value"));
    replay_buffer *rb = replay_create(14, 6, 3, 20, NULL);
    assert_non_null(rb);
    assert_int_equal(replay_n_value(rb), 3);
    float x[14], pi[6] = {1, 0, 0, 0, 0, 0};
    uint8_t legal[6] = {1, 1, 1, 1, 1, 1};
    replay_sample nz = {x, legal, pi, NULL, 0};
    assert_int_equal(replay_add(rb, &nz, 1), MCTS_EINVAL); /* z is required */
    fill3(rb, 0, 25);
    for (int i = 0; i < 20; i++) {
        float z[3], m;
        assert_int_equal(replay_get(rb, (size_t)i, x, NULL, NULL, z, &m), MCTS_OK);
        for (int j = 0; j < 3; j++)
            assert_float_equal(z[j], 1000 * j + 5 + i, 0);
        assert_float_equal(m, -(5 + i), 0);
    }
    enum { B = 32 };
    float bx[B * 14], bpi[B * 6], bz[B * 3], bm[B];
    uint8_t bl[B * 6];
    mcts_rng g;
    mcts_rng_seed(&g, 3);
    for (int rep = 0; rep < 20; rep++) {
        assert_int_equal(replay_sample_batch(rb, &g, B, bx, bl, bpi, bz, bm), MCTS_OK);
        for (int b = 0; b < B; b++) {
            int id = (int)bx[b * 14] / 100;
            assert_true(id >= 5 && id < 25);
            for (int j = 0; j < 3; j++)
                assert_float_equal(bz[b * 3 + j], 1000 * j + id, 0);
            assert_float_equal(bm[b], -id, 0);
        }
    }
    /* The blob: version 2 with n_value, restored bit for bit into another n_value = 3 buffer. */
    void *blob, *blob2;
    size_t n, n2;
    assert_int_equal(replay_save(rb, &blob, &n), MCTS_OK);
    uint32_t ver, nv;
    memcpy(&ver, (uint8_t *)blob + 4, 4);
    memcpy(&nv, (uint8_t *)blob + 20, 4);
    assert_int_equal(ver, 2);
    assert_int_equal(nv, 3);
    assert_int_equal(n, 48 + 20 * (14 * 4 + 6 + 6 * 4 + 3 * 4 + 4));
    replay_buffer *c = replay_create(14, 6, 3, 20, NULL), *one = replay_create(14, 6, 1, 20, NULL);
    assert_int_equal(replay_restore(c, blob, n, err), MCTS_OK);
    assert_int_equal(replay_save(c, &blob2, &n2), MCTS_OK);
    assert_int_equal(n, n2);
    assert_memory_equal(blob, blob2, n);
    assert_int_equal(replay_restore(one, blob, n, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "n_value"));
    /* Self-play fills Kalah samples (one value): it refuses a vector buffer. */
    game *kg = kalah();
    selfplay_config sc = selfplay_config_default();
    mcts_config mc = fast_search(8);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    replay_buffer *kb = replay_create(game_encode_dim(kg), game_moves(kg), 3, 10, NULL);
    assert_int_equal(game_selfplay_run(kg, &sc, &mc, &ef, kb, 1, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "n_value"));
    game_free(kg);
    free(blob), free(blob2);
    replay_free(rb), replay_free(c), replay_free(one), replay_free(kb);
}

/* A version-1 blob (from checkpoints written before vector values: no n_value field, one float z) restores
 * into an n_value = 1 buffer with every field in place; saving it again gives version 2. Built by hand
 * from the documented layout so the old format stays pinned. */
static void test_replay_v1_blob(void **state)
{
    (void)state;
    enum { DIM = 3, PITS = 2, COUNT = 5, REC = DIM * 4 + PITS + PITS * 4 + 4 + 4 };
    uint8_t blob[44 + COUNT * REC], *q = blob;
    uint32_t h32[4] = {1, 0x01020304u, DIM, PITS};
    uint64_t h64[3] = {8, COUNT, 11}; /* window 8, 5 held, 11 ever added */
    memcpy(q, "SZRB", 4), q += 4;
    memcpy(q, h32, sizeof h32), q += sizeof h32;
    memcpy(q, h64, sizeof h64), q += sizeof h64;
    for (int i = 0; i < COUNT; i++) {
        float x[DIM] = {(float)i, 0.5f, -1}, pi[PITS] = {0.25f, 0.75f}, z = (float)(i % 3 - 1), m = 0.1f * i;
        uint8_t lg[PITS] = {1, (uint8_t)(i & 1)};
        memcpy(q, x, sizeof x), q += sizeof x;
        memcpy(q, lg, sizeof lg), q += sizeof lg;
        memcpy(q, pi, sizeof pi), q += sizeof pi;
        memcpy(q, &z, 4), q += 4;
        memcpy(q, &m, 4), q += 4;
    }
    assert_int_equal((size_t)(q - blob), sizeof blob);
    char err[MCTS_ERRLEN];
    replay_buffer *rb = replay_create(DIM, PITS, 1, 4, NULL); /* a smaller window: the newest 4 are kept */
    if (replay_restore(rb, blob, sizeof blob, err) != MCTS_OK)
        fail_msg("version-1 blob: %s", err);
    assert_int_equal(replay_size(rb), 4);
    assert_int_equal(replay_total(rb), 11);
    for (int i = 1; i < COUNT; i++) {
        float x[DIM], pi[PITS], z, m;
        uint8_t lg[PITS];
        assert_int_equal(replay_get(rb, (size_t)i - 1, x, lg, pi, &z, &m), MCTS_OK);
        assert_float_equal(x[0], i, 0);
        assert_float_equal(x[2], -1, 0);
        assert_int_equal(lg[1], i & 1);
        assert_float_equal(pi[1], 0.75, 0);
        assert_float_equal(z, (i % 3 - 1), 0);
        assert_float_equal(m, (0.1f * i), 0);
    }
    void *v2;
    size_t n2;
    assert_int_equal(replay_save(rb, &v2, &n2), MCTS_OK);
    uint32_t ver;
    memcpy(&ver, (uint8_t *)v2 + 4, 4);
    assert_int_equal(ver, 2);
    assert_int_equal(n2, 48 + 4 * REC);
    free(v2);
    /* Only an n_value = 1 buffer takes it; damaged version-1 blobs are refused. */
    replay_buffer *three = replay_create(DIM, PITS, 3, 8, NULL);
    assert_int_equal(replay_restore(three, blob, sizeof blob, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "n_value"));
    assert_int_equal(replay_restore(rb, blob, sizeof blob - 1, err), MCTS_EINVAL);
    assert_int_equal(replay_restore(rb, blob, 40, err), MCTS_EINVAL);
    uint8_t bad[sizeof blob];
    memcpy(bad, blob, sizeof blob);
    bad[4] = 3; /* version 3 */
    assert_int_equal(replay_restore(rb, bad, sizeof bad, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "version"));
    assert_int_equal(replay_size(rb), 4);
    replay_free(rb), replay_free(three);
}

typedef struct {
    replay_buffer *rb;
    int id;
} adder_arg;

static void *adder(void *p)
{
    adder_arg *a = p;
    float x[14] = {0}, pi[6] = {1, 0, 0, 0, 0, 0};
    uint8_t legal[6] = {1, 0, 0, 0, 0, 0};
    mcts_rng g;
    mcts_rng_seed(&g, (uint64_t)a->id);
    float bx[4 * 14], bpi[4 * 6], bz[4];
    for (int i = 0; i < 500; i++) {
        x[0] = (float)a->id;
        static const float win = 1, loss = -1;
        replay_sample s[2] = {{x, legal, pi, &win, 0}, {x, legal, pi, &loss, 0}};
        replay_add(a->rb, s, 2);
        replay_sample_batch(a->rb, &g, 4, bx, NULL, bpi, bz, NULL);
    }
    return NULL;
}

static void test_replay_threads(void **state)
{
    (void)state;
    replay_buffer *rb = replay_create(14, 6, 1, 700, NULL);
    pthread_t th[4];
    adder_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (adder_arg){rb, i};
        pthread_create(&th[i], NULL, adder, &args[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(replay_total(rb), 4000);
    assert_int_equal(replay_size(rb), 700);
    /* pairs were added atomically: the sum of z over the whole (even-sized, pair-aligned) window is 0 */
    double sum = 0;
    for (size_t i = 0; i < 700; i++) {
        float z;
        replay_get(rb, i, NULL, NULL, NULL, &z, NULL);
        sum += z;
    }
    assert_float_equal(sum, 0, 0);
    replay_free(rb);
}

/* ---- the benchmark command ---- */

static void test_bench_command(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = tu_run(&out, 0, "bench selfplay --sims 8 --games-per-thread 4 --games 4 --threads 2 --json");
    assert_int_equal(rc, 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    const char *keys[] = {"positions_per_s", "games_per_s", "avg_batch", "forward_share", "sims_per_s_per_core",
                          "search_us_per_sim", "net_us_per_sim", "simulations"};
    for (int i = 0; i < 8; i++) {
        cJSON *v = cJSON_GetObjectItem(o, keys[i]);
        if (!cJSON_IsNumber(v))
            fail_msg("missing key %s in %s", keys[i], out);
        assert_true(v->valuedouble >= 0);
    }
    assert_true(cJSON_GetObjectItem(o, "forward_share")->valuedouble <= 1);
    assert_int_equal(cJSON_GetObjectItem(o, "games")->valueint, 4);
    /* 8 new simulations per move (tree reuse adds none to the count), fewer only where the solver proved the
     * root; the two times per simulation add up to the workers' time */
    double sims = cJSON_GetObjectItem(o, "simulations")->valuedouble;
    double positions = cJSON_GetObjectItem(o, "positions")->valuedouble;
    assert_true(sims <= 8 * positions && sims >= 0.5 * 8 * positions);
    assert_true(cJSON_GetObjectItem(o, "net_us_per_sim")->valuedouble > 0);
    cJSON_Delete(o);
    free(out);
    rc = tu_run(&out, 1, "bench selfplay --threads 0");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--threads"));
    free(out);
    rc = tu_run(&out, 1, "bench selfplay --rules nosuch");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "nosuch"));
    free(out);
    /* any game: the game interface's self-play, with the same figures */
    rc = tu_run(&out, 0, "bench selfplay --rules oware --sims 8 --games-per-thread 2 --games 2 --json");
    assert_int_equal(rc, 0);
    o = cJSON_Parse(out);
    assert_non_null(o);
    assert_int_equal((int)cJSON_GetObjectItem(o, "games")->valuedouble, 2);
    assert_true(cJSON_GetObjectItem(o, "simulations")->valuedouble > 0);
    cJSON_Delete(o);
    free(out);
    rc = tu_run(&out, 0, "bench selfplay --help");
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "--sims"));
    free(out);
}

/* ---- the league: fixed opponents in a share of the games ---- */

/* An opponent that plays the highest legal slot and records what it was asked (one worker: in order). */
typedef struct {
    int calls, created, illegal;
    game_pos pos[4096];
    int move[4096];
} league_log;

static const game *league_game;

static void *lg_create(void *ctx, int i, char *err)
{
    (void)err;
    league_log *l = ctx;
    l->created++;
    (void)i;
    return l; /* the log itself: one opponent */
}

static int lg_choose(void *agent, const game_pos *p, uint64_t seed, int *move, char *err)
{
    (void)seed;
    league_log *l = agent;
    const unsigned legal = game_legal(league_game, p);
    if (l->illegal) { /* the first slot it may not play, else a failure */
        for (int k = 0; k < game_moves(league_game); k++)
            if (!(legal >> k & 1u)) {
                *move = k;
                return 0;
            }
        snprintf(err, MCTS_ERRLEN, "every slot is legal");
        return -1;
    }
    *move = 31 - __builtin_clz(legal);
    if (l->calls < 4096) {
        l->pos[l->calls] = *p;
        l->move[l->calls] = *move;
    }
    l->calls++;
    return 0;
}

static void lg_free(void *agent) { (void)agent; }

static void test_league_opponents(void **state)
{
    (void)state;
    game *g = game_create("basico:players=3", NULL);
    assert_non_null(g);
    league_game = g;
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 1;
    sc.games = 8;
    mcts_config mc = fast_search(16);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    league_log *lg = calloc(1, sizeof *lg);
    assert_non_null(lg);
    game_selfplay_league league = {.count = 1, .share = 1.0, .ctx = lg, .create = lg_create, .choose = lg_choose,
                                   .free = lg_free};
    char err[MCTS_ERRLEN];
    games_log *log[2];
    void *blob[2];
    size_t nb[2];
    game_selfplay_stats st;
    for (int run = 0; run < 2; run++) { /* the same seed twice: the same games and samples */
        memset(lg, 0, sizeof *lg);
        log[run] = calloc(1, sizeof *log[run]);
        replay_buffer *rb = replay_create(game_encode_dim(g), game_moves(g), game_value_dim(g), 1000000, NULL);
        assert_non_null(rb);
        if (game_selfplay_run_league(g, &sc, &mc, &ef, &league, rb, collect, log[run], 5, &st, err) != MCTS_OK)
            fail_msg("game_selfplay_run_league: %s", err);
        assert_int_equal(lg->created, 1);
        assert_int_equal(st.games, 8);
        assert_int_equal(replay_size(rb), st.samples);
        assert_int_equal(replay_save(rb, &blob[run], &nb[run]), MCTS_OK);
        replay_free(rb);
    }
    assert_true(same_games(log[0], log[1]));
    assert_int_equal(nb[0], nb[1]);
    assert_memory_equal(blob[0], blob[1], nb[0]);
    /* Every game had the opponent in at least one seat and the search in at least one: the decisions are
     * the samples plus the opponent's moves, and the opponent's moves are in the games, in order. */
    int decisions = 0, j = 0;
    double league_sum = 0;
    for (int i = 0; i < log[0]->count; i++) {
        game_pos p = log[0]->start[i];
        unsigned opp_movers = 0, own_movers = 0;
        for (int t = 0; t < log[0]->n[i]; t++) {
            const int mv = log[0]->moves[i][t];
            if (j < lg->calls && !memcmp(&p, &lg->pos[j], sizeof p) && mv == lg->move[j]) {
                opp_movers |= 1u << p.to_move;
                j++;
            } else {
                own_movers |= 1u << p.to_move;
            }
            assert_int_equal(game_apply(g, &p, mv, NULL), GAME_OK);
            decisions++;
        }
        assert_true(opp_movers != 0);
        assert_true(own_movers != 0);
        assert_int_equal(opp_movers & own_movers, 0); /* a seat is the opponent's for the whole game */
        /* the league's score: the search seats' mean (value + 1) / 2 at the game's end */
        double v[GAME_MAX_PLAYERS], sum = 0;
        int seats = 0;
        game_stopped_values(g, &p, v);
        for (int q = 0; q < game_players(g); q++)
            if (!(opp_movers >> q & 1u))
                sum += (v[q] + 1) / 2, seats++;
        league_sum += sum / seats;
    }
    assert_int_equal(j, lg->calls);
    assert_int_equal(st.league_games[0], 8); /* share 1: every game had the one opponent */
    for (int k = 1; k < SELFPLAY_MAX_LEAGUE; k++)
        assert_int_equal(st.league_games[k], 0);
    assert_true(fabs(st.league_score[0] - league_sum) < 1e-9);
    assert_int_equal((uint64_t)decisions, st.samples + (uint64_t)lg->calls);
    /* share 0: the games and samples of no league at all */
    league.share = 0;
    replay_buffer *a = replay_create(game_encode_dim(g), game_moves(g), game_value_dim(g), 1000000, NULL);
    replay_buffer *b = replay_create(game_encode_dim(g), game_moves(g), game_value_dim(g), 1000000, NULL);
    assert_int_equal(game_selfplay_run_league(g, &sc, &mc, &ef, &league, a, NULL, NULL, 5, NULL, err), MCTS_OK);
    assert_int_equal(game_selfplay_run(g, &sc, &mc, &ef, b, 5, NULL, err), MCTS_OK);
    assert_true(same_buffer(a, b));
    /* an opponent that fails or plays an illegal slot ends the run with a message */
    league.share = 1;
    lg->illegal = 1;
    assert_int_equal(game_selfplay_run_league(g, &sc, &mc, &ef, &league, a, NULL, NULL, 5, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "league opponent 1"));
    league.count = 0;
    assert_int_equal(game_selfplay_run_league(g, &sc, &mc, &ef, &league, a, NULL, NULL, 5, NULL, err), MCTS_EINVAL);
    free(blob[0]), free(blob[1]), free(log[0]), free(log[1]), free(lg);
    replay_free(a), replay_free(b);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_identical_games),
        cmocka_unit_test(test_samples_match_games),
        cmocka_unit_test(test_random_openings),
        cmocka_unit_test(test_opening_sims),
        cmocka_unit_test(test_pi_temperature),
        cmocka_unit_test(test_surprise_weighting),
        cmocka_unit_test(test_batches_span_games),
        cmocka_unit_test(test_threads_deterministic),
        cmocka_unit_test(test_max_moves_and_errors),
        cmocka_unit_test(test_replay_window_and_sampling),
        cmocka_unit_test(test_replay_save_restore),
        cmocka_unit_test(test_replay_drain),
        cmocka_unit_test(test_replay_vector_z),
        cmocka_unit_test(test_replay_v1_blob),
        cmocka_unit_test(test_replay_threads),
        cmocka_unit_test(test_bench_command),
        cmocka_unit_test(test_league_opponents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
