/* szpy_vecenv.c — sowzero.VecEnv (szpy_vecenv.h).
 *
 * Two engines behind one type. Kalah runs on the SIMD batch stepper (env/vecenv.h): the boards live in
 * its byte planes, and a step is one vecenv_gym_moves pass (convert and check the actions) and one
 * vecenv_gym_step pass, which restarts the boards whose game ended at the previous step (Gymnasium's
 * NEXT_STEP rule), sows, and writes every output row block by block. The batch is rounded up to
 * VECENV_LANES; the padding boards stand still. Every array is allocated for the whole batch and handed
 * out as a view of its first num_envs rows. Every other game of the registry keeps an array of positions
 * and steps them one by one through the game interface (env/game.h).
 *
 * sample_actions on Kalah: the draw is the stepper's pick rule on its own random streams. Once the
 * sampler is in use (it was called since the previous step), each step draws the next sample in the same
 * pass, as bytes (vecenv_gym_out.sample), into the one of the two uint8 actions arrays not handed out
 * last, so the call only hands that array out; the draw is the same either way. A step given that array
 * sows its bytes as they are (they are the moves); other uint8 actions are checked as bytes
 * (vecenv_gym_moves8), any other integer dtype but uint64 as int64. Two arrays, not one, so that a step does not
 * overwrite the draw it was given: an array returned by sample_actions holds its draw through the next
 * step and the next call.
 */
#include "python/src/szpy_vecenv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "env/vecenv.h"
#include "python/src/szpy_obs.h"

typedef struct {
    PyObject_HEAD
    szpy_rules rules;
    int n, players, moves, dim;
    int obs_u8;         /* obs_dtype uint8: obs holds the encoding's integers (szpy_obs.h) */
    int has_form;       /* scale and high hold the game's uint8 form */
    float scale[SZPY_OBS_MAX];  /* the float encoding = the integer of element j * scale[j] */
    uint8_t high[SZPY_OBS_MAX]; /* the largest integer of element j */
    int busy;           /* a step runs without the GIL: a second thread must not enter meanwhile */
    int copy;           /* reset and step return copies of the arrays (copy=True, the default) */
    int closed;         /* close() was called: reset, step and the board methods refuse */
    int ready;          /* __init__ succeeded (a bare VecEnv.__new__, or a failed __init__, is not) */
    uint64_t rng;       /* sample_actions' stream (other games) */
    uint64_t sows, games;
    /* Kalah fast path (ve != NULL) */
    vecenv *ve;
    int batch;          /* boards in ve, n rounded up to VECENV_LANES */
    uint8_t *mv;        /* batch bytes: the checked moves */
    int fresh;          /* actions[!cur] holds the draw for the boards as they are */
    int sampling;       /* sample_actions was called since the last step or reset */
    int actions_valid;  /* the actions array holds sample_actions' draw for the boards as they are: a step
                         * given that very array sows sample without checking it again */
    uint8_t *legal;     /* batch bytes: each env's legal-move bits (both engines) */
    /* every other game */
    game_pos *pos;      /* n positions */
    uint8_t *pending;   /* n: the game ended at the previous step; this step resets it (other games) */
    /* the arrays (owned here, read-only for Python, overwritten by every reset and step): batch rows each,
     * handed out as views of their first n rows */
    PyArrayObject *obs_all; /* batch x dim float32 (uint8 with obs_dtype uint8); NULL with observations=False */
    PyArrayObject *mask, *to_play, *rewards, *term, *trunc;
    PyArrayObject *actions[2]; /* sample_actions' uint8 arrays (batch bytes of room each), handed out in
                                * turn; actions[cur] the last one */
    int cur;
    PyObject *obs_v, *mask_v, *to_play_v, *rewards_v, *term_v; /* the views (obs_v: None without obs) */
    PyObject *result; /* the last step's (obs, rewards, terminations, truncations, info), or NULL (step_result) */
} szpy_vecenv;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void seed_sampler(szpy_vecenv *e, uint64_t seed)
{
    uint64_t s = seed;
    e->rng = splitmix64(&s);
    if (!e->rng)
        e->rng = 1; /* xorshift64 must not start at zero */
    if (e->ve)
        vecenv_seed(e->ve, seed);
}

/* A finished Kalah position (every seed in South's store) for the padding boards. */
static void padding_pos(const kalah_rules *r, kalah_pos *p)
{
    kalah_start(r, p);
    memset(p->cell, 0, sizeof p->cell);
    p->cell[r->pits] = (uint8_t)(2 * r->pits * r->seeds);
    p->over = 1;
}

static PyArrayObject *new_array(int nd, npy_intp *dims, int type)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_ZEROS(nd, dims, type, 0);
    if (a)
        PyArray_CLEARFLAGS(a, NPY_ARRAY_WRITEABLE);
    return a;
}

/* Lookup tables over a legal-move bit set (at most 7 pits, KALAH_MAX_PITS = BASICO_MAX_PITS = 7):
 * its size and its k-th member. Filled once by szpy_vecenv_register. */
static uint8_t bit_count[128], kth_bit[128][8];

static void fill_tables(void)
{
    for (unsigned l = 0; l < 128; l++) {
        int n = 0;
        for (int k = 0; k < 7; k++)
            if (l >> k & 1)
                kth_bit[l][n++] = (uint8_t)k;
        bit_count[l] = (uint8_t)n;
    }
}

static void free_capsule(PyObject *c) { free(PyCapsule_GetPointer(c, NULL)); }

/* A zeroed read-only array of n items over memory of its own (room >= n items: the stepper writes all of
 * its batch) whose base is a capsule: numpy cannot make it writeable again (a capsule gives no writable
 * buffer), so what sample_actions wrote there stays as written. */
static PyArrayObject *sealed_array(npy_intp n, npy_intp room, int type, size_t item)
{
    void *mem = calloc((size_t)room > 0 ? (size_t)room : 1, item);
    PyObject *cap = mem ? PyCapsule_New(mem, NULL, free_capsule) : NULL;
    if (!cap) {
        free(mem);
        return mem ? NULL : (PyArrayObject *)PyErr_NoMemory();
    }
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNewFromData(1, &n, type, mem);
    if (!a || PyArray_SetBaseObject(a, cap) < 0) { /* SetBaseObject steals cap, even when it fails */
        if (!a)
            Py_DECREF(cap);
        Py_XDECREF(a);
        return NULL;
    }
    PyArray_CLEARFLAGS(a, NPY_ARRAY_WRITEABLE);
    return a;
}

