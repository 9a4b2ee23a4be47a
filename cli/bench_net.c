/* sowzero bench net — forward throughput of the default net (nn/net.h) at batch 1, 32, 256, 1024 next to
 * what bare cblas_sgemm reaches on the same layer shapes, and the time of one training step (forward +
 * loss + backward + Adam update). Every figure is the median of --reps repetitions, each repetition
 * running long enough (--min-ms) to swamp timer resolution. */
#include <cblas.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/bench.h"
#include "cli/cli.h"
#include "nn/net.h"
#include "nn/optim.h"

static void help(void)
{
    puts("usage: sowzero bench net [--reps N] [--min-ms MS] [--train-batch N] [--blas-threads N] [--onehot K]\n"
         "                         [--json]\n"
         "Forward passes of the default net (Kalah(6,4): 14 inputs, hidden 256-256-256, 6 policy logits,\n"
         "value and margin heads) at batch 1, 32, 256, 1024; GFLOP/s counts the matrix products only, and\n"
         "sgemm_gflops is bare cblas_sgemm on the same shapes (the ceiling). Then one training step.\n"
         "  --reps N          repetitions per figure, the median is reported (default 7)\n"
         "  --min-ms MS       minimum duration of one repetition (default 40)\n"
         "  --train-batch N   batch of the training step (default 256)\n"
         "  --blas-threads N  OpenBLAS threads (default 1, as self-play uses it)\n"
         "  --onehot K        the net with one-hot pit features, K levels (net.onehot_levels; 12 pits,\n"
         "                    scale 4, as configs/kalah.ini): its first layer adds one column per pit\n"
         "                    instead of multiplying the expanded row, so GFLOP/s counts the expanded\n"
         "                    row's products and the share is against bare sgemm on those shapes (the\n"
         "                    dense path's ceiling); the training step is also timed for the plain net\n"
         "                    of 14 + 12 K inputs (the dense path's cost) beside it\n"
         "  --json            print {\"rows\":[{\"batch\",\"positions_per_s\",\"gflops\",\"sgemm_gflops\"}],\n"
         "                    \"train_step_ms\",\"train_batch\",\"params\",\"blas_threads\",\"blas_core\"}\n"
         "                    (with --onehot also \"onehot_levels\" and \"dense_train_step_ms\")\n"
         "OpenBLAS kernels: sowzero restarts itself with OPENBLAS_CORETYPE=SkylakeX (or Haswell) when the\n"
         "installed OpenBLAS does not know this CPU and fell back to its SSE3 kernels (blas_core shows the\n"
         "choice); set OPENBLAS_CORETYPE yourself to override.");
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* What a benchmark body runs: `iters` iterations of some work. */
typedef void (*work_fn)(void *ctx, int iters);

/* Repeats fn until min_s has passed, doubling from one call; returns the iteration count that did. */
static int calibrate(work_fn fn, void *ctx, double min_s)
{
    fn(ctx, 1); /* warm-up: page in buffers, let OpenBLAS set up */
    int iters = 1;
    for (;;) {
        double t0 = now();
        fn(ctx, iters);
        double dt = now() - t0;
        if (dt >= min_s || iters >= (1 << 24))
            return iters;
        iters = dt <= 0 ? iters * 16 : (int)(iters * (min_s / dt) * 1.2) + 1;
    }
}

/* Median over reps of seconds per iteration of each of n bodies. The bodies take turns within every
 * repetition, so a burst of load from other processes hits all of them alike and their ratio stays fair. */
static void median_times(int n, work_fn *fn, void *ctx, int reps, double min_s, double *out)
{
    int iters[2];
    double *t = malloc((size_t)reps * n * sizeof *t);
    for (int k = 0; k < n; k++)
        iters[k] = calibrate(fn[k], ctx, min_s);
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < n; k++) {
            double t0 = now();
            fn[k](ctx, iters[k]);
            t[k * reps + r] = (now() - t0) / iters[k];
        }
    for (int k = 0; k < n; k++) {
        qsort(t + k * reps, (size_t)reps, sizeof *t, cmp_double);
        out[k] = t[k * reps + reps / 2];
    }
    free(t);
}

typedef struct {
    const nn_net *net;
    nn_workspace *ws;
    int batch;
    float *x, *policy, *value, *scratch[NN_MAX_HIDDEN + 1], *heads;
    uint8_t *legal;
} fwd_ctx;

static void run_forward(void *p, int iters)
{
    fwd_ctx *c = p;
    for (int i = 0; i < iters; i++)
        nn_forward(c->net, c->ws, c->x, c->legal, c->batch, c->policy, c->value);
}

