/* test_mcts_mp.c — the multi-player PUCT search (selfplay/mcts_mp.h) and básico self-play: forced first
 * places through extra-turn chains (checked against an independent exhaustive search in this file), vector
 * backup where the same player moves again, root-only noise, terminal leaves never evaluated, the rollout
 * evaluator, determinism, and the self-play samples (policy targets, mover-relative value vectors) —
 * all through the game interface, checked against oracles written on env/basico.h. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <math.h>
#include <string.h>

#include "env/basico.h"
#include "env/game.h"
#include "selfplay/game_selfplay.h"
#include "selfplay/mcts_mp.h"
#include "selfplay/replay.h"

static basico_rules rules(const char *spec)
{
    basico_rules r;
    char err[KALAH_ERRLEN];
    assert_int_equal(basico_rules_parse(spec, &r, err), BASICO_OK);
    return r;
}

static game *G(const char *spec)
{
    char err[GAME_ERRLEN];
    game *g = game_create(spec, err);
    if (!g)
        fail_msg("%s: %s", spec, err);
    return g;
}

/* The básico position p read through the game interface (the searches take game_pos). */
static game_pos gp(const game *g, const basico_rules *r, const basico_pos *p)
{
    char s[GAME_POS_STR], err[GAME_ERRLEN];
    game_pos q;
    basico_pos_format(r, p, s, sizeof s);
    if (game_pos_parse(g, s, &q, err) != GAME_OK)
        fail_msg("'%s': %s", s, err);
    return q;
}

/* ---- a fake evaluator that counts what it sees ---- */

typedef struct {
    mcts_mp_eval base;
    int positions, saw_over, favour;   /* favour: the player whose value entry is +1 (others −1), or −1: 0 */
} fake_eval;

static int fake_evaluate(mcts_mp_eval *e, const game_pos *pos, int n, float *prior, float *value)
{
    fake_eval *f = (fake_eval *)e;
    const int m = game_moves(e->game), np = game_players(e->game);
    for (int i = 0; i < n; i++) {
        f->positions++;
        f->saw_over |= pos[i].over || game_legal(e->game, &pos[i]) == 0;
        for (int k = 0; k < m; k++)
            prior[i * m + k] = 1.0f;
        for (int q = 0; q < np; q++)
            value[i * np + q] = f->favour < 0 ? 0.0f : q == f->favour ? 1.0f : -1.0f;
    }
    e->positions += (uint64_t)n;
    return MCTS_OK;
}

static void fake_destroy(mcts_mp_eval *e) { (void)e; }

static void fake_init(fake_eval *f, const game *g, int favour)
{
    memset(f, 0, sizeof *f);
    f->base = (mcts_mp_eval){.evaluate = fake_evaluate, .destroy = fake_destroy, .game = g, .max_batch = 64};
    f->favour = favour;
}

/* ---- an independent check: can the mover finish (empty its pits) within its own turn? ---- */

static int can_finish_this_turn(const basico_rules *r, const basico_pos *p, int depth)
{
    if (depth > 40)
        return 0;
    unsigned legal = basico_legal(r, p);
    for (int k = 0; k < r->pits; k++) {
        if (!(legal >> k & 1u))
            continue;
        basico_pos q = *p;
        basico_step st;
        basico_play(r, &q, k, &st);
        if (st.finished || (st.extra_turn && can_finish_this_turn(r, &q, depth + 1)))
            return 1;
    }
    return 0;
}

/* Does sowing k start a line that finishes within the turn? */
static int move_finishes(const basico_rules *r, const basico_pos *p, int k)
{
    basico_pos q = *p;
    basico_step st;
    basico_play(r, &q, k, &st);
    return st.finished || (st.extra_turn && can_finish_this_turn(r, &q, 1));
}

static mcts_config search_cfg(int sims)
{
    mcts_config c = mcts_config_default();
    c.sims = sims;
    c.dirichlet_eps = 0;
    return c;
}

/* Positions from random games where nobody has left yet and the mover can take first place within its
 * turn but not with every move: the solver must prove the first place and play a move that gets it. */
