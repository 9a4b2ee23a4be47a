/* mcts_config.c — the search settings (mcts_config_default, mcts_config_check) and the temperature rule
 * (mcts_visit_weights, mcts_visit_draw) that every PUCT tree shares (mcts.h). */
#include "selfplay/mcts_impl.h"
#include "nn/search_ranges.h"

#include <math.h>
#include <stdio.h>

mcts_config mcts_config_default(void)
{
    mcts_config c = {.sims = 200,
                     .c_puct = 1.5,
                     .fpu_reduction = 0.25,
                     .dirichlet_alpha = 1.0,
                     .dirichlet_eps = 0.25,
                     .temp_moves = 10,
                     .temperature = 1.0,
                     .leaves_per_game = 1,
                     .solver = 1,
                     .reuse_tree = 1,
                     .root = MCTS_ROOT_PUCT,
                     .gumbel_k = 16,
                     .gumbel_c_visit = 50.0,
                     .gumbel_c_scale = 1.0,
                     .gumbel_scale = 1.0,
                     .forced_playouts_k = 0.0,
                     .margin_utility = 0.0};
    return c;
}

#define BAD(...) (err ? snprintf(err, MCTS_ERRLEN, __VA_ARGS__) : 0, MCTS_EINVAL)

int mcts_config_check(const mcts_config *c, char *err)
{
    if (!c)
        return BAD("mcts config is NULL");
    if (c->sims < 1 || c->sims > SEARCH_SIMS_MAX)
        return BAD("mcts.sims must be in 1..%d, got %d", SEARCH_SIMS_MAX, c->sims);
    if (!(c->c_puct >= SEARCH_C_PUCT_MIN && c->c_puct <= SEARCH_C_PUCT_MAX))
        return BAD("mcts.c_puct must be in [%g, %g], got %g", SEARCH_C_PUCT_MIN, SEARCH_C_PUCT_MAX, c->c_puct);
    if (!(c->fpu_reduction >= 0 && c->fpu_reduction <= SEARCH_FPU_MAX))
        return BAD("mcts.fpu_reduction must be in [0, %g], got %g", SEARCH_FPU_MAX, c->fpu_reduction);
    if (!(c->dirichlet_alpha > 0 && c->dirichlet_alpha <= 1e6))
        return BAD("mcts.dirichlet_alpha must be > 0, got %g", c->dirichlet_alpha);
    if (!(c->dirichlet_eps >= 0 && c->dirichlet_eps <= 1))
        return BAD("mcts.dirichlet_eps must be in [0, 1], got %g", c->dirichlet_eps);
    if (c->temp_moves < 0)
        return BAD("mcts.temp_moves must be >= 0, got %d", c->temp_moves);
    if (!(c->temperature > 0 && c->temperature <= 1e6))
        return BAD("mcts.temperature must be > 0, got %g", c->temperature);
    if (c->leaves_per_game < 1 || c->leaves_per_game > MAX_PENDING)
        return BAD("mcts.leaves_per_game must be in 1..%d, got %d", MAX_PENDING, c->leaves_per_game);
    if (c->solver != 0 && c->solver != 1)
        return BAD("mcts.solver must be 0 or 1, got %d", c->solver);
    if (c->reuse_tree != 0 && c->reuse_tree != 1)
        return BAD("mcts.reuse_tree must be 0 or 1, got %d", c->reuse_tree);
    if (c->root != MCTS_ROOT_PUCT && c->root != MCTS_ROOT_GUMBEL)
        return BAD("mcts.root must be puct or gumbel, got %d", c->root);
    if (c->gumbel_k < 1 || c->gumbel_k > SEARCH_GUMBEL_K_MAX)
        return BAD("mcts.gumbel_k must be in 1..%d, got %d", SEARCH_GUMBEL_K_MAX, c->gumbel_k);
    if (!(c->gumbel_c_visit >= 0 && c->gumbel_c_visit <= SEARCH_GUMBEL_C_VISIT_MAX))
        return BAD("mcts.gumbel_c_visit must be in [0, %g], got %g", SEARCH_GUMBEL_C_VISIT_MAX, c->gumbel_c_visit);
    if (!(c->gumbel_c_scale >= SEARCH_GUMBEL_C_SCALE_MIN && c->gumbel_c_scale <= SEARCH_GUMBEL_C_SCALE_MAX))
        return BAD("mcts.gumbel_c_scale must be in [%g, %g], got %g", SEARCH_GUMBEL_C_SCALE_MIN,
                   SEARCH_GUMBEL_C_SCALE_MAX, c->gumbel_c_scale);
    if (!(c->gumbel_scale >= 0 && c->gumbel_scale <= 1e6))
        return BAD("mcts.gumbel_scale must be >= 0, got %g", c->gumbel_scale);
    if (!(c->forced_playouts_k >= 0 && c->forced_playouts_k <= 1e6))
        return BAD("mcts.forced_playouts_k must be >= 0, got %g", c->forced_playouts_k);
    if (c->forced_playouts_k > 0 && c->root == MCTS_ROOT_GUMBEL)
        return BAD("mcts.forced_playouts_k must be 0 with mcts.root = gumbel (the halving decides the root's visits)");
    if (!(c->margin_utility >= 0 && c->margin_utility <= SEARCH_MARGIN_MAX))
        return BAD("mcts.margin_utility must be in [0, %g], got %g", SEARCH_MARGIN_MAX, c->margin_utility);
    if (c->tablebase_seeds < 0 || c->tablebase_seeds > 127)
        return BAD("mcts.tablebase_seeds must be in 0..127, got %d", c->tablebase_seeds);
    return MCTS_OK;
}


double mcts_visit_weights(const int *n, const uint8_t *skip, int count, double tau, double *wt)
{
    double wsum = 0;
    for (int i = 0; i < count; i++) {
        wt[i] = (skip && skip[i]) || n[i] == 0 || tau <= 0 ? 0.0 : pow((double)n[i], 1.0 / tau);
        wsum += wt[i];
    }
    return wsum;
}

int mcts_visit_draw(mcts_rng *rng, const double *wt, int count, double wsum)
{
    double u = mcts_rng_uniform(rng) * wsum;
    for (int i = 0; i < count; i++) {
        if (wt[i] <= 0)
            continue;
        if (u < wt[i])
            return i;
        u -= wt[i];
    }
    return -1;
}
