/* status.h — one status vocabulary for the whole library, as Lua's LUA_OK / LUA_ERRRUN: a function returns
 * SZ_OK or one of the negative codes below, whichever module it lives in. A module's own names (GAME_EINVAL,
 * AGENT_ENOMEM, TRAIN_EIO, ...) are aliases of these values, so a code keeps its meaning when it crosses a
 * module boundary and needs no translation. A few functions also return positive outcomes that are not
 * errors (TRAIN_STOPPED, RECORD_EOF, BOOK_BLANK, ...): those are the module's own, documented where they are
 * returned. Messages go into caller buffers of SZ_ERRLEN bytes (a module's X_ERRLEN is the same size: a
 * message that wraps another one is truncated, never overflowed, env/errbuf.h); library code never prints. */
#ifndef SOWZERO_ENV_STATUS_H
#define SOWZERO_ENV_STATUS_H

enum {
    SZ_OK = 0,
    SZ_EINVAL = -1,      /* bad input: an argument, config field, spec, position, file content */
    SZ_ENOMEM = -2,      /* out of memory */
    SZ_EIO = -3,         /* a file or stream cannot be opened, read, written or renamed */
    SZ_EFORMAT = -4,     /* not a sowzero file, a wrong version, truncated or corrupt */
    SZ_EMISMATCH = -5,   /* a valid file that does not fit what the caller asked for (rules, shapes) */
    SZ_EILLEGAL = -6,    /* an illegal move */
    SZ_EOVER = -7,       /* the game is over: no move to make or search */
    SZ_EFAIL = -8,       /* an operation failed for another reason (a net evaluation, a search, a worker) */
    SZ_ESTOPPED = -9,    /* stopped on request: an abort flag, a signal, a stop option */
    SZ_ELIMIT = -10,     /* a budget ran out before an answer (a solver's node limit) */
    SZ_EDEEP = -11,      /* deeper than a search can go */
    SZ_EGAME = -12,      /* a game refused what its own interface offered (a bug in a game kind) */
    SZ_EAGENT = -13,     /* an agent spec does not parse, or an agent failed during a match or a run */
    SZ_EFORFEIT = -14,   /* an outside engine lost the game (illegal move, garbage, silence, exit) */
    SZ_EDIVERGED = -15,  /* training diverged (a loss or a weight not finite) */
    SZ_ELOOP = -16,      /* a loop ran past its proven bound (cannot happen) */
    SZ_ENOSOLUTION = -17 /* the data admit no answer (ratings of players no chain of games connects) */
};

#define SZ_ERRLEN 1024 /* bytes of every error-message buffer */

#endif
