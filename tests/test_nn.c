/* test_nn.c — the network (nn/net.h, nn/optim.h): initialisation, layout, masked policy, the BLAS path
 * against the naive double reference (forward and gradients), the reference gradient against central
 * finite differences for every parameter, learning a small fixed data set, optimisers and schedules, and
 * concurrent forward passes on one shared net; all with one value output and with a vector value head
 * (n_value = 3, the multi-player case), whose loss term is checked against its formula; one-hot input
 * features against a plain net on rows expanded by hand and against the reference. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <math.h>
#include <pthread.h>
#include "nn/net.h"
#include "nn/optim.h"

/* Deterministic data: xorshift64* floats in [-1, 1). */
static uint64_t rng_state;
static float frand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) / 4503599627370496.0 - 1.0);
}

static nn_config small_cfg(int residual, int margin, int n_value)
{
    nn_config c = nn_config_default(5, 4);
    c.n_hidden = 3;
    c.hidden[0] = 6;
    c.hidden[1] = 6;
    c.hidden[2] = 3;
    c.residual = residual;
    c.margin_head = margin;
    c.n_value = n_value;
    return c;
}

static nn_net *make_net(const nn_config *c, uint64_t seed)
{
    char err[NN_ERRLEN];
    nn_net *n = nn_net_create(c, seed, err);
    if (!n)
        fail_msg("nn_net_create: %s", err);
    return n;
}

/* A batch of random examples; legal has some zeros but never an all-illegal row; pi is a distribution over
 * the legal slots; z has V targets per row. Arrays are malloc'd into *b (free with free_batch). */
static void make_batch_v(nn_batch *b, int n, int in, int P, int V, int with_margin)
{
    float *x = malloc(sizeof(float) * n * in), *pi = malloc(sizeof(float) * n * P);
    float *z = malloc(sizeof(float) * n * V), *m = malloc(sizeof(float) * n);
    uint8_t *lg = malloc((size_t)n * P);
    for (int i = 0; i < n * in; i++)
        x[i] = frand();
    for (int r = 0; r < n; r++) {
        float s = 0;
        for (int j = 0; j < P; j++) {
            lg[r * P + j] = j == r % P || frand() > -0.4f;
            pi[r * P + j] = lg[r * P + j] ? frand() + 1.5f : 0.0f;
            s += pi[r * P + j];
        }
        for (int j = 0; j < P; j++)
            pi[r * P + j] /= s;
        for (int j = 0; j < V; j++)
            z[r * V + j] = frand() * 0.9f;
        m[r] = frand() * 0.5f;
    }
    b->batch = n;
    b->x = x;
    b->legal = lg;
    b->pi = pi;
    b->z = z;
    b->margin = with_margin ? m : NULL;
    if (!with_margin)
        free(m);
}

static void make_batch(nn_batch *b, int n, int in, int P, int with_margin)
{
    make_batch_v(b, n, in, P, 1, with_margin);
}

static void free_batch(nn_batch *b)
{
    free((void *)b->x);
    free((void *)b->legal);
    free((void *)b->pi);
    free((void *)b->z);
    free((void *)b->margin);
}

static void test_config_and_layout(void **state)
{
    (void)state;
    char err[NN_ERRLEN];
    nn_config c = nn_config_default(14, 6);
    assert_int_equal(c.n_value, 1);
    for (int V = 1; V <= 3; V += 2) {
        c.n_value = V;
        nn_net *net = make_net(&c, 1);
        /* 14*256+256 + 2*(256*256+256) + (6+V+1)*256 + 6+V+1: 137,480 for V = 1 */
        assert_int_equal(nn_param_count(net), 137480 + (V - 1) * 257);
        assert_true(nn_forward_flops(net) == 2.0 * (14 * 256 + 2 * 256 * 256 + (7 + V) * 256));
        assert_int_equal(nn_layer_count(net), 6);
        /* The layers tile the parameter array exactly once. */
        size_t n = nn_param_count(net);
        unsigned char *seen = calloc(n, 1);
        const char *names[6] = {"00_hidden", "01_hidden", "02_hidden", "03_policy", "04_value", "05_margin"};
        const int outs[6] = {256, 256, 256, 6, V, 1};
        nn_layer L[6];
        for (int i = 0; i < 6; i++) {
            assert_int_equal(nn_layer_get(net, i, &L[i]), NN_OK);
            assert_string_equal(L[i].name, names[i]);
            assert_int_equal(L[i].out, outs[i]);
            for (size_t k = 0; k < (size_t)L[i].in * L[i].out; k++)
                seen[L[i].w_offset + k]++;
            for (size_t k = 0; k < (size_t)L[i].out; k++)
                seen[L[i].b_offset + k]++;
        }
        for (size_t i = 0; i < n; i++)
            assert_int_equal(seen[i], 1);
        free(seen);
        /* The documented order W_p, W_v, W_m, b_p, b_v, b_m (one fused head matrix). */
        assert_int_equal(L[4].w_offset, L[3].w_offset + 6 * 256);
        assert_int_equal(L[5].w_offset, L[4].w_offset + (size_t)V * 256);
        assert_int_equal(L[3].b_offset, L[5].w_offset + 256);
        assert_int_equal(L[4].b_offset, L[3].b_offset + 6);
        assert_int_equal(L[5].b_offset, L[4].b_offset + (size_t)V);
        assert_int_equal(nn_layer_get(net, 6, &L[0]), NN_EINVAL);
        nn_net_free(net);
    }
    c.n_value = 1;

    /* Bad configs name the field. */
    nn_config b = c;
    b.n_hidden = 0;
    assert_int_equal(nn_config_check(&b, err), NN_EINVAL);
    assert_non_null(strstr(err, "n_hidden"));
    b = c;
    b.hidden[1] = 0;
    assert_null(nn_net_create(&b, 1, err));
    assert_non_null(strstr(err, "hidden[1]"));
    b = c;
    strcpy(b.activation, "tanh");
    assert_int_equal(nn_config_check(&b, err), NN_EINVAL);
    assert_non_null(strstr(err, "activation"));
    const int bad_v[2] = {0, NN_MAX_VALUE + 1};
    for (int i = 0; i < 2; i++) {
        b = c;
        b.n_value = bad_v[i];
        assert_null(nn_net_create(&b, 1, err));
        assert_non_null(strstr(err, "n_value"));
    }
    b = c;
    b.n_value = NN_MAX_VALUE;
    assert_int_equal(nn_config_check(&b, err), NN_OK);
}

