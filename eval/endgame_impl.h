/* endgame_impl.h — the endgame database's layout, shared by its builder (endgame.c) and its file format
 * (endgame_file.c). Internal to eval/. */
#ifndef SOWZERO_EVAL_ENDGAME_IMPL_H
#define SOWZERO_EVAL_ENDGAME_IMPL_H

#include "eval/endgame.h"

#include <sys/types.h>

#define EG_MAXP (2 * KALAH_MAX_PITS)

struct eg_db {
    kalah_rules r;
    int n;                          /* max seeds in the pits */
    int cells;                      /* 2 * pits */
    size_t size;                    /* entries = bytes of val */
    int8_t *val;                    /* malloc'ed, or inside map (a tablebase file mapped read-only) */
    void *map;                      /* the file's mapping, NULL when val was built here */
    size_t map_len;
    uint64_t (*binom)[EG_MAXP + 1]; /* binom[a][b] = C(a, b), a <= n + cells */
    uint64_t *bt;                   /* the same by column: bt[b * rows + a] */
    size_t rows;
};

/* Rank of the arrangement c (see endgame.h). bt is the binomial table stored by column: bt[(i+1) * rows + s]
 * = C(s, i+1), so the loop walks forward through memory. */
static inline uint64_t rank_of(const eg_db *db, const uint8_t *c)
{
    const uint64_t *bt = db->bt;
    const size_t rows = db->rows;
    const int cells = db->cells;
    uint64_t r = 0;
    size_t s = (size_t)-1;
    for (int i = 0; i < cells; i++) {
        s += (size_t)c[i] + 1;
        r += bt[(size_t)(i + 1) * rows + s];
    }
    return r;
}

/* The pits of p in mover-first order. */
static inline void relative_pits(const eg_db *db, const kalah_pos *p, uint8_t *c)
{
    const int m = db->r.pits, own = p->side ? m + 1 : 0, opp = p->side ? 0 : m + 1;
    for (int k = 0; k < m; k++) {
        c[k] = p->cell[own + k];
        c[m + k] = p->cell[opp + k];
    }
}

/* A database of rules r and max_seeds seeds (already checked by eg_check_request) with its index tables
 * and size set, val and map NULL. NULL with a message in err on no memory or more than EG_MAX_BYTES. */
eg_db *eg_alloc_tables(const kalah_rules *r, int max_seeds, char *err);

/* Memory for `bytes` values (free with free), on 2 MiB pages where the kernel gives them (MADV_HUGEPAGE):
 * probes land anywhere in the table, and on 4 KiB pages nearly every one also misses the TLB (a page walk
 * on top of the cache miss). NULL when out of memory. */
int8_t *eg_alloc_values(size_t bytes);

/* Fills db->val (db->size bytes, in memory or a file's mapping) with every entry, by `threads` threads
 * (the caller's included; fewer when a thread cannot start). 0, or -1 when out of memory. */
int eg_build_values(eg_db *db, int threads);

/* The fewest entries of the layers below that one pass of a layered build reads (unless fewer are left):
 * smaller blocks would sow the layer's moves again too often to finish. */
#define EG_MIN_BLOCK ((uint64_t)1 << 16)

/* 0 when `memory` bytes hold what eg_build_layered needs for db (its largest layer and one block), else -1
 * with a message in err (KALAH_ERRLEN bytes, may be NULL) giving the least it needs. */
int eg_layered_fits(const eg_db *db, uint64_t memory, char *err);

/* Builds db's values layer by layer into the open file fd (rank 0 at offset; the file at least that long,
 * the caller reserves its blocks), holding in memory only the layer being built and one block of the
 * layers below, at most `memory` bytes together (endgame_build.c explains the passes). Other threads of
 * `threads` as eg_build_values. db->val is not touched; *crc is set to the values' zlib crc32, taken as the
 * layers are written (in rank order), so the file need not be read back. 0, or -1 with a message in err (KALAH_ERRLEN
 * bytes, may be NULL): not eg_layered_fits, out of memory, a read or write that failed
 * (its strerror). */
int eg_build_layered(eg_db *db, int threads, int fd, off_t offset, uint64_t memory, unsigned long *crc,
                     char *err);

/* Checks that r can have a database and caps *max_seeds (1..127) at r's total; 0 or -1 with err. */
int eg_check_request(const kalah_rules *r, int *max_seeds, char *err);

#endif
