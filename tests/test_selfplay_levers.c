/* test_selfplay_levers.c — the self-play levers written once against the game interface (selfplay/levers.h)
 * on the generic self-play of every game (selfplay/game_selfplay.h), played on Oware (Abapa) and on básico
 * for three players: random openings (k uniform in 0..K sowings, games from varied positions, none of them
 * samples), opening_sims (thresholds that cover every or no position give exactly the games of a plain run
 * at either simulation count), and policy surprise weighting (each decision written floor(w) or floor(w) + 1
 * times, adjacent, from the net's prior before the root noise, the games those of the lever off), and value
 * targets mixed with the search's root Q (q_ratio). */
// ctest-labels: threads
#include "tests/test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "env/game.h"
#include "selfplay/game_selfplay.h"
#include "selfplay/levers.h"
#include "selfplay/mcts_mp.h"
#include "selfplay/replay.h"

#define G tu_game

static mcts_config small_search(int sims)
{
    mcts_config mc = mcts_config_default();
    mc.sims = sims;
    return mc;
}

/* Plays sc on g with one-rollout evaluators into a fresh buffer (returned; the caller frees it). */
static replay_buffer *play(const game *g, const selfplay_config *sc, const mcts_config *mc, uint64_t seed,
                           game_selfplay_stats *st)
{
    char err[MCTS_ERRLEN];
    replay_buffer *rb = replay_create(game_encode_dim(g), game_moves(g), game_value_dim(g), 1000000, err);
    assert_non_null(rb);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    if (game_selfplay_run(g, sc, mc, &ef, rb, seed, st, err) != MCTS_OK)
        fail_msg("%s", err);
    return rb;
}

/* Byte-identical buffers (replay_save: contents and order). */
static int same_buffer(replay_buffer *a, replay_buffer *b)
{
    void *da, *db;
    size_t na, nb;
    assert_int_equal(replay_save(a, &da, &na), MCTS_OK);
    assert_int_equal(replay_save(b, &db, &nb), MCTS_OK);
    int same = na == nb && !memcmp(da, db, na);
    free(da), free(db);
    return same;
}

/* Samples of rb whose input is the encoding of p. */
static int count_encoded(replay_buffer *rb, const game *g, const game_pos *p)
{
    const int dim = game_encode_dim(g);
    float want[64], x[64], pi[GAME_MAX_MOVES], z[GAME_MAX_PLAYERS];
    uint8_t legal[GAME_MAX_MOVES];
    game_encode(g, p, want);
    int n = 0;
    for (size_t i = 0; i < replay_size(rb); i++) {
        assert_int_equal(replay_get(rb, i, x, legal, pi, z, NULL), MCTS_OK);
        n += !memcmp(x, want, (size_t)dim * sizeof *x);
    }
    return n;
}

/* sp_random_opening: k uniform in 0..K sowings from the start (every k turns up, the ply is k), each position
 * unfinished, the same stream repeating the same openings. */
static void test_random_opening(void **state)
{
    (void)state;
    const char *specs[] = {"oware", "basico:players=3,pits=4"};
    for (int s = 0; s < 2; s++) {
        game *g = G(specs[s]);
        mcts_rng a, b;
        mcts_rng_seed(&a, 7);
        mcts_rng_seed(&b, 7);
        int seen[9] = {0};
        for (int i = 0; i < 400; i++) {
            game_pos p, q;
            sp_random_opening(g, 8, &a, &p);
            sp_random_opening(g, 8, &b, &q);
            assert_memory_equal(&p, &q, sizeof p);
            assert_false(p.over);
            assert_true(p.ply <= 8);
            seen[p.ply]++;
        }
        for (int k = 0; k <= 8; k++)
            if (seen[k] < 20) /* 400 / 9 = 44 expected */
                fail_msg("%s: %d openings of %d sowings in 400", specs[s], seen[k], k);
        game_free(g);
    }
}

/* selfplay.opening_plies on Oware: without it every game's first decision is the start position (one sample
 * of it per game); with K = 10 a game starts there only when k = 0 (1 in 11), the others from varied
 * positions; the same seed repeats the run. */
