/* mcts_search.c — the single-position search used by agents (mcts.h, mcts_search). */
#include "selfplay/mcts.h"

#include <stdio.h>
#include <string.h>

#include "selfplay/batcher.h"

int mcts_search(const kalah_rules *r, const kalah_pos *p, const mcts_config *cfg, mcts_eval *ev,
                uint64_t seed, mcts_result *out, char *err)
{
    if (!r || !p || !cfg || !ev || !out) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts_search: NULL argument");
        return MCTS_EINVAL;
    }
    int rc = mcts_config_check(cfg, err);
    if (rc != MCTS_OK)
        return rc;
    if (ev->max_batch < cfg->leaves_per_game || ev->rules.pits != r->pits) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts_search: evaluator batch %d < mcts.leaves_per_game %d or pits differ",
                     ev->max_batch, cfg->leaves_per_game);
        return MCTS_EINVAL;
    }
    if (p->over || kalah_legal(r, p) == 0) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts_search: the game is over");
        return MCTS_EOVER;
    }
    mcts_config c = *cfg;
    c.dirichlet_eps = 0.0;
    c.gumbel_scale = 0.0;      /* the self-play noises and the training-only lever are off */
    c.forced_playouts_k = 0.0;
    mcts_tree *t = mcts_tree_create(r, &c, seed, err);
    mcts_batcher *b = mcts_batcher_create(r, cfg->leaves_per_game);
    if (!t || !b) {
        mcts_tree_free(t);
        mcts_batcher_free(b);
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts_search: out of memory");
        return MCTS_ENOMEM;
    }
    if (ev->reseed)
        ev->reseed(ev, seed);
    mcts_set_root(t, p);
    uint64_t evals0 = ev->positions;
    while (!mcts_done(t) && rc == MCTS_OK) {
        rc = mcts_batcher_gather(b, t);
        if (rc >= 0)
            rc = mcts_batcher_flush(b, ev);
    }
    if (rc != MCTS_OK) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts_search: %s", rc == MCTS_ENOMEM ? "out of memory" : "evaluator failed");
        mcts_tree_free(t);
        mcts_batcher_free(b);
        return rc;
    }
    memset(out, 0, sizeof *out);
    out->root_visits = mcts_root_visits(t, out->visits, out->q);
    mcts_policy(t, 1.0, out->pi);
    out->move = mcts_choose(t, 0.0);
    out->value = mcts_root_value(t);
    out->root_proven = mcts_root_proven(t);
    out->root_scored = mcts_root_scored(t);
    out->evals = ev->positions - evals0;
    for (int k = 0; k < KALAH_MAX_PITS; k++)
        out->proven[k] = MCTS_UNPROVEN;
    int root = mcts_root_index(t);
    mcts_node_info ni;
    for (int k = 0; k < r->pits; k++) {
        int c = mcts_node_child(t, root, k);
        if (c >= 0 && mcts_node_get(t, c, &ni) == MCTS_OK) {
            out->prior[k] = ni.prior;
            out->proven[k] = ni.proven;
        }
    }
    mcts_tree_free(t);
    mcts_batcher_free(b);
    return MCTS_OK;
}
