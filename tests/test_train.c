/* test_train.c — the training loop (train/train.h) and `sowzero train`: a one-iteration run checks every
 * output file, a run stopped after 2 iterations and resumed for 2 more ends bit-identical to 4 straight
 * iterations, SIGINT saves and exits 0, a diverging run stops with the last good checkpoint kept, and the
 * command's errors and the missing-gnuplot path. Self-play runs worker threads, hence: */
// ctest-labels: threads
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "nn/h5io.h"
#include "test_util.h"
#include "train_util.h"

static void test_one_iteration_outputs(void **state)
{
    (void)state;
    cfg_config c;
    tiny(&c, NULL);
    const char *dir = scratch("one");
    train_options o = {.run_dir = dir};
    train_summary sum;
    char err[TRAIN_ERRLEN];
    int rc = train_run(&c, &o, &sum, err);
    if (rc != TRAIN_OK)
        fail_msg("train_run: %d %s", rc, err);
    assert_string_equal(sum.run_dir, dir);
    assert_int_equal(sum.iterations, 1);
    assert_int_equal(sum.games, 6);
    assert_true(sum.samples > 6 * 10);
    assert_int_equal(sum.steps, 4);
    assert_true(sum.have_eval);
    assert_int_equal(sum.n_opponents, 2);
    for (int k = 0; k < 2; k++) {
        const train_eval_result *r = &sum.eval[k];
        assert_int_equal(r->games, 4);
        assert_int_equal(r->wins + r->draws + r->losses, 4);
        assert_int_equal(r->seat_games[0], 2);
        assert_int_equal(r->seat_games[1], 2);
        assert_true(r->score >= 0 && r->score <= 1);
    }

    /* config.ini: the effective config, loadable, equal to what ran */
    char path[2400], cerr[CFG_ERRLEN];
    snprintf(path, sizeof path, "%s/config.ini", dir);
    cfg_config back;
    cfg_defaults(&back);
    if (cfg_load(&back, path, cerr) || cfg_finish(&back, cerr))
        fail_msg("%s", cerr);
    assert_int_equal(back.net.hidden[0], 16);
    assert_int_equal(back.selfplay.games, 6);
    assert_string_equal(back.eval.opponents[1], "ab:depth=1");
    assert_true(back.run.seed == c.run.seed);

    /* metrics.csv: header + one row, every row as wide as the header */
    char *csv = slurp(dir, "metrics.csv");
    assert_int_equal(count_char(csv, '\n'), 2);
    char *row = strchr(csv, '\n') + 1;
    *strchr(row, '\n') = 0;
    int header_commas = 0;
    for (char *p = csv; p < row - 1; p++)
        header_commas += *p == ',';
    assert_int_equal(count_char(row, ','), header_commas);
    assert_non_null(strstr(csv, "iteration,games,samples,replay,steps,loss,loss_policy,loss_value,loss_margin,"
                                "loss_l2,lr,selfplay_pos_per_s"));
    assert_non_null(strstr(csv, "score_greedy,south_greedy,north_greedy,score_ab_depth_1,south_ab_depth_1,"
                                "north_ab_depth_1,elapsed_s"));
    assert_int_equal(strncmp(row, "1,6,", 4), 0);
    assert_non_null(strstr(csv, ",elapsed_s,accuracy_raw,regret_raw,accuracy_search,regret_search\n"));
    size_t row_len = strlen(row);
    assert_string_equal(row + row_len - 4, ",,,,"); /* no eval.positions: the accuracy cells stay empty */
    row[row_len - 4] = 0;
    assert_null(strstr(row, ",,"));  /* losses and evaluation present */

    /* checkpoint with the trainer's state */
    assert_true(file_exists(dir, "checkpoints/iter-000001.h5"));
    snprintf(path, sizeof path, "%s/checkpoints/iter-000001.h5", dir);
    nn_net *net = NULL;
    nn_optim *opt = NULL;
    nn_ckpt *st = NULL;
    char nerr[NN_ERRLEN];
    if (nn_ckpt_load(path, NULL, &net, &opt, &st, NULL, nerr) != NN_OK)
        fail_msg("%s", nerr);
    int64_t v;
    assert_int_equal(nn_ckpt_get_i64(st, "iteration", &v), NN_OK);
    assert_int_equal(v, 1);
    assert_int_equal(nn_ckpt_get_i64(st, "step", &v), NN_OK);
    assert_int_equal(v, 4);
    assert_int_equal(nn_optim_steps(opt), 4);
    const void *blob;
    size_t n;
    assert_int_equal(nn_ckpt_get_blob(st, "replay", &blob, &n), NN_OK);
    assert_true(n > 1000);
    assert_int_equal(nn_ckpt_get_blob(st, "rng", &blob, &n), NN_OK);
    assert_int_equal(n, 32);

    /* latest.h5 = the checkpoint's net; best.h5 exists (the only evaluation is the best) */
    nn_net *latest = load_net(dir, "latest.h5"), *best = load_net(dir, "best.h5");
    assert_int_equal(nn_param_count(latest), nn_param_count(net));
    assert_memory_equal(nn_params(latest), nn_params(net), nn_param_count(net) * sizeof(float));
    assert_memory_equal(nn_params(best), nn_params(net), nn_param_count(net) * sizeof(float));
    nn_net_free(latest);
    nn_net_free(best);
    nn_net_free(net);
    nn_optim_free(opt);
    nn_ckpt_free(st);

    /* plots, when gnuplot is installed (the missing case is tested through the command below) */
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        const char *pngs[] = {"loss.png", "eval.png"};
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, pngs[i]);
            FILE *f = fopen(path, "rb");
            if (!f)
                fail_msg("missing %s", path);
            unsigned char head[8];
            assert_int_equal(fread(head, 1, 8, f), 8);
            fclose(f);
            assert_memory_equal(head, png, 8);
        }
    }

    /* the same directory cannot start a second run */
    rc = train_run(&c, &o, NULL, err);
    assert_int_equal(rc, TRAIN_EINVAL);
    assert_non_null(strstr(err, "--resume"));
}

