/* forward.c — the BLAS path: workspaces, batched forward, and forward + loss + backward (net.h).
 *
 * Every matrix product is one cblas_sgemm over the whole batch; each layer's bias, skip term and ReLU are
 * applied in a single pass over the sgemm output (and in backward the ReLU mask and the bias gradient share
 * one pass), so nothing is copied between layers. */
#include "nn/net_internal.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static nn_workspace *ws_create(const nn_net *net, int max_batch, int train)
{
    if (!net || max_batch < 1)
        return NULL;
    nn_blas_threads_default();
    nn_workspace *ws = calloc(1, sizeof *ws);
    if (!ws)
        return NULL;
    ws->max_batch = max_batch;
    ws->n_hidden = net->cfg.n_hidden;
    ws->width = net->max_width;
    ws->train = train;
    /* Buffers rounded to 16 floats so each starts 64-byte aligned inside the one block. */
    size_t per = ((size_t)max_batch * ws->width + 15) / 16 * 16;
    const int expand = net->cfg.onehot_inputs > 0;
    ws->in_width = expand ? nn_input_width(&net->cfg) : 0;
    size_t per_in = ((size_t)max_batch * (size_t)ws->in_width + 15) / 16 * 16;
    size_t per_wt = ((size_t)ws->in_width * (size_t)ws->width + 15) / 16 * 16;
    /* xin, hot (ints, as wide as floats), wt and in training its gradient */
    size_t n = per * (size_t)(ws->n_hidden + 1 + (train ? 3 : 0)) + 2 * per_in + per_wt * (train ? 2 : 1);
    ws->block = nn_alloc_aligned(n * sizeof(float));
    if (!ws->block) {
        free(ws);
        return NULL;
    }
    float *p = ws->block;
    for (int i = 0; i < ws->n_hidden; i++, p += per)
        ws->act[i] = p;
    ws->heads = p;
    p += per;
    if (train) {
        ws->d0 = p;
        ws->d1 = p + per;
        ws->dheads = p + 2 * per;
        p += 3 * per;
    }
    ws->xin = expand ? p : NULL;
    ws->hot = expand ? (int *)(p + per_in) : NULL;
    ws->wt = expand ? p + 2 * per_in : NULL;
    ws->wt_grad = expand && train ? p + 2 * per_in + per_wt : NULL;
    return ws;
}

nn_workspace *nn_workspace_create(const nn_net *net, int max_batch) { return ws_create(net, max_batch, 0); }
nn_workspace *nn_workspace_create_train(const nn_net *net, int max_batch)
{
    return ws_create(net, max_batch, 1);
}

void nn_workspace_free(nn_workspace *ws)
{
    if (!ws)
        return;
    nn_free_aligned(ws->block);
    free(ws);
}

int nn_workspace_max_batch(const nn_workspace *ws) { return ws->max_batch; }

static int ws_fits(const nn_net *net, const nn_workspace *ws, int batch)
{
    return ws && batch >= 1 && batch <= ws->max_batch && net->cfg.n_hidden <= ws->n_hidden &&
           net->max_width <= ws->width &&
           (!net->cfg.onehot_inputs || nn_input_width(&net->cfg) <= ws->in_width);
}

/* dst[c * ldd + r] = src[r * lds + c] for r < rows, c < cols, in 16 × 16 tiles (a plain loop strides one
 * side by a whole row per element: at 256 × 192 it cost as much as the products it saves). */
static void transpose(const float *src, size_t lds, float *dst, size_t ldd, int rows, int cols)
{
    enum { T = 16 };
    for (int r0 = 0; r0 < rows; r0 += T)
        for (int c0 = 0; c0 < cols; c0 += T) {
            const int r1 = r0 + T < rows ? r0 + T : rows, c1 = c0 + T < cols ? c0 + T : cols;
            for (int r = r0; r < r1; r++)
                for (int c = c0; c < c1; c++)
                    dst[(size_t)c * ldd + (size_t)r] = src[(size_t)r * lds + (size_t)c];
        }
}

