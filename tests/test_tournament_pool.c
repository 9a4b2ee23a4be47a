/* test_tournament_pool.c — agent pools (eval/game_match.h, "Pools"): a tournament's sequence of matches
 * gives the same games with and without a pool (two and three players, the exact values' own solver), the
 * pool holds one instance per spec, worker and seat copy, and a pooled solver's table serves the openings
 * the matches share (a node count, not a timing). */
// ctest-labels: threads
#include "tests/test_util.h"

#include <cjson/cJSON.h>
#include "eval/game_match.h"

/* One game_match_run per entry of `plan` (agent indices into specs, k per match), in order, with cfg;
 * res[i] gets match i. */
static void run_plan(const char *const *specs, const int (*plan)[GAME_MAX_PLAYERS], int matches, int k,
                     const game *g, const game_match_config *cfg, game_match_result *res)
{
    for (int i = 0; i < matches; i++) {
        const char *s[GAME_MAX_PLAYERS];
        for (int j = 0; j < k; j++)
            s[j] = specs[plan[i][j]];
        char err[MATCH_ERRLEN];
        if (game_match_run(s, k, g, cfg, &res[i], err) != MATCH_OK)
            fail_msg("match %d (%s vs %s ...): %s", i + 1, s[0], s[1], err);
    }
}

/* Every game of a and b the same: records, seats, places, values, margins, plies; statistics. */
static void assert_same_games(const game_match_result *a, const game_match_result *b)
{
    assert_int_equal(a->games, b->games);
    assert_memory_equal(a->game, b->game, (size_t)a->games * sizeof *a->game);
    assert_int_equal(a->n_records, b->n_records);
    for (int i = 0; i < a->n_records; i++)
        assert_string_equal(a->records[i], b->records[i]);
    for (int i = 0; i < a->n_agents; i++) {
        assert_true(a->agent[i].mean_place == b->agent[i].mean_place);
        assert_int_equal(a->agent[i].firsts, b->agent[i].firsts);
    }
    assert_int_equal(a->have_exact, b->have_exact);
    if (a->have_exact) {
        assert_memory_equal(a->exact, b->exact, (size_t)a->games * sizeof *a->exact);
        assert_memory_equal(a->perfect, b->perfect, sizeof a->perfect);
    }
    if (a->duel) {
        assert_int_equal(a->two.all.wins, b->two.all.wins);
        assert_int_equal(a->two.all.draws, b->two.all.draws);
        assert_int_equal(a->two.all.losses, b->two.all.losses);
    }
}

/* Matches a[i] and b[i] the same, i < n. */
static void assert_all_same(const game_match_result *a, const game_match_result *b, int n)
{
    for (int i = 0; i < n; i++)
        assert_same_games(&a[i], &b[i]);
}

static void free_all(game_match_result *res, int n)
{
    for (int i = 0; i < n; i++)
        game_match_result_free(&res[i]);
}

/* A Kalah(4,3) round robin of five kinds (the solver without and with its endgame database), 2 threads:
 * the pool changes no game, holds 5 specs x 2 workers afterwards, and a second round through the same pool
 * (every instance reused, the solvers' tables full) still changes none. */
static void test_kalah_round_robin_same_with_pool(void **state)
{
    (void)state;
    game *g = tu_game("kalah:pits=4,seeds=3");
    const char *specs[] = {"random:seed=3", "greedy", "ab:depth=3,tt_mb=1", "mcts:sims=16,seed=2",
                           "solver:endgame=0,tt_mb=4", "solver:endgame=8,tt_mb=2,seed=5"};
    enum { N = 6, PAIRS = N * (N - 1) / 2 };
    int plan[PAIRS][GAME_MAX_PLAYERS], m = 0;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            plan[m][0] = i;
            plan[m++][1] = j;
        }
    game_match_config cfg = game_match_config_default();
    cfg.games = 6;
    cfg.threads = 2;
    cfg.seed = 11;
    cfg.keep_records = 1;
    game_match_result plain[PAIRS], pooled[PAIRS], again[PAIRS];
    run_plan(specs, (const int (*)[GAME_MAX_PLAYERS])plan, PAIRS, 2, g, &cfg, plain);
    cfg.pool = game_match_pool_create(g);
    assert_non_null(cfg.pool);
    run_plan(specs, (const int (*)[GAME_MAX_PLAYERS])plan, PAIRS, 2, g, &cfg, pooled);
    assert_int_equal(game_match_pool_size(cfg.pool), N * 2);
    run_plan(specs, (const int (*)[GAME_MAX_PLAYERS])plan, PAIRS, 2, g, &cfg, again);
    assert_int_equal(game_match_pool_size(cfg.pool), N * 2);
    assert_all_same(plain, pooled, PAIRS);
    assert_all_same(plain, again, PAIRS);
    free_all(plain, PAIRS);
    free_all(pooled, PAIRS);
    free_all(again, PAIRS);
    game_match_pool_free(cfg.pool);
    game_free(g);
}