/* 2 iterations, stop, resume 2 more == 4 straight: same weights bit for bit, same metrics rows. */
/* A run of 4 iterations, and the same run stopped after 2 and resumed, end bit-identical (extra: more
 * --set keys; the scratch directories' names start with tag). */
static void resume_equivalence(const char *extra, const char *tag)
{
    cfg_config c;
    char sets[512], n1[64], n2[64];
    /* a replay window smaller than the games played, so the restored window matters; eval off (speed) */
    snprintf(sets, sizeof sets, "run.iterations=4 train.replay_window=400 train.min_replay=50 eval.opponents= "
             "run.checkpoint_every=3 %s", extra);
    tiny(&c, sets);
    snprintf(n1, sizeof n1, "%sstraight", tag);
    snprintf(n2, sizeof n2, "%ssplit", tag);
    const char *straight = scratch(n1), *split = scratch(n2);
    char err[TRAIN_ERRLEN];
    train_options o = {.run_dir = straight};
    int rc = train_run(&c, &o, NULL, err);
    if (rc != TRAIN_OK)
        fail_msg("%s", err);

    train_options o1 = {.run_dir = split, .stop_after = 2};
    train_summary sum;
    rc = train_run(&c, &o1, &sum, err);
    assert_int_equal(rc, TRAIN_STOPPED);
    assert_int_equal(sum.iterations, 2);
    assert_true(file_exists(split, "checkpoints/iter-000002.h5"));
    assert_false(file_exists(split, "checkpoints/iter-000003.h5"));

    /* resume from the run directory's own config, as `sowzero train --resume` does */
    char path[2400], cerr[CFG_ERRLEN];
    snprintf(path, sizeof path, "%s/config.ini", split);
    cfg_config r;
    cfg_defaults(&r);
    if (cfg_load(&r, path, cerr) || cfg_finish(&r, cerr))
        fail_msg("%s", cerr);
    train_options o2 = {.run_dir = split, .resume = 1};
    rc = train_run(&r, &o2, &sum, err);
    if (rc != TRAIN_OK)
        fail_msg("resume: %s", err);
    assert_int_equal(sum.iterations, 4);

    nn_net *a = load_net(straight, "latest.h5"), *b = load_net(split, "latest.h5");
    assert_int_equal(nn_param_count(a), nn_param_count(b));
    assert_memory_equal(nn_params(a), nn_params(b), nn_param_count(a) * sizeof(float));
    nn_net_free(a);
    nn_net_free(b);

    /* metrics: identical up to the timing columns (selfplay_pos_per_s onwards) */
    static char ma[1 << 16];
    snprintf(ma, sizeof ma, "%s", slurp(straight, "metrics.csv"));
    char *mb = slurp(split, "metrics.csv");
    assert_int_equal(count_char(ma, '\n'), 5);
    assert_int_equal(count_char(mb, '\n'), 5);
    char *sa = NULL, *sb = NULL;
    char *la = strtok_r(ma, "\n", &sa), *lb = strtok_r(mb, "\n", &sb);
    for (; la && lb; la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb)) {
        int commas = 0;
        size_t i = 0;
        while (la[i] && la[i] == lb[i] && commas < 11)
            commas += la[i++] == ',';
        if (commas < 11)
            fail_msg("metrics differ:\n%s\n%s", la, lb);
    }

    /* a finished run resumed again has nothing left to do */
    rc = train_run(&r, &o2, &sum, err);
    assert_int_equal(rc, TRAIN_OK);
    assert_int_equal(sum.iterations, 4);
}

