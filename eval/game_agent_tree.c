/* game_agent_tree.c — the tree agents of every game, `mcts` and `az` (eval/game_agent.h): one PUCT tree per
 * agent (selfplay/mcts_mp.h; the two-player scalar tree mcts2 for two-player games) reused between the moves
 * of a game, a time budget, the raw policy, and an endgame database's leaves and roots (tb=, tbroot=). */
#include "eval/game_agent_impl.h"
#include "env/errbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/agent_impl.h"   /* agent_mix */
#include "eval/tbase.h"
#include "selfplay/mcts.h"

#define set_err(err, ...) errbuf_set(err, AGENT_ERRLEN, __VA_ARGS__)

struct ga_tree {
    const game *g;      /* what the tree searches: the agent's game, or `own` */
    game *own;          /* the agent's own instance of the game with the database attached (tb=N); owned */
    tb_ref *tb;         /* that database (eval/tbase.h's cache) */
    int tb_root;        /* a root the database covers is played from it */
    mcts_config cfg;
    int raw;            /* sims=0: the policy's argmax */
    mcts_mp_eval *ev;   /* owned */
    mcts_mp_tree *t;    /* NULL for raw */
};

void ga_tree_free(ga_tree *x)
{
    if (!x)
        return;
    mcts_mp_tree_free(x->t);
    mcts_mp_eval_free(x->ev);
    game_free(x->own);
    tb_release(x->tb);
    free(x);
}

/* tb=N: Kalah-like rules get their database from eval/tbase.h, attached to an instance of their own; a kind
 * with an endgame hook answers itself. Anything else has no database to give. */
static int attach_tablebase(ga_tree *x, const game *g, int tb, const char *name, char *err)
{
    char kerr[SZ_ERRLEN];
    if (tb_supports(g)) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int threads = cores < 1 ? 1 : cores > 16 ? 16 : (int)cores;
        if (!(x->tb = tb_acquire_game(g, tb, threads, NULL, kerr))) {
            set_err(err, "agent '%s': tb=%d: %s", name, tb, kerr);
            return -1;
        }
        if (!(x->own = game_create(game_spec(g), kerr))) {
            set_err(err, "agent '%s': %s", name, kerr);
            return -1;
        }
        game_set_endgame(x->own, tb_game_endgame(x->tb));
        x->g = x->own;
    } else if (game_endgame_seeds(g) < 1) {
        set_err(err, "agent '%s': tb=%d: %s has no endgame database", name, tb, game_spec(g));
        return -1;
    }
    int have = game_endgame_seeds(x->g);
    x->cfg.tablebase_seeds = tb < have ? tb : have;
    return 0;
}

ga_tree *ga_tree_create(const game *g, const mcts_config *cfg, int raw, mcts_mp_eval *ev, int tb, int tb_root,
                        uint64_t seed, const char *name, char *err)
{
    ga_tree *x = calloc(1, sizeof *x);
    if (!x) {
        mcts_mp_eval_free(ev);
        set_err(err, "out of memory");
        return NULL;
    }
    x->g = g;
    x->cfg = *cfg;
    x->cfg.dirichlet_eps = 0; /* an agent plays without the self-play noises */
    x->cfg.gumbel_scale = 0;
    x->cfg.forced_playouts_k = 0;
    x->raw = raw;
    x->ev = ev;
    x->tb_root = tb_root;
    if (tb > 0 && raw) {
        set_err(err, "agent '%s': tb=%d needs a search (sims >= 1; the raw policy has no leaves to value)", name, tb);
        goto fail;
    }
    if (tb > 0 && attach_tablebase(x, g, tb, name, err))
        goto fail;
    char merr[MCTS_ERRLEN];
    if (!raw && !(x->t = mcts_mp_tree_create(x->g, &x->cfg, seed, merr))) {
        set_err(err, "agent '%s': %s", name, merr);
        goto fail;
    }
    return x;
fail:
    ga_tree_free(x);
    return NULL;
}

int ga_tree_tb(const ga_tree *x, int *tb_root)
{
    *tb_root = x->tb || x->cfg.tablebase_seeds ? x->tb_root : 0;
    return x->cfg.tablebase_seeds;
}

void ga_tree_new_game(ga_tree *x, const game_pos *start, uint64_t game_seed)
{
    if (x->ev->reseed)
        x->ev->reseed(x->ev, agent_mix(game_seed, 1));
    if (x->t) {
        mcts_rng_seed(mcts_mp_tree_rng(x->t), agent_mix(game_seed, 2));
        mcts_mp_set_root(x->t, start);
    }
}

/* Equal positions: everything but the ply (a tree's root is the same position whatever the ply). */
static int same_pos(const game_pos *a, const game_pos *b)
{
    return !memcmp(a->cell, b->cell, sizeof a->cell) && a->to_move == b->to_move && a->over == b->over &&
           !memcmp(a->extra, b->extra, sizeof a->extra);
}

void ga_tree_notify(ga_tree *x, const game_pos *before, int move)
{
    if (!x->t)
        return;
    game_pos after = *before;
    if (game_apply(x->g, &after, move, NULL) != GAME_OK)
        return;
    if (same_pos(mcts_mp_root_pos(x->t), before) && !after.over && mcts_mp_advance(x->t, move) == MCTS_OK)
        return;
    mcts_mp_set_root(x->t, &after);
}

