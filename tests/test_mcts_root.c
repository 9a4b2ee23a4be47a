/* test_mcts_root.c — the search levers (docs/levers.md) against independent computation: the Gumbel root's
 * halving schedule (literals from mctx's Python algorithm), sigma / completed Q / the target (literals from a
 * plain Python evaluation of the paper's formulas), the Gumbel search in the two-player tree (mcts.h) on
 * Kalah (visits follow the schedule, the target and the move recomputed here from the root's statistics),
 * forced playouts and target pruning (the KataGo rule recomputed here), the margin utility at finished
 * positions and in the net evaluator (mcts_mp.h), playout cap randomization's value-only samples and the
 * zero policy gradient they get, and the checks.
 * The playout-cap test runs self-play's worker thread, so the TSan pass runs this file too: */
// ctest-labels: threads
#include "tests/test_util.h"

#include <math.h>
#include "env/game.h"
#include "nn/net.h"
#include "selfplay/mcts.h"
#include "selfplay/mcts_mp.h"
#include "selfplay/mcts_root.h"
#include "selfplay/replay.h"
#include "selfplay/game_selfplay.h"
#include "selfplay/selfplay.h"

/* Kalah(6,4), the game every tree test here searches. */
static game *kalah_game(void)
{
    char err[GAME_ERRLEN];
    game *g = game_create("kalah:pits=6,seeds=4", err);
    if (!g)
        fail_msg("%s", err);
    return g;
}

/* ---- a fake evaluator: fixed priors, a value hashed from the position (varied Q across the tree) ---- */

typedef struct {
    mcts_mp_eval base;
    float prior[GAME_MAX_MOVES];
} hash_eval;

/* The value for the player to move at p. */
static float pos_value(const game_pos *p)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < GAME_MAX_CELLS; i++)
        h = (h ^ p->cell[i]) * 1099511628211ull;
    h ^= p->to_move;
    h *= 0x9e3779b97f4a7c15ull;
    return (float)((double)(h >> 11) / 9007199254740992.0 * 1.6 - 0.8);
}

static int hash_evaluate(mcts_mp_eval *e, const game_pos *pos, int n, float *prior, float *value)
{
    hash_eval *f = (hash_eval *)e;
    int m = game_moves(e->game);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < m; k++)
            prior[i * m + k] = f->prior[k];
        float v = pos_value(&pos[i]);
        value[2 * i + pos[i].to_move] = v; /* two players: the mover's value and its negation */
        value[2 * i + 1 - pos[i].to_move] = -v;
    }
    e->positions += (uint64_t)n;
    return MCTS_OK;
}

static void hash_destroy(mcts_mp_eval *e) { (void)e; }

static void hash_init(hash_eval *f, const game *g, const float *prior)
{
    memset(f, 0, sizeof *f);
    f->base = (mcts_mp_eval){.evaluate = hash_evaluate, .destroy = hash_destroy, .game = g, .max_batch = 64};
    for (int k = 0; k < game_moves(g); k++)
        f->prior[k] = prior[k];
}

/* Runs the search of t's current root to the end with ev, one leaf at a time; the tree takes the value of
 * the leaf's mover. */
static void run_search(mcts2_tree *t, mcts_mp_eval *ev)
{
    while (!mcts2_done(t)) {
        game_pos leaf;
        int h = mcts2_select(t, &leaf);
        if (h == MCTS_SIM_DONE)
            continue;
        assert_true(h >= 0);
        float prior[GAME_MAX_MOVES], value[GAME_MAX_PLAYERS];
        assert_int_equal(ev->evaluate(ev, &leaf, 1, prior, value), MCTS_OK);
        assert_int_equal(mcts2_complete(t, h, prior, value[leaf.to_move]), MCTS_OK);
    }
}