static void test_resume_equivalence(void **state)
{
    (void)state;
    resume_equivalence("", "");
}

/* train.overlap: the next iteration's round is played beside each SGD phase and joins the buffer before
 * the checkpoint, so a stopped and resumed run still ends bit-identical to a straight one. */
static void test_overlap_resume_equivalence(void **state)
{
    (void)state;
    resume_equivalence("train.overlap=1", "overlap-");
}

static int no_selfplay(void *ud, const char *dir, const nn_net *net, int64_t it, replay_buffer *rb,
                       selfplay_stats *st, char *err)
{
    (void)ud, (void)dir, (void)net, (void)it, (void)rb, (void)st;
    snprintf(err, MCTS_ERRLEN, "not called");
    return MCTS_EINVAL;
}

/* train.overlap plays its rounds one iteration ahead: after iteration 1 the buffer holds rounds 1 and 2
 * (twice the games of the sequential loop), after the last one no round is left in flight; the trained
 * nets differ from the sequential loop's (their games are one iteration older). Under an outside
 * self-play (mpirun) it is refused before anything runs. */
static void test_overlap_rounds(void **state)
{
    (void)state;
    cfg_config c;
    tiny(&c, "run.iterations=2 eval.opponents= train.overlap=1");
    char err[TRAIN_ERRLEN];
    train_summary sum;
    const char *dir = scratch("overlap-rounds"), *seq = scratch("overlap-sequential");
    train_options o = {.run_dir = dir, .stop_after = 1};
    assert_int_equal(train_run(&c, &o, &sum, err), TRAIN_STOPPED);
    assert_int_equal(sum.games, 2 * c.selfplay.games);
    train_options o2 = {.run_dir = dir, .resume = 1};
    if (train_run(&c, &o2, &sum, err) != TRAIN_OK)
        fail_msg("%s", err);
    assert_int_equal(sum.games, 2 * c.selfplay.games); /* the last iteration plays no next round */
    cfg_config q;
    tiny(&q, "run.iterations=2 eval.opponents=");
    train_options o3 = {.run_dir = seq};
    if (train_run(&q, &o3, &sum, err) != TRAIN_OK)
        fail_msg("%s", err);
    nn_net *a = load_net(dir, "latest.h5"), *b = load_net(seq, "latest.h5");
    assert_true(memcmp(nn_params(a), nn_params(b), nn_param_count(a) * sizeof(float)) != 0);
    nn_net_free(a);
    nn_net_free(b);
    const char *mpi_dir = scratch("overlap-mpi");
    train_options o4 = {.run_dir = mpi_dir, .selfplay = no_selfplay};
    assert_int_equal(train_run(&c, &o4, NULL, err), TRAIN_EINVAL);
    assert_non_null(strstr(err, "train.overlap"));
    assert_false(file_exists(mpi_dir, "config.ini")); /* nothing written */
}

/* A learning rate that blows up: iteration 1 (no SGD yet: below min_replay) is checkpointed, iteration 2
 * diverges; the run stops with TRAIN_EDIVERGED naming the last good checkpoint, and nothing of iteration 2
 * is on disk. */