static void test_forced_first_place(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=3,pits=4");
    game *gm = G("basico:players=3,pits=4");
    mcts_rng g;
    mcts_rng_seed(&g, 7);
    char err[MCTS_ERRLEN];
    mcts_mp_eval *ev = mcts_mp_eval_rollout_create(gm, 1, 8, 1, err);
    assert_non_null(ev);
    mcts_config c = search_cfg(400);
    int found = 0, chains = 0;
    for (int game = 0; game < 400 && found < 12; game++) {
        basico_pos p;
        basico_start(&r, &p);
        while (!p.over && found < 12) {
            unsigned legal = basico_legal(&r, &p);
            int trap = 0;
            for (int k = 0; k < r.pits; k++)
                trap |= (legal >> k & 1u) && !move_finishes(&r, &p, k);
            if (p.n_left == 0 && trap && can_finish_this_turn(&r, &p, 0)) {
                mcts_mp_result res;
                game_pos q0 = gp(gm, &r, &p);
                assert_int_equal(mcts_mp_search(gm, &q0, &c, ev, 3, &res, err), MCTS_OK);
                assert_true(move_finishes(&r, &p, res.move));
                assert_int_equal(res.won, 1);
                assert_true(res.root_visits < 400); /* it stopped once the first place was certain */
                basico_pos q = p;
                basico_step st;
                basico_play(&r, &q, res.move, &st);
                chains += !st.finished;  /* the first place needed more than one sowing */
                found++;
            }
            int k;
            do
                k = (int)mcts_rng_below(&g, (uint32_t)r.pits);
            while (!(legal >> k & 1u));
            basico_play(&r, &p, k, NULL);
        }
    }
    assert_true(found >= 12);
    assert_true(chains >= 1);
    mcts_mp_eval_free(ev);
    game_free(gm);
}

/* Backup adds one vector everywhere: at every node W has visits × the fake's constant vector, including
 * nodes reached by an extra sowing (same mover as the parent) — nothing is negated anywhere. */
static void test_vector_backup_across_extra_turns(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=3,pits=4");
    basico_pos p;
    char err[KALAH_ERRLEN];
    /* player 0's d lands in its own store: an extra sowing */
    assert_int_equal(basico_pos_parse("2,3,1,1,0,4,4,4,4,0,4,4,4,4,0 0", &r, &p, err), BASICO_OK);
    game *gm = G("basico:players=3,pits=4");
    game_pos gpos = gp(gm, &r, &p);
    fake_eval f;
    fake_init(&f, gm, 1);
    mcts_config c = search_cfg(300);
    c.solver = 0;
    mcts_mp_tree *t = mcts_mp_tree_create(gm, &c, 1, err);
    assert_non_null(t);
    mcts_mp_set_root(t, &gpos);
    while (!mcts_mp_done(t)) {
        game_pos leaf;
        float prior[4], value[3];
        int h = mcts_mp_select(t, &leaf);
        if (h < 0)
            continue;
        f.base.evaluate(&f.base, &leaf, 1, prior, value);
        assert_int_equal(mcts_mp_complete(t, h, prior, value), MCTS_OK);
    }
    int same_mover = 0;
    for (int i = 0; i < mcts_mp_node_count(t); i++) {
        mcts_mp_node_info ni;
        assert_int_equal(mcts_mp_node_get(t, i, &ni), MCTS_OK);
        assert_false(ni.terminal);  /* far from the end: every value came from the fake */
        assert_true(ni.w[1] == ni.visits && ni.w[0] == -ni.visits && ni.w[2] == -ni.visits);
        if (ni.parent >= 0) {
            mcts_mp_node_info pi;
            mcts_mp_node_get(t, ni.parent, &pi);
            same_mover += ni.mover == pi.mover;
        }
    }
    assert_true(same_mover > 0);
    /* the root's own entries: player 1 +1 per evaluated visit, the others −1 */
    float v[3];
    mcts_mp_root_value(t, v);
    assert_true(v[1] > 0.9f && v[0] < -0.9f && v[2] < -0.9f);
    /* the extra sowing's child (d) is chosen by player 0 for itself: it sees −1 there like everywhere */
    int d = mcts_mp_node_child(t, 0, 3);
    assert_true(d > 0);
    mcts_mp_node_info di;
    mcts_mp_node_get(t, d, &di);
    assert_int_equal(di.mover, 0);
    assert_true(di.visits > 0 && di.w[0] < 0 && di.w[1] > 0);
    mcts_mp_tree_free(t);
    game_free(gm);
}