/* The root's children as the test reads them: visits, Q for the root's mover, prior. */
typedef struct {
    int nc, n[GAME_MAX_MOVES], move[GAME_MAX_MOVES];
    double q[GAME_MAX_MOVES], prior[GAME_MAX_MOVES];
} root_stats;

static root_stats read_root(const mcts2_tree *t)
{
    root_stats s;
    memset(&s, 0, sizeof s);
    mcts_node_info root, c;
    assert_int_equal(mcts2_node_get(t, mcts2_root_index(t), &root), MCTS_OK);
    s.nc = root.n_children;
    for (int i = 0; i < s.nc; i++) {
        assert_int_equal(mcts2_node_get(t, root.first_child + i, &c), MCTS_OK);
        s.n[i] = c.visits;
        s.q[i] = c.proven != MCTS_UNPROVEN ? c.proven : c.visits > 0 ? c.w / c.visits : 0.0;
        s.prior[i] = c.prior;
        s.move[i] = c.move;
    }
    return s;
}

/* ---- the formulas ---- */

static void test_halving_schedule(void **state)
{
    (void)state;
    /* mctx seq_halving.get_sequence_of_considered_visits(m, n), evaluated in Python */
    static const int s4_16[] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
    static const int s6_20[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6};
    static const int s1_5[] = {0, 1, 2, 3, 4};
    static const int s2_7[] = {0, 0, 1, 1, 2, 2, 3};
    static const int s16_40[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
                                 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7};
    static const int s3_10[] = {0, 0, 0, 1, 1, 2, 2, 3, 3, 4};
    const struct {
        int m, n;
        const int *want;
    } cases[] = {{4, 16, s4_16}, {6, 20, s6_20}, {1, 5, s1_5}, {2, 7, s2_7}, {16, 40, s16_40}, {3, 10, s3_10}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int got[64];
        mcts_gumbel_halving(cases[c].m, cases[c].n, got);
        for (int i = 0; i < cases[c].n; i++)
            if (got[i] != cases[c].want[i])
                fail_msg("m %d n %d: seq[%d] = %d, want %d", cases[c].m, cases[c].n, i, got[i], cases[c].want[i]);
    }
    mcts_gumbel_halving(4, 0, NULL); /* an empty budget writes nothing */
}

static void test_sigma_and_target(void **state)
{
    (void)state;
    /* four actions, one unvisited: v_mix = (0.1 + 6 · (0.4·0.5 + 0.3·(−0.2) + 0.1·0.1) / 0.8) / 7 = 0.175 */
    const int n[] = {3, 1, 0, 2};
    const double q[] = {0.5, -0.2, 123.0 /* unvisited: never read */, 0.1}, p[] = {0.4, 0.3, 0.2, 0.1};
    double sigma[4], pi[4];
    mcts_gumbel_sigma(n, q, p, 4, 0.1, 50.0, 1.0, sigma);
    const double want[] = {52.99999999999999, 0.0, 28.39285714285715, 22.71428571428572};
    for (int i = 0; i < 4; i++)
        assert_true(fabs(sigma[i] - want[i]) < 1e-9);
    mcts_gumbel_sigma(n, q, p, 4, 0.1, 0.5, 0.1, sigma);
    const double want2[] = {0.35, 0.0, 0.1875, 0.15};
    for (int i = 0; i < 4; i++)
        assert_true(fabs(sigma[i] - want2[i]) < 1e-12);
    mcts_gumbel_target(p, sigma, 4, pi);
    const double want_pi[] = {0.4633476271546301, 0.2448866656914712, 0.1969264692245971, 0.09483923792930157};
    for (int i = 0; i < 4; i++)
        assert_true(fabs(pi[i] - want_pi[i]) < 1e-12);
    /* nothing visited: every completed Q is the raw value, sigma 0, the target is the prior */
    const int none[] = {0, 0, 0, 0};
    mcts_gumbel_sigma(none, q, p, 4, -0.3, 50.0, 1.0, sigma);
    mcts_gumbel_target(p, sigma, 4, pi);
    for (int i = 0; i < 4; i++)
        assert_true(sigma[i] == 0.0 && fabs(pi[i] - p[i]) < 1e-12);
}

