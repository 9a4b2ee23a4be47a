/* test_mcts.c — the PUCT search on Kalah positions, through the two-player tree (selfplay/mcts.h) and the
 * single-position search and rollout evaluator of selfplay/mcts_mp.h on a "kalah" game instance:
 * search-cases.md cases 1, 3–9, forced wins with the rollout evaluator, the value perspective across extra
 * turns, root-only noise, policy targets, terminal leaves, the Dirichlet sampler, tree reuse, interleaved
 * descents (mcts2_select_many) identical to plain ones, the selection against the documented scalar PUCT
 * formula, and the configuration checks. */
#include "tests/test_util.h"

#include <math.h>
#include "env/game.h"
#include "nn/net.h"
#include "selfplay/mcts.h"
#include "selfplay/mcts_mp.h"

#define PITS 6

static game *kalah_game(void)
{
    char err[GAME_ERRLEN];
    game *g = game_create("kalah:pits=6,seeds=4", err);
    if (!g)
        fail_msg("kalah: %s", err);
    return g;
}

static game_pos pos_of(const game *g, const char *s)
{
    game_pos p;
    char err[GAME_ERRLEN];
    if (game_pos_parse(g, s, &p, err) != GAME_OK)
        fail_msg("%s: %s", s, err);
    return p;
}

static mcts_config quiet_config(int sims)
{
    mcts_config c = mcts_config_default();
    c.sims = sims;
    c.dirichlet_eps = 0;
    return c;
}

/* Writes one two-player value pair from the mover's value: value[mover] = v, the opponent's −v. */
static void set_values(float *value, int mover, float v)
{
    value[mover] = v;
    value[1 - mover] = -v;
}

/* ---- a scriptable fake evaluator that counts what it sees ---- */

typedef enum { V_CONST_MOVER, V_CONST_SOUTH } value_mode;

typedef struct {
    mcts_mp_eval base;
    float prior[GAME_MAX_MOVES]; /* the same raw priors for every position */
    value_mode mode;
    float v;
    int positions, calls, saw_finished, saw_no_legal;
} fake_eval;

static int fake_evaluate(mcts_mp_eval *e, const game_pos *pos, int n, float *prior, float *value)
{
    fake_eval *f = (fake_eval *)e;
    int m = game_moves(e->game);
    f->calls++;
    for (int i = 0; i < n; i++) {
        f->positions++;
        f->saw_finished |= pos[i].over;
        f->saw_no_legal |= game_legal(e->game, &pos[i]) == 0;
        for (int k = 0; k < m; k++)
            prior[i * m + k] = f->prior[k];
        set_values(value + 2 * i, pos[i].to_move,
                   f->mode == V_CONST_MOVER ? f->v : pos[i].to_move == 0 ? f->v : -f->v);
    }
    e->positions += (uint64_t)n;
    return MCTS_OK;
}

static void fake_destroy(mcts_mp_eval *e) { (void)e; }

static void fake_init(fake_eval *f, const game *g, const float *prior, value_mode mode, float v)
{
    memset(f, 0, sizeof *f);
    f->base = (mcts_mp_eval){.evaluate = fake_evaluate, .destroy = fake_destroy, .game = g, .max_batch = 64};
    for (int k = 0; k < game_moves(g); k++)
        f->prior[k] = prior ? prior[k] : 1.0f;
    f->mode = mode;
    f->v = v;
}

/* ---- leaves of several trees, one evaluator call (what self-play does per round) ---- */

enum { MAX_LEAVES = 64, MAX_TREES = 8, STRIDE = 8 };

typedef struct {
    int n;
    mcts2_tree *tree[MAX_LEAVES];
    int handle[MAX_LEAVES];
    game_pos leaf[MAX_LEAVES];
    /* mcts2_select_many's scratch */
    mcts_cursor cur[MAX_TREES];
    int live[MAX_TREES], found[MAX_TREES], many_handle[MAX_TREES * STRIDE];
    game_pos many_leaf[MAX_TREES * STRIDE];
} batch;

/* Runs simulations on t until its leaf budget is used, its search is done or a descent collides with a
 * pending leaf; simulations that end on exact values are backed up on the spot. Returns the leaves added. */
static int gather(batch *b, mcts2_tree *t)
{
    int added = 0;
    while (b->n < MAX_LEAVES && !mcts2_done(t)) {
        int h = mcts2_select(t, &b->leaf[b->n]);
        assert_int_not_equal(h, MCTS_ENOMEM);
        if (h >= 0) {
            b->tree[b->n] = t;
            b->handle[b->n++] = h;
            added++;
        } else if (h != MCTS_SIM_DONE) {
            break;
        }
    }
    return added;
}

/* The same for n trees with their descents interleaved (mcts2_select_many), the leaves in tree order. */
static int gather_many(batch *b, mcts2_tree *const *t, int n)
{
    assert_true(n <= MAX_TREES);
    mcts2_many m = {.cur = b->cur, .live = b->live, .found = b->found, .handle = b->many_handle,
                    .leaf = b->many_leaf, .stride = STRIDE};
    assert_int_equal(mcts2_select_many(t, n, &m), MCTS_OK);
    int added = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < b->found[i]; j++) {
            assert_true(b->n < MAX_LEAVES);
            b->tree[b->n] = t[i];
            b->handle[b->n] = b->many_handle[i * STRIDE + j];
            b->leaf[b->n++] = b->many_leaf[i * STRIDE + j];
            added++;
        }
    return added;
}

/* Evaluates every gathered leaf in one call and completes each in its tree with its mover's value. */
static void flush(batch *b, mcts_mp_eval *ev)
{
    if (b->n == 0)
        return;
    assert_true(b->n <= ev->max_batch);
    int m = game_moves(ev->game);
    float prior[MAX_LEAVES * GAME_MAX_MOVES], value[MAX_LEAVES * 2];
    assert_int_equal(ev->evaluate(ev, b->leaf, b->n, prior, value), MCTS_OK);
    for (int i = 0; i < b->n; i++)
        assert_int_equal(mcts2_complete(b->tree[i], b->handle[i], prior + i * m, value[2 * i + b->leaf[i].to_move]),
                         MCTS_OK);
    b->n = 0;
}

/* Searches t's current root to the end of its search. */
static void run_search(mcts2_tree *t, mcts_mp_eval *ev)
{
    batch b = {0};
    while (!mcts2_done(t)) {
        gather(&b, t);
        flush(&b, ev);
    }
}

/* ---- the single-position search, inspected ---- */

typedef struct {
    int move, root_visits;
    int visits[GAME_MAX_MOVES];
    float pi[GAME_MAX_MOVES];
    float prior[GAME_MAX_MOVES]; /* the root children's priors; 0 on illegal slots */
    float q[GAME_MAX_MOVES];     /* each root child's Q for the mover, 0 when unvisited */
    int proven[GAME_MAX_MOVES];  /* each child's proven value for the mover, or MCTS_UNPROVEN */
    float value;                 /* Q(root) for the mover */
    int root_proven;
    uint64_t evals;
} search_result;

