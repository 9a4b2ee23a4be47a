/* test_tbase.c — the endgame tablebase in the search and in self-play: the shared database's
 * values against an independent full-window minimax on Kalah(4,3) and Kalah(6,3), tablebase leaves in the
 * two-player tree (mcts.h, the database attached to a "kalah" game instance: valued exactly, never sent to
 * the evaluator, proven with the solver), roots the database covers proven with an optimal move chosen (the
 * tree and mcts_mp_search agreeing), score proofs with and without a database, rescored self-play targets
 * equal to the exact values, the az agent's tb=N (a covered root played from the database, as the solver)
 * and its checks, and the defaults leaving the search untouched. */
// ctest-labels: threads
#include <stdlib.h>

#include "tests/test_util.h"

#include <math.h>
#include "env/kalah.h"
#include "eval/agent.h"
#include "eval/game_agent.h"
#include "eval/tbase.h"
#include "nn/h5io.h"
#include "nn/net.h"
#include "selfplay/mcts.h"
#include "selfplay/mcts_mp.h"
#include "selfplay/game_selfplay.h"
#include "selfplay/selfplay.h"
#include "train/config.h"

static kalah_rules rules_of(const char *spec)
{
    kalah_rules r;
    char err[KALAH_ERRLEN];
    if (kalah_rules_parse(spec, &r, err) != KALAH_OK)
        fail_msg("%s: %s", spec, err);
    return r;
}

/* The databases the tests use: Kalah(4,3) up to 16 seeds (C(24, 8) = 735 471 entries) and Kalah(6,3) up to
 * 10 (C(22, 12) = 646 646): big enough for real endgames, small enough to build in a TSan run. */
#define TB43 16
#define TB63 10

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

static int in_pits(const kalah_rules *r, const kalah_pos *p)
{
    return 2 * r->pits * r->seeds - p->cell[r->pits] - p->cell[2 * r->pits + 1];
}

/* A random unfinished position with at most max_pits seeds in the pits (uniform random sowings from the
 * start until there are few enough); 0 when the playout ended first. */
static int random_late(const kalah_rules *r, uint64_t *x, int max_pits, kalah_pos *out)
{
    kalah_pos p;
    kalah_start(r, &p);
    while (!p.over && in_pits(r, &p) > max_pits) {
        unsigned legal = kalah_legal(r, &p);
        int pick = (int)(lcg(x) % (uint64_t)__builtin_popcount(legal));
        for (int k = 0; k < r->pits; k++)
            if (legal >> k & 1u && pick-- == 0) {
                kalah_sow(r, &p, k, NULL);
                break;
            }
    }
    *out = p;
    return !p.over;
}

/* The independent reference: plain full-window minimax (no table, no database, no pruning) of the final
 * margin for the mover; an extra turn keeps the sign. */
static int minimax(const kalah_rules *r, const kalah_pos *p)
{
    if (p->over) {
        int m = kalah_margin(r, p);
        return p->side == KALAH_SOUTH ? m : -m;
    }
    unsigned legal = kalah_legal(r, p);
    int best = -1000;
    for (int k = 0; k < r->pits; k++) {
        if (!(legal >> k & 1u))
            continue;
        kalah_pos q = *p;
        kalah_sow(r, &q, k, NULL);
        int v;
        if (q.over) {
            int m = kalah_margin(r, &q);
            v = p->side == KALAH_SOUTH ? m : -m;
        } else {
            v = q.side == p->side ? minimax(r, &q) : -minimax(r, &q);
        }
        if (v > best)
            best = v;
    }
    return best;
}

static tb_ref *acquire(const kalah_rules *r, int seeds)
{
    char err[KALAH_ERRLEN];
    tb_ref *t = tb_acquire(r, seeds, 2, NULL, err);
    if (!t)
        fail_msg("tb_acquire(%d): %s", seeds, err);
    return t;
}

/* ---- the database's values ---- */

static void test_values_match_minimax(void **state)
{
    (void)state;
    const char *specs[] = {"kalah:pits=4,seeds=3", "kalah:pits=6,seeds=3"};
    const int db_seeds[] = {TB43, TB63}, probe_max[] = {10, 8};
    for (int s = 0; s < 2; s++) {
        kalah_rules r = rules_of(specs[s]);
        tb_ref *t = acquire(&r, db_seeds[s]);
        assert_int_equal(tb_seeds(t), db_seeds[s]);
        uint64_t x = 7 + (uint64_t)s;
        int checked = 0;
        for (int n = 0; n < 400 && checked < 60; n++) {
            kalah_pos p;
            if (!random_late(&r, &x, probe_max[s], &p))
                continue;
            int m = 0;
            assert_int_equal(tb_margin(t, &p, &m), 1);
            assert_int_equal(m, minimax(&r, &p));
            assert_int_equal(tb_oracle(t)->probe(tb_oracle(t), &p), m);
            checked++;
        }
        assert_true(checked >= 30);
        /* not covered: more seeds in the pits than the database holds, or finished */
        kalah_pos start;
        kalah_start(&r, &start);
        int m = 0;
        assert_int_equal(tb_margin(t, &start, &m), 0);
        tb_release(t);
    }
}

