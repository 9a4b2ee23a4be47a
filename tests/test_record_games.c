/* test_record_games.c — the one record format of every game (eval/record.h): round trips of
 * every registered game's records through writer and reader, `replay --pgn` against `replay` with the
 * moves for each game, `elo` on a file mixing games, bad records (each error named with its line), and
 * Kalah records written before (tests/records/kalah-v1.pgn, by the Kalah-only writer) read and rewritten
 * byte for byte. */
#define _GNU_SOURCE
#include "tests/test_util.h"

#include <cjson/cJSON.h>
#include "eval/record.h"

/* A pseudo-random game of gm (stop > 0: at most stop plies, else to the end) with seat specs seat0..;
 * the caller clears it. */
static void random_game(const game *gm, uint64_t seed, int stop, record_game *g)
{
    assert_int_equal(record_game_init_game(g, gm, NULL, NULL), RECORD_OK);
    for (int q = 0; q < game_players(gm); q++) {
        char spec[32], name[32];
        snprintf(spec, sizeof spec, "random:seed=%d", q + 1);
        snprintf(name, sizeof name, "p \"%d\"", q); /* a quote: escaped in the tag */
        assert_int_equal(record_set_seat(g, q, spec, q == 1 ? name : NULL), RECORD_OK);
    }
    assert_int_equal(record_set(&g->event, "test"), RECORD_OK);
    g->round = 7;
    game_pos p = g->gstart;
    for (int ply = 0; !p.over && (!stop || ply < stop) && ply < 5000; ply++) {
        unsigned legal = game_legal(gm, &p);
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((seed >> 33) % (unsigned)game_moves(gm));
        while (!(legal & (1u << k)))
            k = (k + 1) % game_moves(gm);
        assert_int_equal(record_push(g, k), RECORD_OK);
        assert_int_equal(game_apply(gm, &p, k, NULL), GAME_OK);
    }
    g->opening = g->n_moves > 2 ? 2 : 0;
}

static char *write_string(record_game *g)
{
    char *text = NULL, err[RECORD_ERRLEN];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    if (record_write(f, g, err) != RECORD_OK)
        fail_msg("record_write: %s", err);
    fclose(f);
    char *copy = strdup(text); /* a copy, so the compiler sees no pointer into this frame */
    free(text);
    return copy;
}

/* Every example rules spec of every registered game: a finished and an unfinished game written, read
 * back (the same spec, start, seats, moves, result and places as the independent replay) and written
 * again to the same text. */
static void test_round_trip_every_game(void **state)
{
    (void)state;
    int specs = 0;
    for (int i = 0; game_kind_at(i); i++) {
        const game_kind *k = game_kind_at(i);
        for (int e = 0; k->examples[e]; e++, specs++) {
            game *gm = tu_game(k->examples[e]);
            int np = game_players(gm);
            for (int stop = 0; stop <= 9; stop += 9) {
                record_game g, back;
                random_game(gm, 11 + (uint64_t)e, stop, &g);
                char *text = write_string(&g), err[RECORD_ERRLEN];
                if (record_read_text(text, "rt", &back, err) != RECORD_OK)
                    fail_msg("%s: %s\n%s", k->examples[e], err, text);
                assert_string_equal(game_spec(back.game), game_spec(gm));
                assert_int_equal(back.players, np);
                assert_int_equal(back.n_moves, g.n_moves);
                assert_memory_equal(back.moves, g.moves, (size_t)g.n_moves);
                assert_memory_equal(&back.gstart, &g.gstart, sizeof g.gstart);
                assert_int_equal(back.round, 7);
                assert_int_equal(back.opening, g.opening);
                for (int q = 0; q < np; q++)
                    assert_string_equal(record_seat(&back, q), record_seat(&g, q));
                assert_string_equal(record_player(&back, 1), "p \"1\"");
                /* The independent replay: values → places, as env/game.h defines them. */
                game_pos p = g.gstart;
                for (int m = 0; m < g.n_moves; m++)
                    game_apply(gm, &p, g.moves[m], NULL);
                double v[GAME_MAX_PLAYERS];
                game_values(gm, &p, v);
                for (int q = 0; q < np; q++) {
                    int place = 1;
                    for (int r = 0; r < np; r++)
                        place += v[r] > v[q];
                    assert_int_equal(back.places[q], p.over ? place : 0);
                }
                if (!p.over)
                    assert_int_equal(back.result, RECORD_UNFINISHED);
                else if (np > 2)
                    assert_int_equal(back.result, RECORD_RANKED);
                else
                    assert_int_equal(back.result, (v[0] > v[1]) - (v[0] < v[1]));
                assert_int_equal(stop ? 1 : p.over, 1);
                char *again = write_string(&back);
                assert_string_equal(again, text);
                /* Seat tags: South/North for two players, Seat0.. for more. */
                assert_non_null(strstr(text, np == 2 ? "[North \"random:seed=2\"]" : "[Seat2 \"random:seed=3\"]"));
                free(again);
                free(text);
                record_game_clear(&back);
                record_game_clear(&g);
            }
            game_free(gm);
        }
    }
    assert_true(specs >= 8);
}

