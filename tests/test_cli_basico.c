/* test_cli_basico.c — `sowzero match` and `sowzero tournament` with --rules basico:..., through the
 * built binary: JSON keys and their consistency, records, and usage errors (exit 2 with a message). */
// ctest-labels: threads
#include "test_util.h"

#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>

static cJSON *run_json(const char *args)
{
    char *out = NULL;
    int rc = tu_run(&out, 0, "%s", args);
    if (rc != 0)
        fail_msg("sowzero %s: exit %d, output %s", args, rc, out ? out : "");
    cJSON *o = cJSON_Parse(out);
    if (!o)
        fail_msg("sowzero %s: not JSON: %s", args, out);
    free(out);
    return o;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        fail_msg("key '%s' missing or not a number", key);
    return v->valuedouble;
}

static void test_match_three_players(void **state)
{
    (void)state;
    cJSON *o = run_json("match --rules basico:players=3,pits=4 maxn:depth=2 greedy random --games 12 --threads 2 "
                        "--json");
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(o, "rules");
    assert_true(cJSON_IsString(rules));
    assert_string_equal(rules->valuestring, "basico:players=3,pits=4,seeds=4,full_ranking=1");
    assert_int_equal((int)num(o, "games"), 12);
    assert_int_equal((int)num(o, "group"), 6);
    assert_null(cJSON_GetObjectItemCaseSensitive(o, "wins")); /* no duel keys for 3 players */
    const cJSON *agents = cJSON_GetObjectItemCaseSensitive(o, "agents");
    assert_int_equal(cJSON_GetArraySize(agents), 3);
    const char *specs[3] = {"maxn:depth=2", "greedy", "random"};
    double place_sum = 0, firsts = 0;
    for (int i = 0; i < 3; i++) {
        const cJSON *a = cJSON_GetArrayItem(agents, i);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(a, "spec")->valuestring, specs[i]);
        assert_int_equal((int)num(a, "games"), 12);
        double mp = num(a, "mean_place");
        assert_true(mp >= 1 && mp <= 3);
        assert_float_equal(num(a, "mean_score"), (3 - mp) / 2, 1e-9);
        place_sum += mp * 12;
        firsts += num(a, "firsts");
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(a, "per_seat");
        assert_int_equal(cJSON_GetArraySize(ps), 3);
        double seat_mean = 0;
        for (int s = 0; s < 3; s++)
            seat_mean += cJSON_GetArrayItem(ps, s)->valuedouble / 3;
        assert_float_equal(seat_mean, mp, 1e-9); /* 4 games in each seat */
    }
    assert_float_equal(place_sum, 12 * 6, 1e-6); /* finishing order: places 1+2+3 each game */
    assert_float_equal(firsts, 12, 0);
    cJSON_Delete(o);
}

static void test_match_two_players(void **state)
{
    (void)state;
    cJSON *o = run_json("match --rules basico:players=2 greedy random --games 10 --threads 2 --seed 3 --json");
    const char *keys[] = {"a", "b", "wins", "draws", "losses", "score", "score_lo", "score_hi", "elo", "per_seat",
                          "agents", "rules"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!cJSON_GetObjectItemCaseSensitive(o, keys[i]))
            fail_msg("key '%s' missing", keys[i]);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "a")->valuestring, "greedy");
    assert_int_equal((int)(num(o, "wins") + num(o, "draws") + num(o, "losses")), 10);
    double score = num(o, "score");
    assert_true(num(o, "score_lo") <= score && score <= num(o, "score_hi"));
    const cJSON *seats = cJSON_GetObjectItemCaseSensitive(o, "per_seat"); /* two players: as Kalah's */
    int w = (int)num(cJSON_GetObjectItemCaseSensitive(seats, "south"), "wins") +
            (int)num(cJSON_GetObjectItemCaseSensitive(seats, "north"), "wins");
    assert_int_equal(w, (int)num(o, "wins"));
    const cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "agents"), 0);
    assert_int_equal((int)num(a, "firsts"), (int)num(o, "wins"));
    cJSON_Delete(o);
}

static void test_match_field_and_records(void **state)
{
    (void)state;
    char path[600];
    mkdir(SOWZERO_TMP, 0777);
    snprintf(path, sizeof path, "%s/test_cli_basico_records.txt", SOWZERO_TMP);
    unlink(path); /* --records appends */
    char args[900];
    snprintf(args, sizeof args,
             "match --rules=basico:players=4,pits=4,full_ranking=0 paranoid:depth=2 random --games 8 --threads 2 "
             "--records '%s' --json", path);
    cJSON *o = run_json(args);
    const cJSON *agents = cJSON_GetObjectItemCaseSensitive(o, "agents");
    assert_int_equal(cJSON_GetArraySize(agents), 2);
    assert_int_equal((int)num(cJSON_GetArrayItem(agents, 0), "seats"), 8);
    assert_int_equal((int)num(cJSON_GetArrayItem(agents, 1), "seats"), 24);
    assert_int_equal((int)num(o, "group"), 4);
    cJSON_Delete(o);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[8192];
    int n = 0, seen = 0;
    int results = 0; /* --records is --pgn's older name: eval/record.h records, one per game, as they end */
    while (fgets(line, sizeof line, f)) {
        int round;
        if (sscanf(line, "[Round \"%d\"]", &round) == 1 && round >= 1 && round <= 8 && !(seen & 1 << round)) {
            seen |= 1 << round;
            n++;
        }
        results += !strncmp(line, "[Result \"", 9);
        if (!strncmp(line, "[Rules ", 7))
            assert_string_equal(line, "[Rules \"basico:players=4,pits=4,seeds=4,full_ranking=0\"]\n");
    }
    fclose(f);
    assert_int_equal(n, 8);
    assert_int_equal(results, 8);
}

