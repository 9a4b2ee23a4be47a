/* optim.h — optimisers (SGD with momentum, Adam) and learning-rate schedules for a flat parameter array.
 *
 * Weight decay is not applied here: it is the l2 term of the loss (nn/net.h, nn_loss_weights), so its
 * gradient arrives in `grad` already and only on weight matrices.
 *
 * Update rules (t = number of steps taken before this one, lr = nn_lr_at(schedule, t)):
 *   SGD + momentum (the PyTorch form, Sutskever et al. 2013 without Nesterov):
 *       v <- momentum * v + g;   θ <- θ - lr * v
 *   Adam (Kingma & Ba 2015, Algorithm 1):
 *       m <- b1 m + (1-b1) g;  s <- b2 s + (1-b2) g²;  m^ = m/(1-b1^(t+1));  s^ = s/(1-b2^(t+1));
 *       θ <- θ - lr * m^ / (sqrt(s^) + eps)
 * Schedules:
 *   constant: lr
 *   step:     lr * gamma^floor(t / step_size)
 *   cosine:   lr_min + (lr - lr_min) * (1 + cos(pi * min(t, total_steps) / total_steps)) / 2
 *             (Loshchilov & Hutter 2017, one cycle without restarts)
 */
#ifndef SOWZERO_NN_OPTIM_H
#define SOWZERO_NN_OPTIM_H

#include <stddef.h>
#include <stdint.h>

typedef enum { NN_OPT_SGD = 0, NN_OPT_ADAM = 1 } nn_opt_kind;
typedef enum { NN_LR_CONSTANT = 0, NN_LR_STEP = 1, NN_LR_COSINE = 2 } nn_lr_kind;

typedef struct {
    nn_lr_kind kind;
    double lr;           /* base rate, > 0 */
    double gamma;        /* step: factor per step_size steps, in (0, 1] */
    int64_t step_size;   /* step: steps between decays, >= 1 */
    int64_t total_steps; /* cosine: steps of the half cycle, >= 1 */
    double lr_min;       /* cosine: final rate, 0 <= lr_min <= lr */
} nn_lr_schedule;

typedef struct {
    nn_opt_kind kind;
    double momentum;     /* SGD, in [0, 1) */
    double beta1, beta2; /* Adam, in [0, 1) */
    double eps;          /* Adam, > 0 */
    nn_lr_schedule sched;
} nn_optim_config;

typedef struct nn_optim nn_optim;

/* Adam(lr 1e-3, 0.9, 0.999, 1e-8), constant schedule; SGD fields: momentum 0.9. Other schedule fields get
 * usable values (gamma 0.1, step_size 10000, total_steps 100000, lr_min 0). */
nn_optim_config nn_optim_config_default(void);

/* Checks every field of c; NN_OK or NN_EINVAL with a message naming the field (err: NN_ERRLEN bytes). */
int nn_optim_config_check(const nn_optim_config *c, char *err);

/* Names used by config files and checkpoints: "sgd", "adam"; "constant", "step", "cosine".
 * Parsers return NN_OK or NN_EINVAL. */
const char *nn_opt_kind_name(nn_opt_kind k);
const char *nn_lr_kind_name(nn_lr_kind k);
int nn_opt_kind_parse(const char *s, nn_opt_kind *out);
int nn_lr_kind_parse(const char *s, nn_lr_kind *out);

/* The learning rate of step t (0-based) under s. */
double nn_lr_at(const nn_lr_schedule *s, int64_t t);

/* An optimiser for n_params parameters with zeroed state and step 0. NULL on a bad config (message in err)
 * or no memory. */
nn_optim *nn_optim_create(const nn_optim_config *c, size_t n_params, char *err);
void nn_optim_free(nn_optim *o);

/* One update of params (n_params floats) with gradient grad; then the step count increases by 1.
 * Returns the learning rate used. */
double nn_optim_step(nn_optim *o, float *params, const float *grad);

const nn_optim_config *nn_optim_get_config(const nn_optim *o);
size_t nn_optim_param_count(const nn_optim *o);
int64_t nn_optim_steps(const nn_optim *o);
void nn_optim_set_steps(nn_optim *o, int64_t t);

/* Re-plans the cosine schedule while it runs: its half cycle becomes `total` steps (values below 1 are
 * taken as 1); the steps taken and the state are kept, and the next step's rate is nn_lr_at of the new
 * schedule at the same t. For a decay planned over a wall-clock budget (train.lr_anneal_by = time). */
void nn_optim_set_total_steps(nn_optim *o, int64_t total);

/* State vectors for checkpoints: SGD has 1 ("velocity"), Adam 2 ("m", "v"), each n_params floats. Returns
 * NULL (and leaves *name alone) when i is out of range. Writable so a checkpoint loader can restore them. */
int nn_optim_state_count(const nn_optim *o);
float *nn_optim_state(nn_optim *o, int i, const char **name);

#endif
