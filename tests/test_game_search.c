/* test_game_search.c — the generic searches of eval/game_search.h on Kalah: the exact solve against the
 * team's solved values (tests/vectors/solved.txt, and families-solved.txt for whichever of its games are
 * registered), alpha-beta (paranoid with two players) against a plain minimax written on env/kalah.h, and
 * max^n equal to minimax for two players. */
#include "test_util.h"

#include "env/kalah.h"
#include "eval/game_search.h"

#define G tu_game

/* Boards small enough for the suite's time (the larger ones are eval/alphabeta.c's, with its own tests). */
static int small(const game *g) { return game_seeds(g) <= 16 && game_moves(g) <= 4; }

static int solve_file(const char *name)
{
    FILE *f = tu_open_vector(name);
    char line[512], err[GAME_ERRLEN];
    int checked = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[3];
        assert_int_equal(tu_split(line, fl, 3), 3);
        if (!game_kind_find(fl[0]))
            continue;
        game *g = G(fl[0]);
        if (small(g)) {
            game_pos p;
            gs_solution s;
            game_start(g, &p);
            if (gs_solve_generic(g, &p, 0, NULL, &s, err) != GAME_OK)
                fail_msg("%s: %s", fl[0], err);
            if (s.value != atoi(fl[1]))
                fail_msg("%s: solved %d, the vectors say %s", fl[0], s.value, fl[1]);
            /* The best move keeps the value: the position after it solves to the same margin. */
            game_pos q = p;
            gs_solution t;
            assert_int_equal(game_apply(g, &q, s.move, NULL), GAME_OK);
            assert_int_equal(gs_solve_generic(g, &q, 0, NULL, &t, err), GAME_OK);
            int after = q.over ? (p.to_move ? -game_margin(g, &q) : game_margin(g, &q))
                        : q.to_move == p.to_move ? t.value : -t.value;
            assert_int_equal(after, s.value);
            checked++;
        }
        game_free(g);
    }
    fclose(f);
    return checked;
}

static void test_solve_vectors(void **state)
{
    (void)state;
    assert_true(solve_file("solved.txt") >= 10);
    solve_file("families-solved.txt");
}

static void test_solve_budget_and_errors(void **state)
{
    (void)state;
    game *g = G("kalah");
    game_pos p;
    game_start(g, &p);
    gs_solution s;
    char err[GAME_ERRLEN] = "";
    assert_int_equal(gs_solve(g, &p, 1000, NULL, &s, err), GAME_EINVAL);
    assert_non_null(strstr(err, "too large"));
    game_free(g);
}

/* Minimax on the store difference (the kind's estimate before scaling) written on kalah.h. */
static double minimax(const kalah_rules *r, const kalah_pos *p, int root, int depth)
{
    if (p->over || depth == 0) {
        int m = kalah_margin(r, p);
        double v = p->over ? (m > 0) - (m < 0) : m / (double)(2 * r->pits * r->seeds + 1);
        return root ? -v : v;
    }
    double best = p->side == root ? -3 : 3;
    for (unsigned legal = kalah_legal(r, p); legal; legal &= legal - 1) {
        kalah_pos c = *p;
        kalah_sow(r, &c, __builtin_ctz(legal), NULL);
        double x = minimax(r, &c, root, depth - 1);
        best = p->side == root ? (x > best ? x : best) : (x < best ? x : best);
    }
    return best;
}

static void test_alphabeta_agrees_with_minimax(void **state)
{
    (void)state;
    game *g = G("kalah:pits=4,seeds=3");
    kalah_rules r;
    assert_int_equal(kalah_rules_parse("kalah:pits=4,seeds=3", &r, NULL), KALAH_OK);
    uint64_t rng = 7;
    for (int n = 0; n < 30; n++) {
        kalah_pos k;
        kalah_start(&r, &k);
        for (int i = 0; i < n % 12 && !k.over; i++) {
            unsigned legal = kalah_legal(&r, &k);
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            int pick = (int)(rng % (uint64_t)__builtin_popcount(legal));
            while (pick--)
                legal &= legal - 1;
            kalah_sow(&r, &k, __builtin_ctz(legal), NULL);
        }
        if (k.over)
            continue;
        char s[64], err[GAME_ERRLEN];
        game_pos p;
        assert_int_equal(game_pos_parse(g, kalah_pos_format(&r, &k, s, sizeof s), &p, err), GAME_OK);
        gs_result a, b;
        assert_int_equal(gs_search(g, &p, GS_PARANOID, 5, NULL, &a), GAME_OK);
        assert_int_equal(gs_search(g, &p, GS_MAXN, 5, NULL, &b), GAME_OK);
        double want = minimax(&r, &k, k.side, 5);
        assert_float_equal(a.value[k.side], want, 1e-12);
        assert_float_equal(b.value[k.side], want, 1e-12);
        assert_true(a.nodes <= b.nodes);
    }
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solve_vectors),
        cmocka_unit_test(test_solve_budget_and_errors),
        cmocka_unit_test(test_alphabeta_agrees_with_minimax),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
