/* test_game_solve.c — the exact solver of the game interface (eval/game_search.h, gs_solver) against
 * every line of the team's oracle of small Congklak and Oware boards (tests/vectors/families-solved.txt),
 * its best moves against an independent plain minimax (no table, no pruning) written on the games' own
 * headers (env/congklak.h, env/oware.h) on the smallest boards, and its errors. */
#include "tests/test_util.h"

#include "env/congklak.h"
#include "env/game.h"
#include "env/oware.h"
#include "eval/game_search.h"

/* A rule set of either game, played through its own header: the independent side of the check. */
typedef struct {
    int is_oware;
    congklak_rules c;
    oware_rules o;
} native;

static unsigned native_legal(const native *n, const kalah_pos *p)
{
    return n->is_oware ? oware_legal(&n->o, p) : congklak_legal(&n->c, p);
}

static int native_play(const native *n, kalah_pos *p, int k)
{
    return n->is_oware ? oware_play(&n->o, p, k, NULL) : congklak_play(&n->c, p, k, NULL);
}

/* Plain minimax to the end: the independent check of values and best moves. */
static int minimax(const native *n, int m, const kalah_pos *p, unsigned *best_mask)
{
    if (p->over) {
        int d = (int)p->cell[m] - (int)p->cell[2 * m + 1];
        return p->side ? -d : d;
    }
    int best = -1000;
    unsigned legal = native_legal(n, p), mask = 0;
    while (legal) {
        int k = __builtin_ctz(legal);
        legal &= legal - 1;
        kalah_pos c = *p;
        assert_int_equal(native_play(n, &c, k), 0);
        int v = c.side == p->side ? minimax(n, m, &c, NULL) : -minimax(n, m, &c, NULL);
        if (v > best) {
            best = v;
            mask = 0;
        }
        if (v == best)
            mask |= 1u << k;
    }
    if (best_mask)
        *best_mask = mask;
    return best;
}

/* Solves the start of one oracle line; returns the solve's seconds. */
static double check_line(const char *spec, int want, int cross_check)
{
    char err[GAME_ERRLEN];
    game *g = game_create(spec, err);
    if (!g)
        fail_msg("%s: %s", spec, err);
    game_pos p;
    game_start(g, &p);
    gs_solver *s = gs_solver_create(g, 2, err);
    assert_non_null(s);
    gs_solution res;
    int rc = gs_solver_run(s, &p, 0, &res, err);
    if (rc != GAME_OK)
        fail_msg("%s: solve failed (%d): %s", spec, rc, err);
    if (res.value != want)
        fail_msg("%s: solved %d, the oracle says %d", spec, res.value, want);
    assert_true(res.best_mask != 0);
    assert_int_equal(res.move, __builtin_ctz(res.best_mask));
    if (cross_check) {
        native n = {.is_oware = !strncmp(spec, "oware", 5)};
        kalah_pos k;
        if (n.is_oware) {
            assert_int_equal(oware_rules_parse(spec, &n.o, err), KALAH_OK);
            oware_start(&n.o, &k);
        } else {
            assert_int_equal(congklak_rules_parse(spec, &n.c, err), KALAH_OK);
            congklak_start(&n.c, &k);
        }
        unsigned mask;
        assert_int_equal(minimax(&n, game_moves(g), &k, &mask), want);
        assert_int_equal(res.best_mask, mask);
    }
    /* A second solve on the filled table gives the same answer. */
    gs_solution again;
    assert_int_equal(gs_solver_run(s, &p, 0, &again, err), GAME_OK);
    assert_int_equal(again.value, res.value);
    assert_int_equal(again.best_mask, res.best_mask);
    gs_solver_free(s);
    game_free(g);
    return res.seconds;
}

static void test_oracle(void **state)
{
    (void)state;
    FILE *f = tu_open_vector("families-solved.txt");
    char line[512];
    int count = 0;
    double total = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[3];
        assert_int_equal(tu_split(line, fl, 3), 3);
        /* Plain minimax is exponential: only the smallest boards get it. */
        int small = strstr(fl[0], "pits=1,") || strstr(fl[0], "pits=2,seeds=1") ||
                    strstr(fl[0], "pits=2,seeds=2,c") || strstr(fl[0], "pits=3,seeds=1,c");
        total += check_line(fl[0], atoi(fl[1]), small);
        count++;
    }
    fclose(f);
    assert_int_equal(count, 105);
    print_message("families-solved.txt: %d lines solved in %.2f s\n", count, total);
}

static void test_errors(void **state)
{
    (void)state;
    char err[GAME_ERRLEN];
    game *g = game_create("congklak", err);
    assert_non_null(g);
    assert_null(gs_solver_create(g, 0, err));
    assert_non_null(strstr(err, "out of range"));
    gs_solver *s = gs_solver_create(g, 1, err);
    assert_non_null(s);
    game_pos p;
    gs_solution res;
    /* A node limit stops the full board's solve and says so. */
    game_start(g, &p);
    assert_int_equal(gs_solver_run(s, &p, 1000, &res, err), GS_ESTOPPED);
    assert_non_null(strstr(err, "node limit"));
    /* A finished position: its margin for the side token, no move. */
    assert_int_equal(game_pos_parse(g, "0,0,0,0,0,0,0,44,0,0,0,0,0,0,3,51 N", &p, err), GAME_OK);
    assert_int_equal(gs_solver_run(s, &p, 0, &res, err), GAME_EOVER);
    assert_int_equal(res.value, 10);
    assert_int_equal(res.move, -1);
    gs_solver_free(s);
    gs_solver_free(NULL);
    game_free(g);

    /* Oware without a ply limit can cycle (Oware(2,1) has a line that never ends): the solve stops with
     * GS_EDEEP instead of recursing without end; gs_solve says the same. */
    g = game_create("oware:pits=2,seeds=1,grand_slam=nocapture,max_sows=0", err);
    assert_non_null(g);
    s = gs_solver_create(g, 1, err);
    assert_non_null(s);
    game_start(g, &p);
    assert_int_equal(gs_solver_run(s, &p, 0, &res, err), GS_EDEEP);
    assert_non_null(strstr(err, "max_sows"));
    gs_solver_free(s);
    assert_int_equal(gs_solve(g, &p, 0, &res, err), GAME_EINVAL);
    assert_non_null(strstr(err, "max_sows"));
    game_free(g);

    /* Básico has no margin: no solver. */
    g = game_create("basico", err);
    assert_non_null(g);
    assert_null(gs_solver_create(g, 1, err));
    assert_non_null(strstr(err, "margin"));
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
