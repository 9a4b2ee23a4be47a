/* test_match_tc.c — time controls (`match --tc`, eval/game_match.h "Time control"): an engine slower than
 * the time per move loses every game on time, one within it never does; a game clock runs out for a slow
 * engine after some moves and, with an increment that covers its moves, never; sowzero's own searches
 * (ab, mcts) with depth and sims far beyond the time stop in time, and an agent without a time budget that
 * overruns it loses on time; the records say [Termination "time forfeit"] and read back; bad --tc values
 * exit 2. The engines are tests/engines/kgp_engine.py with --think (a sleep before each answer). */
// ctest-labels: threads
#include "tests/test_util.h"

#include <unistd.h>
#include <cjson/cJSON.h>
#include "eval/record.h"

#define ENGINE SOWZERO_SOURCE_DIR "/tests/engines/kgp_engine.py"

/* The test engine sleeping `think` seconds before each answer. */
static const char *slow_engine(const char *think)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "engine:cmd='%s %s --think %s'", SOWZERO_PYTHON3, ENGINE, think);
    return buf[k];
}

typedef struct {
    int games, a_forfeits, a_time, b_forfeits, b_time, wins, losses;
    double a_ms, b_ms;
} tc_result;

static tc_result run_match(const char *a, const char *b, const char *args, const char *pgn)
{
    char *out;
    unlink(pgn);
    int rc = tu_run(&out, 1, "match \"%s\" \"%s\" %s --pgn '%s' --json", a, b, args, pgn);
    if (rc != 0)
        fail_msg("match %s %s %s: exit %d: %s", a, b, args, rc, out);
    cJSON *j = cJSON_Parse(strchr(out, '{'));
    assert_non_null(j);
    const cJSON *ag = cJSON_GetObjectItem(j, "agents");
    tc_result r = {cJSON_GetObjectItem(j, "games")->valueint,
                   cJSON_GetObjectItem(cJSON_GetArrayItem(ag, 0), "forfeits")->valueint,
                   cJSON_GetObjectItem(cJSON_GetArrayItem(ag, 0), "time_forfeits")->valueint,
                   cJSON_GetObjectItem(cJSON_GetArrayItem(ag, 1), "forfeits")->valueint,
                   cJSON_GetObjectItem(cJSON_GetArrayItem(ag, 1), "time_forfeits")->valueint,
                   cJSON_GetObjectItem(j, "wins")->valueint,
                   cJSON_GetObjectItem(j, "losses")->valueint,
                   cJSON_GetObjectItem(cJSON_GetArrayItem(ag, 0), "ms_per_move")->valuedouble,
                   cJSON_GetObjectItem(cJSON_GetArrayItem(ag, 1), "ms_per_move")->valuedouble};
    assert_false(cJSON_IsNull(cJSON_GetObjectItem(j, "tc")));
    cJSON_Delete(j);
    free(out);
    return r;
}

/* Every record of pgn: those lost on time by the agent `spec` (its seat forfeited, [Termination "time
 * forfeit"], the game unfinished); returns how many, and the fewest moves that agent made in them. */
static int time_losses(const char *pgn, const char *spec, int *fewest_moves)
{
    record_game *recs;
    int n, lost = 0;
    char err[RECORD_ERRLEN];
    if (record_read_file(pgn, &recs, &n, err) != RECORD_OK)
        fail_msg("%s", err);
    *fewest_moves = 1 << 30;
    for (int i = 0; i < n; i++) {
        const record_game *r = &recs[i];
        if (!r->termination)
            continue;
        assert_string_equal(r->termination, "time forfeit");
        int seat = r->forfeit - 1;
        assert_true(seat == 0 || seat == 1);
        assert_string_equal(seat ? r->north : r->south, spec);
        assert_int_equal(r->result, seat ? RECORD_SOUTH_WINS : RECORD_NORTH_WINS);
        /* its moves: those played by its seat after the opening */
        game_pos p = r->gstart;
        int mine = 0;
        for (int k = 0; k < r->n_moves; k++) {
            mine += k >= r->opening && p.to_move == seat;
            game_apply(r->game, &p, r->moves[k], NULL);
        }
        assert_false(p.over);
        assert_int_equal(p.to_move, seat); /* it lost on the move it was to make */
        if (mine < *fewest_moves)
            *fewest_moves = mine;
        lost++;
    }
    record_games_free(recs, n);
    return lost;
}

/* Per move: an engine that takes 0.6 s loses each game on time at its first move; one that takes 0.02 s
 * never does. */
static void test_move_time(void **state)
{
    (void)state;
    const char *pgn = tu_tmp_path("tc-move.pgn"), *slow = slow_engine("0.6"), *quick = slow_engine("0.02");
    tc_result r = run_match(slow, "greedy", "--tc 150 --games 4 --threads 2", pgn);
    assert_int_equal(r.games, 4);
    assert_int_equal(r.a_forfeits, 4);
    assert_int_equal(r.a_time, 4);
    assert_int_equal(r.losses, 4);
    assert_int_equal(r.b_time, 0);
    int fewest;
    assert_int_equal(time_losses(pgn, slow, &fewest), 4);
    assert_int_equal(fewest, 0);
    r = run_match(quick, "greedy", "--tc 300 --games 4 --threads 2", pgn);
    assert_int_equal(r.a_forfeits + r.b_forfeits, 0);
    assert_true(r.a_ms >= 15 && r.a_ms < 300);
    assert_int_equal(time_losses(pgn, quick, &fewest), 0);
}