static void test_opening_plies(void **state)
{
    (void)state;
    game *g = G("oware");
    game_pos start;
    game_start(g, &start);
    selfplay_config sc = selfplay_config_default();
    sc.games = 16;
    sc.games_per_thread = 8;
    sc.max_moves = 150;
    mcts_config mc = small_search(8);
    game_selfplay_stats st0, st1, st2;
    replay_buffer *off = play(g, &sc, &mc, 3, &st0);
    sc.opening_plies = 10;
    replay_buffer *on = play(g, &sc, &mc, 3, &st1), *again = play(g, &sc, &mc, 3, &st2);
    assert_int_equal(st0.games, 16);
    assert_int_equal(st1.games, 16);
    assert_int_equal(count_encoded(off, g, &start), 16);
    int from_start = count_encoded(on, g, &start);
    if (from_start > 5)
        fail_msg("%d of 16 games with random openings began at the start", from_start);
    assert_true(same_buffer(on, again));
    assert_false(same_buffer(on, off));
    assert_int_equal(replay_size(on), st1.samples);
    replay_free(off), replay_free(on), replay_free(again);
    game_free(g);
}

/* selfplay.opening_sims on Oware: a decision whose position has at least opening_seeds seeds in the pits
 * (game_seeds_in_pits) gets opening_sims simulations. Every unfinished position has one seed or more in its
 * pits and none 255, so those thresholds give exactly the games of a plain run at opening_sims / at
 * mcts.sims; 33 gives the deeper search to some decisions only. */
static void test_opening_sims(void **state)
{
    (void)state;
    game *g = G("oware");
    selfplay_config sc = selfplay_config_default();
    sc.games = 6;
    sc.games_per_thread = 6;
    sc.max_moves = 120;
    sc.opening_plies = 4;
    struct {
        int sims, opening_sims, opening_seeds;
    } runs[] = {{40, 0, 33}, {12, 40, 1}, {12, 0, 33}, {12, 40, 255}, {12, 40, 33}};
    replay_buffer *rb[5];
    game_selfplay_stats st[5];
    for (int i = 0; i < 5; i++) {
        mcts_config mc = small_search(runs[i].sims);
        sc.opening_sims = runs[i].opening_sims;
        sc.opening_seeds = runs[i].opening_seeds;
        rb[i] = play(g, &sc, &mc, 5, &st[i]);
    }
    for (int i = 0; i < 4; i += 2) { /* run 1 is run 0, run 3 is run 2, bit for bit */
        assert_true(same_buffer(rb[i], rb[i + 1]));
        assert_int_equal(st[i].simulations, st[i + 1].simulations);
    }
    assert_false(same_buffer(rb[4], rb[0]));
    assert_false(same_buffer(rb[4], rb[2]));
    double per[5];
    for (int i = 0; i < 5; i++)
        per[i] = (double)st[i].simulations / (double)st[i].samples;
    if (!(per[4] > per[2] * 1.1 && per[4] < per[0] * 0.9))
        fail_msg("simulations per decision: %g at 12, %g at 40, %g with the threshold 33", per[2], per[0], per[4]);
    for (int i = 0; i < 5; i++)
        replay_free(rb[i]);
    game_free(g);
}

typedef struct {
    float x[64], pi[GAME_MAX_MOVES], z[GAME_MAX_PLAYERS], margin;
    uint8_t legal[GAME_MAX_MOVES];
} sample_rec;

static sample_rec get_sample(replay_buffer *rb, size_t i)
{
    sample_rec s;
    memset(&s, 0, sizeof s);
    assert_int_equal(replay_get(rb, i, s.x, s.legal, s.pi, s.z, &s.margin), MCTS_OK);
    return s;
}

/* selfplay.surprise_weight on the games of g, one game per run (so a run's buffer is one game): the games
 * are those of s = 0, and each decision is written floor(w) or floor(w) + 1 times, adjacent, with
 * w = (1 − s) + s · n · KL / ΣKL over the game's n full decisions and KL = Σ π ln(π · L) — the divergence
 * from the rollout evaluator's uniform prior over the L legal moves, computed here from the written targets.
 * The root noise (on here) must not enter the prior. A value-only decision (playout caps: π = 0) is written
 * exactly once and left out of the weights. */
