/* game_match.c — the match runner of every game (seat plans, openings, threads, statistics); see
 * game_match.h. */
#include "eval/game_match.h"
#include "env/errbuf.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/record.h"
#include "eval/agent_impl.h"   /* agent_mix, agent_splitmix */
#include "eval/elo.h"

#define set_err(err, ...) errbuf_set(err, MATCH_ERRLEN, __VA_ARGS__)

game_match_config game_match_config_default(void)
{
    game_match_config c;
    memset(&c, 0, sizeof c);
    c.games = 120;
    c.opening_plies = 2;
    c.threads = 1;
    c.seed = 1;
    return c;
}

int game_match_group_size(int n_agents, int players)
{
    if (players < 2 || players > GAME_MAX_PLAYERS)
        return 0;
    if (n_agents == players) {
        int f = 1;
        for (int i = 2; i <= n_agents; i++)
            f *= i;
        return f;
    }
    return n_agents == 2 ? players : 0;
}

void game_match_seats(int n_agents, int players, int game, int *agent_at)
{
    int j = game % game_match_group_size(n_agents, players);
    if (n_agents != players) {
        for (int s = 0; s < players; s++)
            agent_at[s] = s == j ? 0 : 1;
        return;
    }
    /* The j-th permutation in lexicographic order (factorial number system). */
    int pool[GAME_MAX_PLAYERS], n = players, f = 1;
    for (int i = 0; i < n; i++)
        pool[i] = i;
    for (int i = 2; i < n; i++)
        f *= i;
    for (int s = 0; s < players; s++) {
        int idx = j / f;
        j %= f;
        agent_at[s] = pool[idx];
        for (int i = idx; i + 1 < n; i++)
            pool[i] = pool[i + 1];
        n--;
        if (n > 1)
            f /= n;
    }
}

static int random_pit(unsigned legal, uint64_t *state)
{
    unsigned n = (unsigned)__builtin_popcount(legal);
    unsigned j = (unsigned)(((agent_splitmix(state) >> 32) * (uint64_t)n) >> 32);
    for (int k = 0;; k++)
        if (legal & (1u << k) && j-- == 0)
            return k;
}

int game_match_opening(const game *g, int plies, uint64_t seed, int group, game_pos *out, uint8_t *moves)
{
    uint64_t state = agent_mix(seed ^ 0x626f70656e696e67ULL, (uint64_t)group);
    game_pos p;
    for (int attempt = 0; attempt < 1000; attempt++) {
        game_start(g, &p);
        for (int i = 0; i < plies && !p.over; i++) {
            int k = random_pit(game_legal(g, &p), &state);
            if (moves)
                moves[i] = (uint8_t)k;
            game_apply(g, &p, k, NULL);
        }
        if (!p.over) {
            *out = p;
            return plies;
        }
    }
    game_start(g, out);
    return -1;
}

void match_result_stats(match_result *res)
{
    const match_tally *t = &res->all;
    int n = t->wins + t->draws + t->losses;
    res->games = n;
    if (!n) {
        res->score = res->score_lo = res->score_hi = 0.5;
        res->elo = res->elo_lo = res->elo_hi = 0;
        res->elo_clamped = 0;
        return;
    }
    double pts = t->wins + 0.5 * t->draws;
    res->score = pts / n;
    elo_wilson(pts, n, ELO_Z95, &res->score_lo, &res->score_hi);
    for (int s = 0; s < 2; s++) {
        int m = res->seat[s].wins + res->seat[s].draws + res->seat[s].losses;
        res->seat_score[s] = m ? (res->seat[s].wins + 0.5 * res->seat[s].draws) / m : 0.5;
    }
    double lo = 0.5 / n, hi = 1 - 0.5 / n;
#define CLAMP(x) ((x) < lo ? lo : (x) > hi ? hi : (x))
    res->elo = elo_from_score(CLAMP(res->score));
    res->elo_lo = elo_from_score(CLAMP(res->score_lo));
    res->elo_hi = elo_from_score(CLAMP(res->score_hi));
#undef CLAMP
    res->elo_clamped = res->score >= 1 ? 1 : res->score <= 0 ? -1 : 0;
}

/* ---- agent pools ---- */

typedef struct {
    char *spec;
    int thread, copy;
    game_agent *a;
} pool_entry;

struct game_match_pool {
    const game *g;
    pool_entry *e;
    int n, cap;
};

game_match_pool *game_match_pool_create(const game *g)
{
    game_match_pool *pool = calloc(1, sizeof *pool);
    if (pool)
        pool->g = g;
    return pool;
}

void game_match_pool_free(game_match_pool *pool)
{
    if (!pool)
        return;
    for (int i = 0; i < pool->n; i++) {
        game_agent_free(pool->e[i].a);
        free(pool->e[i].spec);
    }
    free(pool->e);
    free(pool);
}

int game_match_pool_size(const game_match_pool *pool) { return pool ? pool->n : 0; }

/* Worker `thread`'s instance number `copy` of spec: the pool's (made now and added when it has none), or a
 * fresh one the caller owns when pool is NULL. NULL with the message in aerr (AGENT_ERRLEN) on a bad spec or
 * no memory. */