static void test_divergence(void **state)
{
    (void)state;
    cfg_config c;
    tiny(&c, "run.iterations=4 train.optimizer=sgd train.lr=10 train.momentum=0.99 train.policy_weight=1000 "
             "train.margin_weight=1000 train.steps_per_iteration=50 train.min_replay=450 eval.opponents=");
    const char *dir = scratch("nan");
    train_options o = {.run_dir = dir};
    char err[TRAIN_ERRLEN];
    int rc = train_run(&c, &o, NULL, err);
    assert_int_equal(rc, TRAIN_EDIVERGED);
    assert_non_null(strstr(err, "diverged"));
    assert_non_null(strstr(err, "iteration 2"));
    assert_non_null(strstr(err, "iter-000001.h5"));
    assert_true(file_exists(dir, "checkpoints/iter-000001.h5"));
    assert_false(file_exists(dir, "checkpoints/iter-000002.h5"));
    assert_int_equal(count_char(slurp(dir, "metrics.csv"), '\n'), 2);

    /* the command exits non-zero with the message */
    const char *dir2 = scratch("nan-cmd");
    char sets[2048] = "";
    size_t len = 0;
    for (size_t i = 0; i < sizeof tiny_sets / sizeof tiny_sets[0]; i++)
        len += (size_t)snprintf(sets + len, sizeof sets - len, " --set '%s'", tiny_sets[i]);
    char *out;
    int rc2 = tu_run(&out, 1, "train %s/configs/quick.ini %s --set run.iterations=4 --set train.optimizer=sgd "
                     "--set train.lr=10 --set train.momentum=0.99 --set train.policy_weight=1000 --set "
                     "train.margin_weight=1000 --set train.steps_per_iteration=50 --set train.min_replay=450 "
                     "--set eval.opponents= --run-dir %s", SOWZERO_SOURCE_DIR, sets, dir2);
    assert_int_equal(rc2, 1);
    assert_non_null(strstr(out, "sowzero train: training diverged"));
    assert_non_null(strstr(out, "last good checkpoint"));
    free(out);
}

/* The command: usage errors exit 2 naming the problem; a run without gnuplot on PATH warns once and still
 * writes the CSV. */
static void test_command(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 0, "train --help"), 0);
    assert_non_null(strstr(out, "--resume"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "train"), 2);
    assert_non_null(strstr(out, "missing CONFIG"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "train %s/no-such.ini", SOWZERO_TMP), 2);
    assert_non_null(strstr(out, "no-such.ini: cannot open"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "train %s/configs/quick.ini --set mcts.simz=3", SOWZERO_SOURCE_DIR), 2);
    assert_non_null(strstr(out, "--set mcts.simz=3"));
    free(out);

    const char *dir = scratch("nognuplot");
    char sets[2048] = "";
    size_t len = 0;
    for (size_t i = 0; i < sizeof tiny_sets / sizeof tiny_sets[0]; i++)
        len += (size_t)snprintf(sets + len, sizeof sets - len, " --set '%s'", tiny_sets[i]);
    /* PATH without gnuplot (the binary is started by its full path) */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "env PATH=/nonexistent '%s' train '%s/configs/quick.ini' %s --run-dir '%s' 2>&1",
             SOWZERO_BIN, SOWZERO_SOURCE_DIR, sets, dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, p);
    text[n] = 0;
    int st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("train failed:\n%s", text);
    assert_non_null(strstr(text, "gnuplot not found"));
    assert_null(strstr(strstr(text, "gnuplot not found") + 1, "gnuplot not found"));  /* once */
    assert_non_null(strstr(text, "as South"));
    assert_true(file_exists(dir, "metrics.csv"));
    assert_false(file_exists(dir, "loss.png"));
}

