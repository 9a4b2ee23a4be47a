/* train_selfplay.c — one round of local self-play for the trainer and the MPI workers (train_internal.h). */
#include <stdio.h>

#include "selfplay/game_selfplay.h"
#include "selfplay/selfplay.h"
#include "train/train_internal.h"

int train_selfplay_round(const cfg_config *c, const char *rules_spec, const selfplay_config *sc,
                         const nn_net *net, replay_buffer *rb, uint64_t seed, selfplay_stats *st, char *err)
{
    if (c->game == CFG_GAME_KALAH) {
        mcts_eval_factory ef = mcts_eval_factory_net(net);
        return selfplay_run(&c->rules, sc, &c->mcts, &ef, rb, seed, NULL, st, err);
    }
    /* every other game: the generic self-play of the game interface */
    char gerr[GAME_ERRLEN];
    game *g = game_create(rules_spec, gerr);
    if (!g) {
        snprintf(err, MCTS_ERRLEN, "%s", gerr);
        return MCTS_EINVAL;
    }
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_net(net);
    game_selfplay_stats bs = {0};
    int rc = game_selfplay_run(g, sc, &c->mcts, &ef, rb, seed, &bs, err);
    game_free(g);
    *st = (selfplay_stats){.games = bs.games, .samples = bs.samples, .seconds = bs.seconds,
                           .positions_per_s = bs.positions_per_s};
    return rc;
}
