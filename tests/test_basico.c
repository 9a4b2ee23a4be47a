/* test_basico.c — Mancala básico (docs/design.md §1.2): hand-checked vectors for 2, 3 and 4 players, an
 * independent stone-by-stone reference for random games and perft, notation round trips and errors. */
#include "tests/test_util.h"

#include "env/basico.h"

static basico_rules rules(const char *spec)
{
    basico_rules r;
    char err[KALAH_ERRLEN];
    if (basico_rules_parse(spec, &r, err) != BASICO_OK)
        fail_msg("%s: %s", spec, err);
    return r;
}

static basico_pos pos(const basico_rules *r, const char *s)
{
    basico_pos p;
    char err[KALAH_ERRLEN];
    if (basico_pos_parse(s, r, &p, err) != BASICO_OK)
        fail_msg("'%s': %s", s, err);
    return p;
}

/* Plays `move` (a letter) from `before` and checks the position string after it. */
static basico_step expect(const basico_rules *r, const char *before, const char *move, const char *after)
{
    basico_pos p = pos(r, before);
    basico_step st;
    assert_int_equal(basico_play(r, &p, move[0] - 'a', &st), BASICO_OK);
    char buf[160];
    basico_pos_format(r, &p, buf, sizeof buf);
    if (strcmp(buf, after))
        fail_msg("%s from '%s': got '%s', want '%s'", move, before, buf, after);
    return st;
}

static void test_two_players(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=2");
    char buf[160];
    basico_pos p;
    basico_start(&r, &p);
    assert_string_equal(basico_pos_format(&r, &p, buf, sizeof buf), "4,4,4,4,4,4,0,4,4,4,4,4,4,0 0");
    /* Last stone in the own store: sow again. */
    basico_step st = expect(&r, "4,4,4,4,4,4,0,4,4,4,4,4,4,0 0", "c", "4,4,0,5,5,5,1,4,4,4,4,4,4,0 0");
    assert_true(st.extra_turn);
    /* Sowing passes through the opponent's store too, and a last stone there also gives another sowing. */
    st = expect(&r, "1,0,0,0,0,8,0,4,4,4,4,4,4,0 0", "f", "1,0,0,0,0,0,1,5,5,5,5,5,5,1 0");
    assert_true(st.extra_turn);
    assert_int_equal(st.last, 13);
    /* A full lap of 14 stones: every position gets one, the origin included, and the last lands there. */
    st = expect(&r, "14,0,0,0,0,1,0,4,4,4,4,4,4,1 0", "a", "1,1,1,1,1,2,1,5,5,5,5,5,5,2 1");
    assert_false(st.extra_turn);
    /* Emptying the own pits finishes: with two players that decides the game (place 1 and 2). */
    st = expect(&r, "0,0,0,0,0,1,0,4,4,4,4,4,4,0 0", "f", "-,-,-,-,-,-,-,4,4,4,4,4,4,0 1 0f");
    assert_true(st.finished && st.over && !st.extra_turn);
    p = pos(&r, "-,-,-,-,-,-,-,4,4,4,4,4,4,0 1 0f");
    assert_true(p.over);
    assert_int_equal(p.place[0], 1);
    assert_int_equal(p.place[1], 2);
    assert_true(basico_rank_score(&r, &p, 0) == 1.0 && basico_rank_score(&r, &p, 1) == 0.0);
}

static void test_three_players_finisher_leaves(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=3,pits=4");
    /* Player 0 empties its row into its store: it finishes first and its positions leave the circuit. */
    basico_step st = expect(&r, "0,0,0,1,5,4,4,4,4,0,4,4,4,4,0 0", "d", "-,-,-,-,-,4,4,4,4,0,4,4,4,4,0 1 0f");
    assert_true(st.finished && !st.over);
    basico_pos p = pos(&r, "-,-,-,-,-,4,4,4,4,0,4,4,4,4,0 1 0f");
    assert_int_equal(p.place[0], 1);
    assert_false(p.over);
    /* Player 1's d: own store, then player 2's a, b, c. */
    expect(&r, "-,-,-,-,-,4,4,4,4,0,4,4,4,4,0 1 0f", "d", "-,-,-,-,-,4,4,4,0,1,5,5,5,4,0 2 0f");
    /* Player 2's d: its store, then straight on to player 1's pits (player 0 is gone); turn to player 1. */
    expect(&r, "-,-,-,-,-,4,4,4,0,1,5,5,5,4,0 2 0f", "d", "-,-,-,-,-,5,5,5,0,1,5,5,5,0,1 1 0f");
    /* The next finisher takes second place and the last player third: the game is over. */
    st = expect(&r, "-,-,-,-,-,0,0,0,1,1,5,5,5,4,0 1 0f", "d", "-,-,-,-,-,-,-,-,-,-,5,5,5,4,0 2 0f,1f");
    assert_true(st.over);
    p = pos(&r, "-,-,-,-,-,-,-,-,-,-,5,5,5,4,1 2 0f,1f");
    assert_int_equal(p.place[0], 1);
    assert_int_equal(p.place[1], 2);
    assert_int_equal(p.place[2], 3);
    assert_true(basico_rank_score(&r, &p, 1) == 0.5);
}