/* mcts_mp_search, and the same search replayed on an mcts2 tree (the tree it runs a two-player game on,
 * with the noises off, the tree and the evaluator seeded alike and its batching loop) so that what
 * mcts_mp_result does not report — each root child's Q, proof and prior — can be read. The replay must
 * agree with mcts_mp_search on every number both give, or it is not the search under test. */
static int search(const game *g, const game_pos *p, const mcts_config *cfg, mcts_mp_eval *ev, uint64_t seed,
                  search_result *out)
{
    mcts_mp_result mp;
    int rc = mcts_mp_search(g, p, cfg, ev, seed, &mp, NULL);
    if (rc != MCTS_OK)
        return rc;
    mcts_config c = *cfg;
    c.dirichlet_eps = 0;
    c.gumbel_scale = 0;
    c.forced_playouts_k = 0;
    mcts2_tree *t = mcts2_tree_create(g, &c, seed, NULL);
    assert_non_null(t);
    if (ev->reseed)
        ev->reseed(ev, seed);
    mcts2_set_root(t, p);
    uint64_t evals0 = ev->positions;
    const int B = c.leaves_per_game, m = game_moves(g);
    assert_true(B <= MAX_LEAVES);
    while (!mcts2_done(t)) {
        game_pos leaf[MAX_LEAVES];
        int handle[MAX_LEAVES], n = 0;
        for (int tries = 0; n < B && tries < 4 * B && !mcts2_done(t); tries++) {
            int h = mcts2_select(t, &leaf[n]);
            assert_int_not_equal(h, MCTS_ENOMEM);
            if (h >= 0)
                handle[n++] = h;
            if (h == MCTS_FULL || h == MCTS_COLLISION)
                break;
        }
        if (n == 0)
            continue;
        float prior[MAX_LEAVES * GAME_MAX_MOVES], value[MAX_LEAVES * 2];
        assert_int_equal(ev->evaluate(ev, leaf, n, prior, value), MCTS_OK);
        for (int i = 0; i < n; i++)
            assert_int_equal(mcts2_complete(t, handle[i], prior + i * m, value[2 * i + leaf[i].to_move]), MCTS_OK);
    }
    memset(out, 0, sizeof *out);
    out->root_visits = mcts2_root_visits(t, out->visits, out->q);
    assert_int_equal(mcts2_policy(t, 1.0, out->pi), MCTS_OK);
    out->move = mcts2_choose(t, 0.0);
    out->value = mcts2_root_value(t);
    out->root_proven = mcts2_root_proven(t);
    out->evals = ev->positions - evals0;
    int root = mcts2_root_index(t);
    for (int k = 0; k < m; k++) {
        out->proven[k] = MCTS_UNPROVEN;
        int ch = mcts2_node_child(t, root, k);
        mcts_node_info ni;
        if (ch >= 0 && mcts2_node_get(t, ch, &ni) == MCTS_OK) {
            out->prior[k] = ni.prior;
            out->proven[k] = ni.proven;
        }
    }
    int exact = out->root_proven != MCTS_UNPROVEN || mcts2_root_scored(t);
    mcts2_tree_free(t);

    assert_int_equal(mp.move, out->move);
    assert_int_equal(mp.root_visits, out->root_visits);
    assert_memory_equal(mp.visits, out->visits, sizeof mp.visits);
    assert_memory_equal(mp.pi, out->pi, sizeof mp.pi);
    assert_int_equal(mp.proven, exact);
    assert_true(mp.value[p->to_move] ==
                (out->root_proven != MCTS_UNPROVEN ? (float)out->root_proven : out->value));
    assert_int_equal(mp.evals, out->evals);
    return MCTS_OK;
}

/* Exact final margin for the mover (plain negamax; an extra turn keeps the sign). Small endgames only. */
static int exact(const game *g, const game_pos *p)
{
    int sgn = p->to_move == 0 ? 1 : -1;
    if (p->over)
        return sgn * game_margin(g, p);
    int best = -1000;
    unsigned l = game_legal(g, p);
    for (int k = 0; k < game_moves(g); k++)
        if (l >> k & 1u) {
            game_pos q = *p;
            game_apply(g, &q, k, NULL);
            int v = q.over ? sgn * game_margin(g, &q) : q.to_move == p->to_move ? exact(g, &q) : -exact(g, &q);
            if (v > best)
                best = v;
        }
    return best;
}

/* ---- case 1: extra turn in the backup ---- */

static void test_case1_search_plays_f(void **state)
{
    (void)state;
    game *g = kalah_game();
    game_pos p = pos_of(g, "0,0,0,0,2,1,22,1,0,0,0,0,0,22 S");
    mcts_mp_eval *ev = mcts_mp_eval_rollout_create(g, 4, 64, 1, NULL);
    assert_non_null(ev);
    for (int solver = 0; solver <= 1; solver++) {
        mcts_config c = quiet_config(400);
        c.solver = solver;
        search_result res;
        assert_int_equal(search(g, &p, &c, ev, 7, &res), MCTS_OK);
        assert_int_equal(res.move, 5); /* f */
        assert_true(res.q[5] > 0.99f);  /* every line after f wins for South: exactly +1 */
        assert_true(fabsf(res.q[4]) < 0.15f);
        if (solver) {
            assert_int_equal(res.proven[5], 1);
            assert_int_equal(res.root_proven, 1); /* the search stopped there, e need not be proven */
            assert_true(res.proven[4] == 0 || res.proven[4] == MCTS_UNPROVEN); /* e: at best a 24-24 draw */
        }
    }
    mcts_mp_eval_free(ev);
    game_free(g);
}

static void test_case1_unit_backup(void **state)
{
    (void)state;
    game *g = kalah_game();
    game_pos p = pos_of(g, "0,0,0,0,2,1,22,1,0,0,0,0,0,22 S"), leaf;
    mcts_config c = quiet_config(10);
    c.solver = 0;
    mcts2_tree *t = mcts2_tree_create(g, &c, 1, NULL);
    assert_non_null(t);
    mcts2_set_root(t, &p);
    float prior[PITS] = {0, 0, 0, 0, 0.1f, 0.9f};
    int h = mcts2_select(t, &leaf);
    assert_true(h >= 0);
    assert_int_equal(mcts2_complete(t, h, prior, 0.0f), MCTS_OK);
    h = mcts2_select(t, &leaf); /* f: the highest prior */
    assert_true(h >= 0);
    assert_int_equal(leaf.to_move, 0); /* extra turn: South moves again */
    assert_int_equal(mcts2_complete(t, h, prior, 0.8f), MCTS_OK);
    int visits[PITS];
    float q[PITS];
    mcts2_root_visits(t, visits, q);
    assert_int_equal(visits[5], 1);
    assert_float_equal(q[5], 0.8f, 1e-6);
    mcts2_tree_free(t);
    game_free(g);
}

