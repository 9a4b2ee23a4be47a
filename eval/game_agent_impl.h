/* game_agent_impl.h — a kind's own agent set behind game_agent (eval/game_agent.h): specialised agents,
 * found by the game's kind, played through the same calls. Private to eval/game_agent*.c. */
#ifndef SOWZERO_GAME_AGENT_IMPL_H
#define SOWZERO_GAME_AGENT_IMPL_H

#include "eval/game_agent.h"

/* One kind's agent set. Its instance x is what create or create_az returned; the contracts are those of the
 * game_agent_* call of the same name (errors in err, AGENT_ERRLEN bytes). */
typedef struct ga_special {
    const game_kind *kind;      /* the kind whose games it plays */
    const char *const *kinds;   /* the agent kinds it implements (NULL-terminated); a spec of another
                                 * kind of the generic set (maxn, paranoid, solve, ...) is played by that */
    void *(*create)(const char *spec, const game *g, char *err); /* any other spec: its own message */
    void *(*create_az)(const game *g, const game_agent_az *az, char *err);
    void (*free)(void *x);
    const char *(*kind_name)(const void *x);
    const char *(*describe)(const void *x);
    const char *(*error)(const void *x);
    void (*new_game)(void *x, const game_pos *start, uint64_t game_seed);
    void (*notify)(void *x, const game_pos *before, int move);
    int (*choose)(void *x, const game_pos *p, int *move_out);
    void (*set_time)(void *x, int64_t soft_ms);
    void (*set_abort)(void *x, const int *flag);
    int (*is_exact)(const void *x);
    int (*exact_value)(void *x, const game_pos *p, int *seat0_margin);
    /* game_agent_exact_spec for g (two players, a margin, solvable: checked by the caller) */
    void (*exact_spec)(const game *g, int tt_mb, int endgame_seeds, char *buf, size_t n);
} ga_special;

/* Kalah's agents (eval/agent.h; game_agent_kalah.c). */
extern const ga_special ga_special_kalah;

/* a's instance of sp's agent set, or NULL when a is not one of sp's agents. */
void *ga_special_instance(const game_agent *a, const ga_special *sp);

#endif
