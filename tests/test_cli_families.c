/* test_cli_families.c — the command-line presence of Congklak and Oware: `solve` (eval/game_search.h)
 * against the oracle, `bench env` through the game interface, and their errors (exit status 2, a message
 * naming the problem). */
// ctest-labels: threads
#include "tests/test_util.h"

#include <cjson/cJSON.h>

static cJSON *run_json(const char *args)
{
    char *out;
    int rc = tu_run(&out, 0, "%s --json", args);
    if (rc != 0)
        fail_msg("sowzero %s: exit status %d", args, rc);
    cJSON *o = cJSON_Parse(out);
    if (!o)
        fail_msg("sowzero %s: not one JSON object: %s", args, out);
    free(out);
    return o;
}

/* Tables of 16 MiB: the default 256 MiB takes seconds to touch under the sanitizers, per command. */
static void test_solve(void **state)
{
    (void)state;
    /* Two lines of families-solved.txt, one per game. */
    cJSON *o = run_json("solve --tt-mb 16 --rules congklak:pits=4,seeds=3,capture=none,end=mover-empty,max_sows=8");
    assert_int_equal((int)cJSON_GetObjectItem(o, "value")->valuedouble, 20);
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(o, "best")) >= 1);
    assert_string_equal(cJSON_GetObjectItem(o, "position")->valuestring, "3,3,3,3,0,3,3,3,3,0 S");
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(o, "over")));
    cJSON_Delete(o);
    o = run_json("solve --tt-mb 16 --rules oware:pits=3,seeds=2,grand_slam=capture,max_sows=20");
    assert_int_equal((int)cJSON_GetObjectItem(o, "value")->valuedouble, 4);
    assert_string_equal(cJSON_GetObjectItem(o, "rules")->valuestring,
                        "oware:pits=3,seeds=2,grand_slam=capture,max_sows=20");
    cJSON_Delete(o);
    /* A finished position: its margin for the side token, no best move. */
    o = run_json("solve --tt-mb 16 --rules oware --position '0,0,0,0,0,1,20,0,0,0,0,0,0,27 S'");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "over")));
    assert_int_equal((int)cJSON_GetObjectItem(o, "value")->valuedouble, -7);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "best")), 0);
    cJSON_Delete(o);

    char *out;
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules congklak:pits=9"), 2);
    assert_non_null(strstr(out, "pits"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules oware --position '4,4,4,4,4,4,0,4,4,4,4,4,4,1 S'"), 2);
    assert_non_null(strstr(out, "49 seeds"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules congklak --endgame 4"), 2);
    assert_non_null(strstr(out, "endgame"));
    free(out);
    /* Rules the solver cannot end are bad input, refused before any search, saying why. */
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules oware:pits=2,seeds=1,max_sows=0"), 2);
    assert_non_null(strstr(out, "cycles"));
    assert_non_null(strstr(out, "max_sows > 0"));
    free(out);
    /* --threads builds only Kalah's endgame database: refused for the other games, naming the game. */
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules congklak:pits=4,seeds=3 --threads 2"), 2);
    assert_non_null(strstr(out, "--threads 2: the congklak solver runs on one thread"));
    free(out);
    /* Kalah's search uses them with or without a database: the same value and best moves as one thread. */
    char *one = NULL;
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules kalah:pits=4,seeds=4 --threads 2 --endgame 0 --json"), 0);
    assert_int_equal(tu_run(&one, 1, "solve --tt-mb 16 --rules kalah:pits=4,seeds=4 --threads 1 --endgame 0 --json"), 0);
    assert_int_equal(strstr(out, ",\"nodes\"") - out, strstr(one, ",\"nodes\"") - one);
    assert_memory_equal(out, one, (size_t)(strstr(one, ",\"nodes\"") - one));
    free(out);
    free(one);
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules kalah:pits=3,seeds=2 --threads 2"), 0);
    free(out);
    /* The solver agent's principal variation starts with the move it plays, whichever optimal one. */
    for (int seed = 0; seed < 4; seed++) {
        assert_int_equal(tu_run(&out, 0, "move solver:endgame=6,tt_mb=16,seed=%d --position '3,0,0,3,6,1,16,5,2,0,3,1,0,8 S' "
                                         "--json", seed), 0);
        cJSON *o = cJSON_Parse(out);
        assert_non_null(o);
        const char *mv = cJSON_GetObjectItem(o, "move")->valuestring;
        cJSON *pv = cJSON_GetObjectItem(o, "pv");
        assert_true(cJSON_GetArraySize(pv) >= 2);
        assert_string_equal(cJSON_GetArrayItem(pv, 0)->valuestring, mv);
        cJSON_Delete(o);
        free(out);
    }
    /* --moves: every first move's exact value, as the solver agent's per-move values give them. */
    assert_int_equal(tu_run(&out, 0, "solve --tt-mb 16 --rules kalah:pits=4,seeds=3 --moves --threads 2 --json"), 0);
    assert_non_null(strstr(out, "\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2}"));
    free(out);
    assert_int_equal(tu_run(&out, 0, "move solver:tt_mb=16 --rules kalah:pits=4,seeds=3 --position '3,3,3,3,0,3,3,3,3,0 S' "
                                     "--json"), 0);
    assert_non_null(strstr(out, "\"values\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2}"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules kalah:pits=3,seeds=2 --threads 2 --endgame 4"), 0);
    free(out);
    /* --progress draws the positions searched on stderr; none in a pipe without it. */
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules congklak:pits=4,seeds=3 --progress 2>&1 >/dev/null | cat"), 0);
    assert_non_null(strstr(out, "solve: searching... 0 s, 0.0 M nodes"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules congklak:pits=4,seeds=3"), 0);
    assert_null(strstr(out, "solve:"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "solve --tt-mb 16 --rules oware:pits=2,seeds=1,max_sows=5 --sows 5"), 2);
    assert_non_null(strstr(out, "--sows"));
    free(out);
}

static void test_bench_env(void **state)
{
    (void)state;
    static const char *specs[] = {"congklak:pits=4,seeds=3", "oware:pits=3,seeds=2,max_sows=40"};
    /* Only the keys of docs/design.md §4 (and the rules), so that the check holds for any implementation of the
     * game interface's bench path. */
    for (int i = 0; i < 2; i++) {
        char args[128];
        snprintf(args, sizeof args, "bench env --rules %s --seconds 0.05 --threads 2", specs[i]);
        cJSON *o = run_json(args);
        double games = cJSON_GetObjectItem(o, "games_per_s")->valuedouble;
        assert_true(games > 0);
        assert_true(cJSON_GetObjectItem(o, "sows_per_s")->valuedouble >= games);
        assert_string_equal(cJSON_GetObjectItem(o, "kernel")->valuestring, "scalar");
        assert_int_equal((int)cJSON_GetObjectItem(o, "threads")->valuedouble, 2);
        cJSON_Delete(o);
    }
    char *out;
    assert_int_equal(tu_run(&out, 1, "bench env --rules oware --kernel avx2 --seconds 0.01"), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "bench env --rules oware:grand_slam=maybe --seconds 0.01"), 2);
    assert_non_null(strstr(out, "grand_slam"));
    free(out);
}

/* The two-row games' texts name the seats South and North, as their notation (S/N) and records do
 * (docs/design.md §2); básico, whose notation numbers the players, keeps "player N". */
static void test_seat_names(void **state)
{
    (void)state;
    static const struct {
        const char *args, *want[3];
    } cases[] = {
        {"replay --rules congklak:pits=4,seeds=3 a B", {"stores S 2  N 4\n", "\nNorth to move\n", NULL}},
        {"replay --rules oware --position '0,0,0,0,0,1,20,0,0,0,0,0,0,27 S'", {"game over: North wins\n", NULL}},
        {"replay --rules basico:players=2,pits=7 a", {"\nplayer 1 to move\n", NULL}},
        {"play random --rules oware:pits=3,seeds=2 <<'EOF'\na\nquit\nEOF",
         {"you are South against random", "North to move (agent)", "\nNorth plays "}},
        {"play random --rules congklak:pits=4,seeds=3 --as north </dev/null", {"you are North against random", NULL}},
        {"match random greedy --rules oware:pits=3,seeds=2 --games 4", {"\n  A South  ", "\n  A North  ", NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out;
        int rc = tu_run(&out, 1, "%s", cases[i].args);
        for (int j = 0; j < 3 && cases[i].want[j]; j++)
            if (rc != 0 || !strstr(out, cases[i].want[j]))
                fail_msg("sowzero %s: exit %d, wanted '%s':\n%s", cases[i].args, rc, cases[i].want[j], out);
        if (i != 2 && strstr(out, "player "))
            fail_msg("sowzero %s: says 'player':\n%s", cases[i].args, out);
        free(out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solve),
        cmocka_unit_test(test_bench_env),
        cmocka_unit_test(test_seat_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
