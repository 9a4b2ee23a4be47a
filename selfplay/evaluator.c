/* evaluator.c — the net evaluator (kalah_encode → one nn_forward) and the random-rollout evaluator. */
#include "selfplay/evaluator.h"

#include <stdio.h>
#include <stdlib.h>

#include "selfplay/rng.h"
#include "selfplay/workers.h"

void mcts_eval_free(mcts_eval *e)
{
    if (e)
        e->destroy(e);
}

int mcts_eval_run(mcts_eval *e, const kalah_pos *pos, int n, float *prior, float *value)
{
    int m = e->rules.pits;
    for (int i = 0; i < n; i += e->max_batch) {
        int k = n - i < e->max_batch ? n - i : e->max_batch;
        int rc = e->evaluate(e, pos + i, k, prior + (size_t)i * m, value + i);
        if (rc != MCTS_OK)
            return rc;
    }
    return MCTS_OK;
}

/* ---- net ---- */

typedef struct {
    mcts_eval base;
    const nn_net *net;
    nn_workspace *ws;
    float *x;
    uint8_t *legal;
    double margin_w;  /* mcts.margin_utility; > 0 only with a margin head */
    float *margin;    /* max_batch margin-head outputs when margin_w > 0 */
} net_eval;

static int net_evaluate(mcts_eval *e, const kalah_pos *pos, int n, float *prior, float *value)
{
    net_eval *ne = (net_eval *)e;
    const kalah_rules *r = &e->rules;
    int dim = kalah_encode_dim(r), m = r->pits;
    if (n < 1 || n > e->max_batch)
        return MCTS_EINVAL;
    for (int i = 0; i < n; i++) {
        kalah_encode(r, &pos[i], ne->x + (size_t)i * dim);
        unsigned legal = kalah_legal(r, &pos[i]);
        for (int k = 0; k < m; k++)
            ne->legal[i * m + k] = (uint8_t)(legal >> k & 1u);
    }
    double t0 = sp_now();
    int rc;
    if (ne->margin_w > 0) {
        nn_outputs o = {.policy = prior, .value = value, .margin = ne->margin};
        rc = nn_forward_ex(ne->net, ne->ws, ne->x, ne->legal, n, &o);
        for (int i = 0; i < n; i++) {
            float mg = ne->margin[i] > 1.0f ? 1.0f : ne->margin[i] < -1.0f ? -1.0f : ne->margin[i];
            value[i] = (float)((value[i] + ne->margin_w * mg) / (1.0 + ne->margin_w));
        }
    } else
        rc = nn_forward(ne->net, ne->ws, ne->x, ne->legal, n, prior, value);
    e->forward_seconds += sp_now() - t0;
    e->calls++;
    e->positions += (uint64_t)n;
    return rc == NN_OK ? MCTS_OK : MCTS_EEVAL;
}

static void net_destroy(mcts_eval *e)
{
    net_eval *ne = (net_eval *)e;
    nn_workspace_free(ne->ws);
    free(ne->x);
    free(ne->legal);
    free(ne->margin);
    free(ne);
}

mcts_eval *mcts_eval_net_create(const nn_net *net, const kalah_rules *r, int max_batch, char *err)
{
    return mcts_eval_net_create_utility(net, r, max_batch, 0.0, err);
}

mcts_eval *mcts_eval_net_create_utility(const nn_net *net, const kalah_rules *r, int max_batch,
                                        double margin_utility, char *err)
{
    if (!net || !r || max_batch < 1) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "net evaluator: %s", !net ? "no net" : !r ? "no rules" : "max_batch < 1");
        return NULL;
    }
    const nn_config *c = nn_net_config(net);
    if (c->input_dim != kalah_encode_dim(r) || c->n_policy != r->pits) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "net has input_dim %d and n_policy %d; these rules need %d and %d",
                     c->input_dim, c->n_policy, kalah_encode_dim(r), r->pits);
        return NULL;
    }
    if (c->n_value != 1) { /* Kalah search takes one value per position, for the mover */
        if (err)
            snprintf(err, MCTS_ERRLEN, "net has %d value outputs (n_value); a Kalah net has 1", c->n_value);
        return NULL;
    }
    if (!(margin_utility >= 0 && margin_utility <= 1e6) || (margin_utility > 0 && !c->margin_head)) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts.margin_utility %g needs a net with a margin head (net.margin_head)",
                     margin_utility);
        return NULL;
    }
    net_eval *ne = calloc(1, sizeof *ne);
    if (ne) {
        ne->base = (mcts_eval){.evaluate = net_evaluate, .destroy = net_destroy, .rules = *r, .max_batch = max_batch};
        ne->net = net;
        ne->ws = nn_workspace_create(net, max_batch);
        ne->x = malloc((size_t)max_batch * (size_t)kalah_encode_dim(r) * sizeof *ne->x);
        ne->legal = malloc((size_t)max_batch * (size_t)r->pits);
        ne->margin_w = margin_utility;
        ne->margin = margin_utility > 0 ? malloc((size_t)max_batch * sizeof *ne->margin) : NULL;
    }
    if (!ne || !ne->ws || !ne->x || !ne->legal || (margin_utility > 0 && !ne->margin)) {
        if (ne)
            net_destroy(&ne->base);
        if (err)
            snprintf(err, MCTS_ERRLEN, "net evaluator: out of memory (batch %d)", max_batch);
        return NULL;
    }
    return &ne->base;
}

/* ---- random rollouts ---- */

/* Kalah's value for the mover at start: +1 win, 0 draw, -1 loss (kalah_winner is South's). */
static inline void kalah_score(const mcts_eval *e, const kalah_pos *start, const kalah_pos *end, float *acc)
{
    int w = kalah_winner(&e->rules, end);
    acc[0] += (float)(start->side == KALAH_SOUTH ? w : -w);
}

#define RO_EVAL mcts_eval
#define RO_POS kalah_pos
#define RO_MOVES(e) ((e)->rules.pits)
#define RO_VALUES(e) 1
#define RO_LEGAL(e, p) kalah_legal(&(e)->rules, p)
#define RO_APPLY(e, p, m) kalah_sow(&(e)->rules, p, m, NULL)
#define RO_SCORE(e, start, end, acc) kalah_score(e, start, end, acc)
#include "selfplay/rollout_impl.h"

mcts_eval *mcts_eval_rollout_create(const kalah_rules *r, int rollouts, int max_batch, uint64_t seed, char *err)
{
    mcts_eval base = {.max_batch = max_batch};
    if (r)
        base.rules = *r;
    return rollout_create(base, r != NULL, "no rules", rollouts, seed, err);
}

/* ---- factories ---- */

static mcts_eval *net_factory(const mcts_eval_factory *f, const kalah_rules *r, int max_batch, uint64_t seed,
                              char *err)
{
    (void)seed;
    return mcts_eval_net_create_utility(f->net, r, max_batch, f->margin_utility, err);
}

static mcts_eval *rollout_factory(const mcts_eval_factory *f, const kalah_rules *r, int max_batch,
                                  uint64_t seed, char *err)
{
    return mcts_eval_rollout_create(r, f->rollouts, max_batch, seed, err);
}

mcts_eval_factory mcts_eval_factory_net(const nn_net *net)
{
    return (mcts_eval_factory){.create = net_factory, .net = net};
}

mcts_eval_factory mcts_eval_factory_rollout(int rollouts)
{
    return (mcts_eval_factory){.create = rollout_factory, .rollouts = rollouts};
}
