/* endgame_impl.h — the endgame database's layout, shared by its builder (endgame.c) and its file format
 * (endgame_file.c). Internal to eval/. */
#ifndef SOWZERO_EVAL_ENDGAME_IMPL_H
#define SOWZERO_EVAL_ENDGAME_IMPL_H

#include "eval/endgame.h"

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

/* Checks that r can have a database and caps *max_seeds (1..127) at r's total; 0 or -1 with err. */
int eg_check_request(const kalah_rules *r, int *max_seeds, char *err);

#endif
