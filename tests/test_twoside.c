/* test_twoside.c — the twoside tables (env/twoside.h) of Congklak and Oware against every line of the
 * team's congklak-perft.txt, oware-perft.txt and families-legal.txt (tests/vectors/), and twoside_perft on
 * Kalah against Kalah's own perft (an independent recursion over the SIMD sowing) and perft.txt. */
#include "tests/test_util.h"

#include "env/congklak.h"
#include "env/oware.h"
#include "env/twoside.h"

/* The rules and position of one vector line of either game, as its twoside table. */
typedef struct {
    congklak_rules c;
    oware_rules o;
} rules_store;

static twoside_game setup(const char *spec, const char *text, rules_store *st, kalah_pos *p)
{
    char err[KALAH_ERRLEN];
    int rc;
    twoside_game g;
    if (!strncmp(spec, "oware", 5)) {
        if (oware_rules_parse(spec, &st->o, err) != KALAH_OK)
            fail_msg("%s: %s", spec, err);
        g = oware_game(&st->o);
        rc = oware_pos_parse(text, &st->o, p, err);
    } else {
        if (congklak_rules_parse(spec, &st->c, err) != KALAH_OK)
            fail_msg("%s: %s", spec, err);
        g = congklak_game(&st->c);
        rc = congklak_pos_parse(text, &st->c, p, err);
    }
    if (rc != KALAH_OK)
        fail_msg("%s under %s: %s", text, spec, err);
    return g;
}

/* Every line of both perft files; the deepest counts take about a second under ASan. */
static void test_perft_vectors(void **state)
{
    (void)state;
    static const struct { const char *file; int lines; } files[] = {{"congklak-perft.txt", 112}, {"oware-perft.txt", 122}};
    for (int i = 0; i < 2; i++) {
        FILE *f = tu_open_vector(files[i].file);
        char line[512];
        int count = 0;
        while (tu_next_line(f, line, sizeof line)) {
            char *fl[4];
            assert_int_equal(tu_split(line, fl, 4), 4);
            rules_store st;
            kalah_pos p;
            twoside_game g = setup(fl[0], fl[1], &st, &p);
            int depth = atoi(fl[2]);
            uint64_t nodes[64];
            assert_int_equal(twoside_perft(&g, &p, depth, nodes), 0);
            if (nodes[depth - 1] != strtoull(fl[3], NULL, 10))
                fail_msg("perft %d of '%s' under %s: got %llu, want %s", depth, fl[1], fl[0],
                         (unsigned long long)nodes[depth - 1], fl[3]);
            count++;
        }
        fclose(f);
        assert_int_equal(count, files[i].lines);
    }
}

static void test_legal_vectors(void **state)
{
    (void)state;
    FILE *f = tu_open_vector("families-legal.txt");
    char line[512];
    int count[2] = {0, 0};
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[3];
        assert_int_equal(tu_split(line, fl, 3), 3);
        rules_store st;
        kalah_pos p;
        twoside_game g = setup(fl[0], fl[1], &st, &p);
        int oware = !strcmp(g.name, "oware");
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
        cmocka_unit_test(test_perft_vectors),
        cmocka_unit_test(test_legal_vectors),
        cmocka_unit_test(test_kalah_perft),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