static void test_forced_and_prune(void **state)
{
    (void)state;
    assert_true(fabs(mcts_forced_playouts(2.0, 0.25, 100) - sqrt(50.0)) < 1e-12);
    assert_true(mcts_forced_playouts(0.0, 0.25, 100) == 0.0);
    /* KataGo's rule evaluated in Python: child 3 loses visits down to where its PUCT meets the best's */
    const int n[] = {60, 20, 10, 5, 3};
    const double q[] = {0.2, 0.1, 0.15, -0.3, 0.0}, p[] = {0.3, 0.3, 0.2, 0.1, 0.1};
    double out[5];
    assert_int_equal(mcts_forced_prune(n, q, p, 5, 1.5, 99, 2.0, out), 0);
    const double want[] = {60, 20, 10, 1.6028589133794955, 3};
    for (int i = 0; i < 5; i++)
        assert_true(fabs(out[i] - want[i]) < 1e-9);
    /* a bad child reduced below one visit is pruned outright */
    const int n2[] = {50, 3};
    const double q2[] = {0.3, -0.9}, p2[] = {0.9, 0.1};
    assert_int_equal(mcts_forced_prune(n2, q2, p2, 2, 1.5, 53, 2.0, out), 0);
    assert_true(out[0] == 50.0 && out[1] == 0.0);
    const int zero[] = {0, 0};
    assert_int_equal(mcts_forced_prune(zero, q2, p2, 2, 1.5, 1, 2.0, out), -1);
}

/* ---- the Gumbel root in the tree ---- */

/* The Gumbel tests' setting: Kalah(6,4), fixed uneven priors, hashed values, a Gumbel root of `sims`. */
static mcts_config gumbel_setup(const game *g, hash_eval *he, int sims)
{
    static const float prior[] = {0.30f, 0.05f, 0.25f, 0.10f, 0.20f, 0.10f};
    hash_init(he, g, prior);
    mcts_config c = mcts_config_default();
    c.root = MCTS_ROOT_GUMBEL;
    c.sims = sims;
    return c;
}

