/* szpy_net.h — sowzero.Net: a network file (nn/h5io.h) evaluated on numpy batches with the project's
 * forward pass (nn_forward, nn/net.h), the same numbers `sowzero net --json` prints. */
#ifndef SOWZERO_SZPY_NET_H
#define SOWZERO_SZPY_NET_H

#include "python/src/szpy_util.h"

/* Readies the type and adds it to module m as "Net". 0, or -1 with a Python exception set. */
int szpy_net_register(PyObject *m);

#endif
