/* test_kalah.c — the Kalah rules against the team's independently checked vectors (shared/vectors),
 * notation round trips and errors, seed conservation, and the perft/replay commands. */
#include "tests/test_util.h"

#include <cjson/cJSON.h>
#include "env/kalah.h"

static void parse_rules_or_fail(const char *spec, kalah_rules *r)
{
    char err[KALAH_ERRLEN];
    if (kalah_rules_parse(spec, r, err) != KALAH_OK)
        fail_msg("rules '%s': %s", spec, err);
}

static void test_move_vectors(void **state)
{
    (void)state;
    FILE *f = tu_open_vector("moves.txt");
    char line[512], err[KALAH_ERRLEN], buf[80];
    int count = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[8];
        assert_int_equal(tu_split(line, fl, 8), 8);
        kalah_rules r;
        kalah_pos p, want;
        parse_rules_or_fail(fl[0], &r);
        if (kalah_pos_parse(fl[1], &r, &p, NULL, err) != KALAH_OK)
            fail_msg("%s: %s", fl[1], err);
        if (kalah_pos_parse(fl[3], NULL, &want, NULL, err) != KALAH_OK)
            fail_msg("%s: %s", fl[3], err);
        int k = kalah_move_parse(&r, p.side, fl[2], 0);
        assert_true(k >= 0);
        kalah_step st;
        assert_int_equal(kalah_play(&r, &p, k, &st), KALAH_OK);
        kalah_pos_format(&r, &p, buf, sizeof buf);
        if (strcmp(buf, fl[3]))
            fail_msg("%s from '%s' under %s: got '%s', want '%s'", fl[2], fl[1], fl[0], buf, fl[3]);
        assert_int_equal(st.extra_turn, atoi(fl[4]));
        assert_int_equal(st.captured, atoi(fl[5]));
        assert_int_equal(st.over, atoi(fl[6]));
        assert_int_equal(p.over, atoi(fl[6]));
        const char *w = !p.over ? "-" : kalah_winner(&r, &p) > 0 ? "S" : kalah_winner(&r, &p) < 0 ? "N" : "draw";
        assert_string_equal(w, fl[7]);
        count++;
    }
    fclose(f);
    assert_true(count >= 20);
}

static void test_perft_vectors(void **state)
{
    (void)state;
    FILE *f = tu_open_vector("perft.txt");
    char line[512], err[KALAH_ERRLEN];
    int count = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[4];
        assert_int_equal(tu_split(line, fl, 4), 4);
        kalah_rules r;
        kalah_pos p;
        parse_rules_or_fail(fl[0], &r);
        if (kalah_pos_parse(fl[1], &r, &p, NULL, err) != KALAH_OK)
            fail_msg("%s: %s", fl[1], err);
        int depth = atoi(fl[2]);
        uint64_t nodes[64];
        kalah_perft(&r, &p, depth, nodes);
        if (nodes[depth - 1] != strtoull(fl[3], NULL, 10))
            fail_msg("perft %d under %s: got %llu, want %s", depth, fl[0], (unsigned long long)nodes[depth - 1], fl[3]);
        count++;
    }
    fclose(f);
    assert_true(count >= 30);
}

