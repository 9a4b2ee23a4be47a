/* agent_search.c — the search-based agent kinds: ab (eval/alphabeta.h), mcts and az (selfplay/mcts.h). */
#include "eval/agent_impl.h"
#include "env/errbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eval/alphabeta.h"
#include "eval/tbase.h"
#include "nn/h5io.h"
#include "nn/search_ranges.h"
#include "selfplay/evaluator.h"
#include "selfplay/mcts.h"

#define set_err(err, ...) errbuf_set(err, AGENT_ERRLEN, __VA_ARGS__)

/* ---- ab ---- */

_Static_assert(AGENT_MAX_PV == AB_MAX_PV, "agent_stats holds the whole principal variation");

/* ab and solver: the search's value (seed margin), depth, nodes and principal variation. */
static void fill_pv(agent *a, const ab_result *res)
{
    agent_stats *st = &a->stats;
    st->have_value = st->have_pv = 1;
    st->value = (float)res->value;
    st->exact = res->exact;
    st->depth = res->depth;
    st->nodes = res->nodes;
    st->pv_len = res->pv_len;
    memcpy(st->pv, res->pv, sizeof st->pv);
}

typedef struct {
    ab_search *s;
    ab_limits lim;
    int dirty;   /* the table holds entries (clearing an untouched table would only cost time) */
} ab_impl;

static int ab_choose(agent *a, const kalah_pos *p, int *move_out)
{
    ab_impl *x = a->impl;
    ab_result res;
    ab_limits lim = x->lim;
    if (a->time_ms > 0 && (!lim.ms || a->time_ms < lim.ms))
        lim.ms = a->time_ms; /* agent_set_time: the smaller of the two budgets */
    x->dirty = 1;
    ab_set_abort(x->s, a->abort);
    int rc = ab_think(x->s, p, &lim, &res);
    if (rc != AB_OK) {
        set_err(a->err, "alpha-beta search failed (code %d)", rc);
        return AGENT_EFAIL;
    }
    *move_out = res.move;
    fill_pv(a, &res);
    return AGENT_OK;
}

static void ab_new_game(agent *a, const kalah_pos *start)
{
    (void)start;
    ab_impl *x = a->impl;
    /* A fresh table per game keeps a game independent of the games this instance played before. */
    if (x->dirty)
        ab_clear(x->s);
    x->dirty = 0;
    x->lim.seed = a->seed ? a->game_seed | 1 : 0;
}

static void ab_destroy(agent *a)
{
    ab_impl *x = a->impl;
    if (x)
        ab_free(x->s);
    free(x);
}

static const agent_ops ab_ops = {ab_choose, ab_new_game, NULL, ab_destroy, NULL};

int agent_init_ab(agent *a, agent_args *args, char *err)
{
    long long depth = 0, nodes = 0, ms = 0, tt_mb = 4;
    if (agent_arg_long(args, "depth", 1, AB_MAX_DEPTH, &depth, err) ||
        agent_arg_long(args, "nodes", 1, 1000000000000000LL, &nodes, err) ||
        agent_arg_long(args, "ms", 1, 1000000000LL, &ms, err) || agent_arg_long(args, "tt_mb", 1, 4096, &tt_mb, err))
        return -1;
    if (!depth && !nodes && !ms)
        depth = 8;
    ab_impl *x = calloc(1, sizeof *x);
    if (!x) {
        set_err(err, "out of memory");
        return -1;
    }
    a->ops = &ab_ops;
    a->impl = x;
    x->lim.depth = depth ? (int)depth : AB_MAX_DEPTH;
    x->lim.nodes = (uint64_t)nodes;
    x->lim.ms = ms;
    char kerr[KALAH_ERRLEN];
    if (!(x->s = ab_create(&a->rules, (size_t)tt_mb, kerr))) {
        set_err(err, "agent '%s': %s", a->spec, kerr);
        return -1;
    }
    return 0;
}

/* ---- mcts and az: one PUCT tree per agent, reused between the moves of a game ---- */