static game_agent *pool_instance(game_match_pool *pool, const char *spec, const game_agent_az *az, const game *g,
                                 int thread, int copy, char *aerr)
{
    if (az) /* never pooled (check) */
        return game_agent_create_az(g, az, aerr);
    if (!pool)
        return game_agent_create(spec, g, aerr);
    for (int i = 0; i < pool->n; i++)
        if (pool->e[i].thread == thread && pool->e[i].copy == copy && !strcmp(pool->e[i].spec, spec))
            return pool->e[i].a;
    if (pool->n == pool->cap) {
        int cap = pool->cap ? 2 * pool->cap : 16;
        pool_entry *e = realloc(pool->e, (size_t)cap * sizeof *e);
        if (!e) {
            errbuf_set(aerr, AGENT_ERRLEN, "out of memory");
            return NULL;
        }
        pool->e = e;
        pool->cap = cap;
    }
    pool_entry *e = &pool->e[pool->n];
    if (!(e->spec = strdup(spec))) {
        errbuf_set(aerr, AGENT_ERRLEN, "out of memory");
        return NULL;
    }
    if (!(e->a = game_agent_create(spec, g, aerr))) {
        free(e->spec);
        return NULL;
    }
    e->thread = thread;
    e->copy = copy;
    pool->n++;
    return e->a;
}

/* ---- the parallel runner ---- */

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

/* Group `group`'s opening (game_match.h): *start is where the game starts (*at_start: the rules' start), and
 * moves[] (BOOK_MAX_MOVES entries) the plies played from there before the agents move. Returns their count,
 * or -1 when no random opening of cfg->opening_plies fits the board. */
static int match_opening(const game *g, const game_match_config *cfg, int group, game_pos *start, int *at_start,
                         uint8_t *moves)
{
    if (cfg->book) {
        const book_entry *e = &cfg->book->entry[((long long)cfg->book_first + group) % cfg->book->n];
        *start = e->start;
        *at_start = e->at_start;
        if (e->n_moves)
            memcpy(moves, e->moves, (size_t)e->n_moves);
        return e->n_moves;
    }
    game_pos p;
    *at_start = 1;
    game_start(g, start);
    return game_match_opening(g, cfg->opening_plies, cfg->seed, group, &p, moves);
}

static void opening_error(char *err, const game *g, int plies, int group)
{
    set_err(err, "openings of %d random sowings: all 1000 draws for group %d end the game (%s) before the agents "
            "play; use fewer opening plies", plies, group + 1, game_spec(g));
}

typedef struct {
    const game *g;
    const game_match_config *cfg;
    const char *const *specs;
    int players;
    int n_agents, group;
    pthread_mutex_t lock;
    /* Claims (under lock): a unit is a game, or with exact values a whole group (one solve serves it).
     * Worker t walks its stripe (groups t, t + T, ...) from own[t], then takes units from `back` down. */
    int span, units, upg, threads; /* games per unit, units, units per group, workers */
    unsigned char *claimed;        /* per unit */
    int *own;                      /* per worker: its next unit in its stripe */
    int back;
    int done, failed, rc;
    char err[MATCH_ERRLEN];
    unsigned char *finished; /* per game: played to its end (under lock) */
    int solves;              /* the groups' exact solves done (under lock) */
    game_match_game *game;
    char **records;          /* per game (keep_records or on_record), or NULL */
    double *game_s;          /* per game: wall seconds of its play */
    int *exact;              /* cfg->exact: per game, its opening's exact value (seat 0's view), else NULL */
    double exact_s;          /* the groups' exact solves, wall seconds in all (under lock) */
} runner;

typedef struct {
    runner *run;
    game_agent *inst[GAME_MAX_PLAYERS]; /* one per seat */
    int inst_agent[GAME_MAX_PLAYERS];     /* the spec index of each instance */
    int t;                                   /* the worker's index (its pool instances) */
    uint64_t nodes[GAME_MATCH_MAX_AGENTS];   /* agent_stats.nodes summed per spec index */
    double think_ms[GAME_MATCH_MAX_AGENTS];  /* game_agent_last_ms summed per spec index */
    int chosen[GAME_MATCH_MAX_AGENTS];       /* moves chosen per spec index */
    uint8_t *moves;                          /* the current game's moves (records) */
    int cap;
    game_agent *solver;                      /* cfg->exact, cfg->adjudicate: a seat's exact solver or own_solver */
    game_agent *own_solver;                  /* created for those when no seat holds a solver */
} worker_ctx;

/* How many of w's first m instances have this spec: the copy number of the next one in the pool. */
static int same_spec(const worker_ctx *w, int m, const char *spec)
{
    int n = 0;
    for (int j = 0; j < m; j++)
        n += !strcmp(game_agent_spec(w->inst[j]), spec);
    return n;
}

static void fail(runner *run, int rc, const char *msg)
{
    pthread_mutex_lock(&run->lock);
    if (!run->failed) {
        run->failed = 1;
        run->rc = rc;
        set_err(run->err, "%s", msg);
    }
    pthread_mutex_unlock(&run->lock);
}

