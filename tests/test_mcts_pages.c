/* test_mcts_pages.c — the search pools' huge-page blocks (selfplay/mcts_pages.h): size classes, alignment,
 * blocks that never overlap, reuse of freed blocks, large blocks, and many threads at once. */
// ctest-labels: threads
#include "test_util.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "selfplay/mcts_pages.h"

static void test_block_sizes(void **state)
{
    (void)state;
    assert_int_equal(mcts_pages_block_size(1), 4096);
    assert_int_equal(mcts_pages_block_size(4096), 4096);
    assert_int_equal(mcts_pages_block_size(4097), 8192);
    assert_int_equal(mcts_pages_block_size(8192 * 32), 8192 * 32);
    assert_int_equal(mcts_pages_block_size((3u << 20) + 1), 4u << 20);
    assert_int_equal(mcts_pages_block_size(SIZE_MAX), 0); /* no power of two that large */
    assert_null(mcts_pages_alloc(SIZE_MAX));
    assert_null(mcts_pages_alloc(0));
    mcts_pages_free(NULL, 4096); /* a no-op */
}

/* Blocks of every size class up to 4 MB: 64-byte aligned, writable to the size asked for, never overlapping
 * (each carries its own pattern, checked after all were written). */
static void test_blocks_are_distinct(void **state)
{
    (void)state;
    enum { N = 40 };
    unsigned char *b[N];
    size_t sz[N];
    for (int i = 0; i < N; i++) {
        sz[i] = (size_t)1000 << (i % 13); /* 1000 B .. 4 MB: both the region path and the direct path */
        b[i] = mcts_pages_alloc(sz[i]);
        assert_non_null(b[i]);
        assert_int_equal((uintptr_t)b[i] % 64, 0);
        memset(b[i], i + 1, sz[i]);
    }
    for (int i = 0; i < N; i++) {
        size_t n = sz[i];
        assert_int_equal(b[i][0], i + 1);
        assert_int_equal(b[i][n / 2], i + 1);
        assert_int_equal(b[i][n - 1], i + 1);
    }
    for (int i = 0; i < N; i++)
        mcts_pages_free(b[i], sz[i]);
}

/* A freed block is what the next request of its size class gets (the pools grow by doubling, so sizes
 * repeat); other classes do not take it. */
static void test_freed_blocks_are_reused(void **state)
{
    (void)state;
    if (!mcts_pages_huge())
        skip(); /* sanitizer builds take blocks from aligned_alloc */
    void *a = mcts_pages_alloc(64 * 1024);
    assert_non_null(a);
    mcts_pages_free(a, 64 * 1024);
    void *c = mcts_pages_alloc(128 * 1024);
    assert_ptr_not_equal(c, a);
    void *d = mcts_pages_alloc(60 * 1024); /* same class as 64 KB */
    assert_ptr_equal(d, a);
    mcts_pages_free(c, 128 * 1024);
    mcts_pages_free(d, 60 * 1024);
}

typedef struct {
    int id;
    int ok;
} worker_arg;

/* Each thread grows a "pool" by doubling (alloc, copy, free), as the search does, and checks its data. */
static void *churn(void *p)
{
    worker_arg *a = p;
    a->ok = 1;
    for (int round = 0; round < 20; round++) {
        size_t cap = 0;
        uint32_t *pool = NULL;
        for (size_t n = 256; n <= 64 * 1024; n *= 2) {
            uint32_t *q = mcts_pages_alloc(n * sizeof *q);
            if (!q) {
                a->ok = 0;
                return NULL;
            }
            if (pool)
                memcpy(q, pool, cap * sizeof *q);
            for (size_t i = cap; i < n; i++)
                q[i] = (uint32_t)(a->id * 1000003u + i);
            mcts_pages_free(pool, cap * sizeof *pool);
            pool = q;
            cap = n;
        }
        for (size_t i = 0; i < cap; i++)
            if (pool[i] != (uint32_t)(a->id * 1000003u + i))
                a->ok = 0;
        mcts_pages_free(pool, cap * sizeof *pool);
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    enum { T = 4 };
    pthread_t th[T];
    worker_arg arg[T];
    for (int i = 0; i < T; i++) {
        arg[i] = (worker_arg){.id = i + 1};
        assert_int_equal(pthread_create(&th[i], NULL, churn, &arg[i]), 0);
    }
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        assert_true(arg[i].ok);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_sizes),
        cmocka_unit_test(test_blocks_are_distinct),
        cmocka_unit_test(test_freed_blocks_are_reused),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
