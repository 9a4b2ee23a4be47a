/* test_congklak.c — Congklak (docs/design.md §1.3) against the team's vectors (congklak-moves.txt,
 * every line; congklak-perft.txt and families-legal.txt are read in test_twoside.c), rules-spec and
 * notation errors, illegal moves, and seed conservation over random games under every rule set. */
#include "tests/test_util.h"

#include "env/congklak.h"

static void parse_rules_or_fail(const char *spec, congklak_rules *r)
{
    char err[KALAH_ERRLEN];
    if (congklak_rules_parse(spec, r, err) != KALAH_OK)
        fail_msg("rules '%s': %s", spec, err);
}

static const char *winner_token(const congklak_rules *r, const kalah_pos *p)
{
    int w = congklak_winner(r, p);
    return !p->over ? "-" : w > 0 ? "S" : w < 0 ? "N" : "draw";
}

static void test_move_vectors(void **state)
{
    (void)state;
    FILE *f = tu_open_vector("congklak-moves.txt");
    char line[512], err[KALAH_ERRLEN], buf[96];
    int count = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[9];
        assert_int_equal(tu_split(line, fl, 9), 9);
        congklak_rules r;
        kalah_pos p;
        parse_rules_or_fail(fl[0], &r);
        if (congklak_pos_parse(fl[1], &r, &p, err) != KALAH_OK)
            fail_msg("%s: %s", fl[1], err);
        int k = kalah_move_parse(&r, p.side, fl[2], 0);
        assert_true(k >= 0);
        congklak_step st;
        assert_int_equal(congklak_play(&r, &p, k, &st), KALAH_OK);
        congklak_pos_format(&r, &p, buf, sizeof buf);
        if (strcmp(buf, fl[3]))
            fail_msg("%s from '%s' under %s: got '%s', want '%s'", fl[2], fl[1], fl[0], buf, fl[3]);
        assert_int_equal(st.extra_turn, atoi(fl[4]));
        assert_int_equal(st.captured, atoi(fl[5]));
        if (st.relays != atoi(fl[6]))
            fail_msg("%s from '%s': %d relays, want %s", fl[2], fl[1], st.relays, fl[6]);
        assert_int_equal(st.over, atoi(fl[7]));
        assert_int_equal(p.over, atoi(fl[7]));
        assert_string_equal(winner_token(&r, &p), fl[8]);
        count++;
    }
    fclose(f);
    assert_int_equal(count, 46);
}