static void test_cache_shares_one_database(void **state)
{
    (void)state;
    kalah_rules r = rules_of("kalah:pits=4,seeds=2"); /* rules the group's setup holds no database of */
    tb_ref *a = acquire(&r, 8), *b = acquire(&r, 6), *c = acquire(&r, 10);
    assert_ptr_equal(a, b);        /* a bigger database serves a smaller request */
    assert_ptr_not_equal(a, c);    /* a bigger request builds */
    assert_ptr_equal(tb_db(a), tb_db(b));
    kalah_rules other = rules_of("kalah:pits=4,seeds=2,capture=none");
    tb_ref *d = acquire(&other, 6);
    assert_ptr_not_equal(d, a); /* other rules, another database */
    tb_release(a), tb_release(b), tb_release(c), tb_release(d);
    char err[KALAH_ERRLEN] = "";
    assert_null(tb_acquire(&r, 0, 1, NULL, err));
    assert_non_null(strstr(err, "1..127"));
    kalah_rules sows = rules_of("kalah:pits=4,seeds=3,max_sows=100");
    assert_null(tb_acquire(&sows, 8, 1, NULL, err));
}

/* ---- tablebase leaves in the tree ---- */

/* A "kalah" game instance of rules spec with database t attached (game_set_endgame; t NULL: none). */
static game *game_with(const char *spec, const tb_ref *t)
{
    char err[GAME_ERRLEN];
    game *g = game_create(spec, err);
    if (!g)
        fail_msg("%s: %s", spec, err);
    if (t)
        game_set_endgame(g, tb_game_endgame(t));
    return g;
}

/* Kalah position p as the game interface's position of g. */
static game_pos to_game(const game *g, const kalah_rules *r, const kalah_pos *p)
{
    char text[256], err[GAME_ERRLEN];
    game_pos gp;
    kalah_pos_format(r, p, text, sizeof text);
    if (game_pos_parse(g, text, &gp, err) != GAME_OK)
        fail_msg("%s: %s", text, err);
    return gp;
}

typedef struct {
    mcts_mp_eval base;
    int min_pits_seen; /* fewest seeds in the pits of any non-root position evaluated (1000: none) */
    game_pos root;
    int positions;
} count_eval;

static int count_evaluate(mcts_mp_eval *e, const game_pos *pos, int n, float *prior, float *value)
{
    count_eval *c = (count_eval *)e;
    int m = game_moves(e->game);
    for (int i = 0; i < n; i++) {
        int in = game_seeds_in_pits(e->game, &pos[i]);
        if (memcmp(&pos[i], &c->root, sizeof pos[i]) != 0 && in < c->min_pits_seen)
            c->min_pits_seen = in;
        for (int k = 0; k < m; k++)
            prior[i * m + k] = 1.0f;
        value[2 * i] = value[2 * i + 1] = 0.0f;
        c->positions++;
    }
    e->positions += (uint64_t)n;
    return MCTS_OK;
}

static void count_destroy(mcts_mp_eval *e) { (void)e; }

static void count_init(count_eval *c, const game *g, const game_pos *root)
{
    memset(c, 0, sizeof *c);
    c->base = (mcts_mp_eval){.evaluate = count_evaluate, .destroy = count_destroy, .game = g, .max_batch = 8};
    c->root = *root;
    c->min_pits_seen = 1000;
}

/* Exact result (+1/0/−1) for `side` of position p: finished by its margin, else from the database. */
static int exact_result(const kalah_rules *r, tb_ref *t, const kalah_pos *p, int side)
{
    int m;
    if (p->over) {
        m = kalah_margin(r, p);
        m = side == KALAH_SOUTH ? m : -m;
    } else {
        assert_int_equal(tb_margin(t, p, &m), 1);
        m = p->side == side ? m : -m;
    }
    return (m > 0) - (m < 0);
}

/* Exact final margin for `side` of unfinished covered position p, from the database. */
static int exact_margin(tb_ref *t, const kalah_pos *p, int side)
{
    int m;
    assert_int_equal(tb_margin(t, p, &m), 1);
    return p->side == side ? m : -m;
}

/* Runs cfg's search of game g from root with evaluator ev to the end (mcts2_done), leaf by leaf, and returns
 * the tree (caller frees). */
static mcts2_tree *search_to_end(const game *g, const mcts_config *cfg, uint64_t seed, const game_pos *root,
                                 mcts_mp_eval *ev)
{
    char err[MCTS_ERRLEN];
    mcts2_tree *tree = mcts2_tree_create(g, cfg, seed, err);
    if (!tree)
        fail_msg("%s", err);
    mcts2_set_root(tree, root);
    while (!mcts2_done(tree)) {
        game_pos leaf;
        int h = mcts2_select(tree, &leaf);
        if (h >= 0) {
            float prior[GAME_MAX_MOVES], v[GAME_MAX_PLAYERS];
            assert_int_equal(ev->evaluate(ev, &leaf, 1, prior, v), MCTS_OK);
            assert_int_equal(mcts2_complete(tree, h, prior, v[leaf.to_move]), MCTS_OK);
        } else {
            assert_int_equal(h, MCTS_SIM_DONE);
        }
    }
    return tree;
}

