/* train_eval.c — evaluation matches of the trained net (latest.h5) against the configured opponents. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <math.h>

#include "eval/accuracy.h"
#include "eval/game_match.h"
#include "train/rundir.h"
#include "train/train_internal.h"

int train_agent_spec(const cfg_config *cfg, const char *path, char *buf, size_t n)
{
    if (strchr(path, ','))
        return -1;
    int w = snprintf(buf, n, "az:net=%s,sims=%d,c_puct=%.17g,fpu=%.17g,batch=%d", path, cfg->eval.sims,
                     cfg->mcts.c_puct, cfg->mcts.fpu_reduction, cfg->eval.batch);
    /* the search levers (docs/levers.md) the evaluation shares with self-play (none at their defaults) */
    if (w >= 0 && (size_t)w < n && cfg->mcts.root == MCTS_ROOT_GUMBEL)
        w += snprintf(buf + w, n - (size_t)w, ",root=gumbel,gumbel_k=%d,gumbel_c_visit=%.17g,gumbel_c_scale=%.17g",
                      cfg->mcts.gumbel_k, cfg->mcts.gumbel_c_visit, cfg->mcts.gumbel_c_scale);
    if (w >= 0 && (size_t)w < n && cfg->mcts.margin_utility > 0)
        w += snprintf(buf + w, n - (size_t)w, ",margin=%.17g", cfg->mcts.margin_utility);
    if (w >= 0 && (size_t)w < n && cfg->eval.tablebase_seeds > 0 && cfg->eval.sims > 0) /* never the raw policy */
        w += snprintf(buf + w, n - (size_t)w, ",tb=%d", cfg->eval.tablebase_seeds);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

void train_search_record(const cfg_config *cfg, nn_search *out)
{
    memset(out, 0, sizeof *out);
    out->sims = cfg->eval.sims;
    out->batch = cfg->eval.batch;
    out->c_puct = cfg->mcts.c_puct;
    out->fpu_reduction = cfg->mcts.fpu_reduction;
    out->margin_utility = cfg->mcts.margin_utility;
    out->solver = cfg->mcts.solver;
    snprintf(out->root, sizeof out->root, "%s", cfg->mcts.root == MCTS_ROOT_GUMBEL ? "gumbel" : "puct");
    out->gumbel_k = cfg->mcts.gumbel_k;
    out->gumbel_c_visit = cfg->mcts.gumbel_c_visit;
    out->gumbel_c_scale = cfg->mcts.gumbel_c_scale;
}

/* The trained agent (spec 0) against a field of each opponent (game_match.h, k = 2 plan; with two players,
 * colour-swapped pairs). */
static int evaluate_game(trainer *t, const char *spec, int games, train_eval_result *res, double *mean,
                         char *err)
{
    const cfg_config *c = t->cfg;
    char gerr[GAME_ERRLEN];
    game *gm = game_create(t->rules_spec, gerr);
    if (!gm) {
        train_err(err, "evaluation: %s", gerr);
        return TRAIN_EINVAL;
    }
    game_match_config mc = game_match_config_default();
    mc.games = games;
    mc.opening_plies = c->eval.opening_plies;
    mc.threads = c->eval.threads;
    /* The same openings at every evaluation: scores of successive nets differ by the nets only. */
    mc.seed = train_seed(c->run.seed, 4, 0);
    mc.event = "sowzero train evaluation";
    const int np = game_players(gm);
    double sum = 0;
    for (int k = 0; k < c->eval.n_opponents; k++) {
        game_match_result mr;
        char merr[MATCH_ERRLEN];
        memset(&mr, 0, sizeof mr);
        const char *specs[2] = {spec, c->eval.opponents[k]};
        int rc = game_match_run(specs, 2, gm, &mc, &mr, merr);
        if (rc != MATCH_OK) {
            game_match_result_free(&mr);
            game_free(gm);
            train_err(err, "evaluation against %s failed: %s", c->eval.opponents[k], merr);
            return rc == MATCH_ENOMEM ? TRAIN_ENOMEM : TRAIN_EFAIL;
        }
        train_eval_result *r = &res[k];
        memset(r, 0, sizeof *r);
        snprintf(r->opponent, sizeof r->opponent, "%s", c->eval.opponents[k]);
        const game_match_agent_stats *a = &mr.agent[0];
        r->games = a->games;
        r->wins = a->firsts;
        if (mr.duel) { /* two players: wins, draws and losses as Kalah's evaluation counts them */
            r->wins = mr.two.all.wins;
            r->draws = mr.two.all.draws;
            r->losses = mr.two.all.losses;
            for (int s = 0; s < 2; s++) {
                r->seat_wins[s] = mr.two.seat[s].wins;
                r->seat_draws[s] = mr.two.seat[s].draws;
                r->seat_losses[s] = mr.two.seat[s].losses;
            }
        }
        r->score = a->mean_score;
        r->mean_place = a->mean_place;
        /* the spread of the trained agent's rank scores, game by game, for the interval */
        double ss = 0, seat_sum[2] = {0};
        for (int g = 0; g < mr.games; g++) {
            for (int s = 0; s < np; s++) {
                if (mr.game[g].agent[s] != 0)
                    continue;
                double x = (mr.game[g].value[s] + 1.0) / 2.0; /* the mean_score of game_match.h */
                ss += (x - r->score) * (x - r->score);
                seat_sum[s > 0] += x;
                r->seat_games[s > 0]++;
            }
        }
        if (mr.duel) { /* two players: the match's Wilson interval (game_match.h) */
            r->score_lo = mr.two.score_lo;
            r->score_hi = mr.two.score_hi;
        } else {
            double half = r->games > 1 ? 1.96 * sqrt(ss / (r->games - 1) / r->games) : 1.0;
            r->score_lo = fmax(0.0, r->score - half);
            r->score_hi = fmin(1.0, r->score + half);
        }
        for (int s = 0; s < 2; s++)
            r->seat_score[s] = r->seat_games[s] ? seat_sum[s] / r->seat_games[s] : 0.0;
        sum += r->score;
        game_match_result_free(&mr);
    }
    game_free(gm);
    *mean = c->eval.n_opponents ? sum / c->eval.n_opponents : 0;
    return TRAIN_OK;
}