/* y[0..n-1] += x[0..n-1]: the one-hot columns' adds. nn/ is built for the baseline ISA (OpenBLAS picks its
 * own kernels at run time), so on x86-64 GCC also makes an AVX2 clone chosen at load time: the baseline
 * one ran at a quarter of its speed and took back most of what skipping the products gained. Not under
 * ThreadSanitizer, whose runtime is not up yet when the clone's resolver (an ifunc) runs: every binary
 * crashed at load. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
static void add_row(float *restrict y, const float *restrict x, int n)
{
    for (int j = 0; j < n; j++)
        y[j] += x[j];
}

/* The first layer of a net with one-hot inputs, without materialising them (net.h): a row's features are
 * I indicators among I·K (net.h), so its product with W_1 is the dense part x W_1[:, :D]^T (one sgemm with K = D)
 * plus one column of W_1 per expanded input, added from a transposed copy of the one-hot block (ws->wt,
 * I·K × out floats, made again only when the parameters' version changed: once per net in self-play, once
 * per step in training, against batch × I·K × out multiply-adds of the dense product). Fills
 * ws->hot (row r's columns, I per row) for the backward pass; h is batch × out, before bias and ReLU. */
static void onehot_first_layer(const nn_net *net, nn_workspace *ws, const float *x, int batch, float *h)
{
    const nn_config *c = &net->cfg;
    const nn_affine *a = &net->hid[0];
    const int D = c->input_dim, ni = c->onehot_inputs, K = c->onehot_levels, out = a->out, in = a->in;
    const float *W = net->params + a->w_off;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, out, D, 1.0f, x, D, W, in, 0.0f, h, out);
    if (ws->wt_gen != net->gen) { /* made once per parameter version: self-play reuses it for every call */
        transpose(W + D, (size_t)in, ws->wt, (size_t)out, out, ni * K);
        ws->wt_gen = net->gen;
    }
    for (int r = 0; r < batch; r++) {
        float *hr = h + (size_t)r * out;
        int *hot = ws->hot + (size_t)r * ni;
        for (int i = 0; i < ni; i++) {
            hot[i] = i * K + nn_onehot_level(c, x[(size_t)r * D + i]);
            add_row(hr, ws->wt + (size_t)hot[i] * out, out);
        }
    }
}

/* Whether the first layer reads one-hot features through onehot_first_layer (else from ws->xin: a residual
 * first layer adds its whole input row). */
static int onehot_sparse(const nn_net *net) { return net->cfg.onehot_inputs > 0 && !net->hid[0].residual; }

/* The first layer's input rows: x itself, or its expansion with the one-hot features in ws->xin. */
static const float *first_input(const nn_net *net, nn_workspace *ws, const float *x, int batch)
{
    if (!net->cfg.onehot_inputs || onehot_sparse(net))
        return x;
    nn_expand_input(&net->cfg, x, batch, ws->xin);
    return ws->xin;
}

/* Hidden layers and heads: fills ws->act[*] and ws->heads (batch × head.out); returns the first layer's
 * input rows (x or ws->xin). */
static const float *forward_core(const nn_net *net, nn_workspace *ws, const float *x, int batch)
{
    const float *x0 = first_input(net, ws, x, batch), *in = x0;
    for (int l = 0; l < net->cfg.n_hidden; l++) {
        const nn_affine *a = &net->hid[l];
        const float *W = net->params + a->w_off, *b = net->params + a->b_off;
        float *h = ws->act[l];
        if (l == 0 && onehot_sparse(net))
            onehot_first_layer(net, ws, x, batch, h);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, a->out, a->in, 1.0f, in, a->in, W, a->in,
                        0.0f, h, a->out);
        /* One pass: bias (+ skip) and ReLU. */
        for (int r = 0; r < batch; r++) {
            float *hr = h + (size_t)r * a->out;
            if (a->residual) {
                const float *ir = in + (size_t)r * a->in;
                for (int j = 0; j < a->out; j++) {
                    float v = hr[j] + b[j] + ir[j];
                    hr[j] = v > 0.0f ? v : 0.0f;
                }
            } else {
                for (int j = 0; j < a->out; j++) {
                    float v = hr[j] + b[j];
                    hr[j] = v > 0.0f ? v : 0.0f;
                }
            }
        }
        in = h;
    }
    const nn_affine *hd = &net->head;
    const float *b = net->params + hd->b_off;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, hd->out, hd->in, 1.0f, in, hd->in,
                net->params + hd->w_off, hd->in, 0.0f, ws->heads, hd->out);
    for (int r = 0; r < batch; r++) {
        float *o = ws->heads + (size_t)r * hd->out;
        for (int j = 0; j < hd->out; j++)
            o[j] += b[j];
    }
    return x0;
}

