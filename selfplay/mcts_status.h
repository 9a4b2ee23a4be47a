/* mcts_status.h — the search's status codes (env/status.h's vocabulary under the search's names) and its
 * error-buffer size, shared by the trees (mcts.h, mcts_mp.h), the evaluators, self-play and the replay
 * buffer. */
#ifndef SOWZERO_SELFPLAY_MCTS_STATUS_H
#define SOWZERO_SELFPLAY_MCTS_STATUS_H

#include "env/status.h"

#define MCTS_ERRLEN SZ_ERRLEN

enum {
    MCTS_OK = SZ_OK,
    MCTS_EINVAL = SZ_EINVAL,    /* bad argument or configuration (message names the field) */
    MCTS_ENOMEM = SZ_ENOMEM,
    MCTS_EOVER = SZ_EOVER,      /* the position is already finished: nothing to search */
    MCTS_EEVAL = SZ_EFAIL,      /* the evaluator failed */
    MCTS_EIO = SZ_EIO,          /* a file could not be written */
    MCTS_ESTOPPED = SZ_ESTOPPED /* an abort flag stopped the search (mcts_mp_search_timed) */
};

#endif
