/* train_gate.c — SPRT gating of the self-play net (train.h "Gating", train_internal.h train_gate). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "eval/game_match.h"
#include "eval/sprt.h"
#include "train/rundir.h"
#include "train/train_internal.h"

int train_gate(trainer *t, int *accepted, char *err)
{
    const cfg_config *c = t->cfg;
    const cfg_eval *e = &c->eval;
    char cand_path[TRAIN_PATH_LEN + 32], ref_path[TRAIN_PATH_LEN + 32], nerr[NN_ERRLEN];
    train_join(cand_path, sizeof cand_path, t->dir, "latest.h5");
    train_join(ref_path, sizeof ref_path, t->dir, "selfplay.h5");
    if (accepted)
        *accepted = 0;
    nn_search search;
    train_search_record(c, &search);
    if (nn_export_save_search(ref_path, t->sp_net, t->rules_spec, t->encoding, &search, nerr) != NN_OK) {
        train_err(err, "cannot write selfplay.h5: %s", nerr);
        return TRAIN_EIO;
    }
    double lower, upper;
    sprt_bounds(e->gate_alpha, e->gate_beta, &lower, &upper);
    int pairs[5] = {0}, games = 0, decision = SPRT_CONTINUE, w = 0, d = 0, l = 0;
    double llr = 0;
    char gerr[GAME_ERRLEN];
    game *gm = game_create(t->rules_spec, gerr);
    if (!gm) {
        train_err(err, "gate: %s", gerr);
        return TRAIN_EINVAL;
    }
    /* the candidate (the trained net) against the self-play net, both in memory */
    game_agent_az cand, ref;
    train_eval_agent(c, gm, t->net, cand_path, 0, &cand);
    train_eval_agent(c, gm, t->sp_net, ref_path, 0, &ref);
    const game_agent_az *az[2] = {&cand, &ref};
    const char *specs[2] = {cand_path, ref_path};
    game_match_config mc = game_match_config_default();
    mc.az = az;
    mc.opening_plies = e->opening_plies;
    mc.threads = e->threads;
    uint64_t seed = train_seed(c->run.seed, 5, (uint64_t)t->iteration);
    for (uint64_t batch = 0; games < e->gate_games && decision == SPRT_CONTINUE; batch++) {
        mc.games = 2 * e->threads < e->gate_games - games ? 2 * e->threads : e->gate_games - games;
        mc.seed = train_seed(seed, 6, batch);
        game_match_result res;
        char merr[MATCH_ERRLEN];
        int rc = game_match_run(specs, 2, gm, &mc, &res, merr);
        if (rc != MATCH_OK) {
            game_match_result_free(&res);
            game_free(gm);
            train_err(err, "gate after iteration %" PRId64 ": %s", t->iteration, merr);
            return rc == MATCH_ENOMEM ? TRAIN_ENOMEM : TRAIN_EFAIL;
        }
        for (int i = 0; i < res.games / 2; i++) {
            /* the candidate's points in halves, one per colour of the pair (game_match.h: game 2i has it as
             * South, 2i+1 as North), from the places (a draw is a shared place) */
            int pts[2];
            for (int j = 0; j < 2; j++) {
                const game_match_game *gg = &res.game[2 * i + j];
                int seat = gg->agent[0] == 0 ? 0 : 1, pc = gg->place[seat], po = gg->place[1 - seat];
                pts[j] = pc < po ? 2 : pc == po;
            }
            pairs[pts[0] + pts[1]]++;
        }
        w += res.two.all.wins;
        d += res.two.all.draws;
        l += res.two.all.losses;
        games += res.games;
        game_match_result_free(&res);
        llr = sprt_llr_pentanomial(pairs, e->gate_elo0, e->gate_elo1);
        decision = sprt_decide(llr, lower, upper);
    }
    game_free(gm);
    t->gate_counts[0]++;
    const char *verdict = decision == SPRT_H1 ? "accepted H1: the trained net is the new self-play net"
                          : decision == SPRT_H0 ? "accepted H0: the self-play net stays"
                                                : "no decision within eval.gate_games: the self-play net stays";
    train_msg(t, TRAIN_MSG_INFO, "gate after iteration %" PRId64 ": %d games, W-D-L %d-%d-%d, pairs %d/%d/%d/%d/%d, "
              "LLR %.2f in [%.2f, %.2f] (elo %g..%g): %s", t->iteration, games, w, d, l, pairs[0], pairs[1],
              pairs[2], pairs[3], pairs[4], llr, lower, upper, e->gate_elo0, e->gate_elo1, verdict);
    if (decision != SPRT_H1)
        return TRAIN_OK;
    if (nn_net_copy_params(t->sp_net, t->net) != NN_OK) {
        train_err(err, "gate: cannot copy the net");
        return TRAIN_EFAIL;
    }
    t->gate_counts[1]++;
    if (nn_export_save_search(ref_path, t->sp_net, t->rules_spec, t->encoding, &search, nerr) != NN_OK) {
        train_err(err, "cannot write selfplay.h5: %s", nerr);
        return TRAIN_EIO;
    }
    if (accepted)
        *accepted = 1;
    return TRAIN_OK;
}