/* One worker, so every group's games meet the same solver instance: the second match of the same pair
 * from the same openings costs the pooled solver a small part of the first one's nodes, where fresh
 * instances pay the first one's count again exactly; against another opponent (a tournament's next pair)
 * the pooled solver still needs far fewer nodes than a fresh one. The games stay the same. Kalah(4,3), no
 * endgame database, so that the count is the solve's. */
static void test_pooled_solver_reuses_its_table(void **state)
{
    (void)state;
    game *g = tu_game("kalah:pits=4,seeds=3");
    const char *specs[] = {"greedy", "solver:endgame=0,tt_mb=16", "ab:depth=2,tt_mb=1"};
    const int plan[3][GAME_MAX_PLAYERS] = {{0, 1}, {0, 1}, {2, 1}};
    game_match_config cfg = game_match_config_default();
    cfg.games = 8;
    cfg.threads = 1;
    cfg.seed = 3;
    game_match_result plain[3], pooled[3];
    run_plan(specs, plan, 3, 2, g, &cfg, plain);
    cfg.pool = game_match_pool_create(g);
    run_plan(specs, plan, 3, 2, g, &cfg, pooled);
    uint64_t fresh[3], kept[3];
    for (int i = 0; i < 3; i++) {
        fresh[i] = plain[i].agent[1].nodes;
        kept[i] = pooled[i].agent[1].nodes;
        print_message("match %d: solver nodes fresh %llu, pooled %llu\n", i + 1, (unsigned long long)fresh[i],
                      (unsigned long long)kept[i]);
        /* greedy searches nothing; ab's count does not depend on the pool (its table is cleared per game) */
        assert_int_equal(plain[i].agent[0].nodes, pooled[i].agent[0].nodes);
    }
    assert_true(fresh[0] > 100000);        /* the solves are real work on this board */
    assert_int_equal(kept[0], fresh[0]);   /* the first match: an empty table either way */
    assert_int_equal(fresh[1], fresh[0]);  /* fresh instances solve everything again */
    assert_true(kept[1] * 100 < fresh[1]); /* the same positions again: their values are in the table */
    assert_true(kept[2] * 3 < fresh[2] * 2);
    assert_all_same(plain, pooled, 3);
    free_all(plain, 3);
    free_all(pooled, 3);
    game_match_pool_free(cfg.pool);
    game_free(g);
}

/* Básico for 3 players: every combination of 4 agents (a 3-player tournament) and then one agent against a
 * field of two copies of another, 2 threads: the same games with a pool; the field's B takes copies 0 and 1
 * of its spec, so the pool then holds 4 specs x 2 workers + one more greedy per worker. */
static void test_basico_combinations_same_with_pool(void **state)
{
    (void)state;
    game *g = tu_game("basico:players=3,pits=4,seeds=3");
    const char *specs[] = {"random:seed=1", "greedy", "maxn:depth=2", "mcts:sims=8,seed=4"};
    const int plan[5][GAME_MAX_PLAYERS] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    game_match_config cfg = game_match_config_default();
    cfg.games = 12;
    cfg.threads = 2;
    cfg.keep_records = 1;
    game_match_result plain[5], pooled[5];
    run_plan(specs, plan, 4, 3, g, &cfg, plain);
    const int field[1][GAME_MAX_PLAYERS] = {{3, 1}};
    run_plan(specs, field, 1, 2, g, &cfg, &plain[4]);
    cfg.pool = game_match_pool_create(g);
    run_plan(specs, plan, 4, 3, g, &cfg, pooled);
    assert_int_equal(game_match_pool_size(cfg.pool), 4 * 2);
    run_plan(specs, field, 1, 2, g, &cfg, &pooled[4]);
    assert_int_equal(game_match_pool_size(cfg.pool), 4 * 2 + 2);
    assert_all_same(plain, pooled, 5);
    free_all(plain, 5);
    free_all(pooled, 5);
    game_match_pool_free(cfg.pool);
    game_free(g);
}

