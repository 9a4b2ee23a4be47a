/* test_oware.c — Oware, Abapa rules (docs/design.md §1.4), against the team's vectors (oware-moves.txt,
 * every line; oware-perft.txt and families-legal.txt are read in test_twoside.c), rules-spec and notation errors,
 * illegal moves (must feed included), and seed conservation over random games. */
#include "tests/test_util.h"

#include "env/oware.h"

static void parse_rules_or_fail(const char *spec, oware_rules *r)
{
    char err[KALAH_ERRLEN];
    if (oware_rules_parse(spec, r, err) != KALAH_OK)
        fail_msg("rules '%s': %s", spec, err);
}

static void parse_pos_or_fail(const char *text, const oware_rules *r, kalah_pos *p)
{
    char err[KALAH_ERRLEN];
    if (oware_pos_parse(text, r, p, err) != KALAH_OK)
        fail_msg("position '%s': %s", text, err);
}

static void test_move_vectors(void **state)
{
    (void)state;
    FILE *f = tu_open_vector("oware-moves.txt");
    char line[512], buf[96];
    int count = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[8];
        assert_int_equal(tu_split(line, fl, 8), 8);
        oware_rules r;
        kalah_pos p;
        parse_rules_or_fail(fl[0], &r);
        parse_pos_or_fail(fl[1], &r, &p);
        int k = oware_move_parse(&r, p.side, fl[2]);
        assert_true(k >= 0);
        oware_step st;
        assert_int_equal(oware_play(&r, &p, k, &st), KALAH_OK);
        oware_pos_format(&r, &p, buf, sizeof buf);
        if (strcmp(buf, fl[3]))
            fail_msg("%s from '%s' under %s: got '%s', want '%s'", fl[2], fl[1], fl[0], buf, fl[3]);
        assert_int_equal(0, atoi(fl[4])); /* Oware has no extra turns */
        if (st.captured != atoi(fl[5]))
            fail_msg("%s from '%s': captured %d, want %s", fl[2], fl[1], st.captured, fl[5]);
        assert_int_equal(st.over, atoi(fl[6]));
        assert_int_equal(p.over, atoi(fl[6]));
        int w = oware_winner(&r, &p);
        assert_string_equal(!p.over ? "-" : w > 0 ? "S" : w < 0 ? "N" : "draw", fl[7]);
        count++;
    }
    fclose(f);
    assert_int_equal(count, 34);
}