static void test_gumbel_tree(void **state)
{
    (void)state;
    game *g = kalah_game();
    hash_eval he;
    mcts_config c = gumbel_setup(g, &he, 33);
    c.gumbel_scale = 0; /* g = 0: the schedule's order is the prior's, checkable here */
    c.gumbel_c_visit = 5;
    mcts2_tree *t = mcts2_tree_create(g, &c, 3, NULL);
    assert_non_null(t);
    run_search(t, &he.base);
    root_stats s = read_root(t);
    assert_int_equal(s.nc, 6);
    /* 32 simulations after the root's own, dealt as the m = 6 schedule deals them */
    int sched[32], want[6] = {0}, total = 0;
    mcts_gumbel_halving(6, 32, sched);
    for (int i = 0; i < 32; i++) {
        /* simulation i goes to an action holding sched[i] visits: the count of actions with more grows */
        int k = 0;
        while (k < 6 && want[k] != sched[i])
            k++;
        assert_true(k < 6);
        want[k]++;
    }
    int got[6], wsorted[6];
    for (int i = 0; i < 6; i++) {
        got[i] = s.n[i];
        wsorted[i] = want[i];
        total += s.n[i];
    }
    assert_int_equal(total, 32);
    for (int i = 0; i < 6; i++) /* both sorted descending */
        for (int j = i + 1; j < 6; j++) {
            if (got[j] > got[i]) { int x = got[i]; got[i] = got[j]; got[j] = x; }
            if (wsorted[j] > wsorted[i]) { int x = wsorted[i]; wsorted[i] = wsorted[j]; wsorted[j] = x; }
        }
    for (int i = 0; i < 6; i++)
        assert_int_equal(got[i], wsorted[i]);

    /* the target: softmax(log P + sigma(completed Q)), recomputed here in plain double */
    game_pos start;
    game_start(g, &start);
    double raw = pos_value(&start), sn = 0, sp = 0, pq = 0, lo = 1e9, hi = -1e9, cq[6], maxn = 0;
    for (int i = 0; i < 6; i++) {
        sn += s.n[i];
        maxn = s.n[i] > maxn ? s.n[i] : maxn;
        if (s.n[i] > 0)
            sp += s.prior[i], pq += s.prior[i] * s.q[i];
    }
    double vmix = (raw + sn * pq / sp) / (sn + 1);
    for (int i = 0; i < 6; i++) {
        cq[i] = s.n[i] > 0 ? s.q[i] : vmix;
        lo = fmin(lo, cq[i]);
        hi = fmax(hi, cq[i]);
    }
    double logit[6], z = 0, e[6];
    for (int i = 0; i < 6; i++) {
        logit[i] = log(s.prior[i]) + (5 + maxn) * 1.0 * (cq[i] - lo) / fmax(hi - lo, 1e-8);
        e[i] = exp(logit[i]);
        z += e[i];
    }
    float pi[GAME_MAX_MOVES];
    assert_int_equal(mcts2_policy(t, 0.0, pi), MCTS_OK); /* tau does not apply to the Gumbel target */
    for (int i = 0; i < 6; i++)
        assert_true(fabs(pi[s.move[i]] - e[i] / z) < 1e-5);
    /* the move: among the most visited, the best of log P + sigma */
    int best = -1;
    for (int i = 0; i < 6; i++)
        if (s.n[i] == (int)maxn && (best < 0 || logit[i] > logit[best]))
            best = i;
    assert_int_equal(mcts2_choose(t, 1.0), s.move[best]);
    mcts2_tree_free(t);

    /* k = 2 without noise: only the two highest priors (a and c) are ever searched */
    c.gumbel_k = 2;
    t = mcts2_tree_create(g, &c, 3, NULL);
    run_search(t, &he.base);
    s = read_root(t);
    for (int i = 0; i < 6; i++)
        assert_true((s.move[i] == 0 || s.move[i] == 2) ? s.n[i] == 16 : s.n[i] == 0);
    mcts2_tree_free(t);

    /* with noise the considered pair depends on the draw of g: several seeds see more than two moves */
    c.gumbel_scale = 1;
    unsigned seen = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        t = mcts2_tree_create(g, &c, seed, NULL);
        run_search(t, &he.base);
        s = read_root(t);
        int considered = 0;
        for (int i = 0; i < 6; i++)
            if (s.n[i] > 0) {
                seen |= 1u << s.move[i];
                considered++;
            }
        assert_int_equal(considered, 2);
        mcts2_tree_free(t);
    }
    assert_true(__builtin_popcount(seen) > 2);
    game_free(g);
}

static void test_gumbel_search_and_no_reuse(void **state)
{
    (void)state;
    game *g = kalah_game();
    hash_eval he;
    mcts_config c = gumbel_setup(g, &he, 40);
    game_pos start;
    game_start(g, &start);
    mcts_mp_result a, b;
    char err[MCTS_ERRLEN];
    /* mcts_mp_search takes gumbel_scale as 0: the same result for every seed */
    assert_int_equal(mcts_mp_search(g, &start, &c, &he.base, 1, &a, err), MCTS_OK);
    assert_int_equal(mcts_mp_search(g, &start, &c, &he.base, 99, &b, err), MCTS_OK);
    assert_int_equal(a.move, b.move);
    assert_memory_equal(a.visits, b.visits, sizeof a.visits);
    double sum = 0;
    for (int k = 0; k < game_moves(g); k++)
        sum += a.pi[k];
    assert_true(fabs(sum - 1.0) < 1e-5);
    /* the Gumbel root starts every move afresh: after a move the root has no visits */
    mcts2_tree *t = mcts2_tree_create(g, &c, 5, NULL);
    run_search(t, &he.base);
    int mv = mcts2_choose(t, 0);
    assert_int_equal(mcts2_advance(t, mv), MCTS_OK);
    int v[GAME_MAX_MOVES];
    assert_int_equal(mcts2_root_visits(t, v, NULL), 0);
    mcts2_tree_free(t);
    game_free(g);
}