typedef struct {
    mcts_tree *t;
    mcts_eval *ev;
    nn_net *net;         /* az: owned */
    tb_ref *tb;          /* az with tb=N: the tablebase of the search's leaves (eval/tbase.h's cache) */
    int tb_root;         /* az with tb=N: a covered root is played from the database (tbroot=1, default) */
    mcts_config cfg;
    int raw;             /* az with sims=0: the policy's argmax */
    int net_record;      /* az: the net has a search record (nn/h5io.h nn_search) */
    unsigned from_net;   /* az: AGENT_FROM_* bits of the settings taken from it */
    kalah_pos *leaves;   /* batch scratch */
    int *handles;
    float *prior, *value;
} tree_impl;

static void tree_destroy(agent *a)
{
    tree_impl *x = a->impl;
    if (!x)
        return;
    mcts_tree_free(x->t);
    mcts_eval_free(x->ev);
    nn_net_free(x->net);
    tb_release(x->tb);
    free(x->leaves);
    free(x->handles);
    free(x->prior);
    free(x->value);
    free(x);
}

static void tree_new_game(agent *a, const kalah_pos *start)
{
    tree_impl *x = a->impl;
    if (x->ev->reseed)
        x->ev->reseed(x->ev, agent_mix(a->game_seed, 1));
    if (x->t) {
        mcts_rng_seed(mcts_tree_rng(x->t), agent_mix(a->game_seed, 2));
        mcts_set_root(x->t, start);
    }
}

static void tree_notify(agent *a, const kalah_pos *before, int move)
{
    tree_impl *x = a->impl;
    if (!x->t)
        return;
    kalah_pos after = *before;
    if (kalah_play(&a->rules, &after, move, NULL) != KALAH_OK)
        return;
    if (agent_same_pos(&a->rules, mcts_root_pos(x->t), before) && !after.over &&
        mcts_advance(x->t, move) == MCTS_OK)
        return;
    mcts_set_root(x->t, &after);
}

static int raw_choose(agent *a, const kalah_pos *p, int *move_out)
{
    tree_impl *x = a->impl;
    if (mcts_eval_run(x->ev, p, 1, x->prior, x->value) != MCTS_OK) {
        set_err(a->err, "the net evaluation failed");
        return AGENT_EFAIL;
    }
    unsigned legal = kalah_legal(&a->rules, p);
    int best = -1;
    for (int k = 0; k < a->rules.pits; k++)
        if (legal & (1u << k) && (best < 0 || x->prior[k] > x->prior[best]))
            best = k;
    *move_out = best;
    /* The shown policy is the one the choice used: renormalised over the legal pits. */
    double sum = 0;
    for (int k = 0; k < a->rules.pits; k++)
        sum += legal & (1u << k) ? x->prior[k] : 0;
    for (int k = 0; k < a->rules.pits; k++)
        a->stats.prior[k] = legal & (1u << k) && sum > 0 ? (float)(x->prior[k] / sum) : 0;
    a->stats.have_prior = a->stats.have_value = 1;
    a->stats.value = x->value[0];
    return AGENT_OK;
}

/* The root's statistics for agent_last_stats: visits and Q per pit, and the priors of the root's children. */
static void tree_stats(agent *a, const mcts_tree *t)
{
    agent_stats *st = &a->stats;
    st->nodes = (uint64_t)mcts_root_visits(t, st->visits, st->q);
    st->value = mcts_root_value(t);
    mcts_node_info root, child;
    if (mcts_node_get(t, mcts_root_index(t), &root) == MCTS_OK)
        for (int i = 0; i < root.n_children; i++)
            if (mcts_node_get(t, root.first_child + i, &child) == MCTS_OK && child.move >= 0 &&
                child.move < a->rules.pits)
                st->prior[child.move] = child.prior;
    st->have_visits = st->have_prior = st->have_value = 1;
}

/* az with tb=N at a root the database covers: one of the optimal moves (exact margins, mcts_tb.h), the one
 * the net's policy likes best (ties: the lower pit), as Leela Chess Zero restricts a tablebase root to the
 * moves that keep its value. 1 when it chose, 0 when the root is not covered. */
