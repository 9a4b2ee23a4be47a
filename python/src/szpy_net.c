/* szpy_net.c — sowzero.Net (szpy_net.h). */
#include "python/src/szpy_net.h"

#include <stdatomic.h>
#include <math.h>
#include <string.h>

#include "nn/h5io.h"
#include "nn/net.h"
#include "python/src/szpy_obs.h"

typedef struct {
    PyObject_HEAD
    nn_net *net;
    nn_file_info info;
    szpy_rules rules; /* the file's rules (rules.g NULL when the spec is not one this build knows) */
    /* A workspace kept between calls: creating one re-derives the net's cached layouts (a one-hot net's
     * transposed first layer, nn/net.h), which cost more than a small batch's forward pass. One caller at
     * a time takes it (ws_busy); a call that finds it taken, from another thread while the GIL is
     * released, makes its own. Grown, never shrunk, to the largest batch seen. */
    nn_workspace *ws;
    atomic_int ws_busy;
} szpy_net;

/* The exception an nn_status stands for (szpy_util.h). */
static void raise_nn(int rc, const char *msg)
{
    PyObject *type = rc == NN_EIO ? PyExc_OSError : rc == NN_ENOMEM ? PyExc_MemoryError : PyExc_ValueError;
    PyErr_SetString(type, msg);
}

