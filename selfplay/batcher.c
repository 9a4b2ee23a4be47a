/* batcher.c — leaves of many trees → one evaluator call → completion in each tree (batcher.h). */
#include "selfplay/batcher.h"

#include <stdlib.h>

struct mcts_batcher {
    kalah_rules r;
    int cap, count;
    mcts_tree **tree;
    int *handle;
    kalah_pos *pos;
    float *prior, *value;
    uint64_t batches, leaves;
};

mcts_batcher *mcts_batcher_create(const kalah_rules *r, int capacity)
{
    if (!r || capacity < 1 || r->pits < 1 || r->pits > KALAH_MAX_PITS)
        return NULL;
    mcts_batcher *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->r = *r;
    b->cap = capacity;
    b->tree = malloc((size_t)capacity * sizeof *b->tree);
    b->handle = malloc((size_t)capacity * sizeof *b->handle);
    b->pos = malloc((size_t)capacity * sizeof *b->pos);
    b->prior = malloc((size_t)capacity * (size_t)r->pits * sizeof *b->prior);
    b->value = malloc((size_t)capacity * sizeof *b->value);
    if (!b->tree || !b->handle || !b->pos || !b->prior || !b->value) {
        mcts_batcher_free(b);
        return NULL;
    }
    return b;
}

void mcts_batcher_free(mcts_batcher *b)
{
    if (!b)
        return;
    free(b->tree);
    free(b->handle);
    free(b->pos);
    free(b->prior);
    free(b->value);
    free(b);
}

void mcts_batcher_clear(mcts_batcher *b) { b->count = 0; }
int mcts_batcher_count(const mcts_batcher *b) { return b->count; }
int mcts_batcher_capacity(const mcts_batcher *b) { return b->cap; }
uint64_t mcts_batcher_batches(const mcts_batcher *b) { return b->batches; }
uint64_t mcts_batcher_leaves(const mcts_batcher *b) { return b->leaves; }

int mcts_batcher_gather(mcts_batcher *b, mcts_tree *t)
{
    int added = 0;
    while (b->count < b->cap && !mcts_done(t)) {
        int h = mcts_select(t, &b->pos[b->count]);
        if (h >= 0) {
            b->tree[b->count] = t;
            b->handle[b->count++] = h;
            added++;
        } else if (h != MCTS_SIM_DONE) {
            if (h == MCTS_ENOMEM)
                return h;
            break;  /* collision or this tree's leaf budget is used */
        }
    }
    return added;
}

int mcts_batcher_flush(mcts_batcher *b, mcts_eval *ev)
{
    int n = b->count, rc = MCTS_OK;
    if (n == 0)
        return MCTS_OK;
    int m = b->r.pits;
    rc = mcts_eval_run(ev, b->pos, n, b->prior, b->value);
    if (rc != MCTS_OK)
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < m; k++)
                b->prior[i * m + k] = 1.0f;
            b->value[i] = 0.0f;
        }
    for (int i = 0; i < n; i++) {
        int c = mcts_complete(b->tree[i], b->handle[i], &b->prior[(size_t)i * m], b->value[i]);
        if (c != MCTS_OK && rc == MCTS_OK)
            rc = c;
    }
    b->batches++;
    b->leaves += (uint64_t)n;
    b->count = 0;
    return rc;
}
