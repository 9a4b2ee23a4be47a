/* test_ab_endgame.c — the alpha-beta solver's endgame database (eval/endgame.h through ab_set_endgame):
 * built with two threads, it must give the same values and best moves as the plain solver, under every
 * capture and end rule; it refuses rules with a sow limit. Kept apart from test_alphabeta.c because it runs
 * threads (the ThreadSanitizer pass runs it). */
// ctest-labels: threads
#include "tests/test_util.h"

#include "eval/alphabeta.h"

static void rules_or_fail(const char *spec, kalah_rules *r)
{
    char err[KALAH_ERRLEN];
    if (kalah_rules_parse(spec, r, err) != KALAH_OK)
        fail_msg("rules '%s': %s", spec, err);
}

static ab_search *make(const kalah_rules *r, size_t mb)
{
    char err[KALAH_ERRLEN];
    ab_search *s = ab_create(r, mb, err);
    if (!s)
        fail_msg("ab_create: %s", err);
    return s;
}

static ab_result solve(ab_search *s, const kalah_pos *p)
{
    ab_limits lim = {.exact = 1};
    ab_result res;
    assert_int_equal(ab_think(s, p, &lim, &res), AB_OK);
    assert_int_equal(res.exact, 1);
    return res;
}

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x >> 33;
}

static void test_endgame_database(void **state)
{
    (void)state;
    static const char *specs[] = {"kalah:pits=4,seeds=2", "kalah:pits=3,seeds=4,capture=always",
                                  "kalah:pits=3,seeds=3,end=mover-empty", "kalah:pits=5,seeds=1,capture=none"};
    for (int i = 0; i < 4; i++) {
        kalah_rules r;
        rules_or_fail(specs[i], &r);
        ab_search *plain = make(&r, 4), *db = make(&r, 4);
        char err[KALAH_ERRLEN];
        assert_int_equal(ab_set_threads(db, 2), AB_OK);
        assert_int_equal(ab_set_endgame(db, 10, err), AB_OK);
        uint64_t x = 99 + (uint64_t)i;
        for (int n = 0; n < 30; n++) {
            kalah_pos p;
            kalah_start(&r, &p);
            int plies = (int)(lcg(&x) % 12);
            for (int j = 0; j < plies && !p.over; j++) {
                unsigned legal = kalah_legal(&r, &p);
                int pick = (int)(lcg(&x) % (uint64_t)__builtin_popcount(legal));
                while (pick--)
                    legal &= legal - 1;
                kalah_sow(&r, &p, __builtin_ctz(legal), NULL);
            }
            if (p.over)
                continue;
            ab_result a = solve(plain, &p), b = solve(db, &p);
            assert_int_equal(a.value, b.value);
            assert_int_equal(a.best_mask, b.best_mask);
        }
        /* positions inside the database: at most 10 seeds scattered over the pits, the rest in the stores */
        for (int n = 0; n < 60; n++) {
            kalah_pos p;
            memset(&p, 0, sizeof p);
            int m = r.pits, in_pits = 1 + (int)(lcg(&x) % 10), total = 2 * m * r.seeds;
            for (int j = 0; j < in_pits; j++) {
                int k = (int)(lcg(&x) % (uint64_t)(2 * m));
                p.cell[k < m ? k : k + 1]++;
            }
            int south = (int)(lcg(&x) % (uint64_t)(total - in_pits + 1));
            p.cell[m] = (uint8_t)south;
            p.cell[2 * m + 1] = (uint8_t)(total - in_pits - south);
            p.side = (uint8_t)(lcg(&x) & 1);
            char text[80], err[KALAH_ERRLEN];
            kalah_pos_format(&r, &p, text, sizeof text);
            assert_int_equal(kalah_pos_parse(text, &r, &p, NULL, err), KALAH_OK); /* settles finished ones */
            if (p.over)
                continue;
            ab_result a = solve(plain, &p), b = solve(db, &p);
            if (a.value != b.value || a.best_mask != b.best_mask)
                fail_msg("%s %s: plain %d mask %x, database %d mask %x", specs[i], text, a.value, a.best_mask,
                         b.value, b.best_mask);
        }
        ab_free(plain);
        ab_free(db);
    }
    kalah_rules ms;
    rules_or_fail("kalah:pits=3,seeds=3,max_sows=20", &ms);
    ab_search *s = make(&ms, 1);
    char err[KALAH_ERRLEN];
    assert_int_equal(ab_set_endgame(s, 6, err), AB_EINVAL);
    assert_non_null(strstr(err, "max_sows"));
    ab_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endgame_database),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