/* A game clock: 0.5 s and no increment run out after several 0.06-s moves (the engine answers after its
 * sleep, past its soft time, while the clock still holds it); an increment of 0.15 s a move never does. */
static void test_game_clock(void **state)
{
    (void)state;
    const char *pgn = tu_tmp_path("tc-clock.pgn"), *slow = slow_engine("0.06");
    tc_result r = run_match("greedy", slow, "--tc 0.5+0 --games 2 --threads 2", pgn);
    assert_int_equal(r.b_forfeits, 2);
    assert_int_equal(r.b_time, 2);
    assert_int_equal(r.a_forfeits, 0);
    int fewest;
    assert_int_equal(time_losses(pgn, slow, &fewest), 2);
    assert_true(fewest >= 4 && fewest <= 9); /* 0.5 s / 0.06 s: about 8 moves, then out of time */
    r = run_match("greedy", slow, "--tc 0.4+0.15 --games 2 --threads 2", pgn);
    assert_int_equal(r.a_forfeits + r.b_forfeits, 0);
    assert_int_equal(time_losses(pgn, slow, &fewest), 0);
}

/* sowzero's own searches take the time budget: ab to depth 30, mcts and az (the shipped net) of ten million
 * simulations stop within 40 or 30 ms a move (the margin allows for a loaded machine); with a clock they
 * spend a fraction of it. */
static void test_own_agents_stop_in_time(void **state)
{
    (void)state;
    const char *pgn = tu_tmp_path("tc-own.pgn");
    tc_result r = run_match("ab:depth=30", "mcts:sims=10000000,solver=0", "--tc 40 --tc-margin 200 --games 2 --threads 2",
                            pgn);
    assert_int_equal(r.a_forfeits + r.b_forfeits, 0);
    assert_true(r.a_ms <= 60 && r.b_ms <= 60);
    assert_true(r.b_ms >= 30); /* without proofs to end it early, mcts searches until its time is up */
    r = run_match("mcts:sims=10000000", "az:net=" SOWZERO_SOURCE_DIR "/nets/kalah-6-4.h5,sims=10000000",
                  "--tc 30 --tc-margin 200 --games 2 --threads 2", pgn);
    assert_int_equal(r.a_forfeits + r.b_forfeits, 0);
    assert_true(r.a_ms <= 50 && r.b_ms <= 50);
    r = run_match("ab:depth=30", "mcts:sims=10000000", "--tc 1+0.01 --tc-margin 200 --games 2 --threads 2", pgn);
    assert_int_equal(r.a_forfeits + r.b_forfeits, 0);
    assert_true(r.b_ms <= 1000 / 20 + 10 + 20); /* clock/20 + inc at most, and a little */
    /* an agent that takes no budget and needs longer loses on time at its first move */
    r = run_match("maxn:depth=10", "greedy", "--tc 10 --tc-margin 10 --games 2 --threads 2", pgn);
    assert_int_equal(r.a_time, 2);
    assert_int_equal(r.b_forfeits, 0);
    int fewest;
    assert_int_equal(time_losses(pgn, "maxn:depth=10", &fewest), 2);
    assert_int_equal(fewest, 0);
}

static void test_bad_values(void **state)
{
    (void)state;
    static const char *const bad[] = {"--tc 0", "--tc -5", "--tc 10+", "--tc +1", "--tc 10+-1", "--tc abc",
                                      "--tc 1e3", "--tc 10+0.1 --tc 5+0", "--tc 50 --tc 60", "--tc-margin 5",
                                      "--tc 50 --tc-margin -1", "--tc 0+1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out;
        assert_int_equal(tu_run(&out, 1, "match greedy random --games 2 %s", bad[i]), 2);
        if (!strstr(out, "--tc"))
            fail_msg("%s: '%s' does not name the flag", bad[i], out);
        free(out);
    }
    char *out;
    assert_int_equal(tu_run(&out, 1, "match greedy random --games 2 --tc 100 --tc 2+0.5 --json"), 0);
    cJSON *j = cJSON_Parse(out), *tc = cJSON_GetObjectItem(j, "tc");
    assert_int_equal(cJSON_GetObjectItem(tc, "move_ms")->valueint, 100);
    assert_int_equal(cJSON_GetObjectItem(tc, "base_ms")->valueint, 2000);
    assert_int_equal(cJSON_GetObjectItem(tc, "inc_ms")->valueint, 500);
    assert_int_equal(cJSON_GetObjectItem(tc, "margin_ms")->valueint, 20);
    cJSON_Delete(j);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_move_time),
        cmocka_unit_test(test_game_clock),
        cmocka_unit_test(test_own_agents_stop_in_time),
        cmocka_unit_test(test_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
