/* mcts_impl.h — the private layout of mcts_tree, shared by mcts.c (the search) and mcts_results.c (results
 * and inspection). Not a public header: everything here may change with the search's memory layout. */
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

struct mcts_tree {
    /* first cache line: everything mcts_done, mcts_select_begin and a descent step read */
    _Alignas(64) mnode *pool;
    kalah_pos *ppool;
    int count, pcount;
    float c_puct, fpu_reduction;  /* cfg's values as float, the precision selection works in */
    int start_n;                /* N(root) when the current move's search began: it runs cfg.sims more */
    int npend;
    int sims, leaves;           /* cfg.sims, cfg.leaves_per_game */
    int pcap;
    uint8_t solver;             /* cfg.solver */
    uint8_t over;               /* root_pos.over */
    uint8_t rootsel;            /* the root chooses by mcts_root_select (gumbel or forced playouts) */
    uint8_t scored;             /* score proofs instead of win/draw/loss ones (solver with margin_utility) */
    uint64_t pend_used;         /* bit h: slot h holds a pending leaf */
    /* then the slots (slot 0, the only one with leaves_per_game = 1, in the second line) */
    mslot slot[MAX_PENDING];
    int cap;
    mnode *spare;               /* the second pool, the target of compaction on reuse */
    int spare_cap;
    /* Positions of the reached nodes (about one per simulation, not one per node): a descent reads them
     * instead of re-sowing every move from the root, and sows only once, into a node reached the first
     * time. On reuse they move (compacted, in the nodes' order) only once most of the pool is garbage. */
    kalah_pos *pspare;
    int pspare_cap;
    /* Gumbel root (mcts_root.h), drawn when the root is expanded: g of each root child (by child index),
     * the net's value of the root for its mover, and the halving schedule of this root's search. */
    float gumbel[KALAH_MAX_PITS];
    float root_raw;
    /* The root's priors by relative pit as the evaluator gave them, before the root noise mixes into the
     * children's (mcts_root_prior; recorded by add_root_noise whenever a root is expanded or reused). */
    float root_prior[KALAH_MAX_PITS];
    int *halving;
    int halving_len, halving_cap;
    kalah_rules r;
    mcts_config cfg;
    mcts_rng rng;
    kalah_pos root_pos;
};

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

/* The root levers (mcts_root.c; formulas in mcts_root.h). begin: the root was just expanded with the net's
 * value `raw` for its mover (draws g, lays out the halving; MCTS_ENOMEM when the schedule cannot be held,
 * the root then falls back to PUCT). select: the root child a descent takes (a node index). policy:
 * the target into pi (r.pits floats) when a lever decides it, returning 1; 0 = the plain visit rule.
 * choose: the Gumbel move (relative pit), or −1 when the root is not the Gumbel root. */
int mcts_root_begin(mcts_tree *t, float raw);
int mcts_root_select(const mcts_tree *t);
int mcts_root_policy(const mcts_tree *t, double tau, float *pi);
int mcts_root_choose(const mcts_tree *t);

/* The best root child by the tau = 0 rule of mcts_choose (mcts_results.c), or −1 when not expanded. */
int mcts_best_root_child(const mcts_tree *t);

#endif