static void test_rules_spec(void **state)
{
    (void)state;
    congklak_rules r;
    char err[KALAH_ERRLEN], buf[128];
    assert_int_equal(congklak_rules_parse("congklak", &r, err), KALAH_OK);
    assert_string_equal(congklak_rules_format(&r, buf, sizeof buf),
                        "congklak:pits=7,seeds=7,capture=opposite,end=either-empty,max_sows=0");
    assert_int_equal(congklak_rules_parse("congklak:end=mover-empty,seeds=3", &r, err), KALAH_OK);
    assert_int_equal(r.pits, 7); /* a key not given keeps Congklak's default, not Kalah's 6 */
    assert_int_equal(r.seeds, 3);
    assert_int_equal(r.end, KALAH_END_MOVER_EMPTY);
    assert_int_equal(congklak_rules_parse("congklak:max_sows=400,capture=none,pits=4", &r, err), KALAH_OK);
    assert_int_equal(r.max_sows, 400);
    assert_int_equal(r.capture, KALAH_CAPTURE_NONE);
    congklak_rules again;
    assert_int_equal(congklak_rules_parse(congklak_rules_format(&r, buf, sizeof buf), &again, err), KALAH_OK);
    assert_memory_equal(&r, &again, sizeof r);

    static const struct { const char *spec, *needle; } bad[] = {
        {"kalah", "unknown game 'kalah'"},        {"congklakx", "unknown game"},
        {"congklak:pit=7", "unknown congklak rules key 'pit'"},
        {"congklak:pits=0", "pits"},              {"congklak:pits=8", "expected a whole number 1..7"},
        {"congklak:seeds=x", "seeds"},            {"congklak:seeds=19", "seeds"},
        {"congklak:capture=sometimes", "opposite, always or none"},
        {"congklak:end=never", "either-empty or mover-empty"},
        {"congklak:pits=6,pits=4", "twice"},      {"congklak:pits", "key=value"},
        {"congklak:max_sows=-1", "max_sows"},     {"congklak:", "empty"},
        {"congklak:pits=3,,seeds=2", "empty"},    {"congklak:pits=3,", "empty"},
        {NULL, "no rules spec"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_int_equal(congklak_rules_parse(bad[i].spec, &r, err), KALAH_EINVAL);
        if (!strstr(err, bad[i].needle))
            fail_msg("spec '%s': message '%s' does not name '%s'", bad[i].spec, err, bad[i].needle);
    }
    char longspec[400] = "congklak:";
    while (strlen(longspec) < 300)
        strcat(longspec, "pits=7,");
    assert_int_equal(congklak_rules_parse(longspec, &r, err), KALAH_EINVAL);
    assert_non_null(strstr(err, "too long"));
}

static void test_notation_and_illegal_moves(void **state)
{
    (void)state;
    congklak_rules r = congklak_rules_default();
    kalah_pos p, before;
    char err[KALAH_ERRLEN], buf[96];
    congklak_start(&r, &p);
    assert_string_equal(congklak_pos_format(&r, &p, buf, sizeof buf), "7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,0 S");
    assert_int_equal(congklak_legal(&r, &p), 0x7f);

    static const struct { const char *text, *needle; } bad[] = {
        {"7,7,7,7,7,7,7,0,7,7,7,7,7,7,7 S", "15 counts"},
        {"7,7,7,7,7,7,7,0,7,7,7,7,7,7,x,0 S", "field 15"},
        {"7,7,7,7,7,7,7,0,7,7,7,7,7,-7,7,14 S", "negative"},
        {"7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,0 X", "S or N"},
        {"7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,1 S", "99 seeds"},
        {"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "pits=7"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_int_equal(congklak_pos_parse(bad[i].text, &r, &p, err), KALAH_EINVAL);
        if (!strstr(err, bad[i].needle))
            fail_msg("position '%s': message '%s' does not name '%s'", bad[i].text, err, bad[i].needle);
    }
    /* An empty pit, a pit number past the row, and any move of a finished game are refused; the position
     * is left as it was. */
    assert_int_equal(congklak_pos_parse("0,3,5,1,7,0,5,35,3,1,6,1,3,9,3,16 S", &r, &p, err), KALAH_OK);
    before = p;
    assert_int_equal(congklak_play(&r, &p, 0, NULL), KALAH_EILLEGAL);
    assert_int_equal(congklak_play(&r, &p, 5, NULL), KALAH_EILLEGAL);
    assert_int_equal(congklak_play(&r, &p, 7, NULL), KALAH_EILLEGAL);
    assert_int_equal(congklak_play(&r, &p, -1, NULL), KALAH_EILLEGAL);
    assert_memory_equal(&p, &before, sizeof p);
    assert_int_equal(kalah_move_parse(&r, p.side, "G", 0), KALAH_EILLEGAL);
    assert_int_equal(kalah_move_parse(&r, p.side, "h", 0), KALAH_EINVAL);
    assert_int_equal(congklak_pos_parse("0,0,0,0,0,0,0,44,0,0,0,0,0,0,3,51 N", &r, &p, err), KALAH_OK);
    assert_true(p.over); /* either-empty: South's row is empty, North's 3 were swept */
    assert_string_equal(congklak_pos_format(&r, &p, buf, sizeof buf), "0,0,0,0,0,0,0,44,0,0,0,0,0,0,0,54 N");
    before = p;
    assert_int_equal(congklak_play(&r, &p, 6, NULL), KALAH_EOVER);
    assert_memory_equal(&p, &before, sizeof p);
}

static void test_encode(void **state)
{
    (void)state;
    congklak_rules r = congklak_rules_default();
    kalah_pos p;
    char err[KALAH_ERRLEN];
    assert_int_equal(congklak_pos_parse("1,0,0,9,2,10,1,34,0,18,1,6,0,4,1,11 N", &r, &p, err), KALAH_OK);
    assert_int_equal(congklak_encode_dim(&r), 16);
    float x[16];
    congklak_encode(&r, &p, x);
    const float want[16] = {0, 18, 1, 6, 0, 4, 1, 1, 0, 0, 9, 2, 10, 1, 11, 34};
    for (int i = 0; i < 16; i++)
        assert_float_equal(x[i], want[i] / 7.0f, 1e-7);
}

/* Random games under every rule set of small and full boards: seeds are conserved, the relay count and
 * the seeds sown agree with the chain's bound, extra turns keep the mover, finished games are swept and
 * max_sows is honoured. */
static void test_random_games(void **state)
{
    (void)state;
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    int games = 0;
    for (int m = 1; m <= 7; m++)
        for (int seeds = 1; seeds <= 18; seeds += m < 4 ? 1 : 5)
            for (int cap = 0; cap < 3; cap++)
                for (int end = 0; end < 2; end++) {
                    congklak_rules r = {m, seeds, (kalah_capture)cap, (kalah_end)end, (m + seeds) % 3 ? 0 : 30};
                    if (congklak_rules_check(&r, NULL) != KALAH_OK)
                        continue;
                    const int total = 2 * m * seeds;
                    for (int g = 0; g < 6; g++, games++) {
                        kalah_pos p;
                        congklak_start(&r, &p);
                        while (!p.over) {
                            unsigned legal = congklak_legal(&r, &p);
                            assert_true(legal != 0);
                            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                            int pick = (int)(rng % (uint64_t)__builtin_popcount(legal));
                            while (pick--)
                                legal &= legal - 1;
                            kalah_pos before = p;
                            congklak_step st;
                            assert_int_equal(congklak_play(&r, &p, __builtin_ctz(legal), &st), KALAH_OK);
                            assert_int_equal(kalah_total(&r, &p), total);
                            int chosen = before.cell[kalah_pit_index(&r, before.side, __builtin_ctz(legal))];
                            assert_true(st.seeds_sown >= chosen);
                            assert_true(st.seeds_sown <= (2 * m + 1) * (total + 1));
                            assert_false(st.extra_turn && st.captured);
                            if (st.extra_turn)
                                assert_int_equal(p.side, before.side);
                            else if (!st.over)
                                assert_int_equal(p.side, !before.side);
                            if (r.max_sows)
                                assert_true(p.sows <= r.max_sows);
                        }
                        assert_int_equal(p.cell[m] + p.cell[2 * m + 1], total);
                        assert_int_equal(congklak_legal(&r, &p), 0);
                    }
                }
    assert_true(games > 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_move_vectors),
        cmocka_unit_test(test_rules_spec),
        cmocka_unit_test(test_notation_and_illegal_moves), cmocka_unit_test(test_encode),
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