/* ---- cases 3, 4: priors by pit, masked and renormalised; all-zero → uniform ---- */

static void expand_root_with(const float *prior, float *out_prior_by_pit, int *n_children)
{
    game *g = kalah_game();
    game_pos p = pos_of(g, "0,0,3,0,0,1,20,2,2,2,2,2,2,12 S"), leaf;
    mcts_config c = quiet_config(10);
    mcts2_tree *t = mcts2_tree_create(g, &c, 1, NULL);
    assert_non_null(t);
    mcts2_set_root(t, &p);
    int h = mcts2_select(t, &leaf);
    assert_true(h >= 0);
    assert_int_equal(mcts2_complete(t, h, prior, 0.0f), MCTS_OK);
    mcts_node_info ni;
    mcts2_node_get(t, mcts2_root_index(t), &ni);
    *n_children = ni.n_children;
    for (int k = 0; k < PITS; k++) {
        int ch = mcts2_node_child(t, mcts2_root_index(t), k);
        out_prior_by_pit[k] = -1;
        if (ch >= 0) {
            mcts2_node_get(t, ch, &ni);
            out_prior_by_pit[k] = ni.prior;
        }
    }
    mcts2_tree_free(t);
    game_free(g);
}

static void test_case3_priors_by_pit(void **state)
{
    (void)state;
    float raw[PITS] = {.05f, .05f, .60f, .05f, .05f, .20f}, got[PITS];
    int nc;
    expand_root_with(raw, got, &nc);
    assert_int_equal(nc, 2);
    assert_float_equal(got[2], 0.75f, 1e-6);
    assert_float_equal(got[5], 0.25f, 1e-6);
    for (int k = 0; k < PITS; k++)
        if (k != 2 && k != 5)
            assert_true(got[k] == -1); /* no child for an illegal pit */
}

static void test_case4_zero_priors_uniform(void **state)
{
    (void)state;
    float zero[PITS] = {.5f, .5f, 0, 0, 0, 0}, got[PITS];
    int nc;
    expand_root_with(zero, got, &nc);
    assert_float_equal(got[2], 0.5f, 1e-6);
    assert_float_equal(got[5], 0.5f, 1e-6);
    float bad[PITS] = {1, 1, NAN, 0, 0, -3}; /* NaN and negative: never NaN out, uniform over the legal */
    expand_root_with(bad, got, &nc);
    assert_float_equal(got[2], 0.5f, 1e-6);
    assert_float_equal(got[5], 0.5f, 1e-6);
    float inf[PITS] = {0, 0, INFINITY, 0, 0, 1};
    expand_root_with(inf, got, &nc);
    assert_false(isnan(got[2]) || isnan(got[5]));
    assert_float_equal(got[2] + got[5], 1.0f, 1e-6);
}

/* ---- case 5: π over the legal moves only, and the masked loss leaves illegal logits alone ---- */

static void test_case5_policy_target(void **state)
{
    (void)state;
    game *g = kalah_game();
    /* c and f are the only legal moves, as in case 3's position, but far from the end of the game so that
     * no exact value disturbs Q = 0 and the visits follow the priors exactly */
    game_pos p = pos_of(g, "0,0,8,0,0,8,8,4,4,4,4,4,4,0 S");
    float prior[PITS] = {0, 0, .3f, 0, 0, .7f};
    fake_eval f;
    fake_init(&f, g, prior, V_CONST_MOVER, 0.0f);
    mcts_config c = quiet_config(101);
    c.fpu_reduction = 0;
    c.solver = 0;
    search_result res;
    assert_int_equal(search(g, &p, &c, &f.base, 1, &res), MCTS_OK);
    /* Q = 0 everywhere (no finished position within reach), so PUCT splits the 100 visits by prior */
    assert_int_equal(res.visits[2], 30);
    assert_int_equal(res.visits[5], 70);
    float want[PITS] = {0, 0, .3f, 0, 0, .7f};
    for (int k = 0; k < PITS; k++)
        assert_float_equal(res.pi[k], want[k], 1e-6);

    /* the masked cross-entropy gives zero gradient to the policy rows of a, b, d, e */
    int dim = game_encode_dim(g);
    nn_config nc = nn_config_default(dim, PITS);
    nc.n_hidden = 1;
    nc.hidden[0] = 16;
    nn_net *net = nn_net_create(&nc, 3, NULL);
    assert_non_null(net);
    nn_workspace *ws = nn_workspace_create_train(net, 1);
    float *x = malloc((size_t)dim * sizeof *x), z = 1, *grad = malloc(nn_param_count(net) * sizeof *grad);
    assert_non_null(x);
    assert_non_null(grad);
    uint8_t legal[PITS] = {0, 0, 1, 0, 0, 1};
    assert_int_equal(game_legal(g, &p), 1u << 2 | 1u << 5);
    game_encode(g, &p, x);
    nn_batch b = {1, x, legal, res.pi, &z, NULL};
    nn_loss_weights w = {1, 0, 0, 0};
    assert_int_equal(nn_train_grad(net, ws, &b, &w, grad, NULL), NN_OK);
    nn_layer pol;
    for (int i = 0; i < nn_layer_count(net); i++) {
        nn_layer_get(net, i, &pol);
        if (strstr(pol.name, "policy"))
            break;
    }
    double moved = 0;
    for (int k = 0; k < PITS; k++)
        for (int j = 0; j < pol.in; j++) {
            float gr = grad[pol.w_offset + (size_t)k * pol.in + j];
            if (!legal[k])
                assert_true(gr == 0.0f);
            else
                moved += fabs(gr);
        }
    for (int k = 0; k < PITS; k++)
        if (!legal[k])
            assert_true(grad[pol.b_offset + k] == 0.0f);
    assert_true(moved > 0);
    free(x);
    free(grad);
    nn_workspace_free(ws);
    nn_net_free(net);
    game_free(g);
}

/* ---- case 6 (and root-only noise) ---- */