/* The position of node i of tree: its moves replayed from root with Kalah's own rules. */
static kalah_pos node_position(const kalah_rules *r, const mcts2_tree *tree, int i, const kalah_pos *root)
{
    int moves[256], n = 0;
    for (int j = i; j != mcts2_root_index(tree);) {
        mcts_node_info up;
        assert_int_equal(mcts2_node_get(tree, j, &up), MCTS_OK);
        moves[n++] = up.move;
        j = up.parent;
    }
    kalah_pos p = *root;
    while (n > 0)
        kalah_sow(r, &p, moves[--n], NULL);
    return p;
}

/* Walks the tree: every tablebase leaf holds exactly N visits of its exact value (W = N × result for the
 * parent's mover; with margin utility w > 0, N × (result + w · margin / (2 · pits · seeds)) / (1 + w), the
 * exact margin recomputed here from the database), is never expanded, and with the solver is proven to its
 * result. Returns the leaves. */
static int check_leaves(const kalah_rules *r, tb_ref *t, const mcts2_tree *tree, const kalah_pos *root,
                        int tb_seeds, int solver, double w)
{
    int leaves = 0;
    for (int i = 0; i < mcts2_node_count(tree); i++) {
        mcts_node_info in;
        assert_int_equal(mcts2_node_get(tree, i, &in), MCTS_OK);
        if (in.side < 0 || in.parent < 0)
            continue;
        kalah_pos p = node_position(r, tree, i, root);
        int covered = !p.over && in_pits(r, &p) <= tb_seeds;
        assert_int_equal(in.exact, covered);
        if (!covered)
            continue;
        leaves++;
        assert_int_equal(in.expanded, 0);
        int want = exact_result(r, t, &p, in.parent_side);
        double u = (want + w * exact_margin(t, &p, in.parent_side) / (2.0 * r->pits * r->seeds)) / (1.0 + w);
        assert_true(fabs(in.w - u * in.visits) < 1e-3 * (1 + in.visits));
        /* with the margin utility the solver's proofs are score proofs (mcts.h): exact, never "proven" */
        assert_int_equal(in.proven, solver && w == 0 ? want : MCTS_UNPROVEN);
        assert_int_equal(in.scored, solver && w > 0 && in.visits > 0);
    }
    return leaves;
}

static void test_leaves_are_exact(void **state)
{
    (void)state;
    kalah_rules r = rules_of("kalah:pits=6,seeds=3");
    tb_ref *t = acquire(&r, TB63);
    game *g = game_with("kalah:pits=6,seeds=3", t);
    uint64_t x = 11;
    int tested = 0, all_leaves = 0;
    for (int n = 0; n < 200 && tested < 12; n++) {
        kalah_pos root;
        if (!random_late(&r, &x, TB63 + 4, &root) || in_pits(&r, &root) <= TB63)
            continue;
        game_pos groot = to_game(g, &r, &root);
        for (int variant = 0; variant < 4; variant++) {
            int solver = variant & 1;
            double w = variant & 2 ? 0.5 : 0.0; /* the margin utility: exact margins at the leaves too */
            mcts_config cfg = mcts_config_default();
            cfg.sims = 300;
            cfg.solver = solver;
            cfg.margin_utility = w;
            cfg.tablebase_seeds = TB63;
            count_eval ev;
            count_init(&ev, g, &groot);
            mcts2_tree *tree = search_to_end(g, &cfg, 5, &groot, &ev.base);
            assert_true(ev.min_pits_seen > TB63); /* no covered position went to the evaluator */
            all_leaves += check_leaves(&r, t, tree, &root, TB63, solver, w);
            mcts2_tree_free(tree);
        }
        tested++;
    }
    assert_true(tested >= 6 && all_leaves > 50);
    game_free(g);
    tb_release(t);
}

/* What a search of a covered root tells (the single-position search's answer, with the proofs apart). */
typedef struct {
    int move;
    float pi[GAME_MAX_MOVES];
    float value;                  /* Q(root) for the mover */
    int root_proven, root_scored;
    int proven[GAME_MAX_MOVES];   /* each root child's proof for the mover, or MCTS_UNPROVEN */
} covered_result;

/* The search of a root that game g's database of `seeds` covers, with margin utility w and the default
 * solver, until its proof stops it; only the root may go to the evaluator (every other position is a
 * tablebase leaf). The single-position search's rules: no root noise, the most visited move (mcts_mp.h); the
 * tree is read directly for its proofs, and mcts_mp_search of the same root must agree with it. */
