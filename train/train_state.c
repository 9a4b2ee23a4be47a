/* train_state.c — the trainer's checkpoints: nn_ckpt_save with the /train items below, and the way back.
 *
 * /train items (nn/h5io.h nn_ckpt):
 *   iteration, step, games, samples, elapsed_ms, best_iteration, replay_position   int64
 *   rng          the replay sampler's mcts_rng (4 × uint64, native byte order)
 *   best_score   a double (native byte order), -1 when nothing was evaluated yet
 *   replay       the replay buffer (replay_save blob: contents + position)
 *   seed         run.seed (a resume under another seed would not be a continuation; reported)
 *   best_params  the parameters of best_iteration's net (floats, native byte order), when best_iteration > 0:
 *                best.h5 is written from them after the checkpoint, and rewritten from them on resume, so
 *                it always belongs to the checkpointed run, never to iterations a crash abandoned
 *   row          the metrics row of this iteration (train_row, native layout): metrics.csv is cut back to
 *                the rows before it on resume and it is appended again, so a kill between the checkpoint
 *                and the row leaves no gap
 *   eval_iteration  iteration of the last evaluation (0: none); with it
 *   eval         its results (n_opponents × train_eval_result, native layout): an evaluation still owed
 *                (eval_iteration < iteration, which was due) is played on resume, and a finished run
 *                resumed prints its final table (absent without opponents)
 *   accuracy     the last evaluation's accuracy on [eval] positions (4 doubles, native byte order: the
 *                row's accuracy_raw, regret_raw, accuracy_search, regret_search), when it measured one
 *   selfplay_params  eval.gate = sprt: the parameters of the self-play net (floats); absent (gating off,
 *                or a checkpoint from before it was switched on): the self-play net is the trained net
 *   gate         eval.gate = sprt: tests played and nets accepted so far (2 × int64, native byte order)
 *   selfplay_rounds  self-play rounds whose samples the replay buffer holds (int64): the iteration, or one
 *                more when train.overlap played the next iteration's round beside this one (absent: the
 *                iteration)
 *   metrics_rows the text of metrics.csv's rows before this iteration's (train_metrics_rows), from which a
 *                lost or damaged metrics.csv is rebuilt on resume
 * Native layouts: checkpoints move between runs of one build on one machine; an item of the wrong size is
 * reported as not a sowzero training checkpoint.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train/rundir.h"
#include "train/train_internal.h"

int train_save_checkpoint(trainer *t, char *path_out, size_t n, char *err)
{
    char path[TRAIN_PATH_LEN + 64], nerr[NN_ERRLEN];
    if (!train_checkpoint_path(path, sizeof path, t->dir, t->iteration)) {
        train_err(err, "checkpoint path in '%s' is too long", t->dir);
        return TRAIN_EIO;
    }
    nn_ckpt *st = nn_ckpt_create();
    void *blob = NULL;
    size_t blob_n = 0;
    if (!st || replay_save(t->rb, &blob, &blob_n) != MCTS_OK) {
        nn_ckpt_free(st);
        train_err(err, "out of memory saving a checkpoint");
        return TRAIN_ENOMEM;
    }
    int64_t elapsed_ms = (int64_t)llround(train_elapsed(t) * 1000.0);
    int rc = nn_ckpt_put_i64(st, "iteration", t->iteration) | nn_ckpt_put_i64(st, "step", nn_optim_steps(t->optim)) |
             nn_ckpt_put_i64(st, "games", t->games) | nn_ckpt_put_i64(st, "samples", t->samples) |
             nn_ckpt_put_i64(st, "elapsed_ms", elapsed_ms) |
             nn_ckpt_put_i64(st, "best_iteration", t->best_iteration) |
             nn_ckpt_put_i64(st, "replay_position", (int64_t)replay_total(t->rb)) |
             nn_ckpt_put_i64(st, "seed", (int64_t)t->cfg->run.seed) |
             nn_ckpt_put_blob(st, "rng", &t->rng, sizeof t->rng) |
             nn_ckpt_put_blob(st, "best_score", &t->best_score, sizeof t->best_score) |
             nn_ckpt_put_blob(st, "replay", blob, blob_n) |
             nn_ckpt_put_i64(st, "eval_iteration", t->eval_iteration) |
             nn_ckpt_put_i64(st, "selfplay_rounds", t->rounds);
    free(blob);
    if (t->have_row)
        rc |= nn_ckpt_put_blob(st, "row", &t->row, sizeof t->row);
    if (t->eval_iteration > 0 && t->cfg->eval.n_opponents > 0)
        rc |= nn_ckpt_put_blob(st, "eval", t->last_eval, (size_t)t->cfg->eval.n_opponents * sizeof t->last_eval[0]);
    if (t->eval_iteration > 0 && t->have_last_accuracy)
        rc |= nn_ckpt_put_blob(st, "accuracy", t->last_accuracy, sizeof t->last_accuracy);
    if (t->best_iteration > 0 && t->have_best_net)
        rc |= nn_ckpt_put_blob(st, "best_params", nn_params_const(t->best_net),
                               nn_param_count(t->best_net) * sizeof(float));
    if (t->metrics) {
        size_t rows_n;
        const char *rows = train_metrics_rows(t->metrics, &rows_n);
        if (rows_n > 0) /* none before the first iteration */
            rc |= nn_ckpt_put_blob(st, "metrics_rows", rows, rows_n);
    }
    if (t->sp_net) {
        rc |= nn_ckpt_put_blob(st, "selfplay_params", nn_params_const(t->sp_net),
                               nn_param_count(t->sp_net) * sizeof(float));
        rc |= nn_ckpt_put_blob(st, "gate", t->gate_counts, sizeof t->gate_counts);
    }
    if (rc != NN_OK) {
        nn_ckpt_free(st);
        train_err(err, "out of memory saving a checkpoint");
        return TRAIN_ENOMEM;
    }
    nn_search search;
    train_search_record(t->cfg, &search);
    rc = nn_ckpt_save_search(path, t->net, t->optim, st, t->rules_spec, t->encoding, &search, nerr);
    nn_ckpt_free(st);
    if (rc != NN_OK) {
        train_err(err, "cannot write checkpoint: %s", nerr);
        return TRAIN_EIO;
    }
    char perr[512];
    if (train_prune_checkpoints(t->dir, t->cfg->run.keep_checkpoints, perr, sizeof perr) < 0)
        train_msg(t, TRAIN_MSG_WARN, "warning: %s", perr);
    if (path_out)
        snprintf(path_out, n, "%s", path);
    return TRAIN_OK;
}