/* The game's record (eval/record.h, see game_match.h), or NULL when out of memory. */
static char *record_text(const runner *run, int g, const game_pos *start, const int *agent_at, const uint8_t *moves,
                         int n_moves, int n_opening, int forfeit, const char *why, const game_match_game *res)
{
    const game_match_config *cfg = run->cfg;
    record_game rec;
    char *text = NULL;
    size_t len = 0;
    if (record_game_init_game(&rec, run->g, start, NULL))
        return NULL;
    int bad = record_set(&rec.event, cfg->event ? cfg->event : "sowzero match") != RECORD_OK;
    rec.round = g + 1;
    rec.opening = n_opening;
    for (int s = 0; s < run->players; s++)
        bad |= record_set_seat(&rec, s, run->specs[agent_at[s]], cfg->names ? cfg->names[agent_at[s]] : NULL);
    for (int i = 0; i < n_moves; i++)
        bad |= record_push(&rec, moves[i]);
    if (forfeit && res->time_forfeit) { /* PGN's own value; the seat is the one the result puts last */
        rec.forfeit = forfeit;
        bad |= record_set(&rec.termination, "time forfeit") != RECORD_OK;
    } else if (forfeit) {
        char seat[24], text[AGENT_ERRLEN + 40];
        if (run->players == 2)
            snprintf(seat, sizeof seat, "%s", forfeit == 1 ? "South" : "North");
        else
            snprintf(seat, sizeof seat, "Seat%d", forfeit - 1);
        snprintf(text, sizeof text, "forfeit by %s: %s", seat, why);
        rec.forfeit = forfeit;
        bad |= record_set(&rec.termination, text) != RECORD_OK;
    }
    if (res->adjudicated) { /* record.h: the result and scores of perfect play, kept by record_game_finish */
        int total = game_board_seeds(run->g, &rec.gstart);
        rec.adjudicated = 1;
        rec.result = (res->margin > 0) - (res->margin < 0);
        rec.store_south = (total + res->margin) / 2;
        rec.store_north = (total - res->margin) / 2;
        bad |= record_set(&rec.termination, "adjudication") != RECORD_OK;
    }
    FILE *f = bad ? NULL : open_memstream(&text, &len);
    if (f) {
        bad = record_write(f, &rec, NULL) != RECORD_OK;
        bad |= fclose(f) != 0;
    }
    record_game_clear(&rec);
    if (bad || !f) {
        free(text);
        return NULL;
    }
    return text;
}

static int has_tc(const game_match_config *cfg) { return cfg->tc_move_ms > 0 || cfg->tc_base_ms > 0; }

/* The mover's times for its next move (game_match.h, "Time control"), its clock holding clock_ms. */
static void allot(const game_match_config *cfg, double clock_ms, int64_t *soft, int64_t *hard)
{
    *soft = *hard = 0;
    if (cfg->tc_base_ms > 0) {
        int64_t c = (int64_t)clock_ms, aim = c / 20 + cfg->tc_inc_ms;
        *soft = aim < c / 2 ? aim : c / 2;
        *hard = c + cfg->tc_margin_ms;
    }
    if (cfg->tc_move_ms > 0) {
        if (!cfg->tc_base_ms || cfg->tc_move_ms < *soft)
            *soft = cfg->tc_move_ms;
        if (!cfg->tc_base_ms || cfg->tc_move_ms + cfg->tc_margin_ms < *hard)
            *hard = cfg->tc_move_ms + cfg->tc_margin_ms;
    }
    if (*soft < 1)
        *soft = 1;
    if (*hard < *soft)
        *hard = *soft;
}

int game_match_adjudicable(const game *g, char *err)
{
    char xs[96];
    game_layout lay;
    if (!game_agent_exact_spec(g, 0, -1, xs, sizeof xs, err))
        return 0;
    if (!game_layout_of(g, &lay) || !(lay.flags & GAME_END_SWEEP) || (lay.flags & GAME_END_UNSHOWN)) {
        errbuf_set(err, AGENT_ERRLEN, "%s does not sweep every seed into the stores at the end (game_layout: "
                   "GAME_END_SWEEP), so perfect play's margin does not give the final score", game_spec(g));
        return 0;
    }
    return 1;
}

/* The MATCH_* code of an agent's failure: a damaged tablebase file or one for other rules, found at the
 * agent's first move (a solver's default database waits for the position), is bad input as a bad spec. */
static int agent_failure(int rc)
{
    if (rc == AGENT_ENOMEM)
        return MATCH_ENOMEM;
    return rc == SZ_EFORMAT || rc == SZ_EMISMATCH ? MATCH_EINVAL : MATCH_EAGENT;
}

/* Adjudication (game_match.h): 1 with *margin the final margin of perfect play from p (South's view) when
 * p's pits hold at most cfg->adjudicate seeds; 0 when they hold more; a MATCH_* code when the solve fails. */
static int adjudicate(worker_ctx *w, int g, const game_pos *p, int *margin, char *err)
{
    if (game_seeds_in_pits(w->run->g, p) > w->run->cfg->adjudicate)
        return 0;
    int rc = game_agent_exact_value(w->solver, p, margin);
    if (rc != AGENT_OK) {
        set_err(err, "game %d: adjudication: agent '%s' failed: %s", g + 1, game_agent_spec(w->solver),
                game_agent_error(w->solver));
        return agent_failure(rc);
    }
    return 1;
}

