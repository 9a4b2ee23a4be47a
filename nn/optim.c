/* optim.c — SGD with momentum, Adam and learning-rate schedules (formulas in optim.h). */
#include "nn/optim.h"
#include "nn/net_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct nn_optim {
    nn_optim_config cfg;
    size_t n;
    int64_t t;
    int n_state;
    float *state[2];
    float *block;
};

nn_optim_config nn_optim_config_default(void)
{
    nn_optim_config c;
    memset(&c, 0, sizeof c);
    c.kind = NN_OPT_ADAM;
    c.momentum = 0.9;
    c.beta1 = 0.9;
    c.beta2 = 0.999;
    c.eps = 1e-8;
    c.sched.kind = NN_LR_CONSTANT;
    c.sched.lr = 1e-3;
    c.sched.gamma = 0.1;
    c.sched.step_size = 10000;
    c.sched.total_steps = 100000;
    c.sched.lr_min = 0.0;
    return c;
}

static const char *opt_names[] = {"sgd", "adam"};
static const char *lr_names[] = {"constant", "step", "cosine"};

const char *nn_opt_kind_name(nn_opt_kind k) { return (unsigned)k < 2 ? opt_names[k] : "?"; }
const char *nn_lr_kind_name(nn_lr_kind k) { return (unsigned)k < 3 ? lr_names[k] : "?"; }

int nn_opt_kind_parse(const char *s, nn_opt_kind *out)
{
    for (int i = 0; i < 2; i++)
        if (s && !strcmp(s, opt_names[i])) {
            *out = (nn_opt_kind)i;
            return NN_OK;
        }
    return NN_EINVAL;
}

int nn_lr_kind_parse(const char *s, nn_lr_kind *out)
{
    for (int i = 0; i < 3; i++)
        if (s && !strcmp(s, lr_names[i])) {
            *out = (nn_lr_kind)i;
            return NN_OK;
        }
    return NN_EINVAL;
}

int nn_optim_config_check(const nn_optim_config *c, char *err)
{
    if (!c)
        return nn_fail(err, NN_EINVAL, "optimiser config is NULL");
    if (c->kind != NN_OPT_SGD && c->kind != NN_OPT_ADAM)
        return nn_fail(err, NN_EINVAL, "optimizer kind %d unknown (sgd, adam)", (int)c->kind);
    /* Written as !(in range) so NaN fails too. */
    if (!(c->momentum >= 0 && c->momentum < 1))
        return nn_fail(err, NN_EINVAL, "momentum %g out of range [0, 1)", c->momentum);
    if (!(c->beta1 >= 0 && c->beta1 < 1))
        return nn_fail(err, NN_EINVAL, "beta1 %g out of range [0, 1)", c->beta1);
    if (!(c->beta2 >= 0 && c->beta2 < 1))
        return nn_fail(err, NN_EINVAL, "beta2 %g out of range [0, 1)", c->beta2);
    if (!(c->eps > 0 && isfinite(c->eps)))
        return nn_fail(err, NN_EINVAL, "eps %g must be > 0", c->eps);
    const nn_lr_schedule *s = &c->sched;
    if (s->kind != NN_LR_CONSTANT && s->kind != NN_LR_STEP && s->kind != NN_LR_COSINE)
        return nn_fail(err, NN_EINVAL, "lr schedule %d unknown (constant, step, cosine)", (int)s->kind);
    if (!(s->lr > 0 && isfinite(s->lr)))
        return nn_fail(err, NN_EINVAL, "lr %g must be > 0", s->lr);
    if (s->kind == NN_LR_STEP) {
        if (!(s->gamma > 0 && s->gamma <= 1))
            return nn_fail(err, NN_EINVAL, "lr gamma %g out of range (0, 1]", s->gamma);
        if (s->step_size < 1)
            return nn_fail(err, NN_EINVAL, "lr step_size %lld must be >= 1", (long long)s->step_size);
    }
    if (s->kind == NN_LR_COSINE) {
        if (s->total_steps < 1)
            return nn_fail(err, NN_EINVAL, "lr total_steps %lld must be >= 1", (long long)s->total_steps);
        if (!(s->lr_min >= 0 && s->lr_min <= s->lr))
            return nn_fail(err, NN_EINVAL, "lr_min %g out of range [0, lr]", s->lr_min);
    }
    return NN_OK;
}