static void check_surprise(const char *spec, double full_sims_prob)
{
    game *g = G(spec);
    const int m = game_moves(g);
    selfplay_config sc = selfplay_config_default();
    sc.games = 1;
    sc.games_per_thread = 1;
    sc.max_moves = 100;
    sc.pi_visits = 1;
    sc.full_sims_prob = full_sims_prob;
    sc.fast_sims = full_sims_prob < 1 ? 4 : 0;
    mcts_config mc = small_search(24);
    assert_true(mc.dirichlet_eps > 0);
    int repeated = 0, dropped = 0, value_only = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        replay_buffer *rb[2];
        for (int i = 0; i < 2; i++) {
            sc.surprise_weight = i ? 0.5 : 0.0;
            game_selfplay_stats st;
            rb[i] = play(g, &sc, &mc, seed, &st);
            assert_int_equal(st.samples, replay_size(rb[0])); /* stats count decisions, not copies */
        }
        const size_t n = replay_size(rb[0]), n1 = replay_size(rb[1]);
        double kl[200], sum = 0;
        int full = 0;
        assert_true(n <= 200);
        for (size_t t = 0; t < n; t++) {
            sample_rec a = get_sample(rb[0], t);
            int legal = 0;
            double mass = 0;
            for (int k = 0; k < m; k++)
                legal += a.legal[k], mass += a.pi[k];
            kl[t] = 0;
            for (int k = 0; k < m; k++)
                if (a.pi[k] > 0)
                    kl[t] += a.pi[k] * log(a.pi[k] * legal);
            if (mass == 0) {
                kl[t] = -1; /* value-only */
                continue;
            }
            kl[t] = kl[t] > 0 ? kl[t] : 0;
            sum += kl[t];
            full++;
        }
        size_t j = 0;
        for (size_t t = 0; t < n; t++) {
            double w = kl[t] < 0 || !(sum > 0) ? 1.0 : 0.5 + 0.5 * full * kl[t] / sum;
            sample_rec a = get_sample(rb[0], t);
            int c = 0;
            for (; j < n1; j++, c++) {
                sample_rec b = get_sample(rb[1], j);
                if (memcmp(&a, &b, sizeof a))
                    break;
            }
            if (kl[t] < 0 ? c != 1 : c < (int)floor(w - 1e-4) || c > (int)floor(w + 1e-4) + 1)
                fail_msg("%s, full_sims_prob %g, seed %d, decision %d: %d copies for the weight %g (KL %g of %g)",
                         spec, full_sims_prob, (int)seed, (int)t, c, w, kl[t], sum);
            value_only += kl[t] < 0;
            repeated += c > 1;
            dropped += c == 0;
        }
        assert_int_equal(j, n1); /* every copy accounted for, in the order of the decisions */
        replay_free(rb[0]), replay_free(rb[1]);
    }
    assert_true(repeated > 0 && dropped > 0);
    assert_true(full_sims_prob < 1 ? value_only > 0 : value_only == 0);
    game_free(g);
}

static void test_surprise_weighting(void **state)
{
    (void)state;
    check_surprise("oware", 1.0);
    check_surprise("oware", 0.5);
    check_surprise("basico:players=3,pits=4", 1.0);
}

/* The priors are read through the evaluator's prior masking (sp_legal_prior): renormalised over the legal
 * slots, uniform when they sum to 0 or are not finite. */
static void test_legal_prior(void **state)
{
    (void)state;
    float raw[4] = {3, 1, 5, 0}, out[4];
    sp_legal_prior(raw, 0x3u, 4, out); /* slots 0, 1 */
    assert_true(fabsf(out[0] - 0.75f) < 1e-6f && fabsf(out[1] - 0.25f) < 1e-6f && out[2] == 0 && out[3] == 0);
    float zero[4] = {0, 0, 7, 0};
    sp_legal_prior(zero, 0xbu, 4, out); /* slots 0, 1, 3 sum to 0: uniform over them */
    assert_true(fabsf(out[0] - 1.0f / 3) < 1e-6f && out[2] == 0 && fabsf(out[3] - 1.0f / 3) < 1e-6f);
    float bad[4] = {NAN, 1, 1, 1};
    sp_legal_prior(bad, 0xfu, 4, bad); /* in place */
    for (int k = 0; k < 4; k++)
        assert_true(fabsf(bad[k] - 0.25f) < 1e-6f);
    /* the surprise of a target equal to the prior is 0, of a one-hot target ln(1 / P) */
    float p[3] = {0.5f, 0.25f, 0.25f}, hot[3] = {0, 1, 0};
    assert_true(sp_policy_surprise(p, p, 3) == 0.0f);
    assert_true(fabsf(sp_policy_surprise(p, hot, 3) - logf(4.0f)) < 1e-5f);
}

