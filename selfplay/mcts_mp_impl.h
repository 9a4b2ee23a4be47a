/* mcts_mp_impl.h — the private layout of mcts_mp_tree, shared by mcts_mp.c (the search) and mcts_mp_root.c
 * (the root levers). Not a public header: everything here may change with the search's memory layout. */
#ifndef SOWZERO_SELFPLAY_MCTS_MP_IMPL_H
#define SOWZERO_SELFPLAY_MCTS_MP_IMPL_H

#include <stdint.h>

#include "selfplay/mcts_mp.h"

#define MP_MAX_PENDING 64
#define NP GAME_MAX_PLAYERS

enum { F_EXPANDED = 1, F_TERMINAL = 2, F_PENDING = 4, F_REACHED = 8, F_PROVEN = 16, F_DECIDED = 32 };

/* One node = the position reached by `move` from its parent. */
typedef struct {
    float prior;
    float w[NP];        /* value sums per player (absolute order) */
    float pv[NP];       /* the exact value vector once F_PROVEN */
    float dv;           /* the exact value for pmover once F_DECIDED */
    int32_t n;
    int32_t parent;
    int32_t child;      /* first child in the pool, −1 when not expanded */
    int16_t vl;         /* pending virtual losses */
    uint8_t nchild;
    uint8_t move;
    uint8_t mover;      /* player to move here (valid once F_REACHED) */
    uint8_t pmover;     /* player to move at the parent (the one whose choice this node is) */
    uint8_t flags;
} mpnode;

struct mcts_mp_tree {
    struct mcts2_tree *two; /* a two-player game: the two-player tree (mcts.h) does it all; only g, players,
                               moves and pend_mover below are then used */
    const game *g;      /* borrowed: outlives the tree */
    int players, moves;
    mcts_config cfg;
    mcts_rng rng;
    game_pos root_pos;
    mpnode *pool, *spare;
    int cap, spare_cap, count;
    int start_n;
    int npend;
    int32_t pend_node[MP_MAX_PENDING];
    uint8_t pend_mover[MP_MAX_PENDING];
    unsigned pend_legal[MP_MAX_PENDING];
    /* the root levers (mcts_mp_root.c) */
    float gumbel[GAME_MAX_MOVES]; /* g of each root child (child order), drawn when the root is expanded */
    float root_raw;               /* the evaluator's value of the root for its mover */
    int *halving, halving_len, halving_cap; /* mcts_gumbel_halving's schedule of this root's search */
};

/* Q of child c for player m (its chooser): the exact value once decided, else W_m / N (0 unvisited). */
static inline float mp_child_q(const mpnode *c, int m)
{
    if (c->flags & F_DECIDED)
        return c->dv;
    return c->n > 0 ? c->w[m] / (float)c->n : 0.0f;
}

/* The tau = 0 choice of mcts_mp.c (a proven first place, else the most visited not decided last): a node
 * index, −1 when the root is unexpanded. */
int mp_best_root_child(const mcts_mp_tree *t);

/* The root levers (mcts_mp.h; formulas in mcts_root.h). mp_root_begin: the root was just expanded and
 * valued raw (for its mover): draws g and lays out the halving schedule (Gumbel only); MCTS_OK or
 * MCTS_ENOMEM. mp_root_select: the child the root descends to (a node index), or −1 for PUCT.
 * mp_root_policy: writes the lever's target into pi (by slot) and returns 1, or 0 when the visit counts
 * apply. mp_root_choose: the Gumbel root's move (a slot), −1 otherwise. */
int mp_root_begin(mcts_mp_tree *t, float raw);
int mp_root_select(const mcts_mp_tree *t);
int mp_root_policy(const mcts_mp_tree *t, double tau, float *pi);
int mp_root_choose(const mcts_mp_tree *t);

#endif