static void test_case6_noise_root_only(void **state)
{
    (void)state;
    game *g = kalah_game();
    game_pos start;
    game_start(g, &start);
    fake_eval f;
    fake_init(&f, g, NULL, V_CONST_MOVER, 0.0f);
    mcts_config c = mcts_config_default();
    c.sims = 200;
    c.dirichlet_eps = 0.25;
    mcts2_tree *t = mcts2_tree_create(g, &c, 11, NULL);
    assert_non_null(t);
    mcts2_set_root(t, &start);
    run_search(t, &f.base);
    mcts_node_info ni;
    int root = mcts2_root_index(t), perturbed = 0;
    double sum = 0;
    mcts2_node_get(t, root, &ni);
    for (int i = 0; i < ni.n_children; i++) {
        mcts_node_info ci;
        mcts2_node_get(t, ni.first_child + i, &ci);
        sum += ci.prior;
        perturbed |= fabsf(ci.prior - 1.0f / 6) > 1e-4f;
    }
    assert_true(perturbed);
    assert_float_equal(sum, 1.0, 1e-5);
    /* the child after c: South again with 5 legal moves, priors exactly .2 */
    int cc = mcts2_node_child(t, root, 2);
    mcts2_node_get(t, cc, &ni);
    assert_int_equal(ni.side, 0);
    assert_int_equal(ni.n_children, 5);
    for (int i = 0; i < 5; i++) {
        mcts_node_info ci;
        mcts2_node_get(t, ni.first_child + i, &ci);
        assert_true(ci.prior == 0.2f);
    }
    /* every expanded node below the root has exactly uniform priors */
    int checked = 0;
    for (int x = 0; x < mcts2_node_count(t); x++) {
        mcts2_node_get(t, x, &ni);
        if (x == root || !ni.expanded)
            continue;
        for (int i = 0; i < ni.n_children; i++) {
            mcts_node_info ci;
            mcts2_node_get(t, ni.first_child + i, &ci);
            assert_true(ci.prior == 1.0f / (float)ni.n_children);
        }
        checked++;
    }
    assert_true(checked > 20);
    /* after tree reuse the new root gets fresh noise, its children's children still none */
    assert_int_equal(mcts2_advance(t, 2), MCTS_OK);
    mcts2_node_get(t, mcts2_root_index(t), &ni);
    assert_int_equal(ni.n_children, 5);
    perturbed = 0;
    for (int i = 0; i < 5; i++) {
        mcts_node_info ci;
        mcts2_node_get(t, ni.first_child + i, &ci);
        perturbed |= ci.prior != 0.2f;
    }
    assert_true(perturbed);
    mcts2_tree_free(t);

    /* evaluation mode: priors exactly 1/6, and the seed changes nothing — also when the configuration asks
     * for root noise, which the single-position search leaves out */
    for (int noisy = 0; noisy <= 1; noisy++) {
        mcts_config q = quiet_config(150);
        q.dirichlet_eps = noisy ? 0.25 : 0;
        search_result r1, r2;
        assert_int_equal(search(g, &start, &q, &f.base, 1, &r1), MCTS_OK);
        assert_int_equal(search(g, &start, &q, &f.base, 999, &r2), MCTS_OK);
        for (int k = 0; k < PITS; k++) {
            assert_true(r1.prior[k] == 1.0f / 6);
            assert_int_equal(r1.visits[k], r2.visits[k]);
        }
    }
    game_free(g);
}

/* ---- case 7: a proper Dirichlet sample over the legal moves, after renormalising ---- */

static void test_case7_dirichlet(void **state)
{
    (void)state;
    game *g = kalah_game();
    game_pos p = pos_of(g, "0,0,3,0,0,1,20,2,2,2,2,2,2,12 S"), leaf;
    float raw[PITS] = {.05f, .05f, .60f, .05f, .05f, .20f};
    mcts_config c = mcts_config_default();
    c.dirichlet_eps = 0.25;
    c.dirichlet_alpha = 0.5;
    double mean = 0, m2 = 0;
    int n = 2000;
    for (int s = 0; s < n; s++) {
        mcts2_tree *t = mcts2_tree_create(g, &c, (uint64_t)s, NULL);
        assert_non_null(t);
        mcts2_set_root(t, &p);
        int h = mcts2_select(t, &leaf);
        mcts2_complete(t, h, raw, 0);
        mcts_node_info a, b;
        mcts2_node_get(t, mcts2_node_child(t, 0, 2), &a);
        mcts2_node_get(t, mcts2_node_child(t, 0, 5), &b);
        assert_float_equal(a.prior + b.prior, 1.0f, 1e-6);
        assert_true(a.prior >= 0.5625f - 1e-6f && a.prior <= 0.8125f + 1e-6f);
        double eta = (a.prior - 0.75 * 0.75) / 0.25; /* back out η_c */
        mean += eta;
        m2 += eta * eta;
        mcts2_tree_free(t);
    }
    mean /= n;
    double var = m2 / n - mean * mean;
    /* η_c ~ Beta(α, α): mean 1/2, variance 1 / (4 (2α + 1)) = 1/8 for α = 1/2 */
    assert_true(fabs(mean - 0.5) < 0.03);
    assert_true(fabs(var - 0.125) < 0.015);

    /* the gamma sampler itself: mean and variance of Gamma(a, 1) are a */
    double shapes[3] = {0.3, 1.0, 2.5};
    for (int i = 0; i < 3; i++) {
        mcts_rng r;
        mcts_rng_seed(&r, 5);
        double s1 = 0, s2 = 0;
        int m = 40000;
        for (int j = 0; j < m; j++) {
            double x = mcts_rng_gamma(&r, shapes[i]);
            assert_true(x > 0 && isfinite(x));
            s1 += x;
            s2 += x * x;
        }
        double mu = s1 / m, v = s2 / m - mu * mu;
        assert_true(fabs(mu - shapes[i]) < 0.05 * shapes[i] + 0.01);
        assert_true(fabs(v - shapes[i]) < 0.1 * shapes[i] + 0.01);
    }
    game_free(g);
}

/* ---- case 8: temperature drop ---- */

static void test_case8_temperature(void **state)
{
    (void)state;
    game *g = kalah_game();
    game_pos p = pos_of(g, "5,5,5,0,0,0,9,4,4,4,4,4,4,0 S");
    float prior[PITS] = {.1f, .3f, .6f, 0, 0, 0};
    fake_eval f;
    fake_init(&f, g, prior, V_CONST_MOVER, 0.0f);
    mcts_config c = quiet_config(101);
    c.fpu_reduction = 0;
    c.solver = 0;
    mcts2_tree *t = mcts2_tree_create(g, &c, 3, NULL);
    assert_non_null(t);
    mcts2_set_root(t, &p);
    run_search(t, &f.base);
    int visits[PITS];
    mcts2_root_visits(t, visits, NULL);
    assert_int_equal(visits[0], 10);
    assert_int_equal(visits[1], 30);
    assert_int_equal(visits[2], 60);
    float pi[PITS];
    assert_int_equal(mcts2_policy(t, 1.0, pi), MCTS_OK);
    assert_float_equal(pi[0], .1f, 1e-6);
    assert_float_equal(pi[1], .3f, 1e-6);
    assert_float_equal(pi[2], .6f, 1e-6);
    assert_int_equal(mcts2_policy(t, 0.0, pi), MCTS_OK);
    assert_true(pi[0] == 0 && pi[1] == 0 && pi[2] == 1);
    assert_int_equal(mcts2_policy(t, 0.5, pi), MCTS_OK); /* ∝ N² */
    assert_float_equal(pi[2], 3600.0f / 4600.0f, 1e-6);
    /* sampling at τ = 1 follows the visit shares; τ = 0 is always c */
    int hist[PITS] = {0};
    for (int i = 0; i < 3000; i++)
        hist[mcts2_choose(t, 1.0)]++;
    assert_true(abs(hist[0] - 300) < 60 && abs(hist[1] - 900) < 90 && abs(hist[2] - 1800) < 100);
    assert_int_equal(mcts2_choose(t, 0.0), 2);
    mcts2_tree_free(t);
    game_free(g);
}

