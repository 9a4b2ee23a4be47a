/* test_mcts2.c — the two-player tree on the game interface (selfplay/mcts.h), on Kalah: every descent of
 * games of searches with every lever (noise, temperature, virtual loss, proofs, score proofs, the Gumbel
 * root, forced playouts, reuse) checked against the tree's rules (mcts.h's conventions) recomputed here from
 * the nodes' own statistics: PUCT with first-play urgency and virtual loss, where a descent stops, the
 * values backed up in each node's parent mover's view across extra turns, expansion and root noise, visit
 * sums, proofs checked down to finished positions, the move and the policy target, the subtree kept by
 * reuse. Then mcts_mp.h's search agreeing with the tree it runs, what the tree refuses because of a fact of
 * the game, and mcts_mp.h running two-player games on it. */
#include "tests/test_util.h"

#include <math.h>
#include "env/game.h"
#include "selfplay/mcts.h"
#include "selfplay/mcts_mp.h"

/* A deterministic evaluation of a leaf from its board and its mover: priors (some zero, so masking and
 * renormalising are exercised) and a value in [−1, 1) that vary with the position. */
static void fake_eval(const game_pos *p, int moves, float *prior, float *value)
{
    uint32_t h = 2166136261u ^ (uint32_t)p->to_move;
    for (int i = 0; i < GAME_MAX_CELLS; i++)
        h = (h ^ p->cell[i]) * 16777619u;
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

static mcts_node_info node_at(const mcts2_tree *t, int i)
{
    mcts_node_info ni;
    assert_int_equal(mcts2_node_get(t, i, &ni), MCTS_OK);
    return ni;
}

/* ---- the rules of mcts.h, recomputed ---- */

/* The utility of finished position p for player 0: the result, with the margin utility w its final margin
 * over all the seeds mixed in. */
static float terminal_utility(const game *g, const mcts_config *cfg, const game_pos *p)
{
    double v[GAME_MAX_PLAYERS] = {0}, w = cfg->margin_utility;
    game_values(g, p, v);
    double u = (v[0] > 0) - (v[0] < 0);
    if (w > 0)
        u = (u + w * game_margin(g, p) / game_seeds(g)) / (1.0 + w);
    return (float)u;
}

/* PUCT score of child c of node p: Q (virtual losses charged; the proven value when proven; first-play
 * urgency, p's Q in its mover's view less fpu_reduction, when unvisited) + c_puct · P · sqrt(N(p) + vl(p)) /
 * (1 + N + vl), −1e30 for a child proven lost; vl(p) counts the descent's own charge of p, made before p
 * chooses. In float with the operations in the tree's order, so the same statistics give the same score;
 * near ties are left open by the caller. */
static float puct(const mcts_config *cfg, const mcts_node_info *p, const mcts_node_info *c)
{
    if (c->proven == -1)
        return -1e30f;
    float cp = (float)cfg->c_puct * sqrtf((float)(p->visits + p->vloss + 1));
    float qp = p->visits > 0 ? (float)p->w / (float)p->visits : 0.0f;
    if (p->side != p->parent_side)
        qp = -qp;
    float fpu = qp - (float)cfg->fpu_reduction;
    fpu = fpu < -1.0f ? -1.0f : fpu > 1.0f ? 1.0f : fpu;
    int ne = c->visits + c->vloss;
    float q = c->proven != MCTS_UNPROVEN ? (float)c->proven
              : ne > 0                   ? ((float)c->w - (float)c->vloss) / (float)ne
                                         : fpu;
    return q + cp * c->prior / (float)(1 + ne);
}

enum { END_LEAF, END_DONE, END_COLLISION };

#define MAX_DEPTH 160
#define MAX_ROUTES 64

/* One descent the rules allow: its nodes with their statistics before it, and how it ends. */
typedef struct {
    int len, node[MAX_DEPTH], visits[MAX_DEPTH], vloss[MAX_DEPTH], pside[MAX_DEPTH];
    double w[MAX_DEPTH];
    int end;
    int tail, tail_nv[GAME_MAX_MOVES]; /* the last node's children and their N + vl (none descended into) */
    game_pos pos;   /* the position of the last node */
    int known;      /* END_DONE: a finished or proven node, whose value `v0` (player 0's view) is backed up */
    float v0;
} route;

typedef struct {
    int n, open; /* open: a choice between near-equal scores was left to the tree */
    route r[MAX_ROUTES];
} routes;

/* Every descent the rules allow from node x (position pos) with the statistics the tree shows now: PUCT at
 * each node (ties to the lower pit), any child at a root whose move a root lever picks (mcts_root.h, checked
 * in test_mcts_root.c). A descent stops at a finished node, at a proven or scored node other than the root,
 * and at an unexpanded node (a leaf, or a collision when that leaf is pending). */
static void walk(const game *g, const mcts2_tree *t, const mcts_config *cfg, int x, const game_pos *pos, route *cur,
                 routes *out)
{
    mcts_node_info ni = node_at(t, x);
    int root = x == mcts2_root_index(t), reached = ni.side >= 0;
    if (reached) {
        assert_int_equal(ni.side, pos->to_move);
        assert_int_equal(ni.terminal, pos->over);
    }
    assert_true(cur->len < MAX_DEPTH);
    int j = cur->len++;
    cur->node[j] = x, cur->visits[j] = ni.visits, cur->vloss[j] = ni.vloss, cur->w[j] = ni.w;
    cur->pside[j] = ni.parent_side;
    cur->end = -1, cur->known = 0, cur->v0 = 0;
    if (pos->over)
        cur->end = END_DONE, cur->known = 1, cur->v0 = terminal_utility(g, cfg, pos);
    else if (reached && !root && ni.scored)
        cur->end = END_DONE;
    else if (reached && !root && ni.proven != MCTS_UNPROVEN)
        cur->end = END_DONE, cur->known = 1, cur->v0 = (float)(ni.parent_side == 0 ? ni.proven : -ni.proven);
    else if (!ni.expanded)
        cur->end = ni.pending ? END_COLLISION : END_LEAF;
    if (cur->end >= 0) {
        assert_true(out->n < MAX_ROUTES);
        cur->tail = ni.n_children;
        for (int i = 0; i < ni.n_children; i++) {
            mcts_node_info c = node_at(t, ni.first_child + i);
            cur->tail_nv[i] = c.visits + c.vloss;
        }
        cur->pos = *pos;
        out->r[out->n++] = *cur;
        cur->len--;
        return;
    }
    int lever = root && (cfg->root == MCTS_ROOT_GUMBEL || cfg->forced_playouts_k > 0);
    float s[GAME_MAX_MOVES], best = -INFINITY;
    mcts_node_info ch[GAME_MAX_MOVES];
    assert_true(ni.n_children >= 1 && ni.n_children <= GAME_MAX_MOVES);
    for (int i = 0; i < ni.n_children; i++) {
        ch[i] = node_at(t, ni.first_child + i);
        s[i] = puct(cfg, &ni, &ch[i]);
        best = s[i] > best ? s[i] : best;
    }
    int taken = 0;
    for (int i = 0; i < ni.n_children; i++) {
        int first_best = s[i] == best;
        for (int k = 0; k < i && first_best; k++)
            first_best = s[k] != best;
        int near = s[i] != best && best - s[i] <= 1e-6f * fmaxf(1.0f, fabsf(best));
        if (!lever && !first_best && !near)
            continue;
        taken++;
        game_pos q = *pos;
        assert_int_equal(game_apply(g, &q, ch[i].move, NULL), GAME_OK);
        walk(g, t, cfg, ni.first_child + i, &q, cur, out);
    }
    out->open |= !lever && taken > 1;
    cur->len--;
}

/* What the checks of one game met, so that a test that checked nothing fails. */
typedef struct {
    int descents, open, leaves, done, collisions, full, extra_turns, proven, scored, kept, multi_pending;
    int proven_stops, noisy, searches;
} tally;

/* Runs one descent and checks it against the routes the rules allow: the same kind of end, the nodes of
 * exactly one of them charged and nothing below its end (a virtual loss on the way to a leaf, a visit when
 * the simulation ended at a finished or proven node, with that node's value added to each W in its parent
 * mover's view), the leaf's position. Returns what mcts2_select returned; *path gets the route of a leaf. */
static int checked_select(const game *g, mcts2_tree *t, const mcts_config *cfg, game_pos *leaf, route *path,
                          tally *ty)
{
    static routes rs;
    static route cur;
    int root = mcts2_root_index(t);
    mcts_node_info rn = node_at(t, root);
    int start = rn.visits - mcts2_sims_done(t), pend = mcts2_pending(t);
    int full = pend >= cfg->leaves_per_game || (pend > 0 && rn.visits + rn.vloss >= start + cfg->sims);
    rs.n = rs.open = 0;
    cur.len = 0;
    if (!full)
        walk(g, t, cfg, root, mcts2_root_pos(t), &cur, &rs);
    int h = mcts2_select(t, leaf);
    if (full) {
        assert_int_equal(h, MCTS_FULL);
        ty->full++;
        return h;
    }
    assert_int_not_equal(h, MCTS_FULL);
    ty->descents++;
    ty->open += rs.open;
    int want = h >= 0 ? END_LEAF : h == MCTS_SIM_DONE ? END_DONE : END_COLLISION, match = -1, matches = 0;
    if (h < 0)
        assert_true(h == MCTS_SIM_DONE || h == MCTS_COLLISION);
    for (int i = 0; i < rs.n; i++) {
        const route *r = &rs.r[i];
        if (r->end != want)
            continue;
        int ok = 1;
        for (int j = 0; j < r->len && ok; j++) {
            mcts_node_info ni = node_at(t, r->node[j]);
            ok = want == END_LEAF ? ni.visits == r->visits[j] && ni.vloss == r->vloss[j] + 1
                 : want == END_DONE ? ni.visits == r->visits[j] + 1 && ni.vloss == r->vloss[j]
                                    : ni.visits == r->visits[j] && ni.vloss == r->vloss[j];
        }
        if (ok && r->tail > 0) {
            int first = node_at(t, r->node[r->len - 1]).first_child;
            for (int k = 0; k < r->tail && ok; k++) {
                mcts_node_info c = node_at(t, first + k);
                ok = c.visits + c.vloss == r->tail_nv[k];
            }
        }
        if (ok)
            match = i, matches++;
    }
    if (want == END_COLLISION) { /* nothing changes: any route to the pending leaf */
        assert_true(matches >= 1);
        ty->collisions++;
        return h;
    }
    if (matches != 1)
        fail_msg("descent %d ended with %d, matching %d of the %d routes the rules allow", ty->descents, h, matches,
                 rs.n);
    const route *r = &rs.r[match];
    if (want == END_LEAF) {
        assert_memory_equal(leaf, &r->pos, sizeof *leaf);
        assert_int_equal(node_at(t, r->node[r->len - 1]).pending, 1);
        *path = *r;
        ty->leaves++;
        return h;
    }
    ty->done++;
    ty->proven_stops += r->known && !r->pos.over;
    /* a finished or proven node backs up its exact value (score proofs reset W on the way: checked on the
     * whole tree instead) */
    int scored = cfg->solver && cfg->margin_utility > 0;
    for (int j = 0; r->known && !scored && j < r->len; j++) {
        double dw = node_at(t, r->node[j]).w - r->w[j];
        assert_true(fabs(dw - (r->pside[j] == 0 ? r->v0 : -r->v0)) < 1e-4);
    }
    return h;
}

/* Completes a leaf with fake_eval and checks the backup (every node of its path: one visit more, the virtual
 * loss gone, the leaf mover's value added in the node's parent mover's view, so its sign changes exactly
 * where the player to move changes) and the expansion (one child per legal slot in slot order, priors masked
 * to the legal slots and renormalised, uniform when they sum to 0; the root's are mixed with noise). */
static void checked_complete(const game *g, mcts2_tree *t, const mcts_config *cfg, int h, const game_pos *leaf,
                             const route *path, tally *ty)
{
    int m = game_moves(g);
    float prior[GAME_MAX_MOVES], v;
    fake_eval(leaf, m, prior, &v);
    mcts_node_info before[MAX_DEPTH];
    for (int j = 0; j < path->len; j++) {
        before[j] = node_at(t, path->node[j]);
        ty->extra_turns += j > 0 && path->pside[j] == path->pside[j - 1];
    }
    assert_int_equal(mcts2_complete(t, h, prior, v), MCTS_OK);
    for (int j = 0; j < path->len; j++) {
        mcts_node_info ni = node_at(t, path->node[j]);
        assert_int_equal(ni.visits, before[j].visits + 1);
        assert_int_equal(ni.vloss, before[j].vloss - 1);
        assert_true(fabs(ni.w - before[j].w - (ni.parent_side == leaf->to_move ? v : -v)) < 1e-4);
    }
    int x = path->node[path->len - 1];
    mcts_node_info ni = node_at(t, x);
    unsigned legal = game_legal(g, leaf);
    assert_true(ni.expanded && !ni.pending);
    assert_int_equal(ni.n_children, __builtin_popcount(legal));
    double sum = 0;
    for (int k = 0; k < m; k++)
        if (legal >> k & 1u && prior[k] > 0)
            sum += prior[k];
    int noise = x == mcts2_root_index(t) && cfg->dirichlet_eps > 0 && cfg->root != MCTS_ROOT_GUMBEL;
    double total = 0;
    unsigned seen = 0;
    for (int i = 0; i < ni.n_children; i++) {
        mcts_node_info c = node_at(t, ni.first_child + i);
        assert_true(legal >> c.move & 1u);
        assert_true(i == 0 || c.move > node_at(t, ni.first_child + i - 1).move);
        seen |= 1u << c.move;
        assert_true(c.visits == 0 && c.side < 0 && c.parent_side == leaf->to_move);
        double want = sum > 0 ? (prior[c.move] > 0 ? prior[c.move] / sum : 0.0) : 1.0 / ni.n_children;
        if (!noise)
            assert_true(fabs(c.prior - want) < 1e-6);
        total += c.prior;
    }
    assert_int_equal(seen, legal);
    assert_true(fabs(total - 1.0) < 1e-5);
}

/* The whole tree below node x (position pos) against the rules: every reached unfinished node is expanded
 * (nothing is pending between searches) with one child per legal slot; N = 1 + the children's N (its
 * expansion, then one child per simulation), more only once the node is proven or scored (its value is then
 * backed up without descending); a finished node holds N times its utility; proofs follow from the children
 * (win/draw/loss: a child won for the mover, or every child proven, the best of them; score proofs: every
 * child scored, the best utility), so that every proof is checked down to finished positions: an exact solve
 * of the proven nodes. Returns the nodes of the subtree. */
static int check_subtree(const game *g, const mcts2_tree *t, const mcts_config *cfg, int x, const game_pos *pos,
                         tally *ty)
{
    mcts_node_info ni = node_at(t, x);
    int wdl = cfg->solver && !(cfg->margin_utility > 0), sc = cfg->solver && cfg->margin_utility > 0;
    assert_true(ni.vloss == 0 && !ni.pending);
    assert_true(fabs(ni.w) <= ni.visits + 1e-3);
    if (ni.side < 0) {
        assert_true(ni.visits == 0 && !ni.expanded);
        return 1;
    }
    assert_int_equal(ni.side, pos->to_move);
    assert_int_equal(ni.terminal, pos->over);
    if (!sc)
        assert_int_equal(ni.scored, 0);
    if (!wdl)
        assert_int_equal(ni.proven, MCTS_UNPROVEN);
    if (pos->over) {
        float u = terminal_utility(g, cfg, pos);
        u = ni.parent_side == 0 ? u : -u;
        assert_true(!ni.expanded && ni.visits > 0);
        assert_true(fabs(ni.w - u * ni.visits) < 1e-4 * ni.visits);
        if (wdl)
            assert_int_equal(ni.proven, (u > 0) - (u < 0));
        if (sc)
            assert_int_equal(ni.scored, 1);
        ty->proven += wdl, ty->scored += sc;
        return 1;
    }
    assert_int_equal(ni.expanded, 1);
    assert_int_equal(ni.n_children, __builtin_popcount(game_legal(g, pos)));
    int count = 1, sum_n = 0, best = -2, all = 1, all_scored = 1;
    float best_u = -INFINITY;
    for (int i = 0; i < ni.n_children; i++) {
        mcts_node_info c = node_at(t, ni.first_child + i);
        assert_int_equal(c.parent, x);
        assert_int_equal(c.parent_side, ni.side);
        assert_true(game_legal(g, pos) >> c.move & 1u);
        game_pos q = *pos;
        assert_int_equal(game_apply(g, &q, c.move, NULL), GAME_OK);
        count += check_subtree(g, t, cfg, ni.first_child + i, &q, ty);
        c = node_at(t, ni.first_child + i);
        sum_n += c.visits;
        if (c.proven == MCTS_UNPROVEN)
            all = 0;
        else if (c.proven > best)
            best = c.proven;
        if (c.scored)
            best_u = fmaxf(best_u, (float)(c.w / c.visits));
        else
            all_scored = 0;
    }
    int flip = ni.side != ni.parent_side;
    if (ni.proven != MCTS_UNPROVEN || ni.scored)
        assert_true(ni.visits >= 1 + sum_n);
    else
        assert_int_equal(ni.visits, 1 + sum_n);
    if (wdl) {
        int want = best == 1 || all ? (flip ? -best : best) : MCTS_UNPROVEN;
        assert_int_equal(ni.proven, want);
        ty->proven += want != MCTS_UNPROVEN;
    }
    if (sc) {
        assert_int_equal(ni.scored, all_scored);
        if (all_scored)
            assert_true(fabs(ni.w / ni.visits - (flip ? -best_u : best_u)) < 1e-4);
        ty->scored += all_scored;
    }
    return count;
}

/* The move of a search: tau = 0 plays a proven win, else the most visited child not proven lost (ties: the
 * higher Q, then the lower pit), or with a scored root the best exact utility; with temperature a proven win
 * is still played and a proven loss avoided while another move exists. The policy target at tau = 1 is the
 * visit shares (uniform over the best utilities at a scored root). The Gumbel root's move and target and the
 * forced playouts' pruned target are test_mcts_root.c's. */
static void check_choice(const game *g, const mcts2_tree *t, const mcts_config *cfg, double tau, int move)
{
    mcts_node_info rn = node_at(t, mcts2_root_index(t)), c[GAME_MAX_MOVES];
    int nc = rn.n_children, any_win = 0, any_ok = 0, sum = 0;
    float q[GAME_MAX_MOVES];
    for (int i = 0; i < nc; i++) {
        c[i] = node_at(t, rn.first_child + i);
        q[i] = c[i].proven != MCTS_UNPROVEN ? (float)c[i].proven : c[i].visits > 0 ? (float)(c[i].w / c[i].visits) : 0;
        any_win |= c[i].proven == 1;
        any_ok |= c[i].proven != -1;
        sum += c[i].visits;
    }
    assert_true(game_legal(g, mcts2_root_pos(t)) >> move & 1u);
    int scored = mcts2_root_scored(t), gumbel = cfg->root == MCTS_ROOT_GUMBEL;
    int bi = -1;
    for (int i = 0; i < nc; i++) {
        if (scored) {
            if (bi < 0 || q[i] > q[bi])
                bi = i;
            continue;
        }
        if ((any_win && c[i].proven != 1) || (any_ok && c[i].proven == -1))
            continue;
        if (bi < 0 || c[i].visits > c[bi].visits || (c[i].visits == c[bi].visits && q[i] > q[bi]))
            bi = i;
    }
    float pi[GAME_MAX_MOVES];
    assert_int_equal(mcts2_policy(t, 1.0, pi), MCTS_OK);
    if (scored) {
        assert_int_equal(move, c[bi].move);
        int k = 0;
        for (int i = 0; i < nc; i++)
            k += q[i] >= q[bi] - 1e-5f;
        for (int i = 0; i < nc; i++)
            assert_float_equal(pi[c[i].move], q[i] >= q[bi] - 1e-5f ? 1.0f / k : 0.0f, 1e-6);
        return;
    }
    if (!gumbel && !(cfg->forced_playouts_k > 0))
        for (int i = 0; i < nc; i++)
            assert_float_equal(pi[c[i].move], (float)c[i].visits / (float)sum, 1e-6);
    if (gumbel)
        return;
    if (tau == 0 || any_win) {
        assert_int_equal(move, c[bi].move);
        return;
    }
    for (int i = 0; i < nc; i++)
        if (c[i].move == move)
            assert_true(c[i].visits > 0 && !(any_ok && c[i].proven == -1));
}

static int subtree_size(const mcts2_tree *t, int x)
{
    mcts_node_info ni = node_at(t, x);
    int n = 1;
    for (int i = 0; i < ni.n_children; i++)
        n += subtree_size(t, ni.first_child + i);
    return n;
}

/* Root noise: with dirichlet_eps ε > 0 (not at a Gumbel root) every searched root's children hold
 * (1 − ε)·P + ε·η with P the evaluator's priors (mcts2_root_prior) and η a distribution over the legal
 * moves, drawn afresh for each root, reused ones included; without it they hold P. */
static void check_root_noise(const mcts2_tree *t, const mcts_config *cfg, tally *ty)
{
    mcts_node_info rn = node_at(t, mcts2_root_index(t));
    float p[GAME_MAX_MOVES];
    assert_int_equal(mcts2_root_prior(t, p), MCTS_OK);
    double eps = cfg->root == MCTS_ROOT_GUMBEL ? 0.0 : cfg->dirichlet_eps, moved = 0;
    for (int i = 0; i < rn.n_children; i++) {
        mcts_node_info c = node_at(t, rn.first_child + i);
        if (eps == 0) {
            assert_true(c.prior == p[c.move]);
            continue;
        }
        double eta = (c.prior - (1.0 - eps) * p[c.move]) / eps;
        assert_true(eta > -1e-5 && eta < 1.0 + 1e-5);
        moved = fmax(moved, fabs(eta - p[c.move]));
    }
    ty->noisy += moved > 1e-3;
}

/* Games of Kalah(6,3), and of Kalah(4,2) (a small board: proofs come early), with every lever: each move's
 * search checked descent by descent and then as a whole, and the move played kept as the next root's
 * subtree. */
static void test_kalah_tree_rules(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    const char *specs[] = {"kalah:pits=6,seeds=3", "kalah:pits=4,seeds=2"};
    int proven_stops = 0;
    for (int gi = 0; gi < 2; gi++) {
        game *g = game_create(specs[gi], err);
        assert_non_null(g);
        mcts_config cfgs[8];
        int ncfg;
        kalah_configs(cfgs, &ncfg);
        for (int ci = 0; ci < ncfg; ci++) {
            const mcts_config *cfg = &cfgs[ci];
            mcts2_tree *t = mcts2_tree_create(g, cfg, 77 + (uint64_t)ci, err);
            assert_non_null(t);
            tally ty = {0};
            int plies = 0;
            for (; plies < 100 && !mcts2_root_pos(t)->over; plies++) {
                for (int guard = 0; !mcts2_done(t); guard++) {
                    assert_true(guard < 100000);
                    game_pos leaf[64];
                    route path[64];
                    int hs[64], n = 0;
                    for (;;) {
                        int h = checked_select(g, t, cfg, &leaf[n], &path[n], &ty);
                        if (h >= 0) {
                            hs[n++] = h;
                            continue;
                        }
                        if (h == MCTS_SIM_DONE && !mcts2_done(t))
                            continue;
                        break;
                    }
                    ty.multi_pending += n > 1;
                    for (int i = 0; i < n; i++)
                        checked_complete(g, t, cfg, hs[i], &leaf[i], &path[i], &ty);
                }
                int root = mcts2_root_index(t);
                assert_int_equal(check_subtree(g, t, cfg, root, mcts2_root_pos(t), &ty), mcts2_node_count(t));
                if (mcts2_root_proven(t) == MCTS_UNPROVEN && !mcts2_root_scored(t))
                    assert_int_equal(mcts2_sims_done(t), cfg->sims);
                if (node_at(t, root).n_children > 1) { /* one legal move: no noise to see */
                    check_root_noise(t, cfg, &ty);
                    ty.searches++;
                }
                double tau = plies < 8 ? 1.0 : 0.0; /* temperature: the tree's RNG draws */
                int m = mcts2_choose(t, tau);
                check_choice(g, t, cfg, tau, m);
                int c = mcts2_node_child(t, root, m);
                assert_true(c >= 0);
                mcts_node_info cn = node_at(t, c);
                int size = subtree_size(t, c);
                game_pos next = *mcts2_root_pos(t);
                assert_int_equal(game_apply(g, &next, m, NULL), GAME_OK);
                assert_int_equal(mcts2_advance(t, m), MCTS_OK);
                assert_memory_equal(mcts2_root_pos(t), &next, sizeof next);
                mcts_node_info nr = node_at(t, mcts2_root_index(t));
                if (cfg->reuse_tree && cfg->root != MCTS_ROOT_GUMBEL && cn.visits > 0) {
                    /* reuse keeps the subtree with its statistics, W turned into the new root's mover's view */
                    assert_int_equal(mcts2_node_count(t), size);
                    assert_int_equal(nr.visits, cn.visits);
                    assert_true(fabs(nr.w - (cn.side == cn.parent_side ? cn.w : -cn.w)) < 1e-6);
                    ty.kept++;
                } else {
                    assert_int_equal(mcts2_node_count(t), 1);
                    assert_int_equal(nr.visits, 0);
                }
            }
            print_message("%s, config %d: %d plies, %d descents (%d leaves, %d ended at exact nodes, %d of them "
                          "proven interior ones, %d collisions, %d with a near tie left open), %d extra-turn "
                          "backups, %d proven and %d scored nodes, %d subtrees kept, %d of %d roots with noise\n",
                          specs[gi], ci, plies, ty.descents, ty.leaves, ty.done, ty.proven_stops, ty.collisions,
                          ty.open, ty.extra_turns, ty.proven, ty.scored, ty.kept, ty.noisy, ty.searches);
            assert_true(mcts2_root_pos(t)->over); /* the game was played to its end */
            assert_true(ty.leaves > 100 && ty.done > 0 && ty.extra_turns > 0);
            assert_true(ty.open * 50 <= ty.descents); /* nearly every descent was pinned down to one route */
            if (cfg->solver && !(cfg->margin_utility > 0))
                assert_true(ty.proven > 0);
            if (cfg->solver && cfg->margin_utility > 0)
                assert_true(ty.scored > 0);
            if (cfg->leaves_per_game > 1)
                assert_true(ty.multi_pending > 0);
            if (cfg->reuse_tree && cfg->root != MCTS_ROOT_GUMBEL)
                assert_true(ty.kept > 0);
            if (cfg->dirichlet_eps > 0 && cfg->root != MCTS_ROOT_GUMBEL)
                assert_true(ty.noisy == ty.searches && ty.searches > 0);
            proven_stops += ty.proven_stops;
            mcts2_tree_free(t);
        }
        game_free(g);
    }
    assert_true(proven_stops > 0); /* proven interior nodes were reached and not descended */
}

/* ---- mcts_mp.h's search runs this tree ---- */

typedef struct {
    mcts_mp_eval base;
} fake_mp_eval;

static int fake_mp_evaluate(mcts_mp_eval *e, const game_pos *pos, int n, float *prior, float *value)
{
    int m = game_moves(e->game);
    for (int i = 0; i < n; i++) {
        float v;
        fake_eval(&pos[i], m, prior + i * m, &v);
        value[2 * i + pos[i].to_move] = v;
        value[2 * i + 1 - pos[i].to_move] = -v;
    }
    e->positions += (uint64_t)n;
    return MCTS_OK;
}

static void fake_mp_destroy(mcts_mp_eval *e) { (void)e; }

/* mcts_mp_search of a two-player game is this tree searched without noise (mcts_mp.h) with the leaf
 * mover's value: the same visits, target, move and value as the tree driven here with the same evaluations,
 * the value vector the mover's value and its negation. */
static void test_mp_search_is_the_tree(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    game *g = game_create("kalah:pits=6,seeds=3", err);
    assert_non_null(g);
    fake_mp_eval ev = {.base = {.evaluate = fake_mp_evaluate, .destroy = fake_mp_destroy, .game = g, .max_batch = 1}};
    game_pos pos[3];
    game_start(g, &pos[0]);
    pos[1] = pos[0];
    for (int i = 0; i < 4; i++) /* a few opening moves */
        assert_int_equal(game_apply(g, &pos[1], 5 - i % 3, NULL), GAME_OK);
    pos[2] = pos[1];
    while (game_seeds_in_pits(g, &pos[2]) > 12) { /* on to an endgame the solver resolves */
        unsigned legal = game_legal(g, &pos[2]);
        int moved = 0;
        for (int k = game_moves(g) - 1; k >= 0 && !moved; k--) { /* the highest pit that does not end the game */
            game_pos q = pos[2];
            if (legal >> k & 1u && game_apply(g, &q, k, NULL) == GAME_OK && !q.over)
                pos[2] = q, moved = 1;
        }
        assert_true(moved);
    }
    mcts_config base = mcts_config_default();
    base.sims = 300;
    mcts_config cfgs[4] = {base, base, base, base}; /* root noise on: the search must take it off */
    cfgs[1].margin_utility = 0.5;
    cfgs[2].root = MCTS_ROOT_GUMBEL, cfgs[2].gumbel_k = 4;
    cfgs[3].forced_playouts_k = 2;
    int exact = 0;
    for (int ci = 0; ci < 4; ci++)
        for (int pk = 0; pk < 3; pk++) {
            mcts_mp_result res;
            if (mcts_mp_search(g, &pos[pk], &cfgs[ci], &ev.base, 11, &res, err) != MCTS_OK)
                fail_msg("%s", err);
            mcts_config c = cfgs[ci];
            c.dirichlet_eps = 0, c.gumbel_scale = 0, c.forced_playouts_k = 0;
            mcts2_tree *t = mcts2_tree_create(g, &c, 11, err);
            assert_non_null(t);
            mcts2_set_root(t, &pos[pk]);
            uint64_t evals = 0;
            while (!mcts2_done(t)) {
                game_pos leaf;
                int h = mcts2_select(t, &leaf);
                if (h == MCTS_SIM_DONE)
                    continue;
                assert_true(h >= 0);
                float prior[GAME_MAX_MOVES], v;
                fake_eval(&leaf, game_moves(g), prior, &v);
                assert_int_equal(mcts2_complete(t, h, prior, v), MCTS_OK);
                evals++;
            }
            int visits[GAME_MAX_MOVES];
            float pol[GAME_MAX_MOVES];
            assert_int_equal(res.root_visits, mcts2_root_visits(t, visits, NULL));
            assert_memory_equal(res.visits, visits, (size_t)game_moves(g) * sizeof(int));
            assert_int_equal(mcts2_policy(t, 1.0, pol), MCTS_OK);
            assert_memory_equal(res.pi, pol, (size_t)game_moves(g) * sizeof(float));
            assert_int_equal(res.move, mcts2_choose(t, 0.0));
            assert_true(res.evals == evals);
            int proven = mcts2_root_proven(t), scored = mcts2_root_scored(t), me = pos[pk].to_move;
            float v = proven != MCTS_UNPROVEN ? (float)proven : mcts2_root_value(t);
            assert_int_equal(res.proven, proven != MCTS_UNPROVEN || scored);
            assert_true(res.value[me] == v && res.value[1 - me] == -v);
            assert_int_equal(res.won, proven == 1 || (scored && v > 0));
            exact += res.proven;
            mcts2_tree_free(t);
        }
    assert_true(exact > 0); /* the endgame was resolved: the exact root's path of mcts_mp_search is checked */
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
        cmocka_unit_test(test_kalah_tree_rules),
        cmocka_unit_test(test_mp_search_is_the_tree),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_mp_two_players),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
