/* net_ref.c — the naive reference forward/backward (net.h): one position at a time, plain loops, double
 * precision, written straight from the formulas at the top of net.h so the BLAS path can be tested
 * against it and its gradient against finite differences. Speed does not matter here. */
#include "nn/net_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Activations of one position: h[l] for each hidden layer and the head outputs, each of `width`. */
typedef struct {
    double *h[NN_MAX_HIDDEN];
    double *o;
    double *block;
} ref_acts;

static int acts_alloc(const nn_net *net, ref_acts *a)
{
    int L = net->cfg.n_hidden, W = net->max_width;
    a->block = calloc((size_t)(L + 1) * W, sizeof(double));
    if (!a->block)
        return NN_ENOMEM;
    for (int l = 0; l < L; l++)
        a->h[l] = a->block + (size_t)l * W;
    a->o = a->block + (size_t)L * W;
    return NN_OK;
}

/* theta (doubles) from the caller, or the net's floats converted into a fresh array (*owned). */
static const double *get_theta(const nn_net *net, const double *theta, double **owned)
{
    *owned = NULL;
    if (theta)
        return theta;
    double *t = malloc(net->n_params * sizeof(double));
    if (!t)
        return NULL;
    for (size_t i = 0; i < net->n_params; i++)
        t[i] = net->params[i];
    *owned = t;
    return t;
}

/* Element k of the first layer's input row, straight from net.h's definition: x[k] for k < input_dim,
 * then the one-hot features (feature j * K + level of input j). */
static double ref_input(const nn_config *c, const float *x, int k)
{
    if (k < c->input_dim)
        return x[k];
    const int j = (k - c->input_dim) / c->onehot_levels, level = (k - c->input_dim) % c->onehot_levels;
    double v = nearbyint((double)(x[j] * c->onehot_scale));
    if (!(v > 0))
        v = 0;
    if (v > c->onehot_levels - 1)
        v = c->onehot_levels - 1;
    return v == level ? 1.0 : 0.0;
}

static void ref_forward_one(const nn_net *net, const double *th, const float *x, ref_acts *a)
{
    const double *in = NULL;
    for (int l = 0; l < net->cfg.n_hidden; l++) {
        const nn_affine *f = &net->hid[l];
        for (int j = 0; j < f->out; j++) {
            double s = th[f->b_off + j];
            for (int k = 0; k < f->in; k++)
                s += th[f->w_off + (size_t)j * f->in + k] * (l ? in[k] : ref_input(&net->cfg, x, k));
            if (f->residual)
                s += l ? in[j] : ref_input(&net->cfg, x, j);
            a->h[l][j] = s > 0 ? s : 0;
        }
        in = a->h[l];
    }
    const nn_affine *f = &net->head;
    for (int j = 0; j < f->out; j++) {
        double s = th[f->b_off + j];
        for (int k = 0; k < f->in; k++)
            s += th[f->w_off + (size_t)j * f->in + k] * in[k];
        a->o[j] = s;
    }
}

/* Masked softmax in double; returns the log-sum-exp over legal slots (-INFINITY when none). */
static double ref_softmax(const double *l, const uint8_t *legal, int n, double *p)
{
    double m = -INFINITY, s = 0;
    for (int j = 0; j < n; j++)
        if ((!legal || legal[j]) && l[j] > m)
            m = l[j];
    for (int j = 0; j < n; j++) {
        p[j] = (m > -INFINITY && (!legal || legal[j])) ? exp(l[j] - m) : 0;
        s += p[j];
    }
    for (int j = 0; j < n; j++)
        p[j] = s > 0 ? p[j] / s : 0;
    return s > 0 ? m + log(s) : -INFINITY;
}

int nn_forward_ref(const nn_net *net, const double *theta, const float *x, const uint8_t *legal, int batch,
                   const nn_outputs_ref *out)
{
    if (!net || !x || !out || batch < 1)
        return NN_EINVAL;
    double *owned;
    const double *th = get_theta(net, theta, &owned);
    ref_acts a;
    if (!th || acts_alloc(net, &a) != NN_OK) {
        free(owned);
        return NN_ENOMEM;
    }
    int P = net->cfg.n_policy, V = net->cfg.n_value;
    for (int r = 0; r < batch; r++) {
        ref_forward_one(net, th, x + (size_t)r * net->cfg.input_dim, &a);
        if (out->logits)
            memcpy(out->logits + (size_t)r * P, a.o, (size_t)P * sizeof(double));
        if (out->policy)
            ref_softmax(a.o, legal ? legal + (size_t)r * P : NULL, P, out->policy + (size_t)r * P);
        if (out->value)
            for (int j = 0; j < V; j++)
                out->value[(size_t)r * V + j] = tanh(a.o[P + j]);
        if (out->margin && net->cfg.margin_head)
            out->margin[r] = a.o[P + V];
    }
    free(a.block);
    free(owned);
    return NN_OK;
}