/* Softmax of logits[0..n-1] over the slots with legal[j] != 0 (legal NULL = all); illegal slots get 0, and
 * a row without legal slots gets all zeros. Returns log(sum of exp(l - max)) and sets *mx, so that
 * log p_j = l_j - mx - returned value; returns -INFINITY for an empty row. */
static float masked_softmax(const float *logits, const uint8_t *legal, int n, float *p, float *mx)
{
    float m = -INFINITY;
    for (int j = 0; j < n; j++)
        if ((!legal || legal[j]) && logits[j] > m)
            m = logits[j];
    *mx = m;
    if (m == -INFINITY) {
        for (int j = 0; j < n; j++)
            p[j] = 0.0f;
        return -INFINITY;
    }
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
        float e = (!legal || legal[j]) ? expf(logits[j] - m) : 0.0f;
        p[j] = e;
        s += e;
    }
    float inv = 1.0f / s;
    for (int j = 0; j < n; j++)
        p[j] *= inv;
    return logf(s);
}

/* Flush-to-zero + denormals-are-zero around every forward/backward: subnormal operands cost ~100 cycles
 * each on x86 and a trained net makes them (softmax exp() of very negative logits, products of tiny
 * weights); with them on, self-play ran 2-20x slower. Set per call and restored, so callers' own
 * floating-point mode is left as it was. Single-threaded OpenBLAS runs in this thread and sees the mode. */
#if defined(__SSE__)
#include <xmmintrin.h>
static unsigned fp_fast_begin(void)
{
    unsigned old = _mm_getcsr();
    _mm_setcsr(old | 0x8040); /* FTZ (bit 15) | DAZ (bit 6) */
    return old;
}
static void fp_fast_end(unsigned old) { _mm_setcsr(old); }
#else
static unsigned fp_fast_begin(void) { return 0; }
static void fp_fast_end(unsigned old) { (void)old; }
#endif

static int forward_outputs(const nn_net *net, nn_workspace *ws, const float *x, const uint8_t *legal, int batch,
                           const nn_outputs *out)
{
    forward_core(net, ws, x, batch);
    int P = net->cfg.n_policy, V = net->cfg.n_value, H = net->head.out;
    for (int r = 0; r < batch; r++) {
        const float *o = ws->heads + (size_t)r * H;
        if (out->logits)
            memcpy(out->logits + (size_t)r * P, o, (size_t)P * sizeof(float));
        if (out->policy) {
            float mx;
            masked_softmax(o, legal ? legal + (size_t)r * P : NULL, P, out->policy + (size_t)r * P, &mx);
        }
        if (out->value)
            for (int j = 0; j < V; j++)
                out->value[(size_t)r * V + j] = tanhf(o[P + j]);
        if (out->margin && net->cfg.margin_head)
            out->margin[r] = o[P + V];
    }
    return NN_OK;
}

int nn_forward_ex(const nn_net *net, nn_workspace *ws, const float *x, const uint8_t *legal, int batch,
                  const nn_outputs *out)
{
    if (!net || !x || !out || !ws_fits(net, ws, batch))
        return NN_EINVAL;
    unsigned fp = fp_fast_begin();
    int rc = forward_outputs(net, ws, x, legal, batch, out);
    fp_fast_end(fp);
    return rc;
}