/* Plays game g with this worker's instances. 0, or a MATCH_* code with the message in err. */
static int play_game(worker_ctx *w, int g, char *err)
{
    runner *run = w->run;
    const game *gm = run->g;
    const int np = run->players;
    const game_match_config *cfg = run->cfg;
    int agent_at[GAME_MAX_PLAYERS], used = 0;
    game_agent *seat[GAME_MAX_PLAYERS];
    game_match_seats(run->n_agents, np, g, agent_at);
    for (int s = 0; s < np; s++)
        for (int m = 0; m < np; m++)
            if (!(used & (1 << m)) && w->inst_agent[m] == agent_at[s]) {
                used |= 1 << m;
                seat[s] = w->inst[m];
                break;
            }
    game_pos p, start;
    uint8_t opening[BOOK_MAX_MOVES];
    int at_start, n_open = match_opening(gm, cfg, g / run->group, &start, &at_start, opening);
    if (n_open < 0) {
        opening_error(err, gm, cfg->opening_plies, g / run->group);
        return MATCH_EINVAL;
    }
    p = start;
    uint64_t game_seed = agent_mix(cfg->seed, (uint64_t)g + 1);
    for (int s = 0; s < np; s++)
        game_agent_new_game(seat[s], &p, agent_mix(game_seed, (uint64_t)s + 1));
    int ply, forfeit = 0; /* 1 + the seat that lost by forfeit */
    int adj_margin = INT_MIN; /* the adjudicated final margin (South's), INT_MIN: played to its end */
    int time_forfeit = 0;
    double clock_ms[GAME_MAX_PLAYERS]; /* each seat's game clock (a time control with tc_base_ms) */
    for (int s = 0; s < np; s++)
        clock_ms[s] = (double)cfg->tc_base_ms;
    char why[AGENT_ERRLEN] = "";
    for (ply = 0; !p.over; ply++) {
        int k;
        if (ply < n_open) {
            k = opening[ply];
        } else {
            if (cfg->stop && atomic_load_explicit(cfg->stop, memory_order_relaxed))
                return MATCH_STOPPED; /* abandoned: the match keeps the games that finished */
            if (ply >= GAME_MATCH_MAX_PLIES) {
                set_err(err, "game %d went past %d plies", g + 1, GAME_MATCH_MAX_PLIES);
                return MATCH_EGAME;
            }
            if (cfg->adjudicate) {
                int rc = adjudicate(w, g, &p, &adj_margin, err);
                if (rc < 0)
                    return rc;
                if (rc)
                    break;
            }
            game_agent *mover = seat[p.to_move];
            int64_t soft = 0, hard = 0;
            if (has_tc(cfg)) {
                allot(cfg, clock_ms[p.to_move], &soft, &hard);
                game_agent_set_time(mover, soft, hard);
            }
            int rc = game_agent_choose(mover, &p, &k);
            if (rc == AGENT_EFORFEIT) { /* the game ends here, lost by the mover (game_match.h) */
                forfeit = p.to_move + 1;
                time_forfeit = has_tc(cfg) && game_agent_timed_out(mover);
                snprintf(why, sizeof why, "%s", game_agent_error(mover));
                break;
            }
            if (rc != AGENT_OK) {
                set_err(err, "game %d: agent '%s' (seat %d) failed: %s", g + 1, game_agent_spec(mover), p.to_move,
                        game_agent_error(mover));
                return agent_failure(rc);
            }
            double used = game_agent_last_ms(mover);
            w->think_ms[agent_at[p.to_move]] += used;
            w->chosen[agent_at[p.to_move]]++;
            if (has_tc(cfg) && used > (double)hard) { /* over its time: lost on time, the move not played */
                forfeit = p.to_move + 1;
                time_forfeit = 1;
                break;
            }
            if (cfg->tc_base_ms > 0) {
                clock_ms[p.to_move] -= used;
                if (clock_ms[p.to_move] < 0) /* within the margin */
                    clock_ms[p.to_move] = 0;
                clock_ms[p.to_move] += (double)cfg->tc_inc_ms;
            }
            game_agent_stats st;
            game_agent_last_stats(mover, &st);
            w->nodes[agent_at[p.to_move]] += st.nodes;
        }
        if (run->records) {
            if (ply == w->cap) {
                int cap = w->cap ? 2 * w->cap : 256;
                uint8_t *m = realloc(w->moves, (size_t)cap);
                if (!m) {
                    set_err(err, "out of memory");
                    return MATCH_ENOMEM;
                }
                w->moves = m;
                w->cap = cap;
            }
            w->moves[ply] = (uint8_t)k;
        }
        for (int s = 0; s < np; s++)
            game_agent_notify(seat[s], &p, k);
        if (game_apply(gm, &p, k, NULL) != GAME_OK) {
            set_err(err, "game %d: illegal move %d at ply %d", g + 1, k, ply + 1);
            return MATCH_EAGENT;
        }
    }
    game_match_game *res = &run->game[g];
    double v[GAME_MAX_PLAYERS];
    game_values(gm, &p, v);
    for (int s = 0; forfeit && s < np; s++)
        v[s] = s == forfeit - 1 ? -1 : 1;
    if (adj_margin != INT_MIN) {
        v[0] = (adj_margin > 0) - (adj_margin < 0);
        v[1] = -v[0];
    }
    res->forfeit = (uint8_t)forfeit;
    res->time_forfeit = (uint8_t)time_forfeit;
    res->adjudicated = adj_margin != INT_MIN;
    for (int s = 0; s < np; s++) {
        int better = 0;
        for (int o = 0; o < np; o++)
            better += v[o] > v[s];
        res->agent[s] = (uint8_t)agent_at[s];
        res->place[s] = (uint8_t)(1 + better);
        res->value[s] = (float)v[s];
    }
    res->margin = adj_margin != INT_MIN ? adj_margin : game_margin(gm, &p);
    res->sows = ply;
    if (run->records && !(run->records[g] = record_text(run, g, at_start ? NULL : &start, agent_at, w->moves, ply, n_open,
                                                           forfeit, why, res))) {
        set_err(err, "out of memory");
        return MATCH_ENOMEM;
    }
    return MATCH_OK;
}

