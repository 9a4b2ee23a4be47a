/* agent_search.c — Kalah's search-based agent kinds: ab and the solver (eval/alphabeta.h). */
#include "eval/agent_impl.h"
#include "env/errbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "eval/alphabeta.h"
#include "eval/tbase.h"

#define set_err(err, ...) errbuf_set(err, AGENT_ERRLEN, __VA_ARGS__)

/* ---- ab ---- */

_Static_assert(GAME_AGENT_MAX_PV == AB_MAX_PV, "game_agent_stats holds the whole principal variation");

/* ab and solver: the search's value (seed margin), depth, nodes and principal variation. */
static void fill_pv(agent *a, const ab_result *res)
{
    game_agent_stats *st = &a->stats;
    st->have_value = st->have_pv = 1;
    st->value = (float)res->value;
    st->exact = res->exact;
    st->depth = res->depth;
    st->nodes = res->nodes;
    st->pv_len = res->pv_len;
    memcpy(st->pv, res->pv, sizeof st->pv);
}

typedef struct {
    ab_search *s;
    ab_limits lim;
    int dirty;   /* the table holds entries (clearing an untouched table would only cost time) */
} ab_impl;

static int ab_choose(agent *a, const kalah_pos *p, int *move_out)
{
    ab_impl *x = a->impl;
    ab_result res;
    ab_limits lim = x->lim;
    if (a->time_ms > 0 && (!lim.ms || a->time_ms < lim.ms))
        lim.ms = a->time_ms; /* agent_set_time: the smaller of the two budgets */
    x->dirty = 1;
    ab_set_abort(x->s, a->abort);
    int rc = ab_think(x->s, p, &lim, &res);
    if (rc != AB_OK) {
        set_err(a->err, "alpha-beta search failed (code %d)", rc);
        return AGENT_EFAIL;
    }
    *move_out = res.move;
    fill_pv(a, &res);
    return AGENT_OK;
}

static void ab_new_game(agent *a, const kalah_pos *start)
{
    (void)start;
    ab_impl *x = a->impl;
    /* A fresh table per game keeps a game independent of the games this instance played before. */
    if (x->dirty)
        ab_clear(x->s);
    x->dirty = 0;
    x->lim.seed = a->seed ? a->game_seed | 1 : 0;
}

static void ab_destroy(agent *a)
{
    ab_impl *x = a->impl;
    if (x)
        ab_free(x->s);
    free(x);
}

static const agent_ops ab_ops = {ab_choose, ab_new_game, NULL, ab_destroy};

int agent_init_ab(agent *a, agent_args *args, char *err)
{
    long long depth = 0, nodes = 0, ms = 0, tt_mb = 4;
    if (agent_arg_long(args, "depth", 1, AB_MAX_DEPTH, &depth, err) ||
        agent_arg_long(args, "nodes", 1, 1000000000000000LL, &nodes, err) ||
        agent_arg_long(args, "ms", 1, 1000000000LL, &ms, err) || agent_arg_long(args, "tt_mb", 1, 4096, &tt_mb, err))
        return -1;
    if (!depth && !nodes && !ms)
        depth = 8;
    ab_impl *x = calloc(1, sizeof *x);
    if (!x) {
        set_err(err, "out of memory");
        return -1;
    }
    a->ops = &ab_ops;
    a->impl = x;
    x->lim.depth = depth ? (int)depth : AB_MAX_DEPTH;
    x->lim.nodes = (uint64_t)nodes;
    x->lim.ms = ms;
    char kerr[KALAH_ERRLEN];
    if (!(x->s = ab_create(&a->rules, (size_t)tt_mb, kerr))) {
        set_err(err, "agent '%s': %s", a->spec, kerr);
        return -1;
    }
    return 0;
}

/* ---- solver: exact play with a table and endgame database kept for the agent's life ---- */

typedef struct {
    ab_search *s;
    tb_ref *tb;    /* the database, shared through the process-wide cache (eval/tbase.h) */
    int endgame;   /* seeds of the database still to build at the first move (0: none or built) */
    int endgame_auto; /* the default size: never more seeds than the first position has in its pits */
} solver_impl;

/* Exact margin for the mover at p after relative pit k (negamax sign: kept across an extra turn). */
static int solver_move_value(agent *a, solver_impl *x, const kalah_pos *p, int k, int *value)
{
    kalah_pos q = *p;
    kalah_sow(&a->rules, &q, k, NULL);
    ab_limits lim = {.exact = 1};
    ab_result res;
    int rc = ab_think(x->s, &q, &lim, &res);
    if (rc != AB_OK && rc != AB_EOVER)
        return rc;
    *value = q.side == p->side ? res.value : -res.value;
    return AB_OK;
}

/* Attaches the database of n seeds: one for every solver and az agent of these rules in the process
 * (eval/tbase.h); a bigger one already built serves too (the values are exact either way). AGENT_OK, or
 * with a message in err: SZ_EFORMAT for a damaged tablebase file or one for other rules (bad input, as a
 * bad spec), AGENT_ENOMEM otherwise. */
static int solver_attach_endgame(agent *a, solver_impl *x, int n, char *err)
{
    char kerr[KALAH_ERRLEN];
    tb_info info;
    if (!(x->tb = tb_acquire_info(&a->rules, n, 1, 0, &info, kerr)) ||
        ab_borrow_endgame(x->s, tb_db(x->tb), kerr) != AB_OK) {
        set_err(err, "agent '%s': endgame=%d: %s", a->spec, n, kerr);
        return !x->tb && info.bad_file ? SZ_EFORMAT : AGENT_ENOMEM;
    }
    return AGENT_OK;
}