static void test_noise_root_only_and_no_terminal_evals(void **state)
{
    (void)state;
    game *gm = G("basico:players=4,pits=4,seeds=3");
    fake_eval f;
    fake_init(&f, gm, -1);
    mcts_config c = mcts_config_default();
    c.sims = 2000;
    c.dirichlet_eps = 0.5;
    char err[KALAH_ERRLEN];
    mcts_mp_tree *t = mcts_mp_tree_create(gm, &c, 5, err);
    assert_non_null(t);
    for (int move = 0; move < 3; move++) {
        while (!mcts_mp_done(t)) {
            game_pos leaf;
            float prior[4], value[4];
            int h = mcts_mp_select(t, &leaf);
            if (h < 0)
                continue;
            f.base.evaluate(&f.base, &leaf, 1, prior, value);
            mcts_mp_complete(t, h, prior, value);
        }
        int root = mcts_mp_root_index(t), noisy = 0;
        for (int i = 0; i < mcts_mp_node_count(t); i++) {
            mcts_mp_node_info ni;
            mcts_mp_node_get(t, i, &ni);
            if (ni.parent < 0)
                continue;
            mcts_mp_node_info pi;
            mcts_mp_node_get(t, ni.parent, &pi);
            float uniform = 1.0f / (float)pi.n_children;
            if (ni.parent == root)
                noisy |= fabsf(ni.prior - uniform) > 1e-4f;
            else
                assert_true(fabsf(ni.prior - uniform) < 1e-6f);
        }
        assert_true(noisy);
        float pi[4];
        assert_int_equal(mcts_mp_policy(t, 1.0, pi), MCTS_OK);
        unsigned legal = game_legal(gm, mcts_mp_root_pos(t));
        float sum = 0;
        for (int k = 0; k < 4; k++) {
            sum += pi[k];
            if (!(legal >> k & 1u))
                assert_true(pi[k] == 0.0f);
        }
        assert_true(fabsf(sum - 1.0f) < 1e-5f);
        assert_int_equal(mcts_mp_advance(t, mcts_mp_choose(t, 0.0)), MCTS_OK);
    }
    assert_int_equal(f.saw_over, 0);
    assert_true(f.positions > 1000);
    mcts_mp_tree_free(t);
    game_free(gm);
}

static void test_rollouts_and_determinism(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=3,pits=4");
    char err[MCTS_ERRLEN];
    basico_pos p;
    /* player 0 has finished first: every playout gives it +1, and the others 0 and −1 */
    assert_int_equal(basico_pos_parse("-,-,-,-,-,4,4,4,4,0,4,4,4,4,0 1 0f", &r, &p, (char[KALAH_ERRLEN]){0}),
                     BASICO_OK);
    game *gm = G("basico:players=3,pits=4");
    game_pos gpos = gp(gm, &r, &p);
    mcts_mp_eval *ev = mcts_mp_eval_rollout_create(gm, 64, 4, 9, err);
    assert_non_null(ev);
    float prior[4], value[3];
    assert_int_equal(ev->evaluate(ev, &gpos, 1, prior, value), MCTS_OK);
    assert_true(value[0] == 1.0f);
    assert_true(value[1] < 1.0f && value[2] < 1.0f && value[1] > -1.0f && value[2] > -1.0f);
    assert_true(fabsf(value[1] + value[2] + 1.0f) < 1e-5f); /* second and third place: 0 and −1 per game */
    /* same seed, same search; rollouts, batched leaves with virtual loss */
    mcts_config c = search_cfg(300);
    c.leaves_per_game = 4;
    game_start(gm, &gpos);
    mcts_mp_result a, b;
    assert_int_equal(mcts_mp_search(gm, &gpos, &c, ev, 11, &a, err), MCTS_OK);
    assert_int_equal(mcts_mp_search(gm, &gpos, &c, ev, 11, &b, err), MCTS_OK);
    assert_memory_equal(a.visits, b.visits, sizeof a.visits);
    assert_int_equal(a.move, b.move);
    assert_true(a.root_visits >= 300);
    game_pos over = gpos;
    over.over = 1;
    assert_int_equal(mcts_mp_search(gm, &over, &c, ev, 1, &a, err), MCTS_EOVER);
    mcts_mp_eval_free(ev);
    game_free(gm);
}

