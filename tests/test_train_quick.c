/* test_train_quick.c — the CI smoke test of the example config: `sowzero train configs/quick.ini --run-dir
 * DIR` runs to the end, writes a metrics row per iteration, and its agent beats the random player.
 * Under AddressSanitizer or ThreadSanitizer (several times slower) the same config runs shrunk by --set
 * overrides, so the suite stays a few minutes; the learning check then does not apply. The self-play
 * workers run threads, so the TSan pass runs this too: */
// ctest-labels: threads
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_util.h"
#include "train/config.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static void test_quick_config(void **state)
{
    (void)state;
    char dir[1024], cmd[1200], cfgpath[1024], err[CFG_ERRLEN];
    snprintf(dir, sizeof dir, "%s/train-quick", SOWZERO_TMP);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cfgpath, sizeof cfgpath, "%s/configs/quick.ini", SOWZERO_SOURCE_DIR);

    const char *shrink = SANITIZED ? "--set run.iterations=2 --set selfplay.games=8 --set selfplay.games_per_thread=4 "
                                     "--set train.steps_per_iteration=5 --set train.min_replay=10 --set eval.games=2 "
                                     "--set eval.final_games=2"
                                   : "";
    char *out;
    int rc = tu_run(&out, 1, "train '%s' --run-dir '%s' %s", cfgpath, dir, shrink);
    if (rc != 0)
        fail_msg("sowzero train configs/quick.ini: exit %d\n%s", rc, out);

    cfg_config c;
    cfg_defaults(&c);
    if (cfg_load(&c, cfgpath, err) || cfg_finish(&c, err))
        fail_msg("%s", err);
    int64_t iterations = SANITIZED ? 2 : c.run.iterations;

    /* one metrics row per iteration */
    char path[1200];
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int lines = 0, ch;
    while ((ch = fgetc(f)) != EOF)
        lines += ch == '\n';
    fclose(f);
    assert_int_equal(lines, iterations + 1);

    /* the final table: every opponent with both seats */
    for (int k = 0; k < c.eval.n_opponents; k++)
        assert_non_null(strstr(out, c.eval.opponents[k]));
    assert_non_null(strstr(out, "as South"));
    if (!SANITIZED) {
        /* quick.ini evaluates against random first: a working loop (signs, targets, search) wins clearly */
        assert_string_equal(c.eval.opponents[0], "random");
        const char *row = strstr(out, "\nrandom ");
        assert_non_null(row);
        int games;
        double score;
        assert_int_equal(sscanf(row, " random %d %lf", &games, &score), 2);
        if (score < 0.7)
            fail_msg("quick.ini's agent scored only %.3f against random:\n%s", score, out);
    }
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quick_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
