/* game_search_impl.h — the specialised exact solvers behind gs_solver (eval/game_search.h): a kind's own
 * solver, found by its kind, run through the same calls. Private to eval/game_search*.c. */
#ifndef SOWZERO_GAME_SEARCH_IMPL_H
#define SOWZERO_GAME_SEARCH_IMPL_H

#include "eval/game_search.h"

/* One specialised solver. Its instance x is what create returned; the contracts are those of the
 * gs_solver_* call of the same name (errors in err, GAME_ERRLEN bytes). set_threads and set_endgame may be
 * NULL (one thread; no database). */
typedef struct gs_special {
    const game_kind *kind; /* the kind it solves (every rules instance of it that gs_solvable accepts) */
    const char *name;      /* gs_solver_name */
    void *(*create)(const game *g, size_t tt_mb, char *err);
    void (*free)(void *x);
    int (*run)(void *x, const game_pos *p, uint64_t node_limit, gs_solution *out, char *err);
    int (*moves)(void *x, const game_pos *p, int *values, uint64_t *nodes, char *err);
    void (*set_abort)(void *x, const int *flag);
    void (*set_bounds)(void *x, gs_bounds_fn fn, void *ctx); /* may be NULL: no reports */
    int (*set_threads)(void *x, int threads, char *err);
    int (*set_smp)(void *x, gs_smp smp, char *err); /* may be NULL: one thread, nothing to share */
    int (*set_endgame)(void *x, gs_endgame *e, char *err);
    int (*window)(void *x, const game_pos *p, int lo, int hi, int *value, int *where, uint64_t *nodes, char *err);
    int (*endgame_ok)(const game *g, char *err); /* may these rules have a database? (gs_endgame_available) */
    int (*endgame_seeds)(const void *x);
} gs_special;

/* Kalah's MTD(f) alpha-beta (eval/alphabeta.h; game_search_kalah.c). */
extern const gs_special gs_special_kalah;

#endif