/* The same sgemm calls as the forward pass (hidden layers, then all heads at once), nothing else. */
static void run_sgemm(void *p, int iters)
{
    fwd_ctx *c = p;
    const float *w = nn_params_const(c->net);
    int nl = nn_layer_count(c->net), nh = nn_net_config(c->net)->n_hidden;
    for (int i = 0; i < iters; i++) {
        const float *in = c->x;
        for (int l = 0; l < nh; l++) {
            nn_layer L;
            nn_layer_get(c->net, l, &L);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, c->batch, L.out, L.in, 1.0f, in, L.in,
                        w + L.w_offset, L.in, 0.0f, c->scratch[l], L.out);
            in = c->scratch[l];
        }
        nn_layer P;
        nn_layer_get(c->net, nh, &P);
        int heads = 0;
        for (int l = nh; l < nl; l++) {
            nn_layer L;
            nn_layer_get(c->net, l, &L);
            heads += L.out;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, c->batch, heads, P.in, 1.0f, in, P.in,
                    w + P.w_offset, P.in, 0.0f, c->heads, heads);
    }
}

typedef struct {
    nn_net *net;
    nn_workspace *ws;
    nn_optim *opt;
    nn_batch b;
    nn_loss_weights w;
    float *grad;
} train_ctx;

static void run_train(void *p, int iters)
{
    train_ctx *c = p;
    for (int i = 0; i < iters; i++) {
        nn_train_grad(c->net, c->ws, &c->b, &c->w, c->grad, NULL);
        nn_optim_step(c->opt, nn_params(c->net), c->grad);
    }
}

static float *rand_floats(size_t n, unsigned *seed)
{
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        v[i] = (float)rand_r(seed) / (float)RAND_MAX;
    return v;
}

static double train_step_ms(nn_net *net, int batch, int reps, double min_s)
{
    const nn_config *cfg = nn_net_config(net);
    unsigned seed = 2;
    train_ctx c = {.net = net, .w = nn_loss_weights_default()};
    nn_optim_config oc = nn_optim_config_default();
    char err[NN_ERRLEN];
    c.opt = nn_optim_create(&oc, nn_param_count(net), err);
    c.ws = nn_workspace_create_train(net, batch);
    c.grad = malloc(nn_param_count(net) * sizeof(float));
    float *x = rand_floats((size_t)batch * cfg->input_dim, &seed);
    float *pi = rand_floats((size_t)batch * cfg->n_policy, &seed);
    float *z = rand_floats((size_t)batch, &seed), *m = rand_floats((size_t)batch, &seed);
    double ms = -1;
    if (c.opt && c.ws && c.grad && x && pi && z && m) {
        for (int r = 0; r < batch; r++) { /* rows of pi sum to 1 */
            float s = 0;
            for (int j = 0; j < cfg->n_policy; j++)
                s += pi[r * cfg->n_policy + j];
            for (int j = 0; j < cfg->n_policy; j++)
                pi[r * cfg->n_policy + j] /= s;
        }
        c.b = (nn_batch){batch, x, NULL, pi, z, m};
        work_fn fn = run_train;
        median_times(1, &fn, &c, reps, min_s, &ms);
        ms *= 1e3;
    }
    free(x), free(pi), free(z), free(m), free(c.grad);
    nn_workspace_free(c.ws);
    nn_optim_free(c.opt);
    return ms;
}

