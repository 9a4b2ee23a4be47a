/* szpy_vecenv.h — sowzero.VecEnv: N games stepped together behind numpy arrays, in the shape of
 * Gymnasium's vector environments (gymnasium.vector.VectorEnv: reset -> (obs, info), step -> (obs,
 * rewards, terminations, truncations, info), autoreset mode NEXT_STEP). The contract is the type's
 * docstring in szpy_vecenv.c (what Python's help() shows) and the README's "Python" section. */
#ifndef SOWZERO_SZPY_VECENV_H
#define SOWZERO_SZPY_VECENV_H

#include "python/src/szpy_util.h"

/* Readies the type and adds it to module m as "VecEnv". 0, or -1 with a Python exception set. */
int szpy_vecenv_register(PyObject *m);

#endif
