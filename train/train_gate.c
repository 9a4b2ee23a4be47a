/* train_gate.c — SPRT gating of the self-play net (train.h "Gating", train_internal.h train_gate). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "eval/match.h"
#include "eval/sprt.h"
#include "train/rundir.h"
#include "train/train_internal.h"

int train_gate(trainer *t, int *accepted, char *err)
{
    const cfg_config *c = t->cfg;
    const cfg_eval *e = &c->eval;
    char cand_path[TRAIN_PATH_LEN + 32], ref_path[TRAIN_PATH_LEN + 32], nerr[NN_ERRLEN];
    char cand[CFG_PATH_LEN + 160], ref[CFG_PATH_LEN + 160];
    train_join(cand_path, sizeof cand_path, t->dir, "latest.h5");
    train_join(ref_path, sizeof ref_path, t->dir, "selfplay.h5");
    if (accepted)
        *accepted = 0;
    if (nn_export_save(ref_path, t->sp_net, t->rules_spec, t->encoding, nerr) != NN_OK) {
        train_err(err, "cannot write selfplay.h5: %s", nerr);
        return TRAIN_EIO;
    }
    if (train_agent_spec(c, cand_path, cand, sizeof cand) || train_agent_spec(c, ref_path, ref, sizeof ref)) {
        train_err(err, "gate: the run directory's path does not fit in an agent spec");
        return TRAIN_EINVAL;
    }
    double lower, upper;
    sprt_bounds(e->gate_alpha, e->gate_beta, &lower, &upper);
    int pairs[5] = {0}, games = 0, decision = SPRT_CONTINUE, w = 0, d = 0, l = 0;
    double llr = 0;
    match_config mc = match_config_default();
    mc.opening_plies = e->opening_plies;
    mc.threads = e->threads;
    uint64_t seed = train_seed(c->run.seed, 5, (uint64_t)t->iteration);
    for (uint64_t batch = 0; games < e->gate_games && decision == SPRT_CONTINUE; batch++) {
        mc.games = 2 * e->threads < e->gate_games - games ? 2 * e->threads : e->gate_games - games;
        mc.seed = train_seed(seed, 6, batch);
        match_result res;
        char merr[MATCH_ERRLEN];
        int rc = match_run(cand, ref, &c->rules, &mc, &res, merr);
        if (rc != MATCH_OK) {
            train_err(err, "gate after iteration %" PRId64 ": %s", t->iteration, merr);
            return rc == MATCH_ENOMEM ? TRAIN_ENOMEM : TRAIN_EFAIL;
        }
        for (int i = 0; i < res.games / 2; i++) {
            /* the candidate's points in halves: game 2i it is South, game 2i+1 North */
            int south = res.margin[2 * i], north = -res.margin[2 * i + 1];
            pairs[(south > 0 ? 2 : south == 0) + (north > 0 ? 2 : north == 0)]++;
        }
        w += res.all.wins;
        d += res.all.draws;
        l += res.all.losses;
        games += res.games;
        match_result_free(&res);
        llr = sprt_llr_pentanomial(pairs, e->gate_elo0, e->gate_elo1);
        decision = sprt_decide(llr, lower, upper);
    }
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
    if (nn_export_save(ref_path, t->sp_net, t->rules_spec, t->encoding, nerr) != NN_OK) {
        train_err(err, "cannot write selfplay.h5: %s", nerr);
        return TRAIN_EIO;
    }
    if (accepted)
        *accepted = 1;
    return TRAIN_OK;
}