static int solver_choose(agent *a, const kalah_pos *p, int *move_out)
{
    solver_impl *x = a->impl;
    if (x->endgame) {
        int n = x->endgame;
        x->endgame = 0;
        /* A database larger than the position needs costs seconds to build and saves nothing: one query
         * from a late position (`sowzero move solver`) would otherwise wait for all of it. */
        if (x->endgame_auto) {
            int in_pits = 0;
            for (int side = 0; side < 2; side++)
                for (int k = 0; k < a->rules.pits; k++)
                    in_pits += p->cell[kalah_pit_index(&a->rules, side, k)];
            n = n < in_pits ? n : in_pits;
        }
        int rc = solver_attach_endgame(a, x, n, a->err);
        if (rc != AGENT_OK)
            return rc;
    }
    ab_limits lim = {.exact = 1};
    ab_result res;
    ab_set_abort(x->s, a->abort);
    int rc = ab_think(x->s, p, &lim, &res);
    if (agent_aborted(a))
        return AGENT_ESTOPPED;
    if (rc != AB_OK || !res.exact || !res.best_mask) {
        set_err(a->err, "the solve failed (code %d)", rc);
        return AGENT_EFAIL;
    }
    /* Uniform over every optimal move: the j-th set bit of best_mask. */
    unsigned j = agent_below(a, (unsigned)__builtin_popcount(res.best_mask));
    for (int k = 0; k < a->rules.pits; k++)
        if (res.best_mask >> k & 1 && j-- == 0)
            *move_out = k;
    if (res.pv_len > 0 && res.pv[0] != *move_out) {
        /* The principal variation starts with the move played: that move, then the line of the position
         * it leads to (solved already: its value is in the table, so this costs two probes). */
        kalah_pos ch = *p;
        kalah_sow(&a->rules, &ch, *move_out, NULL);
        ab_result cres;
        res.pv[0] = *move_out;
        res.pv_len = 1;
        if (!ch.over && ab_think(x->s, &ch, &lim, &cres) == AB_OK)
            for (int i = 0; i < cres.pv_len && res.pv_len < AB_MAX_PV; i++)
                res.pv[res.pv_len++] = cres.pv[i];
    }
    fill_pv(a, &res);
    if (a->detail) {
        unsigned legal = kalah_legal(&a->rules, p);
        a->stats.have_values = 1;
        for (int k = 0; k < a->rules.pits; k++) {
            a->stats.values[k] = GAME_AGENT_NO_VALUE;
            if (legal >> k & 1 && (rc = solver_move_value(a, x, p, k, &a->stats.values[k])) != AB_OK) {
                set_err(a->err, "the solve after move %c failed (code %d)", kalah_move_letter(p->side, k), rc);
                return AGENT_EFAIL;
            }
        }
    }
    return AGENT_OK;
}

static void solver_destroy(agent *a)
{
    solver_impl *x = a->impl;
    if (x) {
        ab_free(x->s);
        tb_release(x->tb);
    }
    free(x);
}

/* No new_game: the table and database stay (exact values do not depend on them), the RNG is reseeded. */
static const agent_ops solver_ops = {solver_choose, NULL, NULL, solver_destroy};

/* The most seeds whose database (C(N + 2m, 2m) bytes, eval/endgame.h) fits in 64 MiB, at most the total. */
static int solver_default_endgame(const kalah_rules *r)
{
    int m2 = 2 * r->pits, total = m2 * r->seeds, n = 0;
    for (int cand = 1; cand <= total && cand <= 127; cand++) {
        double c = 1; /* C(cand + m2, m2), exactly while it stays below 2^53 */
        for (int i = 1; i <= m2; i++)
            c = c * (cand + i) / i;
        if (c > 64.0 * 1024 * 1024)
            break;
        n = cand;
    }
    return n;
}

int agent_init_solver(agent *a, agent_args *args, char *err)
{
    long long tt_mb = 256, endgame = -1;
    if (agent_arg_long(args, "tt_mb", 1, 65536, &tt_mb, err) || agent_arg_long(args, "endgame", 0, 127, &endgame, err))
        return -1;
    if (endgame > 0 && a->rules.max_sows > 0) {
        set_err(err, "agent '%s': endgame needs rules without a sow limit (max_sows=%d)", a->spec, a->rules.max_sows);
        return -1;
    }
    solver_impl *x = calloc(1, sizeof *x);
    if (!x) {
        set_err(err, "out of memory");
        return -1;
    }
    a->ops = &solver_ops;
    a->impl = x;
    x->endgame = endgame >= 0 ? (int)endgame : a->rules.max_sows > 0 ? 0 : solver_default_endgame(&a->rules);
    x->endgame_auto = endgame < 0;
    char kerr[KALAH_ERRLEN];
    if (!(x->s = ab_create(&a->rules, (size_t)tt_mb, kerr))) {
        set_err(err, "agent '%s': %s", a->spec, kerr);
        return -1;
    }
    /* A size the spec names is attached now, so that a damaged or unfitting tablebase file is refused
     * with the spec, before any game; the default size waits for the first position (its seeds cap it). */
    if (x->endgame && !x->endgame_auto) {
        int n = x->endgame;
        x->endgame = 0;
        if (solver_attach_endgame(a, x, n, err) != AGENT_OK)
            return -1;
    }
    return 0;
}