static int tb_root_choose(agent *a, const kalah_pos *p, int *move_out)
{
    tree_impl *x = a->impl;
    int margin[KALAH_MAX_PITS];
    int best = mcts_tb_move_margins(x->cfg.tablebase, x->cfg.tablebase_seeds, &a->rules, p, margin);
    if (best == INT16_MIN || mcts_eval_run(x->ev, p, 1, x->prior, x->value) != MCTS_OK)
        return 0;
    int mv = -1;
    for (int k = 0; k < a->rules.pits; k++)
        if (margin[k] == best && (mv < 0 || x->prior[k] > x->prior[mv]))
            mv = k;
    *move_out = mv;
    a->stats.value = (float)((best > 0) - (best < 0));
    a->stats.have_value = 1;
    return 1;
}

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* 1 when a child of the root has a visit (mcts_choose then has a move to play). */
static int root_child_visited(const mcts_tree *t, int pits)
{
    int visits[KALAH_MAX_PITS];
    mcts_root_visits(t, visits, NULL);
    for (int k = 0; k < pits; k++)
        if (visits[k] > 0)
            return 1;
    return 0;
}

static int tree_choose(agent *a, const kalah_pos *p, int *move_out)
{
    tree_impl *x = a->impl;
    if (x->raw)
        return raw_choose(a, p, move_out);
    if (x->tb && x->tb_root && tb_root_choose(a, p, move_out))
        return AGENT_OK;
    if (!agent_same_pos(&a->rules, mcts_root_pos(x->t), p))
        mcts_set_root(x->t, p);
    int pits = a->rules.pits, batch = x->cfg.leaves_per_game;
    const int64_t deadline = a->time_ms > 0 ? now_ms() + a->time_ms : 0;
    unsigned spins = 0;
    while (!mcts_done(x->t)) {
        if (deadline && now_ms() >= deadline && root_child_visited(x->t, pits))
            break; /* agent_set_time's budget is spent: play what the tree holds */
        if (agent_aborted(a))
            return AGENT_ESTOPPED;
        int n = 0, h = 0;
        while (n < batch && !mcts_done(x->t)) {
            h = mcts_select(x->t, &x->leaves[n]);
            if (h >= 0)
                x->handles[n++] = h;
            else if (h == MCTS_SIM_DONE && (!deadline || ++spins % 256 || now_ms() < deadline))
                continue; /* a finished leaf, backed up at once; a tree of them all is timed here too */
            else
                break;
        }
        if (h == MCTS_ENOMEM) {
            set_err(a->err, "out of memory for the search tree");
            return AGENT_ENOMEM;
        }
        if (!n)
            continue;
        int rc = x->ev->evaluate(x->ev, x->leaves, n, x->prior, x->value);
        if (rc != MCTS_OK) {
            set_err(a->err, "the evaluator failed (code %d)", rc);
            return AGENT_EFAIL;
        }
        for (int i = 0; i < n; i++)
            if (mcts_complete(x->t, x->handles[i], x->prior + (size_t)i * pits, x->value[i]) == MCTS_ENOMEM) {
                set_err(a->err, "out of memory for the search tree");
                return AGENT_ENOMEM;
            }
    }
    int mv = mcts_choose(x->t, 0);
    if (mv < 0) {
        set_err(a->err, "the search visited no move");
        return AGENT_EFAIL;
    }
    *move_out = mv;
    tree_stats(a, x->t);
    return AGENT_OK;
}

static int tree_settings(const agent *a, agent_search_info *out)
{
    const tree_impl *x = a->impl;
    const mcts_config *c = &x->cfg;
    memset(out, 0, sizeof *out);
    out->sims = x->raw ? 0 : c->sims;
    out->c_puct = c->c_puct;
    out->fpu_reduction = c->fpu_reduction;
    out->margin_utility = c->margin_utility;
    out->solver = c->solver;
    out->batch = c->leaves_per_game;
    out->gumbel = c->root == MCTS_ROOT_GUMBEL;
    out->gumbel_k = c->gumbel_k;
    out->gumbel_c_visit = c->gumbel_c_visit;
    out->gumbel_c_scale = c->gumbel_c_scale;
    out->tb = x->tb ? c->tablebase_seeds : 0;
    out->tbroot = x->tb ? x->tb_root : 0;
    out->net_record = x->net_record;
    out->from_net = x->from_net;
    return AGENT_OK;
}

