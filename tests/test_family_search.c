/* test_family_search.c — the exact solver (eval/family_search.h) against every line of the team's
 * oracle of small Congklak and Oware boards (tests/vectors/families-solved.txt), its best moves against
 * an independent plain minimax (no table, no pruning) on the smallest boards, and its errors. */
#include "tests/test_util.h"

#include "env/congklak.h"
#include "env/oware.h"
#include "eval/family_search.h"

/* Plain minimax to the end: the independent check of values and best moves. */
static int minimax(const twoside_game *g, const kalah_pos *p, unsigned *best_mask)
{
    int m = g->pits;
    if (p->over) {
        int d = (int)p->cell[m] - (int)p->cell[2 * m + 1];
        return p->side ? -d : d;
    }
    int best = -1000;
    unsigned legal = g->legal(g->rules, p), mask = 0;
    while (legal) {
        int k = __builtin_ctz(legal);
        legal &= legal - 1;
        kalah_pos c = *p;
        assert_int_equal(g->play(g->rules, &c, k), 0);
        int v = c.side == p->side ? minimax(g, &c, NULL) : -minimax(g, &c, NULL);
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
    char err[KALAH_ERRLEN];
    congklak_rules cr;
    oware_rules orr;
    twoside_game g;
    kalah_pos p;
    if (!strncmp(spec, "congklak", 8)) {
        if (congklak_rules_parse(spec, &cr, err) != KALAH_OK)
            fail_msg("%s: %s", spec, err);
        congklak_start(&cr, &p);
        g = congklak_game(&cr);
    } else {
        if (oware_rules_parse(spec, &orr, err) != KALAH_OK)
            fail_msg("%s: %s", spec, err);
        oware_start(&orr, &p);
        g = oware_game(&orr);
    }
    fs_solver *s = fs_create(&g, 2, err);
    assert_non_null(s);
    fs_result res;
    int rc = fs_solve(s, &p, 0, &res, err);
    if (rc != FS_OK)
        fail_msg("%s: solve failed (%d): %s", spec, rc, err);
    if (res.value != want)
        fail_msg("%s: solved %d, the oracle says %d", spec, res.value, want);
    assert_true(res.best_mask != 0);
    assert_int_equal(res.best, __builtin_ctz(res.best_mask));
    if (cross_check) {
        unsigned mask;
        assert_int_equal(minimax(&g, &p, &mask), want);
        assert_int_equal(res.best_mask, mask);
    }
    /* A second solve on the filled table gives the same answer. */
    fs_result again;
    assert_int_equal(fs_solve(s, &p, 0, &again, err), FS_OK);
    assert_int_equal(again.value, res.value);
    assert_int_equal(again.best_mask, res.best_mask);
    fs_free(s);
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
    char err[KALAH_ERRLEN];
    congklak_rules r = congklak_rules_default();
    twoside_game g = congklak_game(&r);
    assert_null(fs_create(&g, 0, err));
    assert_non_null(strstr(err, "out of range"));
    fs_solver *s = fs_create(&g, 1, err);
    assert_non_null(s);
    kalah_pos p;
    fs_result res;
    /* A node limit stops the full board's solve and says so. */
    congklak_start(&r, &p);
    assert_int_equal(fs_solve(s, &p, 1000, &res, err), FS_ESTOPPED);
    assert_non_null(strstr(err, "node limit"));
    /* A finished position: its margin for the side token, no move. */
    assert_int_equal(congklak_pos_parse("0,0,0,0,0,0,0,44,0,0,0,0,0,0,3,51 N", &r, &p, err), KALAH_OK);
    assert_int_equal(fs_solve(s, &p, 0, &res, err), FS_EOVER);
    assert_int_equal(res.value, 10);
    assert_int_equal(res.best, -1);
    fs_free(s);
    fs_free(NULL);

    /* Oware without a ply limit can cycle (Oware(2,1) has a line that never ends): the solve stops with
     * FS_EDEEP instead of recursing without end. */
    oware_rules o = {2, 1, OWARE_GRAND_SLAM_NOCAPTURE, 0};
    twoside_game og = oware_game(&o);
    s = fs_create(&og, 1, err);
    assert_non_null(s);
    oware_start(&o, &p);
    assert_int_equal(fs_solve(s, &p, 0, &res, err), FS_EDEEP);
    assert_non_null(strstr(err, "max_sows"));
    fs_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