/* Kalah records written by the Kalah-only writer read, and rewritten through either set-up are the same
 * bytes (the format did not change for Kalah). */
static void test_kalah_old_records(void **state)
{
    (void)state;
    const char *path = SOWZERO_SOURCE_DIR "/tests/records/kalah-v1.pgn";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *orig = NULL;
    size_t cap = 0;
    ssize_t got = getdelim(&orig, &cap, 0, f);
    fclose(f);
    assert_true(got > 0);
    record_game *games;
    int n;
    char err[RECORD_ERRLEN];
    if (record_read_file(path, &games, &n, err) != RECORD_OK)
        fail_msg("%s", err);
    assert_int_equal(n, 4);
    char *all = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&all, &len);
    for (int i = 0; i < n; i++) {
        assert_string_equal(game_name(games[i].game), "kalah");
        assert_int_equal(record_write(m, &games[i], err), RECORD_OK);
        /* The same game set up through the game interface writes the same record. */
        record_game g;
        assert_int_equal(record_game_init_game(&g, games[i].game, &games[i].gstart, err), RECORD_OK);
        record_set_seat(&g, 0, games[i].south, games[i].south_name);
        record_set_seat(&g, 1, games[i].north, games[i].north_name);
        record_set(&g.event, games[i].event);
        g.round = games[i].round;
        g.opening = games[i].opening;
        for (int k = 0; k < games[i].n_moves; k++)
            record_push(&g, games[i].moves[k]);
        char *a = write_string(&g), *b = write_string(&games[i]);
        assert_string_equal(a, b);
        free(a);
        free(b);
        record_game_clear(&g);
    }
    fclose(m);
    assert_string_equal(all, orig);
    free(all);
    free(orig);
    record_games_free(games, n);
}

/* One bad record: the reader refuses it with a message holding `want` (file and line included). */
static void expect_bad(const char *text, const char *want)
{
    record_game g;
    char err[RECORD_ERRLEN] = "";
    int rc = record_read_text(text, "bad.pgn", &g, err);
    if (rc == RECORD_OK)
        record_game_clear(&g);
    if (rc != RECORD_EINVAL || !strstr(err, want))
        fail_msg("rc %d, message '%s', wanted '%s' for\n%s", rc, err, want, text);
}

#define B3 "[Seat0 \"a\"]\n[Seat1 \"b\"]\n[Seat2 \"c\"]\n[Rules \"basico:players=3,pits=4,seeds=3\"]\n"
#define OW "[South \"a\"]\n[North \"b\"]\n[Rules \"oware\"]\n"