/* Exact values of the openings: the workers' own solver (no seat is a solver) comes from the pool too, and
 * the exact values and games are those of fresh solvers. */
static void test_exact_values_with_pool(void **state)
{
    (void)state;
    game *g = tu_game("kalah:pits=4,seeds=3");
    const char *specs[] = {"greedy", "random:seed=2"};
    const int plan[2][GAME_MAX_PLAYERS] = {{0, 1}, {1, 0}};
    game_match_config cfg = game_match_config_default();
    cfg.games = 10;
    cfg.threads = 2;
    cfg.exact = 1;
    cfg.exact_solver = "solver:endgame=0,tt_mb=4";
    game_match_result plain[2], pooled[2];
    run_plan(specs, plan, 2, 2, g, &cfg, plain);
    cfg.pool = game_match_pool_create(g);
    run_plan(specs, plan, 2, 2, g, &cfg, pooled);
    assert_int_equal(game_match_pool_size(cfg.pool), 3 * 2); /* greedy, random and the solver per worker */
    assert_all_same(plain, pooled, 2);
    free_all(plain, 2);
    free_all(pooled, 2);
    game_match_pool_free(cfg.pool);
    game_free(g);
}

/* A pool made for one game is refused by a match of another, which then leaves the pool as it was. */
static void test_pool_of_another_game(void **state)
{
    (void)state;
    game *a = tu_game("kalah:pits=4,seeds=3"), *b = tu_game("kalah:pits=4,seeds=3");
    game_match_config cfg = game_match_config_default();
    cfg.games = 2;
    cfg.pool = game_match_pool_create(a);
    const char *specs[] = {"greedy", "random"};
    game_match_result res;
    char err[MATCH_ERRLEN];
    assert_int_equal(game_match_run(specs, 2, b, &cfg, &res, err), MATCH_EINVAL);
    assert_non_null(strstr(err, "pool"));
    game_match_result_free(&res);
    assert_int_equal(game_match_pool_size(cfg.pool), 0);
    /* A bad spec keeps only the instances made before it (greedy, worker 0). */
    const char *bad[] = {"greedy", "ab:dept=3"};
    assert_int_equal(game_match_run(bad, 2, a, &cfg, &res, err), MATCH_EAGENT);
    game_match_result_free(&res);
    assert_int_equal(game_match_pool_size(cfg.pool), 1);
    game_match_pool_free(cfg.pool);
    game_match_pool_free(NULL);
    game_free(a);
    game_free(b);
}

/* `tournament --json` through its pool: every pair's nodes are [A's, B's] (greedy searches none, the
 * solver some), and the --help says what the pool holds for the whole tournament. */
static void test_tournament_command_nodes(void **state)
{
    (void)state;
    char *out;
    int rc = tu_run(&out, 0, "tournament --rules kalah:pits=4,seeds=3 --agent g=greedy --agent ab=ab:depth=2,tt_mb=1 "
                    "--agent s=solver:endgame=0,tt_mb=4 --games 4 --threads 2 --json");
    if (rc)
        fail_msg("exit %d: %s", rc, out);
    cJSON *o = cJSON_Parse(out);
    free(out);
    assert_non_null(o);
    cJSON *pair;
    int n = 0;
    cJSON_ArrayForEach(pair, cJSON_GetObjectItem(o, "pairs")) {
        cJSON *nodes = cJSON_GetObjectItem(pair, "nodes");
        assert_int_equal(cJSON_GetArraySize(nodes), 2);
        for (int i = 0; i < 2; i++) {
            const char *who = cJSON_GetObjectItem(pair, i ? "b" : "a")->valuestring;
            double v = cJSON_GetArrayItem(nodes, i)->valuedouble;
            assert_true(!strcmp(who, "g") ? v == 0 : v > 0);
        }
        n++;
    }
    assert_int_equal(n, 3);
    cJSON_Delete(o);
    assert_int_equal(tu_run(&out, 0, "tournament --help"), 0);
    assert_non_null(strstr(out, "for the whole"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kalah_round_robin_same_with_pool),
        cmocka_unit_test(test_pooled_solver_reuses_its_table),
        cmocka_unit_test(test_basico_combinations_same_with_pool),
        cmocka_unit_test(test_exact_values_with_pool),
        cmocka_unit_test(test_pool_of_another_game),
        cmocka_unit_test(test_tournament_command_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