static uint8_t *u8(PyArrayObject *a) { return (uint8_t *)PyArray_DATA(a); }
static float *f32(PyArrayObject *a) { return (float *)PyArray_DATA(a); }
static int8_t *i8(PyArrayObject *a) { return (int8_t *)PyArray_DATA(a); }

/* One row of the outputs from a position (set_position, the generic engine). */
static void write_row(szpy_vecenv *e, int i, const game_pos *p)
{
    if (e->obs_all && e->obs_u8) {
        float x[SZPY_OBS_MAX];
        game_encode(e->rules.g, p, x);
        szpy_obs_to_u8(x, e->scale, (size_t)e->dim, u8(e->obs_all) + (size_t)i * (size_t)e->dim);
    } else if (e->obs_all) {
        game_encode(e->rules.g, p, f32(e->obs_all) + (size_t)i * (size_t)e->dim);
    }
    const unsigned legal = game_legal(e->rules.g, p);
    e->legal[i] = (uint8_t)legal;
    for (int k = 0; k < e->moves; k++)
        u8(e->mask)[(size_t)i * (size_t)e->moves + (size_t)k] = (uint8_t)(legal >> k & 1);
    i8(e->to_play)[i] = (int8_t)p->to_move;
}

/* Kalah: where a step or reset writes its rows; the sample is drawn in the same pass once the sampler
 * is in use, which leaves it fresh. */
static vecenv_gym_out kalah_outputs(szpy_vecenv *e)
{
    const vecenv_gym_out o = {.obs = e->obs_all && !e->obs_u8 ? f32(e->obs_all) : NULL,
                              .obs8 = e->obs_all && e->obs_u8 ? u8(e->obs_all) : NULL, .mask = u8(e->mask),
                              .to_play = i8(e->to_play), .rewards = f32(e->rewards), .ended = u8(e->term),
                              .sample = e->sampling ? u8(e->actions[!e->cur]) : NULL,
                              .kept = 1}; /* rewards and term: written by these calls and reset_all only */
    e->fresh = e->sampling;
    e->sampling = 0;
    e->actions_valid = 0;
    return o;
}

static void reset_all(szpy_vecenv *e)
{
    memset(e->pending, 0, (size_t)e->n);
    memset(PyArray_DATA(e->rewards), 0, (size_t)e->batch * (size_t)e->players * sizeof(float));
    memset(PyArray_DATA(e->term), 0, (size_t)e->batch);
    if (e->ve) {
        vecenv_reset(e->ve);
        kalah_pos pad;
        padding_pos(&e->rules.kalah, &pad);
        for (int i = e->n; i < e->batch; i++)
            vecenv_set(e->ve, i, &pad);
        const vecenv_gym_out o = kalah_outputs(e);
        vecenv_gym_observe(e->ve, e->n, &o); /* cannot fail: no auto-reset, n in 1..batch */
        return;
    }
    for (int i = 0; i < e->n; i++) {
        game_start(e->rules.g, &e->pos[i]);
        write_row(e, i, &e->pos[i]);
    }
}

/* Checks every action before anything moves: returns the first bad env index, or -1. Envs that reset
 * this step ignore their action. */
static int check_actions(szpy_vecenv *e, const int64_t *act)
{
    const int64_t m = e->moves;
    for (int i = 0; i < e->n; i++) {
        const int64_t a = act[i];
        if (!e->pending[i] && (a < 0 || a >= m || !(e->legal[i] >> a & 1)))
            return i;
    }
    return -1;
}

/* One step of the Kalah engine: checks the actions (int64, or bytes when act8) and steps, or returns the
 * first bad env index. */
static int kalah_step_all(szpy_vecenv *e, const void *act, int act8)
{
    int bad = -1;
    if ((act8 ? vecenv_gym_moves8(e->ve, act, e->n, e->mv, &bad) : vecenv_gym_moves(e->ve, act, e->n, e->mv, &bad)) !=
        KALAH_OK)
        return bad;
    const vecenv_gym_out o = kalah_outputs(e);
    vecenv_gym_step(e->ve, e->mv, e->n, &o); /* cannot fail: no auto-reset, n in 1..batch */
    return -1;
}

/* One step of the generic engine; actions checked. */
static void generic_step_all(szpy_vecenv *e, const int64_t *act)
{
    const int P = e->players;
    float *rew = f32(e->rewards);
    uint8_t *term = u8(e->term);
    for (int i = 0; i < e->n; i++) {
        game_pos *p = &e->pos[i];
        term[i] = 0;
        for (int q = 0; q < P; q++)
            rew[(size_t)i * (size_t)P + (size_t)q] = 0.0f;
        if (e->pending[i]) {
            game_start(e->rules.g, p);
            e->pending[i] = 0;
        } else {
            game_apply(e->rules.g, p, (int)act[i], NULL); /* checked legal: cannot fail */
            e->sows++;
            if (p->over) {
                double v[GAME_MAX_PLAYERS];
                game_values(e->rules.g, p, v);
                for (int q = 0; q < P; q++)
                    rew[(size_t)i * (size_t)P + (size_t)q] = (float)v[q];
                term[i] = 1;
                e->pending[i] = 1;
                e->games++;
            }
        }
        write_row(e, i, p);
    }
}

static PyObject *key_mask, *key_to_play; /* "action_mask", "to_play", interned by szpy_vecenv_register */

static PyObject *info_dict(szpy_vecenv *e)
{
    PyObject *d = PyDict_New();
    if (d && (PyDict_SetItem(d, key_mask, e->mask_v) || PyDict_SetItem(d, key_to_play, e->to_play_v)))
        Py_CLEAR(d);
    return d;
}

/* The env's arrays and boards change only under a step or reset, which runs without the GIL: every
 * other method refuses to look at them meanwhile (idle), and a second step or reset may not start
 * (enter). */
static int not_ready(const szpy_vecenv *e)
{
    if (e->ready)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, "VecEnv: not initialised (its __init__ did not run, or failed)");
    return -1;
}

