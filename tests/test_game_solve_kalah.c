/* test_game_solve_kalah.c — a kind's own exact solver behind gs_solver (eval/game_search.h): Kalah's MTD(f)
 * alpha-beta runs where gs_solver_create is asked for a Kalah solver, and gives what the game interface's
 * generic solver gives (values, every best move, every move's value) on random positions of several rule
 * sets, on more threads and with an endgame database; the generic solver refuses threads and databases
 * by name; node limits and the abort flag stop both with their codes. */
#include "tests/test_util.h"

#include "eval/game_search.h"

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

/* A random position of g after up to `plies` random moves (may be over). */
static game_pos random_pos(const game *g, uint64_t *x, int plies)
{
    game_pos p;
    game_start(g, &p);
    int n = (int)(lcg(x) % (uint64_t)(plies + 1));
    for (int j = 0; j < n && !p.over; j++) {
        unsigned legal = game_legal(g, &p);
        int pick = (int)(lcg(x) % (uint64_t)__builtin_popcount(legal));
        while (pick--)
            legal &= legal - 1;
        assert_int_equal(game_apply(g, &p, __builtin_ctz(legal), NULL), GAME_OK);
    }
    return p;
}

static void test_same_as_generic(void **state)
{
    (void)state;
    static const char *specs[] = {"kalah:pits=4,seeds=3", "kalah:pits=3,seeds=4,capture=always",
                                  "kalah:pits=5,seeds=2,end=mover-empty", "kalah:pits=4,seeds=2,capture=none",
                                  "kalah:pits=4,seeds=3,max_sows=20"};
    uint64_t x = 7;
    char err[GAME_ERRLEN];
    int compared = 0;
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        game *g = tu_game(specs[si]);
        gs_solver *fast = gs_solver_create(g, 8, err), *gen = gs_solver_create_generic(g, 8, err);
        assert_non_null(fast);
        assert_non_null(gen);
        assert_string_not_equal(gs_solver_name(fast), "generic");
        assert_string_equal(gs_solver_name(gen), "generic");
        for (int k = 0; k < 12; k++) {
            game_pos p = random_pos(g, &x, 12);
            gs_solution a, b;
            int ra = gs_solver_run(fast, &p, 0, &a, err), rb = gs_solver_run(gen, &p, 0, &b, err);
            assert_int_equal(ra, rb);
            assert_int_equal(a.value, b.value);
            if (ra == GAME_EOVER)
                continue;
            assert_int_equal(ra, GAME_OK);
            char buf[GAME_POS_STR];
            if (a.best_mask != b.best_mask || a.move != b.move)
                fail_msg("%s %s: Kalah's solver %x/%d, generic %x/%d", specs[si], game_pos_format(g, &p, buf, sizeof buf),
                         a.best_mask, a.move, b.best_mask, b.move);
            int va[GAME_MAX_MOVES], vb[GAME_MAX_MOVES];
            assert_int_equal(gs_solver_moves(fast, &p, va, NULL, err), GAME_OK);
            assert_int_equal(gs_solver_moves(gen, &p, vb, NULL, err), GAME_OK);
            int best = GS_NO_VALUE;
            for (int m = 0; m < GAME_MAX_MOVES; m++) {
                assert_int_equal(va[m], vb[m]);
                assert_int_equal(va[m] == GS_NO_VALUE, !(game_legal(g, &p) >> m & 1));
                best = va[m] > best ? va[m] : best;
            }
            assert_int_equal(best, a.value);
            compared++;
        }
        gs_solver_free(fast);
        gs_solver_free(gen);
        game_free(g);
    }
    assert_true(compared >= 40);
}

static void test_threads_and_endgame(void **state)
{
    (void)state;
    char err[GAME_ERRLEN];
    game *g = tu_game("kalah:pits=5,seeds=3");
    gs_solver *one = gs_solver_create_generic(g, 16, err), *many = gs_solver_create(g, 16, err);
    assert_non_null(one);
    assert_non_null(many);
    assert_int_equal(gs_solver_set_threads(many, 3, err), GAME_OK);
    assert_int_equal(gs_solver_endgame_seeds(many), 0);
    double built = -1;
    assert_int_equal(gs_solver_set_endgame(many, 8, &built, err), GAME_OK);
    assert_true(built >= 0);
    assert_true(gs_solver_endgame_seeds(many) >= 8);
    uint64_t x = 99;
    for (int k = 0; k < 6; k++) {
        game_pos p = random_pos(g, &x, 8);
        gs_solution a, b;
        int ra = gs_solver_run(one, &p, 0, &a, err);
        assert_int_equal(gs_solver_run(many, &p, 0, &b, err), ra);
        assert_int_equal(a.value, b.value);
        assert_int_equal(a.best_mask, b.best_mask);
    }
    /* the generic solver: one thread, no database, each refusal naming the game */
    assert_int_equal(gs_solver_set_threads(one, 1, err), GAME_OK);
    assert_int_equal(gs_solver_set_threads(one, 2, err), GAME_EINVAL);
    assert_non_null(strstr(err, "one thread"));
    assert_int_equal(gs_solver_set_endgame(one, 8, NULL, err), GAME_EINVAL);
    assert_non_null(strstr(err, "no endgame database for kalah"));
    assert_int_equal(gs_solver_set_threads(many, 0, err), GAME_EINVAL);
    assert_int_equal(gs_solver_set_endgame(many, 0, NULL, err), GAME_EINVAL);
    gs_solver_free(one);
    gs_solver_free(many);
    game_free(g);
    /* with a sow limit there is no database (the value depends on the sowings played) */
    g = tu_game("kalah:pits=4,seeds=3,max_sows=30");
    gs_solver *s = gs_solver_create(g, 4, err);
    assert_non_null(s);
    assert_int_equal(gs_solver_set_endgame(s, 6, NULL, err), GAME_EINVAL);
    assert_non_null(strstr(err, "max_sows"));
    gs_solver_free(s);
    game_free(g);
    g = tu_game("congklak:pits=4,seeds=3");
    s = gs_solver_create(g, 4, err);
    assert_non_null(s);
    assert_string_equal(gs_solver_name(s), "generic");
    assert_int_equal(gs_solver_set_endgame(s, 6, NULL, err), GAME_EINVAL);
    gs_solver_free(s);
    game_free(g);
}

static void test_limits(void **state)
{
    (void)state;
    char err[GAME_ERRLEN];
    game *g = tu_game("kalah:pits=4,seeds=4");
    game_pos p;
    game_start(g, &p);
    gs_solver *s = gs_solver_create(g, 4, err);
    assert_non_null(s);
    gs_solution sol;
    assert_int_equal(gs_solver_run(s, &p, 1000, &sol, err), GS_ESTOPPED);
    assert_non_null(strstr(err, "node limit"));
    int flag = 1;
    gs_solver_set_abort(s, &flag);
    assert_int_equal(gs_solver_run(s, &p, 0, &sol, err), GS_EABORTED);
    assert_int_equal(gs_solve(g, &p, 0, &flag, &sol, err), GS_EABORTED);
    flag = 0;
    if (gs_solve(g, &p, 0, &flag, &sol, err) != GAME_OK)
        fail_msg("%s", err);
    gs_solution gen;
    assert_int_equal(gs_solve_generic(g, &p, 0, NULL, &gen, err), GAME_OK);
    assert_int_equal(sol.value, gen.value);
    assert_int_equal(sol.best_mask, gen.best_mask);
    gs_solver_free(s);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_generic),
        cmocka_unit_test(test_threads_and_endgame),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
