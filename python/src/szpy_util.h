/* szpy_util.h — what every file of the Python extension shares: the numpy C-API import
 * symbol, the rules of any registered game (env/game.h) parsed from one spec, positions from strings, and
 * the Python exception a C library's error stands for.
 *
 * Games: every game of the registry (env/games.def) is served through the game interface; Kalah keeps
 * its own fast paths (the SIMD batch stepper, the exact solver, eval/agent.h's agents) on kalah_rules.
 * Exceptions follow Python's own split:
 * TypeError for an argument of the wrong type (raised by the argument parsers and numpy's converters),
 * ValueError for a value the library rejects (its message as the text), OSError for a file that cannot be
 * opened, MemoryError when allocation fails, RuntimeError for a failure inside the library.
 */
#ifndef SOWZERO_SZPY_UTIL_H
#define SOWZERO_SZPY_UTIL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL sowzero_ARRAY_API
#ifndef SZPY_MODULE_MAIN
#define NO_IMPORT_ARRAY /* only szpy_module.c calls import_array() */
#endif
#include <numpy/arrayobject.h>

#include "env/game.h"
#include "env/kalah.h"

/* The rules of one game: the game interface's instance, and Kalah's own rules for its fast paths. */
typedef struct {
    game *g;             /* owned: szpy_rules_free */
    int is_kalah;        /* game "kalah": kalah is valid */
    kalah_rules kalah;
} szpy_rules;

/* Parses a rules spec of any registered game ("kalah:pits=6,seeds=4", "basico:players=3,pits=4", ...)
 * into *out (zeroed first). On error raises ValueError "rules 'SPEC': <game_create's message>" and
 * returns -1 (nothing to free); else 0. */
int szpy_rules_parse(const char *spec, szpy_rules *out);
void szpy_rules_free(szpy_rules *r); /* a zeroed or freed r is fine */

/* Parses a position string under r. On error raises ValueError "position 'TEXT': <message>", returns -1. */
int szpy_pos_parse(const szpy_rules *r, const char *text, game_pos *out);

/* The optional rules/position pair of the module's functions: rules_spec NULL = "kalah"; pos_text NULL =
 * the start. Raises ValueError and returns -1 on bad input (r is then freed). */
int szpy_setup(const char *rules_spec, const char *pos_text, szpy_rules *r, game_pos *p);

/* Runs fn(arg) on a thread of its own, without the GIL (fn must not touch Python), while the calling thread
 * (holding the GIL) takes the GIL back every 50 ms to look for a signal: on one (Ctrl-C:
 * KeyboardInterrupt) it sets *abort, the flag fn's search watches, waits for fn to return and returns -1
 * with the signal's exception set. 0 once fn has returned by itself; -1 with RuntimeError when no thread
 * can be started (fn has not run). */
int szpy_run_interruptible(void *(*fn)(void *), void *arg, int *abort);

/* A seed: a Python int or anything with __index__ (numpy's integers), not a bool, in 0..2**64-1, into
 * *out. TypeError (not an integer) or ValueError (out of range) naming `what`, and -1; else 0. */
int szpy_seed(PyObject *o, const char *what, unsigned long long *out);

/* Readies type t and adds it to module m under name: 0, or -1 with a Python exception set. */
int szpy_add_type(PyObject *m, const char *name, PyTypeObject *t);

/* Sets ValueError with a printf-formatted message; returns NULL (for `return szpy_value_error(...)`). */
PyObject *szpy_value_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Casts a METH_VARARGS | METH_KEYWORDS function for a PyMethodDef without -Wcast-function-type. */
#define SZPY_KW(fn) ((PyCFunction)(void (*)(void))(fn))

#endif