/* ---- forced playouts in the tree ---- */

static void test_forced_playouts_tree(void **state)
{
    (void)state;
    game *g = kalah_game();
    const float prior[] = {0.80f, 0.04f, 0.04f, 0.04f, 0.04f, 0.04f};
    hash_eval he;
    hash_init(&he, g, prior);
    mcts_config c = mcts_config_default();
    c.sims = 300;
    c.dirichlet_eps = 0;
    c.forced_playouts_k = 2;
    mcts2_tree *t = mcts2_tree_create(g, &c, 1, NULL);
    run_search(t, &he.base);
    root_stats s = read_root(t);
    int total = 0;
    for (int i = 0; i < s.nc; i++)
        total += s.n[i];
    /* each child got its forced share: at the last root visit it was owed sqrt(2 P (total - 1)) */
    for (int i = 0; i < s.nc; i++)
        assert_true(s.n[i] + 1 >= sqrt(2.0 * s.prior[i] * (total - 1)));
    /* the target: visits with KataGo's pruning, recomputed here */
    mcts_node_info root;
    mcts2_node_get(t, mcts2_root_index(t), &root);
    int b = 0;
    for (int i = 1; i < s.nc; i++)
        if (s.n[i] > s.n[b])
            b = i;
    double star = s.q[b] + 1.5 * s.prior[b] * sqrt(root.visits) / (1 + s.n[b]), w[GAME_MAX_MOVES], z = 0;
    for (int i = 0; i < s.nc; i++) {
        double keep = s.n[i];
        if (i != b && s.n[i] > 0) {
            double gap = star - s.q[i], lo = s.n[i] - sqrt(2.0 * s.prior[i] * total);
            if (gap > 0)
                keep = fmin(fmax(lo, 1.5 * s.prior[i] * sqrt(root.visits) / gap - 1), s.n[i]);
            keep = keep <= 1 ? 0 : keep;
        }
        w[i] = keep;
        z += keep;
    }
    float pi[GAME_MAX_MOVES];
    assert_int_equal(mcts2_policy(t, 1.0, pi), MCTS_OK);
    int pruned = 0;
    for (int i = 0; i < s.nc; i++) {
        assert_true(fabs(pi[s.move[i]] - w[i] / z) < 1e-5);
        pruned += w[i] < s.n[i];
    }
    assert_true(pruned > 0); /* the low-prior moves were visited only because they were forced */
    mcts2_tree_free(t);

    /* without the lever the same search leaves the low-prior moves below their forced share */
    c.forced_playouts_k = 0;
    t = mcts2_tree_create(g, &c, 1, NULL);
    run_search(t, &he.base);
    root_stats s0 = read_root(t);
    int below = 0;
    for (int i = 0; i < s0.nc; i++)
        below += s0.n[i] + 1 < sqrt(2.0 * s0.prior[i] * (total - 1));
    assert_true(below > 0);
    mcts2_tree_free(t);
    game_free(g);
}

/* ---- the margin utility ---- */