static const agent_ops tree_ops = {tree_choose, tree_new_game, tree_notify, tree_destroy, tree_settings};

/* Common part of mcts and az once the evaluator exists: scratch buffers and the tree. */
static int tree_finish(agent *a, tree_impl *x, char *err)
{
    char merr[MCTS_ERRLEN];
    int n = x->cfg.leaves_per_game, pits = a->rules.pits;
    x->leaves = calloc((size_t)n, sizeof *x->leaves);
    x->handles = calloc((size_t)n, sizeof *x->handles);
    x->prior = calloc((size_t)n * pits, sizeof *x->prior);
    x->value = calloc((size_t)n, sizeof *x->value);
    if (!x->leaves || !x->handles || !x->prior || !x->value) {
        set_err(err, "out of memory");
        return -1;
    }
    if (x->raw)
        return 0;
    if (mcts_config_check(&x->cfg, merr) != MCTS_OK || !(x->t = mcts_tree_create(&a->rules, &x->cfg, a->seed, merr))) {
        set_err(err, "agent '%s': %s", a->spec, merr);
        return -1;
    }
    return 0;
}

/* Keys shared by mcts and az: sims (min_sims..), c_puct, with x->cfg's c_puct as its default; evaluation
 * settings: no noise, no temperature, one leaf at a time. */
static int tree_config(agent *a, agent_args *args, tree_impl *x, long long default_sims, long long min_sims,
                       char *err)
{
    (void)a;
    long long sims = default_sims;
    double c_puct = x->cfg.c_puct;
    if (agent_arg_long(args, "sims", min_sims, SEARCH_SIMS_MAX, &sims, err) ||
        agent_arg_double(args, "c_puct", SEARCH_C_PUCT_MIN, SEARCH_C_PUCT_MAX, &c_puct, err))
        return -1;
    x->cfg.sims = sims ? (int)sims : 1;
    x->raw = sims == 0;
    x->cfg.c_puct = c_puct;
    x->cfg.dirichlet_eps = 0;
    x->cfg.temp_moves = 0;
    x->cfg.leaves_per_game = 1;
    return 0;
}

int agent_init_mcts(agent *a, agent_args *args, char *err)
{
    tree_impl *x = calloc(1, sizeof *x);
    if (!x) {
        set_err(err, "out of memory");
        return -1;
    }
    a->ops = &tree_ops;
    a->impl = x;
    long long rollouts = 1, solver;
    x->cfg = mcts_config_default();
    if (tree_config(a, args, x, 800, 1, err))
        return -1;
    solver = x->cfg.solver;
    if (agent_arg_long(args, "rollouts", 1, 100000, &rollouts, err) ||
        agent_arg_long(args, "solver", 0, 1, &solver, err))
        return -1;
    x->cfg.solver = (int)solver;
    char merr[MCTS_ERRLEN];
    if (!(x->ev = mcts_eval_rollout_create(&a->rules, (int)rollouts, 1, a->seed, merr))) {
        set_err(err, "agent '%s': %s", a->spec, merr);
        return -1;
    }
    return tree_finish(a, x, err);
}

/* az's keys for the search levers (docs/levers.md, selfplay/mcts_root.h, mcts.margin_utility): root=puct|gumbel with
 * the Gumbel constants, margin=W. The Gumbel root of an agent has no noise (gumbel_scale 0). */
static int az_levers(agent_args *args, tree_impl *x, char *err)
{
    if (agent_root_args(args, &x->cfg, err) || agent_arg_double(args, "margin", 0, SEARCH_MARGIN_MAX, &x->cfg.margin_utility, err))
        return -1;
    long long solver = x->cfg.solver;
    if (agent_arg_long(args, "solver", 0, 1, &solver, err))
        return -1;
    x->cfg.solver = (int)solver;
    return 0;
}

