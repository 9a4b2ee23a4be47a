/* test_train_budget.c — run.time_limit (train/train.h): a run of far more iterations than fit in its budget
 * ends early with its final evaluation (final_games) and final checkpoint, and a resume of it trains
 * nothing more; train.lr_anneal_by = time plans the cosine decay over that budget. Self-play runs worker
 * threads, hence: */
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

/* The plan's arithmetic, against numbers worked by hand (train_time_anneal_steps' doc). */
static void test_time_anneal_plan(void **state)
{
    (void)state;
    /* no pace yet: all planned iterations */
    assert_int_equal(train_time_anneal_steps(0, 0, 100, 5.0, 600, 0, 400), 100 * 400);
    /* 10 iterations in 100 s: (600 - 100 - 50) / 10 = 45 more fit, of the 90 planned */
    assert_int_equal(train_time_anneal_steps(3600, 10, 100, 100, 600, 50, 400), 3600 + 45 * 400);
    /* the same budget, only 20 planned: the iterations end first */
    assert_int_equal(train_time_anneal_steps(3600, 10, 20, 100, 600, 50, 400), 3600 + 10 * 400);
    /* 44.9 iterations' worth of time: 44 */
    assert_int_equal(train_time_anneal_steps(0, 10, 100, 100, 599, 50, 400), 44 * 400);
    /* over budget already: this iteration still runs and ends the decay */
    assert_int_equal(train_time_anneal_steps(3600, 10, 100, 700, 600, 50, 400), 3600 + 400);
    /* no SGD steps per iteration: a length of 1 (a valid schedule) */
    assert_int_equal(train_time_anneal_steps(0, 10, 100, 100, 600, 0, 0), 1);
}

/* The key: values, and the combinations it needs (each refusal names train.lr_anneal_by). */
static void test_time_anneal_key(void **state)
{
    (void)state;
    static const char *const bad[][3] = {
        {"train.lr_schedule=constant", "run.time_limit=10", "lr_schedule = cosine"},
        {"train.lr_schedule=cosine", "run.time_limit=0", "run.time_limit > 0"},
        {"train.lr_total_steps=1000", "run.time_limit=10", "lr_total_steps = 0"},
    };
    char err[CFG_ERRLEN];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg_config c;
        cfg_defaults(&c);
        apply_sets(&c, "run.iterations=10 train.lr_schedule=cosine");
        assert_int_equal(cfg_set(&c, "train.lr_anneal_by=time", err), 0);
        assert_int_equal(cfg_set(&c, bad[i][0], err), 0);
        assert_int_equal(cfg_set(&c, bad[i][1], err), 0);
        assert_int_equal(cfg_finish(&c, err), -1);
        if (!strstr(err, "train.lr_anneal_by") || !strstr(err, bad[i][2]))
            fail_msg("case %zu: %s", i, err);
    }
    cfg_config c;
    cfg_defaults(&c);
    assert_int_equal(c.train.lr_anneal_by, CFG_ANNEAL_STEPS);
    apply_sets(&c, "run.iterations=10");
    assert_int_equal(cfg_set(&c, "train.lr_anneal_by=wall", err), -1);
    assert_non_null(strstr(err, "train.lr_anneal_by"));
    assert_int_equal(cfg_set(&c, "train.lr_anneal_by=time", err), 0);
    assert_int_equal(cfg_set(&c, "train.lr_schedule=cosine", err), 0);
    assert_int_equal(cfg_set(&c, "run.time_limit=10", err), 0);
    if (cfg_finish(&c, err))
        fail_msg("%s", err);
}

/* The column `lr` of metrics.csv, row by row, rows without SGD left out (n entries at most); returns the
 * rows read. */
static int lr_column(const char *csv, double *lr, int n)
{
    const char *p = strchr(csv, '\n');
    int col = -1, k = 0;
    if (!p)
        fail_msg("metrics.csv has no header line");
    for (const char *h = csv; h < p; h++) /* the header: lr's column */
        if ((h == csv || h[-1] == ',') && !strncmp(h, "lr,", 3))
            col = k;
        else if (*h == ',')
            k++;
    if (col < 0)
        fail_msg("metrics.csv has no lr column");
    int rows = 0;
    for (const char *line = p + 1; *line && rows < n;) {
        const char *f = line, *end = strchr(line, '\n');
        for (int i = 0; i < col && f; i++)
            if ((f = strchr(f, ',')))
                f++;
        if (!end || !f || f > end) /* a row cut short (slurp reads 64 KiB): the rows before it */
            break;
        if (*f != ',' && *f != '\n') /* empty: no SGD step in that iteration */
            lr[rows++] = strtod(f, NULL);
        line = end + 1;
    }
    return rows;
}

/* A run planned far beyond its budget, annealed by time: the rate falls within the budget (with the
 * iteration-based plan it would stay near lr for all of it) and never leaves [lr_min, lr]. How many
 * iterations fit depends on the machine's load (about 45 on an idle 2-core VM): with fewer than 12 the
 * pace is too unsteady to judge. */
static void test_time_anneal_run(void **state)
{
    (void)state;
    cfg_config c;
    tiny(&c, "run.iterations=100000 run.time_limit=0.05 eval.every=0 eval.final_games=2 train.lr=0.01 "
             "train.lr_min=0.0001 train.lr_schedule=cosine train.lr_anneal_by=time");
    char err[TRAIN_ERRLEN];
    const char *dir = scratch("anneal");
    train_options o = {.run_dir = dir};
    train_summary sum;
    int rc = train_run(&c, &o, &sum, err);
    if (rc != TRAIN_OK)
        fail_msg("train_run: %d %s", rc, err);
    assert_int_equal(sum.time_limited, 1);
    double lr[4096];
    int n = lr_column(slurp(dir, "metrics.csv"), lr, 4096);
    for (int i = 0; i < n; i++)
        if (!(lr[i] >= 0.0001 * (1 - 1e-6) && lr[i] <= 0.01 * (1 + 1e-6)))
            fail_msg("row %d: lr %g outside [lr_min, lr]", i + 1, lr[i]);
    if (n < 12)
        skip(); /* a machine too loaded for a steady pace in 3 s: nothing to judge */
    /* the planned 100000 iterations would leave the rate within 1e-6 of lr all along; planned over the
     * budget it passes 0.9 lr once about a fifth of the budget is spent. The lowest row, not the last: one
     * iteration stalled by the load at the end must not decide (the plan cannot foresee it). */
    double lowest = lr[0];
    for (int i = 1; i < n; i++)
        lowest = lr[i] < lowest ? lr[i] : lowest;
    if (!(lowest < 0.9 * 0.01))
        fail_msg("over %d rows the lowest lr is %g: the decay did not follow the budget", n, lowest);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_limit_ends_the_run_with_its_final_evaluation),
        cmocka_unit_test(test_time_limit_key),
        cmocka_unit_test(test_time_anneal_plan),
        cmocka_unit_test(test_time_anneal_key),
        cmocka_unit_test(test_time_anneal_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