/* ---- case 9: virtual loss sign, also across an extra turn ---- */

static void test_case9_virtual_loss(void **state)
{
    (void)state;
    game *g = kalah_game();
    game_pos start, leaf;
    game_start(g, &start);
    mcts_config c = quiet_config(100);
    c.leaves_per_game = 4;
    c.solver = 0;
    mcts2_tree *t = mcts2_tree_create(g, &c, 1, NULL);
    assert_non_null(t);
    mcts2_set_root(t, &start);
    float onehot_c[PITS] = {0, 0, 1, 0, 0, 0}, uniform[PITS] = {1, 1, 1, 1, 1, 1};
    int h = mcts2_select(t, &leaf);
    mcts2_complete(t, h, onehot_c, 0.0f);
    /* X = child c (an extra turn: South to move at X). First visit +1 for South, then four leaves below
     * worth +0.5 for South each: W(X) = 3, N(X) = 5 in South's (the parent mover's) view. */
    h = mcts2_select(t, &leaf);
    assert_int_equal(leaf.to_move, 0);
    mcts2_complete(t, h, uniform, 1.0f);
    for (int i = 0; i < 4; i++) {
        h = mcts2_select(t, &leaf);
        assert_true(h >= 0);
        mcts2_complete(t, h, uniform, leaf.to_move == 0 ? 0.5f : -0.5f);
    }
    int x = mcts2_node_child(t, 0, 2);
    mcts_node_info ni;
    mcts2_node_get(t, x, &ni);
    assert_int_equal(ni.visits, 5);
    assert_float_equal(ni.w, 3.0, 1e-6);
    assert_int_equal(ni.side, 0);
    assert_int_equal(ni.parent_side, 0);
    h = mcts2_select(t, &leaf); /* one pending descent through X */
    assert_true(h >= 0);
    mcts2_node_get(t, x, &ni);
    assert_int_equal(ni.vloss, 1);
    assert_float_equal(ni.q_select, 2.0f / 6.0f, 1e-6);
    /* every node on the pending path looks worse for its own parent's mover, whoever that is */
    for (int y = 0; y < mcts2_node_count(t); y++) {
        mcts2_node_get(t, y, &ni);
        if (ni.vloss == 0 || ni.parent < 0)
            continue;
        double q = ni.visits ? ni.w / ni.visits : 0;
        assert_true(ni.q_select < q || (ni.visits == 0 && ni.q_select == -1.0f));
    }
    mcts2_complete(t, h, uniform, 0.0f);
    mcts2_node_get(t, x, &ni);
    assert_int_equal(ni.vloss, 0);
    mcts2_tree_free(t);
    game_free(g);
}

/* ---- the value perspective at every node of an extra-turn chain ---- */

/* Replays the moves from the root to node x. */
static game_pos replay_to(const game *g, mcts2_tree *t, int x)
{
    int path[256], n = 0;
    mcts_node_info ni;
    for (int y = x; y != mcts2_root_index(t); y = ni.parent) {
        mcts2_node_get(t, y, &ni);
        path[n++] = ni.move;
    }
    game_pos p = *mcts2_root_pos(t);
    while (n > 0)
        assert_int_equal(game_apply(g, &p, path[--n], NULL), GAME_OK);
    return p;
}

static void test_value_perspective_chain(void **state)
{
    (void)state;
    game *g = kalah_game();
    /* South: a 1, d 3, e 2, f 1 — f, e, d each end in the store, so chains of extra turns abound */
    game_pos p = pos_of(g, "1,0,0,3,2,1,12,4,4,4,4,4,4,5 S");
    fake_eval f;
    fake_init(&f, g, NULL, V_CONST_SOUTH, 0.5f); /* +0.5 for South at every leaf, whoever moves */
    mcts_config c = quiet_config(120);
    c.solver = 0;
    mcts2_tree *t = mcts2_tree_create(g, &c, 1, NULL);
    assert_non_null(t);
    mcts2_set_root(t, &p);
    run_search(t, &f.base);
    int same = 0, flips = 0, chain = 0;
    mcts_node_info ni, pi;
    for (int x = 0; x < mcts2_node_count(t); x++) {
        mcts2_node_get(t, x, &ni);
        if (ni.visits == 0)
            continue;
        assert_false(ni.terminal); /* the check below assumes evaluator values only */
        game_pos q = replay_to(g, t, x);
        assert_int_equal(ni.side, q.to_move);
        double want = ni.parent_side == 0 ? 0.5 : -0.5;
        assert_float_equal(ni.w / ni.visits, want, 1e-5);
        if (ni.parent < 0)
            continue;
        mcts2_node_get(t, ni.parent, &pi);
        assert_int_equal(ni.parent_side, pi.side);
        if (ni.side == pi.side) {
            same++;
            /* a South extra turn whose parent was itself reached by a South extra turn: a chain */
            if (pi.parent >= 0 && pi.parent_side == pi.side && ni.side == 0)
                chain++;
        } else {
            flips++;
        }
    }
    assert_true(same >= 3);
    assert_true(flips >= 3);
    assert_true(chain >= 1);
    assert_int_equal(f.saw_finished, 0);
    mcts2_tree_free(t);
    game_free(g);
}

/* ---- forced wins with the rollout evaluator ---- */

static void test_rollout_avoids_capture_loss(void **state)
{
    (void)state;
    game *g = kalah_game();
    /* b (1 seed onto c) lets North capture and lose South the game (−8); c wins (+4). */
    game_pos p = pos_of(g, "0,1,2,0,0,0,20,0,2,1,0,1,1,20 S");
    int vb, vc;
    game_pos q = p;
    game_apply(g, &q, 1, NULL);
    vb = -exact(g, &q);
    q = p;
    game_apply(g, &q, 2, NULL);
    vc = -exact(g, &q);
    assert_true(vb < 0 && vc > 0);
    mcts_mp_eval *ev = mcts_mp_eval_rollout_create(g, 1, 64, 3, NULL);
    assert_non_null(ev);
    for (int solver = 0; solver <= 1; solver++) {
        mcts_config c = quiet_config(800);
        c.solver = solver;
        search_result res;
        assert_int_equal(search(g, &p, &c, ev, 5, &res), MCTS_OK);
        assert_int_equal(res.move, 2);
        assert_true(res.q[2] > res.q[1]);
    }
    mcts_mp_eval_free(ev);
    game_free(g);
}

