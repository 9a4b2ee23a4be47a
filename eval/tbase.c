/* tbase.c — the process-wide cache of endgame databases (tbase.h). */
#include "eval/tbase.h"

#include "env/game_twoside.h" /* gt_to_kalah: "kalah"'s game_pos holds a kalah_pos */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tb_ref {
    kalah_rules r;
    eg_db *db;
    mcts_tb oracle;
    game_endgame_db game_db; /* the same oracle for game_pos, player 0's margin (tb_game_endgame) */
    int refs;        /* under the cache's lock */
    tb_ref *next;
    char path[4096]; /* the file it was mapped from or written to, "" if none */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static tb_ref *cache;

static int same_rules(const kalah_rules *a, const kalah_rules *b)
{
    return a->pits == b->pits && a->seeds == b->seeds && a->capture == b->capture && a->end == b->end &&
           a->max_sows == b->max_sows;
}

static int total_seeds(const kalah_rules *r) { return 2 * r->pits * r->seeds; }

/* The final margin for the mover (endgame.h: the store difference plus F of the pits). */
static int final_margin(const tb_ref *t, const kalah_pos *p)
{
    const int m = t->r.pits, own = p->side ? 2 * m + 1 : m, opp = p->side ? m : 2 * m + 1;
    return p->cell[own] - p->cell[opp] + eg_value(t->db, p);
}

static int oracle_probe(const mcts_tb *o, const kalah_pos *p) { return final_margin(o->ctx, p); }

static int game_db_probe(const game_endgame_db *db, const game_pos *p, int *margin)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    int m = final_margin(db->ctx, &k);
    *margin = k.side == KALAH_SOUTH ? m : -m;
    return 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

tb_ref *tb_acquire_info(const kalah_rules *r, int seeds, int threads, size_t save_bytes, tb_info *info, char *err)
{
    tb_info scratch;
    if (!info)
        info = &scratch;
    memset(info, 0, sizeof *info);
    if (!r || seeds < 1 || seeds > 127) {
        if (err)
            snprintf(err, KALAH_ERRLEN, "endgame database seeds must be in 1..127, got %d", seeds);
        return NULL;
    }
    int want = seeds < total_seeds(r) ? seeds : total_seeds(r);
    pthread_mutex_lock(&cache_lock);
    tb_ref *t = cache;
    while (t && !(same_rules(&t->r, r) && eg_max_seeds(t->db) >= want))
        t = t->next;
    if (t) {
        t->refs++;
        snprintf(info->path, sizeof info->path, "%s", t->path);
        pthread_mutex_unlock(&cache_lock);
        return t;
    }
    /* Built under the lock: a second thread asking for the same database waits for this one, not a copy. */
    double t0 = now_s();
    t = calloc(1, sizeof *t);
    int file = EG_FILE_NONE;
    eg_db *db = t ? eg_find(r, want, info->path, sizeof info->path, &file, err) : NULL;
    if (t && file == EG_FILE_NONE) {
        info->path[0] = 0;
        db = eg_create(r, want, threads < 1 ? 1 : threads, err);
        info->built = db != NULL;
    }
    info->bad_file = file == EG_FILE_EBAD;
    if (!db) {
        if (!t && err)
            snprintf(err, KALAH_ERRLEN, "out of memory");
        free(t);
        pthread_mutex_unlock(&cache_lock);
        return NULL;
    }
    info->seconds = now_s() - t0;
    if (info->built && save_bytes > 0 && eg_bytes(db) >= save_bytes) {
        if (eg_default_path(r, eg_max_seeds(db), info->path, sizeof info->path, 1, info->save_err) != 0 ||
            eg_save(db, info->path, info->save_err) != 0)
            info->path[0] = 0;
    }
    t->r = *r;
    t->db = db;
    snprintf(t->path, sizeof t->path, "%s", info->path);
    t->oracle = (mcts_tb){.probe = oracle_probe, .max_seeds = eg_max_seeds(db), .ctx = t};
    t->game_db = (game_endgame_db){.probe = game_db_probe, .max_seeds = eg_max_seeds(db), .ctx = t};
    t->refs = 1;
    t->next = cache;
    cache = t;
    pthread_mutex_unlock(&cache_lock);
    return t;
}

tb_ref *tb_acquire(const kalah_rules *r, int seeds, int threads, double *built_seconds, char *err)
{
    tb_info info;
    tb_ref *t = tb_acquire_info(r, seeds, threads, 0, &info, err);
    if (built_seconds)
        *built_seconds = info.built ? info.seconds : 0;
    return t;
}

void tb_release(tb_ref *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&cache_lock);
    if (--t->refs == 0) {
        tb_ref **at = &cache;
        while (*at != t)
            at = &(*at)->next;
        *at = t->next;
        eg_free(t->db);
        free(t);
    }
    pthread_mutex_unlock(&cache_lock);
}

int tb_seeds(const tb_ref *t) { return eg_max_seeds(t->db); }
const eg_db *tb_db(const tb_ref *t) { return t->db; }
const mcts_tb *tb_oracle(const tb_ref *t) { return &t->oracle; }
const game_endgame_db *tb_game_endgame(const tb_ref *t) { return &t->game_db; }

int tb_supports(const game *g)
{
    return g && game_get_kind(g) == &game_kind_kalah && ((const kalah_rules *)game_rules(g))->max_sows == 0;
}

const char *tb_unsupported_reason(const game *g, char *buf, size_t n)
{
    if (!g || game_get_kind(g) != &game_kind_kalah || tb_supports(g))
        return NULL;
    snprintf(buf, n, "its rules have a sow limit (max_sows = %d) and the database has no sow count",
             ((const kalah_rules *)game_rules(g))->max_sows);
    return buf;
}

tb_ref *tb_acquire_game(const game *g, int seeds, int threads, double *built_seconds, char *err)
{
    if (!tb_supports(g)) {
        if (err)
            snprintf(err, KALAH_ERRLEN, "no endgame database is built for %s (only for the Kalah rules without a sow limit)",
                     g ? game_spec(g) : "no game");
        return NULL;
    }
    return tb_acquire(game_rules(g), seeds, threads, built_seconds, err);
}

int tb_margin(const tb_ref *t, const kalah_pos *p, int *margin)
{
    if (p->over || mcts_tb_seeds_in_pits(&t->r, p) > eg_max_seeds(t->db))
        return 0;
    *margin = final_margin(t, p);
    return 1;
}
