/* levers.c — the self-play levers both drivers share (levers.h). */
#include "selfplay/levers.h"

#include <math.h>

void sp_random_opening(const game *g, int plies, mcts_rng *rng, game_pos *out)
{
    for (;;) {
        game_start(g, out);
        int k = (int)(mcts_rng_uniform(rng) * (plies + 1));
        k = k > plies ? plies : k; /* the clamps guard a product that rounds up to the bound */
        for (int i = 0; i < k && !out->over; i++) {
            unsigned legal = game_legal(g, out);
            int n = __builtin_popcount(legal), pick = (int)(mcts_rng_uniform(rng) * n);
            pick = pick >= n ? n - 1 : pick;
            while (pick--)
                legal &= legal - 1; /* drop the lowest set bits until the chosen move is the lowest */
            game_apply(g, out, __builtin_ctz(legal), NULL);
        }
        if (!out->over)
            return;
    }
}

int sp_search_configs(const selfplay_config *sc, const mcts_config *mc, mcts_config *fast, mcts_config *opening,
                      char *err)
{
    *fast = *mc;
    fast->sims = sc->fast_sims > 0 ? sc->fast_sims : 1;
    fast->dirichlet_eps = 0;
    fast->forced_playouts_k = 0;
    *opening = *mc;
    opening->sims = sc->opening_sims > 0 ? sc->opening_sims : mc->sims;
    int rc = mcts_config_check(fast, err);
    return rc != MCTS_OK ? rc : mcts_config_check(opening, err);
}

int sp_decision_search(const selfplay_config *sc, mcts_rng *rng, int seeds_in_pits)
{
    if (sc->full_sims_prob < 1 && !(mcts_rng_uniform(rng) < sc->full_sims_prob))
        return SP_SEARCH_FAST;
    return sc->opening_sims > 0 && seeds_in_pits >= sc->opening_seeds ? SP_SEARCH_OPENING : SP_SEARCH_FULL;
}

float sp_policy_surprise(const float *prior, const float *pi, int m)
{
    double kl = 0;
    for (int k = 0; k < m; k++)
        if (pi[k] > 0)
            kl += pi[k] * log(pi[k] / fmax(prior[k], 1e-6));
    return kl > 0 ? (float)kl : 0.0f; /* rounding can leave an exact match a hair below 0 */
}

void sp_legal_prior(const float *raw, unsigned legal, int m, float *out)
{
    double sum = 0;
    int nc = 0;
    for (int k = 0; k < m; k++)
        if (legal >> k & 1u) {
            nc++;
            if (raw[k] > 0)
                sum += raw[k];
            else if (raw[k] != raw[k])
                sum = NAN;
        }
    const int uniform = !(sum > 0) || !isfinite(sum);
    for (int k = 0; k < m; k++)
        out[k] = !(legal >> k & 1u) ? 0.0f
                 : uniform           ? 1.0f / (float)nc
                 : raw[k] > 0        ? (float)(raw[k] / sum)
                                     : 0.0f;
}

double sp_surprise_sum(const float *surprise, int n, int *policy_samples)
{
    double sum = 0;
    *policy_samples = 0;
    for (int t = 0; t < n; t++)
        if (surprise[t] >= 0)
            sum += surprise[t], ++*policy_samples;
    return sum;
}

int sp_surprise_copies(float kl, double s, double sum, int policy_samples, mcts_rng *rng)
{
    double wt = kl < 0 || !(sum > 0) ? 1.0 : (1.0 - s) + s * policy_samples * kl / sum;
    int c = (int)floor(wt);
    return c + (mcts_rng_uniform(rng) < wt - c);
}