static int idle(const szpy_vecenv *e)
{
    if (not_ready(e))
        return -1;
    if (e->closed) {
        PyErr_SetString(PyExc_RuntimeError, "VecEnv: the env is closed");
        return -1;
    }
    if (e->busy) {
        PyErr_SetString(PyExc_RuntimeError, "VecEnv: another thread is stepping this env");
        return -1;
    }
    return 0;
}

static int enter(szpy_vecenv *e)
{
    if (idle(e))
        return -1;
    e->busy = 1;
    return 0;
}

/* ---- Python methods ---- */

/* Frees what an __init__ made and zeroes the fields after PyObject_HEAD, so that a failed __init__ leaves
 * the object as new (it may be initialised again) and dealloc frees each thing once. */
static void release(szpy_vecenv *e)
{
    vecenv_free(e->ve);
    free(e->mv);
    free(e->legal);
    free(e->pos);
    szpy_rules_free(&e->rules);
    free(e->pending);
    Py_XDECREF(e->obs_all);
    Py_XDECREF(e->obs_v);
    Py_XDECREF(e->mask_v);
    Py_XDECREF(e->to_play_v);
    Py_XDECREF(e->rewards_v);
    Py_XDECREF(e->term_v);
    Py_XDECREF(e->mask);
    Py_XDECREF(e->to_play);
    Py_XDECREF(e->rewards);
    Py_XDECREF(e->term);
    Py_XDECREF(e->trunc);
    Py_XDECREF(e->actions[0]);
    Py_XDECREF(e->actions[1]);
    Py_XDECREF(e->result);
    memset((char *)e + sizeof(PyObject), 0, sizeof *e - sizeof(PyObject));
}

static void vecenv_dealloc(szpy_vecenv *e)
{
    release(e);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

/* obs_dtype=: None or anything numpy reads as float32 (the default) gives 0, uint8 1; any other value
 * raises ValueError naming the argument and returns -1. */
static int parse_obs_dtype(PyObject *o)
{
    PyArray_Descr *d = NULL;
    if (o == Py_None)
        return 0;
    if (!PyArray_DescrConverter(o, &d))
        PyErr_Clear(); /* numpy's TypeError for a name it does not know: the ValueError below says more */
    const int type = d ? d->type_num : -1;
    Py_XDECREF(d);
    if (type == NPY_FLOAT32 || type == NPY_UINT8)
        return type == NPY_UINT8;
    PyErr_Format(PyExc_ValueError, "VecEnv: obs_dtype=%R is not 'float32' or 'uint8'", o);
    return -1;
}

/* A seed: an int in 0..2**64-1 (szpy_seed: numpy's integers too; what VecEnv(seed=) and reset(seed=)
 * take). A list or tuple of ints (reset's per-env seeds, Gymnasium's form) when list_n > 0: exactly list_n
 * of them, folded into one
 * seed in order. Else TypeError (not an int) or ValueError (out of range, wrong length) naming `what`,
 * and -1. */
static int parse_seed(PyObject *o, const char *what, Py_ssize_t list_n, uint64_t *out)
{
    if (list_n > 0 && (PyList_Check(o) || PyTuple_Check(o))) {
        const Py_ssize_t k = PySequence_Fast_GET_SIZE(o);
        if (k != list_n) {
            szpy_value_error("%s: %zd seeds for %zd envs", what, k, list_n);
            return -1;
        }
        uint64_t h = 0x736f777a65726f00ull; /* the fold's start: any fixed constant */
        for (Py_ssize_t i = 0; i < k; i++) {
            uint64_t one;
            if (parse_seed(PySequence_Fast_GET_ITEM(o, i), what, 0, &one))
                return -1;
            h ^= one;
            h = splitmix64(&h);
        }
        *out = h;
        return 0;
    }
    unsigned long long v;
    if (szpy_seed(o, what, &v)) {
        if (list_n > 0 && PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: seed must be an int in 0..2**64-1 (or a list of one per env), "
                         "not %.80s", what, Py_TYPE(o)->tp_name);
        }
        return -1;
    }
    *out = v;
    return 0;
}

static int init_fields(szpy_vecenv *e, PyObject *args, PyObject *kw);

static int vecenv_init(szpy_vecenv *e, PyObject *args, PyObject *kw)
{
    if (e->ready) {
        PyErr_SetString(PyExc_RuntimeError, "VecEnv: already initialised");
        return -1;
    }
    if (init_fields(e, args, kw)) {
        release(e);
        return -1;
    }
    e->ready = 1;
    return 0;
}

