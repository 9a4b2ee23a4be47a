/* endgame.c — the endgame database's tables, memory and probing (endgame.h); endgame_build.c fills it. */
#include "eval/endgame.h"
#include "eval/endgame_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void set_err(char *err, const char *msg)
{
    if (err)
        snprintf(err, KALAH_ERRLEN, "%s", msg);
}

const int8_t *eg_value_at(const eg_db *db, const kalah_pos *p)
{
    uint8_t c[EG_MAXP];
    relative_pits(db, p, c);
    return &db->val[rank_of(db, c)];
}

int eg_value(const eg_db *db, const kalah_pos *p) { return *eg_value_at(db, p); }


eg_db *eg_alloc_tables(const kalah_rules *r, int max_seeds, char *err)
{
    eg_db *db = calloc(1, sizeof *db);
    if (!db) {
        set_err(err, "out of memory");
        return NULL;
    }
    db->r = *r;
    db->n = max_seeds;
    db->cells = 2 * r->pits;
    if (eg_entries(r->pits, max_seeds) > EG_MAX_BYTES) { /* before the binomials, which would overflow */
        eg_free(db);
        set_err(err, "endgame database would exceed 1 TiB; use fewer seeds");
        return NULL;
    }
    int rows = db->n + db->cells + 1;
    db->binom = calloc((size_t)rows, sizeof *db->binom);
    db->bt = calloc((size_t)rows * (EG_MAXP + 1), sizeof *db->bt);
    if (!db->binom || !db->bt) {
        eg_free(db);
        set_err(err, "out of memory");
        return NULL;
    }
    for (int a = 0; a < rows; a++) {
        db->binom[a][0] = 1;
        for (int b = 1; b <= EG_MAXP && b <= a; b++)
            db->binom[a][b] = db->binom[a - 1][b - 1] + (b < a ? db->binom[a - 1][b] : 0);
    }
    db->rows = (size_t)rows;
    for (int a = 0; a < rows; a++)
        for (int b = 0; b <= EG_MAXP; b++)
            db->bt[(size_t)b * (size_t)rows + (size_t)a] = db->binom[a][b];
    db->size = (size_t)db->binom[db->n + db->cells][db->cells];
    return db;
}

int eg_check_request(const kalah_rules *r, int *max_seeds, char *err)
{
    if (kalah_rules_check(r, err) != KALAH_OK)
        return -1;
    if (r->max_sows > 0) {
        set_err(err, "no endgame database with max_sows > 0: the value then depends on the sow count");
        return -1;
    }
    if (*max_seeds < 1 || *max_seeds > 127) {
        set_err(err, "endgame database seeds out of range 1..127");
        return -1;
    }
    int total = 2 * r->pits * r->seeds;
    if (*max_seeds > total)
        *max_seeds = total;
    return 0;
}

int8_t *eg_alloc_values(size_t bytes)
{
    const size_t huge = (size_t)2 << 20, len = (bytes + huge - 1) / huge * huge;
    if (bytes < huge)
        return malloc(bytes ? bytes : 1);
    int8_t *v = aligned_alloc(huge, len);
#ifdef MADV_HUGEPAGE
    if (v)
        madvise(v, len, MADV_HUGEPAGE); /* advice only: without it the values still work on 4 KiB pages */
#endif
    return v;
}

uint64_t eg_entries(int pits, int max_seeds)
{
    const int cells = 2 * pits;
    uint64_t c = 1; /* C(max_seeds + cells, k) for k = 0..cells, each step exact */
    for (int k = 1; k <= cells; k++) {
        const uint64_t a = (uint64_t)(max_seeds + k);
        if (c > UINT64_MAX / a)
            return UINT64_MAX;
        c = c * a / (uint64_t)k;
    }
    return c;
}

/* The lowest limit in `file` under root + path and under each of path's parents, down to root itself
 * (a container often sees its own cgroup mounted at the root); "max" (none) does not scan. */
static void lowest_limit(const char *root, const char *path, const char *file, uint64_t *limit)
{
    char dir[2048], at[2200];
    snprintf(dir, sizeof dir, "%s", path);
    for (;;) {
        snprintf(at, sizeof at, "%s%s/%s", root, dir, file);
        FILE *g = fopen(at, "r");
        unsigned long long v;
        if (g && fscanf(g, "%llu", &v) == 1 && v > 0 && (!*limit || v < *limit))
            *limit = v;
        if (g)
            fclose(g);
        char *slash = strrchr(dir, '/');
        if (!slash || !dir[0])
            break;
        *slash = 0; /* "/a/b" -> "/a" -> "" (the root) */
    }
}

/* The memory limit (bytes) of this process's cgroup and its parents, or 0 when none can be read. Each
 * line of /proc/self/cgroup is "id:controllers:path"; v2 has empty controllers. */
static uint64_t cgroup_limit(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return 0;
    char line[2048];
    uint64_t limit = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!path)
            continue;
        *path++ = 0;
        ctl++;
        if (!strcmp(path, "/"))
            path = (char *)"";
        if (!*ctl)
            lowest_limit("/sys/fs/cgroup", path, "memory.max", &limit);
        else if (!strcmp(ctl, "memory") || strstr(ctl, "memory,") == ctl || strstr(ctl, ",memory"))
            lowest_limit("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes", &limit);
    }
    fclose(f);
    return limit;
}

size_t eg_memory_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0, cg = cgroup_limit();
    if (cg && (!mem || cg < mem))
        mem = cg;
    if (!mem)
        return (size_t)16 << 30;
    return (size_t)(mem / 4 * 3);
}

eg_db *eg_create(const kalah_rules *r, int max_seeds, int threads, char *err)
{
    if (eg_check_request(r, &max_seeds, err) != 0)
        return NULL;
    eg_db *db = eg_alloc_tables(r, max_seeds, err);
    if (!db)
        return NULL;
    if (db->size > eg_memory_budget()) {
        char msg[KALAH_ERRLEN];
        snprintf(msg, sizeof msg,
                 "the endgame database of %d seeds takes %.0f MB, more than the %.0f MB allowed (three quarters of "
                 "the memory this process may use): use fewer seeds, or build it on disk once with sowzero "
                 "tablebase build (later processes map the file)",
                 max_seeds, ceil(1e-6 * (double)db->size), floor(1e-6 * (double)eg_memory_budget()));
        set_err(err, msg);
        eg_free(db);
        return NULL;
    }
    db->val = eg_alloc_values(db->size);
    if (!db->val) {
        eg_free(db);
        set_err(err, "out of memory for the endgame database");
        return NULL;
    }
    if (eg_build_values(db, threads) != 0) {
        eg_free(db);
        set_err(err, "out of memory");
        return NULL;
    }
    return db;
}

void eg_free(eg_db *db)
{
    if (!db)
        return;
    if (db->map)
        munmap(db->map, db->map_len);
    else
        free(db->val);
    free(db->binom);
    free(db->bt);
    free(db);
}

int eg_max_seeds(const eg_db *db) { return db->n; }
const kalah_rules *eg_rules(const eg_db *db) { return &db->r; }
size_t eg_bytes(const eg_db *db) { return db->size; }
const int8_t *eg_values(const eg_db *db) { return db->val; }

int eg_serves(const eg_db *db, const kalah_rules *r)
{
    return db->r.pits == r->pits && db->r.capture == r->capture && db->r.end == r->end && r->max_sows == 0;
}
