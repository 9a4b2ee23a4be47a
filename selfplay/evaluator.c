/* evaluator.c — the net evaluator (kalah_encode → one nn_forward) and the random-rollout evaluator. */
#include "selfplay/evaluator.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "selfplay/rng.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
    double t0 = now_s();
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
    e->forward_seconds += now_s() - t0;
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

typedef struct {
    mcts_eval base;
    int rollouts;
    mcts_rng rng;
} rollout_eval;

/* Kalah always ends (stores never shrink; between store gains every sowing moves seeds strictly towards
 * the mover's store), so the cap only guards against a rules bug; a capped game is scored as it stands. */
#define ROLLOUT_CAP 100000

static int playout(const kalah_rules *r, kalah_pos p, mcts_rng *rng, int side)
{
    for (int s = 0; !p.over && s < ROLLOUT_CAP; s++) {
        unsigned legal = kalah_legal(r, &p);
        uint32_t j = mcts_rng_below(rng, (uint32_t)__builtin_popcount(legal));
        while (j--)
            legal &= legal - 1;  /* drop the lowest set bits until the chosen one is lowest */
        kalah_sow(r, &p, __builtin_ctz(legal), NULL);
    }
    int w = kalah_winner(r, &p);
    return side == KALAH_SOUTH ? w : -w;
}

static int rollout_evaluate(mcts_eval *e, const kalah_pos *pos, int n, float *prior, float *value)
{
    rollout_eval *re = (rollout_eval *)e;
    int m = e->rules.pits;
    double t0 = now_s();
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < m; k++)
            prior[i * m + k] = 1.0f;  /* the search keeps the legal ones and renormalises: uniform */
        int sum = 0;
        for (int j = 0; j < re->rollouts; j++)
            sum += playout(&e->rules, pos[i], &re->rng, pos[i].side);
        value[i] = (float)sum / (float)re->rollouts;
    }
    e->forward_seconds += now_s() - t0;
    e->calls++;
    e->positions += (uint64_t)n;
    return MCTS_OK;
}

static void rollout_reseed(mcts_eval *e, uint64_t seed) { mcts_rng_seed(&((rollout_eval *)e)->rng, seed); }
static void rollout_destroy(mcts_eval *e) { free(e); }

mcts_eval *mcts_eval_rollout_create(const kalah_rules *r, int rollouts, int max_batch, uint64_t seed, char *err)
{
    if (!r || rollouts < 1 || max_batch < 1) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "rollout evaluator: %s",
                     !r ? "no rules" : rollouts < 1 ? "rollouts must be >= 1" : "max_batch < 1");
        return NULL;
    }
    rollout_eval *re = calloc(1, sizeof *re);
    if (!re) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "rollout evaluator: out of memory");
        return NULL;
    }
    re->base = (mcts_eval){.evaluate = rollout_evaluate,
                           .reseed = rollout_reseed,
                           .destroy = rollout_destroy,
                           .rules = *r,
                           .max_batch = max_batch};
    re->rollouts = rollouts;
    mcts_rng_seed(&re->rng, seed);
    return &re->base;
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