/* The exact value of group `group`'s opening for seat 0 (eval/perfect.h) into run->exact[first..end). */
static int solve_group(worker_ctx *w, int group, int first, int end, char *err)
{
    runner *run = w->run;
    game_pos p;
    uint8_t moves[BOOK_MAX_MOVES];
    int at_start, n = match_opening(run->g, run->cfg, group, &p, &at_start, moves); /* fits: checked */
    for (int i = 0; i < n; i++)
        game_apply(run->g, &p, moves[i], NULL);
    struct timespec e0, e1;
    clock_gettime(CLOCK_MONOTONIC, &e0);
    int v, rc = game_agent_exact_value(w->solver, &p, &v);
    clock_gettime(CLOCK_MONOTONIC, &e1);
    pthread_mutex_lock(&run->lock);
    run->exact_s += seconds_between(&e0, &e1);
    run->solves++;
    pthread_mutex_unlock(&run->lock);
    if (rc != AGENT_OK) {
        set_err(err, "group %d: the exact value of the opening: agent '%s' failed: %s", group + 1,
                game_agent_spec(w->solver), game_agent_error(w->solver));
        return agent_failure(rc);
    }
    for (int g = first; g < end; g++)
        run->exact[g] = v;
    return MATCH_OK;
}

/* Worker t's next unit (see runner): its own stripe first, then the last unclaimed one; -1 when none is
 * left. Under run->lock. Each cursor only moves forward (back: down), so claims cost O(units) in all. */
static int claim(runner *run, int t)
{
    int *u = &run->own[t];
    while (*u < run->units && run->claimed[*u]) /* the next unit of the stripe: the group's next, or the */
        *u += (*u + 1) % run->upg ? 1 : 1 + (run->threads - 1) * run->upg; /* first of its next group */
    int c = *u < run->units ? *u : -1;
    if (c < 0) {
        while (run->back >= 0 && run->claimed[run->back])
            run->back--;
        c = run->back;
    }
    if (c >= 0)
        run->claimed[c] = 1;
    return c;
}

static int stop_asked(const runner *run)
{
    return run->cfg->stop && atomic_load_explicit(run->cfg->stop, memory_order_relaxed);
}

/* Game g has ended: counted, reported, and its record handed to on_record. Under run->lock. 0, or
 * MATCH_EIO when on_record refuses it. */
static int game_ended(runner *run, int g, char *err)
{
    const game_match_config *cfg = run->cfg;
    run->done++;
    run->finished[g] = 1;
    if (cfg->progress)
        cfg->progress(cfg->progress_ud, run->done, cfg->games);
    if (!cfg->on_record)
        return MATCH_OK;
    int bad = cfg->on_record(cfg->record_ud, g, run->records[g]);
    if (!cfg->keep_records) {
        free(run->records[g]);
        run->records[g] = NULL;
    }
    if (bad) {
        set_err(err, "game %d: its record could not be written", g + 1);
        return MATCH_EIO;
    }
    return MATCH_OK;
}

static void *worker(void *arg)
{
    worker_ctx *w = arg;
    runner *run = w->run;
    const int games = run->cfg->games, span = run->span;
    char err[MATCH_ERRLEN];
    for (;;) {
        pthread_mutex_lock(&run->lock);
        int unit = run->failed || stop_asked(run) ? -1 : claim(run, w->t);
        pthread_mutex_unlock(&run->lock);
        if (unit < 0)
            break;
        int first = unit * span, end = first + span < games ? first + span : games;
        int rc = run->exact ? solve_group(w, first / run->group, first, end, err) : MATCH_OK;
        for (int g = first; g < end && !rc; g++) {
            struct timespec g0, g1;
            clock_gettime(CLOCK_MONOTONIC, &g0);
            rc = play_game(w, g, err);
            clock_gettime(CLOCK_MONOTONIC, &g1);
            run->game_s[g] = seconds_between(&g0, &g1);
            if (rc)
                break;
            pthread_mutex_lock(&run->lock);
            rc = game_ended(run, g, err);
            pthread_mutex_unlock(&run->lock);
        }
        if (rc == MATCH_STOPPED)
            break;
        if (rc) {
            fail(run, rc, err);
            break;
        }
    }
    return NULL;
}

