/* test_match.c — the match runner (eval/match.h): colour-swapped pairs from the same opening, results that
 * do not depend on the thread count, tallies, and the `match` / `tournament` commands. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <math.h>
#include <cjson/cJSON.h>
#include "eval/match.h"

static void run_or_fail(const char *a, const char *b, const kalah_rules *r, const match_config *cfg, match_result *res)
{
    char err[MATCH_ERRLEN];
    if (match_run(a, b, r, cfg, res, err) != MATCH_OK)
        fail_msg("match %s vs %s: %s", a, b, err);
}

/* Both games of a pair start with the same opening moves, and the agents swap seats. */
static void test_pairs_swap_colours_on_the_same_opening(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    match_config cfg = match_config_default();
    cfg.games = 16;
    cfg.opening_plies = 3;
    cfg.threads = 2;
    cfg.keep_records = 1;
    cfg.seed = 99;
    match_result res;
    run_or_fail("random:seed=1", "greedy", &r, &cfg, &res);
    assert_int_equal(res.n_records, 16);
    int distinct = 0;
    for (int i = 0; i < 8; i++) {
        record_game *x = &res.records[2 * i], *y = &res.records[2 * i + 1];
        assert_string_equal(x->south, "random:seed=1");
        assert_string_equal(x->north, "greedy");
        assert_string_equal(y->south, "greedy");
        assert_string_equal(y->north, "random:seed=1");
        assert_int_equal(x->opening, 3);
        assert_int_equal(y->opening, 3);
        assert_memory_equal(x->moves, y->moves, 3);
        assert_int_equal(x->round, 2 * i + 1);
        /* The opening is the one match_opening gives for the pair. */
        uint8_t mv[3];
        kalah_pos p;
        assert_int_equal(match_opening(&r, 3, cfg.seed, i, &p, mv), 3);
        assert_memory_equal(mv, x->moves, 3);
        if (i && memcmp(res.records[2 * i].moves, res.records[0].moves, 3))
            distinct++;
    }
    assert_true(distinct > 0); /* the pairs do not all share one opening */
    /* Tallies: A = random was South in even games. */
    int w = 0, d = 0, l = 0;
    for (int g = 0; g < 16; g++) {
        int res_a = g % 2 ? -res.records[g].result : res.records[g].result;
        w += res_a > 0;
        d += res_a == 0;
        l += res_a < 0;
    }
    assert_int_equal(res.all.wins, w);
    assert_int_equal(res.all.draws, d);
    assert_int_equal(res.all.losses, l);
    for (int s = 0; s < 2; s++)
        assert_int_equal(res.seat[s].wins + res.seat[s].draws + res.seat[s].losses, 8);
    assert_int_equal(res.seat[0].wins + res.seat[1].wins, res.all.wins);
    match_result_free(&res);
}

/* The same config gives the same games with 1 or 3 threads (agents are reseeded per game). */
static void test_threads_do_not_change_results(void **state)
{
    (void)state;
    kalah_rules r;
    assert_int_equal(kalah_rules_parse("kalah:pits=5,seeds=3", &r, NULL), KALAH_OK);
    match_result res[2];
    for (int t = 0; t < 2; t++) {
        match_config cfg = match_config_default();
        cfg.games = 24;
        cfg.threads = t ? 3 : 1;
        cfg.keep_records = 1;
        run_or_fail("mcts:sims=24,seed=3", "greedy:seed=2", &r, &cfg, &res[t]);
    }
    for (int g = 0; g < 24; g++) {
        assert_int_equal(res[0].records[g].n_moves, res[1].records[g].n_moves);
        assert_memory_equal(res[0].records[g].moves, res[1].records[g].moves, (size_t)res[0].records[g].n_moves);
    }
    assert_int_equal(res[0].all.wins, res[1].all.wins);
    assert_int_equal(res[0].all.draws, res[1].all.draws);
    assert_true(res[0].avg_sows == res[1].avg_sows);
    match_result_free(&res[0]);
    match_result_free(&res[1]);
}

/* The stronger agent wins: greedy against random over 40 games scores well above one half. */
static void test_greedy_beats_random(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    match_config cfg = match_config_default();
    cfg.games = 40;
    cfg.threads = 2;
    match_result res;
    run_or_fail("greedy", "random", &r, &cfg, &res);
    assert_true(res.score > 0.75);
    assert_true(res.elo > 100 && isfinite(res.elo) && isfinite(res.elo_hi));
    assert_true(res.score_lo <= res.score && res.score <= res.score_hi);
    assert_true(res.avg_sows > 10);
    match_result_free(&res);
}