/* Backpropagates one position's head deltas d_heads (already scaled by the loss weights and 1/batch) into grad (accumulating). */
static void ref_backward_one(const nn_net *net, const double *th, const float *x, const ref_acts *a,
                             const double *d_heads, double *grad, double *dh, double *dprev)
{
    int L = net->cfg.n_hidden;
    const nn_affine *f = &net->head;
    memset(dh, 0, (size_t)f->in * sizeof(double));
    for (int j = 0; j < f->out; j++) {
        grad[f->b_off + j] += d_heads[j];
        for (int k = 0; k < f->in; k++) {
            grad[f->w_off + (size_t)j * f->in + k] += d_heads[j] * a->h[L - 1][k];
            dh[k] += d_heads[j] * th[f->w_off + (size_t)j * f->in + k];
        }
    }
    for (int l = L - 1; l >= 0; l--) {
        const nn_affine *g = &net->hid[l];
        memset(dprev, 0, (size_t)g->in * sizeof(double));
        for (int j = 0; j < g->out; j++) {
            double da = a->h[l][j] > 0 ? dh[j] : 0; /* ReLU'(s) = 1 iff s > 0 iff h > 0 */
            grad[g->b_off + j] += da;
            for (int k = 0; k < g->in; k++) {
                double xin = l ? a->h[l - 1][k] : ref_input(&net->cfg, x, k);
                grad[g->w_off + (size_t)j * g->in + k] += da * xin;
                dprev[k] += da * th[g->w_off + (size_t)j * g->in + k];
            }
            if (g->residual)
                dprev[j] += da;
        }
        memcpy(dh, dprev, (size_t)g->in * sizeof(double));
    }
}

int nn_train_grad_ref(const nn_net *net, const double *theta, const nn_batch *b, const nn_loss_weights *w,
                      double *grad, nn_loss *loss)
{
    if (!net || !b || !w || !b->x || !b->pi || !b->z || b->batch < 1)
        return NN_EINVAL;
    double *owned;
    const double *th = get_theta(net, theta, &owned);
    ref_acts a;
    int W = net->max_width > net->hid[0].in ? net->max_width : net->hid[0].in;
    double *tmp = calloc((size_t)3 * W, sizeof(double));
    if (!th || !tmp || acts_alloc(net, &a) != NN_OK) {
        free(owned);
        free(tmp);
        return NN_ENOMEM;
    }
    double *p = tmp, *dh = tmp + W, *dprev = tmp + 2 * W;
    int P = net->cfg.n_policy, V = net->cfg.n_value, n = b->batch;
    int use_margin = net->cfg.margin_head && b->margin;
    double *dho = calloc((size_t)net->head.out, sizeof(double));
    if (!dho) {
        free(owned);
        free(tmp);
        free(a.block);
        return NN_ENOMEM;
    }
    if (grad)
        memset(grad, 0, net->n_params * sizeof(double));
    double ce = 0, sev = 0, sem = 0;
    for (int r = 0; r < n; r++) {
        const float *x = b->x + (size_t)r * net->cfg.input_dim;
        const uint8_t *lg = b->legal ? b->legal + (size_t)r * P : NULL;
        const float *pi = b->pi + (size_t)r * P;
        ref_forward_one(net, th, x, &a);
        double lse = ref_softmax(a.o, lg, P, p), S = 0;
        for (int j = 0; j < P; j++)
            if (!lg || lg[j]) {
                S += pi[j];
                if (pi[j] != 0)
                    ce -= pi[j] * (a.o[j] - lse);
            }
        /* Value: value_w * mean over the batch of the mean over the n_value outputs of (z - v)^2. */
        for (int j = 0; j < V; j++) {
            double v = tanh(a.o[P + j]), ev = v - b->z[(size_t)r * V + j];
            sev += ev * ev;
            dho[P + j] = w->value_w / ((double)n * V) * 2 * ev * (1 - v * v);
        }
        double em = use_margin ? a.o[P + V] - b->margin[r] : 0;
        sem += em * em;
        if (!grad)
            continue;
        for (int j = 0; j < P; j++)
            dho[j] = (!lg || lg[j]) ? w->policy_w / n * (p[j] * S - pi[j]) : 0;
        if (net->cfg.margin_head)
            dho[P + V] = w->margin_w / n * 2 * em;
        ref_backward_one(net, th, x, &a, dho, grad, dh, dprev);
    }
    /* L2 on every weight matrix (hidden layers and heads), never on biases. */
    double l2 = 0;
    const nn_affine *layers[NN_MAX_HIDDEN + 1];
    int nl = 0;
    for (int l = 0; l < net->cfg.n_hidden; l++)
        layers[nl++] = &net->hid[l];
    layers[nl++] = &net->head;
    for (int i = 0; i < nl; i++) {
        size_t cnt = (size_t)layers[i]->in * layers[i]->out;
        for (size_t k = 0; k < cnt; k++) {
            double t = th[layers[i]->w_off + k];
            l2 += t * t;
            if (grad)
                grad[layers[i]->w_off + k] += 2 * w->l2 * t;
        }
    }
    if (loss) {
        loss->policy = w->policy_w * ce / n;
        loss->value = w->value_w * sev / ((double)n * V);
        loss->margin = use_margin ? w->margin_w * sem / n : 0;
        loss->l2 = w->l2 * l2;
        loss->total = loss->policy + loss->value + loss->margin + loss->l2;
    }
    free(dho);
    free(a.block);
    free(tmp);
    free(owned);
    return NN_OK;
}
