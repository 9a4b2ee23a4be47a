/* szpy_search.h — sowzero.solve (the exact solver, eval/alphabeta.h, as `sowzero solve`) and
 * sowzero.perft (game_perft of any registered game, as `sowzero perft`). */
#ifndef SOWZERO_SZPY_SEARCH_H
#define SOWZERO_SZPY_SEARCH_H

#include "python/src/szpy_util.h"

/* solve(position=None, rules='kalah', *, tt_mb=256, endgame=0, threads=1) -> dict; see its docstring. */
PyObject *szpy_solve(PyObject *self, PyObject *args, PyObject *kw);
extern const char szpy_solve_doc[];

/* perft(rules='kalah', position=None, depth=1) -> list of int; see its docstring. */
PyObject *szpy_perft(PyObject *self, PyObject *args, PyObject *kw);
extern const char szpy_perft_doc[];

/* encode(position=None, rules='kalah', *, player=None) -> float32 array; see its docstring. */
PyObject *szpy_encode(PyObject *self, PyObject *args, PyObject *kw);
extern const char szpy_encode_doc[];

#endif