static int init_fields(szpy_vecenv *e, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"game",      "rules", "num_envs", "seed", "kernel", "observations",
                             "obs_dtype", "copy",  NULL};
    const char *game = NULL, *spec = NULL, *kernel_name = "auto";
    Py_ssize_t n = 1;
    uint64_t seed = 0;
    PyObject *seed_obj = NULL;
    int observations = 1, copy = 1;
    PyObject *obs_dtype = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zzn$OspOp:VecEnv", kwlist, &game, &spec, &n, &seed_obj,
                                     &kernel_name, &observations, &obs_dtype, &copy))
        return -1;
    if (seed_obj && seed_obj != Py_None && parse_seed(seed_obj, "VecEnv", 0, &seed))
        return -1;
    e->copy = copy;
    if ((e->obs_u8 = parse_obs_dtype(obs_dtype)) < 0)
        return -1;
    if (szpy_rules_parse(spec ? spec : game ? game : "kalah", &e->rules))
        return -1;
    if (game && strcmp(game, game_name(e->rules.g))) {
        szpy_value_error("VecEnv: game '%s' does not match rules '%s' (a %s rule set)", game, spec,
                         game_name(e->rules.g));
        return -1;
    }
    if (n < 1 || n > VECENV_MAX_BATCH) {
        szpy_value_error("VecEnv: num_envs=%zd is not in 1..%d", n, VECENV_MAX_BATCH);
        return -1;
    }
    vecenv_kernel kernel;
    if (vecenv_kernel_parse(kernel_name, &kernel) != KALAH_OK) {
        szpy_value_error("VecEnv: kernel '%s' is not one of auto, scalar, avx2, avx512", kernel_name);
        return -1;
    }
    e->n = (int)n;
    e->players = game_players(e->rules.g);
    e->moves = game_moves(e->rules.g);
    e->dim = game_encode_dim(e->rules.g);
    if (!szpy_obs_form(e->rules.g, e->scale, e->high, "VecEnv: obs_dtype='uint8'"))
        e->has_form = 1;
    else if (e->obs_u8)
        return -1;
    else
        PyErr_Clear(); /* a float32 env of a game without a uint8 form: obs_scale is None */
    e->pending = calloc((size_t)n, 1);
    if (!e->pending)
        goto nomem;
    if (e->rules.is_kalah) {
        char err[KALAH_ERRLEN];
        e->batch = (int)((n + VECENV_LANES - 1) / VECENV_LANES * VECENV_LANES);
        if (vecenv_create(&e->rules.kalah, e->batch, kernel, 0, seed, &e->ve, err) != KALAH_OK) {
            szpy_value_error("VecEnv: %s", err);
            return -1;
        }
        e->mv = calloc((size_t)e->batch, 1);
        if (!e->mv)
            goto nomem;
    } else {
        if (strcmp(kernel_name, "auto")) {
            szpy_value_error("VecEnv: kernel= applies to Kalah's batch stepper only, not %s",
                             game_name(e->rules.g));
            return -1;
        }
        e->batch = e->n;
        e->pos = calloc((size_t)n, sizeof *e->pos);
        if (!e->pos)
            goto nomem;
    }
    if (!(e->legal = calloc((size_t)e->batch, 1)))
        goto nomem;
    npy_intp d_obs[2] = {e->batch, e->dim}, d_mask[2] = {e->batch, e->moves}, d_rew[2] = {e->batch, e->players},
             d_b[1] = {e->batch}, d_n[1] = {n};
    if ((observations && !(e->obs_all = new_array(2, d_obs, e->obs_u8 ? NPY_UINT8 : NPY_FLOAT32))) ||
        !(e->mask = new_array(2, d_mask, NPY_BOOL)) || !(e->to_play = new_array(1, d_b, NPY_INT8)) ||
        !(e->rewards = new_array(2, d_rew, NPY_FLOAT32)) || !(e->term = new_array(1, d_b, NPY_BOOL)) ||
        !(e->trunc = new_array(1, d_n, NPY_BOOL)) ||
        !(e->actions[0] = sealed_array(n, e->batch, NPY_UINT8, 1)) ||
        !(e->actions[1] = sealed_array(n, e->batch, NPY_UINT8, 1)))
        return -1;
    if (observations)
        e->obs_v = PySequence_GetSlice((PyObject *)e->obs_all, 0, n);
    else
        Py_INCREF(e->obs_v = Py_None);
    if (!e->obs_v || !(e->mask_v = PySequence_GetSlice((PyObject *)e->mask, 0, n)) ||
        !(e->to_play_v = PySequence_GetSlice((PyObject *)e->to_play, 0, n)) ||
        !(e->rewards_v = PySequence_GetSlice((PyObject *)e->rewards, 0, n)) ||
        !(e->term_v = PySequence_GetSlice((PyObject *)e->term, 0, n)))
        return -1;
    seed_sampler(e, seed);
    reset_all(e);
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

/* A fresh writeable copy of array view v (None stays None): reset and step with copy=True. */
static PyObject *copy_of(PyObject *v)
{
    if (v == Py_None) {
        Py_INCREF(v);
        return v;
    }
    return PyArray_NewCopy((PyArrayObject *)v, NPY_CORDER);
}

/* The info dict over copies of the mask and to_play rows. */
static PyObject *info_copy(szpy_vecenv *e)
{
    PyObject *m = copy_of(e->mask_v), *t = m ? copy_of(e->to_play_v) : NULL;
    PyObject *d = t ? PyDict_New() : NULL;
    if (d && (PyDict_SetItem(d, key_mask, m) || PyDict_SetItem(d, key_to_play, t)))
        Py_CLEAR(d);
    Py_XDECREF(m);
    Py_XDECREF(t);
    return d;
}

/* Env i back to the start position (reset's reset_mask): its rows rewritten, its reward and termination
 * zeroed (the Kalah stepper's `kept` rows stay consistent: a reward only where ended is 1). */
static void reset_one(szpy_vecenv *e, int i)
{
    game_pos p;
    game_start(e->rules.g, &p);
    if (e->ve) {
        kalah_pos kp;
        kalah_start(&e->rules.kalah, &kp);
        vecenv_set(e->ve, i, &kp); /* a start position of the env's own rules: cannot fail */
    } else {
        e->pos[i] = p;
    }
    e->pending[i] = 0;
    u8(e->term)[i] = 0;
    memset(f32(e->rewards) + (size_t)i * (size_t)e->players, 0, (size_t)e->players * sizeof(float));
    write_row(e, i, &p);
}

/* options' "reset_mask": num_envs booleans (Gymnasium's partial reset); a new bool array, or NULL with
 * ValueError / TypeError set. */
static PyArrayObject *parse_reset_mask(szpy_vecenv *e, PyObject *o)
{
    PyArrayObject *raw = (PyArrayObject *)PyArray_FROM_O(o);
    if (!raw)
        return NULL;
    if (PyArray_TYPE(raw) != NPY_BOOL || PyArray_NDIM(raw) != 1 || PyArray_DIM(raw, 0) != e->n) {
        PyObject *shape = PyObject_GetAttrString((PyObject *)raw, "shape");
        if (shape)
            PyErr_Format(PyExc_ValueError, "reset: options['reset_mask'] must be a bool array of shape (%d,), not "
                         "%R of shape %R", e->n, (PyObject *)PyArray_DESCR(raw), shape);
        Py_XDECREF(shape);
        Py_DECREF(raw);
        return NULL;
    }
    PyArrayObject *m = (PyArrayObject *)PyArray_FROMANY((PyObject *)raw, NPY_BOOL, 1, 1, NPY_ARRAY_IN_ARRAY);
    Py_DECREF(raw);
    return m;
}