static void test_margin_utility_terminal(void **state)
{
    (void)state;
    game *g = kalah_game();
    assert_int_equal(game_seeds(g), 48); /* the margin's divisor: every seed of the board */
    game_pos p;
    char err[GAME_ERRLEN];
    /* South's last seed (f) goes home and empties its row: North sweeps 6, 21-27, North wins by 6 */
    assert_int_equal(game_pos_parse(g, "0,0,0,0,0,1,20,1,1,1,1,1,1,21 S", &p, err), GAME_OK);
    const float prior[] = {1, 1, 1, 1, 1, 1};
    hash_eval he;
    hash_init(&he, g, prior);
    for (int wi = 0; wi < 3; wi++) {
        double w = wi == 0 ? 0.0 : wi == 1 ? 1.0 : 0.25;
        mcts_config c = mcts_config_default();
        c.sims = 3;
        c.dirichlet_eps = 0;
        c.solver = 0;
        c.margin_utility = w;
        mcts2_tree *t = mcts2_tree_create(g, &c, 1, NULL);
        assert_non_null(t);
        mcts2_set_root(t, &p);
        run_search(t, &he.base);
        root_stats s = read_root(t);
        assert_int_equal(s.nc, 1);
        assert_int_equal(s.n[0], 2);
        double want = (-1.0 + w * (-6.0 / 48.0)) / (1.0 + w);
        assert_true(fabs(s.q[0] - want) < 1e-6);
        mcts2_tree_free(t);
    }
    game_free(g);
}

static void test_margin_utility_evaluator(void **state)
{
    (void)state;
    game *g = kalah_game();
    const int dim = game_encode_dim(g), m = game_moves(g);
    assert_true(dim <= 32 && game_value_dim(g) == 1);
    nn_config nc = nn_config_default(dim, m);
    nc.n_hidden = 1;
    nc.hidden[0] = 16;
    nc.margin_head = 1;
    nn_net *net = nn_net_create(&nc, 11, NULL);
    assert_non_null(net);
    char err[MCTS_ERRLEN];
    mcts_mp_eval *plain = mcts_mp_eval_net_create(net, g, 8, err),
                 *mix = mcts_mp_eval_net_create_utility(net, g, 8, 0.5, err);
    assert_non_null(plain);
    assert_non_null(mix);
    game_pos pos[4];
    game_start(g, &pos[0]);
    for (int i = 1; i < 4; i++) {
        pos[i] = pos[i - 1];
        unsigned l = game_legal(g, &pos[i]);
        if (i % 2 && (l & (l - 1))) /* the second legal pit on odd plies: varied positions */
            l &= l - 1;
        assert_int_equal(game_apply(g, &pos[i], __builtin_ctz(l), NULL), GAME_OK);
    }
    float pr0[4 * GAME_MAX_MOVES], pr1[4 * GAME_MAX_MOVES], v0[4 * 2], v1[4 * 2], x[4 * 32], pol[4 * GAME_MAX_MOVES],
        val[4], mg[4];
    uint8_t legal[4 * GAME_MAX_MOVES];
    assert_int_equal(plain->evaluate(plain, pos, 4, pr0, v0), MCTS_OK);
    assert_int_equal(mix->evaluate(mix, pos, 4, pr1, v1), MCTS_OK);
    /* the heads straight from the net */
    for (int i = 0; i < 4; i++) {
        game_encode(g, &pos[i], x + i * dim);
        for (int k = 0; k < m; k++)
            legal[i * m + k] = (uint8_t)(game_legal(g, &pos[i]) >> k & 1u);
    }
    nn_workspace *ws = nn_workspace_create(net, 4);
    nn_outputs o = {.policy = pol, .value = val, .margin = mg};
    assert_int_equal(nn_forward_ex(net, ws, x, legal, 4, &o), NN_OK);
    int nonzero = 0, movers = 0;
    for (int i = 0; i < 4; i++) {
        double mm = fmax(-1.0, fmin(1.0, mg[i]));
        int me = pos[i].to_move, other = 1 - me;
        /* the value head is the mover's value; the opponent gets its negation */
        assert_true(fabs(v0[2 * i + me] - val[i]) < 1e-6);
        assert_true(fabs(v1[2 * i + me] - (val[i] + 0.5 * mm) / 1.5) < 1e-6);
        assert_true(v0[2 * i + other] == -v0[2 * i + me] && v1[2 * i + other] == -v1[2 * i + me]);
        nonzero += fabs(mg[i]) > 1e-3;
        movers |= 1 << me;
        for (int k = 0; k < m; k++)
            assert_true(pr0[i * m + k] == pr1[i * m + k]);
    }
    assert_true(nonzero > 0);
    assert_int_equal(movers, 3); /* both players' positions were among them */
    nn_workspace_free(ws);
    mcts_mp_eval_free(plain);
    mcts_mp_eval_free(mix);
    nn_net_free(net);
    /* no margin head, no margin utility */
    nc.margin_head = 0;
    net = nn_net_create(&nc, 11, NULL);
    assert_null(mcts_mp_eval_net_create_utility(net, g, 8, 0.5, err));
    assert_non_null(strstr(err, "margin head"));
    nn_net_free(net);
    game_free(g);
}

