/* test_match_sprt.c — `match --sprt` (cli/match_sprt.h): the pentanomial GSPRT decides H1 for a clearly
 * stronger A, H0 for a clearly weaker one, nothing within a --games cap; its counts add up, its LLR is
 * eval/sprt.h's on those counts, its Elo and normalized Elo are those of the counts; the same command gives
 * the same test; bad --sprt values are refused. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "env/game.h"
#include "eval/sprt.h"
#include "test_util.h"

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        fail_msg("no number '%s'", key);
    return v->valuedouble;
}

/* Runs the test, checks what every result must satisfy; returns the "sprt" object's verdict and games. */
static void run_sprt(const char *args, double elo0, double elo1, char *verdict, int *games)
{
    char *out;
    assert_int_equal(tu_run(&out, 0, "match %s --threads 2 --json", args), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "sprt");
    assert_non_null(s);
    int pairs[5], n = 0;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "pentanomial");
    assert_int_equal(cJSON_GetArraySize(p), 5);
    double sum = 0;
    for (int k = 0; k < 5; k++) {
        pairs[k] = cJSON_GetArrayItem(p, k)->valueint;
        n += pairs[k];
        sum += pairs[k] * k / 4.0;
    }
    *games = (int)num(s, "games");
    assert_int_equal(2 * n, *games);
    assert_int_equal((int)(num(s, "wins") + num(s, "draws") + num(s, "losses")), *games);
    /* the points of the pairs are the points of the games */
    assert_true(fabs(2 * sum - (num(s, "wins") + num(s, "draws") / 2)) < 1e-9);
    double llr = sprt_llr_pentanomial(pairs, elo0, elo1);
    assert_true(fabs(llr - num(s, "llr")) < 1e-9);
    double score = sum / n, var = 0;
    for (int k = 0; k < 5; k++)
        var += pairs[k] * (k / 4.0 - score) * (k / 4.0 - score);
    var /= n;
    assert_true(fabs(score - num(s, "score")) < 1e-12);
    if (var > 0 && score > 0 && score < 1) {
        assert_true(fabs(num(s, "nelo") - (score - 0.5) / sqrt(2 * var) * 800 / log(10)) < 1e-9);
        assert_true(fabs(num(s, "elo") + 400 * log10(1 / score - 1)) < 1e-9);
        assert_true(num(s, "nelo_lo") < num(s, "nelo") && num(s, "nelo") < num(s, "nelo_hi"));
    }
    snprintf(verdict, 8, "%s", cJSON_GetObjectItemCaseSensitive(s, "result")->valuestring);
    if (!strcmp(verdict, "H1"))
        assert_true(llr >= num(s, "upper"));
    else if (!strcmp(verdict, "H0"))
        assert_true(llr <= num(s, "lower"));
    else
        assert_true(llr > num(s, "lower") && llr < num(s, "upper"));
    cJSON_Delete(j);
    free(out);
}

static void test_decisions(void **state)
{
    (void)state;
    char v[8];
    int games;
    run_sprt("ab:depth=4 greedy --sprt elo0=0,elo1=50", 0, 50, v, &games);
    assert_string_equal(v, "H1");
    assert_true(games < 400);
    run_sprt("greedy ab:depth=4 --sprt elo0=0,elo1=50", 0, 50, v, &games);
    assert_string_equal(v, "H0");
    assert_true(games < 400);
    run_sprt("ab:depth=4 greedy --sprt elo0=0,elo1=5,alpha=0.001,beta=0.001 --games 16", 0, 5, v, &games);
    assert_string_equal(v, "none");
    assert_int_equal(games, 16);
}

static void test_deterministic_and_records(void **state)
{
    (void)state;
    char *a, *b;
    const char *pgn = tu_tmp_path("sprt.pgn");
    unlink(pgn); /* --pgn appends */
    assert_int_equal(tu_run(&a, 0, "match ab:depth=3 greedy --sprt elo0=0,elo1=30 --threads 2 --json --seed 7 "
                                   "--pgn '%s'", pgn), 0);
    assert_int_equal(tu_run(&b, 0, "match ab:depth=3 greedy --sprt elo0=0,elo1=30 --threads 1 --json --seed 7"), 0);
    assert_string_equal(a, b); /* batches are 16 games either way; results do not depend on threads */
    cJSON *j = cJSON_Parse(a);
    int games = (int)num(cJSON_GetObjectItemCaseSensitive(j, "sprt"), "games");
    cJSON_Delete(j);
    free(a);
    free(b);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "elo '%s'", pgn);
    assert_int_equal(tu_run(&a, 1, "%s", cmd), 0);
    char want[64];
    snprintf(want, sizeof want, "%d games from 1 file", games);
    assert_non_null(strstr(a, want));
    free(a);
}

static void test_bad_args(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"greedy random --sprt elo0=5,elo1=0", "elo0 < elo1"},
        {"greedy random --sprt elo1=5", "needs elo0= and elo1="},
        {"greedy random --sprt elo0=0,elo1=5,alpha=0.7", "error rates in (0, 0.5]"},
        {"greedy random --sprt elo0=0,elo1=x", "elo1=x is not a number"},
        {"greedy random --sprt elo0=0,elo1=5,gamma=1", "unknown key 'gamma'"},
        {"greedy random --sprt elo0", "is not key=value"},
        {"greedy random --sprt elo0=0,elo1=5,elo1=6", "elo1 given twice"},
        {"greedy random --sprt elo0=0,,elo1=5", "an empty entry"},
        {"greedy random --rules basico:players=3 --sprt elo0=0,elo1=5", "two-player games only"},
        {"greedy solver --sprt elo0=0,elo1=5", "not with --exact"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out;
        int rc = tu_run(&out, 1, "match %s", bad[i][0]);
        assert_int_equal(rc, 2);
        if (!strstr(out, bad[i][1]))
            fail_msg("match %s: expected '%s' in: %s", bad[i][0], bad[i][1], out);
        free(out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decisions),
        cmocka_unit_test(test_deterministic_and_records),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
