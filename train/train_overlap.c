/* train_overlap.c — train.overlap: the next iteration's self-play round played on a thread of its own while
 * the learner runs this iteration's SGD and evaluation (train_internal.h, train_round_*).
 *
 * Why a fixed lag of one round: self-play of round it + 1 starts when iteration it starts, with a copy of the
 * net as it was before iteration it's SGD, and its samples join the training buffer when iteration it ends.
 * So every SGD step sees the same buffer whatever the threads' timing, and a run is as deterministic, and
 * resumes as exactly, as the sequential loop: the checkpoint is written after the round has joined. The
 * price is staleness: the games an SGD phase trains on were played by the net of two iterations back, not
 * one (KataGo's and Leela's self-play likewise runs behind the learner by whatever it has not yet loaded). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "train/train_internal.h"

static void *round_main(void *arg)
{
    trainer *t = arg;
    train_round *r = &t->round;
    const cfg_config *c = t->cfg;
    r->rc = train_selfplay_round(c, t->rules_spec, &c->selfplay, r->net, t->tb, r->rb,
                                 train_seed(c->run.seed, 3, (uint64_t)r->index), &r->st, r->err);
    return NULL;
}

int train_round_start(trainer *t, int64_t index, const nn_net *net, char *err)
{
    train_round *r = &t->round;
    if (r->running) {
        train_err(err, "self-play round %" PRId64 " started while round %" PRId64 " is in flight", index, r->index);
        return TRAIN_EFAIL;
    }
    char rerr[MCTS_ERRLEN];
    if (!r->rb && !(r->rb = replay_create(replay_dim(t->rb), replay_pits(t->rb), replay_n_value(t->rb),
                                          replay_window(t->rb), rerr))) {
        train_err(err, "train.overlap: the self-play round's buffer: %s", rerr);
        return TRAIN_ENOMEM;
    }
    if (!r->net ? !(r->net = nn_net_clone(net)) : nn_net_copy_params(r->net, net) != NN_OK) {
        train_err(err, "train.overlap: out of memory copying the self-play net");
        return TRAIN_ENOMEM;
    }
    replay_clear(r->rb);
    memset(&r->st, 0, sizeof r->st);
    r->err[0] = 0;
    r->index = index;
    r->rc = MCTS_OK;
    if (pthread_create(&r->thread, NULL, round_main, t) != 0) {
        train_err(err, "train.overlap: cannot start the self-play thread");
        return TRAIN_EFAIL;
    }
    r->running = 1;
    return TRAIN_OK;
}

int train_round_finish(trainer *t, selfplay_stats *st, char *err)
{
    train_round *r = &t->round;
    if (!r->running) {
        memset(st, 0, sizeof *st);
        return TRAIN_OK;
    }
    pthread_join(r->thread, NULL);
    r->running = 0;
    *st = r->st;
    if (r->rc != MCTS_OK) {
        train_err(err, "self-play failed in round %" PRId64 " (played beside iteration %" PRId64 "): %s", r->index,
                  r->index - 1, r->err);
        return TRAIN_EFAIL;
    }
    if (replay_drain(t->rb, r->rb) != MCTS_OK) {
        train_err(err, "train.overlap: the round's samples do not fit the training buffer");
        return TRAIN_EFAIL;
    }
    t->rounds = r->index;
    return TRAIN_OK;
}

void train_round_free(trainer *t)
{
    train_round *r = &t->round;
    if (r->running) /* an error ended the iteration: the round's samples are dropped with it */
        pthread_join(r->thread, NULL);
    r->running = 0;
    replay_free(r->rb);
    nn_net_free(r->net);
    r->rb = NULL;
    r->net = NULL;
}
