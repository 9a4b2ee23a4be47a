/* selfplay.c — the self-play configuration's defaults and checks (selfplay.h). */
#include "selfplay/selfplay.h"

#include <stdio.h>

selfplay_config selfplay_config_default(void)
{
    selfplay_config c = {.threads = 1, .games_per_thread = 64, .games = 256, .max_moves = 1000, .pi_visits = 0,
                         .pi_temperature = 1.0,
                         .full_sims_prob = 1.0, .fast_sims = 0,
                         .rescore = 0, .rescore_policy = 0, .opening_plies = 0,
                         .opening_sims = 0, .opening_seeds = 33, .surprise_weight = 0, .q_ratio = 0};
    return c;
}

#define BAD(...) (err ? snprintf(err, MCTS_ERRLEN, __VA_ARGS__) : 0, MCTS_EINVAL)

int selfplay_config_check(const selfplay_config *c, char *err)
{
    if (!c)
        return BAD("selfplay config is NULL");
    if (c->threads < 1 || c->threads > 256)
        return BAD("selfplay.threads must be in 1..256, got %d", c->threads);
    if (c->games_per_thread < 1 || c->games_per_thread > 4096)
        return BAD("selfplay.games_per_thread must be in 1..4096, got %d", c->games_per_thread);
    if (c->games < 1)
        return BAD("selfplay.games must be >= 1, got %d", c->games);
    if (c->max_moves < 1)
        return BAD("selfplay.max_moves must be >= 1, got %d", c->max_moves);
    if (c->pi_visits != 0 && c->pi_visits != 1)
        return BAD("selfplay.pi_visits must be 0 or 1, got %d", c->pi_visits);
    if (!(c->pi_temperature > 0 && c->pi_temperature <= 100))
        return BAD("selfplay.pi_temperature must be in (0, 100], got %g", c->pi_temperature);
    if (!(c->full_sims_prob >= 0 && c->full_sims_prob <= 1))
        return BAD("selfplay.full_sims_prob must be in [0, 1], got %g", c->full_sims_prob);
    if (c->fast_sims < 0 || c->fast_sims > 100000000 || (c->full_sims_prob < 1 && c->fast_sims < 1))
        return BAD("selfplay.fast_sims must be in 1..100000000 when selfplay.full_sims_prob < 1, got %d",
                   c->fast_sims);
    if (c->rescore != 0 && c->rescore != 1)
        return BAD("selfplay.rescore must be 0 or 1, got %d", c->rescore);
    if (c->rescore_policy != 0 && c->rescore_policy != 1)
        return BAD("selfplay.rescore_policy must be 0 or 1, got %d", c->rescore_policy);
    if (c->rescore_policy && !c->rescore)
        return BAD("selfplay.rescore_policy needs selfplay.rescore");
    if (c->opening_plies < 0 || c->opening_plies > 100)
        return BAD("selfplay.opening_plies must be in 0..100, got %d", c->opening_plies);
    if (c->opening_sims < 0 || c->opening_sims > 100000000)
        return BAD("selfplay.opening_sims must be in 0..100000000, got %d", c->opening_sims);
    if (c->opening_seeds < 1 || c->opening_seeds > 255)
        return BAD("selfplay.opening_seeds must be in 1..255, got %d", c->opening_seeds);
    if (!(c->surprise_weight >= 0 && c->surprise_weight <= 1))
        return BAD("selfplay.surprise_weight must be in [0, 1], got %g", c->surprise_weight);
    if (!(c->q_ratio >= 0 && c->q_ratio <= 1))
        return BAD("selfplay.q_ratio must be in [0, 1], got %g", c->q_ratio);
    return MCTS_OK;
}
