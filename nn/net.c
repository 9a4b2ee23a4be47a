/* net.c — configuration, parameter layout, initialisation and BLAS threading of the network (net.h). */
#include "nn/net_internal.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nn_fail(char *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, NN_ERRLEN, fmt, ap);
        va_end(ap);
    }
    return code;
}

void *nn_alloc_aligned(size_t bytes)
{
    void *p = NULL;
    /* Round up so the size is a multiple of the alignment, as aligned_alloc requires. */
    size_t n = (bytes + 63) / 64 * 64;
    if (n == 0)
        n = 64;
    if (posix_memalign(&p, 64, n))
        return NULL;
    return p;
}

void nn_free_aligned(void *p) { free(p); }

/* ---- BLAS threads ---- */

static atomic_int blas_threads_chosen;
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

static void blas_pin_one(void)
{
    if (!atomic_load(&blas_threads_chosen))
        openblas_set_num_threads(1);
}

void nn_blas_threads_default(void) { pthread_once(&blas_once, blas_pin_one); }

void nn_set_blas_threads(int n)
{
    atomic_store(&blas_threads_chosen, 1);
    openblas_set_num_threads(n < 1 ? 1 : n);
}

/* ---- configuration ---- */

nn_config nn_config_default(int input_dim, int n_policy)
{
    nn_config c;
    memset(&c, 0, sizeof c);
    c.input_dim = input_dim;
    c.n_hidden = 3;
    c.hidden[0] = c.hidden[1] = c.hidden[2] = 256;
    c.residual = 0;
    c.n_policy = n_policy;
    c.n_value = 1;
    c.margin_head = 1;
    strcpy(c.activation, "relu");
    return c;
}

/* Widths beyond this would overflow int index arithmetic on big batches; far above any sensible net. */
#define NN_MAX_WIDTH 65536

int nn_config_check(const nn_config *c, char *err)
{
    if (!c)
        return nn_fail(err, NN_EINVAL, "config is NULL");
    if (c->input_dim < 1 || c->input_dim > NN_MAX_WIDTH)
        return nn_fail(err, NN_EINVAL, "input_dim %d out of range 1..%d", c->input_dim, NN_MAX_WIDTH);
    if (c->n_hidden < 1 || c->n_hidden > NN_MAX_HIDDEN)
        return nn_fail(err, NN_EINVAL, "n_hidden %d out of range 1..%d", c->n_hidden, NN_MAX_HIDDEN);
    for (int i = 0; i < c->n_hidden; i++)
        if (c->hidden[i] < 1 || c->hidden[i] > NN_MAX_WIDTH)
            return nn_fail(err, NN_EINVAL, "hidden[%d] = %d out of range 1..%d", i, c->hidden[i],
                           NN_MAX_WIDTH);
    if (c->n_policy < 1 || c->n_policy > NN_MAX_WIDTH)
        return nn_fail(err, NN_EINVAL, "n_policy %d out of range 1..%d", c->n_policy, NN_MAX_WIDTH);
    if (c->n_value < 1 || c->n_value > NN_MAX_VALUE)
        return nn_fail(err, NN_EINVAL, "n_value %d out of range 1..%d", c->n_value, NN_MAX_VALUE);
    if (c->residual != 0 && c->residual != 1)
        return nn_fail(err, NN_EINVAL, "residual must be 0 or 1, not %d", c->residual);
    if (c->margin_head != 0 && c->margin_head != 1)
        return nn_fail(err, NN_EINVAL, "margin_head must be 0 or 1, not %d", c->margin_head);
    if (memchr(c->activation, 0, sizeof c->activation) == NULL || strcmp(c->activation, "relu") != 0)
        return nn_fail(err, NN_EINVAL, "activation must be \"relu\" (the only one implemented)");
    if (c->onehot_inputs < 0 || c->onehot_inputs > c->input_dim)
        return nn_fail(err, NN_EINVAL, "onehot_inputs %d out of range 0..input_dim (%d)", c->onehot_inputs,
                       c->input_dim);
    if (c->onehot_inputs == 0 && (c->onehot_levels != 0 || c->onehot_scale != 0.0f))
        return nn_fail(err, NN_EINVAL, "onehot_levels and onehot_scale must be 0 without onehot_inputs");
    if (c->onehot_inputs > 0 && (c->onehot_levels < 2 || c->onehot_levels > NN_MAX_ONEHOT_LEVELS))
        return nn_fail(err, NN_EINVAL, "onehot_levels %d out of range 2..%d", c->onehot_levels,
                       NN_MAX_ONEHOT_LEVELS);
    if (c->onehot_inputs > 0 && !(c->onehot_scale > 0.0f && c->onehot_scale <= 1e6f))
        return nn_fail(err, NN_EINVAL, "onehot_scale %g out of range (0, 1e6]", (double)c->onehot_scale);
    if ((long)c->input_dim + (long)c->onehot_inputs * c->onehot_levels > NN_MAX_WIDTH)
        return nn_fail(err, NN_EINVAL, "input_dim + onehot_inputs * onehot_levels exceeds %d", NN_MAX_WIDTH);
    return NN_OK;
}

