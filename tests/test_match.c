/* test_match.c — Kalah matches through the match runner of every game (eval/game_match.h): colour-swapped
 * pairs from the same opening, results that do not depend on the thread count, tallies, and the `match` /
 * `tournament` commands. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <math.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "eval/game_match.h"
#include "eval/record.h"

static void run_or_fail(const char *a, const char *b, const game *g, const game_match_config *cfg,
                        game_match_result *res)
{
    char err[MATCH_ERRLEN];
    const char *specs[2] = {a, b};
    if (game_match_run(specs, 2, g, cfg, res, err) != MATCH_OK)
        fail_msg("match %s vs %s: %s", a, b, err);
}

static game *make_game(const char *spec)
{
    char err[GAME_ERRLEN];
    game *g = game_create(spec, err);
    if (!g)
        fail_msg("%s: %s", spec, err);
    return g;
}

static record_game read_record(const game_match_result *res, int i)
{
    record_game rec;
    char err[RECORD_ERRLEN];
    if (record_read_text(res->records[i], "match", &rec, err) != RECORD_OK)
        fail_msg("%s\n%s", err, res->records[i]);
    return rec;
}

/* Both games of a pair start with the same opening moves, and the agents swap seats. */
static void test_pairs_swap_colours_on_the_same_opening(void **state)
{
    (void)state;
    game *g = make_game("kalah");
    game_match_config cfg = game_match_config_default();
    cfg.games = 16;
    cfg.opening_plies = 3;
    cfg.threads = 2;
    cfg.keep_records = 1;
    cfg.seed = 99;
    game_match_result res;
    run_or_fail("random:seed=1", "greedy", g, &cfg, &res);
    assert_int_equal(res.n_records, 16);
    assert_int_equal(res.duel, 1);
    record_game rec[16];
    for (int i = 0; i < 16; i++)
        rec[i] = read_record(&res, i);
    int distinct = 0;
    for (int i = 0; i < 8; i++) {
        record_game *x = &rec[2 * i], *y = &rec[2 * i + 1];
        assert_string_equal(x->south, "random:seed=1");
        assert_string_equal(x->north, "greedy");
        assert_string_equal(y->south, "greedy");
        assert_string_equal(y->north, "random:seed=1");
        assert_int_equal(x->opening, 3);
        assert_int_equal(y->opening, 3);
        assert_memory_equal(x->moves, y->moves, 3);
        assert_int_equal(x->round, 2 * i + 1);
        /* The opening is the one game_match_opening gives for the pair. */
        uint8_t mv[3];
        game_pos p;
        assert_int_equal(game_match_opening(g, 3, cfg.seed, i, &p, mv), 3);
        assert_memory_equal(mv, x->moves, 3);
        if (i && memcmp(rec[2 * i].moves, rec[0].moves, 3))
            distinct++;
    }
    assert_true(distinct > 0); /* the pairs do not all share one opening */
    /* Tallies: A = random was South in even games. */
    int w = 0, d = 0, l = 0;
    for (int i = 0; i < 16; i++) {
        int south = rec[i].result == RECORD_SOUTH_WINS ? 1 : rec[i].result == RECORD_DRAW ? 0 : -1;
        int res_a = i % 2 ? -south : south;
        w += res_a > 0;
        d += res_a == 0;
        l += res_a < 0;
        record_game_clear(&rec[i]);
    }
    assert_int_equal(res.two.all.wins, w);
    assert_int_equal(res.two.all.draws, d);
    assert_int_equal(res.two.all.losses, l);
    for (int s = 0; s < 2; s++)
        assert_int_equal(res.two.seat[s].wins + res.two.seat[s].draws + res.two.seat[s].losses, 8);
    assert_int_equal(res.two.seat[0].wins + res.two.seat[1].wins, res.two.all.wins);
    game_match_result_free(&res);
    game_free(g);
}

/* The same config gives the same games with 1 or 3 threads (agents are reseeded per game; mcts is Kalah's
 * own with tree reuse). */
