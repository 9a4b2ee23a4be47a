/* test_perfect.c — play measured against perfect play (eval/perfect.h, game_match_config.exact): the t quantile
 * against a numerical integration of Student's density, the statistics against hand-computed numbers, and
 * the openings' exact values of a Kalah(4,3) match against an independent solve (ab_root_values at depth 0:
 * a full-window alpha-beta per root move, no MTD(f), no endgame database). */
// ctest-labels: threads
#include "tests/test_util.h"

#include <math.h>
#include <cjson/cJSON.h>

#include "eval/alphabeta.h"
#include "eval/game_match.h"
#include "eval/game_search.h"
#include "eval/perfect.h"
#include "env/game_twoside.h"

/* Student's t density with v degrees of freedom. */
static double t_density(double x, int v)
{
    return exp(lgamma((v + 1) / 2.0) - lgamma(v / 2.0)) / sqrt(v * M_PI) * pow(1 + x * x / v, -(v + 1) / 2.0);
}

/* P(T <= x) for x >= 0: 1/2 + Simpson's rule on [0, x]. */
static double t_cdf(double x, int v)
{
    int n = 4000;
    double h = x / n, s = t_density(0, v) + t_density(x, v);
    for (int i = 1; i < n; i++)
        s += (i % 2 ? 4 : 2) * t_density(i * h, v);
    return 0.5 + s * h / 3;
}

static void test_t975_matches_a_numerical_quantile(void **state)
{
    (void)state;
    static const int dfs[] = {1, 2, 3, 5, 9, 19, 30, 31, 45, 60, 120, 1000};
    for (size_t i = 0; i < sizeof dfs / sizeof dfs[0]; i++) {
        int v = dfs[i];
        double lo = 1.5, hi = 15; /* bisection on the CDF: the quantile is in there for every v >= 1 */
        for (int it = 0; it < 60; it++) {
            double mid = (lo + hi) / 2;
            *(t_cdf(mid, v) < 0.975 ? &lo : &hi) = mid;
        }
        double t = perfect_t975(v);
        if (fabs(t - lo) > 2e-5 * lo)
            fail_msg("df %d: perfect_t975 %.6f, numerical quantile %.6f", v, t, lo);
    }
    assert_true(isnan(perfect_t975(0)));
}

/* Hand-computed: margins M = +4, -2, +6 from exact values V = +2, +2, +6 (South's view). */
static void test_stats_by_hand(void **state)
{
    (void)state;
    const int m[3] = {4, -2, 6}, v[3] = {2, 2, 6};
    perfect_stats s;
    perfect_stats_compute(m, v, 3, KALAH_SOUTH, &s);
    /* d = +2, -4, 0: mean -2/3; deviations 8/3, -10/3, 2/3: s^2 = (64 + 100 + 4) / 9 / 2 = 28/3;
     * half width t(0.975, 2) sqrt(28/3) / sqrt(3) = 4.302653 * 1.763834 = 7.589167 */
    assert_int_equal(s.games, 3);
    assert_true(fabs(s.mean - (-2.0 / 3)) < 1e-12);
    assert_true(fabs(s.hi - s.mean - 7.589167) < 1e-5 && fabs(s.mean - s.lo - 7.589167) < 1e-5);
    assert_int_equal(s.have_interval, 1);
    assert_int_equal(s.reached, 2);
    assert_true(fabs(s.exact_mean - 10.0 / 3) < 1e-12);
    perfect_stats_compute(m, v, 3, KALAH_NORTH, &s); /* d = -2, +4, 0 */
    assert_true(fabs(s.mean - 2.0 / 3) < 1e-12);
    assert_int_equal(s.reached, 2);
    assert_true(fabs(s.exact_mean + 10.0 / 3) < 1e-12);
    perfect_stats_compute(m, v, 1, KALAH_SOUTH, &s);
    assert_int_equal(s.have_interval, 0);
    assert_true(s.lo == 2 && s.hi == 2 && s.mean == 2);
    perfect_stats_compute(m, v, 0, KALAH_SOUTH, &s);
    assert_int_equal(s.games, 0);
    assert_int_equal(s.reached, 0);
}

