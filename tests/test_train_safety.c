/* test_train_safety.c — the run directory's crash safety: the lock, a rejected --set that changes
 * nothing, empty and unusable run directories, default directories started in one second, a run with no
 * checkpoint restarting, evaluations owed by a stop played on resume (accuracy on [eval] positions too),
 * best.h5 tied to the checkpoint, damaged checkpoints set aside, --checkpoint FILE, *.tmp leftovers, and
 * the progress bar's width.
 * Self-play runs worker threads, hence: */
// ctest-labels: threads
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"
#include "train/progress.h"
#include "train/rundir.h"
#include "train_util.h"

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[2400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A copy of dir/name's bytes (caller frees). */
static char *copy_of(const char *dir, const char *name)
{
    char *s = strdup(slurp(dir, name));
    assert_non_null(s);
    return s;
}

/* A run of `iterations` tiny iterations (eval off unless extra says otherwise), stopped after stop (0: none). */
static void make_run(const char *dir, const char *extra, int stop)
{
    cfg_config c;
    tiny(&c, extra);
    train_options o = {.run_dir = dir, .stop_after = stop};
    char err[TRAIN_ERRLEN];
    int rc = train_run(&c, &o, NULL, err);
    if (rc != (stop ? TRAIN_STOPPED : TRAIN_OK))
        fail_msg("train_run %d: %s", rc, err);
}

/* Resumes dir with its config plus extra; returns the code, err filled. */
static int resume(const char *dir, const char *extra, const char *checkpoint, train_summary *sum, char *err)
{
    cfg_config c;
    run_config(&c, dir, extra);
    train_options o = {.run_dir = dir, .resume = 1, .checkpoint = checkpoint};
    return train_run(&c, &o, sum, err);
}

/* metrics.csv holds exactly the rows 1..n, in order. */
static void assert_rows(const char *dir, int n)
{
    char *text = slurp(dir, "metrics.csv"), *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    assert_non_null(line);
    assert_true(strncmp(line, "iteration,", 10) == 0);
    int k = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        k++;
        if (atoi(line) != k)
            fail_msg("metrics.csv row %d is iteration %d", k, atoi(line));
    }
    assert_int_equal(k, n);
}

/* Cell `col` (0-based) of metrics.csv's row of iteration `it` (a static copy; "" when empty). */
static const char *metrics_cell(const char *dir, int it, int col)
{
    static char cell[64];
    char *text = slurp(dir, "metrics.csv"), *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (atoi(line) != it || strncmp(line, "iteration", 9) == 0)
            continue;
        const char *p = line;
        for (int k = 0; k < col && p; k++)
            p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
        if (!p)
            fail_msg("row %d has no column %d", it, col);
        size_t n = strcspn(p, ",");
        snprintf(cell, sizeof cell, "%.*s", (int)(n < sizeof cell ? n : sizeof cell - 1), p);
        return cell;
    }
    fail_msg("no row %d in metrics.csv", it);
    return "";
}

/* Another process holds the lock: train refuses, naming it; once it is gone (its flock released by the
 * kernel, its pid still in the file) training goes on. */