static void test_rules_spec(void **state)
{
    (void)state;
    oware_rules r;
    char err[KALAH_ERRLEN], buf[128];
    assert_int_equal(oware_rules_parse("oware", &r, err), KALAH_OK);
    assert_string_equal(oware_rules_format(&r, buf, sizeof buf),
                        "oware:pits=6,seeds=4,grand_slam=nocapture,max_sows=300");
    assert_int_equal(oware_rules_parse("oware:max_sows=0,grand_slam=capture,pits=3", &r, err), KALAH_OK);
    assert_int_equal(r.pits, 3);
    assert_int_equal(r.seeds, 4);
    assert_int_equal(r.grand_slam, OWARE_GRAND_SLAM_CAPTURE);
    assert_int_equal(r.max_sows, 0);
    oware_rules again;
    assert_int_equal(oware_rules_parse(oware_rules_format(&r, buf, sizeof buf), &again, err), KALAH_OK);
    assert_memory_equal(&r, &again, sizeof r);

    static const struct { const char *spec, *needle; } bad[] = {
        {"congklak", "unknown game 'congklak'"},  {"oware:pits=1", "expected a whole number 2..6"},
        {"oware:pits=7", "pits"},                {"oware:seeds=9", "seeds"},
        {"oware:seeds=0", "seeds"},              {"oware:grand_slam=yes", "nocapture or capture"},
        {"oware:capture=always", "unknown oware rules key 'capture'"},
        {"oware:max_sows=70000", "max_sows"},    {"oware:seeds=4,seeds=4", "twice"},
        {"oware:pits", "key=value"},             {"oware:,", "empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_int_equal(oware_rules_parse(bad[i].spec, &r, err), KALAH_EINVAL);
        if (!strstr(err, bad[i].needle))
            fail_msg("spec '%s': message '%s' does not name '%s'", bad[i].spec, err, bad[i].needle);
    }
    oware_rules wrong = oware_rules_default();
    wrong.grand_slam = (oware_grand_slam)5;
    assert_int_equal(oware_rules_check(&wrong, err), KALAH_EINVAL);
    assert_non_null(strstr(err, "grand_slam"));
}

static void test_notation_and_illegal_moves(void **state)
{
    (void)state;
    oware_rules r = oware_rules_default();
    kalah_pos p, before;
    char err[KALAH_ERRLEN], buf[96];
    oware_start(&r, &p);
    assert_string_equal(oware_pos_format(&r, &p, buf, sizeof buf), "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
    assert_int_equal(oware_legal(&r, &p), 0x3f);

    static const struct { const char *text, *needle; } bad[] = {
        {"4,4,4,4,4,4,0,4,4,4,4,4,4 S", "13 counts"},
        {"4,4,4,4,4,4,0,4,4,4,4,4,4,0,0,0 S", "pits=6"},
        {"4,4,4,4,4,4,0,4,4,y,4,4,4,0 S", "field 10"},
        {"4,4,4,4,4,4,0,4,4,4,4,4,4,0 s", "S or N"},
        {"4,4,4,4,4,4,0,4,4,4,4,4,4,2 S", "50 seeds"},
        {"4,4,4,4,4,4,4,4,4,4,4,4,0,0 S", NULL}, /* counts anywhere are fine: 48 in all */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        if (!bad[i].needle) {
            assert_int_equal(oware_pos_parse(bad[i].text, &r, &p, err), KALAH_OK);
            continue;
        }
        assert_int_equal(oware_pos_parse(bad[i].text, &r, &p, err), KALAH_EINVAL);
        if (!strstr(err, bad[i].needle))
            fail_msg("position '%s': message '%s' does not name '%s'", bad[i].text, err, bad[i].needle);
    }
    /* Must feed: North is empty; a (5) and c (1) do not reach it and are refused like the empty pits. */
    parse_pos_or_fail("5,6,1,0,0,1,23,0,0,0,0,0,0,12 S", &r, &p);
    before = p;
    for (int k = 0; k < 6; k++)
        if (k != 1 && k != 5) {
            assert_int_equal(oware_play(&r, &p, k, NULL), KALAH_EILLEGAL);
            assert_memory_equal(&p, &before, sizeof p);
        }
    assert_int_equal(oware_play(&r, &p, 6, NULL), KALAH_EILLEGAL);
    assert_int_equal(oware_move_parse(&r, KALAH_SOUTH, "A"), KALAH_EILLEGAL);
    assert_int_equal(oware_move_parse(&r, KALAH_SOUTH, "g"), KALAH_EINVAL);
    /* A given position that is already finished: majority (nothing swept) and no move (swept). */
    parse_pos_or_fail("0,0,0,0,0,1,20,0,0,0,0,0,0,27 S", &r, &p);
    assert_true(p.over);
    assert_string_equal(oware_pos_format(&r, &p, buf, sizeof buf), "0,0,0,0,0,1,20,0,0,0,0,0,0,27 S");
    assert_int_equal(oware_play(&r, &p, 5, NULL), KALAH_EOVER);
    parse_pos_or_fail("0,0,0,0,0,0,24,1,2,0,0,0,0,21 S", &r, &p);
    assert_true(p.over);
    assert_string_equal(oware_pos_format(&r, &p, buf, sizeof buf), "0,0,0,0,0,0,24,0,0,0,0,0,0,24 S");
}

static void test_grand_slam_event(void **state)
{
    (void)state;
    oware_rules r = oware_rules_default();
    kalah_pos p;
    oware_step st;
    parse_pos_or_fail("1,0,0,3,3,0,17,1,2,0,0,0,0,21 S", &r, &p);
    assert_int_equal(oware_play(&r, &p, 4, &st), KALAH_OK);
    assert_true(st.grand_slam);
    assert_int_equal(st.captured, 0);
    assert_int_equal(st.last, 8); /* B */
    parse_pos_or_fail("3,5,9,8,7,0,5,0,0,0,0,10,1,0 S", &r, &p);
    assert_int_equal(oware_play(&r, &p, 2, &st), KALAH_OK);
    assert_false(st.grand_slam);
    assert_int_equal(st.captured, 2);
}

static void test_encode(void **state)
{
    (void)state;
    oware_rules r = oware_rules_default();
    kalah_pos p;
    parse_pos_or_fail("0,17,2,0,12,0,0,1,0,5,4,4,1,2 N", &r, &p);
    assert_int_equal(oware_encode_dim(&r), 14);
    float x[14];
    oware_encode(&r, &p, x);
    const float want[14] = {1, 0, 5, 4, 4, 1, 0, 17, 2, 0, 12, 0, 2, 0};
    for (int i = 0; i < 14; i++)
        assert_float_equal(x[i], want[i] / 4.0f, 1e-7);
}

/* Random games on every board size and both grand-slam rules: seeds are conserved, captures only grow,
 * must feed holds (a move into an empty opponent always reaches it), and every game ends by max_sows at
 * the latest. */
static void test_random_games(void **state)
{
    (void)state;
    uint64_t rng = 0xD1B54A32D192ED03ull;
    for (int m = 2; m <= 6; m++)
        for (int seeds = 1; seeds <= 8; seeds++)
            for (int gs = 0; gs < 2; gs++) {
                oware_rules r = {m, seeds, (oware_grand_slam)gs, 120};
                const int total = 2 * m * seeds;
                for (int g = 0; g < 8; g++) {
                    kalah_pos p;
                    oware_start(&r, &p);
                    while (!p.over) {
                        unsigned legal = oware_legal(&r, &p);
                        assert_true(legal != 0);
                        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                        int pick = (int)(rng % (uint64_t)__builtin_popcount(legal));
                        while (pick--)
                            legal &= legal - 1;
                        kalah_pos before = p;
                        int opp_lo = p.side ? 0 : m + 1, opp_before = 0, opp_after = 0;
                        for (int i = opp_lo; i < opp_lo + m; i++)
                            opp_before += p.cell[i];
                        oware_step st;
                        assert_int_equal(oware_play(&r, &p, __builtin_ctz(legal), &st), KALAH_OK);
                        for (int i = opp_lo; i < opp_lo + m; i++)
                            opp_after += p.cell[i];
                        assert_int_equal(kalah_total(&(kalah_rules){.pits = m}, &p), total);
                        assert_true(p.cell[m] >= before.cell[m] && p.cell[2 * m + 1] >= before.cell[2 * m + 1]);
                        if (!opp_before && !st.over)
                            assert_true(opp_after > 0);
                        if (st.grand_slam && gs == OWARE_GRAND_SLAM_NOCAPTURE)
                            assert_int_equal(st.captured, 0);
                        assert_true(p.sows <= r.max_sows);
                    }
                    assert_int_equal(oware_legal(&r, &p), 0);
                }
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_move_vectors),
        cmocka_unit_test(test_rules_spec),
        cmocka_unit_test(test_notation_and_illegal_moves), cmocka_unit_test(test_grand_slam_event),
        cmocka_unit_test(test_encode),            cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
