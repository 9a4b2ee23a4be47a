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
    /* gather_many: mcts_select_many's scratch for many_cap trees */
    int many_cap;
    mcts_many m;
};

#define MAX_LEAVES 64  /* mcts.leaves_per_game is at most 64 */

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
    free(b->m.cur);
    free(b->m.live);
    free(b->m.found);
    free(b->m.handle);
    free(b->m.leaf);
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

/* Room for n trees in the gather_many scratch. The per-tree leaf lists are sized by the largest room a
 * tree can have (leaves_per_game <= MAX_LEAVES); 0 when out of memory. */
static int many_reserve(mcts_batcher *b, int n)
{
    if (n <= b->many_cap)
        return 1;
    mcts_many *m = &b->m;
    free(m->cur), free(m->live), free(m->found), free(m->handle), free(m->leaf);
    m->cur = malloc((size_t)n * sizeof *m->cur);
    m->live = malloc((size_t)n * sizeof *m->live);
    m->found = malloc((size_t)n * sizeof *m->found);
    m->handle = malloc((size_t)n * MAX_LEAVES * sizeof *m->handle);
    m->leaf = malloc((size_t)n * MAX_LEAVES * sizeof *m->leaf);
    m->stride = MAX_LEAVES;
    b->many_cap = m->cur && m->live && m->found && m->handle && m->leaf ? n : 0;
    return b->many_cap > 0;
}

int mcts_batcher_gather_many(mcts_batcher *b, mcts_tree *const *t, int n)
{
    long room = 0;
    for (int i = 0; i < n; i++)
        room += mcts_leaf_room(t[i]);
    if (room > b->cap - b->count || !many_reserve(b, n)) {
        int added = 0;
        for (int i = 0; i < n; i++) {
            int k = mcts_batcher_gather(b, t[i]);
            if (k < 0)
                return k;
            added += k;
        }
        return added;
    }
    int rc = mcts_select_many(t, n, &b->m), added = 0;
    /* into the batch in tree order, the order the plain loop gives */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < b->m.found[i]; j++) {
            b->tree[b->count] = t[i];
            b->handle[b->count] = b->m.handle[i * MAX_LEAVES + j];
            b->pos[b->count++] = b->m.leaf[i * MAX_LEAVES + j];
            added++;
        }
    return rc == MCTS_OK ? added : rc;
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
    /* Each tree's memory is cold after the evaluation: leaf i + 6 gets its first prefetch stage, leaf i + 4
     * its second and leaf i + 2 its third (the path) while leaf i is completed. */
    static const int ahead[3] = {6, 4, 2};
    for (int stage = 0; stage < 3; stage++)
        for (int i = 0; i < n && i < ahead[stage]; i++)
            mcts_complete_prefetch(b->tree[i], b->handle[i], stage);
    for (int i = 0; i < n; i++) {
        for (int stage = 0; stage < 3; stage++)
            if (i + ahead[stage] < n)
                mcts_complete_prefetch(b->tree[i + ahead[stage]], b->handle[i + ahead[stage]], stage);
        int c = mcts_complete(b->tree[i], b->handle[i], &b->prior[(size_t)i * m], b->value[i]);
        if (c != MCTS_OK && rc == MCTS_OK)
            rc = c;
    }
    b->batches++;
    b->leaves += (uint64_t)n;
    b->count = 0;
    return rc;
}