static void test_config_errors(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    match_config cfg = match_config_default();
    match_result res;
    char err[MATCH_ERRLEN];
    cfg.games = 7;
    assert_int_equal(match_run("random", "random", &r, &cfg, &res, err), MATCH_EINVAL);
    assert_non_null(strstr(err, "even"));
    cfg.games = 4;
    assert_int_equal(match_run("random", "ab:dept=3", &r, &cfg, &res, err), MATCH_EAGENT);
    assert_non_null(strstr(err, "'dept'"));
    /* An opening length that ends every game before the agents play is refused, never shortened (issue 16:
     * --openings 1000 used to be accepted and played by the fallback's moves). */
    kalah_rules tiny;
    assert_int_equal(kalah_rules_parse("kalah:pits=1,seeds=1", &tiny, NULL), KALAH_OK);
    kalah_pos p;
    assert_int_equal(match_opening(&tiny, 4, 1, 0, &p, NULL), -1);
    cfg.opening_plies = 4;
    assert_int_equal(match_run("random", "greedy", &tiny, &cfg, &res, err), MATCH_EINVAL);
    assert_non_null(strstr(err, "openings of 4 random sowings"));
    assert_non_null(strstr(err, "fewer opening plies"));
    kalah_rules std = kalah_rules_default();
    cfg.opening_plies = 1000;
    assert_int_equal(match_run("random", "random", &std, &cfg, &res, err), MATCH_EINVAL);
    assert_non_null(strstr(err, "openings of 1000 random sowings"));
    /* lengths that fit are played in full, also on the tiny board */
    cfg.opening_plies = 0;
    assert_int_equal(match_run("random", "greedy", &tiny, &cfg, &res, err), MATCH_OK);
    assert_int_equal(res.games, 4);
    match_result_free(&res);
    cfg.opening_plies = 12;
    cfg.keep_records = 1;
    assert_int_equal(match_run("random", "random", &std, &cfg, &res, err), MATCH_OK);
    for (int g = 0; g < res.n_records; g++)
        assert_int_equal(res.records[g].opening, 12);
    match_result_free(&res);
    char *out;
    assert_int_equal(tu_run(&out, 1, "match random random --games 2 --openings 1000"), 2);
    assert_non_null(strstr(out, "fewer opening plies"));
    free(out);
}

static cJSON *run_json(const char *fmt, const char *arg)
{
    char *out;
    int rc = tu_run(&out, 0, fmt, arg);
    if (rc)
        fail_msg("exit %d: %s", rc, out);
    cJSON *o = cJSON_Parse(out);
    if (!o)
        fail_msg("not JSON: %s", out);
    free(out);
    return o;
}

/* `match --json` keys, and its --pgn file read back by `elo` gives the same score. */
static void test_match_command(void **state)
{
    (void)state;
    char pgn[512];
    snprintf(pgn, sizeof pgn, "%s/match_cmd.pgn", SOWZERO_TMP);
    cJSON *o = run_json("match greedy random --games 20 --threads 2 --seed 5 --pgn '%s' --json", pgn);
    const char *keys[] = {"a", "b", "wins", "draws", "losses", "score", "score_lo", "score_hi", "elo", "per_seat"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!cJSON_GetObjectItem(o, keys[i]))
            fail_msg("no key %s", keys[i]);
    int w = cJSON_GetObjectItem(o, "wins")->valueint, d = cJSON_GetObjectItem(o, "draws")->valueint,
        l = cJSON_GetObjectItem(o, "losses")->valueint;
    assert_int_equal(w + d + l, 20);
    cJSON *seats = cJSON_GetObjectItem(o, "per_seat");
    int sw = cJSON_GetObjectItem(cJSON_GetObjectItem(seats, "south"), "wins")->valueint +
             cJSON_GetObjectItem(cJSON_GetObjectItem(seats, "north"), "wins")->valueint;
    assert_int_equal(sw, w);
    double score = cJSON_GetObjectItem(o, "score")->valuedouble;
    cJSON *bound = cJSON_GetObjectItem(o, "elo_bound");
    assert_true(isfinite(cJSON_GetObjectItem(o, "elo")->valuedouble));
    assert_true(score < 1 ? cJSON_IsNull(bound) : !strcmp(bound->valuestring, "lower"));
    cJSON_Delete(o);
    o = run_json("elo '%s' --json", pgn);
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, "ratings"))
        if (!strcmp(cJSON_GetObjectItem(e, "name")->valuestring, "greedy"))
            assert_true(fabs(cJSON_GetObjectItem(e, "score")->valuedouble - score) < 1e-12);
    cJSON_Delete(o);
    char *out;
    assert_int_equal(tu_run(&out, 1, "match greedy random --games 3"), 2);
    assert_non_null(strstr(out, "--games"));
    free(out);
    assert_int_equal(tu_run(&out, 0, "match --help"), 0);
    assert_non_null(strstr(out, "--openings"));
    free(out);
}

/* A 3-agent tournament: every pair plays, ratings sorted, JSON and CSV agree. */
static void test_tournament_command(void **state)
{
    (void)state;
    char csv[512];
    snprintf(csv, sizeof csv, "%s/tournament.csv", SOWZERO_TMP);
    cJSON *o = run_json("tournament --agent r=random --agent g=greedy --agent ab=ab:depth=2,tt_mb=1 --games 10 "
                        "--threads 2 --anchor r=100 --csv '%s' --json",
                        csv);
    cJSON *ratings = cJSON_GetObjectItem(o, "ratings");
    assert_int_equal(cJSON_GetArraySize(ratings), 3);
    assert_string_equal(cJSON_GetObjectItem(o, "anchor")->valuestring, "r");
    double prev = INFINITY;
    cJSON *e;
    cJSON_ArrayForEach(e, ratings) {
        double elo = cJSON_GetObjectItem(e, "elo")->valuedouble;
        assert_true(elo <= prev && isfinite(elo));
        prev = elo;
        assert_int_equal(cJSON_GetObjectItem(e, "games")->valueint, 20);
        if (!strcmp(cJSON_GetObjectItem(e, "name")->valuestring, "r"))
            assert_true(fabs(elo - 100) < 1e-9);
    }
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "pairs")), 3);
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[256];
    int rows = 0;
    while (fgets(line, sizeof line, f))
        rows++;
    fclose(f);
    assert_int_equal(rows, 4);
    cJSON_Delete(o);
    char *out;
    assert_int_equal(tu_run(&out, 1, "tournament --agent a=random --agent a=greedy"), 2);
    assert_non_null(strstr(out, "twice"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_swap_colours_on_the_same_opening),
        cmocka_unit_test(test_threads_do_not_change_results),
        cmocka_unit_test(test_greedy_beats_random),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_match_command),
        cmocka_unit_test(test_tournament_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
