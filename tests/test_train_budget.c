/* test_train_budget.c — run.time_limit (train/train.h): a run of far more iterations than fit in its budget
 * ends early with its final evaluation (final_games) and final checkpoint, and a resume of it trains
 * nothing more. Self-play runs worker threads, hence: */
// ctest-labels: threads
#include "tests/test_util.h"
#include "tests/train_util.h"

static void test_time_limit_ends_the_run_with_its_final_evaluation(void **state)
{
    (void)state;
    cfg_config c;
    /* 0.025 minutes = 1.5 s; an iteration of the tiny config takes well under that, 100000 of them far more */
    tiny(&c, "run.iterations=100000 run.time_limit=0.025 eval.final_games=6 run.checkpoint_every=1000");
    const char *dir = scratch("budget");
    train_options o = {.run_dir = dir};
    train_summary sum;
    char err[TRAIN_ERRLEN];
    int rc = train_run(&c, &o, &sum, err);
    if (rc != TRAIN_OK)
        fail_msg("train_run: %d %s", rc, err);
    assert_int_equal(sum.time_limited, 1);
    assert_true(sum.iterations >= 1 && sum.iterations < 100000);
    /* the last iteration played the final evaluation: final_games games per opponent */
    assert_true(sum.have_eval);
    assert_int_equal(sum.eval_iteration, sum.iterations);
    assert_int_equal(sum.eval[0].games, 6);
    /* No bound on the wall time here: how far one iteration overshoots depends on the machine's load (the
     * first iteration always runs, and on a loaded machine it alone can take longer than 1.5 s). */
    char name[64];
    snprintf(name, sizeof name, "checkpoints/iter-%06lld.h5", (long long)sum.iterations);
    if (!file_exists(dir, name))
        fail_msg("the final checkpoint %s/%s is missing", dir, name);
    assert_true(file_exists(dir, "best.h5"));
    int rows = count_char(slurp(dir, "metrics.csv"), '\n');

    /* resumed: the budget is spent, nothing more is trained, the metrics stay as they were */
    cfg_config back;
    run_config(&back, dir, NULL);
    train_options ro = {.run_dir = dir, .resume = 1};
    train_summary rs;
    rc = train_run(&back, &ro, &rs, err);
    if (rc != TRAIN_OK)
        fail_msg("resume: %d %s", rc, err);
    assert_int_equal(rs.iterations, sum.iterations);
    assert_int_equal(rs.time_limited, 1);
    assert_int_equal(count_char(slurp(dir, "metrics.csv"), '\n'), rows);
}

static void test_time_limit_key(void **state)
{
    (void)state;
    cfg_config c;
    char err[CFG_ERRLEN];
    cfg_defaults(&c);
    assert_true(c.run.time_limit == 0);
    assert_int_equal(cfg_set(&c, "run.time_limit=-1", err), -1);
    assert_non_null(strstr(err, "run.time_limit"));
    assert_int_equal(cfg_set(&c, "run.time_limit=60", err), 0);
    assert_true(c.run.time_limit == 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_limit_ends_the_run_with_its_final_evaluation),
        cmocka_unit_test(test_time_limit_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