/* The net's search record as the defaults of az's keys (agent.h: a spec key > the record > built in). */
static void az_record(tree_impl *x, const nn_search *s, long long *sims, long long *batch)
{
    x->net_record = 1;
    *sims = s->sims;
    *batch = s->batch;
    x->cfg.c_puct = s->c_puct;
    x->cfg.fpu_reduction = s->fpu_reduction;
    x->cfg.margin_utility = s->margin_utility;
    x->cfg.solver = s->solver;
    x->cfg.root = !strcmp(s->root, "gumbel") ? MCTS_ROOT_GUMBEL : MCTS_ROOT_PUCT;
    x->cfg.gumbel_k = s->gumbel_k;
    x->cfg.gumbel_c_visit = s->gumbel_c_visit;
    x->cfg.gumbel_c_scale = s->gumbel_c_scale;
}

/* The tablebase of az's leaves (tb=N, up to N seeds): acquired from the process-wide cache, built on up to
 * 16 threads before any game starts. */
static int az_tablebase(agent *a, tree_impl *x, int tb, char *err)
{
    char kerr[KALAH_ERRLEN];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cores < 1 ? 1 : cores > 16 ? 16 : (int)cores;
    if (!(x->tb = tb_acquire(&a->rules, tb, threads, NULL, kerr))) {
        set_err(err, "agent '%s': tb=%d: %s", a->spec, tb, kerr);
        return -1;
    }
    x->cfg.tablebase = tb_oracle(x->tb);
    x->cfg.tablebase_seeds = tb < tb_seeds(x->tb) ? tb : tb_seeds(x->tb);
    return 0;
}

int agent_init_az(agent *a, agent_args *args, char *err)
{
    tree_impl *x = calloc(1, sizeof *x);
    if (!x) {
        set_err(err, "out of memory");
        return -1;
    }
    a->ops = &tree_ops;
    a->impl = x;
    const char *path = agent_arg_str(args, "net");
    if (!path) {
        set_err(err, "agent '%s': az needs net=PATH.h5", a->spec);
        return -1;
    }
    /* The net first: its search record supplies the defaults of the keys below. */
    char rules[128], nerr[NN_ERRLEN], merr[MCTS_ERRLEN];
    nn_file_info info;
    kalah_rules_format(&a->rules, rules, sizeof rules);
    if (nn_load(path, rules, &x->net, &info, nerr) != NN_OK) {
        set_err(err, "agent '%s': %s", a->spec, nerr); /* nerr names the file (and the record's field) */
        return -1;
    }
    if (strcmp(info.encoding, KALAH_ENCODING_NAME)) {
        set_err(err, "agent '%s': net=%s uses input encoding '%s', not '%s'", a->spec, path, info.encoding,
                KALAH_ENCODING_NAME);
        return -1;
    }
    long long sims = 200, batch = 1, tb = 0, tbroot = 1;
    x->cfg = mcts_config_default();
    if (info.have_search)
        az_record(x, &info.search, &sims, &batch);
    double fpu;
    if (tree_config(a, args, x, sims, 0, err))
        return -1;
    fpu = x->cfg.fpu_reduction;
    if (agent_arg_double(args, "fpu", 0, SEARCH_FPU_MAX, &fpu, err) || agent_arg_long(args, "batch", 1, SEARCH_BATCH_MAX, &batch, err) ||
        agent_arg_long(args, "tb", 0, 127, &tb, err) || agent_arg_long(args, "tbroot", 0, 1, &tbroot, err))
        return -1;
    x->tb_root = (int)tbroot;
    if (tb > 0 && (x->raw || a->rules.max_sows > 0)) {
        set_err(err, "agent '%s': tb=%lld needs %s", a->spec, tb,
                x->raw ? "a search (sims >= 1; the raw policy has no leaves to value)"
                       : "rules without a sow limit (max_sows=0)");
        return -1;
    }
    x->cfg.fpu_reduction = fpu;
    x->cfg.leaves_per_game = (int)batch;
    if (az_levers(args, x, err))
        return -1;
    /* After the levers: the Gumbel constants count as the record's only under the root the agent plays with, a
     * spec's root=gumbel over a puct record included. */
    if (info.have_search)
        x->from_net = agent_from_net(args, AGENT_FROM_ALL, x->cfg.root == MCTS_ROOT_GUMBEL);
    if (tb > 0 && az_tablebase(a, x, (int)tb, err))
        return -1;
    if (!(x->ev = mcts_eval_net_create_utility(x->net, &a->rules, x->cfg.leaves_per_game, x->cfg.margin_utility,
                                               merr))) {
        set_err(err, "agent '%s': net=%s: %s", a->spec, path, merr);
        return -1;
    }
    agent_search_info si;
    tree_settings(a, &si);
    if (!(a->desc = agent_az_describe(path, &si, AGENT_FROM_ALL, a->seed))) {
        set_err(err, "out of memory");
        return -1;
    }
    return tree_finish(a, x, err);
}