/* The exact value of p for South by the independent solve. */
static int independent_value(ab_search *s, const kalah_rules *r, const kalah_pos *p)
{
    int values[KALAH_MAX_PITS], best = -1000;
    assert_int_equal(ab_root_values(s, p, 0, values, NULL), AB_OK);
    for (int k = 0; k < r->pits; k++)
        if (values[k] != AB_NO_VALUE && values[k] > best)
            best = values[k];
    return p->side == KALAH_SOUTH ? best : -best;
}

/* The solvers without endgame database (exact values do not depend on it; its build would cost seconds). */
static void run_exact(const char *a, const char *b, int threads, game_match_result *res)
{
    kalah_rules r = kalah_rules_default();
    r.pits = 4;
    r.seeds = 3;
    char gerr[GAME_ERRLEN];
    game *g = game_create("kalah:pits=4,seeds=3", gerr);
    assert_non_null(g);
    game_match_config cfg = game_match_config_default();
    cfg.games = 8;
    cfg.opening_plies = 2;
    cfg.threads = threads;
    cfg.seed = 7;
    cfg.exact = 1;
    cfg.exact_solver = "solver:endgame=0";
    char err[MATCH_ERRLEN];
    const char *specs[2] = {a, b};
    if (game_match_run(specs, 2, g, &cfg, res, err) != MATCH_OK)
        fail_msg("match %s vs %s: %s", a, b, err);
    assert_int_equal(res->have_exact, 1);
    static int want[4], have_want; /* the same openings in every call: solved once */
    if (!have_want) {
        char kerr[KALAH_ERRLEN];
        ab_search *s = ab_create(&r, 16, kerr);
        assert_non_null(s);
        for (int pair = 0; pair < 4; pair++) {
            game_pos gp;
            assert_int_equal(game_match_opening(g, 2, cfg.seed, pair, &gp, NULL), 2);
            kalah_pos p; /* the game_pos of "kalah" holds the kalah_pos (env/game_twoside.h) */
            gt_to_kalah(&gp, &p);
            want[pair] = independent_value(s, &r, &p);
        }
        ab_free(s);
        have_want = 1;
    }
    for (int pair = 0; pair < 4; pair++) {
        assert_int_equal(res->exact[2 * pair], want[pair]);
        assert_int_equal(res->exact[2 * pair + 1], want[pair]);
    }
    game_free(g);
}

/* Against the solver (B), A never gains on the exact value; the solver's own games reach it exactly. */
static void test_match_exact_values_against_an_independent_solve(void **state)
{
    (void)state;
    game_match_result res;
    run_exact("greedy", "solver:endgame=0", 2, &res);
    for (int g = 0; g < 8; g++) {
        assert_int_equal(res.game[g].agent[0], g % 2); /* A South in game 2i */
        int d = g % 2 ? res.exact[g] - res.game[g].margin : res.game[g].margin - res.exact[g]; /* A's view */
        assert_true(d <= 0);
    }
    assert_int_equal(res.perfect[KALAH_SOUTH].games, 4);
    assert_int_equal(res.perfect[KALAH_NORTH].games, 4);
    assert_true(res.perfect[KALAH_SOUTH].mean <= 0 && res.perfect[KALAH_NORTH].mean <= 0);
    game_match_result_free(&res);

    run_exact("solver:seed=3,endgame=0", "solver:seed=4,endgame=0", 1, &res);
    for (int s = 0; s < 2; s++) {
        assert_int_equal(res.perfect[s].reached, 4);
        assert_true(res.perfect[s].mean == 0 && res.perfect[s].lo == 0 && res.perfect[s].hi == 0);
    }
    for (int g = 0; g < 8; g++)
        assert_int_equal(res.game[g].margin, res.exact[g]);
    game_match_result_free(&res);

    /* Neither agent a solver: each worker brings its own; the values are the same. */
    run_exact("random:seed=2", "greedy", 2, &res);
    assert_true(res.perfect[KALAH_SOUTH].games == 4 && res.perfect[KALAH_NORTH].games == 4);
    game_match_result_free(&res);
}

/* Exact values in every game with an exact solver (the game interface's `solve` outside Kalah): each
 * game's exact value is its opening's, solved here independently; a game without one (no margin) is
 * refused before any game, with the reason. */