static int need_i64(const nn_ckpt *st, const char *name, int64_t *v, const char *path, char *err)
{
    if (nn_ckpt_get_i64(st, name, v) != NN_OK) {
        train_err(err, "%s: not a sowzero training checkpoint (no /train/%s)", path, name);
        return -1;
    }
    return 0;
}

static int need_blob(const nn_ckpt *st, const char *name, void *out, size_t n, const char *path, char *err)
{
    const void *data;
    size_t got;
    if (nn_ckpt_get_blob(st, name, &data, &got) != NN_OK || got != n) {
        train_err(err, "%s: not a sowzero training checkpoint (/train/%s missing or of the wrong size)",
                 path, name);
        return -1;
    }
    memcpy(out, data, n);
    return 0;
}

/* Same architecture (what changes the parameter layout or the function computed). */
static int same_net(const nn_config *a, const nn_config *b)
{
    if (a->input_dim != b->input_dim || a->n_hidden != b->n_hidden || a->n_policy != b->n_policy ||
        a->n_value != b->n_value || a->residual != b->residual || a->margin_head != b->margin_head ||
        strcmp(a->activation, b->activation) ||
        a->onehot_inputs != b->onehot_inputs || a->onehot_levels != b->onehot_levels ||
        a->onehot_scale != b->onehot_scale)
        return 0;
    for (int i = 0; i < a->n_hidden; i++)
        if (a->hidden[i] != b->hidden[i])
            return 0;
    return 1;
}