static void test_first_win_ranking_with_tie(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=4,pits=4,seeds=3,full_ranking=0");
    /* Player 0 finishes and wins; the others rank by stones left: 5, 5, 9 -> places 2, 2, 4. */
    basico_step st = expect(&r, "0,0,0,1,0,2,1,1,1,0,1,1,1,2,0,3,3,3,0,0 0", "d",
                            "-,-,-,-,-,2,1,1,1,0,1,1,1,2,0,3,3,3,0,0 1 0f");
    assert_true(st.over);
    basico_pos p = pos(&r, "-,-,-,-,-,2,1,1,1,0,1,1,1,2,0,3,3,3,0,0 1 0f");
    assert_true(p.over);
    assert_int_equal(p.place[0], 1);
    assert_int_equal(p.place[1], 2);
    assert_int_equal(p.place[2], 2);
    assert_int_equal(p.place[3], 4);
}

static void test_resignation(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=3,pits=4");
    basico_pos p;
    basico_start(&r, &p);
    assert_int_equal(basico_resign(&r, &p), BASICO_OK); /* player 0 resigns: last place */
    assert_int_equal(p.place[0], 3);
    assert_int_equal(p.to_move, 1);
    char buf[160];
    assert_string_equal(basico_pos_format(&r, &p, buf, sizeof buf), "-,-,-,-,-,4,4,4,4,0,4,4,4,4,0 1 0r");
    assert_int_equal(basico_resign(&r, &p), BASICO_OK); /* player 1 too: second-to-last, 2 wins */
    assert_true(p.over);
    assert_int_equal(p.place[1], 2);
    assert_int_equal(p.place[2], 1);
    assert_int_equal(basico_resign(&r, &p), BASICO_EOVER);
}

/* The encoding puts the mover first and follows the playing order; leavers read 0 pits, not active, and
 * their decided rank score. Expected numbers written out by hand from basico.h's description. */
static void test_encode(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=3,pits=4");
    assert_int_equal(basico_encode_dim(&r), 18);
    basico_pos p = pos(&r, "-,-,-,-,-,4,0,8,2,3,1,4,4,12,0 2 0f");
    float x[18];
    basico_encode(&r, &p, x);
    /* mover 2 first: pits 1,4,4,12 / 4, active, no place */
    const float want[18] = {0.25f, 1, 1, 3, 1, 0, /* player 2 */
                            0, 0, 0, 0, 0, 1,     /* player 0: left, first place -> rank score 1 */
                            1, 0, 2, 0.5f, 1, 0}; /* player 1 */
    for (int i = 0; i < 18; i++)
        assert_true(x[i] == want[i]);
}

/* ---- an independent reference: one stone at a time around the board, skipping departed players ---- */
typedef struct {
    int n, pits, full, cell[28], in[4], place[4], mover, over, nfin, nres;
} ref_game;

static void ref_start(ref_game *g, const basico_rules *r)
{
    memset(g, 0, sizeof *g);
    g->n = r->players, g->pits = r->pits, g->full = r->full_ranking;
    for (int i = 0; i < g->n * (g->pits + 1); i++)
        g->cell[i] = i % (g->pits + 1) == g->pits ? 0 : r->seeds;
    for (int q = 0; q < g->n; q++)
        g->in[q] = 1;
}

static int ref_side(const ref_game *g, int q)
{
    int t = 0;
    for (int k = 0; k < g->pits; k++)
        t += g->cell[q * (g->pits + 1) + k];
    return t;
}