/* ---- playout cap randomization ---- */

static replay_buffer *play_rollouts(const selfplay_config *sc, const mcts_config *mc, uint64_t seed)
{
    game *g = game_create("kalah", NULL);
    assert_non_null(g);
    replay_buffer *rb = replay_create(game_encode_dim(g), game_moves(g), 1, 100000, NULL);
    assert_non_null(rb);
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    char err[MCTS_ERRLEN];
    if (game_selfplay_run(g, sc, mc, &ef, rb, seed, NULL, err) != MCTS_OK)
        fail_msg("%s", err);
    game_free(g);
    return rb;
}

static void test_playout_cap(void **state)
{
    (void)state;
    selfplay_config sc = selfplay_config_default();
    sc.games = 8;
    sc.games_per_thread = 4;
    mcts_config mc = mcts_config_default();
    mc.sims = 8;
    replay_buffer *base = play_rollouts(&sc, &mc, 5);
    sc.fast_sims = 3; /* with p = 1 it is never used: the same games, bit for bit */
    replay_buffer *same = play_rollouts(&sc, &mc, 5);
    assert_int_equal(replay_size(base), replay_size(same));
    float pa[GAME_MAX_MOVES], pb[GAME_MAX_MOVES], xa[32], xb[32];
    for (size_t i = 0; i < replay_size(base); i++) {
        replay_get(base, i, xa, NULL, pa, NULL, NULL);
        replay_get(same, i, xb, NULL, pb, NULL, NULL);
        assert_memory_equal(pa, pb, sizeof(float) * 6);
        assert_memory_equal(xa, xb, sizeof(float) * 14);
    }
    sc.full_sims_prob = 0.5;
    replay_buffer *cap = play_rollouts(&sc, &mc, 5);
    size_t n = replay_size(cap), zero = 0;
    for (size_t i = 0; i < n; i++) {
        replay_get(cap, i, NULL, NULL, pa, NULL, NULL);
        double s = 0;
        for (int k = 0; k < 6; k++)
            s += pa[k];
        assert_true(fabs(s) < 1e-6 || fabs(s - 1.0) < 1e-5); /* policy weight 0 or 1 */
        zero += fabs(s) < 1e-6;
    }
    /* Binomial(n, 1/2) value-only samples: within 5 standard deviations */
    assert_true(n > 100);
    assert_true(fabs((double)zero - n / 2.0) < 5 * sqrt(n / 4.0));
    sc.full_sims_prob = 0;
    replay_buffer *none = play_rollouts(&sc, &mc, 5);
    for (size_t i = 0; i < replay_size(none); i++) {
        replay_get(none, i, NULL, NULL, pa, NULL, NULL);
        for (int k = 0; k < 6; k++)
            assert_true(pa[k] == 0.0f);
    }
    replay_free(base), replay_free(same), replay_free(cap), replay_free(none);
}

/* A value-only sample (pi all zero) adds nothing to the policy loss or its gradient: with only the policy
 * term, the batch {A, Z} has half the gradient of {A} (the mean runs over both rows). */