/* SIGINT: the command finishes the iteration, writes a checkpoint, exits 0; --resume continues. */
static void test_sigint(void **state)
{
    (void)state;
    const char *dir = scratch("sigint");
    char log[1200];
    snprintf(log, sizeof log, "%s.log", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        char *argv[64];
        int k = 0;
        argv[k++] = "sowzero";
        argv[k++] = "train";
        static char cfgpath[1024];
        snprintf(cfgpath, sizeof cfgpath, "%s/configs/quick.ini", SOWZERO_SOURCE_DIR);
        argv[k++] = cfgpath;
        for (size_t i = 0; i < sizeof tiny_sets / sizeof tiny_sets[0]; i++) {
            argv[k++] = "--set";
            argv[k++] = (char *)tiny_sets[i];
        }
        argv[k++] = "--set";
        argv[k++] = "run.iterations=100000";
        argv[k++] = "--set";
        argv[k++] = "run.checkpoint_every=1000";
        argv[k++] = "--run-dir";
        argv[k++] = (char *)dir;
        argv[k] = NULL;
        execv(SOWZERO_BIN, argv);
        _exit(127);
    }
    /* wait until the run has finished an iteration (a metrics row exists), then interrupt it */
    char metrics[1200];
    snprintf(metrics, sizeof metrics, "%s/metrics.csv", dir);
    int rows = 0;
    for (int i = 0; i < 6000 && rows < 2; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        FILE *f = fopen(metrics, "r");
        if (f) {
            int ch;
            rows = 0;
            while ((ch = fgetc(f)) != EOF)
                rows += ch == '\n';
            fclose(f);
        }
    }
    assert_int_equal(kill(pid, SIGINT), 0);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("exit status %d; log:\n%s", st, slurp(SOWZERO_TMP, strrchr(log, '/') + 1));
    char *text = slurp(SOWZERO_TMP, strrchr(log, '/') + 1);
    assert_non_null(strstr(text, "stopping after this iteration"));
    assert_non_null(strstr(text, "continue with --resume"));
    int found = 0;
    char path[2400];
    for (int it = 1; it < 1000 && !found; it++) {
        snprintf(path, sizeof path, "checkpoints/iter-%06d.h5", it);
        found = file_exists(dir, path) ? it : 0;
    }
    assert_true(found >= 1);

    char *out;
    int rc = tu_run(&out, 1, "train --resume %s --set run.iterations=%d", dir, found + 1);
    if (rc != 0)
        fail_msg("resume failed:\n%s", out);
    assert_non_null(strstr(out, "resuming"));
    free(out);
    snprintf(path, sizeof path, "checkpoints/iter-%06d.h5", found + 1);
    assert_true(file_exists(dir, path));
}

#define FIXTURE SOWZERO_SOURCE_DIR "/tests/data/kalah-4-3.positions.jsonl"

/* eval.positions: each evaluation measures the raw policy's and the search's accuracy on the set (as the
 * accuracy command does), and best.h5 is the net with the best search accuracy, ties to the lower regret.
 * A set of other rules, a missing file, or a básico run are refused with the key's origin. */