/* Per-agent statistics and the two-player tally, in game order. */
static void tally(game_match_result *out, int n, const double *game_s)
{
    long sows = 0;
    int seat_games[2] = {0, 0};
    for (int g = 0; g < out->games; g++) {
        const game_match_game *gm = &out->game[g];
        int seen = 0, shared_first = 0;
        for (int s = 0; s < n; s++)
            shared_first += gm->place[s] == 1;
        for (int s = 0; s < n; s++) {
            game_match_agent_stats *a = &out->agent[gm->agent[s]];
            if (!(seen & (1 << gm->agent[s])))
                a->games++;
            seen |= 1 << gm->agent[s];
            a->seats++;
            a->place_sum += gm->place[s];
            a->mean_score += (gm->value[s] + 1.0) / 2.0; /* a sum until divided below */
            a->seat_n[s]++;
            a->seat_place[s] += gm->place[s];
            a->forfeits += gm->forfeit == s + 1;
            a->time_forfeits += gm->forfeit == s + 1 && gm->time_forfeit;
            if (gm->place[s] == 1) {
                a->firsts++;
                a->first_share += 1.0 / shared_first;
            }
        }
        if (out->duel) {
            int a_seat = gm->agent[0] == 0 ? 0 : 1;
            out->two.seat_seconds[a_seat] += game_s[g];
            seat_games[a_seat]++;
            int pa = gm->place[a_seat], pb = gm->place[1 - a_seat];
            match_tally *ts[2] = {&out->two.all, &out->two.seat[a_seat]};
            for (int i = 0; i < 2; i++) {
                ts[i]->wins += pa < pb;
                ts[i]->draws += pa == pb;
                ts[i]->losses += pa > pb;
            }
        }
        sows += gm->sows;
        out->adjudicated += gm->adjudicated;
    }
    for (int i = 0; i < out->n_agents; i++) {
        game_match_agent_stats *a = &out->agent[i];
        if (a->seats) {
            a->mean_place = a->place_sum / a->seats;
            a->mean_score /= a->seats;
        }
        for (int s = 0; s < n; s++)
            if (a->seat_n[s])
                a->seat_place[s] /= a->seat_n[s];
    }
    out->avg_sows = out->games ? (double)sows / out->games : 0;
    if (out->duel) {
        for (int s = 0; s < 2; s++)
            if (seat_games[s])
                out->two.seat_seconds[s] /= seat_games[s];
        match_result_stats(&out->two);
    }
}

/* A's statistics against the exact values by A's seat (perfect.h), from the per-game margins. 0 or -1 (memory);
 * on success out owns `exact`. */
static int perfect_by_seat(game_match_result *out, int *exact)
{
    int n = out->games, *m = malloc((size_t)n * sizeof *m), *v = malloc((size_t)n * sizeof *v), cnt[2] = {0, 0};
    if (!m || !v) {
        free(m);
        free(v);
        return -1;
    }
    for (int s = 0; s < 2; s++) /* A's games in seat s, in game order, packed at m + s * (games A sat in seat 0) */
        for (int g = 0; g < n; g++)
            if ((out->game[g].agent[0] == 0 ? 0 : 1) == s) {
                m[cnt[0] + cnt[1]] = out->game[g].margin;
                v[cnt[0] + cnt[1]] = exact[g];
                cnt[s]++;
            }
    perfect_stats_compute(m, v, cnt[0], KALAH_SOUTH, &out->perfect[0]);
    perfect_stats_compute(m + cnt[0], v + cnt[0], cnt[1], KALAH_NORTH, &out->perfect[1]);
    free(m);
    free(v);
    out->have_exact = 1;
    out->exact = exact;
    return 0;
}

