/* test_mcts2.c — the two-player tree on the game interface (selfplay/mcts2.h): compiled from the same
 * source as Kalah's tree, it must grow the same tree for Kalah given the same evaluations (every lever:
 * noise, temperature, virtual loss, proofs, score proofs, the Gumbel root, forced playouts, reuse); what it
 * refuses because of a fact of the game; and mcts_mp.h running two-player games on it. */
#include "tests/test_util.h"

#include "env/game.h"
#include "env/kalah.h"
#include "selfplay/mcts.h"
#include "selfplay/mcts2.h"
#include "selfplay/mcts_mp.h"

/* A deterministic evaluation of a leaf from its board (cell[0..15] is the same in kalah_pos and in the
 * Kalah family's game_pos) and its mover: priors and a value that vary with the position. */
static void fake_eval(const uint8_t *cell, int side, int moves, float *prior, float *value)
{
    uint32_t h = 2166136261u ^ (uint32_t)side;
    for (int i = 0; i < KALAH_CELLS; i++)
        h = (h ^ cell[i]) * 16777619u;
    for (int k = 0; k < moves; k++)
        prior[k] = (float)((h >> (3 * k)) & 7u) / 7.0f;
    *value = (float)((int)(h >> 24) - 128) / 128.0f;
}

static void kalah_configs(mcts_config *c, int *n)
{
    mcts_config base = mcts_config_default();
    base.sims = 120;
    int k = 0;
    c[k++] = base;                                     /* noise, solver, reuse */
    c[k] = base, c[k].margin_utility = 0.5, k++;       /* score proofs */
    c[k] = base, c[k].leaves_per_game = 4, k++;        /* virtual loss */
    c[k] = base, c[k].root = MCTS_ROOT_GUMBEL, c[k].gumbel_k = 4, k++;
    c[k] = base, c[k].forced_playouts_k = 2.0, c[k].solver = 0, k++;
    *n = k;
}

/* Searches one move in both trees, leaf by leaf, completing the same leaves with the same evaluations. */
static void search_both(mcts_tree *a, mcts2_tree *b, int moves)
{
    for (int guard = 0; guard < 100000 && !mcts_done(a); guard++) {
        assert_int_equal(mcts2_done(b), 0);
        kalah_pos la[64];
        game_pos lb[64];
        int ha[64], hb[64], n = 0;
        for (;;) {
            int x = mcts_select(a, &la[n]), y = mcts2_select(b, &lb[n]);
            assert_int_equal(x, y);
            if (x >= 0) {
                assert_memory_equal(la[n].cell, lb[n].cell, KALAH_CELLS);
                assert_int_equal(la[n].side, lb[n].to_move);
                ha[n] = x, hb[n] = y, n++;
                continue;
            }
            if (x == MCTS_SIM_DONE && !mcts_done(a))
                continue;
            break;
        }
        for (int i = 0; i < n; i++) {
            float prior[KALAH_MAX_PITS], v;
            fake_eval(la[i].cell, la[i].side, moves, prior, &v);
            assert_int_equal(mcts_complete(a, ha[i], prior, v), MCTS_OK);
            assert_int_equal(mcts2_complete(b, hb[i], prior, v), MCTS_OK);
        }
    }
    assert_int_equal(mcts_done(a), 1);
    assert_int_equal(mcts2_done(b), 1);
}