static void test_bad_records(void **state)
{
    (void)state;
    expect_bad("[Seat0 \"a\"]\n[Seat1 \"b\"]\n[Rules \"basico:players=3\"]\n[Result \"*\"]\n\n*\n",
               "bad.pgn:1: the game has no [Seat2] tag");
    expect_bad("[South \"a\"]\n[Rules \"oware\"]\n[Result \"*\"]\n\n*\n", "bad.pgn:1: the game has no [North] tag");
    expect_bad(OW "[Result \"*\"]\n\na A g *\n", "bad.pgn:6: move 3 'g'");
    expect_bad(OW "[Result \"*\"]\n\na b *\n", "bad.pgn:6: move 2 'b'");
    expect_bad(OW "[Result \"1-0\"]\n\na A 1-0\n", "bad.pgn:4: [Result \"1-0\"] but replaying the moves gives an "
                                                  "unfinished game");
    expect_bad(OW "[Result \"1-0\"]\n\na A 0-1\n", "bad.pgn:6: the moves end with '0-1' but [Result] says \"1-0\"");
    expect_bad(OW "[Start \"4,4,x\"]\n[Result \"*\"]\n\n*\n", "bad.pgn:4: [Start \"4,4,x\"]");
    expect_bad("[South \"a\"]\n[North \"b\"]\n[Rules \"oware:pits=99\"]\n[Result \"*\"]\n\n*\n",
               "bad.pgn:3: [Rules \"oware:pits=99\"]");
    expect_bad(B3 "[Result \"1-0\"]\n\n1-0\n", "bad.pgn:5: [Result \"1-0\"] is not the places per seat");
    expect_bad(B3 "[Result \"1-1-2\"]\n\n1-1-2\n", "bad.pgn:5: [Result \"1-1-2\"] is not the places");
    expect_bad(B3 "[Result \"2-1-3\"]\n\na 1-2-3\n", "the moves end with '1-2-3' but [Result] says \"2-1-3\"");
    expect_bad(B3 "[Result \"*\"]\n[Score \"3-4\"]\n\na *\n", "bad.pgn:6: [Score] in a game without a two-player score");
    expect_bad(OW "[Result \"*\"]\n[Score \"3-4\"]\n\na *\n", "bad.pgn:5: [Score \"3-4\"] but replaying the moves "
                                                           "gives 0-0");
    expect_bad(OW "[Result \"*\"]\n\na A\n", "bad.pgn:6: the moves end without a result");
    /* A finished game's true result in the tag, a different one in the move text... and the real end. */
    game *gm = tu_game("basico:players=3,pits=4,seeds=3");
    record_game g;
    random_game(gm, 5, 0, &g);
    char *text = write_string(&g), res[16];
    record_result_text(&g, res, sizeof res);
    char *r = strstr(text, "[Result \"");
    assert_non_null(r);
    char wrong[16];
    snprintf(wrong, sizeof wrong, "%s", g.places[0] == 1 ? "2-1-3" : "1-2-3");
    if (!strcmp(wrong, res))
        snprintf(wrong, sizeof wrong, "3-2-1");
    memcpy(r + 9, wrong, 5); /* every 3-player token is 5 characters */
    char *end = strstr(text, res);
    while (end && strstr(end + 1, res))
        end = strstr(end + 1, res);
    memcpy(end, wrong, 5);
    char want[64];
    snprintf(want, sizeof want, "but replaying the moves gives %s", res);
    expect_bad(text, want);
    free(text);
    record_game_clear(&g);
    game_free(gm);
}

/* Result-only records of every kind read as results; two-player records with Seat0/Seat1 (serve's older
 * layout) read as South/North. */
static void test_result_only_and_aliases(void **state)
{
    (void)state;
    record_game g;
    char err[RECORD_ERRLEN];
    assert_int_equal(record_read_text(B3 "[Result \"2-1-3\"]\n\n2-1-3\n", "r", &g, err), RECORD_OK);
    assert_true(g.result_only);
    assert_int_equal(g.result, RECORD_RANKED);
    assert_int_equal(g.places[0], 2);
    assert_int_equal(g.places[1], 1);
    assert_int_equal(g.places[2], 3);
    assert_string_equal(record_player(&g, 2), "c");
    record_game_clear(&g);
    assert_int_equal(record_read_text("[Seat0 \"h\"]\n[Seat1 \"g\"]\n[Rules \"congklak\"]\n[Result \"0-1\"]\n\n0-1\n",
                                      "r", &g, err), RECORD_OK);
    assert_true(g.result_only);
    assert_int_equal(g.result, RECORD_NORTH_WINS);
    assert_string_equal(g.south, "h");
    assert_string_equal(g.north, "g");
    assert_int_equal(g.places[0], 2);
    assert_int_equal(g.places[1], 1);
    record_game_clear(&g);
}

