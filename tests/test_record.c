/* test_record.c — game records (eval/record.h): write/read round trips, tag escaping, unfinished games, and
 * reader errors that name the line. */
#include "tests/test_util.h"

#include "env/kalah.h"
#include "eval/record.h"

/* An empty record of the Kalah game of rules r. */
static void kalah_record(const kalah_rules *r, record_game *g)
{
    char spec[128], err[RECORD_ERRLEN];
    game *gm = game_create(kalah_rules_format(r, spec, sizeof spec), err);
    assert_non_null(gm);
    if (record_game_init_game(g, gm, NULL, err))
        fail_msg("%s", err);
    game_free(gm);
}

/* A pseudo-random finished (or, with stop > 0, unfinished) game under r. */
static void random_game(const kalah_rules *r, uint64_t seed, int stop, record_game *g)
{
    kalah_record(r, g);
    kalah_pos p;
    kalah_start(r, &p);
    for (int ply = 0; !p.over && (!stop || ply < stop); ply++) {
        unsigned legal = kalah_legal(r, &p);
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((seed >> 33) % (unsigned)r->pits);
        while (!(legal & (1u << k)))
            k = (k + 1) % r->pits;
        record_push(g, k);
        kalah_sow(r, &p, k, NULL);
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    const char *specs[] = {"kalah", "kalah:pits=4,seeds=3,capture=always", "kalah:pits=7,seeds=5,end=mover-empty",
                           "kalah:max_sows=30"};
    const char *path = tu_tmp_path("record_rt.pgn");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    record_game w[8];
    char err[RECORD_ERRLEN];
    for (int i = 0; i < 8; i++) {
        kalah_rules r;
        assert_int_equal(kalah_rules_parse(specs[i % 4], &r, NULL), KALAH_OK);
        random_game(&r, (uint64_t)i + 11, i == 5 ? 7 : 0, &w[i]);
        record_set(&w[i].south, "ab:depth=3,seed=\"quoted\"\\x");
        record_set(&w[i].north, "greedy");
        record_set(&w[i].event, "round trip");
        if (i == 2)
            record_set(&w[i].north_name, "G");
        w[i].round = i + 1;
        w[i].opening = i % 3;
        if (record_write(f, &w[i], err))
            fail_msg("write %d: %s", i, err);
    }
    fclose(f);
    record_game *got;
    int n;
    if (record_read_file(path, &got, &n, err))
        fail_msg("read: %s", err);
    assert_int_equal(n, 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(got[i].n_moves, w[i].n_moves);
        assert_memory_equal(got[i].moves, w[i].moves, (size_t)w[i].n_moves);
        assert_int_equal(got[i].result, w[i].result);
        assert_int_equal(got[i].store_south, w[i].store_south);
        assert_int_equal(got[i].store_north, w[i].store_north);
        assert_string_equal(got[i].south, w[i].south);
        assert_string_equal(got[i].north, "greedy");
        assert_string_equal(got[i].event, "round trip");
        assert_int_equal(got[i].round, i + 1);
        assert_int_equal(got[i].opening, i % 3);
        assert_string_equal(game_spec(got[i].game), game_spec(w[i].game));
        assert_memory_equal(&got[i].gfinal, &w[i].gfinal, sizeof got[i].gfinal);
        if (i == 2)
            assert_string_equal(got[i].north_name, "G");
        else
            assert_null(got[i].north_name);
    }
    assert_int_equal(got[5].result, RECORD_UNFINISHED);
    assert_int_not_equal(w[0].result, RECORD_UNFINISHED);
    record_games_free(got, n);
    for (int i = 0; i < 8; i++)
        record_game_clear(&w[i]);
}

/* A hand-written record: minimal tags, moves over two lines, no Start, unknown tags skipped. */
static void test_hand_written(void **state)
{
    (void)state;
    const char *path = tu_tmp_path("record_hand.pgn");
    tu_write_text(path, "\n\n[Date \"2026.01.01\"]\n[South \"human\"]\n[North \"random\"]\n[Result \"*\"]\n\n"
                     "c f\nA\n*\n\n\n"
                     "[South \"x\"]\n[North \"y\"]\n[Result \"*\"]\n[Score \"0-0\"]\n\n*\n");
    record_game *g;
    int n;
    char err[RECORD_ERRLEN];
    if (record_read_file(path, &g, &n, err))
        fail_msg("%s", err);
    assert_int_equal(n, 2);
    assert_int_equal(g[0].n_moves, 3);
    assert_int_equal(g[0].moves[0], 2);
    assert_int_equal(g[0].moves[1], 5); /* c is an extra turn: f is South's again */
    assert_int_equal(g[0].moves[2], 0);
    assert_int_equal(g[0].store_south, 2);
    assert_int_equal(g[0].line, 3);
    assert_int_equal(g[1].n_moves, 0);
    assert_int_equal(g[1].line, 13);
    record_games_free(g, n);
}

/* Each malformed record gives an error naming the file and the offending line. */
static void test_errors_name_the_line(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int line;
        const char *words;
    } cases[] = {
        {"[South \"a\"]\n[North \"b\"]\n[Result \"*\"]\n\nc f A\na z *\n", 6, "not a move of this board"},
        {"[South \"a\"]\n[North \"b\"]\n[Result \"*\"]\n\nc\nc *\n", 6, "an empty pit"},
        {"[South \"a\"]\n[North \"b\"]\n[Result \"*\"]\n\nc A *\n", 5, "South is to move"},
        {"[South \"a\"]\n[North \"b\"\n[Result \"*\"]\n\nc *\n", 2, "malformed tag"},
        {"[South \"a\"]\n[North \"b\"]\n[Result \"1-0\"]\n\nc f A\n1-0\n", 3, "replaying the moves"},
        {"[South \"a\"]\n[North \"b\"]\n[Result \"*\"]\n\nc f A\n1-0\n", 6, "[Result] says"},
        {"[South \"a\"]\n[North \"b\"]\n[Result \"*\"]\n\nc f A\n", 5, "without a result"},
        {"[South \"a\"]\n[Result \"*\"]\n\n*\n", 1, "no [North]"},
        {"[South \"a\"]\n[North \"b\"]\n[Rules \"kalah:pits=9\"]\n[Result \"*\"]\n\n*\n", 3, "pits"},
        {"[South \"a\"]\n[North \"b\"]\n[Start \"4,4,4 S\"]\n[Result \"*\"]\n\n*\n", 3, "Start"},
        {"[South \"a\"]\n[North \"b\"]\n[Result \"*\"]\n[Score \"3-0\"]\n\nc *\n", 4, "Score"},
        {"[South \"a\"]\n[North \"b\"]\n[Result \"*\"]\n[South \"c\"]\n\n*\n", 4, "twice"},
        {"c f A *\n", 1, "expected a tag"},
        {"[South \"a\"]\n[North \"b\"]\n[Result \"*\"]\n\n* c\n", 5, "after the result"},
        {"[South \"a\"]\n[North \"b\"]\n[Result \"*\"]\n[Opening \"4\"]\n\nc *\n", 4, "Opening"},
        /* result-only: a Score that says the other player won; moves that contradict the result */
        {"[South \"a\"]\n[North \"b\"]\n[Result \"1-0\"]\n[Score \"20-28\"]\n\n1-0\n", 4, "contradicts"},
        {"[South \"a\"]\n[North \"b\"]\n[Result \"0-1\"]\n\nc\n0-1\n", 3, "replaying the moves"},
    };
    /* A good game first, so the line numbers of the bad one are offset. */
    const char *good = "[South \"g\"]\n[North \"h\"]\n[Result \"*\"]\n\nc\n*\n\n";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = tu_tmp_path("record_bad.pgn");
        char text[1024];
        snprintf(text, sizeof text, "%s%s", good, cases[i].text);
        tu_write_text(path, text);
        record_game *g;
        int n;
        char err[RECORD_ERRLEN], want[600];
        int rc = record_read_file(path, &g, &n, err);
        if (rc == RECORD_OK)
            fail_msg("case %zu: accepted", i);
        assert_null(g);
        snprintf(want, sizeof want, "%s:%d:", path, cases[i].line + 7);
        if (strncmp(err, want, strlen(want)) || !strstr(err, cases[i].words))
            fail_msg("case %zu: got '%s', want '%s ...%s...'", i, err, want, cases[i].words);
    }
}