int nn_input_width(const nn_config *c) { return c->input_dim + c->onehot_inputs * c->onehot_levels; }

int nn_onehot_level(const nn_config *c, float x)
{
    const int K = c->onehot_levels;
    const float v = rintf(x * c->onehot_scale); /* NaN and negatives: level 0 */
    return v >= (float)(K - 1) ? K - 1 : v > 0.0f ? (int)v : 0;
}

void nn_expand_input(const nn_config *c, const float *x, int batch, float *out)
{
    const int D = c->input_dim, ni = c->onehot_inputs, K = c->onehot_levels, Wd = D + ni * K;
    for (int r = 0; r < batch; r++) {
        const float *xr = x + (size_t)r * D;
        float *o = out + (size_t)r * Wd;
        memcpy(o, xr, (size_t)D * sizeof(float));
        memset(o + D, 0, (size_t)ni * K * sizeof(float));
        for (int j = 0; j < ni; j++)
            o[D + j * K + nn_onehot_level(c, xr[j])] = 1.0f;
    }
}

/* Fills the layer table of net from its config; returns the parameter count. */
static size_t layout(nn_net *net)
{
    const nn_config *c = &net->cfg;
    size_t off = 0;
    int in = nn_input_width(c);
    net->max_width = 0;
    for (int i = 0; i < c->n_hidden; i++) {
        nn_affine *a = &net->hid[i];
        a->in = in;
        a->out = c->hidden[i];
        a->residual = c->residual && a->in == a->out;
        a->w_off = off;
        off += (size_t)a->in * a->out;
        a->b_off = off;
        off += (size_t)a->out;
        in = a->out;
        if (a->out > net->max_width)
            net->max_width = a->out;
    }
    nn_affine *h = &net->head;
    h->in = in;
    h->out = c->n_policy + c->n_value + c->margin_head;
    h->residual = 0;
    h->w_off = off;
    off += (size_t)h->in * h->out;
    h->b_off = off;
    off += (size_t)h->out;
    if (h->out > net->max_width)
        net->max_width = h->out;
    return off;
}

/* SplitMix64 (Steele, Lea & Flood 2014): a tiny, well-mixed generator, identical on every platform. */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]: never 0, so the log in Box–Muller is finite. */
static double unit_open(uint64_t *s) { return ((splitmix64(s) >> 11) + 1) * (1.0 / 9007199254740992.0); }