static void test_selfplay_samples(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=3,pits=4");
    game *gm = G("basico:players=3,pits=4");
    char err[MCTS_ERRLEN];
    selfplay_config sc = selfplay_config_default();
    sc.games = 12;
    sc.games_per_thread = 6;
    mcts_config mc = mcts_config_default();
    mc.sims = 24;
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    const int dim = basico_encode_dim(&r), m = r.pits, np = r.players;
    replay_buffer *rb[2];
    game_selfplay_stats st[2];
    for (int run = 0; run < 2; run++) {
        rb[run] = replay_create(dim, m, np, 100000, err);
        assert_non_null(rb[run]);
        assert_int_equal(game_selfplay_run(gm, &sc, &mc, &ef, rb[run], 42, &st[run], err), MCTS_OK);
        assert_int_equal(st[run].games, 12);
        assert_int_equal(replay_size(rb[run]), st[run].samples);
        uint64_t firsts = 0;
        for (int q = 0; q < np; q++)
            firsts += st[run].wins[q];
        assert_true(firsts >= 12);
    }
    /* one thread: identical samples; each sample's π and value vector are well formed */
    size_t n = replay_size(rb[0]);
    float x[2][32], pi[2][4], z[2][4];
    uint8_t legal[2][4];
    int finals = 0;
    for (size_t i = 0; i < n; i++) {
        for (int run = 0; run < 2; run++)
            assert_int_equal(replay_get(rb[run], i, x[run], legal[run], pi[run], z[run], NULL), MCTS_OK);
        assert_memory_equal(x[0], x[1], sizeof(float) * (size_t)dim);
        assert_memory_equal(pi[0], pi[1], sizeof(float) * (size_t)m);
        assert_memory_equal(z[0], z[1], sizeof(float) * (size_t)np);
        float s = 0;
        for (int k = 0; k < m; k++) {
            s += pi[0][k];
            if (!legal[0][k])
                assert_true(pi[0][k] == 0.0f);
            assert_true(legal[0][k] == (x[0][k] > 0));  /* the mover's own pits come first */
        }
        assert_true(fabsf(s - 1.0f) < 1e-5f);
        /* full ranking, 3 players, no resignation: the places are 1, 2, 3 → values +1, 0, −1 in some order */
        float sorted[3] = {z[0][0], z[0][1], z[0][2]};
        for (int a = 0; a < 3; a++)
            for (int b = a + 1; b < 3; b++)
                if (sorted[b] > sorted[a]) {
                    float t = sorted[a];
                    sorted[a] = sorted[b];
                    sorted[b] = t;
                }
        assert_true(sorted[0] == 1.0f && sorted[1] == 0.0f && sorted[2] == -1.0f);
        /* a player already placed: its encoded rank score agrees with its value target */
        for (int q = 0; q < np; q++)
            if (x[0][q * (m + 2) + m + 1] > 0) {
                assert_true(z[0][q] == 2.0f * x[0][q * (m + 2) + m + 1] - 1.0f);
                finals++;
            }
    }
    assert_true(finals > 0);
    /* two threads: the same number of games, every sample well formed (checked above for one thread) */
    sc.threads = 2;
    replay_buffer *rb2 = replay_create(dim, m, np, 100000, err);
    game_selfplay_stats s2;
    assert_int_equal(game_selfplay_run(gm, &sc, &mc, &ef, rb2, 42, &s2, err), MCTS_OK);
    assert_int_equal(s2.games, 12);
    assert_int_equal(replay_size(rb2), s2.samples);
    /* a buffer of the wrong shape is refused with a message */
    replay_buffer *bad = replay_create(dim, m, 1, 10, err);
    assert_int_equal(game_selfplay_run(gm, &sc, &mc, &ef, bad, 1, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "n_value"));
    replay_free(bad);
    replay_free(rb2);
    replay_free(rb[0]);
    replay_free(rb[1]);
    game_free(gm);
}

static void test_capped_game_score(void **state)
{
    (void)state;
    basico_rules r = rules("basico:players=4,pits=4,seeds=3");
    basico_pos p;
    char err[KALAH_ERRLEN];
    /* player 0 finished first; 1 and 3 have 3 stones left, 2 has 5: places 2, 2, 4 */
    assert_int_equal(basico_pos_parse("-,-,-,-,-,2,1,0,0,0,1,1,1,2,0,3,0,0,0,0 1 0f", &r, &p, err), BASICO_OK);
    game *gm = G("basico:players=4,pits=4,seeds=3");
    game_pos q = gp(gm, &r, &p);
    double v[4];
    game_stopped_values(gm, &q, v);
    assert_true(v[0] == 1.0);
    assert_true(fabs(v[1] - 1.0 / 3.0) < 1e-12 && fabs(v[3] - 1.0 / 3.0) < 1e-12);
    assert_true(v[2] == -1.0);
    game_free(gm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forced_first_place),
        cmocka_unit_test(test_vector_backup_across_extra_turns),
        cmocka_unit_test(test_noise_root_only_and_no_terminal_evals),
        cmocka_unit_test(test_rollouts_and_determinism),
        cmocka_unit_test(test_selfplay_samples),
        cmocka_unit_test(test_capped_game_score),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