static void search_covered_root(const game *g, int seeds, double w, const game_pos *root, covered_result *res)
{
    mcts_config cfg = mcts_config_default();
    cfg.sims = 100000; /* the proof stops it long before */
    cfg.margin_utility = w;
    cfg.tablebase_seeds = seeds;
    cfg.dirichlet_eps = 0;
    count_eval ev;
    count_init(&ev, g, root);
    mcts2_tree *tree = search_to_end(g, &cfg, 3, root, &ev.base);
    assert_int_equal(ev.positions, 1);
    memset(res, 0, sizeof *res);
    assert_int_equal(mcts2_policy(tree, 1.0, res->pi), MCTS_OK);
    res->move = mcts2_choose(tree, 0.0);
    res->value = mcts2_root_value(tree);
    res->root_proven = mcts2_root_proven(tree);
    res->root_scored = mcts2_root_scored(tree);
    for (int k = 0; k < GAME_MAX_MOVES; k++) {
        mcts_node_info ni;
        int c = mcts2_node_child(tree, mcts2_root_index(tree), k);
        res->proven[k] = c >= 0 && mcts2_node_get(tree, c, &ni) == MCTS_OK ? ni.proven : MCTS_UNPROVEN;
    }
    mcts2_tree_free(tree);

    count_eval ev2;
    count_init(&ev2, g, root);
    mcts_mp_result mp;
    char err[MCTS_ERRLEN];
    if (mcts_mp_search(g, root, &cfg, &ev2.base, 3, &mp, err) != MCTS_OK)
        fail_msg("mcts_mp_search: %s", err);
    assert_int_equal(ev2.positions, 1);
    assert_int_equal(mp.proven, 1);
    assert_int_equal(mp.move, res->move);
    assert_memory_equal(mp.pi, res->pi, (size_t)game_moves(g) * sizeof(float));
    float exact = res->root_proven != MCTS_UNPROVEN ? (float)res->root_proven : res->value;
    assert_float_equal(mp.value[root->to_move], exact, 1e-6);
    assert_float_equal(mp.value[1 - root->to_move], -exact, 1e-6);
}

/* A root the database covers is proven to its exact result, and the move chosen reaches that result. */
static void test_covered_root_proven_optimal(void **state)
{
    (void)state;
    const char *specs[] = {"kalah:pits=4,seeds=3", "kalah:pits=6,seeds=3"};
    const int db_seeds[] = {TB43, TB63}, root_max[] = {TB43, TB63};
    for (int s = 0; s < 2; s++) {
        kalah_rules r = rules_of(specs[s]);
        tb_ref *t = acquire(&r, db_seeds[s]);
        game *g = game_with(specs[s], t);
        uint64_t x = 21 + (uint64_t)s;
        int tested = 0;
        for (int n = 0; n < 300 && tested < 25; n++) {
            kalah_pos root;
            if (!random_late(&r, &x, root_max[s], &root) || __builtin_popcount(kalah_legal(&r, &root)) < 2)
                continue;
            covered_result res;
            game_pos groot = to_game(g, &r, &root);
            search_covered_root(g, db_seeds[s], 0.0, &groot, &res);
            int want = exact_result(&r, t, &root, root.side);
            assert_int_equal(res.root_proven, want);
            kalah_pos after = root;
            kalah_sow(&r, &after, res.move, NULL);
            assert_int_equal(exact_result(&r, t, &after, root.side), want);
            assert_int_equal(res.proven[res.move], want);
            tested++;
        }
        assert_true(tested >= 15);
        game_free(g);
        tb_release(t);
    }
}

static void test_config_checks_and_defaults(void **state)
{
    (void)state;
    mcts_config cfg = mcts_config_default();
    assert_int_equal(cfg.tablebase_seeds, 0);
    char err[MCTS_ERRLEN] = "";
    cfg.tablebase_seeds = 128;
    assert_int_equal(mcts_config_check(&cfg, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "mcts.tablebase_seeds"));
    cfg.tablebase_seeds = 10; /* no database attached */
    game *plain = game_with("kalah", NULL);
    assert_null(mcts2_tree_create(plain, &cfg, 1, err));
    assert_non_null(strstr(err, "needs an endgame database"));
    game_free(plain);
    const char *small_spec = "kalah:pits=6,seeds=3,capture=always"; /* no other test builds these */
    kalah_rules small = rules_of(small_spec);
    tb_ref *t = acquire(&small, 8);
    game *with = game_with(small_spec, t), *without = game_with(small_spec, NULL);
    assert_null(mcts2_tree_create(with, &cfg, 1, err)); /* 10 > the 8 it covers */
    assert_non_null(strstr(err, "covers only 8"));
    /* tablebase_seeds = 0 with a database attached: the same search as without one, from a root whose
     * tree reaches covered positions (with tablebase_seeds = 8 the search differs) */
    uint64_t x = 5;
    kalah_pos late;
    int found = 0;
    for (int n = 0; n < 100 && !found; n++)
        found = random_late(&small, &x, 12, &late) && in_pits(&small, &late) > 8 &&
                __builtin_popcount(kalah_legal(&small, &late)) >= 2;
    assert_true(found);
    game_pos p = to_game(with, &small, &late);
    mcts_config a = mcts_config_default(), b = a;
    a.sims = b.sims = 400;
    mcts_mp_eval *ea = mcts_mp_eval_rollout_create(without, 1, 1, 9, err),
                 *eb = mcts_mp_eval_rollout_create(with, 1, 1, 9, err);
    assert_non_null(ea);
    assert_non_null(eb);
    mcts_mp_result ra, rb, rc;
    assert_int_equal(mcts_mp_search(without, &p, &a, ea, 4, &ra, err), MCTS_OK);
    assert_int_equal(mcts_mp_search(with, &p, &b, eb, 4, &rb, err), MCTS_OK);
    assert_int_equal(ra.move, rb.move);
    assert_memory_equal(ra.visits, rb.visits, sizeof ra.visits);
    assert_memory_equal(ra.value, rb.value, sizeof ra.value);
    assert_int_equal(ra.evals, rb.evals);
    b.tablebase_seeds = 8;
    assert_int_equal(mcts_mp_search(with, &p, &b, eb, 4, &rc, err), MCTS_OK);
    assert_true(rc.evals < ra.evals); /* covered positions were valued by the database instead */
    mcts_mp_eval_free(ea), mcts_mp_eval_free(eb);
    game_free(with), game_free(without);
    tb_release(t);
}