static void test_rules_spec(void **state)
{
    (void)state;
    kalah_rules r;
    char err[KALAH_ERRLEN], buf[128];
    assert_int_equal(kalah_rules_parse("kalah", &r, err), KALAH_OK);
    assert_string_equal(kalah_rules_format(&r, buf, sizeof buf),
                        "kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0");
    assert_int_equal(kalah_rules_parse("kalah:seeds=3,capture=always,pits=4,end=mover-empty,max_sows=400", &r, err), KALAH_OK);
    assert_int_equal(r.pits, 4);
    assert_int_equal(r.seeds, 3);
    assert_int_equal(r.capture, KALAH_CAPTURE_ALWAYS);
    assert_int_equal(r.end, KALAH_END_MOVER_EMPTY);
    assert_int_equal(r.max_sows, 400);
    kalah_rules again;
    assert_int_equal(kalah_rules_parse(kalah_rules_format(&r, buf, sizeof buf), &again, err), KALAH_OK);
    assert_memory_equal(&r, &again, sizeof r);

    static const struct { const char *spec, *needle; } bad[] = {
        {"oware", "unknown game"},          {"kalah:pit=6", "unknown kalah rules key 'pit'"},
        {"kalah:pits=0", "pits"},           {"kalah:pits=8", "pits"},
        {"kalah:seeds=x", "seeds"},         {"kalah:capture=sometimes", "capture"},
        {"kalah:end=never", "end"},         {"kalah:seeds=19", "seeds"},
        {"kalah:pits=6,pits=4", "twice"},   {"kalah:pits", "key=value"},
        {"kalah:max_sows=-1", "max_sows"},  {"kalahx", "unknown game"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_int_equal(kalah_rules_parse(bad[i].spec, &r, err), KALAH_EINVAL);
        if (!strstr(err, bad[i].needle))
            fail_msg("spec '%s': message '%s' does not name '%s'", bad[i].spec, err, bad[i].needle);
    }
}

static void test_position_notation(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    kalah_pos p;
    char err[KALAH_ERRLEN], buf[80];
    int pits;
    const char *good[] = {"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "2,1,13,0,3,2,10,1,2,0,3,4,1,6 N"};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(kalah_pos_parse(good[i], &r, &p, &pits, err), KALAH_OK);
        assert_int_equal(pits, 6);
        assert_string_equal(kalah_pos_format(&r, &p, buf, sizeof buf), good[i]);
    }
    kalah_start(&r, &p);
    assert_string_equal(kalah_pos_format(&r, &p, buf, sizeof buf), "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");

    static const struct { const char *text, *needle; } bad[] = {
        {"4,4,4,4,4,4,0,4,4,4,4,4,4 S", "13 counts"},
        {"4,4,4,4,4,4,0,4,4,4,4,4,4,0,0 S", "15 counts"},
        {"4,4,4,4,4,4,0,4,4,x,4,4,4,0 S", "field 10"},
        {"4,4,4,4,4,4,0,4,4,-4,4,4,4,8 S", "negative"},
        {"4,4,4,4,4,4,0,4,4,4,4,4,4,0 W", "S or N"},
        {"4,4,4,4,4,4,0,4,4,4,4,4,4,0", "S or N"},
        {"4,4,4,4,4,4,0,4,4,4,4,4,4,1 S", "49 seeds"},
        {"2,2,2,2,0,2,2,2,2,0 S", "pits=6"},
        {"4,4,,4,4,4,0,4,4,4,4,4,4,0 S", "field 3"},
        {"", "field 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_int_equal(kalah_pos_parse(bad[i].text, &r, &p, &pits, err), KALAH_EINVAL);
        if (!strstr(err, bad[i].needle))
            fail_msg("position '%s': message '%s' does not name '%s'", bad[i].text, err, bad[i].needle);
    }
    /* Moves: letters of the mover's row, numbers when allowed, the opponent's row refused. */
    assert_int_equal(kalah_move_parse(&r, KALAH_SOUTH, "c", 0), 2);
    assert_int_equal(kalah_move_parse(&r, KALAH_NORTH, "F", 0), 5);
    assert_int_equal(kalah_move_parse(&r, KALAH_SOUTH, "C", 0), KALAH_EILLEGAL);
    assert_int_equal(kalah_move_parse(&r, KALAH_SOUTH, "g", 0), KALAH_EINVAL);
    assert_int_equal(kalah_move_parse(&r, KALAH_SOUTH, "3", 0), KALAH_EINVAL);
    assert_int_equal(kalah_move_parse(&r, KALAH_NORTH, "3", 1), 2);
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 6; k++) {
            char mv[2] = {kalah_move_letter(s, k), 0};
            assert_int_equal(kalah_move_parse(&r, s, mv, 0), k);
        }
}

/* Random games under many rule sets: seeds are conserved by every sowing, legal masks match the rows,
 * finished games are swept, and illegal moves are refused without changing the position. */
static void test_conservation_random_games(void **state)
{
    (void)state;
    uint64_t rng = 0x243F6A8885A308D3ull;
    for (int m = 1; m <= 7; m++)
        for (int seeds = 1; seeds <= 6; seeds++)
            for (int cap = 0; cap < 3; cap++)
                for (int end = 0; end < 2; end++) {
                    kalah_rules r = {m, seeds, (kalah_capture)cap, (kalah_end)end, (m * seeds) % 3 ? 0 : 60};
                    if (kalah_rules_check(&r, NULL) != KALAH_OK)
                        continue;
                    int total = 2 * m * seeds;
                    for (int g = 0; g < 20; g++) {
                        kalah_pos p;
                        kalah_start(&r, &p);
                        while (!p.over) {
                            unsigned legal = kalah_legal(&r, &p);
                            assert_true(legal != 0);
                            for (int k = 0; k < m; k++)
                                assert_int_equal(!!(legal & (1u << k)), p.cell[kalah_pit_index(&r, p.side, k)] > 0);
                            kalah_pos before = p;
                            for (int k = 0; k < m; k++)
                                if (!(legal & (1u << k))) {
                                    assert_int_equal(kalah_play(&r, &p, k, NULL), KALAH_EILLEGAL);
                                    assert_memory_equal(&before, &p, sizeof p);
                                }
                            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                            int pick = (int)(rng % (uint64_t)__builtin_popcount(legal));
                            unsigned l = legal;
                            while (pick--)
                                l &= l - 1;
                            kalah_step st;
                            assert_int_equal(kalah_play(&r, &p, __builtin_ctz(l), &st), KALAH_OK);
                            assert_int_equal(kalah_total(&r, &p), total);
                            assert_false(st.extra_turn && st.captured);
                            assert_int_equal(p.side, st.extra_turn || (st.over && st.last == kalah_store(&r, before.side))
                                                         ? before.side : !before.side);
                            if (r.max_sows)
                                assert_true(p.sows <= r.max_sows);
                        }
                        assert_int_equal(p.cell[r.pits] + p.cell[2 * r.pits + 1], total);
                        assert_int_equal(kalah_legal(&r, &p), 0);
                        assert_int_equal(kalah_play(&r, &p, 0, NULL), KALAH_EOVER);
                    }
                }
}

static void test_encode(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    kalah_pos p;
    char err[KALAH_ERRLEN];
    assert_int_equal(kalah_pos_parse("2,1,13,0,3,2,10,1,2,0,3,4,1,6 N", &r, &p, NULL, err), KALAH_OK);
    float x[14];
    kalah_encode(&r, &p, x);
    const float want[14] = {1, 2, 0, 3, 4, 1, 2, 1, 13, 0, 3, 2, 6, 10};
    for (int i = 0; i < 14; i++)
        assert_float_equal(x[i], want[i] / 4.0f, 1e-7);
}

static void test_cli_perft_and_replay(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 0, "perft 5 --rules kalah:capture=always --json"), 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    cJSON *nodes = cJSON_GetObjectItem(o, "nodes");
    assert_int_equal(cJSON_GetArraySize(nodes), 5);
    assert_int_equal((int)cJSON_GetArrayItem(nodes, 4)->valuedouble, 4685);
    assert_string_equal(cJSON_GetObjectItem(o, "position")->valuestring, "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
    cJSON_Delete(o);
    free(out);

    /* The extra-turn chain of moves.txt as one record: the last move captures and ends the game. */
    assert_int_equal(tu_run(&out, 0, "replay --position '0,0,0,3,2,1,4,4,4,4,4,4,4,14 S' f e f d f e --json"), 0);
    o = cJSON_Parse(out);
    assert_non_null(o);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "positions")), 6);
    assert_true(cJSON_IsTrue(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "extra_turn"), 0)));
    assert_int_equal((int)cJSON_GetArrayItem(cJSON_GetObjectItem(o, "captured"), 5)->valuedouble, 5);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "over")));
    assert_string_equal(cJSON_GetObjectItem(o, "winner")->valuestring, "N");
    assert_int_equal((int)cJSON_GetArrayItem(cJSON_GetObjectItem(o, "stores"), 1)->valuedouble, 34);
    cJSON_Delete(o);
    free(out);

    assert_int_equal(tu_run(&out, 0, "replay a b --json"), 2);
    assert_string_equal(out, ""); /* nothing printed for a record with an illegal move */
    free(out);
    assert_int_equal(tu_run(&out, 1, "replay c c"), 2);
    assert_non_null(strstr(out, "move 2"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "replay a A b X"), 2);
    assert_non_null(strstr(out, "move 4"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "perft 3 --rules kalah:pits=9"), 2);
    assert_non_null(strstr(out, "pits"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "perft zero"), 2);
    assert_non_null(strstr(out, "DEPTH"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "perft 2 --bogus"), 2);
    free(out);
}