static int check(const char *const *specs, int n_agents, const game *g, const game_match_config *cfg,
                 char *err)
{
    if (!g) {
        set_err(err, "no game");
        return MATCH_EINVAL;
    }
    if (!game_match_group_size(n_agents, game_players(g))) {
        set_err(err, "%d agents for %d players: give %d agents (every seat permutation) or 2 (A against a field "
                "of B)", n_agents, game_players(g), game_players(g));
        return MATCH_EINVAL;
    }
    if (cfg->games < 1 || cfg->games > 100000000) {
        set_err(err, "games must be in 1..100000000, got %d", cfg->games);
        return MATCH_EINVAL;
    }
    if (game_players(g) == 2 && cfg->games % 2) {
        set_err(err, "games must be an even number >= 2 (colour-swapped pairs), got %d", cfg->games);
        return MATCH_EINVAL;
    }
    if (cfg->opening_plies < 0 || cfg->opening_plies > 1000) {
        set_err(err, "opening plies must be in 0..1000, got %d", cfg->opening_plies);
        return MATCH_EINVAL;
    }
    if (cfg->book && (cfg->book->n < 1 || cfg->book_first < 0)) {
        set_err(err, "the opening book has no entries, or book_first %d < 0", cfg->book_first);
        return MATCH_EINVAL;
    }
    /* Group 0 first: a length that ends every game inside the opening is refused before agents are made;
     * refused, not shortened (see game_match.h). */
    game_pos start0;
    if (!cfg->book && game_match_opening(g, cfg->opening_plies, cfg->seed, 0, &start0, NULL) < 0) {
        opening_error(err, g, cfg->opening_plies, 0);
        return MATCH_EINVAL;
    }
    if (cfg->adjudicate < 0 || cfg->adjudicate > 255) {
        set_err(err, "adjudication: the seeds in the pits must be in 0..255");
        return MATCH_EINVAL;
    }
    char xs[96], aerr[AGENT_ERRLEN];
    if (cfg->adjudicate && !game_match_adjudicable(g, aerr)) {
        set_err(err, "adjudication: %s", aerr);
        return MATCH_EINVAL;
    }
    if (cfg->exact && !game_agent_exact_spec(g, 0, -1, xs, sizeof xs, aerr)) { /* a fact of the game */
        set_err(err, "exact values of the openings: %s", aerr);
        return MATCH_EINVAL;
    }
    if (cfg->tc_move_ms < 0 || cfg->tc_base_ms < 0 || cfg->tc_inc_ms < 0 || cfg->tc_margin_ms < 0 ||
        (cfg->tc_inc_ms > 0 && cfg->tc_base_ms <= 0)) {
        set_err(err, "time control: times must be >= 0, and an increment needs a game clock (tc_base_ms > 0)");
        return MATCH_EINVAL;
    }
    if (cfg->threads < 1 || cfg->threads > 1024) {
        set_err(err, "threads must be in 1..1024, got %d", cfg->threads);
        return MATCH_EINVAL;
    }
    if (cfg->pool && cfg->az) {
        set_err(err, "agents built from settings (az) cannot come from an agent pool");
        return MATCH_EINVAL;
    }
    if (cfg->pool && cfg->pool->g != g) {
        set_err(err, "the agent pool was made for another game than %s", game_spec(g));
        return MATCH_EINVAL;
    }
    for (int i = 0; i < n_agents; i++)
        if (!specs[i] || (cfg->keep_records && strpbrk(specs[i], "\t\n\r"))) {
            set_err(err, "agent %d: %s", i + 1,
                    specs[i] ? "a spec with a tab or newline cannot be written to the records" : "no spec");
            return MATCH_EINVAL;
        }
    return MATCH_OK;
}

