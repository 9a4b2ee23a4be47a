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
    void (*stats)(const void *x, game_agent_stats *out); /* game_agent_last_stats */
    void (*set_detail)(void *x, int detail);
} ga_special;

/* Kalah's agents (eval/agent.h; game_agent_kalah.c). */
extern const ga_special ga_special_kalah;

/* a's instance of sp's agent set, or NULL when a is not one of sp's agents. */
void *ga_special_instance(const game_agent *a, const ga_special *sp);

/* The tree agents mcts and az (game_agent_tree.c): one tree per agent, reused between the moves of a game.
 * ga_tree_create takes ev (owned from then on, freed on failure too); cfg's noises are dropped; tb > 0 values
 * leaves (and with tb_root plays covered roots) from g's endgame database, acquired here when eval/tbase.h
 * builds it for g. NULL with "agent 'NAME': ..." in err (AGENT_ERRLEN). */
#include "selfplay/mcts_mp.h"
typedef struct ga_tree ga_tree;
ga_tree *ga_tree_create(const game *g, const mcts_config *cfg, int raw, mcts_mp_eval *ev, int tb, int tb_root,
                        uint64_t seed, const char *name, char *err);
void ga_tree_free(ga_tree *x);
void ga_tree_new_game(ga_tree *x, const game_pos *start, uint64_t game_seed);
void ga_tree_notify(ga_tree *x, const game_pos *before, int move);
/* An AGENT_* code; fills st's tree fields (the caller clears it first). */
int ga_tree_choose(ga_tree *x, const game_pos *p, int64_t soft_ms, const int *abort, int *move_out,
                   game_agent_stats *st, char *err);
/* The database's seeds the leaves use (0: none) and whether covered roots are played from it. */
int ga_tree_tb(const ga_tree *x, int *tb_root);

#endif