/* Rescoring needs an endgame database: Oware declares none, and none is attached (game_set_endgame). */
static void test_rescore_refused(void **state)
{
    (void)state;
    game *g = G("oware");
    selfplay_config sc = selfplay_config_default();
    sc.games = 1;
    sc.rescore = 1;
    mcts_config mc = small_search(4);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    char err[MCTS_ERRLEN];
    assert_int_equal(game_selfplay_run(g, &sc, &mc, &ef, NULL, 1, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.rescore needs two players and an endgame database"));
    game_free(g);
}

/* selfplay.q_ratio on g: the games are those of r = 0 (inputs and policy targets bit for bit), each value
 * target of r = 0.5 is the mean of r = 0's (the outcome) and r = 1's (the root Q), Q differs from the outcome
 * at most decisions, stays within the values' range [−1, 1], and is the mover's own view: across the
 * decisions it correlates positively with the outcome (a Q read for another player would not). */
static void check_q_ratio(const char *spec)
{
    const double lo = -1, hi = 1; /* game_values' range */
    game *g = G(spec);
    const int m = game_moves(g), nv = game_value_dim(g);
    selfplay_config sc = selfplay_config_default();
    sc.games = 8;
    sc.games_per_thread = 8;
    sc.max_moves = 200;
    sc.opening_plies = 4;
    mcts_config mc = small_search(48);
    replay_buffer *rb[3];
    const double ratio[3] = {0, 1, 0.5};
    for (int i = 0; i < 3; i++) {
        sc.q_ratio = ratio[i];
        rb[i] = play(g, &sc, &mc, 11, NULL);
    }
    const size_t n = replay_size(rb[0]);
    assert_int_equal(replay_size(rb[1]), n);
    assert_int_equal(replay_size(rb[2]), n);
    assert_true(n > 100);
    size_t differ = 0;
    double sz = 0, sq = 0, szz = 0, sqq = 0, szq = 0;
    for (size_t t = 0; t < n; t++) {
        sample_rec z = get_sample(rb[0], t), q = get_sample(rb[1], t), half = get_sample(rb[2], t);
        assert_memory_equal(z.x, q.x, sizeof z.x);
        assert_memory_equal(z.pi, q.pi, (size_t)m * sizeof *z.pi);
        assert_memory_equal(z.x, half.x, sizeof z.x);
        for (int k = 0; k < nv; k++) {
            if (!(q.z[k] >= lo - 1e-6 && q.z[k] <= hi + 1e-6))
                fail_msg("%s sample %zu: Q[%d] = %g outside [%g, %g]", spec, t, k, q.z[k], lo, hi);
            if (fabsf(half.z[k] - 0.5f * (z.z[k] + q.z[k])) > 1e-5f)
                fail_msg("%s sample %zu: r = 0.5 gives %g for z %g and Q %g", spec, t, half.z[k], z.z[k], q.z[k]);
            differ += fabsf(q.z[k] - z.z[k]) > 1e-4f;
        }
        sz += z.z[0], sq += q.z[0], szz += z.z[0] * z.z[0], sqq += q.z[0] * q.z[0], szq += z.z[0] * q.z[0];
    }
    if (differ < n * (size_t)nv / 2)
        fail_msg("%s: Q differs from the outcome in only %zu of %zu targets", spec, differ, n * (size_t)nv);
    const double N = (double)n, cov = szq / N - sz * sq / (N * N);
    const double corr = cov / sqrt((szz / N - sz * sz / (N * N)) * (sqq / N - sq * sq / (N * N)));
    if (!(corr > 0.3))
        fail_msg("%s: the mover's Q and outcome correlate at %g over %zu decisions", spec, corr, n);
    for (int i = 0; i < 3; i++)
        replay_free(rb[i]);
    game_free(g);
}

static void test_q_ratio(void **state)
{
    (void)state;
    check_q_ratio("kalah:pits=4,seeds=3");
    check_q_ratio("basico:players=3,pits=4,seeds=3");
}

/* q_ratio reads the plain value in Q: with the margin utility mixed in, it is refused. */
static void test_q_ratio_refused(void **state)
{
    (void)state;
    game *g = G("kalah:pits=4,seeds=3");
    selfplay_config sc = selfplay_config_default();
    sc.games = 1;
    sc.q_ratio = 0.5;
    mcts_config mc = small_search(4);
    mc.margin_utility = 0.3;
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    char err[MCTS_ERRLEN];
    assert_int_equal(game_selfplay_run(g, &sc, &mc, &ef, NULL, 1, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.q_ratio needs mcts.margin_utility = 0"));
    sc.q_ratio = 1.5;
    mc.margin_utility = 0;
    assert_int_equal(game_selfplay_run(g, &sc, &mc, &ef, NULL, 1, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.q_ratio must be in [0, 1]"));
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_opening),   cmocka_unit_test(test_opening_plies),
        cmocka_unit_test(test_opening_sims),     cmocka_unit_test(test_surprise_weighting),
        cmocka_unit_test(test_legal_prior),      cmocka_unit_test(test_rescore_refused),
        cmocka_unit_test(test_q_ratio),          cmocka_unit_test(test_q_ratio_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
