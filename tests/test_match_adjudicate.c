/* test_match_adjudicate.c — `match --adjudicate N` (eval/game_match.h, "Adjudication"): every adjudicated
 * game stops at the first position the agents would play with at most N seeds in the pits, and its result
 * and score are those of perfect play from there, checked by the generic exact solver of the game interface
 * (eval/game_search.h gs_solve, a code path the adjudicating Kalah solver does not share); the records
 * ([Termination "adjudication"], "time forfeit") read back, and wrong ones are refused. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <unistd.h>
#include <cjson/cJSON.h>
#include "eval/game_search.h"
#include "eval/record.h"

static int seeds_in_pits(const game *g, const game_pos *p)
{
    int s = 0, n = 0;
    game_score(g, p, 0, &s);
    game_score(g, p, 1, &n);
    return game_board_seeds(g, p) - s - n;
}

/* Plays a match with --adjudicate n and checks every game of its records; returns the adjudicated ones. */
static int check_match(const char *rules, const char *a, const char *b, int n, int games, const char *extra)
{
    const char *pgn = tu_tmp_path("adjudicate.pgn");
    unlink(pgn);
    char *out;
    if (tu_run(&out, 1, "match %s %s --rules %s --adjudicate %d --games %d --threads 2 --pgn '%s' --json %s", a, b,
               rules, n, games, pgn, extra) != 0)
        fail_msg("match failed: %s", out);
    cJSON *j = cJSON_Parse(strchr(out, '{'));
    assert_non_null(j);
    int reported = cJSON_GetObjectItem(j, "adjudicated")->valueint;
    assert_int_equal(cJSON_GetObjectItem(j, "adjudicate")->valueint, n);
    assert_int_equal(cJSON_GetObjectItem(j, "games")->valueint, games);
    int wins = cJSON_GetObjectItem(j, "wins")->valueint, draws = cJSON_GetObjectItem(j, "draws")->valueint;
    cJSON_Delete(j);
    free(out);

    record_game *recs;
    int nrec, adjudicated = 0, a_wins = 0, a_draws = 0;
    char err[RECORD_ERRLEN];
    if (record_read_file(pgn, &recs, &nrec, err) != RECORD_OK)
        fail_msg("%s", err);
    assert_int_equal(nrec, games);
    for (int i = 0; i < nrec; i++) {
        record_game *r = &recs[i];
        const game *g = r->game;
        int a_south = !strcmp(r->south, a);
        a_wins += r->result == (a_south ? RECORD_SOUTH_WINS : RECORD_NORTH_WINS);
        a_draws += r->result == RECORD_DRAW;
        /* no position the agents played from (after the opening) had at most n seeds in the pits */
        game_pos p = r->gstart;
        for (int k = 0; k < r->n_moves; k++) {
            if (k >= r->opening && seeds_in_pits(g, &p) <= n)
                fail_msg("game %d: move %d was played at %d seeds in the pits (adjudicate %d)", r->round, k + 1,
                         seeds_in_pits(g, &p), n);
            game_apply(g, &p, r->moves[k], NULL);
        }
        if (!r->adjudicated) {
            assert_true(p.over);
            assert_null(r->termination);
            continue;
        }
        adjudicated++;
        assert_false(p.over);
        assert_true(r->n_moves >= r->opening);
        assert_true(seeds_in_pits(g, &p) <= n);
        assert_string_equal(r->termination, "adjudication");
        gs_solution sol;
        char serr[GAME_ERRLEN];
        if (gs_solve_generic(g, &p, 0, NULL, &sol, serr) != GAME_OK)
            fail_msg("game %d: %s", r->round, serr);
        int south = p.to_move == 0 ? sol.value : -sol.value;
        assert_int_equal(r->store_south - r->store_north, south);
        assert_int_equal(r->result, (south > 0) - (south < 0));
        assert_int_equal(r->store_south + r->store_north, game_board_seeds(g, &p));
    }
    assert_int_equal(adjudicated, reported);
    assert_int_equal(a_wins, wins); /* the match's tally is the records' */
    assert_int_equal(a_draws, draws);
    record_games_free(recs, nrec);
    return adjudicated;
}

static void test_adjudicated_results_are_perfect_play(void **state)
{
    (void)state;
    /* small boards: most games reach few seeds */
    assert_true(check_match("kalah:pits=4,seeds=3", "greedy", "random", 8, 60, "") > 20);
    assert_true(check_match("kalah:pits=4,seeds=3", "ab:depth=3", "greedy", 12, 40, "--openings 3") > 20);
    /* Kalah(6,4) with a solver seat: its own table adjudicates */
    assert_true(check_match("kalah:pits=6,seeds=3", "greedy", "random", 10, 20, "") > 5);
    /* a solver plays: it adjudicates with its own table */
    assert_true(check_match("kalah:pits=4,seeds=3", "solver", "greedy", 10, 10, "") > 5);
    /* under a sow limit: Kalah's solver without its endgame database */
    assert_true(check_match("kalah:pits=4,seeds=3,max_sows=40", "greedy", "random", 8, 20, "") > 5);
    /* every two-player game with a margin, an exact solver and an end that sweeps the seeds into the
     * stores: the game interface's solver adjudicates */
    assert_true(check_match("congklak:pits=4,seeds=3", "greedy", "random", 8, 20, "") > 5);
}