int nn_forward(const nn_net *net, nn_workspace *ws, const float *x, const uint8_t *legal, int batch,
               float *policy, float *value)
{
    nn_outputs o = {policy, NULL, value, NULL};
    return nn_forward_ex(net, ws, x, legal, batch, &o);
}

/* Head deltas dL/d(head outputs) into ws->dheads and the data terms of the loss. */
static void head_deltas(const nn_net *net, nn_workspace *ws, const nn_batch *b, const nn_loss_weights *w,
                        nn_loss *loss)
{
    int P = net->cfg.n_policy, V = net->cfg.n_value, H = net->head.out, n = b->batch;
    int use_margin = net->cfg.margin_head && b->margin;
    double ce = 0, se_v = 0, se_m = 0;
    /* The value term is a mean over batch × n_value outputs (net.h), hence the 1/(n V). */
    float sp = (float)(w->policy_w / n), sv = (float)(w->value_w / ((double)n * V)), sm = (float)(w->margin_w / n);
    for (int r = 0; r < n; r++) {
        const float *o = ws->heads + (size_t)r * H;
        float *d = ws->dheads + (size_t)r * H;
        const uint8_t *lg = b->legal ? b->legal + (size_t)r * P : NULL;
        const float *pi = b->pi + (size_t)r * P;
        float mx;
        /* d holds p first, then becomes the policy delta. */
        float lse = masked_softmax(o, lg, P, d, &mx);
        float S = 0.0f;
        for (int j = 0; j < P; j++)
            if (!lg || lg[j]) {
                S += pi[j];
                if (pi[j] != 0.0f)
                    ce -= (double)pi[j] * (double)(o[j] - mx - lse);
            }
        /* dCE/dl_j = p_j * sum(pi) - pi_j on legal slots (= p - pi when pi sums to 1). */
        for (int j = 0; j < P; j++)
            d[j] = (!lg || lg[j]) ? sp * (d[j] * S - pi[j]) : 0.0f;
        for (int j = 0; j < V; j++) {
            float v = tanhf(o[P + j]), e = v - b->z[(size_t)r * V + j];
            se_v += (double)e * e;
            d[P + j] = sv * 2.0f * e * (1.0f - v * v);
        }
        if (net->cfg.margin_head) {
            float em = use_margin ? o[P + V] - b->margin[r] : 0.0f;
            se_m += (double)em * em;
            d[P + V] = sm * 2.0f * em;
        }
    }
    loss->policy = w->policy_w * ce / n;
    loss->value = w->value_w * se_v / ((double)n * V);
    loss->margin = use_margin ? w->margin_w * se_m / n : 0.0;
}

/* The L2 gradient 2 c W added to gW (n floats); returns c * sum W^2. */
static double l2_grads(const float *W, float *gW, size_t n, double l2)
{
    if (l2 == 0.0)
        return 0.0;
    double s = 0.0;
    float c2 = (float)(2.0 * l2);
    for (size_t i = 0; i < n; i++) {
        s += (double)W[i] * W[i];
        gW[i] += c2 * W[i];
    }
    return l2 * s;
}

/* gW of the first layer of a net with one-hot inputs (onehot_first_layer): the dense columns dY^T x, and
 * each one-hot column the sum of dY over the rows whose feature it is (accumulated in the transposed
 * gradient block ws->wt_grad, then written into gW's rows); plus L2 as
 * affine_grads. */
static double onehot_first_grads(const nn_net *net, nn_workspace *ws, const float *dY, const float *x, int batch,
                                 float *gW, double l2)
{
    const nn_config *c = &net->cfg;
    const nn_affine *a = &net->hid[0];
    const int D = c->input_dim, ni = c->onehot_inputs, nik = ni * c->onehot_levels, out = a->out, in = a->in;
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, D, batch, 1.0f, dY, out, x, D, 0.0f, gW, in);
    float *gt = ws->wt_grad;
    memset(gt, 0, (size_t)nik * out * sizeof(float));
    for (int r = 0; r < batch; r++) {
        const float *d = dY + (size_t)r * out;
        for (int i = 0; i < ni; i++)
            add_row(gt + (size_t)ws->hot[(size_t)r * ni + i] * out, d, out);
    }
    transpose(gt, (size_t)out, gW + D, (size_t)in, nik, out);
    return l2_grads(net->params + a->w_off, gW, (size_t)in * out, l2);
}