static void test_tournaments(void **state)
{
    (void)state;
    cJSON *o = run_json("tournament --rules basico:players=2 --agent g=greedy --agent r=random --agent m=maxn:depth=2 "
                        "--games 6 --threads 2 --json");
    const cJSON *ratings = cJSON_GetObjectItemCaseSensitive(o, "ratings");
    assert_int_equal(cJSON_GetArraySize(ratings), 3);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "anchor")->valuestring, "g");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "pairs")), 3);
    assert_int_equal((int)num(o, "games"), 18);
    for (int i = 0; i < 3; i++) {
        const cJSON *e = cJSON_GetArrayItem(ratings, i);
        assert_int_equal((int)num(e, "games"), 12);
        num(e, "elo");
        num(e, "lo");
        num(e, "hi");
    }
    cJSON_Delete(o);

    o = run_json("tournament --rules basico:players=3,pits=4 --agent g=greedy --agent r=random --agent m=maxn:depth=1 "
                 "--agent p=paranoid:depth=1 --games 6 --threads 2 --json");
    const cJSON *agents = cJSON_GetObjectItemCaseSensitive(o, "agents");
    assert_int_equal(cJSON_GetArraySize(agents), 4);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "combinations")), 4);
    assert_int_equal((int)num(o, "games"), 24);
    double place_sum = 0, prev = 0;
    int firsts = 0;
    for (int i = 0; i < 4; i++) {
        const cJSON *a = cJSON_GetArrayItem(agents, i);
        assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(a, "name")));
        assert_int_equal((int)num(a, "games"), 18); /* 3 of the 4 combinations, 6 games each */
        double mp = num(a, "mean_place");
        assert_true(mp >= prev); /* best first */
        prev = mp;
        place_sum += mp * 18;
        firsts += (int)num(a, "firsts");
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a, "per_seat")), 3);
    }
    assert_float_equal(place_sum, 24 * 6, 1e-6);
    assert_int_equal(firsts, 24);
    cJSON_Delete(o);
}

static void expect_usage_error(const char *args, const char *want)
{
    char *out = NULL;
    int rc = tu_run(&out, 1, "%s", args);
    if (rc != 2 || !strstr(out, want))
        fail_msg("sowzero %s: exit %d, output '%s' (wanted exit 2 and '%s')", args, rc, out, want);
    free(out);
}

static void test_usage_errors(void **state)
{
    (void)state;
    expect_usage_error("match --rules basico:players=5 random greedy", "sowzero match: --rules 'basico:players=5'");
    expect_usage_error("match --rules basico:players=3,pits=5 random greedy", "--rules 'basico:players=3,pits=5'");
    expect_usage_error("match --rules basico:players=3,pits=4 foo random greedy", "unknown kind 'foo'");
    expect_usage_error("match --rules basico:players=3,pits=4 ab:depth=3 random", "ab is for two-player games");
    expect_usage_error("match --rules basico:players=3,pits=4 alphabeta random", "unknown kind 'alphabeta' for basico");
    expect_usage_error("match --rules basico:players=3,pits=4 maxn:dept=2 random",
                       "unknown key 'dept' for maxn (keys: depth, seed)");
    expect_usage_error("match --rules basico:players=4,pits=4 random greedy random",
                       "needs 4 agent specs (one per seat) or 2");
    expect_usage_error("match --rules basico random greedy --games 0", "--games: '0'");
    expect_usage_error("tournament --rules basico:players=3,pits=4 --agent random --agent greedy",
                       "needs at least 3 agents for 3 players");
    expect_usage_error("tournament --rules basico:players=3,pits=4 --agent a=random --agent b=greedy --agent c=maxn "
                       "--anchor a=0", "--anchor");
    expect_usage_error("tournament --rules basico:players=2 --agent a=random --agent b=foo", "--agent b: ");
    char *out = NULL;
    assert_int_equal(tu_run(&out, 0, "match --rules basico --help"), 0);
    assert_non_null(strstr(out, "Mancala basico"));
    free(out);
    assert_int_equal(tu_run(&out, 0, "tournament --rules basico --help"), 0);
    assert_non_null(strstr(out, "Mancala basico"));
    free(out);
    /* Kalah's per-seat tally, the same object for every two-player game. */
    assert_int_equal(tu_run(&out, 0, "match greedy random --games 2 --json"), 0);
    assert_non_null(strstr(out, "\"per_seat\":{\"south\""));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_three_players),
        cmocka_unit_test(test_match_two_players),
        cmocka_unit_test(test_match_field_and_records),
        cmocka_unit_test(test_tournaments),
        cmocka_unit_test(test_usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