static void test_kalah_same_tree(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    kalah_rules r = kalah_rules_default();
    r.seeds = 3;
    game *g = game_create("kalah:pits=6,seeds=3", err);
    assert_non_null(g);
    mcts_config cfgs[8];
    int ncfg;
    kalah_configs(cfgs, &ncfg);
    for (int ci = 0; ci < ncfg; ci++) {
        mcts_tree *a = mcts_tree_create(&r, &cfgs[ci], 77 + (uint64_t)ci, err);
        mcts2_tree *b = mcts2_tree_create(g, &cfgs[ci], 77 + (uint64_t)ci, err);
        assert_non_null(a);
        assert_non_null(b);
        for (int ply = 0; ply < 60 && !mcts_root_pos(a)->over; ply++) {
            search_both(a, b, r.pits);
            assert_int_equal(mcts_node_count(a), mcts2_node_count(b));
            int va[KALAH_MAX_PITS], vb[GAME_MAX_MOVES];
            float qa[KALAH_MAX_PITS], qb[GAME_MAX_MOVES], pa[KALAH_MAX_PITS], pb[GAME_MAX_MOVES];
            assert_int_equal(mcts_root_visits(a, va, qa), mcts2_root_visits(b, vb, qb));
            assert_memory_equal(va, vb, sizeof va);
            assert_memory_equal(qa, qb, sizeof qa);
            assert_int_equal(mcts_policy(a, 1.0, pa), mcts2_policy(b, 1.0, pb));
            assert_memory_equal(pa, pb, sizeof pa);
            assert_int_equal(mcts_root_proven(a), mcts2_root_proven(b));
            assert_int_equal(mcts_root_scored(a), mcts2_root_scored(b));
            assert_true(mcts_root_value(a) == mcts2_root_value(b));
            int m = mcts_choose(a, ply < 8 ? 1.0 : 0.0);  /* temperature: the trees' RNGs in step */
            assert_int_equal(m, mcts2_choose(b, ply < 8 ? 1.0 : 0.0));
            assert_int_equal(mcts_advance(a, m), MCTS_OK);
            assert_int_equal(mcts2_advance(b, m), MCTS_OK);
            assert_memory_equal(mcts_root_pos(a)->cell, mcts2_root_pos(b)->cell, KALAH_CELLS);
        }
        mcts_tree_free(a);
        mcts2_tree_free(b);
    }
    game_free(g);
}

/* What a game's facts rule out, with the fact in the message. */
static void test_refusals(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    mcts_config c = mcts_config_default();
    game *b3 = game_create("basico:players=3,pits=4", err), *b2 = game_create("basico:players=2,pits=6", err);
    game *ow = game_create("oware", err);
    assert_non_null(b3);
    assert_non_null(b2);
    assert_non_null(ow);
    assert_null(mcts2_tree_create(b3, &c, 1, err));
    assert_non_null(strstr(err, "two players"));
    c.margin_utility = 0.5;
    assert_null(mcts2_tree_create(b2, &c, 1, err));
    assert_non_null(strstr(err, "final margin"));
    mcts2_tree *t = mcts2_tree_create(ow, &c, 1, err); /* Oware has a margin */
    assert_non_null(t);
    mcts2_tree_free(t);
    c.margin_utility = 0;
    c.tablebase_seeds = 6;
    assert_null(mcts2_tree_create(ow, &c, 1, err));
    assert_non_null(strstr(err, "endgame database"));
    game_free(b3);
    game_free(b2);
    game_free(ow);
}

/* mcts_mp.h on a two-player game runs this tree: a forced win is proven and played, and the value
 * vector is the mover's value and its negation. */
static void test_mp_two_players(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    game *g = game_create("kalah:pits=6,seeds=3", err);
    assert_non_null(g);
    game_pos p;
    /* South to move, 19 seeds ahead with three seeds left in e and f: every line wins. */
    assert_int_equal(game_pos_parse(g, "0,0,0,0,2,1,18,0,0,0,0,0,1,14 S", &p, err), GAME_OK);
    mcts_mp_eval *ev = mcts_mp_eval_rollout_create(g, 4, 8, 3, err);
    assert_non_null(ev);
    mcts_config c = mcts_config_default();
    c.sims = 200;
    mcts_mp_result res;
    assert_int_equal(mcts_mp_search(g, &p, &c, ev, 5, &res, err), MCTS_OK);
    assert_true(res.move == 4 || res.move == 5);
    assert_int_equal(res.won, 1);
    assert_int_equal(res.proven, 1);
    assert_true(res.value[0] == 1.0f && res.value[1] == -1.0f);
    mcts_mp_eval_free(ev);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kalah_same_tree),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_mp_two_players),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