int agent_init_az_net(agent *a, const nn_net *net, const agent_search_info *s, char *err)
{
    tree_impl *x = calloc(1, sizeof *x);
    if (!x) {
        set_err(err, "out of memory");
        return -1;
    }
    a->ops = &tree_ops;
    a->impl = x; /* x->net stays NULL: the net is borrowed */
    if (agent_search_config(s, a->spec, &x->cfg, &x->raw, err))
        return -1;
    x->tb_root = s->tbroot != 0;
    if (s->tb > 0 && (x->raw || a->rules.max_sows > 0)) {
        set_err(err, "agent '%s': tb=%d needs %s", a->spec, s->tb,
                x->raw ? "a search (sims >= 1; the raw policy has no leaves to value)"
                       : "rules without a sow limit (max_sows=0)");
        return -1;
    }
    if (s->tb > 0 && az_tablebase(a, x, s->tb, err))
        return -1;
    char merr[MCTS_ERRLEN];
    if (!(x->ev = mcts_eval_net_create_utility(net, &a->rules, x->cfg.leaves_per_game, x->cfg.margin_utility,
                                               merr))) {
        set_err(err, "agent '%s': %s", a->spec, merr);
        return -1;
    }
    agent_search_info si;
    tree_settings(a, &si);
    if (!(a->desc = agent_az_describe(a->spec, &si, AGENT_FROM_ALL, a->seed))) {
        set_err(err, "out of memory");
        return -1;
    }
    return tree_finish(a, x, err);
}

/* ---- solver: exact play with a table and endgame database kept for the agent's life ---- */

typedef struct {
    ab_search *s;
    tb_ref *tb;    /* the database, shared through the process-wide cache (eval/tbase.h) */
    int endgame;   /* seeds of the database still to build at the first move (0: none or built) */
    int endgame_auto; /* the default size: never more seeds than the first position has in its pits */
} solver_impl;

/* Exact margin for the mover at p after relative pit k (negamax sign: kept across an extra turn). */
static int solver_move_value(agent *a, solver_impl *x, const kalah_pos *p, int k, int *value)
{
    kalah_pos q = *p;
    kalah_sow(&a->rules, &q, k, NULL);
    ab_limits lim = {.exact = 1};
    ab_result res;
    int rc = ab_think(x->s, &q, &lim, &res);
    if (rc != AB_OK && rc != AB_EOVER)
        return rc;
    *value = q.side == p->side ? res.value : -res.value;
    return AB_OK;
}

