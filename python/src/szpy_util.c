/* szpy_util.c — rules, positions and errors shared by the extension's files (szpy_util.h). */
#include "python/src/szpy_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