int train_evaluate(trainer *t, int games, train_eval_result *res, double *mean, char *err)
{
    const cfg_config *c = t->cfg;
    char latest[TRAIN_PATH_LEN + 16], spec[AGENT_SPEC_MAX];
    train_join(latest, sizeof latest, t->dir, "latest.h5");
    if (train_agent_spec(c, latest, spec, sizeof spec) != 0) {
        train_err(err, "the run directory '%s' cannot be named in an agent spec (no ',' allowed)",
                 t->dir);
        return TRAIN_EINVAL;
    }
    return evaluate_game(t, spec, games, res, mean, err);
}

int train_accuracy(trainer *t, train_row *row, char *err)
{
    const cfg_config *c = t->cfg;
    char latest[TRAIN_PATH_LEN + 16], spec[AGENT_SPEC_MAX], aerr[ACCURACY_ERRLEN];
    train_join(latest, sizeof latest, t->dir, "latest.h5");
    accuracy_config ac = {.threads = c->eval.threads, .seed = train_seed(c->run.seed, 4, 1)};
    cfg_config raw = *c;
    raw.eval.sims = 0;
    const cfg_config *which[2] = {&raw, c};
    double rate[2], regret[2];
    for (int i = 0; i < 2; i++) {
        if (i == 1 && c->eval.sims == 0) { /* the search is the raw policy */
            rate[1] = rate[0];
            regret[1] = regret[0];
            break;
        }
        if (train_agent_spec(which[i], latest, spec, sizeof spec) != 0) {
            train_err(err, "the run directory '%s' cannot be named in an agent spec (no ',' allowed)", t->dir);
            return TRAIN_EINVAL;
        }
        accuracy_result res;
        int rc = t->positions.kalah ? accuracy_run(t->positions.kalah, spec, &ac, &res, aerr)
                                    : accuracy_run_game(t->positions.set, spec, &ac, &res, aerr);
        if (rc != ACCURACY_OK) {
            train_err(err, "accuracy on %s failed: %s", c->eval.positions, aerr);
            return rc == ACCURACY_ENOMEM ? TRAIN_ENOMEM : TRAIN_EFAIL;
        }
        rate[i] = res.all.optimal_rate;
        regret[i] = res.all.mean_regret;
        accuracy_result_free(&res);
    }
    row->have_accuracy = 1;
    row->accuracy_raw = rate[0];
    row->regret_raw = regret[0];
    row->accuracy_search = rate[1];
    row->regret_search = regret[1];
    return TRAIN_OK;
}

double train_best_measure(const trainer *t, const train_row *row, double mean_score)
{
    if (train_has_positions(t) && row->have_accuracy)
        return row->accuracy_search - 1e-8 * row->regret_search;
    return mean_score;
}