static void ref_play(ref_game *g, int k)
{
    int w = g->pits + 1, size = g->n * w, i = g->mover * w + k, n = g->cell[i];
    g->cell[i] = 0;
    while (n) {
        i = (i + 1) % size;
        if (!g->in[i / w])
            continue;
        g->cell[i]++;
        n--;
    }
    int again = i % w == g->pits;
    if (ref_side(g, g->mover) == 0) {
        g->in[g->mover] = 0;
        g->place[g->mover] = ++g->nfin;
        for (int j = 0; j < w; j++)
            g->cell[g->mover * w + j] = 0;
        again = 0;
        int left = 0;
        for (int q = 0; q < g->n; q++)
            left += g->in[q];
        if (left == 1 || !g->full) {
            for (int q = 0; q < g->n; q++) {
                if (!g->in[q])
                    continue;
                if (left == 1) {
                    g->place[q] = g->nfin + 1;
                    continue;
                }
                int better = 0;
                for (int o = 0; o < g->n; o++)
                    better += g->in[o] && ref_side(g, o) < ref_side(g, q);
                g->place[q] = 2 + better;
            }
            g->over = 1;
            return;
        }
    }
    if (!again)
        do
            g->mover = (g->mover + 1) % g->n;
        while (!g->in[g->mover]);
}

static void test_random_games_match_reference(void **state)
{
    (void)state;
    const char *specs[] = {"basico:players=2", "basico:players=2,pits=7,seeds=3", "basico:players=3",
                           "basico:players=3,pits=4,full_ranking=0", "basico:players=4,pits=4,seeds=3",
                           "basico:players=4,full_ranking=0"};
    uint64_t rng = 12345;
    for (int s = 0; s < 6; s++) {
        basico_rules r = rules(specs[s]);
        for (int g = 0; g < 300; g++) {
            basico_pos p;
            ref_game ref;
            basico_start(&r, &p);
            ref_start(&ref, &r);
            int plies = 0;
            while (!p.over) {
                assert_false(ref.over);
                assert_int_equal(p.to_move, ref.mover);
                for (int i = 0; i < basico_cells(&r); i++)
                    assert_int_equal(p.cell[i], ref.cell[i]);
                unsigned legal = basico_legal(&r, &p);
                assert_true(legal);
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                int pick = (int)(rng % (uint64_t)__builtin_popcount(legal));
                while (pick--)
                    legal &= legal - 1;
                int k = __builtin_ctz(legal);
                assert_int_equal(basico_play(&r, &p, k, NULL), BASICO_OK);
                ref_play(&ref, k);
                char buf[160];
                basico_pos q;
                char err[KALAH_ERRLEN];
                if (basico_pos_parse(basico_pos_format(&r, &p, buf, sizeof buf), &r, &q, err) != BASICO_OK)
                    fail_msg("'%s' does not read back: %s", buf, err);
                assert_memory_equal(q.cell, p.cell, sizeof p.cell);
                assert_int_equal(q.over, p.over);
                assert_true(++plies < 100000);
            }
            assert_true(ref.over);
            for (int q = 0; q < r.players; q++)
                assert_int_equal(p.place[q], ref.place[q]);
        }
    }
}

static void ref_perft(const ref_game *g, int ply, int depth, uint64_t *nodes)
{
    for (int k = 0; k < g->pits; k++) {
        if (!g->cell[g->mover * (g->pits + 1) + k])
            continue;
        nodes[ply]++;
        ref_game c = *g;
        ref_play(&c, k);
        if (ply + 1 < depth && !c.over)
            ref_perft(&c, ply + 1, depth, nodes);
    }
}

static void test_perft_two_players(void **state)
{
    (void)state;
    const char *specs[] = {"basico:players=2", "basico:players=3,pits=4,seeds=3"};
    for (int s = 0; s < 2; s++) {
        basico_rules r = rules(specs[s]);
        basico_pos p;
        ref_game g;
        basico_start(&r, &p);
        ref_start(&g, &r);
        uint64_t a[7], b[7] = {0};
        basico_perft(&r, &p, 7, a);
        ref_perft(&g, 0, 7, b);
        for (int d = 0; d < 7; d++)
            assert_int_equal(a[d], b[d]);
        if (s == 0) {
            assert_int_equal(a[0], 6);
            assert_int_equal(a[1], 35); /* c sows again: 5 + 5 * 6 */
        }
    }
}