static PyObject *vecenv_reset_py(szpy_vecenv *e, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"seed", "options", NULL};
    PyObject *seed = Py_None, *options = Py_None, *mask_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OO:reset", kwlist, &seed, &options))
        return NULL;
    if (options != Py_None) {
        if (!PyDict_Check(options))
            return PyErr_Format(PyExc_TypeError, "reset: options must be a dict or None, not %.80s",
                                Py_TYPE(options)->tp_name);
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(options, &pos, &key, &value)) {
            if (PyUnicode_Check(key) && !PyUnicode_CompareWithASCIIString(key, "reset_mask"))
                mask_obj = value;
            else
                return PyErr_Format(PyExc_ValueError, "reset: unknown option %R (the one option is 'reset_mask', "
                                    "a bool array of num_envs: the envs to reset)", key);
        }
    }
    uint64_t s = 0;
    if (seed != Py_None && parse_seed(seed, "reset", e->n, &s))
        return NULL;
    PyArrayObject *mask = mask_obj ? parse_reset_mask(e, mask_obj) : NULL;
    if ((mask_obj && !mask) || enter(e)) {
        Py_XDECREF(mask);
        return NULL;
    }
    if (seed != Py_None)
        seed_sampler(e, s);
    if (mask) {
        const npy_bool *m = PyArray_DATA(mask);
        for (int i = 0; i < e->n; i++)
            if (m[i])
                reset_one(e, i);
        e->fresh = 0; /* the sample was drawn for the old positions */
        e->actions_valid = 0;
        Py_DECREF(mask);
    } else {
        Py_BEGIN_ALLOW_THREADS
        reset_all(e);
        Py_END_ALLOW_THREADS
    }
    e->busy = 0;
    if (e->copy) {
        PyObject *obs = copy_of(e->obs_v), *info = obs ? info_copy(e) : NULL;
        if (!info) {
            Py_XDECREF(obs);
            return NULL;
        }
        return Py_BuildValue("(NN)", obs, info);
    }
    PyObject *info = info_dict(e);
    return info ? Py_BuildValue("(ON)", e->obs_v, info) : NULL;
}

/* What step returns: (obs, rewards, terminations, truncations, info). The previous step's tuple is handed
 * out again when nothing outside holds it or its info dict any more and the dict is as this file made it
 * (its two entries, the env's own views): nobody can tell it from a new one, and building a dict and a
 * tuple per step cost a third of a 64-env step's time beyond the stepping (~0.1 us; a 4096-env step is
 * ~6.5 us). */
static PyObject *step_result(szpy_vecenv *e)
{
    if (e->copy) {
        PyObject *o[5] = {copy_of(e->obs_v), copy_of(e->rewards_v), copy_of(e->term_v), copy_of((PyObject *)e->trunc),
                          info_copy(e)};
        PyObject *t = o[0] && o[1] && o[2] && o[3] && o[4] ? PyTuple_Pack(5, o[0], o[1], o[2], o[3], o[4]) : NULL;
        for (int k = 0; k < 5; k++)
            Py_XDECREF(o[k]);
        return t;
    }
    PyObject *t = e->result;
    if (t && Py_REFCNT(t) == 1) {
        PyObject *d = PyTuple_GET_ITEM(t, 4);
        if (Py_REFCNT(d) == 1 && PyDict_GET_SIZE(d) == 2 && PyDict_GetItem(d, key_mask) == e->mask_v &&
            PyDict_GetItem(d, key_to_play) == e->to_play_v) {
            Py_INCREF(t);
            return t;
        }
    }
    PyObject *info = info_dict(e);
    t = info ? PyTuple_Pack(5, e->obs_v, e->rewards_v, e->term_v, e->trunc, info) : NULL;
    Py_XDECREF(info);
    if (t) {
        Py_XSETREF(e->result, t);
        Py_INCREF(t);
    }
    return t;
}

static PyObject *vecenv_step_py(szpy_vecenv *e, PyObject *arg)
{
    if (e->closed && idle(e))
        return NULL;
    if (e->ve && arg == (PyObject *)e->actions[e->cur] && e->actions_valid) { /* sample_actions' own draw */
        if (enter(e))
            return NULL;
        Py_BEGIN_ALLOW_THREADS
        const vecenv_gym_out o = kalah_outputs(e);
        vecenv_gym_step(e->ve, u8(e->actions[e->cur]), e->n, &o); /* the next draw: the other array */
        Py_END_ALLOW_THREADS
        e->busy = 0;
        return step_result(e);
    }
    /* Integers of any width; no copy when they already are contiguous int64, or on Kalah uint8 (checked as
     * bytes). numpy alone would turn floats into integers silently. */
    PyArrayObject *raw = (PyArrayObject *)PyArray_FROM_O(arg);
    if (!raw)
        return NULL;
    if (!PyArray_ISINTEGER(raw)) {
        PyErr_Format(PyExc_TypeError, "step: actions must be integers (relative pits), not %R",
                     (PyObject *)PyArray_DESCR(raw));
        Py_DECREF(raw);
        return NULL;
    }
    if (PyArray_NDIM(raw) != 1) { /* a scalar, or a 2-D array: say which, not numpy's "too small depth" */
        szpy_value_error("step: actions must be a 1-D array of %d integers (one per env), not %d-dimensional", e->n,
                         PyArray_NDIM(raw));
        Py_DECREF(raw);
        return NULL;
    }
    if (PyArray_ISUNSIGNED(raw) && PyArray_ITEMSIZE(raw) == 8) { /* no safe cast to int64: say so, not numpy */
        PyErr_Format(PyExc_TypeError, "step: actions of dtype %R cannot be cast safely to int64; give int64 or "
                     "uint8 (or any narrower integer dtype)", (PyObject *)PyArray_DESCR(raw));
        Py_DECREF(raw);
        return NULL;
    }
    const int act8 = e->ve && PyArray_TYPE(raw) == NPY_UINT8;
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY((PyObject *)raw, act8 ? NPY_UINT8 : NPY_INT64, 1, 1,
                                                        NPY_ARRAY_IN_ARRAY);
    Py_DECREF(raw);
    if (!a)
        return NULL; /* numpy's ValueError: not one-dimensional */
    if (PyArray_DIM(a, 0) != e->n) {
        Py_DECREF(a);
        return szpy_value_error("step: %zd actions for %d envs", (Py_ssize_t)PyArray_DIM(a, 0), e->n);
    }
    if (enter(e)) {
        Py_DECREF(a);
        return NULL;
    }
    const void *act = PyArray_DATA(a);
    int bad;
    Py_BEGIN_ALLOW_THREADS
    if (e->ve) {
        bad = kalah_step_all(e, act, act8);
    } else {
        bad = check_actions(e, act);
        if (bad < 0)
            generic_step_all(e, act);
    }
    Py_END_ALLOW_THREADS
    e->busy = 0;
    if (bad >= 0) {
        char legal[3 * 8 + 1] = "";
        for (int k = 0, len = 0; k < e->moves; k++)
            if (u8(e->mask)[(size_t)bad * (size_t)e->moves + (size_t)k])
                len += snprintf(legal + len, sizeof legal - (size_t)len, "%s%d", len ? "," : "", k);
        const long long value = act8 ? ((const uint8_t *)act)[bad] : ((const int64_t *)act)[bad];
        szpy_value_error("step: env %d: action %lld is not a legal move (legal: %s)", bad, value,
                         legal[0] ? legal : "none, the game is over");
        Py_DECREF(a);
        return NULL;
    }
    Py_DECREF(a);
    return step_result(e);
}

