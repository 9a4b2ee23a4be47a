/* szpy_util.c — rules, positions and errors shared by the extension's files (szpy_util.h). */
#include "python/src/szpy_util.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

PyObject *szpy_value_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyErr_SetString(PyExc_ValueError, msg);
    return NULL;
}

int szpy_add_type(PyObject *m, const char *name, PyTypeObject *t)
{
    if (PyType_Ready(t) < 0)
        return -1;
    Py_INCREF(t);
    if (PyModule_AddObject(m, name, (PyObject *)t) < 0) {
        Py_DECREF(t);
        return -1;
    }
    return 0;
}

int szpy_rules_parse(const char *spec, szpy_rules *out)
{
    char err[GAME_ERRLEN];
    memset(out, 0, sizeof *out);
    if (!(out->g = game_create(spec, err))) {
        szpy_value_error("rules '%s': %s", spec, err);
        return -1;
    }
    const char *name = game_name(out->g);
    if ((out->is_kalah = !strcmp(name, "kalah")))
        out->kalah = *(const kalah_rules *)game_rules(out->g);
    return 0;
}

void szpy_rules_free(szpy_rules *r)
{
    game_free(r->g);
    r->g = NULL;
}

int szpy_pos_parse(const szpy_rules *r, const char *text, game_pos *out)
{
    char err[GAME_ERRLEN];
    if (game_pos_parse(r->g, text, out, err) != GAME_OK) {
        szpy_value_error("position '%s': %s", text, err);
        return -1;
    }
    return 0;
}

int szpy_setup(const char *rules_spec, const char *pos_text, szpy_rules *r, game_pos *p)
{
    if (szpy_rules_parse(rules_spec ? rules_spec : "kalah", r))
        return -1;
    if (!pos_text) {
        game_start(r->g, p);
        return 0;
    }
    if (szpy_pos_parse(r, pos_text, p)) {
        szpy_rules_free(r);
        return -1;
    }
    return 0;
}

int szpy_run_interruptible(void *(*fn)(void *), void *arg, int *abort)
{
    pthread_t th;
    if (pthread_create(&th, NULL, fn, arg) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "cannot start the search thread");
        return -1;
    }
    int interrupted = 0;
    for (;;) {
        struct timespec until;
        int done;
        Py_BEGIN_ALLOW_THREADS
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        done = pthread_timedjoin_np(th, NULL, &until) == 0;
        Py_END_ALLOW_THREADS
        if (done)
            return interrupted ? -1 : 0;
        if (!interrupted && PyErr_CheckSignals() != 0) {
            interrupted = 1;
            __atomic_store_n(abort, 1, __ATOMIC_RELAXED);
        }
    }
}

int szpy_seed(PyObject *o, const char *what, unsigned long long *out)
{
    PyObject *i = PyBool_Check(o) ? NULL : PyNumber_Index(o);
    if (!i) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: seed must be an int in 0..2**64-1, not %.80s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    const unsigned long long v = PyLong_AsUnsignedLongLong(i);
    Py_DECREF(i);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) { /* negative (OverflowError) or >= 2**64 */
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: seed=%R is not in 0..2**64-1", what, o);
        return -1;
    }
    *out = v;
    return 0;
}
