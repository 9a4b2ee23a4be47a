/* test_game_solve.c — the exact solver of the game interface (eval/game_search.h, gs_solver) against
 * every line of the team's oracle of small Congklak and Oware boards (tests/vectors/families-solved.txt),
 * its best moves against an independent plain minimax (no table, no pruning) written on the games' own
 * headers (env/congklak.h, env/oware.h) on the smallest boards, its errors and its progress hook. */
#include "tests/test_util.h"

#include "env/congklak.h"
#include "env/game.h"
#include "env/oware.h"
#include "eval/game_agent.h"
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

    /* Oware without a ply limit can cycle (Oware(2,1) has a line that never ends): refused up front by
     * the rules alone, by gs_solvable, gs_solver_create, gs_solve and the solve agent, each naming
     * max_sows; with a limit the same board solves, and Congklak (acyclic) needs none. */
    g = game_create("oware:pits=2,seeds=1,grand_slam=nocapture,max_sows=0", err);
    assert_non_null(g);
    assert_int_equal(gs_solvable(g, err), GAME_EINVAL);
    assert_non_null(strstr(err, "oware:pits=2,seeds=1,grand_slam=nocapture,max_sows=0: "));
    assert_non_null(strstr(err, "cycles"));
    err[0] = 0;
    assert_null(gs_solver_create(g, 1, err));
    assert_non_null(strstr(err, "max_sows > 0"));
    game_start(g, &p);
    err[0] = 0;
    assert_int_equal(gs_solve(g, &p, 0, NULL, &res, err), GAME_EINVAL);
    assert_non_null(strstr(err, "max_sows > 0"));
    char aerr[AGENT_ERRLEN];
    assert_null(game_agent_create("solve", g, aerr));
    assert_non_null(strstr(aerr, "agent 'solve': ") && strstr(aerr, "cycles"));
    game_free(g);
    g = game_create("oware:pits=2,seeds=1,grand_slam=nocapture,max_sows=12", err);
    assert_int_equal(gs_solvable(g, err), GAME_OK);
    game_free(g);
    g = game_create("congklak:pits=3,seeds=2,max_sows=0", err);
    assert_int_equal(gs_solvable(g, err), GAME_OK);
    game_free(g);

    /* Básico has no margin: no solver. */
    g = game_create("basico", err);
    assert_non_null(g);
    assert_null(gs_solver_create(g, 1, err));
    assert_non_null(strstr(err, "margin"));
    game_free(g);
}

/* What the progress hook saw: the node count of each call. */
typedef struct {
    uint64_t at[128];
    int n;
} seen;

static void record_progress(void *ctx, uint64_t nodes)
{
    seen *v = ctx;
    if (v->n < 128)
        v->at[v->n] = nodes;
    v->n++;
}

/* The progress hook is called at every multiple of `every` positions of the run, and changes nothing:
 * the same value, best moves and node count as a solver without it (also at a node limit). */
static void test_progress(void **state)
{
    (void)state;
    char err[GAME_ERRLEN];
    game *g = game_create("congklak:pits=5,seeds=5", err);
    assert_non_null(g);
    game_pos p;
    game_start(g, &p);
    gs_solution plain, with;
    gs_solver *s = gs_solver_create(g, 4, err);
    assert_int_equal(gs_solver_run(s, &p, 0, &plain, err), GAME_OK);
    gs_solver_free(s);
    assert_true(plain.nodes > 5000 && plain.nodes < 128 * 1000);

    seen v = {.n = 0};
    s = gs_solver_create(g, 4, err);
    gs_solver_set_progress(s, 1000, record_progress, &v);
    assert_int_equal(gs_solver_run(s, &p, 0, &with, err), GAME_OK);
    assert_int_equal(with.value, plain.value);
    assert_int_equal(with.best_mask, plain.best_mask);
    assert_int_equal(with.nodes, plain.nodes);
    /* Once per multiple, at the first position searched from it on (finished positions, the leaves, are
     * counted without a check, so a call can come a few positions late, or the last one not at all). */
    assert_true(v.n == (int)(plain.nodes / 1000) || v.n == (int)(plain.nodes / 1000) - 1);
    for (int i = 0; i < v.n; i++)
        assert_true(v.at[i] >= (uint64_t)(i + 1) * 1000 && v.at[i] < (uint64_t)(i + 1) * 1000 + 50);
    gs_solver_free(s);

    /* With a node limit between two reports: the reports before it, then the stop just past it. */
    v.n = 0;
    s = gs_solver_create(g, 4, err);
    gs_solver_set_progress(s, 1000, record_progress, &v);
    assert_int_equal(gs_solver_run(s, &p, 3500, &with, err), GS_ESTOPPED);
    assert_int_equal(v.n, 3);
    assert_true(v.at[2] >= 3000 && v.at[2] < 3050);
    assert_true(with.nodes >= 3501 && with.nodes < 3550);
    /* A second run on the same solver counts from 0 again. */
    v.n = 0;
    assert_int_equal(gs_solver_run(s, &p, 0, &with, err), GAME_OK);
    assert_int_equal(with.value, plain.value);
    assert_true(v.n >= 1 && v.at[0] >= 1000 && v.at[0] < 1050);
    gs_solver_free(s);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
