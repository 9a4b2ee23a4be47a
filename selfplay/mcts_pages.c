/* mcts_pages.c — huge-page-backed blocks for the search trees' pools (see mcts_pages.h). */
#include "selfplay/mcts_pages.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define PAGES_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PAGES_MALLOC 1
#endif
#endif

#define MIN_SHIFT 12                    /* 4 KB, the smallest block */
#define MAX_SHIFT 20                    /* 1 MB, the largest block cut from a region */
#define HUGE_PAGE ((size_t)2 << 20)
#define REGION ((size_t)32 << 20)

size_t mcts_pages_block_size(size_t bytes)
{
    if (bytes > SIZE_MAX / 2 + 1)
        return 0;  /* no power of two that large */
    size_t s = (size_t)1 << MIN_SHIFT;
    while (s < bytes)
        s <<= 1;
    return s;
}

#ifdef PAGES_MALLOC

int mcts_pages_huge(void) { return 0; }
/* The size asked for (to a multiple of the alignment), not the block size: ASan then sees an overrun
 * past the request itself. */
void *mcts_pages_alloc(size_t bytes)
{
    return bytes && bytes <= SIZE_MAX - 63 ? aligned_alloc(64, (bytes + 63) & ~(size_t)63) : NULL;
}
void mcts_pages_free(void *p, size_t bytes)
{
    (void)bytes;
    free(p);
}

#else

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void *free_list[MAX_SHIFT + 1];  /* a free block's first word links to the next */
static char *region_top, *region_end;

/* `size` bytes (a multiple of HUGE_PAGE) of address space, HUGE_PAGE-aligned, advised for huge pages. */
static void *map_huge(size_t size)
{
    char *m = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                   0);
    if (m == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    munmap(a + size, (size_t)(m + HUGE_PAGE - a));
    madvise(a, size, MADV_HUGEPAGE);  /* a hint: without THP the pages are simply 4 KB */
    return a;
}

int mcts_pages_huge(void) { return 1; }

void *mcts_pages_alloc(size_t bytes)
{
    if (bytes == 0)
        return NULL;
    size_t size = mcts_pages_block_size(bytes);
    if (size == 0)
        return NULL;
    if (size > ((size_t)1 << MAX_SHIFT)) {
        if (size > SIZE_MAX - HUGE_PAGE)
            return NULL;
        return map_huge((size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
    }
    int k = __builtin_ctzll((unsigned long long)size);
    pthread_mutex_lock(&mu);
    void *p = free_list[k];
    if (p) {
        free_list[k] = *(void **)p;
    } else {
        /* The tail of a region too short for this block is left unused (under 1 MB of 32). */
        if (!region_top || (size_t)(region_end - region_top) < size) {
            char *r = map_huge(REGION);
            if (r) {
                region_top = r;
                region_end = r + REGION;
            }
        }
        if (region_top && (size_t)(region_end - region_top) >= size) {
            p = region_top;
            region_top += size;
        }
    }
    pthread_mutex_unlock(&mu);
    return p;
}

void mcts_pages_free(void *p, size_t bytes)
{
    if (!p)
        return;
    size_t size = mcts_pages_block_size(bytes);
    if (size > ((size_t)1 << MAX_SHIFT)) {
        munmap(p, (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
        return;
    }
    int k = __builtin_ctzll((unsigned long long)size);
    pthread_mutex_lock(&mu);
    *(void **)p = free_list[k];
    free_list[k] = p;
    pthread_mutex_unlock(&mu);
}

#endif
