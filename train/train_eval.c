/* train_eval.c — evaluation of the trained net: matches against the configured opponents and the accuracy on
 * [eval] positions, played by agents built from the run's settings and the net in memory. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <math.h>

#include "eval/accuracy.h"
#include "eval/game_match.h"
#include "eval/gposset.h"
#include "train/rundir.h"
#include "train/train_internal.h"

void train_eval_agent(const cfg_config *cfg, const game *g, const nn_net *net, const char *name, int raw,
                      game_agent_az *out)
{
    memset(out, 0, sizeof *out);
    out->net = net;
    out->name = name;
    agent_search_info *s = &out->search;
    s->sims = raw ? 0 : cfg->eval.sims;
    s->batch = cfg->eval.batch;
    s->c_puct = cfg->mcts.c_puct;
    s->fpu_reduction = cfg->mcts.fpu_reduction;
    s->gumbel = cfg->mcts.root == MCTS_ROOT_GUMBEL;
    s->gumbel_k = cfg->mcts.gumbel_k;
    s->gumbel_c_visit = cfg->mcts.gumbel_c_visit;
    s->gumbel_c_scale = cfg->mcts.gumbel_c_scale;
    if (game_players(g) == 2 && game_has_margin(g)) { /* the margin's levers: where the game has one */
        s->margin_utility = cfg->mcts.margin_utility;
        s->solver = cfg->mcts.solver;
    }
    if (cfg->eval.tablebase_seeds > 0 && s->sims > 0) { /* never the raw policy */
        s->tb = cfg->eval.tablebase_seeds;
        s->tbroot = 1;
    }
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
static int evaluate_game(trainer *t, game *gm, const game_agent_az *trained, int games, train_eval_result *res,
                         double *mean, char *err)
{
    const cfg_config *c = t->cfg;
    game_match_config mc = game_match_config_default();
    mc.games = games;
    mc.opening_plies = c->eval.opening_plies;
    mc.threads = c->eval.threads;
    /* The same openings at every evaluation: scores of successive nets differ by the nets only. */
    mc.seed = train_seed(c->run.seed, 4, 0);
    mc.event = "sowzero train evaluation";
    const game_agent_az *az[2] = {trained, NULL};
    mc.az = az;
    const int np = game_players(gm);
    double sum = 0;
    for (int k = 0; k < c->eval.n_opponents; k++) {
        game_match_result mr;
        char merr[MATCH_ERRLEN];
        memset(&mr, 0, sizeof mr);
        const char *specs[2] = {trained->name, c->eval.opponents[k]};
        int rc = game_match_run(specs, 2, gm, &mc, &mr, merr);
        if (rc != MATCH_OK) {
            game_match_result_free(&mr);
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
    *mean = c->eval.n_opponents ? sum / c->eval.n_opponents : 0;
    return TRAIN_OK;
}

int train_evaluate(trainer *t, int games, train_eval_result *res, double *mean, char *err)
{
    char latest[TRAIN_PATH_LEN + 16], gerr[GAME_ERRLEN];
    train_join(latest, sizeof latest, t->dir, "latest.h5");
    game *gm = game_create(t->rules_spec, gerr);
    if (!gm) {
        train_err(err, "evaluation: %s", gerr);
        return TRAIN_EINVAL;
    }
    game_agent_az trained;
    train_eval_agent(t->cfg, gm, t->net, latest, 0, &trained);
    int rc = evaluate_game(t, gm, &trained, games, res, mean, err);
    game_free(gm);
    return rc;
}

int train_accuracy(trainer *t, train_row *row, char *err)
{
    const cfg_config *c = t->cfg;
    char latest[TRAIN_PATH_LEN + 16], aerr[ACCURACY_ERRLEN];
    train_join(latest, sizeof latest, t->dir, "latest.h5");
    accuracy_config ac = {.threads = c->eval.threads, .seed = train_seed(c->run.seed, 4, 1)};
    double rate[2], regret[2];
    for (int i = 0; i < 2; i++) { /* the raw policy, then the search */
        if (i == 1 && c->eval.sims == 0) { /* the search is the raw policy */
            rate[1] = rate[0];
            regret[1] = regret[0];
            break;
        }
        game_agent_az az;
        train_eval_agent(c, gps_game(t->positions.set), t->net, latest, i == 0, &az);
        ac.az = &az;
        accuracy_result res;
        int rc = accuracy_run(t->positions.set, latest, &ac, &res, aerr);
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