static void test_zero_pi_no_policy_gradient(void **state)
{
    (void)state;
    nn_config nc = nn_config_default(14, 6);
    nc.n_hidden = 1;
    nc.hidden[0] = 8;
    nn_net *net = nn_net_create(&nc, 3, NULL);
    nn_workspace *ws = nn_workspace_create_train(net, 2);
    float x[28], pi[12] = {0.1f, 0.2f, 0.3f, 0.4f, 0, 0, 0, 0, 0, 0, 0, 0}, z[2] = {1, -1};
    for (int i = 0; i < 28; i++)
        x[i] = (float)((i * 7) % 5) / 4.0f;
    nn_loss_weights w = {.policy_w = 1, .value_w = 0, .margin_w = 0, .l2 = 0};
    size_t np = nn_param_count(net);
    float *g1 = malloc(np * sizeof *g1), *g2 = malloc(np * sizeof *g2);
    nn_batch one = {.batch = 1, .x = x, .pi = pi, .z = z}, two = {.batch = 2, .x = x, .pi = pi, .z = z};
    nn_loss l1, l2;
    assert_int_equal(nn_train_grad(net, ws, &one, &w, g1, &l1), NN_OK);
    assert_int_equal(nn_train_grad(net, ws, &two, &w, g2, &l2), NN_OK);
    assert_true(fabs(l2.policy - l1.policy / 2) < 1e-6);
    for (size_t i = 0; i < np; i++)
        assert_true(fabsf(g2[i] - g1[i] / 2) < 1e-6f);
    free(g1), free(g2);
    nn_workspace_free(ws);
    nn_net_free(net);
}

/* ---- checks ---- */

static void test_config_checks(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    mcts_config c = mcts_config_default();
    assert_int_equal(c.root, MCTS_ROOT_PUCT);
    assert_true(c.forced_playouts_k == 0 && c.margin_utility == 0);
    c.root = 2;
    assert_int_equal(mcts_config_check(&c, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "mcts.root"));
    c = mcts_config_default();
    c.gumbel_k = 0;
    assert_int_equal(mcts_config_check(&c, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "mcts.gumbel_k"));
    c = mcts_config_default();
    c.gumbel_c_scale = 0;
    assert_int_equal(mcts_config_check(&c, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "mcts.gumbel_c_scale"));
    c = mcts_config_default();
    c.forced_playouts_k = -1;
    assert_int_equal(mcts_config_check(&c, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "mcts.forced_playouts_k"));
    c.forced_playouts_k = 2;
    c.root = MCTS_ROOT_GUMBEL;
    assert_int_equal(mcts_config_check(&c, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "mcts.forced_playouts_k"));
    c = mcts_config_default();
    c.margin_utility = NAN;
    assert_int_equal(mcts_config_check(&c, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "mcts.margin_utility"));
    selfplay_config s = selfplay_config_default();
    assert_true(s.full_sims_prob == 1.0);
    s.full_sims_prob = 0.5;
    assert_int_equal(selfplay_config_check(&s, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.fast_sims"));
    s.fast_sims = 10;
    assert_int_equal(selfplay_config_check(&s, err), MCTS_OK);
    s.full_sims_prob = 1.5;
    assert_int_equal(selfplay_config_check(&s, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.full_sims_prob"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_halving_schedule),
        cmocka_unit_test(test_sigma_and_target),
        cmocka_unit_test(test_forced_and_prune),
        cmocka_unit_test(test_gumbel_tree),
        cmocka_unit_test(test_gumbel_search_and_no_reuse),
        cmocka_unit_test(test_forced_playouts_tree),
        cmocka_unit_test(test_margin_utility_terminal),
        cmocka_unit_test(test_margin_utility_evaluator),
        cmocka_unit_test(test_playout_cap),
        cmocka_unit_test(test_zero_pi_no_policy_gradient),
        cmocka_unit_test(test_config_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
