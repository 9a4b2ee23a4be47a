/* possolve.h — solving every legal move of every position of a set exactly, on several threads.
 *
 * One endgame database (eval/endgame.h, through ab_set_endgame / ab_share_endgame) serves every thread;
 * each thread has its own alpha-beta search and transposition table (tt_mb / threads MiB each) that carries
 * over from one position to the next (ab_solve_moves: the positions of a set share subtrees). Positions are
 * handed to the threads one at a time, the most seeds in the pits first (the hardest first, so the threads
 * finish together). The values are exact, so they do not depend on the threads, the order or the table;
 * only the node counts and times do.
 */
#ifndef SOWZERO_EVAL_POSSOLVE_H
#define SOWZERO_EVAL_POSSOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "eval/posset.h"

typedef struct {
    int threads;        /* 1..64; also the threads that build the endgame database */
    size_t tt_mb;       /* MiB of transposition table in all, split evenly between the threads (>= 1 each) */
    int endgame;        /* seeds of the endgame database (0 = none; capped at the board's total) */
    /* Called after every solved position (from the solving thread, one call at a time) with the number
     * solved so far and the entry just solved; may be NULL. */
    void (*progress)(void *ctx, size_t done, size_t total, const ps_entry *e);
    void *ctx;
} ps_solve_opts;

typedef struct {
    double endgame_seconds;  /* wall time of the database build */
    double seconds;          /* wall time of the solving (after the build) */
    uint64_t nodes;          /* positions visited by all the solves */
    int threads;             /* threads that solved (fewer than asked when some could not start) */
} ps_solve_stats;

/* Solves every entry of s that is not yet solved: fills values[], sets solved, seconds and nodes. Needs
 * rules.max_sows = 0 when endgame > 0. Returns PS_OK; PS_EINVAL for bad options (message names the
 * option), PS_ENOMEM (table or database, with the size in err), PS_EFAIL if a search fails. stats may be
 * NULL. */
int ps_solve(ps_set *s, const ps_solve_opts *o, ps_solve_stats *stats, char *err);

#endif