/* He for hidden layers (var 2/fan_in), Xavier for heads (var 2/(fan_in+fan_out)), zero biases, seeded. */
static void init_check(int n_value)
{
    nn_config c = nn_config_default(14, 6);
    c.n_value = n_value;
    nn_net *a = make_net(&c, 7), *b = make_net(&c, 7), *d = make_net(&c, 8);
    size_t n = nn_param_count(a);
    assert_memory_equal(nn_params(a), nn_params(b), n * sizeof(float));
    assert_true(memcmp(nn_params(a), nn_params(d), n * sizeof(float)) != 0);
    for (int i = 0; i < nn_layer_count(a); i++) {
        nn_layer L;
        nn_layer_get(a, i, &L);
        const float *w = nn_params(a) + L.w_offset;
        double s = 0, s2 = 0, cnt = (double)L.in * L.out;
        for (size_t k = 0; k < (size_t)cnt; k++) {
            s += w[k];
            s2 += (double)w[k] * w[k];
        }
        double var = s2 / cnt, want = i < 3 ? 2.0 / L.in : 2.0 / (L.in + L.out);
        /* Sample variance of cnt normals: relative sd sqrt(2/cnt); allow 5 sd. */
        double tol = 5 * sqrt(2.0 / cnt);
        if (fabs(var / want - 1) > tol)
            fail_msg("layer %s: variance %g, want %g", L.name, var, want);
        assert_true(fabs(s / cnt) < 5 * sqrt(want / cnt));
        for (int k = 0; k < L.out; k++)
            assert_true(nn_params(a)[L.b_offset + k] == 0.0f);
    }
    nn_net_free(a);
    nn_net_free(b);
    nn_net_free(d);
}

static void test_init(void **state)
{
    (void)state;
    init_check(1);
    init_check(3); /* the value head's fan_out is n_value */
}