static inline uint64_t xorshift64(uint64_t x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

static PyObject *vecenv_sample_py(szpy_vecenv *e, PyObject *noargs)
{
    (void)noargs;
    if (idle(e))
        return NULL;
    e->cur = !e->cur; /* the array not handed out last: a step drawing ahead wrote there */
    uint8_t *out = u8(e->actions[e->cur]);
    if (e->ve) {
        if (!e->fresh) {
            const vecenv_gym_out o = {.sample = out};
            vecenv_gym_observe(e->ve, e->n, &o);
        }
        e->fresh = 0;
        e->sampling = 1;
        e->actions_valid = 1;
    } else {
        uint64_t s = e->rng;
        for (int i = 0; i < e->n; i++) {
            const unsigned legal = e->legal[i] & 127;
            s = xorshift64(s);
            /* the k-th legal pit with k = (u * count) >> 16 for the top 16 bits u: vecenv.h's pick rule;
             * 0 when nothing is legal (the env resets at this step and ignores its action) */
            out[i] = kth_bit[legal][((s >> 48) * bit_count[legal]) >> 16];
        }
        e->rng = s;
    }
    Py_INCREF(e->actions[e->cur]);
    return (PyObject *)e->actions[e->cur];
}

static int check_index(const szpy_vecenv *e, Py_ssize_t i, const char *what)
{
    if (i < 0 || i >= e->n) {
        szpy_value_error("%s: env index %zd is not in 0..%d", what, i, e->n - 1);
        return -1;
    }
    return 0;
}

static PyObject *vecenv_get_position(szpy_vecenv *e, PyObject *args)
{
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n:get_position", &i) || idle(e) || check_index(e, i, "get_position"))
        return NULL;
    char buf[GAME_POS_STR];
    if (e->ve) {
        kalah_pos p;
        vecenv_get(e->ve, (int)i, &p);
        return PyUnicode_FromString(kalah_pos_format(&e->rules.kalah, &p, buf, sizeof buf));
    }
    return PyUnicode_FromString(game_pos_format(e->rules.g, &e->pos[i], buf, sizeof buf));
}

/* The game interface's position of env i (the stepper's board for Kalah, through its string). */
static int env_pos(const szpy_vecenv *e, int i, game_pos *out)
{
    if (!e->ve) {
        *out = e->pos[i];
        return 0;
    }
    kalah_pos p;
    char buf[GAME_POS_STR];
    vecenv_get(e->ve, i, &p);
    return szpy_pos_parse(&e->rules, kalah_pos_format(&e->rules.kalah, &p, buf, sizeof buf), out);
}

static PyObject *vecenv_move_name(szpy_vecenv *e, PyObject *args)
{
    Py_ssize_t i;
    long k;
    if (!PyArg_ParseTuple(args, "nl:move_name", &i, &k) || idle(e) || check_index(e, i, "move_name"))
        return NULL;
    if (k < 0 || k >= e->moves)
        return szpy_value_error("move_name: action %ld is not in 0..%d", k, e->moves - 1);
    game_pos p;
    if (env_pos(e, (int)i, &p))
        return NULL;
    char text[8];
    return PyUnicode_FromString(game_move_format(e->rules.g, &p, (int)k, text, sizeof text));
}

static PyObject *vecenv_set_position(szpy_vecenv *e, PyObject *args)
{
    Py_ssize_t i;
    const char *text;
    if (!PyArg_ParseTuple(args, "ns:set_position", &i, &text) || idle(e) || check_index(e, i, "set_position"))
        return NULL;
    game_pos p;
    if (szpy_pos_parse(&e->rules, text, &p))
        return NULL;
    if (e->ve) { /* the stepper's own form of the same string */
        kalah_pos kp;
        int pits, rc = kalah_pos_parse(text, &e->rules.kalah, &kp, &pits, NULL);
        if (rc == KALAH_OK)
            rc = vecenv_set(e->ve, (int)i, &kp);
        if (rc != KALAH_OK)
            return szpy_value_error("set_position: the batch stepper rejects position '%s' (vecenv_set: %d)",
                                    text, rc);
    } else {
        e->pos[i] = p;
    }
    e->pending[i] = p.over; /* a finished position resets at the next step */
    e->fresh = 0;           /* the sample was drawn for the old position */
    e->actions_valid = 0;
    write_row(e, (int)i, &p);
    Py_RETURN_NONE;
}

static PyObject *vecenv_stats_py(szpy_vecenv *e, PyObject *noargs)
{
    (void)noargs;
    if (e->ve) {
        vecenv_stats st;
        vecenv_stats_get(e->ve, &st);
        return Py_BuildValue("{sKsK}", "sows", (unsigned long long)st.sows, "games", (unsigned long long)st.games);
    }
    return Py_BuildValue("{sKsK}", "sows", (unsigned long long)e->sows, "games", (unsigned long long)e->games);
}

static PyObject *vecenv_close_py(szpy_vecenv *e, PyObject *noargs)
{
    (void)noargs;
    if (!e->closed && e->busy) {
        PyErr_SetString(PyExc_RuntimeError, "VecEnv: another thread is stepping this env");
        return NULL;
    }
    e->closed = 1;
    Py_RETURN_NONE;
}

static PyMethodDef vecenv_methods[] = {
    {"reset", SZPY_KW(vecenv_reset_py), METH_VARARGS | METH_KEYWORDS,
     "reset(*, seed=None, options=None) -> (obs, info)\n"
     "Every env back to the start position. seed: an int in 0..2**64-1, or a list of num_envs of them\n"
     "(Gymnasium's per-env form, folded into one seed: the draws depend on the whole list), re-seeds\n"
     "sample_actions' stream; ValueError out of range. options: None or a dict; its one key is\n"
     "'reset_mask', a bool array (num_envs,): only those envs restart (Gymnasium's partial reset), the\n"
     "others keep their positions. Any other key: ValueError. Returns copies, or the env's own arrays with\n"
     "copy=False (see the class docstring)."},
    {"step", (PyCFunction)vecenv_step_py, METH_O,
     "step(actions) -> (obs, rewards, terminations, truncations, info)\n"
     "actions: num_envs integers of any integer dtype but uint64 (int64 as Gymnasium's Discrete spaces sample them,\n"
     "uint8 as sample_actions draws them; Kalah reads both without a copy), the mover's relative pit\n"
     "0..num_actions-1 per env (an env whose game ended at the previous step ignores its action and\n"
     "resets: Gymnasium's next-step autoreset).\n"
     "ValueError naming the first env index whose action is not legal; nothing moves then.\n"
     "step(env.sample_actions()) sows that draw without checking it again (the array cannot be made\n"
     "writeable); any other array is checked. The GIL is released while stepping."},
    {"sample_actions", (PyCFunction)vecenv_sample_py, METH_NOARGS,
     "sample_actions() -> actions\n"
     "A uniformly random legal action per env (uint8, num_envs; 0 where nothing is legal), drawn from the\n"
     "env's xorshift64 streams (seeded by seed=; Kalah: the batch stepper's pick rule, env/vecenv.h). Two\n"
     "read-only arrays of the env in turn: each holds its draw through the next step and the next call, and\n"
     "the step or call after those may overwrite it (copy what you keep). uint8, the stepper's own bytes\n"
     "(no int64 copy per step): .astype(np.int64) where int64 is needed; step takes either."},
    {"get_position", (PyCFunction)vecenv_get_position, METH_VARARGS,
     "get_position(i) -> str\nThe position string (docs/design.md section 2) of env i."},
    {"move_name", (PyCFunction)vecenv_move_name, METH_VARARGS,
     "move_name(i, action) -> str\nThe action (a slot of env i's mover) in the game's notation, e.g. 'c' for\n"
     "South and 'C' for North in Kalah (game_move_format): what `sowzero replay` reads."},
    {"set_position", (PyCFunction)vecenv_set_position, METH_VARARGS,
     "set_position(i, position)\n"
     "Loads a position string into env i and updates its rows of obs, action_mask and to_play. A finished\n"
     "position resets at the next step, as if its game had just ended."},
    {"stats", (PyCFunction)vecenv_stats_py, METH_NOARGS,
     "stats() -> {'sows': int, 'games': int}\nSowings played and games ended since creation."},
    {"close", (PyCFunction)vecenv_close_py, METH_NOARGS,
     "close()\nEnds the env: reset, step, sample_actions and the board methods raise RuntimeError after it\n"
     "(Gymnasium API; a second close does nothing)."},
    {NULL, NULL, 0, NULL}};

static PyObject *get_int(szpy_vecenv *e, void *which)
{
    switch ((intptr_t)which) {
    case 0: return PyLong_FromLong(e->n);
    case 1: return PyLong_FromLong(e->players);
    case 2: return PyLong_FromLong(e->moves);
    default: return PyLong_FromLong(e->dim);
    }
}

static PyObject *get_flag(szpy_vecenv *e, void *which)
{
    return PyBool_FromLong((intptr_t)which ? e->closed : e->copy);
}

static PyObject *get_rules(szpy_vecenv *e, void *unused)
{
    (void)unused;
    if (not_ready(e))
        return NULL;
    return PyUnicode_FromString(game_spec(e->rules.g));
}

static PyObject *get_game(szpy_vecenv *e, void *unused)
{
    (void)unused;
    if (not_ready(e))
        return NULL;
    return PyUnicode_FromString(game_name(e->rules.g));
}

static PyObject *get_kernel(szpy_vecenv *e, void *unused)
{
    (void)unused;
    return PyUnicode_FromString(e->ve ? vecenv_kernel_name(vecenv_kernel_used(e->ve)) : "positions");
}

static PyObject *get_autoreset(szpy_vecenv *e, void *unused)
{
    (void)e;
    (void)unused;
    return PyUnicode_FromString("next_step");
}

static PyObject *get_obs_dtype(szpy_vecenv *e, void *unused)
{
    (void)unused;
    return (PyObject *)PyArray_DescrFromType(e->obs_u8 ? NPY_UINT8 : NPY_FLOAT32);
}

/* A new array of obs_dim entries from the game's uint8 form: which 0 its scales (float32), 1 the largest
 * float of each element, high[j] * scale[j] (float32), 2 the largest integer, high[j] (uint8); None for a
 * game without a uint8 form. */
static PyObject *form_array(const szpy_vecenv *e, int which)
{
    if (!e->has_form)
        Py_RETURN_NONE;
    npy_intp d[1] = {e->dim};
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, d, which == 2 ? NPY_UINT8 : NPY_FLOAT32);
    for (int j = 0; a && j < e->dim; j++) {
        if (which == 2)
            u8(a)[j] = e->high[j];
        else
            f32(a)[j] = which ? e->high[j] * e->scale[j] : e->scale[j];
    }
    return (PyObject *)a;
}

