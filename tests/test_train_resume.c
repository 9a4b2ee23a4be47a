/* test_train_resume.c — what `train --resume` and a fresh `train --run-dir` do with run directories in odd
 * states: a run that has trained but has no usable checkpoint (all damaged, deleted, or another run's) is
 * refused, changing nothing, until --restart moves its files aside; a fresh run refuses a non-empty
 * directory that is not a run; a missing or damaged metrics.csv is rebuilt from the checkpoint (the damaged
 * one kept, named by line); checkpoints whose contents do not fit their name, or this run's metrics, or
 * that cannot be opened are set aside and the one before used; and a walk through those states, each
 * resumed twice, losing nothing (best.h5, metrics.csv's rows) and answering with the documented codes.
 * Self-play runs worker threads, hence: */
// ctest-labels: threads
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"
#include "train/rundir.h"
#include "train_util.h"

/* The base run: 4 iterations, a checkpoint after each (4 kept), evaluations after 2 and 4 (best.h5). */
#define BASE_SETS "run.iterations=4 eval.every=2 run.keep_checkpoints=4"

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0)
        fail_msg("command failed: %s", cmd);
}

static void make_run(const char *dir, const char *extra)
{
    cfg_config c;
    tiny(&c, extra);
    train_options o = {.run_dir = dir};
    char err[TRAIN_ERRLEN];
    if (train_run(&c, &o, NULL, err) != TRAIN_OK)
        fail_msg("train_run: %s", err);
}

/* The base run, made once. */
static const char *base_dir(void)
{
    static char base[1024];
    if (!base[0]) {
        snprintf(base, sizeof base, "%s", scratch("resume-base"));
        make_run(base, BASE_SETS);
    }
    return base;
}

/* The base run copied to a fresh scratch directory `name`; returns its path. */
static const char *copy_base(const char *name)
{
    const char *base = base_dir(), *dir = scratch(name);
    sh("cp -r '%s' '%s'", base, dir);
    return dir;
}

/* 1 when a/an and b/bn have the same bytes. */
static int same_file(const char *a, const char *an, const char *b, const char *bn)
{
    char cmd[5000];
    snprintf(cmd, sizeof cmd, "cmp -s '%s/%s' '%s/%s'", a, an, b, bn);
    return system(cmd) == 0;
}

/* 1 when a/name and b/name hold the same net parameters. */
static int same_net(const char *a, const char *b, const char *name)
{
    nn_net *x = load_net(a, name), *y = load_net(b, name);
    int same = same_params(x, y);
    nn_net_free(x);
    nn_net_free(y);
    return same;
}