static void test_lock(void **state)
{
    (void)state;
    const char *dir = scratch("lock");
    make_run(dir, "run.iterations=3 eval.opponents=", 1);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        long holder;
        char err[256];
        int fd = train_lock(dir, &holder, err, sizeof err);
        char ok = fd >= 0 ? 'y' : 'n';
        if (write(ready[1], &ok, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char ok = 0;
    assert_int_equal(read(ready[0], &ok, 1), 1);
    assert_int_equal(ok, 'y');
    char err[TRAIN_ERRLEN], want[64];
    assert_int_equal(resume(dir, NULL, NULL, NULL, err), TRAIN_EINVAL);
    snprintf(want, sizeof want, "in use by process %ld", (long)pid);
    if (!strstr(err, want))
        fail_msg("%s", err);
    char *out;
    assert_int_equal(tu_run(&out, 1, "train --resume %s", dir), 2);
    assert_non_null(strstr(out, want));
    free(out);
    assert_rows(dir, 1);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(ready[0]);
    close(ready[1]);
    train_summary sum;
    if (resume(dir, NULL, NULL, &sum, err) != TRAIN_OK)
        fail_msg("after the holder died: %s", err);
    assert_int_equal(sum.iterations, 3);
    assert_rows(dir, 3);
}

/* A --set the run cannot take (other evaluation opponents than its metrics columns) exits 2 and leaves
 * config.ini and metrics.csv as they were; a plain --resume still works. */
static void test_rejected_set(void **state)
{
    (void)state;
    const char *dir = scratch("rejected");
    make_run(dir, "run.iterations=2 eval.every=0", 1);
    char *cfg = copy_of(dir, "config.ini"), *metrics = copy_of(dir, "metrics.csv");
    char *out;
    assert_int_equal(tu_run(&out, 1, "train --resume %s --set eval.opponents=random", dir), 2);
    assert_non_null(strstr(out, "other columns"));
    free(out);
    assert_string_equal(slurp(dir, "config.ini"), cfg);
    assert_string_equal(slurp(dir, "metrics.csv"), metrics);
    assert_int_equal(tu_run(&out, 1, "train --resume %s", dir), 0);
    free(out);
    assert_rows(dir, 2);
    free(cfg);
    free(metrics);
}

/* "" and a path that cannot be created are errors (TRAIN_EINVAL: exit 2), never the file system root. */
static void test_bad_run_dirs(void **state)
{
    (void)state;
    cfg_config c;
    tiny(&c, NULL);
    char err[TRAIN_ERRLEN];
    train_options o = {.run_dir = ""};
    assert_int_equal(train_run(&c, &o, NULL, err), TRAIN_EINVAL);
    assert_non_null(strstr(err, "empty"));
    const char *file = scratch("a-file");
    write_file(SOWZERO_TMP, strrchr(file, '/') + 1, "not a directory\n");
    char below[1200];
    snprintf(below, sizeof below, "%s/run", file);
    o.run_dir = below;
    assert_int_equal(train_run(&c, &o, NULL, err), TRAIN_EINVAL);
    assert_non_null(strstr(err, "cannot create directory"));
    char *out;
    assert_int_equal(tu_run(&out, 1, "train %s/configs/quick.ini --run-dir ''", SOWZERO_SOURCE_DIR), 2);
    assert_non_null(strstr(out, "empty"));
    free(out);
}

/* Two runs started in the same second get two directories. */
static void test_default_dirs(void **state)
{
    (void)state;
    const char *parent = scratch("defaults");
    char a[1200], b[1200], err[256];
    time_t t = 1700000000;
    assert_non_null(train_create_default_run_dir(a, sizeof a, parent, "quick", t, err, sizeof err));
    assert_non_null(train_create_default_run_dir(b, sizeof b, parent, "quick", t, err, sizeof err));
    assert_string_not_equal(a, b);
    assert_true(strncmp(a, b, strlen(a)) == 0 && strcmp(b + strlen(a), "-2") == 0);
    /* and through train_run, twice within a second or not: distinct run directories */
    cfg_config c;
    char set[1300];
    snprintf(set, sizeof set, "run.dir=%s run.name=x eval.opponents=", parent);
    tiny(&c, set);
    train_summary s1, s2;
    train_options o = {0};
    assert_int_equal(train_run(&c, &o, &s1, err), TRAIN_OK);
    assert_int_equal(train_run(&c, &o, &s2, err), TRAIN_OK);
    assert_string_not_equal(s1.run_dir, s2.run_dir);
}

/* A run that diverged before its first checkpoint starts again from iteration 0 on --resume (here with a
 * learning rate that works); a fresh train on it is refused with a hint. */
static void test_restart_without_checkpoint(void **state)
{
    (void)state;
    const char *dir = scratch("nockpt");
    cfg_config c;
    tiny(&c, "run.iterations=3 train.optimizer=sgd train.lr=10 train.momentum=0.99 train.policy_weight=1000 "
             "train.margin_weight=1000 train.steps_per_iteration=50 train.min_replay=100 eval.opponents= "
             "run.checkpoint_every=3");
    train_options o = {.run_dir = dir};
    char err[TRAIN_ERRLEN];
    assert_int_equal(train_run(&c, &o, NULL, err), TRAIN_EDIVERGED);
    assert_false(file_exists(dir, "checkpoints/iter-000001.h5"));
    assert_int_equal(train_run(&c, &o, NULL, err), TRAIN_EINVAL);
    assert_non_null(strstr(err, "--resume"));
    char *out;
    int rc = tu_run(&out, 1, "train --resume %s --set train.lr=0.001 --set train.momentum=0.9 --set "
                    "train.policy_weight=1 --set train.margin_weight=0.1", dir);
    if (rc != 0)
        fail_msg("%s", out);
    assert_non_null(strstr(out, "starting it again from iteration 0"));
    free(out);
    assert_true(file_exists(dir, "checkpoints/iter-000003.h5"));
    assert_rows(dir, 3);
}

/* Stopped in the last iteration (the final evaluation skipped): the resume plays it, its row gets the
 * scores, the final table is in the summary; resumed again, the finished run still reports it. And a
 * stop in a mid-run evaluation iteration is made up too. */
static void test_owed_evaluation(void **state)
{
    (void)state;
    const char *dir = scratch("owed");
    make_run(dir, "run.iterations=3 eval.every=2", 2);
    assert_int_equal(count_char(slurp(dir, "metrics.csv"), '\n'), 3);
    assert_false(file_exists(dir, "best.h5"));
    char err[TRAIN_ERRLEN];
    train_summary sum;
    train_options o;
    cfg_config c;
    run_config(&c, dir, NULL);
    o = (train_options){.run_dir = dir, .resume = 1, .stop_after = 3};
    assert_int_equal(train_run(&c, &o, &sum, err), TRAIN_STOPPED);
    assert_rows(dir, 3);
    /* row 2: evaluated on resume (its first score cell, column 16, filled); row 3 not (stopped) */
    assert_true(strlen(metrics_cell(dir, 2, 15)) > 0);
    assert_int_equal(strlen(metrics_cell(dir, 3, 15)), 0);
    assert_true(file_exists(dir, "best.h5"));
    assert_int_equal(sum.have_eval, 1);
    assert_int_equal(sum.eval_iteration, 2);
    /* the final evaluation was skipped by the stop: owed */
    if (resume(dir, NULL, NULL, &sum, err) != TRAIN_OK)
        fail_msg("%s", err);
    assert_int_equal(sum.have_eval, 1);
    assert_int_equal(sum.eval_iteration, 3);
    assert_int_equal(sum.eval[0].games, 4);
    assert_rows(dir, 3);
    char *out;
    assert_int_equal(tu_run(&out, 0, "train --resume %s", dir), 0);
    assert_non_null(strstr(out, "evaluation after iteration 3"));
    assert_non_null(strstr(out, "best.h5: iteration"));
    free(out);
}

/* [eval] positions without opponents: an evaluation owed by a stop measures the accuracy on resume (its
 * metrics cells filled), best.h5 is chosen by the accuracy and written from the checkpoint, and the
 * resumed run ends as an uninterrupted one does: the same accuracy cells, best iteration and best.h5. A
 * finished run resumed reports the last accuracy from its checkpoint. Columns without opponents: 15
 * elapsed_s, then 16-19 accuracy_raw, regret_raw, accuracy_search, regret_search. */
static void test_owed_accuracy(void **state)
{
    (void)state;
    const char *sets = "rules.pits=4 rules.seeds=3 run.iterations=3 eval.every=2 eval.opponents= "
                       "eval.positions=" SOWZERO_SOURCE_DIR "/tests/data/kalah-4-3.positions.jsonl";
    const char *whole = scratch("acc-whole"), *dir = scratch("acc-owed");
    cfg_config c;
    tiny(&c, sets);
    train_options o = {.run_dir = whole};
    train_summary want, sum;
    char err[TRAIN_ERRLEN];
    if (train_run(&c, &o, &want, err) != TRAIN_OK)
        fail_msg("%s", err);
    assert_true(want.have_accuracy && want.best_iteration >= 2);
    make_run(dir, sets, 2);
    assert_rows(dir, 2);
    assert_int_equal(strlen(metrics_cell(dir, 2, 18)), 0); /* stopped before the evaluation: owed */
    assert_false(file_exists(dir, "best.h5"));
    if (resume(dir, NULL, NULL, &sum, err) != TRAIN_OK)
        fail_msg("%s", err);
    assert_rows(dir, 3);
    for (int it = 1; it <= 3; it++)
        for (int col = 16; col <= 19; col++) {
            char cell[64];
            snprintf(cell, sizeof cell, "%s", metrics_cell(whole, it, col));
            assert_string_equal(metrics_cell(dir, it, col), cell);
            assert_int_equal(strlen(cell) > 0, it >= 2); /* iterations 2 and 3 evaluate */
        }
    assert_true(sum.have_accuracy);
    assert_int_equal(sum.best_iteration, want.best_iteration);
    nn_net *a = load_net(dir, "best.h5"), *b = load_net(whole, "best.h5");
    assert_true(same_params(a, b));
    nn_net_free(a);
    nn_net_free(b);
    if (resume(dir, NULL, NULL, &sum, err) != TRAIN_OK) /* finished: nothing to do, the summary stays */
        fail_msg("%s", err);
    assert_true(sum.have_accuracy);
    assert_int_equal(sum.eval_iteration, 3);
    assert_true(sum.accuracy_search == want.accuracy_search && sum.regret_raw == want.regret_raw);
}

/* best.h5 and latest.h5 come from the checkpoint: files a crash left from abandoned iterations (here
 * replaced by another net) are rewritten on resume, and leftover *.tmp files are deleted. */
static void test_exports_from_checkpoint(void **state)
{
    (void)state;
    const char *dir = scratch("tie"), *other = scratch("tie-other");
    make_run(dir, "run.iterations=2", 0);
    make_run(other, "run.iterations=1 run.seed=99 net.hidden=16,16", 0);
    nn_net *best = load_net(dir, "best.h5"), *latest = load_net(dir, "latest.h5");
    nn_net *alien = load_net(other, "latest.h5");
    assert_false(same_params(best, alien));
    char cmd[5000];
    snprintf(cmd, sizeof cmd, "cp '%s/latest.h5' '%s/best.h5' && cp '%s/latest.h5' '%s/latest.h5'", other, dir,
             other, dir);
    assert_int_equal(system(cmd), 0);
    write_file(dir, "loss.png.tmp", "x");
    write_file(dir, "best.h5.tmp", "x");
    write_file(dir, "checkpoints/iter-000003.h5.tmp", "x");
    char err[TRAIN_ERRLEN];
    if (resume(dir, NULL, NULL, NULL, err) != TRAIN_OK)
        fail_msg("%s", err);
    nn_net *b2 = load_net(dir, "best.h5"), *l2 = load_net(dir, "latest.h5");
    assert_true(same_params(best, b2));
    assert_true(same_params(latest, l2));
    assert_false(file_exists(dir, "loss.png.tmp"));
    assert_false(file_exists(dir, "best.h5.tmp"));
    assert_false(file_exists(dir, "checkpoints/iter-000003.h5.tmp"));
    nn_net_free(best), nn_net_free(latest), nn_net_free(alien), nn_net_free(b2), nn_net_free(l2);
}

/* A damaged newest checkpoint is set aside and the one before it used (the run ends as a straight one);
 * --checkpoint FILE resumes from a chosen one, setting the newer ones aside. */
static void test_checkpoint_choice(void **state)
{
    (void)state;
    const char *straight = scratch("choice-straight"), *dir = scratch("choice");
    make_run(straight, "run.iterations=4 eval.opponents= run.keep_checkpoints=4", 0);
    make_run(dir, "run.iterations=4 eval.opponents= run.keep_checkpoints=4", 3);
    char path[2400];
    snprintf(path, sizeof path, "%s/checkpoints/iter-000003.h5", dir);
    assert_int_equal(truncate(path, 2000), 0);
    char err[TRAIN_ERRLEN];
    train_summary sum;
    if (resume(dir, NULL, NULL, &sum, err) != TRAIN_OK)
        fail_msg("%s", err);
    assert_int_equal(sum.iterations, 4);
    assert_true(file_exists(dir, "checkpoints/iter-000003.h5.corrupt"));
    assert_true(file_exists(dir, "checkpoints/iter-000003.h5"));   /* written again */
    assert_rows(dir, 4);
    nn_net *a = load_net(straight, "latest.h5"), *b = load_net(dir, "latest.h5");
    assert_true(same_params(a, b));
    nn_net_free(b);

    snprintf(path, sizeof path, "%s/checkpoints/iter-000002.h5", dir);
    if (resume(dir, NULL, path, &sum, err) != TRAIN_OK)
        fail_msg("%s", err);
    assert_true(file_exists(dir, "checkpoints/iter-000003.h5.abandoned"));
    assert_true(file_exists(dir, "checkpoints/iter-000004.h5.abandoned"));
    assert_int_equal(sum.iterations, 4);
    assert_rows(dir, 4);
    b = load_net(dir, "latest.h5");
    assert_true(same_params(a, b));
    nn_net_free(a), nn_net_free(b);

    char *out;
    assert_int_equal(tu_run(&out, 1, "train --checkpoint %s", path), 2);
    assert_non_null(strstr(out, "--resume"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "train --resume %s --checkpoint %s/nothing.h5", dir, dir), 2);
    free(out);
    /* another run's checkpoint: refused, and nothing of this run is set aside or rewritten */
    const char *other = scratch("choice-other");
    make_run(other, "run.iterations=4 eval.opponents= run.keep_checkpoints=4 run.seed=7", 0);
    char *before = copy_of(dir, "metrics.csv");
    assert_int_equal(tu_run(&out, 1, "train --resume %s --checkpoint %s/checkpoints/iter-000002.h5", dir, other), 2);
    assert_non_null(strstr(out, "is not a checkpoint of the run"));
    free(out);
    char *after = copy_of(dir, "metrics.csv");
    assert_string_equal(before, after);
    free(before), free(after);
    assert_true(file_exists(dir, "checkpoints/iter-000004.h5")); /* not set aside */
}

/* The bar never reaches the terminal's last column (a wrapped bar repeats itself line after line). */
static void test_progress_width(void **state)
{
    (void)state;
    train_progress_info in = {.iteration = 123456, .iterations = 1000000, .games = 123456789, .have_loss = 1,
                              .loss = 12.345, .pos_per_s = 98765, .have_eval = 1, .eval_score = 0.5,
                              .elapsed_s = 98765, .eta_s = 987654};
    char buf[512];
    for (int cols = 1; cols <= 200; cols++) {
        train_progress_bar(&in, cols, buf, sizeof buf);
        if ((int)strlen(buf) > (cols > 1 ? cols - 1 : 1))
            fail_msg("%d columns: '%s'", cols, buf);
    }
    train_progress_bar(&in, 200, buf, sizeof buf);
    assert_true(buf[0] == '[' && strstr(buf, "] 123456/1000000"));
    train_progress_bar(&in, 40, buf, sizeof buf);
    assert_true(strncmp(buf, "123456/1000000", 14) == 0);   /* no room for the bar: the numbers stay */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lock),
        cmocka_unit_test(test_rejected_set),
        cmocka_unit_test(test_bad_run_dirs),
        cmocka_unit_test(test_default_dirs),
        cmocka_unit_test(test_restart_without_checkpoint),
        cmocka_unit_test(test_owed_evaluation),
        cmocka_unit_test(test_owed_accuracy),
        cmocka_unit_test(test_exports_from_checkpoint),
        cmocka_unit_test(test_checkpoint_choice),
        cmocka_unit_test(test_progress_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