static void test_rollout_forced_wins(void **state)
{
    (void)state;
    game *g = kalah_game();
    /* endgames: the searched move must be one of the exactly winning moves when a win exists */
    const char *cases[] = {"0,0,0,0,2,1,22,1,0,0,0,0,0,22 S", "0,0,1,2,0,0,23,0,1,0,0,1,1,19 S",
                           "3,0,1,0,0,0,23,1,0,0,0,1,0,19 S", "0,0,0,1,3,0,23,1,0,0,0,0,0,20 S"};
    mcts_mp_eval *ev = mcts_mp_eval_rollout_create(g, 2, 64, 9, NULL);
    assert_non_null(ev);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        game_pos p = pos_of(g, cases[i]);
        assert_int_equal(p.to_move, 0);
        mcts_config c = quiet_config(1000);
        search_result res;
        assert_int_equal(search(g, &p, &c, ev, 1, &res), MCTS_OK);
        game_pos q = p;
        game_apply(g, &q, res.move, NULL);
        int v = q.over ? game_margin(g, &q) : q.to_move == 0 ? exact(g, &q) : -exact(g, &q);
        if (v <= 0)
            fail_msg("%s: searched move %c scores %d", cases[i], 'a' + res.move, v);
        assert_int_equal(res.root_proven, 1);
    }
    mcts_mp_eval_free(ev);
    game_free(g);
}

/* ---- terminal leaves never reach the evaluator ---- */

static void test_terminal_never_evaluated(void **state)
{
    (void)state;
    game *g = kalah_game();
    const char *cases[] = {"0,0,0,0,2,1,22,1,0,0,0,0,0,22 S", "0,1,2,0,0,0,20,0,2,1,0,1,1,20 S",
                           "0,0,0,0,0,1,23,1,0,0,0,0,0,23 S"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int solver = 0; solver <= 1; solver++) {
            game_pos p = pos_of(g, cases[i]);
            fake_eval f;
            fake_init(&f, g, NULL, V_CONST_MOVER, 0.3f);
            mcts_config c = quiet_config(300);
            c.solver = solver;
            c.leaves_per_game = 4;
            search_result res;
            assert_int_equal(search(g, &p, &c, &f.base, 1, &res), MCTS_OK);
            assert_int_equal(f.saw_finished, 0);
            assert_int_equal(f.saw_no_legal, 0);
            assert_true(f.positions > 0);
            assert_true(res.root_visits >= (solver ? 1 : 300));
            /* search() ran the search twice (mcts_mp_search and its replay), with the same evaluations */
            assert_int_equal(2 * (int)res.evals, f.positions);
            /* the number of distinct unfinished positions is small: most simulations end on exact values */
            assert_true(res.evals < 300);
        }
    /* a finished root is refused */
    game_pos over = pos_of(g, "0,0,0,0,0,0,24,0,0,0,0,0,0,24 S");
    fake_eval f;
    fake_init(&f, g, NULL, V_CONST_MOVER, 0);
    mcts_config c = quiet_config(10);
    search_result res;
    assert_int_equal(search(g, &over, &c, &f.base, 1, &res), MCTS_EOVER);
    assert_int_equal(f.positions, 0);
    game_free(g);
}

/* ---- tree reuse keeps the subtree, its statistics and its proofs ---- */

static void test_tree_reuse(void **state)
{
    (void)state;
    game *g = kalah_game();
    game_pos start;
    game_start(g, &start);
    mcts_mp_eval *ev = mcts_mp_eval_rollout_create(g, 1, 8, 4, NULL);
    assert_non_null(ev);
    mcts_config c = quiet_config(300);
    mcts2_tree *t = mcts2_tree_create(g, &c, 1, NULL);
    assert_non_null(t);
    mcts2_set_root(t, &start);
    for (int ply = 0; ply < 12 && !mcts2_root_pos(t)->over; ply++) {
        run_search(t, ev);
        int mv = mcts2_choose(t, 0);
        int ch = mcts2_node_child(t, mcts2_root_index(t), mv);
        mcts_node_info before, after;
        mcts2_node_get(t, ch, &before);
        game_pos want = *mcts2_root_pos(t);
        assert_int_equal(game_apply(g, &want, mv, NULL), GAME_OK);
        assert_int_equal(mcts2_advance(t, mv), MCTS_OK);
        assert_memory_equal(mcts2_root_pos(t), &want, sizeof want);
        mcts2_node_get(t, mcts2_root_index(t), &after);
        assert_int_equal(after.visits, before.visits);
        assert_int_equal(after.n_children, before.n_children);
        /* W is now in the root mover's own view */
        double sgn = before.side == before.parent_side ? 1 : -1;
        assert_float_equal(after.w, sgn * before.w, 1e-4);
        assert_int_equal(after.parent, -1);
        /* every node's parent link and stored side agree with a replay */
        for (int x = 1; x < mcts2_node_count(t); x++) {
            mcts_node_info ni;
            mcts2_node_get(t, x, &ni);
            assert_true(ni.parent >= 0 && ni.parent < x);
            if (ni.side >= 0) {
                game_pos q = replay_to(g, t, x);
                assert_int_equal(ni.side, q.to_move);
            }
        }
    }
    assert_int_equal(mcts2_advance(t, 99), MCTS_EINVAL);
    mcts2_tree_free(t);
    mcts_mp_eval_free(ev);
    game_free(g);
}

/* ---- the interleaved descents and the vector selection are the documented search, bit for bit ---- */

/* A deterministic evaluation with varied answers: priors and the mover's value from a hash of the
 * position. */
static void hash_answer(const game_pos *p, int m, float *prior, float *value)
{
    uint64_t h = 1469598103934665603ULL ^ p->to_move;
    for (int k = 0; k < GAME_MAX_CELLS; k++)
        h = (h ^ p->cell[k]) * 1099511628211ULL;
    for (int k = 0; k < m; k++)
        prior[k] = (float)((h >> (5 * k)) & 31) / 7.0f;  /* zeros included */
    *value = (float)((int)(h >> 40 & 255) - 128) / 130.0f;
}

static int hash_evaluate(mcts_mp_eval *e, const game_pos *pos, int n, float *prior, float *value)
{
    int m = game_moves(e->game);
    for (int i = 0; i < n; i++) {
        float v;
        hash_answer(&pos[i], m, prior + i * m, &v);
        set_values(value + 2 * i, pos[i].to_move, v);
    }
    e->positions += (uint64_t)n;
    return MCTS_OK;
}