int bench_net(int argc, char **argv)
{
    static const struct option opts[] = {{"reps", required_argument, 0, 'r'},
                                         {"min-ms", required_argument, 0, 'm'},
                                         {"train-batch", required_argument, 0, 't'},
                                         {"blas-threads", required_argument, 0, 'b'},
                                         {"onehot", required_argument, 0, 'o'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    long reps = 7, min_ms = 40, tbatch = 256, threads = 1, onehot = 0;
    int json = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'r': if (!cli_long("bench net", "--reps", optarg, 1, 1000, &reps)) return 2; break;
        case 'm': if (!cli_long("bench net", "--min-ms", optarg, 1, 60000, &min_ms)) return 2; break;
        case 't': if (!cli_long("bench net", "--train-batch", optarg, 1, 65536, &tbatch)) return 2; break;
        case 'b': if (!cli_long("bench net", "--blas-threads", optarg, 1, 256, &threads)) return 2; break;
        case 'o': if (!cli_long("bench net", "--onehot", optarg, 2, NN_MAX_ONEHOT_LEVELS, &onehot)) return 2; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error("bench net");
        }
    }
    if (optind != argc) {
        cli_error("bench net", "unexpected argument '%s'", argv[optind]);
        return cli_usage_error("bench net");
    }
    nn_set_blas_threads((int)threads);
    char err[NN_ERRLEN];
    nn_config cfg = nn_config_default(14, 6);
    if (onehot) {
        cfg.onehot_inputs = 12;
        cfg.onehot_levels = (int)onehot;
        cfg.onehot_scale = 4.0f;
    }
    nn_net *net = nn_net_create(&cfg, 1, err);
    if (!net) {
        cli_error("bench net", "%s", err);
        return 1;
    }
    static const int batches[] = {1, 32, 256, 1024};
    enum { NB = sizeof batches / sizeof batches[0] };
    double pps[NB], gf[NB], sg[NB], flops = nn_forward_flops(net), min_s = (double)min_ms / 1e3;
    unsigned seed = 1;
    int rc = 0;
    for (int i = 0; i < NB && !rc; i++) {
        int b = batches[i];
        fwd_ctx c = {.net = net, .batch = b, .ws = nn_workspace_create(net, b)};
        /* rows of the first layer's input width: run_sgemm multiplies the expanded width (forward reads the first
         * b * input_dim floats as its rows) */
        c.x = rand_floats((size_t)b * (size_t)nn_input_width(&cfg), &seed);
        c.policy = malloc((size_t)b * cfg.n_policy * sizeof(float));
        c.value = malloc((size_t)b * sizeof(float));
        c.legal = malloc((size_t)b * cfg.n_policy);
        c.heads = malloc((size_t)b * (cfg.n_policy + 2) * sizeof(float));
        int ok = c.ws && c.x && c.policy && c.value && c.legal && c.heads;
        for (int l = 0; l < cfg.n_hidden; l++)
            ok = ok && (c.scratch[l] = malloc((size_t)b * cfg.hidden[l] * sizeof(float)));
        if (ok) {
            memset(c.legal, 1, (size_t)b * cfg.n_policy);
            work_fn fns[2] = {run_forward, run_sgemm};
            double t[2];
            median_times(2, fns, &c, (int)reps, min_s, t);
            pps[i] = b / t[0];
            gf[i] = pps[i] * flops / 1e9;
            sg[i] = b * flops / t[1] / 1e9;
        } else {
            cli_error("bench net", "out of memory");
            rc = 1;
        }
        for (int l = 0; l < cfg.n_hidden; l++)
            free(c.scratch[l]);
        free(c.x), free(c.policy), free(c.value), free(c.legal), free(c.heads);
        nn_workspace_free(c.ws);
    }
    double tms = rc ? -1 : train_step_ms(net, (int)tbatch, (int)reps, min_s), dense_ms = 0;
    if (!rc && tms >= 0 && onehot) { /* the anchor: the same products on materialised rows */
        nn_config dc = cfg;
        dc.input_dim = nn_input_width(&cfg);
        dc.onehot_inputs = dc.onehot_levels = 0;
        dc.onehot_scale = 0.0f;
        nn_net *dense = nn_net_create(&dc, 1, err);
        dense_ms = dense ? train_step_ms(dense, (int)tbatch, (int)reps, min_s) : -1;
        nn_net_free(dense);
        tms = dense_ms < 0 ? -1 : tms;
    }
    if (!rc && tms < 0) {
        cli_error("bench net", "out of memory");
        rc = 1;
    }
    if (!rc && json) {
        cJSON *o = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(o, "rows");
        for (int i = 0; i < NB; i++) {
            cJSON *r = cJSON_CreateObject();
            cJSON_AddNumberToObject(r, "batch", batches[i]);
            cJSON_AddNumberToObject(r, "positions_per_s", pps[i]);
            cJSON_AddNumberToObject(r, "gflops", gf[i]);
            cJSON_AddNumberToObject(r, "sgemm_gflops", sg[i]);
            cJSON_AddItemToArray(rows, r);
        }
        cJSON_AddNumberToObject(o, "train_step_ms", tms);
        cJSON_AddNumberToObject(o, "train_batch", (double)tbatch);
        cJSON_AddNumberToObject(o, "params", (double)nn_param_count(net));
        cJSON_AddNumberToObject(o, "blas_threads", (double)threads);
        cJSON_AddStringToObject(o, "blas_core", openblas_get_corename());
        if (onehot) {
            cJSON_AddNumberToObject(o, "onehot_levels", (double)onehot);
            cJSON_AddNumberToObject(o, "dense_train_step_ms", dense_ms);
        }
        rc = cli_print_json(o);
    } else if (!rc) {
        printf("default net%s: %zu parameters, %.0f flops/position, %ld BLAS %s, OpenBLAS core %s\n",
               onehot ? " with one-hot pit features" : "", nn_param_count(net), flops, threads, cli_threads(threads),
               openblas_get_corename());
        printf("%6s %16s %10s %14s %8s\n", "batch", "positions/s", "GFLOP/s", "sgemm GFLOP/s", "share");
        for (int i = 0; i < NB; i++)
            printf("%6d %16.0f %10.2f %14.2f %7.0f%%\n", batches[i], pps[i], gf[i], sg[i], 100 * gf[i] / sg[i]);
        printf("train step (batch %ld, forward+backward+Adam): %.3f ms\n", tbatch, tms);
        if (onehot)
            printf("  the plain net of %d inputs (the expanded rows multiplied): %.3f ms (%.2fx)\n",
                   nn_input_width(&cfg), dense_ms, dense_ms / tms);
    }
    nn_net_free(net);
    return rc;
}
