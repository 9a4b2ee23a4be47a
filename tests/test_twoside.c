/* test_twoside.c — the twoside tables (env/twoside.h): the legal moves of Congklak and Oware against
 * every line of the team's tests/vectors/families-legal.txt, and twoside_perft on Kalah against Kalah's
 * own perft (an independent recursion over the SIMD sowing) and the perft vectors. */
#include "tests/test_util.h"

#include "env/congklak.h"
#include "env/oware.h"
#include "env/twoside.h"

static void test_legal_vectors(void **state)
{
    (void)state;
    FILE *f = tu_open_vector("families-legal.txt");
    char line[512], err[KALAH_ERRLEN];
    int count[2] = {0, 0};
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[3];
        assert_int_equal(tu_split(line, fl, 3), 3);
        congklak_rules cr;
        oware_rules orr;
        twoside_game g;
        kalah_pos p;
        int oware = !strncmp(fl[0], "oware", 5), rc;
        if (oware) {
            if (oware_rules_parse(fl[0], &orr, err) != KALAH_OK)
                fail_msg("%s: %s", fl[0], err);
            g = oware_game(&orr);
            rc = oware_pos_parse(fl[1], &orr, &p, err);
        } else {
            if (congklak_rules_parse(fl[0], &cr, err) != KALAH_OK)
                fail_msg("%s: %s", fl[0], err);
            g = congklak_game(&cr);
            rc = congklak_pos_parse(fl[1], &cr, &p, err);
        }
        if (rc != KALAH_OK)
            fail_msg("%s: %s", fl[1], err);
        unsigned legal = g.legal(g.rules, &p);
        char got[64] = "";
        for (int k = 0; k < g.pits; k++)
            if (legal & (1u << k)) {
                size_t o = strlen(got);
                snprintf(got + o, sizeof got - o, "%s%c", o ? " " : "", kalah_move_letter(p.side, k));
            }
        if (!legal)
            strcpy(got, "-");
        if (strcmp(got, fl[2]))
            fail_msg("legal moves of '%s' under %s: got '%s', want '%s'", fl[1], fl[0], got, fl[2]);
        assert_int_equal(!legal, p.over); /* no legal move exactly when the parser found the game over */
        count[oware]++;
    }
    fclose(f);
    assert_int_equal(count[0], 6);
    assert_int_equal(count[1], 18);
}

static void test_kalah_perft(void **state)
{
    (void)state;
    FILE *f = tu_open_vector("perft.txt");
    char line[512], err[KALAH_ERRLEN];
    int count = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[4];
        assert_int_equal(tu_split(line, fl, 4), 4);
        kalah_rules r;
        kalah_pos p;
        if (kalah_rules_parse(fl[0], &r, err) != KALAH_OK || kalah_pos_parse(fl[1], &r, &p, NULL, err) != KALAH_OK)
            fail_msg("%s | %s: %s", fl[0], fl[1], err);
        int depth = atoi(fl[2]);
        if (depth > 8)
            continue; /* the deep counts are test_kalah's */
        uint64_t a[16], b[16];
        twoside_game g = twoside_kalah(&r);
        assert_int_equal(twoside_perft(&g, &p, depth, a), 0);
        kalah_perft(&r, &p, depth, b);
        assert_memory_equal(a, b, (size_t)depth * sizeof a[0]);
        assert_int_equal(a[depth - 1], strtoull(fl[3], NULL, 10));
        count++;
    }
    fclose(f);
    assert_true(count >= 10);
    /* Depth 0 and a finished position count nothing. */
    kalah_rules r = kalah_rules_default();
    kalah_pos p;
    uint64_t n[2] = {7, 7};
    kalah_start(&r, &p);
    twoside_game g = twoside_kalah(&r);
    assert_int_equal(twoside_perft(&g, &p, 0, n), 0);
    assert_int_equal(n[0], 7);
    p.over = 1;
    assert_int_equal(twoside_perft(&g, &p, 2, n), 0);
    assert_int_equal(n[0] + n[1], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legal_vectors),
        cmocka_unit_test(test_kalah_perft),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