static void net_dealloc(szpy_net *s)
{
    nn_workspace_free(s->ws);
    nn_net_free(s->net);
    szpy_rules_free(&s->rules);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int net_init(szpy_net *s, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", "rules", NULL};
    PyObject *path_obj = NULL;
    const char *rules = NULL;
    if (s->net) {
        PyErr_SetString(PyExc_RuntimeError, "Net: already loaded");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|z:Net", kwlist, PyUnicode_FSConverter, &path_obj, &rules))
        return -1;
    char err[NN_ERRLEN], expect[GAME_SPEC_MAX];
    if (rules) { /* compare canonical specs, as the file stores them */
        szpy_rules r;
        if (szpy_rules_parse(rules, &r)) {
            Py_DECREF(path_obj);
            return -1;
        }
        snprintf(expect, sizeof expect, "%s", game_spec(r.g));
        szpy_rules_free(&r);
    }
    /* A file that cannot be opened: the OSError subclass of its errno (FileNotFoundError, ...), as
     * Agent's net= raises; what the file holds is nn_load's check. */
    FILE *f = fopen(PyBytes_AS_STRING(path_obj), "rb");
    if (!f) {
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, PyBytes_AS_STRING(path_obj));
        Py_DECREF(path_obj);
        return -1;
    }
    fclose(f);
    /* HDF5 is not thread-safe (nn/h5io.h): the load keeps the GIL. */
    const int rc = nn_load(PyBytes_AS_STRING(path_obj), rules ? expect : NULL, &s->net, &s->info, err);
    Py_DECREF(path_obj);
    if (rc != NN_OK) {
        raise_nn(rc, err);
        return -1;
    }
    if (szpy_rules_parse(s->info.rules, &s->rules))
        PyErr_Clear(); /* only uint8 input needs it, and says so */
    return 0;
}

/* obs as float32 through numpy's cast, refused unless every element is a finite number: numpy casts None
 * (in an object array) to NaN, and the forward pass would turn NaN or inf into a plausible-looking policy
 * and value. One pass over the input, small beside the forward pass. */
static PyArrayObject *finite_floats(PyObject *obs_obj)
{
    /* numpy's cast drops an imaginary part with a warning only: a complex obs is not an observation */
    if (PyArray_Check(obs_obj) && PyArray_ISCOMPLEX((PyArrayObject *)obs_obj)) {
        PyErr_Format(PyExc_TypeError, "Net: obs of dtype %s: observations are real numbers",
                     PyArray_DESCR((PyArrayObject *)obs_obj)->typeobj->tp_name);
        return NULL;
    }
    PyArrayObject *x = (PyArrayObject *)PyArray_FROMANY(obs_obj, NPY_FLOAT32, 1, 2,
                                                        NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!x)
        return NULL;
    const float *v = PyArray_DATA(x);
    const npy_intp n = PyArray_SIZE(x), cols = PyArray_DIM(x, PyArray_NDIM(x) - 1);
    for (npy_intp k = 0; k < n; k++)
        if (!isfinite(v[k])) {
            szpy_value_error("Net: obs[%zd, %zd] is %s: observations must be finite numbers",
                             (Py_ssize_t)(cols ? k / cols : 0), (Py_ssize_t)(cols ? k % cols : k),
                             isnan(v[k]) ? "nan (or None)" : v[k] < 0 ? "-inf" : "inf");
            Py_DECREF(x);
            return NULL;
        }
    return x;
}

/* obs as the net's float32 input: a uint8 array (VecEnv(obs_dtype='uint8')'s rows) is converted to the
 * float encoding here, the same floats game_encode writes; anything else goes through numpy's cast. */
static PyArrayObject *input_floats(szpy_net *s, PyObject *obs_obj)
{
    if (!PyArray_Check(obs_obj) || PyArray_TYPE((PyArrayObject *)obs_obj) != NPY_UINT8)
        return finite_floats(obs_obj);
    float scale[SZPY_OBS_MAX];
    uint8_t high[SZPY_OBS_MAX];
    if (!s->rules.g || strcmp(game_encoding_name(s->rules.g), s->info.encoding))
        return (PyArrayObject *)szpy_value_error("Net: uint8 obs: the file's encoding '%s' (rules '%s') has no "
                                                 "uint8 form", s->info.encoding, s->info.rules);
    if (szpy_obs_form(s->rules.g, scale, high, "Net: uint8 obs"))
        return NULL;
    PyArrayObject *u = (PyArrayObject *)PyArray_FROMANY(obs_obj, NPY_UINT8, 1, 2, NPY_ARRAY_IN_ARRAY);
    if (!u)
        return NULL;
    const int d = nn_net_config(s->net)->input_dim;
    const npy_intp cols = PyArray_DIM(u, PyArray_NDIM(u) - 1);
    PyArrayObject *x = (PyArrayObject *)PyArray_SimpleNew(PyArray_NDIM(u), PyArray_DIMS(u), NPY_FLOAT32);
    if (x && cols == d) /* other widths: the caller's message names the columns */
        szpy_obs_from_u8(PyArray_DATA(u), scale, (size_t)d, (size_t)(PyArray_SIZE(u) / d), PyArray_DATA(x));
    Py_DECREF(u);
    return x;
}

/* Net.load(path, rules=None): the classmethod spelling of the constructor. */
static PyObject *net_load(PyObject *cls, PyObject *args, PyObject *kw)
{
    return PyObject_Call(cls, args, kw);
}

/* nn_forward on the kept workspace, or on a workspace of its own when another thread holds that one (any
 * number of threads may share the net: nn/net.h). Called without the GIL. */
static int forward(szpy_net *s, const float *x, const uint8_t *legal, int batch, float *policy, float *value)
{
    if (atomic_exchange(&s->ws_busy, 1)) {
        nn_workspace *ws = nn_workspace_create(s->net, batch);
        const int rc = ws ? nn_forward(s->net, ws, x, legal, batch, policy, value) : NN_ENOMEM;
        nn_workspace_free(ws);
        return rc;
    }
    if (!s->ws || nn_workspace_max_batch(s->ws) < batch) {
        nn_workspace_free(s->ws);
        s->ws = nn_workspace_create(s->net, batch);
    }
    const int rc = s->ws ? nn_forward(s->net, s->ws, x, legal, batch, policy, value) : NN_ENOMEM;
    atomic_store(&s->ws_busy, 0);
    return rc;
}

static PyObject *net_call(szpy_net *s, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"obs", "mask", NULL};
    PyObject *obs_obj, *mask_obj = Py_None;
    if (!s->net) {
        PyErr_SetString(PyExc_RuntimeError, "Net: not loaded");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:Net.__call__", kwlist, &obs_obj, &mask_obj))
        return NULL;
    const nn_config *c = nn_net_config(s->net);
    PyArrayObject *x = input_floats(s, obs_obj);
    if (!x)
        return NULL;
    const int one = PyArray_NDIM(x) == 1;
    const npy_intp batch = one ? 1 : PyArray_DIM(x, 0), cols = PyArray_DIM(x, one ? 0 : 1);
    PyArrayObject *mask = NULL, *policy = NULL, *value = NULL;
    PyObject *result = NULL;
    if (cols != c->input_dim) {
        szpy_value_error("Net: obs has %zd columns, the net takes %d (encoding '%s')", (Py_ssize_t)cols,
                         c->input_dim, s->info.encoding);
        goto done;
    }
    if (batch > (npy_intp)1 << 24) {
        szpy_value_error("Net: a batch of %zd positions is more than 2**24; split it", (Py_ssize_t)batch);
        goto done;
    }
    if (mask_obj != Py_None) {
        mask = (PyArrayObject *)PyArray_FROMANY(mask_obj, NPY_BOOL, 1, 2, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
        if (!mask)
            goto done;
        const npy_intp mrows = PyArray_NDIM(mask) == 1 ? 1 : PyArray_DIM(mask, 0);
        const npy_intp mcols = PyArray_DIM(mask, PyArray_NDIM(mask) - 1);
        if (PyArray_NDIM(mask) != PyArray_NDIM(x) || mrows != batch || mcols != c->n_policy) {
            if (PyArray_NDIM(mask) == 1)
                szpy_value_error("Net: mask must have the shape (%zd, %d) of the policy, not (%zd,)", (Py_ssize_t)batch,
                                 c->n_policy, (Py_ssize_t)mcols);
            else
                szpy_value_error("Net: mask must have the shape (%zd, %d) of the policy, not (%zd, %zd)",
                                 (Py_ssize_t)batch, c->n_policy, (Py_ssize_t)mrows, (Py_ssize_t)mcols);
            goto done;
        }
    }
    npy_intp dp[2] = {batch, c->n_policy}, dv[2] = {batch, c->n_value};
    if (one) {
        dp[0] = c->n_policy;
        dv[0] = c->n_value;
    }
    policy = (PyArrayObject *)PyArray_SimpleNew(one ? 1 : 2, dp, NPY_FLOAT32);
    value = (PyArrayObject *)PyArray_SimpleNew(one ? 1 : 2, dv, NPY_FLOAT32);
    if (!policy || !value)
        goto done;
    int rc = NN_OK;
    if (batch > 0) {
        const float *xp = PyArray_DATA(x);
        const uint8_t *mp = mask ? (const uint8_t *)PyArray_DATA(mask) : NULL;
        float *pp = PyArray_DATA(policy), *vp = PyArray_DATA(value);
        Py_BEGIN_ALLOW_THREADS
        rc = forward(s, xp, mp, (int)batch, pp, vp);
        Py_END_ALLOW_THREADS
    }
    if (rc == NN_ENOMEM)
        PyErr_NoMemory();
    else if (rc != NN_OK)
        PyErr_Format(PyExc_RuntimeError, "Net: forward pass failed (%d)", rc);
    else
        result = Py_BuildValue("(OO)", policy, value);
done:
    Py_XDECREF(x);
    Py_XDECREF(mask);
    Py_XDECREF(policy);
    Py_XDECREF(value);
    return result;
}

static PyObject *get_str(szpy_net *s, void *which)
{
    if (!s->net)
        Py_RETURN_NONE;
    switch ((intptr_t)which) {
    case 0: return PyUnicode_FromString(s->info.rules);
    case 1: return PyUnicode_FromString(s->info.encoding);
    default: return PyUnicode_FromString(s->info.kind);
    }
}

static PyObject *get_int(szpy_net *s, void *which)
{
    if (!s->net)
        Py_RETURN_NONE;
    const nn_config *c = nn_net_config(s->net);
    switch ((intptr_t)which) {
    case 0: return PyLong_FromLong(c->input_dim);
    case 1: return PyLong_FromLong(c->n_policy);
    case 2: return PyLong_FromLong(c->n_value);
    case 4: return PyLong_FromLong(c->onehot_inputs);
    case 5: return PyLong_FromLong(c->onehot_levels);
    case 6: return PyFloat_FromDouble(c->onehot_scale);
    default: return PyLong_FromSize_t(nn_param_count(s->net));
    }
}

static PyObject *get_hidden(szpy_net *s, void *unused)
{
    (void)unused;
    if (!s->net)
        Py_RETURN_NONE;
    const nn_config *c = nn_net_config(s->net);
    PyObject *t = PyTuple_New(c->n_hidden);
    for (int i = 0; t && i < c->n_hidden; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromLong(c->hidden[i]));
    return t;
}

/* Net.layers(): copies of every tensor, in evaluation order (nn_layer_get). */
static PyObject *net_layers(szpy_net *s, PyObject *noargs)
{
    (void)noargs;
    if (!s->net) {
        PyErr_SetString(PyExc_RuntimeError, "Net: not loaded");
        return NULL;
    }
    const float *params = nn_params_const(s->net);
    const int count = nn_layer_count(s->net);
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < count; i++) {
        nn_layer l;
        nn_layer_get(s->net, i, &l);
        npy_intp dw[2] = {l.out, l.in}, db[1] = {l.out};
        PyArrayObject *w = (PyArrayObject *)PyArray_SimpleNew(2, dw, NPY_FLOAT32);
        PyArrayObject *b = (PyArrayObject *)PyArray_SimpleNew(1, db, NPY_FLOAT32);
        PyObject *d = NULL;
        if (w && b) {
            memcpy(PyArray_DATA(w), params + l.w_offset, (size_t)l.out * (size_t)l.in * sizeof(float));
            memcpy(PyArray_DATA(b), params + l.b_offset, (size_t)l.out * sizeof(float));
            d = Py_BuildValue("{sssOsOsO}", "name", l.name, "W", w, "b", b, "residual",
                              l.residual ? Py_True : Py_False);
        }
        Py_XDECREF(w);
        Py_XDECREF(b);
        if (!d || PyList_Append(list, d))
            Py_CLEAR(list);
        Py_XDECREF(d);
    }
    return list;
}

static PyMethodDef net_methods[] = {
    {"layers", (PyCFunction)net_layers, METH_NOARGS,
     "layers() -> list of {'name', 'W', 'b', 'residual'}\n"
     "Copies of every tensor in evaluation order (nn/net.h): the hidden layers ('00_hidden', ...), then\n"
     "'NN_policy', 'NN_value' and, if the net has one, 'NN_margin'. W float32 (out, in), b float32 (out,);\n"
     "residual: the hidden layer adds its input before the ReLU."},
    {"load", SZPY_KW(net_load), METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "Net.load(path, rules=None) -> Net\n"
     "Loads an export or a checkpoint (nn/h5io.h). rules, when given, must equal the file's rules.\n"
     "OSError when the file cannot be opened, ValueError when it is not a sowzero net (or its rules differ)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef net_getset[] = {
    {"rules", (getter)get_str, NULL, "the rules spec the net was trained for", (void *)0},
    {"encoding", (getter)get_str, NULL, "the input encoding's name, e.g. kalah-mover-v1", (void *)1},
    {"kind", (getter)get_str, NULL, "'export' or 'checkpoint'", (void *)2},
    {"input_dim", (getter)get_int, NULL, "floats per position", (void *)0},
    {"n_policy", (getter)get_int, NULL, "policy slots (the mover's pits)", (void *)1},
    {"n_value", (getter)get_int, NULL, "value outputs (1 for Kalah; one per player for basico)", (void *)2},
    {"n_params", (getter)get_int, NULL, "parameters (floats)", (void *)3},
    {"hidden", (getter)get_hidden, NULL, "widths of the hidden layers", NULL},
    {"onehot_inputs", (getter)get_int, NULL,
     "inputs 0..onehot_inputs-1 also reach the first layer as one-hot features (nn/net.h; 0 = none)", (void *)4},
    {"onehot_levels", (getter)get_int, NULL, "one-hot levels per such input (0 when none)", (void *)5},
    {"onehot_scale", (getter)get_int, NULL,
     "an input's level is round(x * onehot_scale) clamped to 0..onehot_levels-1 (0.0 when none)", (void *)6},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject szpy_NetType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sowzero.Net",
    .tp_basicsize = sizeof(szpy_net),
    .tp_dealloc = (destructor)net_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "Net(path, rules=None), or Net.load(path, rules=None): a policy/value network file.\n"
        "net(obs, mask=None) -> (policy, value)\n"
        "  obs     floats (batch, input_dim), or one position (input_dim,): the encoding named by\n"
        "          net.encoding, e.g. VecEnv's obs; converted to float32. A uint8 array is the encoding's\n"
        "          integers (VecEnv(obs_dtype='uint8')), converted here to the same floats (python/src/\n"
        "          szpy_obs.h; ValueError for an encoding without a uint8 form)\n"
        "  mask    booleans of the policy's shape (legal moves, e.g. info['action_mask']) or None (all legal)\n"
        "  policy  float32 (batch, n_policy): softmax over the legal slots, 0 on the illegal ones\n"
        "  value   float32 (batch, n_value): tanh of the value head, in [-1, 1], for the mover (Kalah);\n"
        "          basico: one per player, mover first, the rest in playing order (basico_encode)\n"
        "The forward pass of nn/net.h (nn_forward), as `sowzero net --json`; the GIL is released during it.",
    .tp_methods = net_methods,
    .tp_getset = net_getset,
    .tp_init = (initproc)net_init,
    .tp_new = PyType_GenericNew,
    .tp_call = (ternaryfunc)net_call,
};

int szpy_net_register(PyObject *m)
{
    return szpy_add_type(m, "Net", &szpy_NetType);
}