static void test_masked_policy(void **state)
{
    (void)state;
    nn_config c = small_cfg(0, 1, 1);
    nn_net *net = make_net(&c, 3);
    nn_workspace *ws = nn_workspace_create(net, 4);
    float x[3 * 5], pol[3 * 4], val[3], logits[3 * 4], marg[3];
    for (int i = 0; i < 15; i++)
        x[i] = frand();
    uint8_t legal[12] = {1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    nn_outputs o = {pol, logits, val, marg};
    assert_int_equal(nn_forward_ex(net, ws, x, legal, 3, &o), NN_OK);
    assert_true(pol[1] == 0 && pol[3] == 0);
    assert_float_equal(pol[0] + pol[2], 1.0, 1e-6);
    /* Two legal slots: p_0 / p_2 = exp(l_0 - l_2). */
    assert_float_equal(pol[0] / pol[2], expf(logits[0] - logits[2]), 1e-4);
    for (int j = 4; j < 8; j++)
        assert_true(pol[j] == 0.0f); /* no legal move: all zeros */
    float s = 0;
    for (int j = 8; j < 12; j++)
        s += pol[j];
    assert_float_equal(s, 1.0, 1e-6);
    for (int r = 0; r < 3; r++)
        assert_true(val[r] > -1 && val[r] < 1);
    /* NULL mask = all legal; nn_forward agrees with nn_forward_ex. */
    float pol2[12], val2[3];
    assert_int_equal(nn_forward(net, ws, x, NULL, 3, pol2, val2), NN_OK);
    assert_memory_equal(val, val2, sizeof val);
    assert_float_equal(pol2[0] + pol2[1] + pol2[2] + pol2[3], 1.0, 1e-6);
    /* Bad batch sizes. */
    assert_int_equal(nn_forward(net, ws, x, NULL, 5, pol2, val2), NN_EINVAL);
    assert_int_equal(nn_forward(net, ws, x, NULL, 0, pol2, val2), NN_EINVAL);
    /* A forward-only workspace refuses training. */
    nn_batch b;
    make_batch(&b, 2, 5, 4, 1);
    float *g = malloc(nn_param_count(net) * sizeof(float));
    nn_loss_weights w = nn_loss_weights_default();
    assert_int_equal(nn_train_grad(net, ws, &b, &w, g, NULL), NN_EINVAL);
    free(g);
    free_batch(&b);
    nn_workspace_free(ws);
    nn_net_free(net);
}

/* The BLAS forward equals the double reference on several shapes (residual on/off, margin on/off). */
static void test_forward_matches_reference(void **state)
{
    (void)state;
    /* Variants 4..7 repeat 0..3 with a vector value head (n_value = 3). */
    for (int variant = 0; variant < 8; variant++) {
        nn_config c = nn_config_default(14, 6);
        c.hidden[0] = 40;
        c.hidden[1] = 40;
        c.hidden[2] = 24;
        c.residual = variant & 1;
        c.margin_head = (variant >> 1) & 1;
        c.n_value = variant >= 4 ? 3 : 1;
        int V = c.n_value;
        nn_net *net = make_net(&c, 100 + variant);
        int batch = variant % 4 == 0 ? 1 : 37;
        nn_batch b;
        make_batch_v(&b, batch, 14, 6, V, 0);
        nn_workspace *ws = nn_workspace_create(net, 64);
        float *pol = malloc(sizeof(float) * batch * 6), *lg = malloc(sizeof(float) * batch * 6);
        float *val = malloc(sizeof(float) * batch * V), *mg = malloc(sizeof(float) * batch);
        double *rpol = malloc(sizeof(double) * batch * 6), *rlg = malloc(sizeof(double) * batch * 6);
        double *rval = malloc(sizeof(double) * batch * V), *rmg = malloc(sizeof(double) * batch);
        nn_outputs o = {pol, lg, val, mg};
        nn_outputs_ref ro = {rpol, rlg, rval, rmg};
        assert_int_equal(nn_forward_ex(net, ws, b.x, b.legal, batch, &o), NN_OK);
        assert_int_equal(nn_forward_ref(net, NULL, b.x, b.legal, batch, &ro), NN_OK);
        for (int i = 0; i < batch * 6; i++) {
            assert_float_equal(pol[i], rpol[i], 1e-5);
            assert_float_equal(lg[i], rlg[i], 1e-4 * (1 + fabs(rlg[i])));
        }
        for (int r = 0; r < batch; r++) {
            for (int j = 0; j < V; j++)
                assert_float_equal(val[r * V + j], rval[r * V + j], 1e-5);
            if (V > 1) /* separate outputs, not one value repeated */
                assert_true(val[r * V] != val[r * V + 1] && val[r * V + 1] != val[r * V + 2]);
            if (c.margin_head)
                assert_float_equal(mg[r], rmg[r], 1e-4 * (1 + fabs(rmg[r])));
        }
        /* nn_forward's value output has the same layout. */
        float *val2 = malloc(sizeof(float) * batch * V);
        assert_int_equal(nn_forward(net, ws, b.x, b.legal, batch, NULL, val2), NN_OK);
        assert_memory_equal(val, val2, sizeof(float) * batch * V);
        free(val2);
        free(pol), free(lg), free(val), free(mg), free(rpol), free(rlg), free(rval), free(rmg);
        free_batch(&b);
        nn_workspace_free(ws);
        nn_net_free(net);
    }
}

/* Central finite differences in double on the reference loss, for every parameter of every tensor
 * (hidden weights and biases, residual layers, all three heads), with every loss term switched on. */
static void gradcheck(int residual, int margin, int n_value)
{
    nn_config c = small_cfg(residual, margin, n_value);
    nn_net *net = make_net(&c, 11 + residual);
    size_t n = nn_param_count(net);
    double *th = malloc(n * sizeof(double)), *g = malloc(n * sizeof(double));
    /* Non-zero biases so the bias paths are exercised away from the initial zeros. */
    for (size_t i = 0; i < n; i++)
        th[i] = nn_params(net)[i] + 0.05 * frand();
    nn_batch b;
    make_batch_v(&b, 4, 5, 4, n_value, margin);
    nn_loss_weights w = {0.7, 1.3, 0.9, 0.01};
    nn_loss L;
    assert_int_equal(nn_train_grad_ref(net, th, &b, &w, g, &L), NN_OK);
    assert_true(L.policy > 0 && L.value > 0 && L.l2 > 0 && (margin ? L.margin > 0 : L.margin == 0));
    assert_float_equal(L.total, L.policy + L.value + L.margin + L.l2, 1e-12);
    const double h = 1e-6;
    for (int li = 0; li < nn_layer_count(net); li++) {
        nn_layer ly;
        nn_layer_get(net, li, &ly);
        size_t offs[2] = {ly.w_offset, ly.b_offset}, cnt[2] = {(size_t)ly.in * ly.out, (size_t)ly.out};
        for (int t = 0; t < 2; t++)
            for (size_t k = 0; k < cnt[t]; k++) {
                size_t i = offs[t] + k;
                double keep = th[i];
                nn_loss lp, lm;
                th[i] = keep + h;
                nn_train_grad_ref(net, th, &b, &w, NULL, &lp);
                th[i] = keep - h;
                nn_train_grad_ref(net, th, &b, &w, NULL, &lm);
                th[i] = keep;
                double fd = (lp.total - lm.total) / (2 * h);
                if (fabs(fd - g[i]) > 1e-7 + 1e-5 * fabs(g[i]))
                    fail_msg("n_value %d layer %s %s[%zu]: analytic %.10g, finite difference %.10g", n_value,
                             ly.name, t ? "b" : "W", k, g[i], fd);
            }
    }
    free_batch(&b);
    free(th);
    free(g);
    nn_net_free(net);
}

static void test_gradcheck_plain(void **state)
{
    (void)state;
    gradcheck(0, 1, 1);
    gradcheck(0, 0, 1);
}

static void test_gradcheck_residual(void **state)
{
    (void)state;
    gradcheck(1, 1, 1);
}

/* The vector value head (n_value = 3), margin head on and off. */
static void test_gradcheck_vector_value(void **state)
{
    (void)state;
    gradcheck(0, 1, 3);
    gradcheck(1, 0, 3);
}

/* nn_train_grad against nn_train_grad_ref on one batch: every loss term, and every gradient relative to the
 * largest (float vs double). what names the case in a failure. */
static void grads_match_reference(const nn_net *net, nn_workspace *ws, const nn_batch *b, const char *what)
{
    const size_t n = nn_param_count(net);
    float *g = malloc(n * sizeof(float));
    double *rg = malloc(n * sizeof(double));
    nn_loss_weights w = {1, 1, 0.5, 1e-3};
    nn_loss L, RL;
    assert_int_equal(nn_train_grad(net, ws, b, &w, g, &L), NN_OK);
    assert_int_equal(nn_train_grad_ref(net, NULL, b, &w, rg, &RL), NN_OK);
    assert_float_equal(L.policy, RL.policy, 1e-5);
    assert_float_equal(L.value, RL.value, 1e-5);
    assert_float_equal(L.margin, RL.margin, 1e-5);
    assert_float_equal(L.l2, RL.l2, 1e-5 * RL.l2);
    assert_float_equal(L.total, RL.total, 1e-5);
    assert_true(nn_net_config(net)->margin_head ? L.margin > 0 : L.margin == 0);
    double gmax = 0;
    for (size_t i = 0; i < n; i++)
        gmax = fmax(gmax, fabs(rg[i]));
    for (size_t i = 0; i < n; i++)
        if (fabs(g[i] - rg[i]) > 1e-4 * gmax)
            fail_msg("%s param %zu: blas %g, reference %g", what, i, g[i], rg[i]);
    free(g);
    free(rg);
}

/* The BLAS backward equals the reference backward (float vs double, relative to the largest gradient); one
 * value output (residual off/on, margin on), and three (margin on/off). */
static void test_grad_matches_reference(void **state)
{
    (void)state;
    const struct {
        int residual, margin, n_value;
    } cases[] = {{0, 1, 1}, {1, 1, 1}, {0, 1, 3}, {1, 0, 3}};
    for (int ci = 0; ci < 4; ci++) {
        int residual = cases[ci].residual, V = cases[ci].n_value;
        nn_config c = nn_config_default(14, 6);
        c.hidden[0] = 32;
        c.hidden[1] = 32;
        c.hidden[2] = 32;
        c.residual = residual;
        c.margin_head = cases[ci].margin;
        c.n_value = V;
        nn_net *net = make_net(&c, 40 + residual + 10 * (V - 1) + (1 - c.margin_head));
        nn_batch b;
        make_batch_v(&b, 19, 14, 6, V, 1);
        nn_workspace *ws = nn_workspace_create_train(net, 32);
        char what[64];
        snprintf(what, sizeof what, "residual=%d n_value=%d", residual, V);
        grads_match_reference(net, ws, &b, what);
        free_batch(&b);
        nn_workspace_free(ws);
        nn_net_free(net);
    }
}

/* The BLAS forward pass of n rows (6 policy slots) equals the double reference's: policy and value. */
static void forward_matches_reference(const nn_net *net, nn_workspace *ws, const float *x, const uint8_t *legal,
                                      int n)
{
    enum { MAXN = 64 };
    assert_true(n <= MAXN);
    float pol[MAXN * 6], val[MAXN], mg[MAXN];
    double rpol[MAXN * 6], rval[MAXN], rmg[MAXN];
    nn_outputs o = {pol, NULL, val, mg};
    nn_outputs_ref ro = {rpol, NULL, rval, rmg};
    assert_int_equal(nn_forward_ex(net, ws, x, legal, n, &o), NN_OK);
    assert_int_equal(nn_forward_ref(net, NULL, x, legal, n, &ro), NN_OK);
    for (int i = 0; i < n * 6; i++)
        assert_float_equal(pol[i], rpol[i], 1e-5);
    for (int i = 0; i < n; i++)
        assert_float_equal(val[i], rval[i], 1e-5);
}

/* One-hot input features (net.h): a net with onehot_inputs = 12, K = 6, scale 4 computes exactly what a
 * plain net of input_dim 14 + 72 with the same parameters computes on rows expanded here by hand (seed
 * counts 0..9 and -1 as count / 4: levels 0..5, the top ones and the negative clamped); the BLAS path
 * equals the double reference (forward and gradient) on such rows and on rows of arbitrary floats; the
 * config checks name the field. */
static void test_onehot_inputs(void **state)
{
    (void)state;
    enum { D = 14, NI = 12, K = 6, E = D + NI * K, N = 23 };
    char err[NN_ERRLEN];
    nn_config c = nn_config_default(D, 6);
    c.hidden[0] = c.hidden[1] = c.hidden[2] = 24;
    c.onehot_inputs = NI;
    c.onehot_levels = K;
    c.onehot_scale = 4.0f;
    assert_int_equal(nn_input_width(&c), E);
    nn_net *net = make_net(&c, 77);
    nn_layer first;
    assert_int_equal(nn_layer_get(net, 0, &first), NN_OK);
    assert_int_equal(first.in, E);
    nn_config pc = c;
    pc.input_dim = E;
    pc.onehot_inputs = pc.onehot_levels = 0;
    pc.onehot_scale = 0.0f;
    nn_net *plain = make_net(&pc, 1);
    assert_int_equal(nn_param_count(plain), nn_param_count(net));
    memcpy(nn_params(plain), nn_params(net), nn_param_count(net) * sizeof(float));

    static float x[N * D], xe[N * E];
    memset(xe, 0, sizeof xe);
    for (int r = 0; r < N; r++)
        for (int j = 0; j < D; j++) {
            const int count = (r * 7 + j * 3) % 11 - 1; /* -1 .. 9 */
            x[r * D + j] = count * 0.25f;
            xe[r * E + j] = x[r * D + j];
            if (j < NI)
                xe[r * E + D + j * K + (count < 0 ? 0 : count > K - 1 ? K - 1 : count)] = 1.0f;
        }
    nn_workspace *ws = nn_workspace_create_train(net, N), *pws = nn_workspace_create(plain, N);
    float pol[N * 6], val[N], mg[N], ppol[N * 6], pval[N], pmg[N];
    nn_outputs o = {pol, NULL, val, mg}, po = {ppol, NULL, pval, pmg};
    assert_int_equal(nn_forward_ex(net, ws, x, NULL, N, &o), NN_OK);
    assert_int_equal(nn_forward_ex(plain, pws, xe, NULL, N, &po), NN_OK);
    for (int i = 0; i < N * 6; i++)
        assert_float_equal(pol[i], ppol[i], 1e-6);
    for (int i = 0; i < N; i++) {
        assert_float_equal(val[i], pval[i], 1e-6);
        assert_float_equal(mg[i], pmg[i], 1e-5);
    }

    /* The reference, on the count rows and on rows of arbitrary floats (levels from rounding). */
    for (int data = 0; data < 2; data++) {
        nn_batch b;
        make_batch(&b, N, D, 6, 1);
        if (data == 0)
            memcpy((float *)b.x, x, sizeof x);
        else
            for (int i = 0; i < N * D; i++)
                ((float *)b.x)[i] *= 3.0f;
        forward_matches_reference(net, ws, b.x, b.legal, N);
        grads_match_reference(net, ws, &b, data ? "one-hot, arbitrary floats" : "one-hot, counts");
        free_batch(&b);
    }
    /* The workspace keeps W_1's one-hot block transposed between calls: a write through nn_params, a
     * copy of another net's parameters, or another net on the same workspace is seen by the next call. */
    {
        nn_layer l0;
        assert_int_equal(nn_layer_get(net, 0, &l0), NN_OK);
        nn_net *other = make_net(&c, 78);
        for (int change = 0; change < 3; change++) {
            if (change == 0) /* pit 0 at the top level (the rows where it holds 5 or more) */
                for (int j = 0; j < l0.out; j++)
                    nn_params(net)[l0.w_offset + (size_t)j * l0.in + D + 0 * K + 5] += 0.5f;
            const nn_net *use = change == 1 ? other : net;
            if (change == 2)
                assert_int_equal(nn_net_copy_params(net, other), NN_OK);
            forward_matches_reference(use, ws, x, NULL, N);
        }
        nn_net_free(other);
    }

    /* A first layer as wide as the expanded row is residual: it reads the expanded rows themselves (the
     * sparse product, which never forms them, serves every other one-hot net); the same checks. */
    nn_config rc = c;
    rc.residual = 1;
    rc.hidden[0] = rc.hidden[1] = E;
    nn_net *rnet = make_net(&rc, 5);
    assert_int_equal(nn_layer_get(rnet, 0, &first), NN_OK);
    assert_true(first.residual);
    nn_workspace *rws = nn_workspace_create_train(rnet, N);
    nn_batch rb;
    make_batch(&rb, N, D, 6, 1);
    memcpy((float *)rb.x, x, sizeof x);
    forward_matches_reference(rnet, rws, rb.x, rb.legal, N);
    grads_match_reference(rnet, rws, &rb, "one-hot, residual first layer");
    free_batch(&rb);
    nn_workspace_free(rws);
    nn_net_free(rnet);

    /* a workspace of a net without one-hot inputs is too small for this one */
    assert_int_equal(nn_forward(net, pws, x, NULL, 1, pol, val), NN_EINVAL);
    nn_workspace_free(ws);
    nn_workspace_free(pws);
    nn_net_free(plain);
    nn_net_free(net);

    /* each bad field alone: inputs past input_dim, one level, no scale, levels without inputs */
    static const char *const named[4] = {"onehot_inputs", "onehot_levels", "onehot_scale", "without onehot_inputs"};
    for (int k = 0; k < 4; k++) {
        nn_config bad = c;
        if (k == 0)
            bad.onehot_inputs = D + 1;
        else if (k == 1)
            bad.onehot_levels = 1;
        else if (k == 2)
            bad.onehot_scale = 0.0f;
        else
            bad.onehot_inputs = 0;
        assert_int_equal(nn_config_check(&bad, err), NN_EINVAL);
        if (!strstr(err, named[k]))
            fail_msg("bad config %d: message '%s' lacks '%s'", k, err, named[k]);
    }
}

/* The value term is value_w * mean over rows of the mean over outputs of (z - v)^2 (net.h), computed here
 * from the forward outputs; for n_value = 1 that is AlphaZero's value_w * mean (z - v)^2. Both paths. */
static void test_value_loss_formula(void **state)
{
    (void)state;
    for (int V = 1; V <= 3; V += 2) {
        nn_config c = small_cfg(0, 1, V);
        nn_net *net = make_net(&c, 21 + V);
        enum { N = 7 };
        nn_batch b;
        make_batch_v(&b, N, 5, 4, V, 1);
        float val[N * 3];
        nn_workspace *ws = nn_workspace_create_train(net, N);
        assert_int_equal(nn_forward(net, ws, b.x, b.legal, N, NULL, val), NN_OK);
        double se = 0;
        for (int i = 0; i < N * V; i++)
            se += ((double)b.z[i] - val[i]) * ((double)b.z[i] - val[i]);
        nn_loss_weights w = {0.5, 1.7, 0.25, 0};
        double want = 1.7 * (se / V) / N;
        float *g = malloc(nn_param_count(net) * sizeof(float));
        nn_loss L, RL;
        assert_int_equal(nn_train_grad(net, ws, &b, &w, g, &L), NN_OK);
        assert_int_equal(nn_train_grad_ref(net, NULL, &b, &w, NULL, &RL), NN_OK);
        assert_float_equal(L.value, want, 1e-6 * want);
        assert_float_equal(RL.value, want, 1e-5 * want);
        /* A target equal to the output zeroes the term and the value rows of the head gradient. */
        float *z = (float *)b.z;
        memcpy(z, val, sizeof(float) * N * V);
        w.policy_w = w.margin_w = 0;
        assert_int_equal(nn_train_grad(net, ws, &b, &w, g, &L), NN_OK);
        assert_true(L.value < 1e-12);
        nn_layer lv;
        nn_layer_get(net, 4, &lv);
        assert_string_equal(lv.name, "04_value");
        assert_int_equal(lv.out, V);
        for (int k = 0; k < V; k++)
            assert_true(fabsf(g[lv.b_offset + k]) < 1e-6f);
        free(g);
        free_batch(&b);
        nn_workspace_free(ws);
        nn_net_free(net);
    }
}

/* A small net learns 8 fixed examples (one-hot policies, values +-1/0) to near-zero loss. */
static void test_fits_small_dataset(void **state)
{
    (void)state;
    enum { N = 8, IN = 4, P = 3 };
    nn_config c = nn_config_default(IN, P);
    c.n_hidden = 2;
    c.hidden[0] = c.hidden[1] = 32;
    nn_net *net = make_net(&c, 5);
    float x[N * IN], pi[N * P] = {0}, z[N], m[N];
    for (int r = 0; r < N; r++) {
        for (int k = 0; k < IN; k++)
            x[r * IN + k] = (float)((r >> (k % 3)) & 1) - 0.5f + 0.1f * k;
        pi[r * P + r % P] = 1.0f;
        z[r] = (float)(r % 3 - 1) * 0.8f;
        m[r] = 0.1f * (float)r - 0.3f;
    }
    nn_batch b = {N, x, NULL, pi, z, m};
    nn_loss_weights w = {1, 1, 1, 0};
    nn_optim_config oc = nn_optim_config_default();
    oc.sched.lr = 0.01;
    char err[NN_ERRLEN];
    nn_optim *opt = nn_optim_create(&oc, nn_param_count(net), err);
    assert_non_null(opt);
    nn_workspace *ws = nn_workspace_create_train(net, N);
    float *g = malloc(nn_param_count(net) * sizeof(float));
    nn_loss first, L;
    for (int step = 0; step < 600; step++) {
        assert_int_equal(nn_train_grad(net, ws, &b, &w, g, &L), NN_OK);
        if (step == 0)
            first = L;
        nn_optim_step(opt, nn_params(net), g);
    }
    if (!(L.policy < 0.01 && L.value < 1e-3 && L.margin < 1e-3))
        fail_msg("loss after 600 steps: policy %g value %g margin %g (start %g %g %g)", L.policy, L.value,
                 L.margin, first.policy, first.value, first.margin);
    assert_true(first.total > 100 * L.total);
    assert_int_equal(nn_optim_steps(opt), 600);
    free(g);
    nn_workspace_free(ws);
    nn_optim_free(opt);
    nn_net_free(net);
}

static void test_optimisers(void **state)
{
    (void)state;
    char err[NN_ERRLEN];
    nn_optim_config c = nn_optim_config_default();
    c.kind = NN_OPT_SGD;
    c.momentum = 0.5;
    c.sched.lr = 0.1;
    nn_optim *o = nn_optim_create(&c, 2, err);
    float p[2] = {1, -1};
    const float g[2] = {1, 2};
    nn_optim_step(o, p, g); /* v = g; p -= 0.1 g */
    nn_optim_step(o, p, g); /* v = 1.5 g; p -= 0.15 g */
    assert_float_equal(p[0], 1 - 0.25, 1e-6);
    assert_float_equal(p[1], -1 - 0.5, 1e-6);
    const char *name;
    assert_int_equal(nn_optim_state_count(o), 1);
    assert_float_equal(nn_optim_state(o, 0, &name)[1], 3.0, 1e-6);
    assert_string_equal(name, "velocity");
    nn_optim_free(o);

    /* Adam's first steps move each parameter by about lr against the gradient's sign. */
    c = nn_optim_config_default();
    c.sched.lr = 0.01;
    o = nn_optim_create(&c, 2, err);
    float q[2] = {0, 0};
    const float h[2] = {3, -0.001f};
    nn_optim_step(o, q, h);
    assert_float_equal(q[0], -0.01, 1e-6);
    assert_float_equal(q[1], 0.01, 1e-4);
    nn_optim_step(o, q, h);
    assert_float_equal(q[0], -0.02, 1e-6);
    assert_int_equal(nn_optim_state_count(o), 2);
    nn_optim_free(o);

    /* Schedules. */
    nn_lr_schedule s = {NN_LR_STEP, 1.0, 0.5, 10, 0, 0};
    assert_float_equal(nn_lr_at(&s, 9), 1.0, 0);
    assert_float_equal(nn_lr_at(&s, 10), 0.5, 0);
    assert_float_equal(nn_lr_at(&s, 25), 0.25, 0);
    s = (nn_lr_schedule){NN_LR_COSINE, 1.0, 0, 0, 100, 0.1};
    assert_float_equal(nn_lr_at(&s, 0), 1.0, 1e-12);
    assert_float_equal(nn_lr_at(&s, 50), 0.55, 1e-12);
    assert_float_equal(nn_lr_at(&s, 100), 0.1, 1e-12);
    assert_float_equal(nn_lr_at(&s, 500), 0.1, 1e-12);
    s.kind = NN_LR_CONSTANT;
    assert_float_equal(nn_lr_at(&s, 12345), 1.0, 0);

    /* Names and checks. */
    nn_opt_kind k;
    nn_lr_kind lk;
    assert_int_equal(nn_opt_kind_parse("sgd", &k), NN_OK);
    assert_int_equal(k, NN_OPT_SGD);
    assert_int_equal(nn_lr_kind_parse("cosine", &lk), NN_OK);
    assert_int_equal(lk, NN_LR_COSINE);
    assert_int_equal(nn_opt_kind_parse("rmsprop", &k), NN_EINVAL);
    assert_string_equal(nn_lr_kind_name(NN_LR_STEP), "step");
    c = nn_optim_config_default();
    c.beta2 = 1.0;
    assert_null(nn_optim_create(&c, 2, err));
    assert_non_null(strstr(err, "beta2"));
    c = nn_optim_config_default();
    c.sched.kind = NN_LR_COSINE;
    c.sched.lr_min = 1.0;
    assert_int_equal(nn_optim_config_check(&c, err), NN_EINVAL);
    assert_non_null(strstr(err, "lr_min"));
}

/* Several threads share one read-only net, each with its own workspace; results equal a lone thread's. */
typedef struct {
    const nn_net *net;
    const nn_batch *b;
    float *pol, *val;
} fwd_job;

static void *fwd_thread(void *arg)
{
    fwd_job *j = arg;
    nn_workspace *ws = nn_workspace_create(j->net, j->b->batch);
    for (int rep = 0; rep < 20; rep++)
        nn_forward(j->net, ws, j->b->x, j->b->legal, j->b->batch, j->pol, j->val);
    nn_workspace_free(ws);
    return NULL;
}

static void test_shared_net_threads(void **state)
{
    (void)state;
    nn_config c = nn_config_default(14, 6);
    c.hidden[0] = c.hidden[1] = c.hidden[2] = 64;
    nn_net *net = make_net(&c, 9);
    nn_batch b;
    make_batch(&b, 16, 14, 6, 0);
    enum { T = 4 };
    float pol[T + 1][16 * 6], val[T + 1][16];
    fwd_job jobs[T + 1];
    pthread_t th[T];
    for (int t = 0; t <= T; t++)
        jobs[t] = (fwd_job){net, &b, pol[t], val[t]};
    fwd_thread(&jobs[T]);
    for (int t = 0; t < T; t++)
        assert_int_equal(pthread_create(&th[t], NULL, fwd_thread, &jobs[t]), 0);
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        assert_memory_equal(pol[t], pol[T], sizeof pol[T]);
        assert_memory_equal(val[t], val[T], sizeof val[T]);
    }
    free_batch(&b);
    nn_net_free(net);
}

