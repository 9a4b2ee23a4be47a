/* mcts_pages.h — memory for the search trees' pools (nodes, positions), backed by 2 MB transparent huge
 * pages where the kernel offers them.
 *
 * Why: a self-play worker descends 64 trees of a few thousand nodes each between two forward passes; with
 * 4 KB pages their descents touch more pages than the TLB holds once the forward pass has run, and in a VM
 * every TLB miss is a two-level page walk. With the pools in huge pages the search's own time per
 * evaluation fell by 10-20% (`sowzero bench selfplay --sims 400`, README). Stockfish backs its
 * transposition table with large pages for the same reason. (The net's weights were tried too: no
 * difference measurable on the development machine.)
 *
 * Blocks are powers of two from 4 KB (smaller requests are rounded up), 64-byte aligned. Blocks up to 1 MB
 * are cut from 32 MB regions mapped once with madvise(MADV_HUGEPAGE) (only the pages touched take memory),
 * and a freed block waits on a free list of its size for the next request of that size: the pools grow by
 * doubling, so the sizes repeat. Larger blocks are mapped and unmapped on their own. Memory on the free lists
 * is kept for the life of the process (bounded by the peak use of each size); with the 2 MB pages filled
 * on first touch, a process holds more memory than with malloc (`bench selfplay --threads 2 --sims 400`:
 * 177 MB instead of 117 MB at its peak). Thread-safe (one mutex; the
 * pools allocate only when they grow or a tree is created, never per simulation).
 *
 * Under AddressSanitizer the blocks come from aligned_alloc instead, so the sanitizer still sees every
 * overrun. */
#ifndef SOWZERO_SELFPLAY_MCTS_PAGES_H
#define SOWZERO_SELFPLAY_MCTS_PAGES_H

#include <stddef.h>

/* A block of at least `bytes` bytes (> 0), 64-byte aligned, contents undefined; NULL when out of memory.
 * Owned by the caller until mcts_pages_free. */
void *mcts_pages_alloc(size_t bytes);

/* Returns a block of mcts_pages_alloc; `bytes` must be the size it was allocated with. NULL is a no-op. */
void mcts_pages_free(void *p, size_t bytes);

/* The size class a request of `bytes` gets: the power of two >= max(bytes, 4096); 0 when there is none
 * (bytes > SIZE_MAX / 2 + 1: mcts_pages_alloc then says NULL). */
size_t mcts_pages_block_size(size_t bytes);

/* 1 when blocks come from the huge-page regions, 0 when from aligned_alloc (sanitizer builds). */
int mcts_pages_huge(void);

#endif