static void test_threads_do_not_change_results(void **state)
{
    (void)state;
    game *g = make_game("kalah:pits=5,seeds=3");
    game_match_result res[2];
    for (int t = 0; t < 2; t++) {
        game_match_config cfg = game_match_config_default();
        cfg.games = 24;
        cfg.threads = t ? 3 : 1;
        cfg.keep_records = 1;
        run_or_fail("mcts:sims=24,seed=3", "greedy:seed=2", g, &cfg, &res[t]);
    }
    for (int i = 0; i < 24; i++)
        assert_string_equal(res[0].records[i], res[1].records[i]);
    assert_memory_equal(res[0].game, res[1].game, 24 * sizeof *res[0].game);
    assert_int_equal(res[0].two.all.wins, res[1].two.all.wins);
    assert_int_equal(res[0].two.all.draws, res[1].two.all.draws);
    assert_true(res[0].avg_sows == res[1].avg_sows);
    game_match_result_free(&res[0]);
    game_match_result_free(&res[1]);
    game_free(g);
}

/* on_record: each record as its game ends; the test's stop flag is raised after `stop_after` of them, and
 * `refuse_at` (when > 0) makes that call fail. */
typedef struct {
    int n, stop_after, refuse_at;
    char *text[64];
    int round[64];
    atomic_int stop;
} record_sink;

static int sink_record(void *ud, int game, const char *record)
{
    record_sink *k = ud;
    if (k->n == k->refuse_at - 1)
        return -1;
    k->round[k->n] = game;
    k->text[k->n++] = strdup(record);
    if (k->n == k->stop_after)
        atomic_store(&k->stop, 1);
    return 0;
}

static void sink_free(record_sink *k)
{
    for (int i = 0; i < k->n; i++)
        free(k->text[i]);
}

/* Every record reaches on_record as its game ends, the same text as keep_records keeps; a stop flag raised
 * after 3 games ends the match with MATCH_STOPPED and results over exactly those 3 games (one thread: the
 * next game is not started); a refused record fails the match with MATCH_EIO. */
static void test_records_as_games_end_and_stop(void **state)
{
    (void)state;
    game *g = make_game("kalah:pits=4,seeds=3");
    const char *specs[2] = {"greedy", "random"};
    char err[MATCH_ERRLEN];
    game_match_result res;
    record_sink all = {.stop_after = -1};
    game_match_config cfg = game_match_config_default();
    cfg.games = 12;
    cfg.threads = 3;
    cfg.keep_records = 1;
    cfg.on_record = sink_record;
    cfg.record_ud = &all;
    assert_int_equal(game_match_run(specs, 2, g, &cfg, &res, err), MATCH_OK);
    assert_int_equal(all.n, 12);
    for (int i = 0; i < 12; i++)
        assert_string_equal(all.text[i], res.records[all.round[i]]);
    game_match_result_free(&res);

    record_sink part = {.stop_after = 3};
    cfg.threads = 1;
    cfg.record_ud = &part;
    cfg.stop = &part.stop;
    assert_int_equal(game_match_run(specs, 2, g, &cfg, &res, err), MATCH_STOPPED);
    assert_int_equal(part.n, 3);
    assert_int_equal(res.games, 3);
    assert_int_equal(res.n_records, 3);
    assert_int_equal(res.two.all.wins + res.two.all.draws + res.two.all.losses, 3);
    assert_int_equal(res.agent[0].games, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(part.round[i], i);
        assert_string_equal(part.text[i], res.records[i]);
        for (int j = 0; j < 12; j++) /* the same game as in the whole match */
            if (all.round[j] == i)
                assert_string_equal(part.text[i], all.text[j]);
    }
    game_match_result_free(&res);
    /* stopped before the first game: no game, no record */
    assert_int_equal(game_match_run(specs, 2, g, &cfg, &res, err), MATCH_STOPPED);
    assert_int_equal(res.games, 0);
    assert_int_equal(part.n, 3);
    game_match_result_free(&res);

    record_sink bad = {.stop_after = -1, .refuse_at = 2};
    cfg.record_ud = &bad;
    cfg.stop = NULL;
    assert_int_equal(game_match_run(specs, 2, g, &cfg, &res, err), MATCH_EIO);
    assert_non_null(strstr(err, "could not be written"));
    game_match_result_free(&res);
    sink_free(&all);
    sink_free(&part);
    sink_free(&bad);
    game_free(g);
}