/* An optional blob of exactly n bytes into out: 1 when present, 0 when absent, -1 when of another size. */
static int opt_blob(const nn_ckpt *st, const char *name, void *out, size_t n, const char *path, char *err)
{
    const void *data;
    size_t got;
    if (nn_ckpt_get_blob(st, name, &data, &got) != NN_OK)
        return 0;
    if (got != n) {
        train_err(err, "%s: not a checkpoint of this build and config (/train/%s has %zu bytes, expected %zu)", path,
                  name, got, n);
        return -1;
    }
    memcpy(out, data, n);
    return 1;
}

int train_load_checkpoint(trainer *t, const char *path, int *corrupt, char *err)
{
    nn_net *net = NULL;
    nn_optim *saved = NULL;
    nn_ckpt *st = NULL;
    char nerr[NN_ERRLEN];
    int dummy;
    if (!corrupt)
        corrupt = &dummy;
    *corrupt = 0;
    int rc = nn_ckpt_load(path, t->rules_spec, &net, &saved, &st, NULL, nerr);
    if (rc != NN_OK) {
        train_err(err, "cannot resume from %s: %s", path, nerr);
        *corrupt = rc == NN_EFORMAT;
        return rc == NN_ENOMEM ? TRAIN_ENOMEM : rc == NN_EMISMATCH ? TRAIN_EINVAL : TRAIN_EIO;
    }
    *corrupt = 1;   /* until every item has been read */
    rc = TRAIN_EIO;
    int64_t iteration, step, games, samples, elapsed_ms, best_it, seed;
    if (need_i64(st, "iteration", &iteration, path, err) || need_i64(st, "step", &step, path, err) ||
        need_i64(st, "games", &games, path, err) || need_i64(st, "samples", &samples, path, err) ||
        need_i64(st, "elapsed_ms", &elapsed_ms, path, err) || need_i64(st, "best_iteration", &best_it, path, err) ||
        need_i64(st, "seed", &seed, path, err) || need_blob(st, "rng", &t->rng, sizeof t->rng, path, err) ||
        need_blob(st, "best_score", &t->best_score, sizeof t->best_score, path, err))
        goto out;
    if (!same_net(nn_net_config(net), &t->cfg->net)) {
        train_err(err, "%s: the checkpoint's net differs from the config's [net] section", path);
        rc = TRAIN_EINVAL;
        *corrupt = 0;
        goto out;
    }
    if ((uint64_t)seed != t->cfg->run.seed)
        train_msg(t, TRAIN_MSG_WARN,
                  "warning: run.seed is %" PRIu64 " but the checkpoint was made with %" PRIu64
                  ": the resumed run is not a continuation of the same random streams",
                  t->cfg->run.seed, (uint64_t)seed);
    const void *blob;
    size_t blob_n;
    char rerr[MCTS_ERRLEN];
    if (nn_ckpt_get_blob(st, "replay", &blob, &blob_n) != NN_OK) {
        train_err(err, "%s: no replay buffer in the checkpoint (/train/replay)", path);
        goto out;
    }
    if (replay_restore(t->rb, blob, blob_n, rerr) != MCTS_OK) {
        train_err(err, "%s: replay buffer: %s", path, rerr);
        goto out;
    }
    /* Hyperparameters come from the (possibly overridden) config, the moments from the file. */
    if (nn_optim_get_config(saved)->kind != t->cfg->optim.kind ||
        nn_optim_state_count(saved) != nn_optim_state_count(t->optim)) {
        train_err(err, "%s: the checkpoint was trained with %s, the config says %s", path,
                 nn_opt_kind_name(nn_optim_get_config(saved)->kind), nn_opt_kind_name(t->cfg->optim.kind));
        rc = TRAIN_EINVAL;
        *corrupt = 0;
        goto out;
    }
    for (int i = 0; i < nn_optim_state_count(saved); i++) {
        const char *name;
        memcpy(nn_optim_state(t->optim, i, &name), nn_optim_state(saved, i, &name),
               nn_param_count(net) * sizeof(float));
    }
    nn_optim_set_steps(t->optim, step);
    if (nn_net_copy_params(t->net, net) != NN_OK) {
        train_err(err, "%s: parameter layout differs from the config's net", path);
        rc = TRAIN_EINVAL;
        *corrupt = 0;
        goto out;
    }
    int64_t eval_it = 0;
    size_t n_eval = (size_t)t->cfg->eval.n_opponents * sizeof t->last_eval[0];
    int have_best = best_it > 0 ? opt_blob(st, "best_params", nn_params(t->best_net),
                                          nn_param_count(t->best_net) * sizeof(float), path, err) : 0;
    int have_row = opt_blob(st, "row", &t->row, sizeof t->row, path, err);
    if (nn_ckpt_get_i64(st, "eval_iteration", &eval_it) != NN_OK)
        eval_it = 0;
    /* Another size: evaluated against another number of opponents than the config now names (a --set
     * that the metrics check refuses next, with a clear message); not damage. */
    const void *ev = NULL;
    size_t ev_n = 0;
    int have_eval = eval_it > 0 &&
                    (n_eval == 0 || (nn_ckpt_get_blob(st, "eval", &ev, &ev_n) == NN_OK && ev_n == n_eval));
    if (have_eval && n_eval)
        memcpy(t->last_eval, ev, n_eval);
    else
        eval_it = 0;
    int have_acc = opt_blob(st, "accuracy", t->last_accuracy, sizeof t->last_accuracy, path, err);
    int have_sp = 0, have_gate = 0;
    if (t->sp_net) {
        have_sp = opt_blob(st, "selfplay_params", nn_params(t->sp_net), nn_param_count(t->sp_net) * sizeof(float),
                           path, err);
        if (have_sp == 0 && nn_net_copy_params(t->sp_net, net) != NN_OK)
            have_sp = -1;
        have_gate = opt_blob(st, "gate", t->gate_counts, sizeof t->gate_counts, path, err);
        if (have_gate == 0)
            memset(t->gate_counts, 0, sizeof t->gate_counts);
    }
    if (have_best < 0 || have_row < 0 || have_acc < 0 || have_sp < 0 || have_gate < 0)
        goto out;
    free(t->ckpt_rows);
    t->ckpt_rows = NULL;
    t->ckpt_rows_len = 0;
    const void *rows;
    size_t rows_n;
    if (nn_ckpt_get_blob(st, "metrics_rows", &rows, &rows_n) == NN_OK) {
        if (!(t->ckpt_rows = malloc(rows_n + 1))) {
            train_err(err, "out of memory reading %s", path);
            rc = TRAIN_ENOMEM;
            *corrupt = 0;
            goto out;
        }
        memcpy(t->ckpt_rows, rows, rows_n);
        t->ckpt_rows[rows_n] = 0;
        t->ckpt_rows_len = rows_n;
    }
    int64_t rounds;
    if (nn_ckpt_get_i64(st, "selfplay_rounds", &rounds) != NN_OK || rounds < iteration || rounds > iteration + 1)
        rounds = iteration;
    t->iteration = iteration;
    t->rounds = rounds;
    t->games = games;
    t->samples = samples;
    t->elapsed_base = (double)elapsed_ms / 1000.0;
    t->best_iteration = best_it;
    t->have_best_net = have_best == 1;
    t->have_row = have_row == 1 && t->row.iteration == iteration;
    t->eval_iteration = eval_it;
    t->have_last_accuracy = have_acc == 1 && eval_it > 0;
    *corrupt = 0;
    rc = TRAIN_OK;
out:
    nn_net_free(net);
    nn_optim_free(saved);
    nn_ckpt_free(st);
    return rc;
}