/* Publishing weights: clone and copy_params give identical outputs; a differently shaped net is refused. */
static void test_clone_copy(void **state)
{
    (void)state;
    nn_config c = small_cfg(1, 1, 1);
    nn_net *a = make_net(&c, 1), *b = make_net(&c, 2), *k = nn_net_clone(a);
    assert_non_null(k);
    assert_memory_equal(nn_params(a), nn_params(k), nn_param_count(a) * sizeof(float));
    assert_int_equal(nn_net_copy_params(b, a), NN_OK);
    assert_memory_equal(nn_params(a), nn_params(b), nn_param_count(a) * sizeof(float));
    nn_config d = c;
    d.hidden[2] = 4;
    nn_net *e = make_net(&d, 1);
    assert_int_equal(nn_net_copy_params(e, a), NN_EINVAL);
    /* A vector value head: cloned with its n_value; a net differing only in n_value is refused. */
    d = c;
    d.n_value = 3;
    nn_net *f = make_net(&d, 4), *fk = nn_net_clone(f);
    assert_non_null(fk);
    assert_int_equal(nn_net_config(fk)->n_value, 3);
    assert_int_equal(nn_param_count(fk), nn_param_count(a) + 2 * (3 + 1));
    assert_memory_equal(nn_params(f), nn_params(fk), nn_param_count(f) * sizeof(float));
    assert_int_equal(nn_net_copy_params(f, a), NN_EINVAL);
    assert_int_equal(nn_net_copy_params(a, f), NN_EINVAL);
    nn_net_free(a), nn_net_free(b), nn_net_free(k), nn_net_free(e), nn_net_free(f), nn_net_free(fk);
}

int main(void)
{
    rng_state = 0x9E3779B97F4A7C15ull;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_and_layout),        cmocka_unit_test(test_init),
        cmocka_unit_test(test_masked_policy),            cmocka_unit_test(test_forward_matches_reference),
        cmocka_unit_test(test_gradcheck_plain),          cmocka_unit_test(test_gradcheck_residual),
        cmocka_unit_test(test_gradcheck_vector_value),   cmocka_unit_test(test_value_loss_formula),
        cmocka_unit_test(test_grad_matches_reference),   cmocka_unit_test(test_fits_small_dataset),
        cmocka_unit_test(test_optimisers),               cmocka_unit_test(test_shared_net_threads),
        cmocka_unit_test(test_clone_copy),               cmocka_unit_test(test_onehot_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