static PyObject *get_obs_scale(szpy_vecenv *e, void *unused)
{
    (void)unused;
    return form_array(e, 0);
}

/* Gymnasium's spaces of obs: sowzero.spaces.Box (gymnasium.spaces.Box when gymnasium is installed) with
 * bounds 0 .. the largest value of each element, of one env (single) or of the batch (which = 1). */
static PyObject *get_obs_space(szpy_vecenv *e, void *which)
{
    if (!e->obs_all || !e->has_form)
        Py_RETURN_NONE; /* observations=False; or a game whose bounds this file does not know */
    PyObject *mod = PyImport_ImportModule("sowzero.spaces");
    PyObject *high = form_array(e, e->obs_u8 ? 2 : 1), *dtype = get_obs_dtype(e, NULL);
    PyObject *space = mod && high && dtype
                          ? PyObject_CallMethod(mod, "observation_box", "OOn", high, dtype,
                                                (Py_ssize_t)((intptr_t)which ? e->n : 0))
                          : NULL;
    Py_XDECREF(mod);
    Py_XDECREF(high);
    Py_XDECREF(dtype);
    return space;
}

static PyGetSetDef vecenv_getset[] = {
    {"num_envs", (getter)get_int, NULL, "number of envs N", (void *)0},
    {"num_players", (getter)get_int, NULL, "players of the game (columns of rewards)", (void *)1},
    {"num_actions", (getter)get_int, NULL, "moves per turn: the mover's pits (columns of action_mask)", (void *)2},
    {"obs_dim", (getter)get_int, NULL, "elements per observation (columns of obs)", (void *)3},
    {"obs_dtype", (getter)get_obs_dtype, NULL, "obs's dtype: float32 (the default) or uint8 (obs_dtype='uint8')",
     NULL},
    {"obs_scale", (getter)get_obs_scale, NULL,
     "float32 (obs_dim,): the float32 encoding is obs.astype(np.float32) * obs_scale, bit for bit, for a\n"
     "uint8 obs (python/src/szpy_obs.h: Kalah-family games 1/seeds everywhere); None for a game without a\n"
     "uint8 form",
     NULL},
    {"single_observation_space", (getter)get_obs_space, NULL,
     "Box(0, high, (obs_dim,), obs_dtype): one env's obs (None with observations=False)", (void *)0},
    {"observation_space", (getter)get_obs_space, NULL,
     "Box(0, high, (num_envs, obs_dim), obs_dtype): the batch's obs (None with observations=False)", (void *)1},
    {"copy", (getter)get_flag, NULL,
     "True (the default): reset and step return new arrays; False: the env's own read-only buffers,\n"
     "overwritten in place by the next reset or step", (void *)0},
    {"closed", (getter)get_flag, NULL, "close() was called (reset, step and the board methods then raise)",
     (void *)1},
    {"rules", (getter)get_rules, NULL, "the canonical rules spec", NULL},
    {"game", (getter)get_game, NULL, "the game's name", NULL},
    {"kernel", (getter)get_kernel, NULL, "Kalah: the stepper's SIMD kernel; other games: 'positions'", NULL},
    {"autoreset_mode", (getter)get_autoreset, NULL, "'next_step' (Gymnasium's AutoresetMode.NEXT_STEP)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject szpy_VecEnvType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sowzero.VecEnv",
    .tp_basicsize = sizeof(szpy_vecenv),
    .tp_dealloc = (destructor)vecenv_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, /* sowzero.VecEnv adds Gymnasium's attributes */
    .tp_doc =
        "VecEnv(game=None, rules=None, num_envs=1, *, seed=0, kernel='auto', observations=True,\n"
        "       obs_dtype='float32', copy=True)\n"
        "num_envs games of one rule set stepped together (Gymnasium's vector-env API, without gymnasium).\n"
        "game: any game of the registry (env/game.h; 'kalah', 'basico', ...; default: the rules' game, or\n"
        "'kalah'). rules: a spec such as 'kalah:pits=6,seeds=4' or 'basico:players=3,pits=4' (default: the\n"
        "game's default rules); when both are given, the rules must be of that game. Kalah runs on the SIMD batch stepper (kernel = auto, avx512, avx2 or scalar); other\n"
        "games step their positions one by one through the game interface. observations=False writes no\n"
        "observations (obs is None in what reset and step return): for playouts that need only the masks,\n"
        "rewards and flags. obs_dtype='uint8' writes obs as the encoding's integers (Kalah: the seed counts),\n"
        "a quarter of the bytes: obs.astype(np.float32) * obs_scale is the float32 obs bit for bit, and Net\n"
        "takes the uint8 rows as they are (python/src/szpy_obs.h; ValueError for any other dtype).\n"
        "reset() -> (obs, info); step(actions) -> (obs, rewards, terminations, truncations, info):\n"
        "  obs           float32 (num_envs, obs_dim), or uint8 (obs_dtype): the net's encoding of each\n"
        "                position, from the mover's\n"
        "                view (game_encode: kalah_encode for Kalah, basico_encode for basico)\n"
        "  rewards       float32 (num_envs, num_players), by absolute player (Kalah: 0 South, 1 North): 0,\n"
        "                except on the step that ends a game: its final value per player (game_values:\n"
        "                two-player games +1 win, -1 loss, 0 draw; basico 2*rank_score-1: first +1, last -1)\n"
        "  terminations  bool (num_envs,): the game ended with this step (the rules' end, max_sows included)\n"
        "  truncations   bool (num_envs,): always False (no time limit is imposed)\n"
        "  info          {'action_mask': bool (num_envs, num_actions), 'to_play': int8 (num_envs,)}: the\n"
        "                legal moves and the player to move next (an extra turn keeps the mover); at the\n"
        "                terminal step the mask is all False\n"
        "Autoreset: NEXT_STEP (Gymnasium's default). The step that ends a game returns the terminal position;\n"
        "the next step resets that env, ignores its action and returns the start position with reward 0\n"
        "and termination False.\n"
        "copy=True (the default, as Gymnasium's vector envs): reset and step return new writeable arrays.\n"
        "copy=False: they return the env's own buffers, read-only for Python and overwritten in place by the\n"
        "next reset or step (copy what you keep): no allocation per step (docs/python-gym.md gives the\n"
        "difference). seed: an int in 0..2**64-1 (ValueError otherwise). The GIL is released while stepping.",
    .tp_methods = vecenv_methods,
    .tp_getset = vecenv_getset,
    .tp_init = (initproc)vecenv_init,
    .tp_new = PyType_GenericNew,
};

int szpy_vecenv_register(PyObject *m)
{
    fill_tables();
    if (!key_mask && !(key_mask = PyUnicode_InternFromString("action_mask")))
        return -1;
    if (!key_to_play && !(key_to_play = PyUnicode_InternFromString("to_play")))
        return -1;
    return szpy_add_type(m, "VecEnv", &szpy_VecEnvType);
}
