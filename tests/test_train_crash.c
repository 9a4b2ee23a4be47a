/* test_train_crash.c — `sowzero train` killed with SIGKILL again and again: 24 kills, from a
 * seeded schedule, some at random moments and some the moment a *.tmp file appears (a checkpoint, latest.h5,
 * best.h5, a plot or config.ini being written), each followed by `train --resume`. After every kill all
 * checkpoints and nets read back and metrics.csv holds rows 1..k with no gap or duplicate; at the end the
 * run is complete, no *.tmp is left, and latest.h5, best.h5 and the deterministic metrics columns equal
 * those of the same run never interrupted (two self-play threads: training is deterministic). A run that
 * completes before 24 kills is followed by a fresh one, so the count does not depend on the machine's speed.
 * Slow but bounded: ~20 s on 2 cores, a few times that under ASan. */
// ctest-labels: threads slow
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"
#include "train_util.h"

enum { KILLS = 24, ITERATIONS = 40 };   /* ITERATIONS = run.iterations below */

/* The run: two self-play threads, a checkpoint every 2 iterations (so kills also fall between them), an
 * evaluation every 4 (new bests force checkpoints and best.h5 writes), plots at every checkpoint. */
static const char *const crash_sets[] = {
    "run.iterations=40", "selfplay.threads=2", "selfplay.games=8", "selfplay.games_per_thread=4",
    "train.replay_window=20000", "eval.opponents=random", "eval.games=2", "eval.every=4",
    "run.checkpoint_every=2", "run.keep_checkpoints=2",
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t next_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Starts `sowzero train` on dir: fresh (the tiny config, then crash_sets) or --resume; output to log. */
static pid_t start(const char *dir, int fresh, const char *log)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid)
        return pid;
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    char *argv[80];
    int k = 0;
    static char cfgpath[1024];
    argv[k++] = "sowzero";
    argv[k++] = "train";
    if (fresh) {
        snprintf(cfgpath, sizeof cfgpath, "%s/configs/quick.ini", SOWZERO_SOURCE_DIR);
        argv[k++] = cfgpath;
        for (size_t i = 0; i < sizeof tiny_sets / sizeof tiny_sets[0]; i++)
            argv[k++] = "--set", argv[k++] = (char *)tiny_sets[i];
        for (size_t i = 0; i < sizeof crash_sets / sizeof crash_sets[0]; i++)
            argv[k++] = "--set", argv[k++] = (char *)crash_sets[i];
        argv[k++] = "--run-dir";
    } else {
        argv[k++] = "--resume";
    }
    argv[k++] = (char *)dir;
    argv[k] = NULL;
    execv(SOWZERO_BIN, argv);
    _exit(127);
}

/* Names ending in ".tmp" in dir whose name contains `part` ("" for any); 0 when dir is missing. */
static int count_tmp(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        n += len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0 && strstr(e->d_name, part) != NULL;
    }
    closedir(d);
    return n;
}

/* Every checkpoint in dir/checkpoints loads whole; latest.h5 and best.h5, where present, load. */
static void check_files(const char *dir)
{
    char ck[1200], path[2400], err[NN_ERRLEN];
    snprintf(ck, sizeof ck, "%s/checkpoints", dir);
    DIR *d = opendir(ck);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len < 4 || strcmp(e->d_name + len - 3, ".h5") != 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", ck, e->d_name);
            nn_net *net;
            nn_optim *opt;
            nn_ckpt *st;
            if (nn_ckpt_load(path, NULL, &net, &opt, &st, NULL, err) != NN_OK)
                fail_msg("%s does not load: %s", path, err);
            nn_net_free(net), nn_optim_free(opt), nn_ckpt_free(st);
        }
        closedir(d);
    }
    const char *nets[] = {"latest.h5", "best.h5"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, nets[i]);
        if (access(path, F_OK) != 0)
            continue;
        nn_net *net;
        if (nn_load(path, NULL, &net, NULL, err) != NN_OK)
            fail_msg("%s does not load: %s", path, err);
        nn_net_free(net);
    }
}

/* The rows of metrics.csv are iterations 1..n in order; returns n (0 without the file). */
static int metrics_rows(const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    if (access(path, F_OK) != 0)
        return 0;
    char *text = slurp(dir, "metrics.csv"), *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    if (!line)
        return 0;   /* killed between creating the file and its header */
    assert_true(strncmp(line, "iteration,", 10) == 0);
    int k = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL)
        if (atoi(line) != ++k)
            fail_msg("metrics.csv: row %d is iteration %d (a gap or a duplicate)", k, atoi(line));
    return k;
}

/* metrics.csv without its timing columns (selfplay_pos_per_s .. eval_s and elapsed_s), into a new string. */
static char *deterministic_columns(const char *dir)
{
    char *text = slurp(dir, "metrics.csv"), *out = malloc(strlen(text) + 1), *o = out;
    assert_non_null(out);
    /* elapsed_s's column, counted in the header (the accuracy columns follow it) */
    const char *at = strstr(text, ",elapsed_s,");
    assert_non_null(at);
    int elapsed = 1;
    for (const char *p = text; p < at; p++)
        elapsed += *p == ',';
    int col = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            *o++ = '\n';
            col = 0;
            continue;
        }
        if ((col < 11 || col > 14) && col != elapsed)
            *o++ = *p;
        col += *p == ',';
    }
    *o = 0;
    return out;
}

