/* szpy_agent.h — sowzero.Agent: every agent spec of eval/agent.h (Kalah) and eval/game_agent.h (every
 * other game of the registry) choosing moves for position strings. */
#ifndef SOWZERO_SZPY_AGENT_H
#define SOWZERO_SZPY_AGENT_H

#include "python/src/szpy_util.h"

/* Readies the type and adds it to module m as "Agent". 0, or -1 with a Python exception set. */
int szpy_agent_register(PyObject *m);

#endif
