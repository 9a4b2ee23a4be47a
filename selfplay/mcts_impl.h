/* mcts_impl.h — the private layout of the two-player PUCT tree's nodes and pending-leaf slots, shared by
 * its instances (mcts_tree_impl.h) and mcts_config.c. Not a public header: everything here may change with
 * the search's memory layout. */
#ifndef SOWZERO_SELFPLAY_MCTS_IMPL_H
#define SOWZERO_SELFPLAY_MCTS_IMPL_H

#include <stdint.h>
#include "selfplay/mcts.h"

#define MAX_PENDING 64

enum {
    F_EXPANDED = 1,
    F_TERMINAL = 2,
    F_PENDING = 4,
    F_REACHED = 8,
    F_EXACT = 16,  /* a tablebase leaf (mcts.h) */
    F_SCORED = 32  /* score proofs (mcts.h): the exact utility is known and is W / N, kept so by backup */
};

/* One node = the position reached by `move` from its parent. w, n, proven: parent mover's view (mcts.h).
 * 32 bytes, pools 64-byte aligned, so a node never straddles a cache line. The first 16 bytes are all that
 * selection reads of a child (one SSE load per child); the rest is read for the chosen child only. */
typedef struct {
    float prior;
    float w;
    int32_t n;
    int16_t vl;         /* pending virtual losses (descents through this node not yet backed up) */
    int8_t proven;      /* −1/0/+1 for pside, or MCTS_UNPROVEN */
    uint8_t flags;
    int32_t parent;
    int32_t child;      /* first child in the pool, −1 when not expanded */
    int32_t pos;        /* index of this node's position in the position pool once F_REACHED, else −1 */
    uint8_t nchild;
    uint8_t move;
    uint8_t side;       /* player to move here (valid once F_REACHED) */
    uint8_t pside;      /* player to move at the parent; the root's own side for the root */
} mnode;

_Static_assert(sizeof(mnode) == 32, "mnode is one half cache line");

/* A pending leaf slot: the node waiting for its evaluation and the path of its descent, root first
 * (backup walks this array instead of chasing parent links, so its loads are independent and overlap). A
 * descent in progress holds its slot's path buffer in its cursor. */
typedef struct {
    int32_t *path;
    int32_t len, cap;
    int32_t node;       /* −1 when the slot is free */
    unsigned legal;     /* legal moves at the leaf */
    uint8_t side;       /* player to move at the leaf */
} mslot;

/* Q of a child for its parent's mover: its proven value when proven, else W / N (0 unvisited). */
static inline float mnode_q(const mnode *c)
{
    if (c->proven != MCTS_UNPROVEN)
        return (float)c->proven;
    return c->n > 0 ? c->w / (float)c->n : 0.0f;
}

/* Score proofs: utilities closer than this are one exact value (W / N carries float rounding; two margins
 * differ by at least 2 / (2 · pits · seeds) · w / (1 + w), far more than this for any rules and w >= 1e-3) */
#define MCTS_SCORE_TIE 1e-5f

/* Score proofs: is node c's exact utility known (for its parent's mover: W / N)? */
static inline int mnode_scored(const mnode *c) { return (c->flags & F_SCORED) && c->n > 0; }

#endif