static int wait_exit(pid_t pid, double timeout_s)
{
    int st = 0;
    double t0 = now();
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (now() - t0 > timeout_s)
            fail_msg("sowzero train did not finish in %.0f s", timeout_s);
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return st;
}

/* Kills and resumes one run in dir until it completes; adds its kills to *kills (and *at_tmp, *left_tmp).
 * Each restart is killed at a random moment within 1.5 iterations, or the moment a *.tmp of a drawn kind
 * appears (by 6 iterations at the latest); once *kills reaches KILLS the run is left to complete. */
static void kill_until_done(const char *dir, double per_it, uint64_t *rng, int *kills, int *at_tmp,
                            int *left_tmp, const char *log)
{
    static const char *const kinds[] = {"iter-", "latest.h5", "best.h5", ".png", "config.ini", ""};
    char ck[1200], cfg[1200];
    snprintf(ck, sizeof ck, "%s/checkpoints", dir);
    snprintf(cfg, sizeof cfg, "%s/config.ini", dir);
    for (int done = 0; !done;) {
        int st = 0;
        pid_t pid = start(dir, access(cfg, F_OK) != 0, log);
        if (*kills >= KILLS) {
            st = wait_exit(pid, 600);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                fail_msg("the last resume failed (%d); log:\n%s", st, slurp(SOWZERO_TMP, strrchr(log, '/') + 1));
            break;
        }
        int mode = (int)(next_rand(rng) % 3);
        double until = now() + (mode == 0 ? (double)(next_rand(rng) % 1000) / 1000.0 * 1.5 * per_it : 6 * per_it);
        const char *kind = kinds[next_rand(rng) % (sizeof kinds / sizeof kinds[0])];
        /* mode 0: a random moment; otherwise the first moment a *.tmp of that kind exists (or the deadline) */
        while (now() < until && waitpid(pid, &st, WNOHANG) == 0) {
            if (mode && (count_tmp(dir, kind) || count_tmp(ck, kind))) {
                (*at_tmp)++;
                break;
            }
            struct timespec ts = {0, 100 * 1000};
            nanosleep(&ts, NULL);
        }
        if (kill(pid, SIGKILL) == 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st)) {
            (*kills)++;
        } else {
            done = 1;   /* it finished before the kill */
            assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        /* A gnuplot the killed run started lives on (our orphan, see main) and may still write its *.tmp:
         * wait for it, as a machine is quiet again before someone resumes. */
        while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
            ;
        *left_tmp += count_tmp(dir, "") + count_tmp(ck, "") > 0;
        check_files(dir);
        metrics_rows(dir);
    }
}

/* The killed run's end state: complete, no *.tmp, and the same as the uninterrupted run's. */
static void check_complete(const char *dir, const char *ref)
{
    char ck[1200];
    snprintf(ck, sizeof ck, "%s/checkpoints", dir);
    check_files(dir);
    assert_int_equal(metrics_rows(dir), ITERATIONS);
    assert_int_equal(count_tmp(dir, ""), 0);
    assert_int_equal(count_tmp(ck, ""), 0);
    char *a = deterministic_columns(ref), *b = deterministic_columns(dir);
    assert_string_equal(a, b);
    free(a), free(b);
    const char *nets[] = {"latest.h5", "best.h5"};
    for (int i = 0; i < 2; i++) {
        nn_net *x = load_net(ref, nets[i]), *y = load_net(dir, nets[i]);
        if (!same_params(x, y))
            fail_msg("%s differs from the uninterrupted run's", nets[i]);
        nn_net_free(x), nn_net_free(y);
    }
}

static void test_kill_and_resume(void **state)
{
    (void)state;
    const char *ref = scratch("crash-ref");
    char log[1200];
    snprintf(log, sizeof log, "%s/train-crash.log", SOWZERO_TMP);
    unlink(log);

    /* The same run, never interrupted: the expected files and the pace of an iteration. */
    double t0 = now();
    int st = wait_exit(start(ref, 1, log), 600);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    double per_it = (now() - t0) / ITERATIONS;

    /* The pace of a loaded machine changes while the test runs: a run that completes before KILLS kills is
     * checked and followed by another, so the count of kills never depends on the machine's speed. */
    uint64_t rng = 20261201;
    int kills = 0, left_tmp = 0, at_tmp = 0, runs = 0;
    while (kills < KILLS) {
        if (++runs > 8)
            fail_msg("only %d kills in 8 runs", kills);
        char name[32];
        snprintf(name, sizeof name, "crash-%d", runs);
        const char *dir = scratch(name);
        kill_until_done(dir, per_it, &rng, &kills, &at_tmp, &left_tmp, log);
        check_complete(dir, ref);
    }
    print_message("%d kills over %d runs (%d the moment a *.tmp appeared), %d left *.tmp files behind\n", kills,
                  runs, at_tmp, left_tmp);
}

int main(void)
{
    /* Orphans of the killed runs (their gnuplot) become our children, so that they can be waited for. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kill_and_resume),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