static void test_exact_values_of_other_games(void **state)
{
    (void)state;
    char gerr[GAME_ERRLEN], err[MATCH_ERRLEN];
    game *g = game_create("congklak:pits=4,seeds=3", gerr);
    assert_non_null(g);
    game_match_config cfg = game_match_config_default();
    cfg.games = 6;
    cfg.threads = 2;
    cfg.exact = 1;
    const char *specs[2] = {"greedy", "random"};
    game_match_result res;
    assert_int_equal(game_match_run(specs, 2, g, &cfg, &res, err), MATCH_OK);
    assert_true(res.have_exact);
    for (int i = 0; i < cfg.games; i++) {
        game_pos p;
        assert_true(game_match_opening(g, cfg.opening_plies, cfg.seed, i / 2, &p, NULL) >= 0);
        gs_solution sol;
        char serr[GAME_ERRLEN];
        assert_int_equal(gs_solve_generic(g, &p, 0, NULL, &sol, serr), GAME_OK);
        assert_int_equal(res.exact[i], p.to_move == 0 ? sol.value : -sol.value);
    }
    game_match_result_free(&res);
    game_free(g);
    g = game_create("basico:players=2", gerr);
    assert_non_null(g);
    assert_int_equal(game_match_run(specs, 2, g, &cfg, &res, err), MATCH_EINVAL);
    assert_non_null(strstr(err, "final margin"));
    game_match_result_free(&res);
    game_free(g);
    char *out;
    assert_int_equal(tu_run(&out, 0, "match greedy random --rules basico:players=2 --games 2 --threads 1 --exact"), 2);
    free(out);
}

static void test_value_needs_a_solver_and_an_unfinished_position(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    r.pits = 4;
    r.seeds = 3;
    char err[AGENT_ERRLEN];
    agent *g = agent_create("ab:depth=2", &r, err), *s = agent_create("solver:endgame=0", &r, err);
    assert_non_null(g);
    assert_non_null(s);
    kalah_pos p;
    kalah_start(&r, &p);
    int v;
    assert_int_equal(perfect_value(g, &p, &v), AGENT_EINVAL);
    assert_int_equal(perfect_value(s, &p, &v), AGENT_OK);
    ab_search *ab = ab_create(&r, 16, err);
    assert_int_equal(v, independent_value(ab, &r, &p));
    ab_free(ab);
    p.over = 1;
    assert_int_equal(perfect_value(s, &p, &v), AGENT_EINVAL);
    agent_free(g);
    agent_free(s);
}

/* The command: a solver turns the report on; --json holds it; --openings 0 names the start's value. */
static void test_match_command_reports_the_exact_values(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 0, "match greedy solver:endgame=0 --rules kalah:pits=4,seeds=3 --games 4 --openings 0 "
                                     "--threads 1 --json"), 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    cJSON *p = cJSON_GetObjectItem(o, "perfect");
    assert_non_null(p);
    kalah_rules r = kalah_rules_default();
    r.pits = 4;
    r.seeds = 3;
    kalah_pos start;
    kalah_start(&r, &start);
    char err[KALAH_ERRLEN];
    ab_search *ab = ab_create(&r, 16, err);
    assert_int_equal(cJSON_GetObjectItem(p, "start_value")->valueint, independent_value(ab, &r, &start));
    ab_free(ab);
    cJSON *south = cJSON_GetObjectItem(p, "south");
    assert_int_equal(cJSON_GetObjectItem(south, "games")->valueint, 2);
    assert_true(cJSON_GetObjectItem(south, "mean")->valuedouble <= 0);
    cJSON_Delete(o);
    free(out);
    assert_int_equal(tu_run(&out, 0, "match greedy random --rules kalah:pits=4,seeds=3 --games 2 --threads 1"), 0);
    assert_null(strstr(out, "perfect play"));
    free(out);
    /* the workers' own solver (default spec, endgame database included): a small board keeps it quick */
    assert_int_equal(tu_run(&out, 0, "match greedy random --rules kalah:pits=3,seeds=3 --games 2 --threads 1 --exact"),
                     0);
    assert_non_null(strstr(out, "against perfect play"));
    assert_non_null(strstr(out, "(one game)"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t975_matches_a_numerical_quantile),
        cmocka_unit_test(test_stats_by_hand),
        cmocka_unit_test(test_match_exact_values_against_an_independent_solve),
        cmocka_unit_test(test_value_needs_a_solver_and_an_unfinished_position),
        cmocka_unit_test(test_exact_values_of_other_games),
        cmocka_unit_test(test_match_command_reports_the_exact_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