static void test_accuracy_evaluation(void **state)
{
    (void)state;
    cfg_config c;
    tiny(&c, "rules.pits=4 rules.seeds=3 run.iterations=3 eval.opponents= eval.positions=" FIXTURE);
    const char *dir = scratch("accuracy");
    train_options o = {.run_dir = dir};
    train_summary sum;
    char err[TRAIN_ERRLEN];
    int rc = train_run(&c, &o, &sum, err);
    if (rc != TRAIN_OK)
        fail_msg("train_run: %d %s", rc, err);
    assert_true(sum.have_accuracy);
    char csv[1 << 16];
    snprintf(csv, sizeof csv, "%s", slurp(dir, "metrics.csv"));
    assert_int_equal(count_char(csv, '\n'), 4);
    int best = 0;
    double best_m = -1;
    for (int it = 1; it <= 3; it++) {
        double a = csv_cell(csv, it, "accuracy_search"), r = csv_cell(csv, it, "regret_search");
        double ar = csv_cell(csv, it, "accuracy_raw"), rr = csv_cell(csv, it, "regret_raw");
        assert_true(a >= 0 && a <= 1 && ar >= 0 && ar <= 1 && r >= 0 && rr >= 0);
        /* accuracy in steps of 1/40 (the fixture's 40 positions) */
        assert_true(fabs(a * 40 - round(a * 40)) < 1e-4 && fabs(ar * 40 - round(ar * 40)) < 1e-4);
        double m = a - 1e-8 * r;
        if (m > best_m) {
            best_m = m;
            best = it;
        }
    }
    assert_int_equal(sum.best_iteration, best);
    /* The raw policy's figures are what `sowzero accuracy` reports for latest.h5 (the last iteration; the raw
     * policy's argmax uses no randomness, so the seed does not matter). */
    char *out;
    assert_int_equal(tu_run(&out, 0, "accuracy 'az:net=%s/latest.h5,sims=0' --positions '%s' --threads 2 --json",
                            dir, FIXTURE), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_true(fabs(cJSON_GetObjectItem(j, "optimal_rate")->valuedouble - csv_cell(csv, 3, "accuracy_raw")) < 1e-6);
    assert_true(fabs(cJSON_GetObjectItem(j, "mean_regret")->valuedouble - csv_cell(csv, 3, "regret_raw")) < 1e-6);
    cJSON_Delete(j);
    free(out);
    /* best.h5 is the checkpoint of the best iteration (iterations 2 and 3 are kept) */
    if (best >= 2) {
        char name[64];
        snprintf(name, sizeof name, "checkpoints/iter-%06d.h5", best);
        nn_net *b = load_net(dir, "best.h5"), *k = load_net(dir, name);
        assert_memory_equal(nn_params(b), nn_params(k), nn_param_count(k) * sizeof(float));
        nn_net_free(b);
        nn_net_free(k);
    }
    if (system("command -v gnuplot >/dev/null 2>&1") == 0)
        assert_true(file_exists(dir, "accuracy.png") && file_exists(dir, "accuracy-time.png"));
    /* sowzero metrics: one point per evaluation, the cells of metrics.csv, minutes from elapsed_s */
    assert_int_equal(tu_run(&out, 0, "metrics '%s' --json", dir), 0);
    j = cJSON_Parse(out);
    cJSON *pts = cJSON_GetObjectItem(j, "points");
    assert_int_equal(cJSON_GetArraySize(pts), 3);
    for (int it = 1; it <= 3; it++) {
        cJSON *p = cJSON_GetArrayItem(pts, it - 1);
        assert_int_equal(cJSON_GetObjectItem(p, "iteration")->valueint, it);
        assert_true(fabs(cJSON_GetObjectItem(p, "accuracy_search")->valuedouble - csv_cell(csv, it, "accuracy_search")) < 1e-9);
        assert_true(fabs(cJSON_GetObjectItem(p, "regret_raw")->valuedouble - csv_cell(csv, it, "regret_raw")) < 1e-9);
        assert_true(fabs(cJSON_GetObjectItem(p, "minutes")->valuedouble * 60 - csv_cell(csv, it, "elapsed_s")) < 1e-6);
    }
    cJSON_Delete(j);
    free(out);

    /* refused: a set of other rules (Kalah(6,4) run), a missing file — before any run directory exists */
    const char *bad = scratch("accuracy-bad");
    tiny(&c, "eval.positions=" FIXTURE);
    o.run_dir = bad;
    assert_int_equal(train_run(&c, &o, NULL, err), TRAIN_EINVAL);
    if (!strstr(err, "--set eval.positions") || !strstr(err, "not of the run's rules"))
        fail_msg("%s", err);
    assert_false(file_exists(bad, "config.ini"));
    struct stat st;
    assert_int_not_equal(stat(bad, &st), 0);
    char ini[1200];
    snprintf(ini, sizeof ini, "%s/train-accuracy-missing.ini", SOWZERO_TMP);
    FILE *f = fopen(ini, "w");
    assert_non_null(f);
    fprintf(f, "[run]\niterations = 1\n\n[eval]\npositions = %s/no-such.positions.jsonl\n", SOWZERO_TMP);
    fclose(f);
    cfg_config m;
    char cerr[CFG_ERRLEN], want[1300];
    cfg_defaults(&m);
    assert_int_equal(cfg_load(&m, ini, cerr), 0);
    assert_int_equal(cfg_finish(&m, cerr), 0);
    assert_int_equal(train_run(&m, &o, NULL, err), TRAIN_EINVAL);
    snprintf(want, sizeof want, "%s:5: eval.positions: ", ini);
    if (strncmp(err, want, strlen(want)) || !strstr(err, "cannot open"))
        fail_msg("got '%s', want '%s...cannot open'", err, want);
    cfg_defaults(&m);
    assert_int_equal(cfg_set(&m, "run.iterations=1", cerr), 0);
    assert_int_equal(cfg_set(&m, "rules.game=basico", cerr), 0);
    assert_int_equal(cfg_set(&m, "eval.games=30", cerr), 0);
    assert_int_equal(cfg_set(&m, "eval.positions=" FIXTURE, cerr), 0);
    assert_int_equal(cfg_finish(&m, cerr), -1);
    if (!strstr(cerr, "eval.positions needs a two-player game with a final margin"))
        fail_msg("%s", cerr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_iteration_outputs),
        cmocka_unit_test(test_resume_equivalence),
        cmocka_unit_test(test_overlap_resume_equivalence),
        cmocka_unit_test(test_overlap_rounds),
        cmocka_unit_test(test_divergence),
        cmocka_unit_test(test_command),
        cmocka_unit_test(test_sigint),
        cmocka_unit_test(test_accuracy_evaluation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