/* N = 0 never adjudicates; bad values and games without an exact solver exit 2, with the reason. */
static void test_flag_errors(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 1, "match greedy random --rules kalah:pits=4,seeds=3 --adjudicate 0 --games 10 --json"),
                     0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "adjudicated")->valueint, 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "adjudicate")));
    cJSON_Delete(j);
    free(out);
    static const char *const bad[] = {"--adjudicate -1", "--adjudicate 256", "--adjudicate x",
                                      "--adjudicate 4 --rules oware:max_sows=0", "--adjudicate 4 --rules basico:players=2",
                                      "--adjudicate 4 --rules oware:max_sows=60"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(tu_run(&out, 1, "match greedy random %s", bad[i]), 2);
        assert_non_null(strstr(out, "--adjudicate"));
        free(out);
    }
    assert_int_equal(tu_run(&out, 1, "tournament --agent greedy --agent random --adjudicate 4 --rules oware:max_sows=0"), 2);
    assert_non_null(strstr(out, "--adjudicate: "));
    assert_non_null(strstr(out, "max_sows"));
    free(out);
}

static int read_one(const char *text, record_game *g, char *err)
{
    return record_read_text(text, "t.pgn", g, err);
}

#define HEAD "[South \"a\"]\n[North \"b\"]\n[Rules \"kalah:pits=4,seeds=3\"]\n"

/* The reader: an adjudication's result and score are taken, checked against where the game stopped. */
static void test_records(void **state)
{
    (void)state;
    record_game g;
    char err[RECORD_ERRLEN];
    /* after "d": 3,3,3,0,1,4,4,3,3,0 N — 23 seeds in the pits, stores 1-0 */
    assert_int_equal(read_one(HEAD "[Result \"1-0\"]\n[Termination \"adjudication\"]\n[Score \"13-11\"]\n\nd 1-0\n", &g,
                              err), RECORD_OK);
    assert_int_equal(g.adjudicated, 1);
    assert_int_equal(g.result, RECORD_SOUTH_WINS);
    assert_int_equal(g.store_south, 13);
    assert_int_equal(g.places[0], 1);
    assert_int_equal(g.places[1], 2);
    /* written back as it was read */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(record_write(f, &g, err), RECORD_OK);
    fclose(f);
    assert_non_null(strstr(text, "[Termination \"adjudication\"]\n[Score \"13-11\"]"));
    record_game_clear(&g);
    assert_int_equal(read_one(text, &g, err), RECORD_OK);
    assert_int_equal(g.store_north, 11);
    record_game_clear(&g);
    free(text);
    static const struct {
        const char *text, *want;
    } bad[] = {
        {HEAD "[Result \"*\"]\n[Termination \"adjudication\"]\n[Score \"13-11\"]\n\nd *\n", "decisive or drawn"},
        {HEAD "[Result \"1-0\"]\n[Termination \"adjudication\"]\n\nd 1-0\n", "needs a [Score"},
        {HEAD "[Result \"0-1\"]\n[Termination \"adjudication\"]\n[Score \"13-11\"]\n\nd 0-1\n", "agrees with"},
        {HEAD "[Result \"1-0\"]\n[Termination \"adjudication\"]\n[Score \"14-11\"]\n\nd 1-0\n", "cannot end"},
        {HEAD "[Result \"0-1\"]\n[Termination \"adjudication\"]\n[Score \"0-24\"]\n\nd 0-1\n", "cannot end"},
        {"[Seat0 \"a\"]\n[Seat1 \"b\"]\n[Seat2 \"c\"]\n[Rules \"basico:players=3\"]\n[Result \"1-2-3\"]\n"
         "[Termination \"adjudication\"]\n\n1-2-3\n", "two-player games only"},
        {HEAD "[Result \"1/2-1/2\"]\n[Termination \"time forfeit\"]\n\nd 1/2-1/2\n", "one seat last"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = read_one(bad[i].text, &g, err);
        if (rc != RECORD_EINVAL || !strstr(err, bad[i].want))
            fail_msg("case %zu: code %d, '%s' (wanted '%s')", i, rc, err, bad[i].want);
    }
    /* a time forfeit: the seat the result puts last */
    assert_int_equal(read_one(HEAD "[Result \"1-0\"]\n[Termination \"time forfeit\"]\n\nd 1-0\n", &g, err), RECORD_OK);
    assert_int_equal(g.forfeit, 2);
    assert_int_equal(g.result, RECORD_SOUTH_WINS);
    record_game_clear(&g);
    assert_int_equal(read_one(HEAD "[Result \"1-0\"]\n[Termination \"time forfeit\"]\n\nd A 1-0\n", &g, err),
                     RECORD_OK);
    record_game_clear(&g);
    /* ... and its moves must leave the game unfinished, its result must be the forfeit's */
    assert_int_equal(read_one(HEAD "[Result \"0-1\"]\n[Termination \"time forfeit\"]\n\n0-1\n", &g, err), RECORD_OK);
    assert_int_equal(g.forfeit, 1);
    record_game_clear(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adjudicated_results_are_perfect_play),
        cmocka_unit_test(test_flag_errors),
        cmocka_unit_test(test_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