static int solver_choose(agent *a, const kalah_pos *p, int *move_out)
{
    solver_impl *x = a->impl;
    char kerr[KALAH_ERRLEN];
    if (x->endgame) {
        int n = x->endgame;
        x->endgame = 0;
        /* A database larger than the position needs costs seconds to build and saves nothing: one query
         * from a late position (`sowzero move solver`) would otherwise wait for all of it. */
        if (x->endgame_auto) {
            int in_pits = 0;
            for (int side = 0; side < 2; side++)
                for (int k = 0; k < a->rules.pits; k++)
                    in_pits += p->cell[kalah_pit_index(&a->rules, side, k)];
            n = n < in_pits ? n : in_pits;
        }
        /* One database for every solver and az agent of these rules in the process (eval/tbase.h); a
         * bigger one already built serves too (the values are exact either way). */
        if (!(x->tb = tb_acquire(&a->rules, n, 1, NULL, kerr)) || ab_borrow_endgame(x->s, tb_db(x->tb), kerr) != AB_OK) {
            set_err(a->err, "agent '%s': endgame=%d: %s", a->spec, n, kerr);
            return AGENT_ENOMEM;
        }
    }
    ab_limits lim = {.exact = 1};
    ab_result res;
    ab_set_abort(x->s, a->abort);
    int rc = ab_think(x->s, p, &lim, &res);
    if (agent_aborted(a))
        return AGENT_ESTOPPED;
    if (rc != AB_OK || !res.exact || !res.best_mask) {
        set_err(a->err, "the solve failed (code %d)", rc);
        return AGENT_EFAIL;
    }
    /* Uniform over every optimal move: the j-th set bit of best_mask. */
    unsigned j = agent_below(a, (unsigned)__builtin_popcount(res.best_mask));
    for (int k = 0; k < a->rules.pits; k++)
        if (res.best_mask >> k & 1 && j-- == 0)
            *move_out = k;
    if (res.pv_len > 0 && res.pv[0] != *move_out) {
        /* The principal variation starts with the move played: that move, then the line of the position
         * it leads to (solved already: its value is in the table, so this costs two probes). */
        kalah_pos ch = *p;
        kalah_sow(&a->rules, &ch, *move_out, NULL);
        ab_result cres;
        res.pv[0] = *move_out;
        res.pv_len = 1;
        if (!ch.over && ab_think(x->s, &ch, &lim, &cres) == AB_OK)
            for (int i = 0; i < cres.pv_len && res.pv_len < AB_MAX_PV; i++)
                res.pv[res.pv_len++] = cres.pv[i];
    }
    fill_pv(a, &res);
    if (a->detail) {
        unsigned legal = kalah_legal(&a->rules, p);
        a->stats.have_values = 1;
        for (int k = 0; k < a->rules.pits; k++) {
            a->stats.values[k] = AGENT_NO_VALUE;
            if (legal >> k & 1 && (rc = solver_move_value(a, x, p, k, &a->stats.values[k])) != AB_OK) {
                set_err(a->err, "the solve after move %c failed (code %d)", kalah_move_letter(p->side, k), rc);
                return AGENT_EFAIL;
            }
        }
    }
    return AGENT_OK;
}

static void solver_destroy(agent *a)
{
    solver_impl *x = a->impl;
    if (x) {
        ab_free(x->s);
        tb_release(x->tb);
    }
    free(x);
}

/* No new_game: the table and database stay (exact values do not depend on them), the RNG is reseeded. */
static const agent_ops solver_ops = {solver_choose, NULL, NULL, solver_destroy, NULL};

/* The most seeds whose database (C(N + 2m, 2m) bytes, eval/endgame.h) fits in 64 MiB, at most the total. */
static int solver_default_endgame(const kalah_rules *r)
{
    int m2 = 2 * r->pits, total = m2 * r->seeds, n = 0;
    for (int cand = 1; cand <= total && cand <= 127; cand++) {
        double c = 1; /* C(cand + m2, m2), exactly while it stays below 2^53 */
        for (int i = 1; i <= m2; i++)
            c = c * (cand + i) / i;
        if (c > 64.0 * 1024 * 1024)
            break;
        n = cand;
    }
    return n;
}

int agent_init_solver(agent *a, agent_args *args, char *err)
{
    long long tt_mb = 256, endgame = -1;
    if (agent_arg_long(args, "tt_mb", 1, 65536, &tt_mb, err) || agent_arg_long(args, "endgame", 0, 127, &endgame, err))
        return -1;
    if (endgame > 0 && a->rules.max_sows > 0) {
        set_err(err, "agent '%s': endgame needs rules without a sow limit (max_sows=%d)", a->spec, a->rules.max_sows);
        return -1;
    }
    solver_impl *x = calloc(1, sizeof *x);
    if (!x) {
        set_err(err, "out of memory");
        return -1;
    }
    a->ops = &solver_ops;
    a->impl = x;
    x->endgame = endgame >= 0 ? (int)endgame : a->rules.max_sows > 0 ? 0 : solver_default_endgame(&a->rules);
    x->endgame_auto = endgame < 0;
    char kerr[KALAH_ERRLEN];
    if (!(x->s = ab_create(&a->rules, (size_t)tt_mb, kerr))) {
        set_err(err, "agent '%s': %s", a->spec, kerr);
        return -1;
    }
    return 0;
}
