/* net.h — the policy/value network: a multilayer perceptron on float tensors (docs/design.md §3.2).
 *
 * nn/ knows nothing of any game. A position arrives as `input_dim` floats (the encoding is the caller's,
 * e.g. kalah_encode in env/kalah.h, named by KALAH_ENCODING_NAME); moves are `n_policy` slots with an
 * optional legality mask (1 = legal).
 *
 * Architecture (all matrices row-major, activations batch × width):
 *   h_0 = [x, onehot(x_0), ..., onehot(x_{I-1})]               (batch × nn_input_width: input_dim + I·K)
 *         with I = cfg.onehot_inputs (0: h_0 = x), K = cfg.onehot_levels, and onehot(v) the K indicators of
 *         level min(max(round(v · cfg.onehot_scale), 0), K - 1): the first I inputs are also given to the
 *         first layer as one-hot features (for Kalah: each pit's seed count, encoded count / seeds, scale =
 *         seeds). A count is then a row of W_1 of its own instead of one slope, so the first layer reads
 *         "this pit holds exactly k" (an extra turn, a capture) without spending hidden units on it — the
 *         feature transformer of NNUE-style evaluation (Nasu 2018) in its simplest form. The caller still
 *         passes input_dim floats; the expansion is the net's, and the BLAS path never forms it: the
 *         first layer is x W_1[:, :input_dim]^T plus one column of W_1 per expanded input (as NNUE's
 *         accumulator), its gradient likewise (nn/forward.c; a residual first layer, as wide as the
 *         expanded row, multiplies the expanded rows instead).
 *   h_i = relu(h_{i-1} W_i^T + b_i [+ h_{i-1}])   i = 1..n_hidden, W_i is hidden[i-1] × width(h_{i-1});
 *         the bracketed skip term is added when cfg.residual is set and the layer's input and output
 *         widths are equal (a one-layer residual block, ReLU after the sum as in He et al. 2016, v1).
 *   heads = h_L [W_p; W_v; W_m]^T + [b_p; b_v; b_m]            (one sgemm for all heads)
 *   logits = heads[:, 0..n_policy-1]
 *   policy = softmax over the legal slots of logits (illegal slots get probability 0)
 *   value  = tanh(heads[:, n_policy .. n_policy+n_value-1])    (n_value outputs, each in [-1, 1])
 *   margin = heads[:, n_policy+n_value]  (only with cfg.margin_head; linear, the caller chooses the scaling)
 *
 * The value head has cfg.n_value outputs (1..NN_MAX_VALUE): one for a two-player game (the expected result
 * for the mover), or one per player for a game of more players (what each output means is the caller's
 * convention, e.g. the result of each seat in an order relative to the mover). W_v is n_value × width(h_L),
 * b_v has n_value entries; value outputs and targets are batch × n_value, row-major.
 *
 * Parameters live in ONE 64-byte-aligned float array (nn_params), laid out layer by layer:
 *   W_1, b_1, W_2, b_2, ..., W_L, b_L, W_p, W_v, [W_m], b_p, b_v, [b_m]
 * so the three head matrices form one (n_policy+n_value[+1]) × width(h_L) matrix. Gradients use the same
 * layout (one caller-owned array of nn_param_count floats). nn_layer_get describes each tensor's offset and
 * shape; for files the heads are reported as three separate layers (policy, value, margin).
 *
 * Initialisation (nn_net_create, seeded, reproducible across platforms: SplitMix64 + Box–Muller in double):
 *   hidden layers (followed by ReLU): He normal, W ~ N(0, 2 / fan_in)   (He et al. 2015)
 *   heads (no ReLU):                  Xavier/Glorot normal, W ~ N(0, 2 / (fan_in + fan_out))
 *                                     (Glorot & Bengio 2010), computed per head with its own fan_out
 *   biases: 0.
 *
 * The default net (nn_config_default): hidden 256-256-256, ReLU, no residual, a value head of one output and
 * a margin head. For Kalah(6,4) with kalah_encode: input_dim 14, n_policy 6 → 137,480 parameters. `sowzero bench net` uses it.
 *
 * Threads: a net is read-only during nn_forward / nn_train_grad, so one net may be shared by any number of
 * threads, each with its own nn_workspace. Writing parameters (optimiser step, nn_net_copy_params) needs
 * exclusive access. BLAS threading: see nn_set_blas_threads.
 *
 * Errors: functions return NN_OK (0) or a negative nn_status; where an `err` buffer is taken (NN_ERRLEN
 * bytes, may be NULL) it receives a one-line message. The library never prints.
 */
#ifndef SOWZERO_NN_NET_H
#define SOWZERO_NN_NET_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

#define NN_MAX_HIDDEN 8
#define NN_MAX_VALUE 8 /* most value-head outputs (players of a multi-player game) */
#define NN_ERRLEN SZ_ERRLEN
#define NN_NAMELEN 32
#define NN_MAX_ONEHOT_LEVELS 256

