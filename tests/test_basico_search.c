/* test_basico_search.c — max^n, paranoid and greedy baselines for Mancala básico, through the generic
 * search of eval/game_search.h (values 2·rank score − 1) against an oracle written on env/basico.h. */
#include "tests/test_util.h"

#include "env/basico.h"
#include "eval/game_search.h"

#define G tu_game

/* The same position read through the interface. */
static game_pos gpos(const game *g, const basico_rules *r, const basico_pos *p)
{
    char s[GAME_POS_STR];
    return tu_game_pos(g, basico_pos_format(r, p, s, sizeof s));
}

static basico_rules rules(const char *spec)
{
    basico_rules r;
    assert_int_equal(basico_rules_parse(spec, &r, NULL), BASICO_OK);
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

/* Plain minimax on the mover-relative rank score, for two players: the oracle for both searches. */
static double minimax(const basico_rules *r, const basico_pos *p, int root, int depth)
{
    double v[BASICO_MAX_PLAYERS];
    if (p->over || depth == 0) {
        basico_estimate(r, p, v);
        return v[root];
    }
    unsigned legal = basico_legal(r, p);
    double best = p->to_move == root ? -1 : 2;
    while (legal) {
        int k = __builtin_ctz(legal);
        legal &= legal - 1;
        basico_pos c = *p;
        basico_play(r, &c, k, NULL);
        double x = minimax(r, &c, root, depth - 1);
        best = p->to_move == root ? (x > best ? x : best) : (x < best ? x : best);
    }
    return best;
}

static void test_two_players_agree_with_minimax(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=2");
    game *gm = G("basico:players=2");
    uint64_t rng = 99;
    for (int g = 0; g < 40; g++) {
        basico_pos p;
        basico_start(&r, &p);
        int plies = 4 + g % 20;
        for (int i = 0; i < plies && !p.over; i++) {
            unsigned legal = basico_legal(&r, &p);
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            int pick = (int)(rng % (uint64_t)__builtin_popcount(legal));
            while (pick--)
                legal &= legal - 1;
            basico_play(&r, &p, __builtin_ctz(legal), NULL);
        }
        if (p.over)
            continue;
        gs_result a, b;
        game_pos q = gpos(gm, &r, &p);
        assert_int_equal(gs_search(gm, &q, GS_MAXN, 4, NULL, &a), GAME_OK);
        assert_int_equal(gs_search(gm, &q, GS_PARANOID, 4, NULL, &b), GAME_OK);
        double want = 2 * minimax(&r, &p, p.to_move, 4) - 1;
        assert_float_equal(a.value[p.to_move], want, 1e-12);
        assert_float_equal(b.value[p.to_move], want, 1e-12);
        assert_true(b.nodes <= a.nodes); /* pruning only ever removes work */
        assert_true(basico_legal(&r, &p) & (1u << a.move));
        assert_true(basico_legal(&r, &p) & (1u << b.move));
    }
    game_free(gm);
}

static void test_takes_the_finish(void **state)
{
    (void)state;
    /* Player 1 can empty its row at once with d (one stone into its store): first place. */
    basico_rules r = rules("basico:players=3,pits=4");
    basico_pos p = pos(&r, "4,4,4,4,0,0,0,2,1,0,4,4,4,4,0 1");
    game *gm = G("basico:players=3,pits=4");
    game_pos q = gpos(gm, &r, &p);
    for (int kind = 0; kind < 2; kind++) {
        gs_result res;
        assert_int_equal(gs_search(gm, &q, (gs_kind)kind, 3, NULL, &res), GAME_OK);
        /* c (2 stones: d, store) sows again, then d finishes: both lines finish; the lowest pit wins ties. */
        assert_int_equal(res.move, 2);
        assert_float_equal(res.value[1], 1.0, 1e-12);
    }
    assert_int_equal(basico_greedy_move(&r, &p), 2);
    assert_int_equal(game_greedy(gm, &q), 1u << 2);
    game_free(gm);
}

static void test_estimate_and_errors(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=4,pits=4,seeds=3,full_ranking=0");
    basico_pos p = pos(&r, "-,-,-,-,-,2,1,1,1,0,1,1,1,2,0,3,3,3,0,0 1 0f");
    double v[4];
    basico_estimate(&r, &p, v);
    assert_float_equal(v[0], 1.0, 1e-12);
    assert_float_equal(v[1], 2.0 / 3, 1e-12);
    assert_float_equal(v[2], 2.0 / 3, 1e-12);
    assert_float_equal(v[3], 0.0, 1e-12);
    game *gm = G("basico:players=4,pits=4,seeds=3,full_ranking=0");
    game_pos q = gpos(gm, &r, &p);
    double gv[4];
    game_estimate(gm, &q, gv);
    for (int i = 0; i < 4; i++)
        assert_float_equal(gv[i], 2 * v[i] - 1, 1e-12);
    gs_result res;
    assert_int_equal(gs_search(gm, &q, GS_MAXN, 2, NULL, &res), GAME_EOVER);
    assert_int_equal(res.move, -1);
    assert_float_equal(res.value[0], 1.0, 1e-12);
    basico_start(&r, &p);
    game_start(gm, &q);
    assert_int_equal(gs_search(gm, &q, GS_MAXN, 0, NULL, &res), GAME_EINVAL);
    assert_int_equal(gs_search(gm, &q, (gs_kind)7, 2, NULL, &res), GAME_EINVAL);
    /* básico has no margin to solve for. */
    gs_solution sol;
    char err[GAME_ERRLEN] = "";
    assert_int_equal(gs_solve(gm, &q, 0, NULL, &sol, err), GAME_EINVAL);
    assert_non_null(strstr(err, "two-player"));
    game_free(gm);
    /* The start is symmetric: everyone's estimate is the same. */
    basico_estimate(&r, &p, v);
    assert_float_equal(v[0], v[3], 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_players_agree_with_minimax),
        cmocka_unit_test(test_takes_the_finish),
        cmocka_unit_test(test_estimate_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