int game_match_run(const char *const *specs, int n_agents, const game *g, const game_match_config *cfg,
                   game_match_result *out, char *err)
{
    memset(out, 0, sizeof *out);
    int rc = check(specs, n_agents, g, cfg, err);
    if (rc)
        return rc;
    runner run;
    memset(&run, 0, sizeof run);
    run.g = g;
    const int np = run.players = game_players(g);
    run.cfg = cfg;
    run.specs = specs;
    run.n_agents = n_agents;
    run.group = game_match_group_size(n_agents, np);
    int nt = cfg->threads < cfg->games ? cfg->threads : cfg->games;
    run.span = cfg->exact ? run.group : 1; /* exact: whole groups, one solve */
    run.units = (cfg->games + run.span - 1) / run.span;
    run.upg = run.group / run.span;
    run.threads = nt;
    run.back = run.units - 1;
    run.claimed = calloc((size_t)run.units, 1);
    run.own = calloc((size_t)nt, sizeof *run.own);
    worker_ctx *ctx = calloc((size_t)nt, sizeof *ctx);
    pthread_t *tid = calloc((size_t)nt, sizeof *tid);
    run.game = calloc((size_t)cfg->games, sizeof *run.game);
    run.game_s = calloc((size_t)cfg->games, sizeof *run.game_s);
    if (cfg->keep_records || cfg->on_record)
        run.records = calloc((size_t)cfg->games, sizeof *run.records);
    run.finished = calloc((size_t)cfg->games, 1);
    if (cfg->exact)
        run.exact = calloc((size_t)cfg->games, sizeof *run.exact);
    rc = MATCH_ENOMEM;
    if (!ctx || !tid || !run.game || !run.game_s || ((cfg->keep_records || cfg->on_record) && !run.records) ||
        (cfg->exact && !run.exact) || !run.claimed || !run.own || !run.finished) {
        set_err(err, "out of memory");
        goto out;
    }
    /* Instances: one per seat. Agent i needs as many as the seats it fills in one game (the plan fixes that
     * count): 1 each for k == players; A 1 and B players - 1 for a field. All created (or taken from the
     * pool) here, in one thread; an instance's copy number counts the worker's instances of its spec before it. */
    int copies[GAME_MAX_PLAYERS] = {0}, at[GAME_MAX_PLAYERS];
    game_match_seats(n_agents, np, 0, at);
    for (int s = 0; s < np; s++)
        copies[at[s]]++;
    char aerr[AGENT_ERRLEN];
    rc = MATCH_EAGENT;
    for (int t = 0; t < nt; t++) {
        ctx[t].run = &run;
        ctx[t].t = t;
        run.own[t] = t * run.upg;
        for (int i = 0, m = 0; i < n_agents; i++)
            for (int c = 0; c < copies[i]; c++, m++) {
                ctx[t].inst_agent[m] = i;
                if (!(ctx[t].inst[m] = pool_instance(cfg->pool, specs[i], cfg->az ? cfg->az[i] : NULL, g, t,
                                                     same_spec(&ctx[t], m, specs[i]), aerr))) {
                    set_err(err, "%s", aerr);
                    goto out;
                }
                if ((cfg->exact || cfg->adjudicate) && !ctx[t].solver && game_agent_is_exact(ctx[t].inst[m]))
                    ctx[t].solver = ctx[t].inst[m];
            }
        if ((cfg->exact || cfg->adjudicate) && !ctx[t].solver) {
            char xs[96];
            const char *ss = cfg->exact_solver ? cfg->exact_solver
                             : cfg->exact      ? game_agent_exact_spec(g, 0, -1, xs, sizeof xs, aerr)
                                               : game_agent_exact_spec(g, 32, cfg->adjudicate < 17 ? cfg->adjudicate : 17,
                                                                       xs, sizeof xs, aerr);
            if (ss)
                ctx[t].own_solver = pool_instance(cfg->pool, ss, NULL, g, t, same_spec(&ctx[t], np, ss), aerr);
            if (!ctx[t].own_solver) {
                set_err(err, "the solver for the exact values or adjudication: %s", aerr);
                goto out;
            }
            if (!game_agent_is_exact(ctx[t].own_solver)) {
                set_err(err, "the solver for the exact values or adjudication: '%s' is not an exact solver agent",
                        game_agent_spec(ctx[t].own_solver));
                goto out;
            }
            ctx[t].solver = ctx[t].own_solver;
        }
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_mutex_init(&run.lock, NULL);
    int started = 0;
    for (int t = 1; t < nt; t++) {
        if (pthread_create(&tid[t], NULL, worker, &ctx[t]))
            break;
        started = t;
    }
    worker(&ctx[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&run.lock);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (run.failed) {
        rc = run.rc;
        set_err(err, "%s", run.err);
        goto out;
    }
    /* Stopped: the finished games, moved to the front in game order (the statistics are theirs alone). */
    int played = 0;
    for (int g = 0; g < cfg->games; g++) {
        if (!run.finished[g]) {
            if (run.records) {
                free(run.records[g]);
                run.records[g] = NULL;
            }
            continue;
        }
        run.game[played] = run.game[g];
        run.game_s[played] = run.game_s[g];
        if (run.exact)
            run.exact[played] = run.exact[g];
        if (run.records && played < g) {
            run.records[played] = run.records[g];
            run.records[g] = NULL;
        }
        played++;
    }
    out->seconds = seconds_between(&t0, &t1);
    out->players = np;
    out->n_agents = n_agents;
    out->games = played;
    out->game = run.game;
    run.game = NULL;
    out->duel = np == 2;
    for (int i = 0, m = 0; i < n_agents; m += copies[i++])
        out->describe[i] = strdup(game_agent_describe(ctx[0].inst[m]));
    tally(out, np, run.game_s);
    for (int t = 0; t < nt; t++)
        for (int i = 0; i < n_agents; i++) {
            out->agent[i].nodes += ctx[t].nodes[i];
            out->agent[i].think_ms += ctx[t].think_ms[i];
            out->agent[i].moves += ctx[t].chosen[i];
        }
    if (run.exact) {
        if (perfect_by_seat(out, run.exact)) {
            rc = MATCH_ENOMEM;
            set_err(err, "out of memory");
            goto out;
        }
        run.exact = NULL; /* owned by out */
        out->exact_seconds = run.solves ? run.exact_s / run.solves : 0;
    }
    if (run.records && cfg->keep_records) {
        out->records = run.records;
        out->n_records = played;
        run.records = NULL;
    }
    rc = played < cfg->games ? MATCH_STOPPED : MATCH_OK;
out:
    if (ctx)
        for (int t = 0; t < nt; t++) {
            if (!cfg->pool) { /* the pool keeps its instances */
                for (int m = 0; m < GAME_MAX_PLAYERS; m++)
                    game_agent_free(ctx[t].inst[m]);
                game_agent_free(ctx[t].own_solver);
            }
            free(ctx[t].moves);
        }
    free(ctx);
    free(tid);
    free(run.claimed);
    free(run.own);
    free(run.game);
    free(run.game_s);
    free(run.finished);
    free(run.exact);
    if (run.records) {
        for (int g = 0; g < cfg->games; g++)
            free(run.records[g]);
        free(run.records);
    }
    return rc;
}

void game_match_result_free(game_match_result *res)
{
    free(res->game);
    res->game = NULL;
    free(res->exact);
    res->exact = NULL;
    res->have_exact = 0;
    if (res->records) {
        for (int g = 0; g < res->n_records; g++)
            free(res->records[g]);
        free(res->records);
    }
    res->records = NULL;
    res->n_records = 0;
    for (int i = 0; i < GAME_MATCH_MAX_AGENTS; i++) {
        free(res->describe[i]);
        res->describe[i] = NULL;
    }
}
