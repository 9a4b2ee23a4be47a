/* net_internal.h — the layout of nn_net and nn_workspace, shared by the nn/ sources only (not a public
 * header: other modules use nn/net.h). */
#ifndef SOWZERO_NN_NET_INTERNAL_H
#define SOWZERO_NN_NET_INTERNAL_H

#include <stdint.h>

#include "nn/net.h"

/* One fused affine layer: y = x W^T + b with W out × in at params + w_off, b at params + b_off. The heads
 * are one such layer (out = n_policy + n_value [+ 1]). */
typedef struct {
    int in, out;
    size_t w_off, b_off;
    int residual;          /* hidden only: add the input before the ReLU */
} nn_affine;

struct nn_net {
    nn_config cfg;
    nn_affine hid[NN_MAX_HIDDEN];
    nn_affine head;
    int max_width;         /* widest hidden layer or head output */
    size_t n_params;
    float *params;         /* one aligned allocation, layout in net.h */
    uint64_t gen;          /* the parameters' version: unique among all nets of the process, renewed by
                            * nn_params_changed whenever they may have changed (workspaces key their copy of
                            * W_1's one-hot block on it) */
};

struct nn_workspace {
    int max_batch, n_hidden, width, train;
    int in_width;              /* widest first-layer input row it holds (nn_input_width) */
    float *xin;                /* batch × in_width: the expanded input rows (a one-hot net whose first layer
                                * is residual), or NULL */
    int *hot;                  /* batch × onehot_inputs used (room for batch × in_width): each row's one-hot
                                * columns (onehot_first_layer), or NULL */
    float *wt;                 /* in_width × width: the one-hot block of W_1 transposed, or NULL */
    float *wt_grad;            /* train: the same shape, that block's gradient, or NULL */
    uint64_t wt_gen;           /* the net version (nn_net.gen) wt was made from; 0 = none */
    float *act[NN_MAX_HIDDEN]; /* h_i, batch × hidden[i] (row stride = that layer's width) */
    float *heads;              /* batch × head.out */
    float *d0, *d1;            /* train: deltas of hidden activations, batch × width each */
    float *dheads;             /* train: dL/d(head outputs), batch × head.out */
    float *block;              /* the single allocation the pointers above point into */
};

/* Gives net->params a new version (nn_net.gen): after every write to them. */
void nn_params_changed(nn_net *net);

/* The one-hot level of an input value v: min(max(round(v · onehot_scale), 0), onehot_levels - 1), NaN
 * level 0 (net.h). */
int nn_onehot_level(const nn_config *c, float v);

/* The first layer's input rows of `batch` positions (net.h: x, then the one-hot features of inputs
 * 0..onehot_inputs-1): x is batch × input_dim, out batch × nn_input_width(c). */
void nn_expand_input(const nn_config *c, const float *x, int batch, float *out);

/* Aligned allocation helpers (64 bytes); nn_free_aligned(NULL) is a no-op. */
void *nn_alloc_aligned(size_t bytes);
void nn_free_aligned(void *p);

/* Writes msg into err (NN_ERRLEN bytes) when err is non-NULL; returns code. */
int nn_fail(char *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Lets the first workspace pin OpenBLAS to one thread unless the caller chose a count (net.h). */
void nn_blas_threads_default(void);

#endif
