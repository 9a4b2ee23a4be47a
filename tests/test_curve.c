/* test_curve.c — metrics.csv's time-to-accuracy rows read back (train/curve.h): rows written by
 * train/metrics.h come back with their values, rows without an accuracy are skipped, and files that are
 * no metrics.csv are refused naming the file and line; `sowzero metrics` exits 2 on them. */
#include "tests/test_util.h"

#include <math.h>

#include "train/curve.h"
#include "train/metrics.h"

static void test_rows_round_trip(void **state)
{
    (void)state;
    const char *path = tu_tmp_path("curve-metrics.csv");
    const char *opp[1] = {"ab:depth=4"};
    char err[512];
    train_metrics *m = train_metrics_open(path, opp, 1, -1, err, sizeof err);
    assert_non_null(m);
    for (int it = 1; it <= 5; it++) {
        train_row r = {.iteration = it, .games = 100 * it, .elapsed_s = 30.5 * it, .have_accuracy = it % 2 == 1,
                       .accuracy_search = 0.5 + 0.05 * it, .regret_search = 1.0 / it, .accuracy_raw = 0.4 + 0.01 * it,
                       .regret_raw = 2.0 / it, .have_eval = 1, .score = {0.25}};
        assert_int_equal(train_metrics_append(m, &r, err, sizeof err), 0);
    }
    train_metrics_close(m);
    train_curve_point *p;
    int n;
    assert_int_equal(train_curve_read(path, &p, &n, err, sizeof err), TRAIN_CURVE_OK);
    assert_int_equal(n, 3); /* iterations 1, 3, 5 */
    for (int i = 0; i < 3; i++) {
        int it = 2 * i + 1;
        assert_int_equal(p[i].iteration, it);
        assert_int_equal(p[i].games, 100 * it);
        assert_true(fabs(p[i].elapsed_s - 30.5 * it) < 1e-6);
        assert_true(fabs(p[i].accuracy_search - (0.5 + 0.05 * it)) < 1e-6);
        assert_true(fabs(p[i].regret_search - 1.0 / it) < 1e-6);
        assert_true(fabs(p[i].accuracy_raw - (0.4 + 0.01 * it)) < 1e-6);
        assert_true(fabs(p[i].regret_raw - 2.0 / it) < 1e-6);
    }
    free(p);
}

static void test_bad_files(void **state)
{
    (void)state;
    char err[512];
    train_curve_point *p;
    int n;
    assert_int_equal(train_curve_read(tu_tmp_path("curve-none.csv"), &p, &n, err, sizeof err), TRAIN_CURVE_EIO);
    assert_non_null(strstr(err, "curve-none.csv"));
    const char *path = tu_tmp_path("curve-bad.csv");
    tu_write_text(path, "iteration,games,elapsed_s,accuracy_raw,regret_raw\n1,2,3,0.5,1\n");
    assert_int_equal(train_curve_read(path, &p, &n, err, sizeof err), TRAIN_CURVE_EINVAL);
    assert_non_null(strstr(err, ":1: not a sowzero metrics.csv (no column 'accuracy_search'"));
    tu_write_text(path, "iteration,games,elapsed_s,accuracy_search,regret_search,accuracy_raw,regret_raw\n"
                        "1,2,3,0.5,1,0.4,2\n2,4,x,0.6,1,0.4,2\n");
    assert_int_equal(train_curve_read(path, &p, &n, err, sizeof err), TRAIN_CURVE_EINVAL);
    assert_non_null(strstr(err, "curve-bad.csv:3: column elapsed_s: 'x' is not a number"));
    assert_int_equal(n, 0);
    /* numbers the trainer never writes: not finite, a share above 1, a negative regret, a fractional count */
    static const char *const rows[][2] = {{"2,4,nan,0.6,1,0.4,2", "elapsed_s: 'nan' is out of range"},
                                          {"2,4,5,0.6,1,5,2", "accuracy_raw: '5' is out of range"},
                                          {"2,4,5,inf,1,0.4,2", "accuracy_search: 'inf' is out of range"},
                                          {"2,4,5,0.6,-5,0.4,2", "regret_search: '-5' is out of range"},
                                          {"2.5,4,5,0.6,1,0.4,2", "iteration: '2.5' is out of range"}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "iteration,games,elapsed_s,accuracy_search,regret_search,accuracy_raw,"
                                    "regret_raw\n1,2,3,0.5,1,0.4,2\n%s\n", rows[i][0]);
        tu_write_text(path, text);
        assert_int_equal(train_curve_read(path, &p, &n, err, sizeof err), TRAIN_CURVE_EINVAL);
        if (!strstr(err, rows[i][1]) || !strstr(err, "curve-bad.csv:3:"))
            fail_msg("row '%s': %s", rows[i][0], err);
    }
    tu_write_text(path, "iteration,games,elapsed_s,accuracy_search,regret_search,accuracy_raw,regret_raw\n1,2,3\n");
    assert_int_equal(train_curve_read(path, &p, &n, err, sizeof err), TRAIN_CURVE_EINVAL);
    assert_non_null(strstr(err, ":2: 3 cells, the header has 7"));
    char *out;
    assert_int_equal(tu_run(&out, 1, "metrics '%s'", path), 2);
    assert_non_null(strstr(out, "3 cells"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "metrics '%s'", tu_tmp_path("no-such-run")), 2);
    assert_non_null(strstr(out, "metrics.csv: cannot open"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "metrics"), 2);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_round_trip),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