/* gW = dY^T X (out × in), gb = column sums of dY, plus the L2 gradient 2 c W; returns c * sum W^2. */
static double affine_grads(const float *dY, const float *X, int batch, int in, int out, const float *W,
                           float *gW, float *gb, double l2, int colsum_done)
{
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, batch, 1.0f, dY, out, X, in, 0.0f, gW, in);
    if (!colsum_done) {
        memset(gb, 0, (size_t)out * sizeof(float));
        for (int r = 0; r < batch; r++) {
            const float *d = dY + (size_t)r * out;
            for (int j = 0; j < out; j++)
                gb[j] += d[j];
        }
    }
    return l2_grads(W, gW, (size_t)in * out, l2);
}

static int train_grad(const nn_net *net, nn_workspace *ws, const nn_batch *b, const nn_loss_weights *w,
                      float *grad, nn_loss *loss)
{
    int n = b->batch, L = net->cfg.n_hidden;
    nn_loss lo = {0};
    const float *x0 = forward_core(net, ws, b->x, n);
    head_deltas(net, ws, b, w, &lo);

    const nn_affine *hd = &net->head;
    const float *hL = ws->act[L - 1];
    const float *Wh = net->params + hd->w_off;
    lo.l2 += affine_grads(ws->dheads, hL, n, hd->in, hd->out, Wh, grad + hd->w_off, grad + hd->b_off, w->l2, 0);
    /* dL/dh_L = dheads · W_heads. */
    float *dh = ws->d0, *dprev = ws->d1;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, hd->in, hd->out, 1.0f, ws->dheads, hd->out, Wh,
                hd->in, 0.0f, dh, hd->in);
    for (int l = L - 1; l >= 0; l--) {
        const nn_affine *a = &net->hid[l];
        const float *h = ws->act[l];
        const float *X = l > 0 ? ws->act[l - 1] : x0;
        const float *W = net->params + a->w_off;
        float *gb = grad + a->b_off;
        /* One pass: ReLU mask (h > 0 iff the pre-activation was > 0) and the bias gradient. */
        memset(gb, 0, (size_t)a->out * sizeof(float));
        for (int r = 0; r < n; r++) {
            float *d = dh + (size_t)r * a->out;
            const float *hr = h + (size_t)r * a->out;
            for (int j = 0; j < a->out; j++) {
                float v = hr[j] > 0.0f ? d[j] : 0.0f;
                d[j] = v;
                gb[j] += v;
            }
        }
        if (l == 0 && onehot_sparse(net))
            lo.l2 += onehot_first_grads(net, ws, dh, b->x, n, grad + a->w_off, w->l2);
        else
            lo.l2 += affine_grads(dh, X, n, a->in, a->out, W, grad + a->w_off, gb, w->l2, 1);
        if (l == 0)
            break;
        /* dL/dh_{l-1} = dA · W (+ dA through the skip). */
        if (a->residual)
            memcpy(dprev, dh, (size_t)n * a->in * sizeof(float));
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, a->in, a->out, 1.0f, dh, a->out, W, a->in,
                    a->residual ? 1.0f : 0.0f, dprev, a->in);
        float *t = dh;
        dh = dprev;
        dprev = t;
    }
    lo.total = lo.policy + lo.value + lo.margin + lo.l2;
    if (loss)
        *loss = lo;
    return NN_OK;
}

int nn_train_grad(const nn_net *net, nn_workspace *ws, const nn_batch *b, const nn_loss_weights *w,
                  float *grad, nn_loss *loss)
{
    if (!net || !b || !w || !grad || !b->x || !b->pi || !b->z || !ws_fits(net, ws, b->batch) || !ws->train)
        return NN_EINVAL;
    unsigned fp = fp_fast_begin();
    int rc = train_grad(net, ws, b, w, grad, loss);
    fp_fast_end(fp);
    return rc;
}
