/* batcher.h — gathers the pending leaves of many trees (one per game) into one evaluator call
 * (docs/design.md §3.3: each game descends its own tree to a leaf, the leaves go into one batch, one net call
 * evaluates them, each game backs up and continues).
 *
 * Use per worker thread: clear; gather(tree_g) for every game g; flush(evaluator); repeat. A batcher and
 * the trees it holds belong to one thread.
 */
#ifndef SOWZERO_SELFPLAY_BATCHER_H
#define SOWZERO_SELFPLAY_BATCHER_H

#include <stdint.h>
#include "env/kalah.h"
#include "selfplay/evaluator.h"
#include "selfplay/mcts.h"

typedef struct mcts_batcher mcts_batcher;

/* A batcher for up to capacity (>= 1) leaves of positions under r. NULL when out of memory / bad args. */
mcts_batcher *mcts_batcher_create(const kalah_rules *r, int capacity);
void mcts_batcher_free(mcts_batcher *b);

/* Forgets the gathered leaves (only after flush: pending leaves would stay charged in their trees). */
void mcts_batcher_clear(mcts_batcher *b);
int mcts_batcher_count(const mcts_batcher *b);
int mcts_batcher_capacity(const mcts_batcher *b);

/* Runs simulations on t until it has cfg.leaves_per_game leaves pending, its search is done
 * (mcts_done), a descent collides with a pending leaf, or the batch is full; simulations that end on
 * finished/proven nodes are backed up on the spot and do not use batch slots. Returns the leaves added
 * (>= 0) or a negative MCTS_E* code. */
int mcts_batcher_gather(mcts_batcher *b, mcts_tree *t);

/* The same as mcts_batcher_gather(b, t[i]) for i = 0..n−1 in turn — the same simulations, leaves in the
 * same batch order, the same trees afterwards — but with the descents of the n trees interleaved one tree
 * level at a time (mcts_select_step), so that one tree's memory loads arrive while the others are worked on
 * (the trees of a worker do not fit in cache; a plain descent waits on every level's load). Falls back to
 * the plain loop when the batch might fill up (the sum of mcts_leaf_room exceeds the free capacity), where
 * the order would decide which trees get slots. Returns the leaves added (>= 0) or a negative MCTS_E* code
 * (MCTS_ENOMEM: leaves found so far stay gathered). */
int mcts_batcher_gather_many(mcts_batcher *b, mcts_tree *const *t, int n);

/* Evaluates every gathered leaf with ONE ev->evaluate call (or ceil(count / ev->max_batch) calls if the
 * evaluator's batch is smaller), completes each leaf in its tree, and clears. MCTS_OK or a negative code
 * (the leaves are then completed with uniform priors and value 0 so the trees stay consistent). */
int mcts_batcher_flush(mcts_batcher *b, mcts_eval *ev);

/* Totals since creation: flushes that evaluated something, and leaves evaluated. */
uint64_t mcts_batcher_batches(const mcts_batcher *b);
uint64_t mcts_batcher_leaves(const mcts_batcher *b);

#endif