/* ---- rescored self-play targets ---- */

/* The games of a self-play run (game_selfplay_run_games), one after the other: moves[i] and their counts. */
typedef struct {
    int count, n[64];
    uint8_t moves[64][1000];
} games_log;

static int collect(void *ctx, const game_pos *start, const uint8_t *moves, int n)
{
    games_log *l = ctx;
    (void)start;
    if (l->count == 64 || n > 1000)
        return 1;
    l->n[l->count] = n;
    memcpy(l->moves[l->count++], moves, (size_t)n);
    return 0;
}

/* Self-play of Kalah(4,3) through the game interface with the database attached to the game: the tablebase
 * leaves and rescoring of game_selfplay.h. */
static void test_rescored_targets(void **state)
{
    (void)state;
    kalah_rules r = rules_of("kalah:pits=4,seeds=3");
    tb_ref *t = acquire(&r, TB43);
    nn_config nc = nn_config_default(kalah_encode_dim(&r), r.pits);
    nc.n_hidden = 1;
    nc.hidden[0] = 16;
    nn_net *net = nn_net_create(&nc, 3, NULL);
    assert_non_null(net);
    game *g = game_create("kalah:pits=4,seeds=3", NULL);
    assert_non_null(g);
    game_set_endgame(g, tb_game_endgame(t));
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_net(net);
    mcts_config mc = mcts_config_default();
    mc.sims = 24;
    mc.tablebase_seeds = TB43;
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 10;
    sc.threads = 2;
    int dim = kalah_encode_dim(&r), m = r.pits;
    replay_buffer *rb[3];
    games_log *log[3];
    for (int rescore = 0; rescore < 3; rescore++) { /* off, values, values and policy */
        sc.rescore = rescore > 0;
        sc.rescore_policy = rescore == 2;
        rb[rescore] = replay_create(dim, m, 1, 100000, NULL);
        log[rescore] = calloc(1, sizeof *log[rescore]);
        char err[MCTS_ERRLEN];
        if (game_selfplay_run_games(g, &sc, &mc, &ef, rb[rescore], collect, log[rescore], 17, NULL, err) != MCTS_OK)
            fail_msg("game_selfplay_run_games: %s", err);
    }
    for (int i = 1; i < 3; i++) { /* rescoring changes the targets, never the games */
        assert_int_equal(log[0]->count, log[i]->count);
        assert_memory_equal(log[0]->n, log[i]->n, sizeof log[0]->n);
        assert_memory_equal(log[0]->moves, log[i]->moves, sizeof log[0]->moves);
    }
    assert_int_equal(log[0]->count, 10);
    assert_int_equal(replay_total(rb[0]), replay_total(rb[1]));
    float x0[64], x1[64], pi0[8], pi1[8], pi2[8], z0, z1, z2, mg0, mg1, mg2;
    uint8_t l0[8], l1[8];
    size_t idx = 0;
    int covered = 0, kept = 0;
    for (int gi = 0; gi < log[0]->count; gi++) {
        const int n = log[0]->n[gi];
        const uint8_t *moves = log[0]->moves[gi];
        kalah_pos p;
        kalah_start(&r, &p);
        for (int i = 0; i < n; i++, idx++) {
            assert_int_equal(replay_get(rb[0], idx, x0, l0, pi0, &z0, &mg0), MCTS_OK);
            assert_int_equal(replay_get(rb[1], idx, x1, l1, pi1, &z1, &mg1), MCTS_OK);
            assert_int_equal(replay_get(rb[2], idx, NULL, NULL, pi2, &z2, &mg2), MCTS_OK);
            assert_true(z2 == z1 && mg2 == mg1);
            assert_memory_equal(x0, x1, (size_t)dim * sizeof(float));
            assert_memory_equal(pi0, pi1, (size_t)m * sizeof(float));
            int ex;
            if (tb_margin(t, &p, &ex)) {
                assert_float_equal(z1, (float)((ex > 0) - (ex < 0)), 0);
                assert_float_equal(mg1, (float)ex / 24.0f, 1e-6);
                /* the policy target: uniform over the moves whose exact margin is ex (the database's values are
                 * checked against minimax above) */
                unsigned legal = kalah_legal(&r, &p);
                int best = 0;
                for (int k = 0; k < m; k++) {
                    if (!(legal >> k & 1u))
                        continue;
                    kalah_pos q = p;
                    kalah_sow(&r, &q, k, NULL);
                    int v; /* the child's exact margin for p's mover (children of covered positions are covered) */
                    if (q.over)
                        v = (p.side == KALAH_SOUTH ? 1 : -1) * kalah_margin(&r, &q);
                    else {
                        assert_int_equal(tb_margin(t, &q, &v), 1);
                        v = q.side == p.side ? v : -v;
                    }
                    best += v == ex;
                    if (v != ex)
                        assert_true(pi2[k] == 0.0f);
                }
                for (int k = 0; k < m; k++)
                    if (pi2[k] != 0.0f)
                        assert_float_equal(pi2[k], 1.0f / (float)best, 1e-6);
                assert_true(best >= 1);
                covered++;
            } else {
                assert_float_equal(z1, z0, 0); /* the game's outcome */
                assert_float_equal(mg1, mg0, 0);
                assert_memory_equal(pi2, pi0, (size_t)m * sizeof(float));
                kept++;
            }
            kalah_sow(&r, &p, moves[i], NULL);
        }
    }
    assert_int_equal(idx, replay_total(rb[0]));
    if (!(covered > 20 && kept > 50))
        fail_msg("covered %d, kept %d samples", covered, kept);
    /* rescoring without tablebase leaves, or beyond the database, or without one, is refused */
    mcts_config off = mcts_config_default();
    sc.rescore = 1;
    char err[MCTS_ERRLEN] = "";
    assert_int_equal(game_selfplay_run(g, &sc, &off, &ef, NULL, 1, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.rescore"));
    mcts_config beyond = mc;
    beyond.tablebase_seeds = tb_seeds(t) + 1;
    assert_int_equal(game_selfplay_run(g, &sc, &beyond, &ef, NULL, 1, NULL, err), MCTS_EINVAL);
    game_set_endgame(g, NULL);
    assert_int_equal(game_selfplay_run(g, &sc, &mc, &ef, NULL, 1, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "endgame database"));
    sc.rescore = 0;
    sc.rescore_policy = 1;
    assert_int_equal(game_selfplay_run(g, &sc, &mc, &ef, NULL, 1, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.rescore_policy needs selfplay.rescore"));
    for (int i = 0; i < 3; i++)
        replay_free(rb[i]), free(log[i]);
    game_free(g);
    nn_net_free(net);
    tb_release(t);
}

/* ---- the az agent's tb=N ---- */

static void test_az_agent_tb(void **state)
{
    (void)state;
    kalah_rules r = rules_of("kalah:pits=4,seeds=3");
    nn_config nc = nn_config_default(kalah_encode_dim(&r), r.pits);
    nc.n_hidden = 1;
    nc.hidden[0] = 8;
    nn_net *net = nn_net_create(&nc, 5, NULL);
    char path[1024], rules[128], err[AGENT_ERRLEN];
    snprintf(path, sizeof path, "%s/tbase-az.h5", SOWZERO_TMP);
    kalah_rules_format(&r, rules, sizeof rules);
    assert_int_equal(nn_export_save(path, net, rules, KALAH_ENCODING_NAME, NULL), NN_OK);
    nn_net_free(net);
    char spec[1200];
    game *g = game_create(rules, NULL);
    assert_non_null(g);
    snprintf(spec, sizeof spec, "az:net=%s,sims=0,tb=10", path);
    assert_null(game_agent_create(spec, g, err));
    assert_non_null(strstr(err, "tb=10 needs a search"));
    snprintf(spec, sizeof spec, "az:net=%s,sims=2000,tb=%d", path, TB43);
    game_agent *a = game_agent_create(spec, g, err);
    if (!a)
        fail_msg("%s", err);
    snprintf(spec, sizeof spec, "az:net=%s,sims=2000,tb=%d,tbroot=0", path, TB43);
    game_agent *leaves = game_agent_create(spec, g, err); /* the search with tablebase leaves only */
    if (!leaves)
        fail_msg("%s", err);
    agent *solver = agent_create("solver:endgame=16", &r, err);
    assert_non_null(solver);
    tb_ref *t = acquire(&r, TB43);
    uint64_t x = 3;
    int tested = 0;
    for (int n = 0; n < 100 && tested < 10; n++) {
        kalah_pos p;
        if (!random_late(&r, &x, 14, &p))
            continue;
        char text[256], gerr[GAME_ERRLEN];
        game_pos gp;
        kalah_pos_format(&r, &p, text, sizeof text);
        assert_int_equal(game_pos_parse(g, text, &gp, gerr), GAME_OK);
        int mv, smv;
        game_agent_new_game(a, &gp, 1);
        assert_int_equal(game_agent_choose(a, &gp, &mv), AGENT_OK);
        assert_int_equal(agent_choose(solver, &p, &smv), AGENT_OK);
        /* a covered root is played from the database: an optimal move by exact margin, as the solver's */
        int margin[KALAH_MAX_PITS];
        int best = mcts_tb_move_margins(tb_oracle(t), TB43, &r, &p, margin);
        assert_int_equal(margin[mv], best);
        assert_int_equal(margin[smv], best);
        int tm;
        assert_int_equal(tb_margin(t, &p, &tm), 1);
        assert_int_equal(best, tm);
        /* leaves only: the proven root's move keeps the exact result (win/draw/loss), not always the margin */
        int lmv;
        game_agent_new_game(leaves, &gp, 1);
        assert_int_equal(game_agent_choose(leaves, &gp, &lmv), AGENT_OK);
        assert_int_equal((margin[lmv] > 0) - (margin[lmv] < 0), (best > 0) - (best < 0));
        tested++;
    }
    assert_true(tested >= 5);
    game_agent_free(a);
    game_agent_free(leaves);
    agent_free(solver);
    tb_release(t);
    game_free(g);
}

/* ---- the config keys ---- */

static void test_config_keys(void **state)
{
    (void)state;
    const char *bad[][2] = {
        {"selfplay.rescore=true", "selfplay.rescore needs mcts.tablebase_seeds"},
        {"mcts.tablebase_seeds=128", "tablebase_seeds"},
        {"rules.max_sows=100", "kalah has none: its rules have a sow limit (max_sows = 100)"},
        {"eval.sims=0", "eval.tablebase_seeds needs eval.sims >= 1"},
        {"selfplay.rescore_policy=true", "selfplay.rescore_policy needs selfplay.rescore"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg_config c;
        char err[CFG_ERRLEN] = "";
        cfg_defaults(&c);
        assert_int_equal(cfg_set(&c, "run.iterations=1", err), 0);
        if (i == 2 || i == 3) /* a database is asked for, and then something it cannot serve */
            assert_int_equal(cfg_set(&c, i == 2 ? "mcts.tablebase_seeds=8" : "eval.tablebase_seeds=8", err), 0);
        int rc = cfg_set(&c, bad[i][0], err);
        if (rc == 0)
            rc = cfg_finish(&c, err);
        assert_int_not_equal(rc, 0);
        if (!strstr(err, bad[i][1]))
            fail_msg("--set %s: '%s' does not say '%s'", bad[i][0], err, bad[i][1]);
    }
    cfg_config c;
    char err[CFG_ERRLEN];
    cfg_defaults(&c);
    assert_int_equal(c.mcts.tablebase_seeds, 0);
    assert_int_equal(c.selfplay.rescore, 0);
    assert_int_equal(c.selfplay.rescore_policy, 0);
    assert_int_equal(c.eval.tablebase_seeds, 0);
    assert_int_equal(cfg_set(&c, "run.iterations=1", err), 0);
    assert_int_equal(cfg_set(&c, "mcts.tablebase_seeds=16", err), 0);
    assert_int_equal(cfg_set(&c, "selfplay.rescore=true", err), 0);
    assert_int_equal(cfg_set(&c, "selfplay.rescore_policy=true", err), 0);
    assert_int_equal(cfg_set(&c, "eval.tablebase_seeds=16", err), 0);
    if (cfg_finish(&c, err))
        fail_msg("%s", err);
}

/* Score proofs (mcts.h) on roots the database covers: with the margin utility the root is scored (only it
 * went to the evaluator), the move played reaches the root's exact margin, the value is that margin's
 * utility and the policy target is uniform over exactly the margin-optimal moves. */
static void test_score_proofs_play_the_best_margin(void **state)
{
    (void)state;
    const char *specs[] = {"kalah:pits=4,seeds=3", "kalah:pits=6,seeds=3"};
    const int db_seeds[] = {TB43, TB63};
    const double w = 0.5;
    for (int s = 0; s < 2; s++) {
        kalah_rules r = rules_of(specs[s]);
        tb_ref *t = acquire(&r, db_seeds[s]);
        game *g = game_with(specs[s], t);
        uint64_t x = 41 + (uint64_t)s;
        int tested = 0, choices = 0;
        for (int n = 0; n < 400 && tested < 25; n++) {
            kalah_pos root;
            if (!random_late(&r, &x, db_seeds[s], &root) || __builtin_popcount(kalah_legal(&r, &root)) < 2)
                continue;
            covered_result res;
            game_pos groot = to_game(g, &r, &root);
            search_covered_root(g, db_seeds[s], w, &groot, &res);
            assert_int_equal(res.root_scored, 1);
            assert_int_equal(res.root_proven, MCTS_UNPROVEN);
            int best = exact_margin(t, &root, root.side), optimal = 0;
            for (int k = 0; k < r.pits; k++) {
                if (!(kalah_legal(&r, &root) >> k & 1u))
                    continue;
                kalah_pos after = root;
                kalah_sow(&r, &after, k, NULL);
                int m = after.over ? (root.side == KALAH_SOUTH ? kalah_margin(&r, &after) : -kalah_margin(&r, &after))
                                   : exact_margin(t, &after, root.side);
                assert_true(m <= best);
                optimal += m == best;
                if (m == best)
                    assert_true(res.pi[k] > 0);
                else
                    assert_true(res.pi[k] == 0.0f);
                if (k == res.move)
                    assert_int_equal(m, best);
            }
            for (int k = 0; k < r.pits; k++)
                if (res.pi[k] > 0)
                    assert_float_equal(res.pi[k], 1.0f / (float)optimal, 1e-6);
            double u = (((best > 0) - (best < 0)) + w * best / (2.0 * r.pits * r.seeds)) / (1.0 + w);
            assert_float_equal(res.value, u, 1e-4);
            choices += __builtin_popcount(kalah_legal(&r, &root)) - optimal > 0;
            tested++;
        }
        assert_true(tested >= 15 && choices >= 5); /* positions where a move loses margin were among them */
        game_free(g);
        tb_release(t);
    }
}

/* Without a database, score proofs come from finished positions alone. Checked on small endgames against
 * the full-width minimax (the independent reference): every scored node's W / N is the utility of its
 * minimax margin, and the move played after a long search reaches the minimax margin at least as often as
 * with the win/draw/loss solver, which stops at the first proven win (mcts.h). A root is seldom scored
 * here: PUCT rarely spends the visits to resolve every subtree of a clearly worse move. */
static void test_score_proofs_without_database(void **state)
{
    (void)state;
    kalah_rules r = rules_of("kalah:pits=4,seeds=3");
    game *g = game_with("kalah:pits=4,seeds=3", NULL);
    const double w = 0.5;
    uint64_t x = 77;
    int tested = 0, scored_nodes = 0, optimal[2] = {0, 0};
    for (int n = 0; n < 400 && tested < 20; n++) {
        kalah_pos root;
        if (!random_late(&r, &x, 9, &root) || __builtin_popcount(kalah_legal(&r, &root)) < 2)
            continue;
        int best = minimax(&r, &root);
        for (int v = 0; v < 2; v++) {
            mcts_config cfg = mcts_config_default();
            cfg.sims = 20000;
            cfg.dirichlet_eps = 0;
            cfg.margin_utility = v == 0 ? w : 0.0;
            count_eval ev; /* uniform priors, value 0 */
            game_pos groot = to_game(g, &r, &root);
            count_init(&ev, g, &groot);
            mcts2_tree *tree = search_to_end(g, &cfg, 9, &groot, &ev.base);
            for (int i = 0; v == 0 && i < mcts2_node_count(tree); i++) {
                mcts_node_info in;
                assert_int_equal(mcts2_node_get(tree, i, &in), MCTS_OK);
                if (!in.scored)
                    continue;
                kalah_pos p = node_position(&r, tree, i, &root);
                int m = p.over ? kalah_margin(&r, &p) : minimax(&r, &p);
                if (p.over ? in.parent_side != KALAH_SOUTH : p.side != in.parent_side)
                    m = -m;
                double u = (((m > 0) - (m < 0)) + w * m / (2.0 * r.pits * r.seeds)) / (1.0 + w);
                assert_float_equal(in.w / in.visits, u, 1e-4);
                scored_nodes++;
            }
            int mv = mcts2_choose(tree, 0.0);
            kalah_pos after = root;
            kalah_sow(&r, &after, mv, NULL);
            int m = after.over ? kalah_margin(&r, &after) : minimax(&r, &after);
            if (after.over ? root.side != KALAH_SOUTH : after.side != root.side)
                m = -m;
            optimal[v] += m == best;
            mcts2_tree_free(tree);
        }
        tested++;
    }
    game_free(g);
    print_message("margin-optimal moves: score proofs %d, win/draw/loss proofs %d of %d roots; %d scored nodes\n",
                  optimal[0], optimal[1], tested, scored_nodes);
    assert_true(tested >= 15 && scored_nodes > 100);
    assert_true(optimal[0] >= optimal[1] && optimal[0] * 5 >= tested * 4);
}

/* The two big databases the tests use, built once for the whole group: every test's acquire finds them in
 * the cache (tbase.h), so the suite pays for two builds instead of seven. */
static tb_ref *held[2];

static int hold_databases(void **state)
{
    (void)state;
    kalah_rules a = rules_of("kalah:pits=4,seeds=3"), b = rules_of("kalah:pits=6,seeds=3");
    held[0] = tb_acquire(&a, TB43, 2, NULL, NULL);
    held[1] = tb_acquire(&b, TB63, 2, NULL, NULL);
    return held[0] && held[1] ? 0 : -1;
}

static int drop_databases(void **state)
{
    (void)state;
    tb_release(held[0]);
    tb_release(held[1]);
    return 0;
}

int main(void)
{
    /* Tablebase files from this test's folder only: a bigger database in the user's cache would be mapped
     * instead of the sizes the tests ask for (ctest sets the same variable). */
    setenv("SOWZERO_TABLEBASE", SOWZERO_TMP "/tbase-files", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_match_minimax),
        cmocka_unit_test(test_cache_shares_one_database),
        cmocka_unit_test(test_leaves_are_exact),
        cmocka_unit_test(test_covered_root_proven_optimal),
        cmocka_unit_test(test_score_proofs_play_the_best_margin),
        cmocka_unit_test(test_score_proofs_without_database),
        cmocka_unit_test(test_config_checks_and_defaults),
        cmocka_unit_test(test_rescored_targets),
        cmocka_unit_test(test_az_agent_tb),
        cmocka_unit_test(test_config_keys),
    };
    return cmocka_run_group_tests(tests, hold_databases, drop_databases);
}