double nn_lr_at(const nn_lr_schedule *s, int64_t t)
{
    if (t < 0)
        t = 0;
    switch (s->kind) {
    case NN_LR_STEP:
        return s->lr * pow(s->gamma, (double)(t / s->step_size));
    case NN_LR_COSINE: {
        double f = (double)(t < s->total_steps ? t : s->total_steps) / (double)s->total_steps;
        return s->lr_min + (s->lr - s->lr_min) * 0.5 * (1.0 + cos(3.141592653589793 * f));
    }
    default:
        return s->lr;
    }
}

nn_optim *nn_optim_create(const nn_optim_config *c, size_t n_params, char *err)
{
    if (nn_optim_config_check(c, err) != NN_OK)
        return NULL;
    if (n_params == 0) {
        nn_fail(err, NN_EINVAL, "optimiser for 0 parameters");
        return NULL;
    }
    nn_optim *o = calloc(1, sizeof *o);
    if (!o) {
        nn_fail(err, NN_ENOMEM, "out of memory");
        return NULL;
    }
    o->cfg = *c;
    o->n = n_params;
    o->n_state = c->kind == NN_OPT_ADAM ? 2 : 1;
    size_t per = (n_params + 15) / 16 * 16;
    o->block = nn_alloc_aligned(per * o->n_state * sizeof(float));
    if (!o->block) {
        free(o);
        nn_fail(err, NN_ENOMEM, "out of memory for optimiser state");
        return NULL;
    }
    memset(o->block, 0, per * o->n_state * sizeof(float));
    for (int i = 0; i < o->n_state; i++)
        o->state[i] = o->block + per * i;
    return o;
}

void nn_optim_free(nn_optim *o)
{
    if (!o)
        return;
    nn_free_aligned(o->block);
    free(o);
}

double nn_optim_step(nn_optim *o, float *params, const float *grad)
{
    double lr = nn_lr_at(&o->cfg.sched, o->t);
    size_t n = o->n;
    if (o->cfg.kind == NN_OPT_SGD) {
        float mu = (float)o->cfg.momentum, a = (float)lr;
        float *v = o->state[0];
        for (size_t i = 0; i < n; i++) {
            v[i] = mu * v[i] + grad[i];
            params[i] -= a * v[i];
        }
    } else {
        float b1 = (float)o->cfg.beta1, b2 = (float)o->cfg.beta2, eps = (float)o->cfg.eps;
        /* Bias corrections in double: b^(t+1) underflows gracefully and stays exact for small t. */
        double c1 = 1.0 - pow(o->cfg.beta1, (double)(o->t + 1));
        double c2 = 1.0 - pow(o->cfg.beta2, (double)(o->t + 1));
        float a = (float)(lr / c1), ic2 = (float)(1.0 / c2);
        float *m = o->state[0], *s = o->state[1];
        for (size_t i = 0; i < n; i++) {
            float g = grad[i];
            m[i] = b1 * m[i] + (1.0f - b1) * g;
            s[i] = b2 * s[i] + (1.0f - b2) * g * g;
            params[i] -= a * m[i] / (sqrtf(s[i] * ic2) + eps);
        }
    }
    o->t++;
    return lr;
}

const nn_optim_config *nn_optim_get_config(const nn_optim *o) { return &o->cfg; }
size_t nn_optim_param_count(const nn_optim *o) { return o->n; }
int64_t nn_optim_steps(const nn_optim *o) { return o->t; }
void nn_optim_set_steps(nn_optim *o, int64_t t) { o->t = t < 0 ? 0 : t; }
void nn_optim_set_total_steps(nn_optim *o, int64_t total) { o->cfg.sched.total_steps = total < 1 ? 1 : total; }
int nn_optim_state_count(const nn_optim *o) { return o->n_state; }

float *nn_optim_state(nn_optim *o, int i, const char **name)
{
    static const char *sgd[] = {"velocity"}, *adam[] = {"m", "v"};
    if (i < 0 || i >= o->n_state)
        return NULL;
    if (name)
        *name = o->cfg.kind == NN_OPT_ADAM ? adam[i] : sgd[i];
    return o->state[i];
}