typedef enum {
    NN_OK = SZ_OK,
    NN_EINVAL = SZ_EINVAL,    /* bad argument or configuration */
    NN_ENOMEM = SZ_ENOMEM,
    NN_EIO = SZ_EIO,      /* file cannot be opened/written/renamed */
    NN_EFORMAT = SZ_EFORMAT,   /* not a sowzero net file, wrong version, truncated or corrupt */
    NN_EMISMATCH = SZ_EMISMATCH  /* a valid file that does not fit what the caller asked for (rules, shapes) */
} nn_status;

typedef struct {
    int input_dim;                  /* floats per position, >= 1 */
    int n_hidden;                   /* hidden layers, 1..NN_MAX_HIDDEN */
    int hidden[NN_MAX_HIDDEN];      /* widths of the hidden layers, each >= 1 */
    int residual;                   /* 0/1: skip connection on every hidden layer with equal in/out width */
    int n_policy;                   /* policy slots (moves), >= 1 */
    int n_value;                    /* value-head outputs, 1..NN_MAX_VALUE (1 for a two-player game) */
    int margin_head;                /* 0/1: add the auxiliary margin head (the value head always exists) */
    char activation[16];            /* hidden activation name; only "relu" is supported */
    int onehot_inputs;              /* I: inputs 0..I-1 also expanded into one-hot features; 0..input_dim */
    int onehot_levels;              /* K: levels per expanded input, 2..NN_MAX_ONEHOT_LEVELS (0 when I = 0) */
    float onehot_scale;             /* an input's level is round(x * scale), clamped to 0..K-1; > 0 (0 when
                                     * I = 0) */
} nn_config;

/* Floats of the first layer's input row: input_dim + onehot_inputs * onehot_levels (top of this file). */
int nn_input_width(const nn_config *cfg);

typedef struct nn_net nn_net;
typedef struct nn_workspace nn_workspace;

/* The default net for an input of input_dim floats and n_policy moves (see the top of this file);
 * n_value = 1. */
nn_config nn_config_default(int input_dim, int n_policy);

/* Checks every field; NN_OK or NN_EINVAL with a message naming the field. */
int nn_config_check(const nn_config *cfg, char *err);

/* Creates a net with freshly initialised weights (see the top: He / Xavier, seeded by `seed`).
 * Returns NULL on a bad config (message in err) or out of memory. Free with nn_net_free. */
nn_net *nn_net_create(const nn_config *cfg, uint64_t seed, char *err);
void nn_net_free(nn_net *net);

/* A deep copy (config and parameters); NULL when out of memory. */
nn_net *nn_net_clone(const nn_net *net);

/* Copies src's parameters into dst (same config required: NN_EINVAL otherwise). Used to publish trained
 * weights to the self-play net; the caller ensures no thread is reading dst meanwhile. */
int nn_net_copy_params(nn_net *dst, const nn_net *src);

/* The net's config, normalised: hidden[] beyond n_hidden and the activation's tail bytes are zero. */
const nn_config *nn_net_config(const nn_net *net);

/* The parameter array (layout at the top) and its length in floats. nn_params is the writable view: each
 * call marks the parameters as changed, so that workspaces drop what they derived from them (a net with
 * one-hot inputs: the transposed one-hot block of W_1, nn/forward.c); take the pointer anew for each round
 * of writes, not once for the net's lifetime. nn_params_const does not. */
size_t nn_param_count(const nn_net *net);
float *nn_params(nn_net *net);
const float *nn_params_const(const nn_net *net);

/* Floating-point operations of one forward pass for one position: 2 * sum over layers of in*out
 * (multiply-adds of the matrix products only). */
double nn_forward_flops(const nn_net *net);

/* ---- tensors, as files see them ---- */

/* One logical layer: weight W (out × in, row-major, at params + w_offset) and bias b (out, at params +
 * b_offset). Layers are numbered 0..nn_layer_count-1: the hidden layers in order, then "policy", "value",
 * and (if present) "margin". `name` is "NN_kind" as written under /layers in HDF5 files, e.g. "00_hidden",
 * "01_hidden", "03_policy". `residual` is 1 when the layer adds its input (hidden layers only). The heads'
 * `out`: n_policy (policy), n_value (value), 1 (margin). */
typedef struct {
    char name[NN_NAMELEN];
    int in, out;
    size_t w_offset, b_offset;
    int residual;
} nn_layer;

int nn_layer_count(const nn_net *net);
/* Fills *out for layer i (0 <= i < nn_layer_count); NN_EINVAL when out of range. */
int nn_layer_get(const nn_net *net, int i, nn_layer *out);

/* ---- inference ---- */

/* Sets how many threads OpenBLAS may use (n >= 1). Self-play calls the net from several worker threads at
 * once, so the library must not add BLAS threads of its own: unless this was called earlier, the first
 * nn_workspace_create sets OpenBLAS to 1 thread. Call it (e.g. with the core count) only for a single
 * caller thread doing large batches, such as the trainer. Process-wide; not thread-safe against
 * concurrent BLAS calls. */
void nn_set_blas_threads(int n);