/* A record with a result and no moves is a result-only game (the result as given, stores from [Score]);
 * it is written back without [Score] and read again the same. */
static void test_result_only(void **state)
{
    (void)state;
    const char *path = tu_tmp_path("record_ro.pgn");
    tu_write_text(path, "[South \"x\"]\n[North \"y\"]\n[Result \"1-0\"]\n[Score \"30-18\"]\n\n1-0\n\n"
                     "[South \"y\"]\n[North \"x\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n"
                     "[South \"x\"]\n[North \"y\"]\n[Result \"*\"]\n\n*\n");
    record_game *g;
    int n;
    char err[RECORD_ERRLEN];
    if (record_read_file(path, &g, &n, err))
        fail_msg("%s", err);
    assert_int_equal(n, 3);
    assert_int_equal(g[0].result_only, 1);
    assert_int_equal(g[0].result, RECORD_SOUTH_WINS);
    assert_int_equal(g[0].store_south, 30);
    assert_int_equal(g[0].store_north, 18);
    assert_int_equal(g[0].n_moves, 0);
    assert_int_equal(g[1].result_only, 1);
    assert_int_equal(g[1].result, RECORD_DRAW);
    assert_int_equal(g[2].result_only, 0); /* "*" without moves: an unfinished game, as before */
    assert_int_equal(g[2].result, RECORD_UNFINISHED);
    const char *back = tu_tmp_path("record_ro2.pgn");
    FILE *f = fopen(back, "w");
    assert_non_null(f);
    for (int i = 0; i < n; i++)
        assert_int_equal(record_write(f, &g[i], err), RECORD_OK);
    fclose(f);
    record_game *h;
    int m;
    if (record_read_file(back, &h, &m, err))
        fail_msg("%s", err);
    assert_int_equal(m, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(h[i].result, g[i].result);
        assert_int_equal(h[i].result_only, g[i].result_only);
    }
    record_games_free(h, m);
    record_games_free(g, n);
}

/* record_write refuses a game with an illegal move, and a finished game's result comes from the replay. */
static void test_writer_checks(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    record_game g;
    kalah_record(&r, &g);
    record_set(&g.south, "a");
    record_set(&g.north, "b");
    record_push(&g, 2);
    record_push(&g, 2); /* c again: empty after the extra turn */
    char err[RECORD_ERRLEN];
    FILE *f = fopen(tu_tmp_path("record_w.pgn"), "w");
    assert_int_equal(record_write(f, &g, err), RECORD_EINVAL);
    assert_non_null(strstr(err, "move 2 'c'"));
    g.n_moves = 1;
    assert_int_equal(record_write(f, &g, err), RECORD_OK);
    record_set(&g.north, NULL);
    assert_int_equal(record_write(f, &g, err), RECORD_EINVAL);
    fclose(f);
    record_game_clear(&g);
    assert_string_equal(record_result_token(RECORD_DRAW), "1/2-1/2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_hand_written),
        cmocka_unit_test(test_errors_name_the_line),
        cmocka_unit_test(test_writer_checks),
        cmocka_unit_test(test_result_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