static void hash_init(mcts_mp_eval *e, const game *g, int max_batch)
{
    *e = (mcts_mp_eval){.evaluate = hash_evaluate, .destroy = fake_destroy, .game = g, .max_batch = max_batch};
}

/* mcts2_root_prior (selfplay.surprise_weight's P): before expansion MCTS_EINVAL; after each search the hash
 * evaluator's priors of the root position, masked to the legal moves and renormalised (uniform when they
 * sum to 0) as the expansion documents, bit for bit — not the noisy children's priors (root noise on),
 * not an earlier root's after tree reuse — for the PUCT root and the Gumbel root. */
static void test_root_prior(void **state)
{
    (void)state;
    game *g = kalah_game();
    game_pos start;
    game_start(g, &start);
    mcts_mp_eval ev;
    hash_init(&ev, g, 8);
    for (int gumbel = 0; gumbel < 2; gumbel++) {
        mcts_config c = mcts_config_default();
        c.sims = 64;
        c.dirichlet_eps = 0.25;
        if (gumbel)
            c.root = MCTS_ROOT_GUMBEL, c.reuse_tree = 0;
        mcts2_tree *t = mcts2_tree_create(g, &c, 5, NULL);
        assert_non_null(t);
        mcts2_set_root(t, &start);
        float got[GAME_MAX_MOVES];
        assert_int_equal(mcts2_root_prior(t, got), MCTS_EINVAL);
        int noisy = 0, plies = 0;
        for (; plies < 30 && !mcts2_root_pos(t)->over; plies++) {
            run_search(t, &ev);
            const game_pos *p = mcts2_root_pos(t);
            float raw[GAME_MAX_MOVES], value;
            hash_answer(p, PITS, raw, &value);
            unsigned legal = game_legal(g, p);
            double sum = 0;
            for (int k = 0; k < PITS; k++)
                if (legal >> k & 1u && raw[k] > 0)
                    sum += raw[k];
            assert_int_equal(mcts2_root_prior(t, got), MCTS_OK);
            for (int k = 0; k < PITS; k++) {
                float want = !(legal >> k & 1u) ? 0.0f
                             : !(sum > 0)       ? 1.0f / (float)__builtin_popcount(legal)
                             : raw[k] > 0       ? (float)(raw[k] / sum)
                                                : 0.0f;
                if (got[k] != want)
                    fail_msg("%s root, ply %d, pit %d: prior %g, the evaluator's %g", gumbel ? "gumbel" : "puct",
                             plies, k, got[k], want);
                int ch = mcts2_node_child(t, mcts2_root_index(t), k);
                if (ch >= 0) {
                    mcts_node_info ci;
                    mcts2_node_get(t, ch, &ci);
                    noisy |= ci.prior != want;
                }
            }
            assert_int_equal(mcts2_advance(t, mcts2_choose(t, 0)), MCTS_OK);
        }
        assert_true(plies >= 10);
        assert_true(noisy == !gumbel); /* the Gumbel root explores by g, not by noise */
        mcts2_tree_free(t);
    }
    game_free(g);
}

/* Every observable of two trees is the same: node count, then every field of every node. */
static void assert_same_tree(mcts2_tree *a, mcts2_tree *b)
{
    assert_int_equal(mcts2_node_count(a), mcts2_node_count(b));
    assert_memory_equal(mcts2_root_pos(a), mcts2_root_pos(b), sizeof(game_pos));
    for (int x = 0; x < mcts2_node_count(a); x++) {
        mcts_node_info u, v;
        assert_int_equal(mcts2_node_get(a, x, &u), MCTS_OK);
        assert_int_equal(mcts2_node_get(b, x, &v), MCTS_OK);
        assert_int_equal(u.parent, v.parent);
        assert_int_equal(u.move, v.move);
        assert_int_equal(u.side, v.side);
        assert_int_equal(u.visits, v.visits);
        assert_int_equal(u.vloss, v.vloss);
        assert_int_equal(u.proven, v.proven);
        assert_int_equal(u.first_child, v.first_child);
        assert_int_equal(u.n_children, v.n_children);
        assert_int_equal(u.expanded | u.terminal << 1 | u.pending << 2, v.expanded | v.terminal << 1 | v.pending << 2);
        assert_memory_equal(&u.w, &v.w, sizeof u.w);
        assert_memory_equal(&u.prior, &v.prior, sizeof u.prior);
    }
}

/* mcts2_select_many (descents interleaved level by level) finds the same leaves, in the same order, and
 * leaves every tree exactly as descending one tree after the other does, move after move, with and without
 * virtual loss, solver and noise. */
static void test_select_many_matches_select(void **state)
{
    (void)state;
    game *g = kalah_game();
    enum { G = 6 };
    for (int variant = 0; variant < 3; variant++) {
        mcts_config c = mcts_config_default();
        c.sims = 60;
        c.leaves_per_game = variant == 1 ? 3 : 1;
        c.solver = variant != 2;
        assert_true(c.leaves_per_game <= STRIDE);
        mcts_mp_eval ev;
        hash_init(&ev, g, G * c.leaves_per_game);
        mcts2_tree *ta[G], *tb[G];
        for (int i = 0; i < G; i++) {
            ta[i] = mcts2_tree_create(g, &c, 100 + (uint64_t)i, NULL);
            tb[i] = mcts2_tree_create(g, &c, 100 + (uint64_t)i, NULL);
            assert_non_null(ta[i]);
            assert_non_null(tb[i]);
        }
        batch ba = {0}, bb = {0};
        int rounds = 0, several = 0; /* several: rounds where one tree had more than one leaf pending */
        for (; rounds < 400; rounds++) {
            mcts2_tree *live[G];
            int n = 0, ka = 0;
            for (int i = 0; i < G; i++) {
                if (mcts2_done(ta[i]) && !mcts2_root_pos(ta[i])->over) {
                    int mv = mcts2_choose(ta[i], rounds < 120 ? 1.0 : 0.0);
                    assert_int_equal(mcts2_choose(tb[i], rounds < 120 ? 1.0 : 0.0), mv);
                    assert_int_equal(mcts2_advance(ta[i], mv), MCTS_OK);
                    assert_int_equal(mcts2_advance(tb[i], mv), MCTS_OK);
                }
                if (mcts2_root_pos(ta[i])->over)
                    continue;
                int k = gather(&ba, ta[i]);
                several += k > 1;
                ka += k;
                live[n++] = tb[i];
            }
            if (n == 0)
                break;
            assert_int_equal(gather_many(&bb, live, n), ka);
            assert_int_equal(bb.n, ba.n);
            for (int j = 0; j < ba.n; j++) {
                assert_int_equal(bb.handle[j], ba.handle[j]);
                assert_memory_equal(&bb.leaf[j], &ba.leaf[j], sizeof(game_pos));
            }
            flush(&ba, &ev);
            flush(&bb, &ev);
            for (int i = 0; i < G; i++)
                assert_same_tree(ta[i], tb[i]);
        }
        assert_true(rounds > 100); /* several moves of every game were compared */
        assert_true((several > 0) == (c.leaves_per_game > 1));
        for (int i = 0; i < G; i++) {
            mcts2_tree_free(ta[i]);
            mcts2_tree_free(tb[i]);
        }
    }
    game_free(g);
}