/* The stronger agent wins: greedy against random over 40 games scores well above one half. */
static void test_greedy_beats_random(void **state)
{
    (void)state;
    game *g = make_game("kalah");
    game_match_config cfg = game_match_config_default();
    cfg.games = 40;
    cfg.threads = 2;
    game_match_result res;
    run_or_fail("greedy", "random", g, &cfg, &res);
    assert_true(res.two.score > 0.75);
    assert_true(res.two.elo > 100 && isfinite(res.two.elo) && isfinite(res.two.elo_hi));
    assert_true(res.two.score_lo <= res.two.score && res.two.score <= res.two.score_hi);
    assert_true(res.avg_sows > 10);
    game_match_result_free(&res);
    game_free(g);
}

static void test_config_errors(void **state)
{
    (void)state;
    game *std = make_game("kalah");
    game_match_config cfg = game_match_config_default();
    game_match_result res;
    char err[MATCH_ERRLEN];
    const char *rr[2] = {"random", "random"}, *rg[2] = {"random", "greedy"}, *bad[2] = {"random", "ab:dept=3"};
    cfg.games = 7;
    assert_int_equal(game_match_run(rr, 2, std, &cfg, &res, err), MATCH_EINVAL);
    assert_non_null(strstr(err, "even"));
    cfg.games = 4;
    assert_int_equal(game_match_run(bad, 2, std, &cfg, &res, err), MATCH_EAGENT);
    assert_non_null(strstr(err, "'dept'"));
    /* An opening length that ends every game before the agents play is refused, never shortened (
     * --openings 1000 used to be accepted and played by the fallback's moves). */
    game *tiny = make_game("kalah:pits=1,seeds=1");
    game_pos p;
    assert_int_equal(game_match_opening(tiny, 4, 1, 0, &p, NULL), -1);
    cfg.opening_plies = 4;
    assert_int_equal(game_match_run(rg, 2, tiny, &cfg, &res, err), MATCH_EINVAL);
    assert_non_null(strstr(err, "openings of 4 random sowings"));
    assert_non_null(strstr(err, "fewer opening plies"));
    cfg.opening_plies = 1000;
    assert_int_equal(game_match_run(rr, 2, std, &cfg, &res, err), MATCH_EINVAL);
    assert_non_null(strstr(err, "openings of 1000 random sowings"));
    /* lengths that fit are played in full, also on the tiny board */
    cfg.opening_plies = 0;
    assert_int_equal(game_match_run(rg, 2, tiny, &cfg, &res, err), MATCH_OK);
    assert_int_equal(res.games, 4);
    game_match_result_free(&res);
    cfg.opening_plies = 12;
    cfg.keep_records = 1;
    assert_int_equal(game_match_run(rr, 2, std, &cfg, &res, err), MATCH_OK);
    for (int i = 0; i < res.n_records; i++) {
        record_game rec = read_record(&res, i);
        assert_int_equal(rec.opening, 12);
        record_game_clear(&rec);
    }
    game_match_result_free(&res);
    game_free(tiny);
    game_free(std);
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
    unlink(pgn); /* --pgn appends */
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
    /* a bare spec with a ',key=value' tail is its own name, not NAME 'random,seed' = SPEC '2' */
    assert_int_equal(tu_run(&out, 0, "tournament --agent random,seed=2 --agent greedy --games 2 --threads 1 --json"), 0);
    assert_non_null(strstr(out, "\"name\":\"random,seed=2\""));
    free(out);
    /* output paths it cannot write are bad flags, refused before any game (exit 2, nothing printed on stdout);
     * an existing --csv file is left as it was */
    assert_int_equal(tu_run(&out, 1, "tournament --agent random --agent greedy --games 2 --csv '%s/no/such/dir/t.csv'",
                            SOWZERO_TMP), 2);
    assert_non_null(strstr(out, "--csv"));
    assert_non_null(strstr(out, "cannot write in"));
    assert_null(strstr(out, "round robin"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "tournament --agent random --agent greedy --games 2 --pgn '%s/no/such/dir/t.pgn' "
                            "--csv '%s'", SOWZERO_TMP, csv), 2);
    assert_non_null(strstr(out, "--pgn"));
    free(out);
    f = fopen(csv, "r");
    assert_non_null(f);
    rows = 0;
    while (fgets(line, sizeof line, f))
        rows++;
    fclose(f);
    assert_int_equal(rows, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_swap_colours_on_the_same_opening),
        cmocka_unit_test(test_threads_do_not_change_results),
        cmocka_unit_test(test_greedy_beats_random),
        cmocka_unit_test(test_records_as_games_end_and_stop),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_match_command),
        cmocka_unit_test(test_tournament_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
