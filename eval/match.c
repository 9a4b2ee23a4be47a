/* match.c — the match runner (pairing, threads, statistics); contract in match.h. */
#include "eval/match.h"
#include "env/errbuf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/agent_impl.h"
#include "eval/elo.h"

#define set_err(err, ...) errbuf_set(err, MATCH_ERRLEN, __VA_ARGS__)

match_config match_config_default(void)
{
    match_config c;
    memset(&c, 0, sizeof c);
    c.games = 100;
    c.opening_plies = 2;
    c.threads = 1;
    c.seed = 1;
    return c;
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

static unsigned below(uint64_t *state, unsigned n)
{
    return (unsigned)(((agent_splitmix(state) >> 32) * (uint64_t)n) >> 32);
}

static int random_legal(const kalah_rules *r, const kalah_pos *p, uint64_t *state)
{
    unsigned legal = kalah_legal(r, p), j = below(state, (unsigned)__builtin_popcount(legal));
    for (int k = 0;; k++)
        if (legal & (1u << k) && j-- == 0)
            return k;
}

int match_opening(const kalah_rules *r, int plies, uint64_t seed, int pair, kalah_pos *out, uint8_t *moves)
{
    uint64_t state = agent_mix(seed ^ 0x6f70656e696e67ULL, (uint64_t)pair);
    kalah_pos p;
    for (int attempt = 0; attempt < 1000; attempt++) {
        kalah_start(r, &p);
        int i;
        for (i = 0; i < plies && !p.over; i++) {
            int k = random_legal(r, &p, &state);
            if (moves)
                moves[i] = (uint8_t)k;
            kalah_sow(r, &p, k, NULL);
        }
        if (!p.over) {
            *out = p;
            return plies;
        }
    }
    kalah_start(r, out);
    return -1;
}

int match_play_game(agent *south, agent *north, const kalah_rules *r, const uint8_t *opening, int n_opening,
                    uint64_t game_seed, record_game *rec, kalah_pos *final, char *err)
{
    kalah_pos p;
    kalah_start(r, &p);
    agent_new_game(south, &p, agent_mix(game_seed, 1));
    if (north != south)
        agent_new_game(north, &p, agent_mix(game_seed, 2));
    if (rec)
        rec->opening = n_opening;
    for (int ply = 0; !p.over; ply++) {
        int k;
        if (ply < n_opening) {
            k = opening[ply];
        } else {
            if (ply >= MATCH_MAX_SOWS) {
                set_err(err, "a game went past %d sowings (set max_sows in the rules)", MATCH_MAX_SOWS);
                return MATCH_EGAME;
            }
            agent *mover = p.side == KALAH_SOUTH ? south : north;
            int rc = agent_choose(mover, &p, &k);
            if (rc != AGENT_OK) {
                set_err(err, "agent '%s' (%s) failed: %s", agent_spec(mover), p.side ? "North" : "South",
                        agent_error(mover));
                return MATCH_EAGENT;
            }
        }
        if (rec && record_push(rec, k)) {
            set_err(err, "out of memory");
            return MATCH_ENOMEM;
        }
        agent_notify(south, &p, k);
        if (north != south)
            agent_notify(north, &p, k);
        if (kalah_play(r, &p, k, NULL) != KALAH_OK) {
            set_err(err, "illegal move %d at ply %d", k, ply + 1);
            return MATCH_EAGENT;
        }
    }
    *final = p;
    return MATCH_OK;
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

void match_result_free(match_result *res)
{
    if (res->records)
        record_games_free(res->records, res->n_records);
    res->records = NULL;
    res->n_records = 0;
    free(res->margin);
    free(res->exact);
    res->margin = res->exact = NULL;
    res->have_exact = 0;
}

/* ---- the parallel runner ---- */

typedef struct {
    const kalah_rules *r;
    const match_config *cfg;
    int pairs;
    pthread_mutex_t lock;
    int next_pair, done, failed;
    int rc;
    char err[MATCH_ERRLEN];
    signed char *outcome;  /* per game: South's result +1/0/-1 */
    int *sows;             /* per game */
    int *margin;           /* per game: final margin, South's view */
    double *game_s;        /* per game: wall seconds */
    double exact_s;        /* the pairs' exact solves, wall seconds in all (under lock) */
    int *exact;            /* cfg->exact: per game, the opening's exact value (South's view), else NULL */
    record_game *records;  /* per game, or NULL */
} runner;

typedef struct {
    runner *run;
    agent *a, *b;
    agent *solver;      /* cfg->exact: a, b or own_solver */
    agent *own_solver;  /* created for the exact values when neither a nor b is a solver */
} worker_ctx;

/* Records the run's first failure (later ones are consequences). */
static void fail_run(runner *run, int rc, const char *msg)
{
    pthread_mutex_lock(&run->lock);
    if (!run->failed) {
        run->failed = 1;
        run->rc = rc;
        set_err(run->err, "%s", msg);
    }
    pthread_mutex_unlock(&run->lock);
}

/* Openings are redrawn while they end the game; a length that ends all 1000 draws does not fit the board.
 * Refused, not shortened: the opening length is one of the match's stated conditions (--json "openings"). */
static void opening_error(char *err, const kalah_rules *r, int plies, int pair)
{
    char rules[128];
    kalah_rules_format(r, rules, sizeof rules);
    set_err(err, "openings of %d random sowings: all 1000 draws for pair %d end the game (%s) before the agents "
            "play; use fewer opening plies", plies, pair + 1, rules);
}

static void *worker(void *arg)
{
    worker_ctx *w = arg;
    runner *run = w->run;
    const match_config *cfg = run->cfg;
    uint8_t *opening = malloc((size_t)(cfg->opening_plies ? cfg->opening_plies : 1));
    char err[MATCH_ERRLEN];
    if (!opening) {
        fail_run(run, MATCH_ENOMEM, "out of memory");
        return NULL;
    }
    for (;;) {
        pthread_mutex_lock(&run->lock);
        int pair = run->failed || run->next_pair >= run->pairs ? -1 : run->next_pair++;
        pthread_mutex_unlock(&run->lock);
        if (pair < 0)
            break;
        kalah_pos start;
        int n_open = match_opening(run->r, cfg->opening_plies, cfg->seed, pair, &start, opening);
        if (n_open < 0) {
            opening_error(err, run->r, cfg->opening_plies, pair);
            fail_run(run, MATCH_EINVAL, err);
            break;
        }
        if (run->exact) { /* one solve per pair: both games start here */
            struct timespec e0, e1;
            clock_gettime(CLOCK_MONOTONIC, &e0);
            int v, rc = perfect_value(w->solver, &start, &v);
            clock_gettime(CLOCK_MONOTONIC, &e1);
            pthread_mutex_lock(&run->lock);
            run->exact_s += seconds_between(&e0, &e1);
            pthread_mutex_unlock(&run->lock);
            if (rc != AGENT_OK) {
                snprintf(err, sizeof err, "pair %d: the exact value of the opening: agent '%s' failed: %s", pair + 1,
                         agent_spec(w->solver), agent_error(w->solver));
                fail_run(run, MATCH_EAGENT, err);
                break;
            }
            run->exact[2 * pair] = run->exact[2 * pair + 1] = v;
        }
        for (int g = 2 * pair; g < 2 * pair + 2; g++) {
            agent *south = g % 2 ? w->b : w->a, *north = g % 2 ? w->a : w->b;
            record_game *rec = run->records ? &run->records[g] : NULL;
            kalah_pos final;
            struct timespec g0, g1;
            clock_gettime(CLOCK_MONOTONIC, &g0);
            int rc = match_play_game(south, north, run->r, opening, n_open, agent_mix(cfg->seed, (uint64_t)g + 1), rec,
                                     &final, err);
            clock_gettime(CLOCK_MONOTONIC, &g1);
            run->game_s[g] = seconds_between(&g0, &g1);
            pthread_mutex_lock(&run->lock);
            if (rc) {
                if (!run->failed) {
                    run->failed = 1;
                    run->rc = rc;
                    set_err(run->err, "game %d: %s", g + 1, err);
                }
                pthread_mutex_unlock(&run->lock);
                free(opening);
                return NULL;
            }
            run->outcome[g] = (signed char)kalah_winner(run->r, &final);
            run->sows[g] = final.sows;
            run->margin[g] = kalah_margin(run->r, &final);
            run->done++;
            if (cfg->progress)
                cfg->progress(cfg->progress_ud, run->done, 2 * run->pairs);
            pthread_mutex_unlock(&run->lock);
        }
    }
    free(opening);
    return NULL;
}

static int set_tags(record_game *g, const char *south, const char *north, const char *sname, const char *nname,
                    const char *event, int round)
{
    g->round = round;
    return record_set(&g->south, south) || record_set(&g->north, north) || record_set(&g->south_name, sname) ||
           record_set(&g->north_name, nname) || record_set(&g->event, event ? event : "sowzero match");
}

/* A's statistics against the exact values by seat: game 2i has A as South, 2i+1 as North (the pairing). */
static int perfect_by_seat(const int *margin, const int *exact, int games, perfect_stats out[2])
{
    int half = games / 2, *m = malloc((size_t)games * sizeof *m), *v = malloc((size_t)games * sizeof *v);
    if (!m || !v) {
        free(m);
        free(v);
        return -1;
    }
    for (int g = 0; g < games; g++) {
        int seat = g % 2 ? KALAH_NORTH : KALAH_SOUTH, i = seat * half + g / 2;
        m[i] = margin[g];
        v[i] = exact[g];
    }
    perfect_stats_compute(m, v, half, KALAH_SOUTH, &out[KALAH_SOUTH]);
    perfect_stats_compute(m + half, v + half, half, KALAH_NORTH, &out[KALAH_NORTH]);
    free(m);
    free(v);
    return 0;
}

int match_run(const char *spec_a, const char *spec_b, const kalah_rules *r, const match_config *cfg,
              match_result *out, char *err)
{
    memset(out, 0, sizeof *out);
    if (cfg->games < 2 || cfg->games % 2) {
        set_err(err, "games must be an even number >= 2 (colour-swapped pairs), got %d", cfg->games);
        return MATCH_EINVAL;
    }
    if (cfg->opening_plies < 0 || cfg->opening_plies > 1000) {
        set_err(err, "opening plies must be in 0..1000, got %d", cfg->opening_plies);
        return MATCH_EINVAL;
    }
    if (cfg->threads < 1 || cfg->threads > 1024) {
        set_err(err, "threads must be in 1..1024, got %d", cfg->threads);
        return MATCH_EINVAL;
    }
    runner run;
    memset(&run, 0, sizeof run);
    run.r = r;
    run.cfg = cfg;
    run.pairs = cfg->games / 2;
    int nt = cfg->threads < run.pairs ? cfg->threads : run.pairs;
    worker_ctx *ctx = calloc((size_t)nt, sizeof *ctx);
    pthread_t *tid = calloc((size_t)nt, sizeof *tid);
    run.outcome = calloc((size_t)cfg->games, 1);
    run.sows = calloc((size_t)cfg->games, sizeof *run.sows);
    run.margin = calloc((size_t)cfg->games, sizeof *run.margin);
    run.game_s = calloc((size_t)cfg->games, sizeof *run.game_s);
    if (cfg->exact)
        run.exact = calloc((size_t)cfg->games, sizeof *run.exact);
    if (cfg->keep_records)
        run.records = calloc((size_t)cfg->games, sizeof *run.records);
    int rc = MATCH_ENOMEM;
    if (!ctx || !tid || !run.outcome || !run.sows || !run.margin || !run.game_s || (cfg->exact && !run.exact) ||
        (cfg->keep_records && !run.records)) {
        set_err(err, "out of memory");
        goto out;
    }
    /* Pair 0 first: a length that ends every game inside the opening is refused before agents are made. */
    kalah_pos start0;
    if (match_opening(r, cfg->opening_plies, cfg->seed, 0, &start0, NULL) < 0) {
        opening_error(err, r, cfg->opening_plies, 0);
        rc = MATCH_EINVAL;
        goto out;
    }
    if (run.records)
        for (int g = 0; g < cfg->games; g++)
            record_game_init(&run.records[g], r, NULL);
    /* Every agent instance is created here, in one thread (agent.h: HDF5 is not thread-safe). */
    char aerr[AGENT_ERRLEN];
    rc = MATCH_EAGENT;
    for (int t = 0; t < nt; t++) {
        ctx[t].run = &run;
        if (!(ctx[t].a = agent_create(spec_a, r, aerr)) || !(ctx[t].b = agent_create(spec_b, r, aerr))) {
            set_err(err, "%s", aerr);
            goto out;
        }
        if (cfg->exact) {
            ctx[t].solver = !strcmp(agent_kind(ctx[t].a), "solver")   ? ctx[t].a
                            : !strcmp(agent_kind(ctx[t].b), "solver") ? ctx[t].b
                            : (ctx[t].own_solver = agent_create(cfg->exact_solver ? cfg->exact_solver : "solver", r, aerr));
            if (!ctx[t].solver || strcmp(agent_kind(ctx[t].solver), "solver")) {
                set_err(err, "the solver for the exact values: %s", aerr);
                goto out;
            }
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
    out->seconds = seconds_between(&t0, &t1);
    long total_sows = 0;
    for (int g = 0; g < cfg->games; g++) {
        int a_seat = g % 2 ? KALAH_NORTH : KALAH_SOUTH;
        int res = a_seat == KALAH_SOUTH ? run.outcome[g] : -run.outcome[g];
        match_tally *ts[2] = {&out->all, &out->seat[a_seat]};
        for (int i = 0; i < 2; i++) {
            ts[i]->wins += res > 0;
            ts[i]->draws += res == 0;
            ts[i]->losses += res < 0;
        }
        total_sows += run.sows[g];
        out->seat_seconds[a_seat] += run.game_s[g] / (cfg->games / 2);
        if (run.records) {
            record_game *rg = &run.records[g];
            int bad = a_seat == KALAH_SOUTH
                          ? set_tags(rg, spec_a, spec_b, cfg->name_a, cfg->name_b, cfg->event, g + 1)
                          : set_tags(rg, spec_b, spec_a, cfg->name_b, cfg->name_a, cfg->event, g + 1);
            if (bad || record_game_finish(rg, NULL)) {
                rc = MATCH_ENOMEM;
                set_err(err, "out of memory");
                goto out;
            }
        }
    }
    out->avg_sows = (double)total_sows / cfg->games;
    match_result_stats(out);
    if (run.exact) {
        if (perfect_by_seat(run.margin, run.exact, cfg->games, out->perfect)) {
            rc = MATCH_ENOMEM;
            set_err(err, "out of memory");
            goto out;
        }
        out->have_exact = 1;
        out->exact_seconds = run.exact_s / run.pairs;
        out->exact = run.exact;
        run.exact = NULL;
    }
    out->margin = run.margin;
    run.margin = NULL;
    if (run.records) {
        out->records = run.records;
        out->n_records = cfg->games;
        run.records = NULL;
    }
    rc = MATCH_OK;
out:
    if (ctx)
        for (int t = 0; t < nt; t++) {
            agent_free(ctx[t].a);
            agent_free(ctx[t].b);
            agent_free(ctx[t].own_solver);
        }
    free(ctx);
    free(tid);
    free(run.outcome);
    free(run.sows);
    free(run.margin);
    free(run.game_s);
    free(run.exact);
    if (run.records)
        record_games_free(run.records, cfg->games);
    return rc;
}