/* `replay --pgn F --game N --json` prints what `replay --rules R --position P MOVES... --json` prints, for a
 * game of every registered kind; `elo` rates a file that mixes them. */
static void test_cli_every_game(void **state)
{
    (void)state;
    const char *path = tu_tmp_path("record_games_mixed.pgn");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    int n = 0, pairs = 0;
    for (int i = 0; game_kind_at(i); i++) {
        game *gm = tu_game(game_kind_at(i)->examples[0]);
        record_game g;
        random_game(gm, 3, 0, &g);
        for (int q = 0; q < game_players(gm); q++) /* two players rated, whatever the game */
            record_set_seat(&g, q, q % 2 ? "random" : "greedy", NULL);
        char err[RECORD_ERRLEN];
        assert_int_equal(record_write(f, &g, err), RECORD_OK);
        fflush(f);
        n++;
        int np = game_players(gm);
        for (int q = 0; q < np; q++)
            for (int o = q + 1; o < np; o++)
                pairs += q % 2 != o % 2;
        /* The moves typed on the command line. */
        char cmd[4096], pos[GAME_POS_STR];
        int at = snprintf(cmd, sizeof cmd, "replay --json --rules '%s' --position '%s'", game_spec(gm),
                          game_pos_format(gm, &g.gstart, pos, sizeof pos));
        game_pos p = g.gstart;
        for (int m = 0; m < g.n_moves && at < (int)sizeof cmd - 16; m++) {
            char mv[8];
            at += snprintf(cmd + at, sizeof cmd - (size_t)at, " %s", game_move_format(gm, &p, g.moves[m], mv, 8));
            game_apply(gm, &p, g.moves[m], NULL);
        }
        assert_true(at < (int)sizeof cmd - 16);
        char *a, *b;
        assert_int_equal(tu_run(&a, 0, "%s", cmd), 0);
        assert_int_equal(tu_run(&b, 0, "replay --json --pgn '%s' --game %d", path, n), 0);
        assert_string_equal(b, a);
        cJSON *o = cJSON_Parse(b);
        assert_non_null(o);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "over")));
        cJSON_Delete(o);
        free(a);
        free(b);
        record_game_clear(&g);
        game_free(gm);
    }
    fclose(f);
    char *out;
    assert_int_equal(tu_run(&out, 0, "elo --json '%s'", path), 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    assert_int_equal((int)cJSON_GetObjectItemCaseSensitive(o, "games")->valuedouble, pairs);
    assert_true(cJSON_GetObjectItemCaseSensitive(o, "ranked")->valuedouble >= 1); /* básico: 3+ players */
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "ratings")), 2);
    cJSON_Delete(o);
    free(out);
    /* A bad record: exit 2, the file and line named. */
    tu_write_text(tu_tmp_path("record_games_bad.pgn"), OW "[Result \"*\"]\n\na b *\n");
    assert_int_equal(tu_run(&out, 1, "replay --pgn '%s'", tu_tmp_path("record_games_bad.pgn")), 2);
    assert_non_null(strstr(out, "record_games_bad.pgn:6: move 2 'b'"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "elo '%s'", tu_tmp_path("record_games_bad.pgn")), 2);
    assert_non_null(strstr(out, "record_games_bad.pgn:6: move 2 'b'"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_game), cmocka_unit_test(test_kalah_old_records),
        cmocka_unit_test(test_bad_records),           cmocka_unit_test(test_result_only_and_aliases),
        cmocka_unit_test(test_cli_every_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