/* Scratch memory for one thread's forward passes of up to max_batch positions (>= 1). A workspace may be
 * used with any net whose layer widths are not larger than net's. NULL when out of memory / bad args.
 * nn_workspace_create_train also allocates what nn_train_grad needs. */
nn_workspace *nn_workspace_create(const nn_net *net, int max_batch);
nn_workspace *nn_workspace_create_train(const nn_net *net, int max_batch);
void nn_workspace_free(nn_workspace *ws);
int nn_workspace_max_batch(const nn_workspace *ws);

/* Forward pass for `batch` positions (1..max_batch of ws).
 *   x:      batch × input_dim floats
 *   legal:  batch × n_policy bytes, nonzero = legal, or NULL (all legal)
 *   policy: batch × n_policy out: softmax over the legal slots, 0 on illegal ones (a row with no legal
 *           slot gets all zeros)
 *   value:  batch × n_value out (row-major): tanh of each value output, in [-1, 1]
 * Either output may be NULL. Returns NN_OK, or NN_EINVAL (batch out of range, workspace too small). */
int nn_forward(const nn_net *net, nn_workspace *ws, const float *x, const uint8_t *legal, int batch,
               float *policy, float *value);

/* Every output of the forward pass; any pointer may be NULL.
 *   logits: batch × n_policy raw policy logits (before masking)
 *   value:  batch × n_value, as for nn_forward
 *   margin: batch, the margin head's linear output (left untouched when the net has no margin head) */
typedef struct {
    float *policy, *logits, *value, *margin;
} nn_outputs;
int nn_forward_ex(const nn_net *net, nn_workspace *ws, const float *x, const uint8_t *legal, int batch,
                  const nn_outputs *out);

/* ---- training ---- */

/* One mini-batch of training examples; every array has `batch` rows. */
typedef struct {
    int batch;
    const float *x;        /* batch × input_dim */
    const uint8_t *legal;  /* batch × n_policy, or NULL (all legal) */
    const float *pi;       /* batch × n_policy target policy (e.g. MCTS visit shares); illegal slots ignored */
    const float *z;        /* batch × n_value value targets in [-1, 1] (row-major; for n_value = 1 the
                              result for the mover) */
    const float *margin;   /* batch margin-head targets, or NULL (no margin term even with a margin head) */
} nn_batch;

/* Loss weights. Loss (docs/design.md §3.2, AlphaZero, Silver et al. 2018, plus the auxiliary margin term):
 *   L = policy_w * mean_n CE(pi_n, p_n) + value_w * mean_n [ (1/n_value) sum_j (z_nj - v_nj)^2 ]
 *       + margin_w * mean_n (m_n - margin_n)^2 + l2 * sum over weight matrices of W^2   (biases excluded)
 * with CE(pi, p) = -sum_{legal j} pi_j log p_j and p the masked softmax, j = 0..n_value-1 the value outputs.
 * pi need not sum to 1: its sum weighs the row's policy term (the gradient is p_j * sum(pi) - pi_j), so a
 * row with pi all zero trains the value (and margin) only (selfplay's value-only samples, replay.h).
 * The value term is the mean squared error over all batch × n_value outputs, so value_w keeps its meaning
 * (and the loss its scale) whatever n_value is; for n_value = 1 it is AlphaZero's (z - v)^2. */
typedef struct {
    double policy_w, value_w, margin_w, l2;
} nn_loss_weights;

/* policy_w 1, value_w 1, margin_w 0.25, l2 1e-4. */
nn_loss_weights nn_loss_weights_default(void);

/* Each term of L as weighted into the total (policy = policy_w * mean CE, ...), and the total. */
typedef struct {
    double total, policy, value, margin, l2;
} nn_loss;

/* Forward + loss + backward on one batch with the BLAS path. Writes dL/dθ into grad (nn_param_count
 * floats, layout of nn_params, overwritten, not accumulated) and the loss terms into *loss (may be NULL).
 * ws must come from nn_workspace_create_train with max_batch >= b->batch. NN_OK or NN_EINVAL. */
int nn_train_grad(const nn_net *net, nn_workspace *ws, const nn_batch *b, const nn_loss_weights *w,
                  float *grad, nn_loss *loss);

/* ---- naive reference (tests) ----
 * Plain loops in double, no BLAS, no workspace: the definition the fast path is tested against.
 * theta: parameters in the nn_params layout as doubles, or NULL to use the net's own (converted).
 * Outputs as for nn_forward_ex / nn_train_grad but in double; grad (nn_param_count doubles) may be NULL to
 * compute only the loss. NN_OK, NN_EINVAL or NN_ENOMEM. */
typedef struct {
    double *policy, *logits, *value, *margin;
} nn_outputs_ref;
int nn_forward_ref(const nn_net *net, const double *theta, const float *x, const uint8_t *legal, int batch,
                   const nn_outputs_ref *out);
int nn_train_grad_ref(const nn_net *net, const double *theta, const nn_batch *b, const nn_loss_weights *w,
                      double *grad, nn_loss *loss);

#endif