/* `sowzero train ARGS` with output (stdout and stderr) in *out (caller frees); returns the exit status. */
static int train_cli(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int train_cli(char **out, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return tu_run(out, 1, "train %s", args);
}

static void expect_cli(int want, const char *fragment, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void expect_cli(int want, const char *fragment, const char *fmt, ...)
{
    char args[4096], *out;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    int rc = train_cli(&out, "%s", args);
    if (rc != want || (fragment && !strstr(out, fragment)))
        fail_msg("train %s: exit %d (want %d, '%s'):\n%s", args, rc, want, fragment ? fragment : "", out);
    free(out);
}

/* dir/config.ini keeps base/config.ini's provenance lines (its "source:" and "overrides:") and the same
 * keys and values; a resume adds its own line. */
static void assert_same_config(const char *dir, const char *base)
{
    char *want = strdup(slurp(base, "config.ini"));
    assert_non_null(want);
    const char *have = slurp(dir, "config.ini");
    char *body = strstr(want, "\n\n");
    assert_non_null(body);
    assert_non_null(strstr(have, body));
    *body = 0;
    if (strncmp(have, want, strlen(want)) != 0)
        fail_msg("config.ini lost its provenance:\n%s\nnow:\n%s", want, have);
    assert_non_null(strstr(have, "\n# resumed from "));
    free(want);
}

/* The run's files that must never be lost, unchanged from the base run's. */
static void assert_untouched(const char *dir, const char *base)
{
    assert_true(same_file(dir, "best.h5", base, "best.h5"));
    assert_true(same_file(dir, "metrics.csv", base, "metrics.csv"));
    assert_true(same_file(dir, "config.ini", base, "config.ini"));
}

static void damage_checkpoints(const char *dir)
{
    sh("for f in '%s'/checkpoints/iter-*.h5; do truncate -s 1000 \"$f\"; done", dir);
}

/* Every checkpoint damaged: the first resume sets them aside and refuses, exit 2; the second (a retry, a
 * requeue) refuses too instead of starting over; best.h5, metrics.csv and config.ini stay as they were.
 * The same when the checkpoints were deleted, and when only latest.h5 is left. --restart then moves the files into restart-1/ and trains
 * from iteration 0; it is refused while a checkpoint can be used, and without --resume. */
static void test_trained_without_checkpoint(void **state)
{
    (void)state;
    const char *base = base_dir(), *dir = copy_base("resume-corrupt");
    damage_checkpoints(dir);
    expect_cli(2, "none of its checkpoints can be used", "--resume %s", dir);
    assert_true(file_exists(dir, "checkpoints/iter-000004.h5.corrupt"));
    assert_true(file_exists(dir, "checkpoints/iter-000001.h5.corrupt"));
    expect_cli(2, "--restart", "--resume %s --stop-after 1", dir);
    assert_untouched(dir, base);
    assert_true(file_exists(dir, "latest.h5"));

    const char *gone = copy_base("resume-deleted");
    sh("rm '%s'/checkpoints/iter-*.h5", gone);
    expect_cli(2, "metrics.csv has rows through iteration 4", "--resume %s", gone);
    expect_cli(2, "best.h5", "--resume %s", gone);
    assert_untouched(gone, base);

    /* Only latest.h5 (and the plots) left: nothing dates them, so they are not thrown away either. */
    const char *bare = copy_base("resume-bare");
    sh("rm -f '%s'/checkpoints/iter-*.h5 '%s'/metrics.csv '%s'/best.h5", bare, bare, bare);
    expect_cli(2, "latest.h5 without a metrics.csv", "--resume %s", bare);
    expect_cli(2, "latest.h5 without a metrics.csv", "--resume %s", bare);
    assert_true(same_file(bare, "latest.h5", base, "latest.h5"));
    expect_cli(0, "--restart: starting", "--resume %s --restart --stop-after 1", bare);
    assert_true(same_file(bare, "restart-1/latest.h5", base, "latest.h5"));

    expect_cli(0, "--restart: starting", "--resume %s --restart --stop-after 1", dir);
    assert_true(same_file(dir, "restart-1/best.h5", base, "best.h5"));
    assert_true(same_file(dir, "restart-1/metrics.csv", base, "metrics.csv"));
    assert_true(same_file(dir, "restart-1/config.ini", base, "config.ini"));
    assert_true(file_exists(dir, "restart-1/checkpoints/iter-000004.h5.corrupt"));
    assert_true(file_exists(dir, "checkpoints/iter-000001.h5"));
    assert_int_equal(count_char(slurp(dir, "metrics.csv"), '\n'), 2);
    expect_cli(2, "has a checkpoint to resume from", "--resume %s --restart", dir);
    expect_cli(2, "--restart", "%s/configs/quick.ini --restart", SOWZERO_SOURCE_DIR);
    expect_cli(0, NULL, "--resume %s", dir);
    assert_int_equal(count_char(slurp(dir, "metrics.csv"), '\n'), 5);
}

/* A fresh run into an existing directory that is not a run refuses (exit 2) and creates nothing there; a
 * directory holding only what a killed start leaves (the lock, an empty checkpoints/, *.tmp) is taken. */
static void test_fresh_into_non_run(void **state)
{
    (void)state;
    const char *base = base_dir(), *dir = scratch("resume-nonrun");
    char sets[2048];
    tiny_cli_sets(sets, sizeof sets);
    sh("mkdir -p '%s' && cp '%s/best.h5' '%s/best.h5' && echo data > '%s/metrics.csv'", dir, base, dir, dir);
    expect_cli(2, "is not a run", "%s/configs/quick.ini%s --run-dir %s", SOWZERO_SOURCE_DIR, sets, dir);
    assert_true(same_file(dir, "best.h5", base, "best.h5"));
    assert_string_equal(slurp(dir, "metrics.csv"), "data\n");
    assert_false(file_exists(dir, "lock"));
    struct stat st;
    char ck[1200];
    snprintf(ck, sizeof ck, "%s/checkpoints", dir);
    assert_int_not_equal(stat(ck, &st), 0);
    /* one stray file is enough */
    const char *one = scratch("resume-one");
    sh("mkdir -p '%s' && echo x > '%s/notes.txt'", one, one);
    expect_cli(2, "notes.txt", "%s/configs/quick.ini%s --run-dir %s", SOWZERO_SOURCE_DIR, sets, one);
    /* a killed start's leftovers */
    const char *left = scratch("resume-leftover");
    sh("mkdir -p '%s/checkpoints' && echo 1 > '%s/lock' && echo x > '%s/config.ini.tmp'", left, left, left);
    expect_cli(0, NULL, "%s/configs/quick.ini%s --run-dir %s", SOWZERO_SOURCE_DIR, sets, left);
    assert_true(file_exists(left, "config.ini"));
    /* an empty directory */
    const char *empty = scratch("resume-empty");
    sh("mkdir -p '%s'", empty);
    expect_cli(0, NULL, "%s/configs/quick.ini%s --run-dir %s", SOWZERO_SOURCE_DIR, sets, empty);
}

/* metrics.csv missing, or damaged (its header, a row): the resume rebuilds it from the checkpoint, the same
 * bytes as the run wrote, keeping a damaged one as metrics.csv.corrupt (then .corrupt-2) and naming its
 * first bad line. */
static void test_metrics_rebuilt(void **state)
{
    (void)state;
    const char *base = base_dir(), *dir = copy_base("resume-metrics");
    char *want = strdup(slurp(base, "metrics.csv"));
    assert_non_null(want);
    sh("rm '%s/metrics.csv'", dir);
    expect_cli(0, "rebuilt", "--resume %s", dir);
    assert_string_equal(slurp(dir, "metrics.csv"), want);

    sh("printf 'garbage\\nmore\\n' > '%s/metrics.csv'", dir);
    expect_cli(0, "metrics.csv:1:", "--resume %s", dir);
    assert_string_equal(slurp(dir, "metrics.csv"), want);
    assert_string_equal(slurp(dir, "metrics.csv.corrupt"), "garbage\nmore\n");

    sh("sed -i '4s/.*/3,oops/' '%s/metrics.csv'", dir);
    expect_cli(0, "metrics.csv:4:", "--resume %s", dir);
    assert_string_equal(slurp(dir, "metrics.csv"), want);
    assert_non_null(strstr(slurp(dir, "metrics.csv.corrupt-2"), "3,oops"));
    assert_string_equal(slurp(dir, "metrics.csv.corrupt"), "garbage\nmore\n");

    /* the checkpoint's own row damaged: the checkpoint is still taken for this run's */
    sh("sed -i '5s/,.*/,oops/' '%s/metrics.csv'", dir);
    expect_cli(0, "metrics.csv:5:", "--resume %s", dir);
    assert_string_equal(slurp(dir, "metrics.csv"), want);
    assert_true(file_exists(dir, "metrics.csv.corrupt-3"));
    assert_false(file_exists(dir, "checkpoints/iter-000004.h5.foreign"));

    /* the same through the library, resuming to train further: rows 1..6, no gap */
    sh("rm '%s/metrics.csv'", dir);
    cfg_config c;
    run_config(&c, dir, "run.iterations=6");
    train_options o = {.run_dir = dir, .resume = 1};
    char err[TRAIN_ERRLEN];
    if (train_run(&c, &o, NULL, err) != TRAIN_OK)
        fail_msg("%s", err);
    const char *text = slurp(dir, "metrics.csv");
    assert_true(strncmp(text, want, strlen(want)) == 0);
    assert_int_equal(count_char(text, '\n'), 7);
    free(want);
}

/* Rewrites dir's checkpoint of iteration it as an older build wrote it: without its copy of the metrics
 * rows (the /train item "metrics_rows"). */
static void strip_metrics_rows(const char *dir, int it)
{
    char path[1200], err[NN_ERRLEN];
    snprintf(path, sizeof path, "%s/checkpoints/iter-%06d.h5", dir, it);
    nn_net *net;
    nn_optim *opt;
    nn_ckpt *st, *old = nn_ckpt_create();
    nn_file_info info;
    if (nn_ckpt_load(path, NULL, &net, &opt, &st, &info, err) != NN_OK)
        fail_msg("%s", err);
    int dropped = 0;
    for (int i = 0; nn_ckpt_name(st, i); i++) {
        const char *name = nn_ckpt_name(st, i);
        int64_t v;
        const void *data;
        size_t n;
        if (strcmp(name, "metrics_rows") == 0)
            dropped = 1;
        else if (nn_ckpt_get_i64(st, name, &v) == NN_OK)
            assert_int_equal(nn_ckpt_put_i64(old, name, v), NN_OK);
        else if (nn_ckpt_get_blob(st, name, &data, &n) == NN_OK)
            assert_int_equal(nn_ckpt_put_blob(old, name, data, n), NN_OK);
    }
    assert_true(dropped);
    if (nn_ckpt_save_search(path, net, opt, old, info.rules, info.encoding, info.have_search ? &info.search : NULL,
                            err) != NN_OK)
        fail_msg("%s", err);
    nn_net_free(net), nn_optim_free(opt), nn_ckpt_free(st), nn_ckpt_free(old);
}

/* A checkpoint of an older build holds no copy of the rows: a missing metrics.csv then gets only the
 * checkpoint's own row and the message says which were lost; a damaged one keeps its whole rows. */
static void test_metrics_from_older_checkpoint(void **state)
{
    (void)state;
    const char *base = base_dir(), *dir = copy_base("resume-older");
    strip_metrics_rows(dir, 4);
    sh("rm '%s/metrics.csv'", dir);
    expect_cli(0, "the rows of 3 of the iterations 1..3 are lost", "--resume %s", dir);
    const char *text = slurp(dir, "metrics.csv");
    assert_int_equal(count_char(text, '\n'), 2);
    assert_non_null(strstr(text, "\n4,"));

    dir = copy_base("resume-older-damaged");
    strip_metrics_rows(dir, 4);
    sh("sed -i 3d '%s/metrics.csv'", dir); /* row 2 gone */
    expect_cli(0, "the rows of 1 of the iterations 1..3 are lost", "--resume %s", dir);
    char *want = strdup(slurp(base, "metrics.csv"));
    assert_non_null(want);
    char *row2 = strstr(want, "\n2,") + 1;
    memmove(row2, strchr(row2, '\n') + 1, strlen(strchr(row2, '\n') + 1) + 1);
    assert_string_equal(slurp(dir, "metrics.csv"), want);
    assert_true(file_exists(dir, "metrics.csv.corrupt"));
    free(want);
}

/* Checkpoints that are not what their names say: another run's iteration-6 checkpoint as iter-000004.h5,
 * another run's iteration-4 one under its own name (its metrics row differs), iteration 2 as
 * iter-999999.h5 (which rotation took for the newest), a link to itself: each is set aside (*.foreign,
 * *.unreadable), the one before used, metrics.csv left without gaps and the real checkpoints kept. */
static void test_foreign_checkpoints(void **state)
{
    (void)state;
    const char *other = scratch("resume-other");
    make_run(other, BASE_SETS " run.iterations=6 run.seed=7");
    char *out;
    const char *dir = copy_base("resume-foreign6");
    sh("cp '%s/checkpoints/iter-000006.h5' '%s/checkpoints/iter-000004.h5'", other, dir);
    assert_int_equal(train_cli(&out, "--resume %s --set run.iterations=6", dir), 0);
    assert_non_null(strstr(out, "holds iteration 6, not the 4"));
    assert_non_null(strstr(out, "iter-000003.h5 (iteration 3"));
    free(out);
    assert_true(file_exists(dir, "checkpoints/iter-000004.h5.foreign"));
    const char *text = slurp(dir, "metrics.csv");
    assert_int_equal(count_char(text, '\n'), 7);
    for (int it = 1; it <= 6; it++) {
        char row[16];
        snprintf(row, sizeof row, "\n%d,", it);
        assert_non_null(strstr(text, row));
    }

    dir = copy_base("resume-foreign4");
    sh("cp '%s/checkpoints/iter-000004.h5' '%s/checkpoints/iter-000004.h5'", other, dir);
    assert_int_equal(train_cli(&out, "--resume %s", dir), 0);
    assert_non_null(strstr(out, "not this run's checkpoint"));
    free(out);
    assert_true(file_exists(dir, "checkpoints/iter-000004.h5.foreign"));
    /* iteration 4 was trained again: rows 1..3 as they were, then 4 (its timings differ) */
    char *want = strdup(slurp(base_dir(), "metrics.csv"));
    assert_non_null(want);
    *(strstr(want, "\n4,") + 1) = 0;
    assert_true(strncmp(slurp(dir, "metrics.csv"), want, strlen(want)) == 0);
    assert_int_equal(count_char(slurp(dir, "metrics.csv"), '\n'), 5);
    free(want);

    dir = copy_base("resume-999999");
    sh("cp '%s/checkpoints/iter-000002.h5' '%s/checkpoints/iter-999999.h5'", dir, dir);
    assert_int_equal(train_cli(&out, "--resume %s --set run.iterations=6", dir), 0);
    assert_non_null(strstr(out, "holds iteration 2, not the 999999"));
    free(out);
    assert_true(file_exists(dir, "checkpoints/iter-999999.h5.foreign"));
    for (int it = 3; it <= 6; it++) { /* keep_checkpoints = 4: the newest real ones */
        char name[64];
        snprintf(name, sizeof name, "checkpoints/iter-%06d.h5", it);
        assert_true(file_exists(dir, name));
    }
    assert_int_equal(count_char(slurp(dir, "metrics.csv"), '\n'), 7);

    dir = copy_base("resume-loop");
    sh("ln -s iter-000009.h5 '%s/checkpoints/iter-000009.h5'", dir);
    assert_int_equal(train_cli(&out, "--resume %s --set run.iterations=5", dir), 0);
    assert_non_null(strstr(out, "iter-000009.h5.unreadable"));
    free(out);
    assert_int_equal(count_char(slurp(dir, "metrics.csv"), '\n'), 6);
}

/* The states a run directory can be left in, each resumed twice: nothing of best.h5 or metrics.csv's rows is
 * ever lost, and the exit codes say what happened (2: refused, nothing changed; 0: resumed). */
static void test_resume_walk(void **state)
{
    (void)state;
    const char *base = base_dir(), *other = scratch("walk-other");
    make_run(other, BASE_SETS " run.seed=11");
    static const struct {
        const char *name, *setup; /* setup: a shell command with %1$s = the run, %2$s = the other run */
        int rc;                   /* both resumes' exit status */
        int corrupt;              /* metrics.csv is set aside as damaged */
    } states[] = {
        {"corrupt", "for f in %1$s/checkpoints/iter-*.h5; do truncate -s 1000 $f; done", 2, 0},
        {"deleted", "rm %1$s/checkpoints/iter-*.h5", 2, 0},
        {"foreign", "cp %2$s/checkpoints/iter-*.h5 %1$s/checkpoints/", 2, 0},
        {"no-metrics", "rm %1$s/metrics.csv", 0, 0},
        {"bad-metrics", "head -c 300 /dev/urandom > %1$s/metrics.csv", 0, 1},
        /* the last row (of the checkpoint's iteration, written again from it) cut: a kill's leftover */
        {"torn-row", "truncate -s -20 %1$s/metrics.csv", 0, 0},
        /* rows the checkpoint covers cut off */
        {"cut-metrics", "truncate -s 400 %1$s/metrics.csv", 0, 1},
        {"lost-rows", "sed -i 3d %1$s/metrics.csv", 0, 1},
    };
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        char name[64], cmd[4096];
        snprintf(name, sizeof name, "walk-%s", states[i].name);
        const char *dir = copy_base(name);
        snprintf(cmd, sizeof cmd, states[i].setup, dir, other);
        sh("%s", cmd);
        for (int k = 0; k < 2; k++) {
            char *out;
            int rc = train_cli(&out, "--resume %s", dir);
            if (rc != states[i].rc)
                fail_msg("%s, resume %d: exit %d, not %d:\n%s", states[i].name, k + 1, rc, states[i].rc, out);
            free(out);
            /* refused: not a byte changed; resumed: best.h5 is written again from the checkpoint, the same net */
            if (states[i].rc == 2 ? !same_file(dir, "best.h5", base, "best.h5") : !same_net(dir, base, "best.h5"))
                fail_msg("%s, resume %d: best.h5 changed", states[i].name, k + 1);
            if (!same_file(dir, "metrics.csv", base, "metrics.csv"))
                fail_msg("%s, resume %d: metrics.csv changed", states[i].name, k + 1);
            if (states[i].rc == 2)
                assert_true(same_file(dir, "config.ini", base, "config.ini"));
            else
                assert_same_config(dir, base);
        }
        if (states[i].rc == 2) { /* and once started again on purpose, the old files are all still there */
            expect_cli(0, NULL, "--resume %s --restart", dir);
            assert_true(same_file(dir, "restart-1/best.h5", base, "best.h5"));
            assert_true(same_file(dir, "restart-1/metrics.csv", base, "metrics.csv"));
            assert_int_equal(count_char(slurp(dir, "metrics.csv"), '\n'), 5);
        } else {
            assert_int_equal(file_exists(dir, "metrics.csv.corrupt"), states[i].corrupt);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trained_without_checkpoint),
        cmocka_unit_test(test_fresh_into_non_run),
        cmocka_unit_test(test_metrics_rebuilt),
        cmocka_unit_test(test_metrics_from_older_checkpoint),
        cmocka_unit_test(test_foreign_checkpoints),
        cmocka_unit_test(test_resume_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