/* Standard normal by Box–Muller, using one fresh pair per draw (simple and reproducible). */
static double normal(uint64_t *s)
{
    double u = unit_open(s), v = unit_open(s);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static void fill_normal(float *w, size_t n, double sd, uint64_t *s)
{
    for (size_t i = 0; i < n; i++)
        w[i] = (float)(sd * normal(s));
}

static void init_params(nn_net *net, uint64_t seed)
{
    uint64_t s = seed;
    memset(net->params, 0, net->n_params * sizeof(float));
    for (int i = 0; i < net->cfg.n_hidden; i++) {
        const nn_affine *a = &net->hid[i];
        fill_normal(net->params + a->w_off, (size_t)a->in * a->out, sqrt(2.0 / a->in), &s);
    }
    /* Heads, each with its own fan_out: policy (n_policy rows), value (n_value), margin (1). */
    const nn_affine *h = &net->head;
    float *w = net->params + h->w_off;
    int rows[3] = {net->cfg.n_policy, net->cfg.n_value, 1};
    for (int k = 0; k < 2 + net->cfg.margin_head; k++) {
        fill_normal(w, (size_t)rows[k] * h->in, sqrt(2.0 / (h->in + rows[k])), &s);
        w += (size_t)rows[k] * h->in;
    }
}

nn_net *nn_net_create(const nn_config *cfg, uint64_t seed, char *err)
{
    if (nn_config_check(cfg, err) != NN_OK)
        return NULL;
    nn_net *net = calloc(1, sizeof *net);
    if (!net) {
        nn_fail(err, NN_ENOMEM, "out of memory");
        return NULL;
    }
    /* Normalised copy: unused hidden slots and the bytes after the activation name zeroed, so two configs
     * describing the same net compare equal byte for byte (nn_net_copy_params, tests). */
    memset(&net->cfg, 0, sizeof net->cfg);
    net->cfg.input_dim = cfg->input_dim;
    net->cfg.n_hidden = cfg->n_hidden;
    memcpy(net->cfg.hidden, cfg->hidden, (size_t)cfg->n_hidden * sizeof(int));
    net->cfg.residual = cfg->residual;
    net->cfg.n_policy = cfg->n_policy;
    net->cfg.n_value = cfg->n_value;
    net->cfg.margin_head = cfg->margin_head;
    strcpy(net->cfg.activation, cfg->activation);
    net->cfg.onehot_inputs = cfg->onehot_inputs;
    net->cfg.onehot_levels = cfg->onehot_levels;
    net->cfg.onehot_scale = cfg->onehot_scale;
    net->n_params = layout(net);
    net->params = nn_alloc_aligned(net->n_params * sizeof(float));
    if (!net->params) {
        nn_fail(err, NN_ENOMEM, "out of memory for %zu parameters", net->n_params);
        free(net);
        return NULL;
    }
    init_params(net, seed);
    nn_params_changed(net);
    return net;
}

void nn_net_free(nn_net *net)
{
    if (!net)
        return;
    nn_free_aligned(net->params);
    free(net);
}

nn_net *nn_net_clone(const nn_net *src)
{
    nn_net *net = nn_net_create(&src->cfg, 0, NULL);
    if (net) {
        memcpy(net->params, src->params, net->n_params * sizeof(float));
        nn_params_changed(net);
    }
    return net;
}

int nn_net_copy_params(nn_net *dst, const nn_net *src)
{
    if (dst->n_params != src->n_params || memcmp(&dst->cfg, &src->cfg, sizeof dst->cfg) != 0)
        return NN_EINVAL;
    memcpy(dst->params, src->params, dst->n_params * sizeof(float));
    nn_params_changed(dst);
    return NN_OK;
}

const nn_config *nn_net_config(const nn_net *net) { return &net->cfg; }
size_t nn_param_count(const nn_net *net) { return net->n_params; }
void nn_params_changed(nn_net *net)
{
    static atomic_uint_fast64_t versions; /* from 1: a workspace's 0 matches no net */
    net->gen = atomic_fetch_add_explicit(&versions, 1, memory_order_relaxed) + 1;
}

float *nn_params(nn_net *net)
{
    nn_params_changed(net); /* the caller may write through the pointer (net.h) */
    return net->params;
}
const float *nn_params_const(const nn_net *net) { return net->params; }

double nn_forward_flops(const nn_net *net)
{
    double f = 0;
    for (int i = 0; i < net->cfg.n_hidden; i++)
        f += 2.0 * net->hid[i].in * net->hid[i].out;
    return f + 2.0 * net->head.in * net->head.out;
}

int nn_layer_count(const nn_net *net) { return net->cfg.n_hidden + 2 + net->cfg.margin_head; }

int nn_layer_get(const nn_net *net, int i, nn_layer *out)
{
    int nh = net->cfg.n_hidden;
    if (i < 0 || i >= nn_layer_count(net))
        return NN_EINVAL;
    memset(out, 0, sizeof *out);
    if (i < nh) {
        const nn_affine *a = &net->hid[i];
        snprintf(out->name, sizeof out->name, "%02d_hidden", i);
        out->in = a->in;
        out->out = a->out;
        out->w_offset = a->w_off;
        out->b_offset = a->b_off;
        out->residual = a->residual;
        return NN_OK;
    }
    /* A head: a row range of the fused head matrix and bias. */
    static const char *names[3] = {"policy", "value", "margin"};
    int k = i - nh;
    int row0 = k == 0 ? 0 : k == 1 ? net->cfg.n_policy : net->cfg.n_policy + net->cfg.n_value;
    const nn_affine *h = &net->head;
    snprintf(out->name, sizeof out->name, "%02d_%s", i, names[k]);
    out->in = h->in;
    out->out = k == 0 ? net->cfg.n_policy : k == 1 ? net->cfg.n_value : 1;
    out->w_offset = h->w_off + (size_t)row0 * h->in;
    out->b_offset = h->b_off + (size_t)row0;
    return NN_OK;
}

nn_loss_weights nn_loss_weights_default(void)
{
    nn_loss_weights w = {1.0, 1.0, 0.25, 1e-4};
    return w;
}