static int raw_choose(ga_tree *x, const game_pos *p, int *move_out, game_agent_stats *st, char *err)
{
    float prior[GAME_MAX_MOVES], value[GAME_MAX_PLAYERS];
    if (x->ev->evaluate(x->ev, p, 1, prior, value) != MCTS_OK) {
        set_err(err, "the net evaluation failed");
        return AGENT_EFAIL;
    }
    unsigned legal = game_legal(x->g, p);
    int best = -1, m = game_moves(x->g);
    double sum = 0;
    for (int k = 0; k < m; k++)
        if (legal >> k & 1) {
            sum += prior[k];
            if (best < 0 || prior[k] > prior[best])
                best = k;
        }
    *move_out = best;
    /* The shown policy is the one the choice used: renormalised over the legal slots. */
    for (int k = 0; k < m; k++)
        st->prior[k] = legal >> k & 1 && sum > 0 ? (float)(prior[k] / sum) : 0;
    st->have_prior = st->have_value = 1;
    st->value = value[p->to_move];
    return AGENT_OK;
}

/* A root the database covers: one of its optimal moves by exact margin, the one the policy likes best (ties:
 * the lower slot), as Leela Chess Zero restricts a tablebase root to the moves that keep its value. 1 when
 * it chose, 0 when the root is not covered. Every child of a covered root is covered or over: a sowing never
 * adds seeds to the pits. */
static int tb_root_choose(ga_tree *x, const game_pos *p, int *move_out, game_agent_stats *st)
{
    int m0, best = -1, bestm = 0, margin[GAME_MAX_MOVES];
    if (game_seeds_in_pits(x->g, p) > x->cfg.tablebase_seeds || !game_endgame(x->g, p, &m0))
        return 0;
    unsigned legal = game_legal(x->g, p);
    const int sign = p->to_move == 0 ? 1 : -1, m = game_moves(x->g);
    for (int k = 0; k < m; k++) {
        if (!(legal >> k & 1))
            continue;
        game_pos q = *p;
        if (game_apply(x->g, &q, k, NULL) != GAME_OK)
            return 0;
        if (q.over)
            m0 = game_margin(x->g, &q);
        else if (!game_endgame(x->g, &q, &m0))
            return 0;
        margin[k] = sign * m0;
        if (best < 0 || margin[k] > bestm)
            bestm = margin[k], best = k;
    }
    float prior[GAME_MAX_MOVES], value[GAME_MAX_PLAYERS];
    if (x->ev->evaluate(x->ev, p, 1, prior, value) != MCTS_OK)
        return 0;
    int mv = -1;
    for (int k = 0; k < m; k++)
        if (legal >> k & 1 && margin[k] == bestm && (mv < 0 || prior[k] > prior[mv]))
            mv = k;
    *move_out = mv;
    st->value = (float)((bestm > 0) - (bestm < 0));
    st->have_value = 1;
    return 1;
}

/* The root's statistics: visits, Q and prior per slot, the root's value for its mover, N(root). */
static void tree_stats(ga_tree *x, const game_pos *p, game_agent_stats *st)
{
    float v[GAME_MAX_PLAYERS] = {0};
    st->nodes = (uint64_t)mcts_mp_root_visits(x->t, st->visits, st->q);
    mcts2_tree *two = mcts_mp_two(x->t);
    if (two) /* Q of the root for its mover, as the search sees it (a proven root keeps its searched Q) */
        st->value = mcts2_root_value(two);
    else {
        mcts_mp_root_value(x->t, v);
        st->value = v[p->to_move];
    }
    mcts_mp_node_info root, child;
    if (mcts_mp_node_get(x->t, mcts_mp_root_index(x->t), &root) == MCTS_OK)
        for (int i = 0; i < root.n_children; i++)
            if (mcts_mp_node_get(x->t, root.first_child + i, &child) == MCTS_OK && child.move >= 0 &&
                child.move < GAME_MAX_MOVES)
                st->prior[child.move] = child.prior;
    st->have_visits = st->have_prior = st->have_value = 1;
}

int ga_tree_choose(ga_tree *x, const game_pos *p, int64_t soft_ms, const int *abort, int *move_out,
                   game_agent_stats *st, char *err)
{
    if (x->raw)
        return raw_choose(x, p, move_out, st, err);
    if (x->tb_root && x->cfg.tablebase_seeds > 0 && tb_root_choose(x, p, move_out, st))
        return AGENT_OK;
    if (!same_pos(mcts_mp_root_pos(x->t), p))
        mcts_mp_set_root(x->t, p);
    char merr[MCTS_ERRLEN];
    int rc = mcts_mp_run(x->t, x->ev, x->cfg.leaves_per_game, soft_ms, abort, merr);
    if (rc == MCTS_ESTOPPED)
        return AGENT_ESTOPPED;
    if (rc != MCTS_OK) {
        set_err(err, "%s", merr);
        mcts_mp_set_root(x->t, p); /* the failed call's leaves were completed neutrally: search afresh next time */
        return rc == MCTS_ENOMEM ? AGENT_ENOMEM : AGENT_EFAIL;
    }
    int mv = mcts_mp_choose(x->t, 0);
    if (mv < 0) {
        set_err(err, "the search visited no move");
        return AGENT_EFAIL;
    }
    *move_out = mv;
    tree_stats(x, p, st);
    return AGENT_OK;
}
