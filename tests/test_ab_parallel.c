/* test_ab_parallel.c — the parallel exact solve (eval/alphabeta.h, ab_set_threads and ab_set_smp: Lazy SMP
 * or ABDADA on the shared lockless table): on random positions of several boards and rule variants, with
 * and without an endgame database, 3 threads give the same value and the same set of optimal moves as 1
 * thread, either way; the table stays usable across solves (a second solve of the same root agrees too). */
// ctest-labels: threads
#include "tests/test_util.h"

#include "eval/alphabeta.h"
#include "eval/endgame.h"

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

static void solve_with(ab_search *s, const kalah_pos *p, ab_result *out)
{
    ab_limits lim = {.exact = 1};
    int rc = ab_think(s, p, &lim, out);
    assert_true(rc == AB_OK || rc == AB_EOVER);
    if (rc == AB_OK)
        assert_true(out->exact);
}

static void parallel_equals_serial(ab_smp smp)
{
    static const char *specs[] = {"kalah:pits=5,seeds=3", "kalah:pits=4,seeds=4", "kalah:pits=6,seeds=2",
                                  "kalah:pits=4,seeds=4,capture=always", "kalah:pits=5,seeds=3,end=mover-empty",
                                  "kalah:pits=4,seeds=3,max_sows=30"};
    const int nspecs = (int)(sizeof specs / sizeof specs[0]);
    uint64_t x = 2026;
    char err[KALAH_ERRLEN];
    for (int si = 0; si < nspecs; si++) {
        kalah_rules r;
        assert_int_equal(kalah_rules_parse(specs[si], &r, err), KALAH_OK);
        for (int with_db = 0; with_db < (r.max_sows ? 1 : 2); with_db++) {
            ab_search *one = ab_create(&r, 16, err), *many = ab_create(&r, 16, err);
            assert_non_null(one);
            assert_non_null(many);
            assert_int_equal(ab_set_threads(many, 3), AB_OK);
            assert_int_equal(ab_set_smp(many, smp), AB_OK);
            eg_db *db = NULL;
            if (with_db) {
                db = eg_create(&r, 8, 1, err);
                assert_non_null(db);
                assert_int_equal(ab_borrow_endgame(one, db, err), AB_OK);
                assert_int_equal(ab_borrow_endgame(many, db, err), AB_OK);
            }
            for (int k = 0; k < 5; k++) {
                kalah_pos p;
                kalah_start(&r, &p);
                int plies = (int)(lcg(&x) % 10);
                for (int j = 0; j < plies && !p.over; j++) {
                    unsigned legal = kalah_legal(&r, &p);
                    int pick = (int)(lcg(&x) % (uint64_t)__builtin_popcount(legal));
                    for (int m = 0; m < r.pits; m++)
                        if (legal >> m & 1u && pick-- == 0) {
                            kalah_sow(&r, &p, m, NULL);
                            break;
                        }
                }
                ab_result a, b, c;
                solve_with(one, &p, &a);
                solve_with(many, &p, &b);
                solve_with(many, &p, &c); /* again, on the table the helpers filled */
                if (a.value != b.value || a.best_mask != b.best_mask || c.value != a.value ||
                    c.best_mask != a.best_mask)
                    fail_msg("%s smp=%d db=%d position %d: 1 thread %d/%x, 3 threads %d/%x then %d/%x", specs[si],
                             (int)smp, with_db, k, a.value, a.best_mask, b.value, b.best_mask, c.value, c.best_mask);
                /* the windowed solve on 3 threads (a fresh table each time: the helpers race the main search
                 * from the first probe): exact inside the window, the right side outside */
                if (!p.over && kalah_legal(&r, &p)) {
                    for (int w = -1; w <= 1; w++) {
                        ab_clear(many);
                        ab_window aw;
                        int lo = a.value - 2 * w - 1, hi = a.value - 2 * w + 1;
                        assert_int_equal(ab_solve_window(many, &p, lo, hi, &aw), AB_OK);
                        assert_int_equal(aw.where, w);
                        if (w == 0)
                            assert_int_equal(aw.value, a.value);
                        else
                            assert_true(w < 0 ? a.value <= aw.value && aw.value < lo : a.value >= aw.value && aw.value > hi);
                    }
                }
            }
            ab_free(one);
            ab_free(many);
            eg_free(db);
        }
    }
}

static void test_lazy_equals_serial(void **state)
{
    (void)state;
    parallel_equals_serial(AB_SMP_LAZY);
}

static void test_abdada_equals_serial(void **state)
{
    (void)state;
    parallel_equals_serial(AB_SMP_ABDADA);
    /* the default of a new search; its table is taken once more than one thread is set */
    kalah_rules r;
    char err[KALAH_ERRLEN];
    assert_int_equal(kalah_rules_parse("kalah", &r, err), KALAH_OK);
    ab_search *s = ab_create(&r, 1, err);
    assert_non_null(s);
    assert_int_equal(ab_set_smp(s, (ab_smp)2), AB_EINVAL);
    ab_free(s);
}

/* The command: --smp abdada gives lazy's value and best moves; a bad name is refused as bad input. */
static void test_smp_cli(void **state)
{
    (void)state;
    char *lazy = NULL, *abdada = NULL, *out = NULL;
    const char *solve = "solve --rules kalah:pits=5,seeds=3 --threads 2 --endgame 0 --no-save --json";
    assert_int_equal(tu_run(&lazy, 0, "%s --smp lazy", solve), 0);
    assert_int_equal(tu_run(&abdada, 0, "%s --smp abdada", solve), 0);
    const char *tail = strstr(lazy, ",\"nodes\"");
    assert_non_null(tail);
    assert_non_null(strstr(lazy, "{\"value\":6,\"best\":[\"c\"]"));
    assert_memory_equal(lazy, abdada, (size_t)(tail - lazy)); /* value and best moves */
    free(lazy);
    free(abdada);
    assert_int_equal(tu_run(&out, 1, "solve --smp fast"), 2);
    assert_non_null(strstr(out, "--smp 'fast': expected lazy or abdada"));
    free(out);
    /* the default is ABDADA, which a solver of one thread (the generic one: Oware) takes as well */
    assert_int_equal(tu_run(&out, 1, "solve --rules oware:pits=2,seeds=2 --threads 1 --smp abdada --json"), 0);
    assert_non_null(strstr(out, "\"value\":"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy_equals_serial),
        cmocka_unit_test(test_abdada_equals_serial),
        cmocka_unit_test(test_smp_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