static void test_cli_replay_record(void **state)
{
    (void)state;
    char path[512], *out;
    snprintf(path, sizeof path, "%s/replay_test.pgn", SOWZERO_TMP);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    /* Two games; the second is the extra-turn chain of moves.txt, which ends 14-34 in North's favour. */
    fputs("[Event \"t\"]\n[South \"human\"]\n[North \"human\"]\n[Rules \"kalah\"]\n[Result \"*\"]\n\nc f *\n\n"
          "[Event \"t\"]\n[South \"a\"]\n[North \"b\"]\n[Rules \"kalah\"]\n"
          "[Start \"0,0,0,3,2,1,4,4,4,4,4,4,4,14 S\"]\n[Result \"0-1\"]\n\nf e f d f e 0-1\n\n", f);
    fclose(f);
    assert_int_equal(tu_run(&out, 0, "replay --pgn '%s' --game 2 --json", path), 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "positions")), 6);
    assert_string_equal(cJSON_GetObjectItem(o, "winner")->valuestring, "N");
    cJSON_Delete(o);
    free(out);
    assert_int_equal(tu_run(&out, 0, "replay --pgn '%s' --json", path), 0);
    assert_non_null(strstr(out, "\"over\":false"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "replay --pgn '%s' --game 3", path), 2);
    assert_non_null(strstr(out, "--game 3: the file has 2 games"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "replay --pgn '%s' c", path), 2);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_move_vectors),        cmocka_unit_test(test_perft_vectors),
        cmocka_unit_test(test_rules_spec),          cmocka_unit_test(test_position_notation),
        cmocka_unit_test(test_conservation_random_games), cmocka_unit_test(test_encode),
        cmocka_unit_test(test_cli_perft_and_replay), cmocka_unit_test(test_cli_replay_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