/* The child every descent step takes is the argmax of the documented PUCT score (mcts.h), computed here
 * in plain scalar float from the node statistics: the vector selection changes nothing, not even ties.
 * Checked along every descent of a few searches, for mcts2_select and for the interleaved descents. */
static int puct_argmax(mcts2_tree *t, const mcts_config *c, int x)
{
    mcts_node_info p, ch;
    mcts2_node_get(t, x, &p);
    /* the descent charged x with its own virtual loss before choosing (vloss 1 here: nothing else pends) */
    float cp = (float)c->c_puct * sqrtf((float)(p.visits + p.vloss));
    float qp = p.visits > 0 ? (float)p.w / (float)p.visits : 0.0f;
    if (p.side != p.parent_side)
        qp = -qp;
    float fpu = qp - (float)c->fpu_reduction;
    fpu = fpu < -1.0f ? -1.0f : fpu > 1.0f ? 1.0f : fpu;
    float best = -INFINITY;
    int bi = -1;
    for (int i = 0; i < p.n_children; i++) {
        mcts2_node_get(t, p.first_child + i, &ch);
        int vl = ch.vloss - (ch.vloss > 0);  /* its charge by this very descent came after the choice */
        int ne = ch.visits + vl;
        float score;
        if (ch.proven == -1) {
            score = -1e30f;
        } else {
            float q = ch.proven != MCTS_UNPROVEN ? (float)ch.proven
                      : ne > 0                   ? ((float)ch.w - (float)vl) / (float)ne
                                                 : fpu;
            score = q + cp * ch.prior / (float)(1 + ne);
        }
        if (score > best) {
            best = score;
            bi = p.first_child + i;
        }
    }
    return bi;
}

/* Follows the charged path of the single pending descent from the root, checking each choice. */
static int check_pending_path(mcts2_tree *t, const mcts_config *c)
{
    int x = mcts2_root_index(t), steps = 0;
    mcts_node_info ni;
    for (;;) {
        mcts2_node_get(t, x, &ni);
        if (!ni.expanded)
            return steps;
        int want = puct_argmax(t, c, x), got = -1;
        for (int i = 0; i < ni.n_children; i++) {
            mcts_node_info ch;
            mcts2_node_get(t, ni.first_child + i, &ch);
            if (ch.vloss > 0)
                got = ni.first_child + i;
        }
        assert_int_equal(got, want);
        x = got;
        steps++;
    }
}

static void test_selection_is_documented_puct(void **state)
{
    (void)state;
    game *g = kalah_game();
    mcts_config c = mcts_config_default();
    c.sims = 150;
    enum { G = 4 };  /* several trees: the interleaved descents take two at a time */
    mcts_mp_eval ev;
    hash_init(&ev, g, G);
    long checked = 0;
    for (int many = 0; many <= 1; many++) {
        mcts2_tree *t[G];
        for (int i = 0; i < G; i++) {
            t[i] = mcts2_tree_create(g, &c, 7 + (uint64_t)i, NULL);
            assert_non_null(t[i]);
        }
        batch b = {0};
        for (int round = 0; round < 1500; round++) {
            mcts2_tree *live[G];
            int n = 0;
            for (int i = 0; i < G; i++) {
                if (mcts2_done(t[i]) && !mcts2_root_pos(t[i])->over)
                    assert_int_equal(mcts2_advance(t[i], mcts2_choose(t[i], 1.0)), MCTS_OK);
                if (!mcts2_root_pos(t[i])->over)
                    live[n++] = t[i];
            }
            if (n == 0)
                break;
            for (int i = 0; i < n && !many; i++)
                gather(&b, live[i]);
            if (many)
                gather_many(&b, live, n);
            for (int i = 0; i < n; i++)
                if (mcts2_pending(live[i]) == 1)
                    checked += check_pending_path(live[i], &c);
            flush(&b, &ev);
        }
        for (int i = 0; i < G; i++)
            mcts2_tree_free(t[i]);
    }
    assert_true(checked > 20000);
    game_free(g);
}

/* ---- configuration checks name the field ---- */

static void test_config_check(void **state)
{
    (void)state;
    game *g = kalah_game();
    char err[MCTS_ERRLEN];
    mcts_config c = mcts_config_default();
    assert_int_equal(mcts_config_check(&c, err), MCTS_OK);
    const char *fields[] = {"sims", "c_puct", "fpu_reduction", "dirichlet_alpha", "dirichlet_eps",
                            "temp_moves", "temperature", "leaves_per_game", "solver", "reuse_tree"};
    for (int i = 0; i < 10; i++) {
        c = mcts_config_default();
        switch (i) {
        case 0: c.sims = 0; break;
        case 1: c.c_puct = 0; break;
        case 2: c.fpu_reduction = -1; break;
        case 3: c.dirichlet_alpha = NAN; break;
        case 4: c.dirichlet_eps = 1.5; break;
        case 5: c.temp_moves = -1; break;
        case 6: c.temperature = 0; break;
        case 7: c.leaves_per_game = 65; break;
        case 8: c.solver = 2; break;
        case 9: c.reuse_tree = -1; break;
        }
        err[0] = 0;
        assert_int_equal(mcts_config_check(&c, err), MCTS_EINVAL);
        if (!strstr(err, fields[i]))
            fail_msg("message '%s' does not name %s", err, fields[i]);
        assert_null(mcts2_tree_create(g, &c, 1, NULL));
    }
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case1_search_plays_f),
        cmocka_unit_test(test_case1_unit_backup),
        cmocka_unit_test(test_case3_priors_by_pit),
        cmocka_unit_test(test_case4_zero_priors_uniform),
        cmocka_unit_test(test_case5_policy_target),
        cmocka_unit_test(test_case6_noise_root_only),
        cmocka_unit_test(test_case7_dirichlet),
        cmocka_unit_test(test_case8_temperature),
        cmocka_unit_test(test_case9_virtual_loss),
        cmocka_unit_test(test_value_perspective_chain),
        cmocka_unit_test(test_rollout_avoids_capture_loss),
        cmocka_unit_test(test_rollout_forced_wins),
        cmocka_unit_test(test_terminal_never_evaluated),
        cmocka_unit_test(test_tree_reuse),
        cmocka_unit_test(test_select_many_matches_select),
        cmocka_unit_test(test_root_prior),
        cmocka_unit_test(test_selection_is_documented_puct),
        cmocka_unit_test(test_config_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