static void test_errors(void **state)
{
    (void)state;
    static const struct { const char *spec, *needle; } bad_rules[] = {
        {"basico:players=5", "players"},    {"basico:players=3,pits=7", "pits=7"},
        {"basico:players=2,pits=4", "pits=4"}, {"basico:seeds=5", "seeds"},
        {"basico:colour=red", "unknown basico rules key"}, {"basico:full_ranking=2", "full_ranking"},
        {"basico:", "at least one key=value"}, {"basico:full_ranking=maybe", "or true/false"},
    };
    basico_rules r;
    char err[KALAH_ERRLEN];
    for (size_t i = 0; i < sizeof bad_rules / sizeof bad_rules[0]; i++) {
        assert_int_equal(basico_rules_parse(bad_rules[i].spec, &r, err), BASICO_EINVAL);
        if (!strstr(err, bad_rules[i].needle))
            fail_msg("'%s': '%s' lacks '%s'", bad_rules[i].spec, err, bad_rules[i].needle);
    }
    assert_int_equal(basico_rules_parse("basico:full_ranking=false,players=4", &r, err), BASICO_OK);
    assert_true(r.full_ranking == 0 && r.players == 4);
    r = rules("basico:players=3,pits=4");
    static const struct { const char *text, *needle; } bad_pos[] = {
        {"4,4,4,4,0,4,4,4,4,0,4,4,4,4 0", "14 counts"},
        {"4,4,4,4,0,4,4,4,4,0,4,4,4,x,0 0", "field 14"},
        {"4,4,4,4,0,4,4,4,4,0,4,4,4,4,0 3", "player to move"},
        {"4,4,4,4,0,4,4,4,4,0,4,4,4,4,0 0 0f", "field 1 must be '-'"},
        {"-,-,-,-,-,4,4,4,4,0,4,4,4,4,0 0 0f", "player to move"},
        {"9,9,9,9,0,4,4,4,4,0,4,4,4,4,0 0", "more than the game starts with"},
        {"0,0,0,0,0,4,4,4,4,0,4,4,4,4,0 1", "player 0 has empty pits"},
        {"4,4,4,4,0,4,4,4,4,0,4,4,4,4,0 0 5f", "leaver"},
    };
    basico_pos p;
    for (size_t i = 0; i < sizeof bad_pos / sizeof bad_pos[0]; i++) {
        err[0] = 0;
        assert_int_equal(basico_pos_parse(bad_pos[i].text, &r, &p, err), BASICO_EINVAL);
        if (!strstr(err, bad_pos[i].needle))
            fail_msg("'%s': '%s' lacks '%s'", bad_pos[i].text, err, bad_pos[i].needle);
    }
    basico_start(&r, &p);
    assert_int_equal(basico_play(&r, &p, 4, NULL), BASICO_EILLEGAL);
    p = pos(&r, "4,4,0,4,0,4,4,4,4,0,4,4,4,4,4 0");
    basico_pos before = p;
    assert_int_equal(basico_play(&r, &p, 2, NULL), BASICO_EILLEGAL);
    assert_memory_equal(&before, &p, sizeof p);
}

static void test_cli(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 0, "perft 4 --rules basico:players=3,pits=4 --json"), 0);
    assert_non_null(strstr(out, "\"nodes\":[4,15,60,207]"));
    free(out);
    assert_int_equal(tu_run(&out, 0, "replay --rules basico:players=2 resign --json"), 0);
    assert_non_null(strstr(out, "\"over\":true"));
    assert_non_null(strstr(out, "\"places\":[2,1]"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "replay --rules basico:players=3,pits=4 a b z"), 2);
    assert_non_null(strstr(out, "move 3"));
    free(out);
    /* bench env: every finished game has exactly one first place under full ranking. */
    assert_int_equal(tu_run(&out, 0, "bench env --rules basico:players=3,pits=4 --seconds 0.2 --json"), 0);
    const char *fr = strstr(out, "\"first_place_rate\":[");
    assert_non_null(fr);
    double a, b, c;
    assert_int_equal(sscanf(fr, "\"first_place_rate\":[%lf,%lf,%lf]", &a, &b, &c), 3);
    assert_float_equal(a + b + c, 1.0, 1e-9);
    assert_non_null(strstr(out, "\"games_per_s\""));
    free(out);
    assert_int_equal(tu_run(&out, 1, "bench env --rules basico --kernel avx2 --seconds 0.1"), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "perft 2 --rules basico:players=2,pits=4"), 2);
    assert_non_null(strstr(out, "pits=4"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_players),          cmocka_unit_test(test_three_players_finisher_leaves),
        cmocka_unit_test(test_first_win_ranking_with_tie), cmocka_unit_test(test_resignation),
        cmocka_unit_test(test_random_games_match_reference), cmocka_unit_test(test_perft_two_players),
        cmocka_unit_test(test_errors),               cmocka_unit_test(test_encode),               cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
