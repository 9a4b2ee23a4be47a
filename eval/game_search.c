/* game_search.c — max^n, paranoid / alpha-beta and exact solve over the game interface (game_search.h). */
#include "eval/game_search.h"
#include "env/errbuf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define set_err(err, ...) errbuf_set(err, GAME_ERRLEN, __VA_ARGS__)
#define NP GAME_MAX_PLAYERS

static void maxn(const game *g, const game_pos *p, int depth, double *value, int *best, uint64_t *nodes)
{
    ++*nodes;
    *best = -1;
    if (p->over || depth == 0) {
        game_estimate(g, p, value);
        return;
    }
    const int me = p->to_move;
    double child[NP];
    for (unsigned legal = game_legal(g, p); legal; legal &= legal - 1) {
        int k = __builtin_ctz(legal), ignored;
        game_pos c = *p;
        game_apply(g, &c, k, NULL);
        maxn(g, &c, depth - 1, child, &ignored, nodes);
        if (*best < 0 || child[me] > value[me]) {
            *best = k;
            memcpy(value, child, sizeof child);
        }
    }
}

/* Alpha-beta on the root player's entry; the line's full vector comes back in `vec`. */
static double paranoid(const game *g, const game_pos *p, int root, int depth, double alpha, double beta,
                       double *vec, int *best, uint64_t *nodes)
{
    ++*nodes;
    *best = -1;
    if (p->over || depth == 0) {
        game_estimate(g, p, vec);
        return vec[root];
    }
    const int maximise = p->to_move == root;
    double bestv = maximise ? -3.0 : 3.0, child[NP];
    for (unsigned legal = game_legal(g, p); legal; legal &= legal - 1) {
        int k = __builtin_ctz(legal), ignored;
        game_pos c = *p;
        game_apply(g, &c, k, NULL);
        double v = paranoid(g, &c, root, depth - 1, alpha, beta, child, &ignored, nodes);
        if (maximise ? v > bestv : v < bestv) {
            bestv = v;
            *best = k;
            memcpy(vec, child, sizeof child);
        }
        if (maximise ? (bestv > alpha && (alpha = bestv) >= beta) : (bestv < beta && (beta = bestv) <= alpha))
            break;
    }
    return bestv;
}

int gs_search(const game *g, const game_pos *p, gs_kind kind, int depth, gs_result *out)
{
    memset(out, 0, sizeof *out);
    out->move = -1;
    if (depth < 1 || depth > 64 || (kind != GS_MAXN && kind != GS_PARANOID))
        return GAME_EINVAL;
    if (p->over) {
        game_values(g, p, out->value);
        return GAME_EOVER;
    }
    if (kind == GS_MAXN)
        maxn(g, p, depth, out->value, &out->move, &out->nodes);
    else
        paranoid(g, p, p->to_move, depth, -3.0, 3.0, out->value, &out->move, &out->nodes);
    return GAME_OK;
}

/* ---- exact solve ---- */

enum { B_EXACT = 0, B_LOWER = 1, B_UPPER = 2 };

typedef struct {
    game_pos key;     /* the whole position (memcmp) */
    int16_t value;    /* for the player to move at key */
    uint8_t bound, used;
} tt_entry;

typedef struct {
    const game *g;
    tt_entry *tt;
    size_t mask;
    uint64_t nodes, budget;
    int out_of_budget;
} solver;

static uint64_t pos_hash(const game_pos *p)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (size_t i = 0; i < sizeof *p; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

/* The margin of p for `player` (player 0's margin, negated for player 1). */
static int margin_for(const solver *s, const game_pos *p, int player)
{
    int m = game_margin(s->g, p);
    return player ? -m : m;
}

/* Negamax alpha-beta: the exact margin for the player to move at p when it lies in (alpha, beta), else a
 * bound on the side of the window it fails to (Knuth & Moore 1975, fail-soft). */
static int solve_rec(solver *s, const game_pos *p, int alpha, int beta, int *best_out)
{
    s->nodes++;
    if (best_out)
        *best_out = -1;
    int db;
    if (game_endgame(s->g, p, &db))
        return p->to_move ? -db : db;
    if (s->nodes > s->budget) {
        s->out_of_budget = 1;
        return 0;
    }
    tt_entry *e = &s->tt[pos_hash(p) & s->mask];
    const int alpha0 = alpha;
    if (!best_out && e->used && !memcmp(&e->key, p, sizeof *p)) {
        if (e->bound == B_EXACT)
            return e->value;
        if (e->bound == B_LOWER && e->value > alpha)
            alpha = e->value;
        if (e->bound == B_UPPER && e->value < beta)
            beta = e->value;
        if (alpha >= beta)
            return e->value;
    }
    int best = INT_MIN, best_move = -1;
    for (unsigned legal = game_legal(s->g, p); legal; legal &= legal - 1) {
        int k = __builtin_ctz(legal);
        game_pos c = *p;
        game_apply(s->g, &c, k, NULL);
        /* A finished child is valued for this node's mover directly (its to_move token means nothing). */
        int v = c.over                       ? margin_for(s, &c, p->to_move)
                : c.to_move == p->to_move ? solve_rec(s, &c, alpha, beta, NULL)
                                          : -solve_rec(s, &c, -beta, -alpha, NULL);
        if (s->out_of_budget)
            return 0;
        if (v > best) {
            best = v;
            best_move = k;
        }
        if (best > alpha)
            alpha = best;
        if (alpha >= beta)
            break;
    }
    e->key = *p;
    e->value = (int16_t)best;
    e->bound = best <= alpha0 ? B_UPPER : best >= beta ? B_LOWER : B_EXACT;
    e->used = 1;
    if (best_out)
        *best_out = best_move;
    return best;
}

int gs_solve(const game *g, const game_pos *p, uint64_t max_nodes, gs_solution *out, char *err)
{
    memset(out, 0, sizeof *out);
    out->move = -1;
    if (game_players(g) != 2 || !game_has_margin(g)) {
        set_err(err, "exact solve needs a two-player game with a margin; %s has %d players%s", game_spec(g),
                game_players(g), game_has_margin(g) ? "" : " and no margin");
        return GAME_EINVAL;
    }
    solver s = {.g = g, .budget = max_nodes ? max_nodes : 50000000ULL, .mask = (1u << 20) - 1};
    if (p->over) {
        out->value = margin_for(&s, p, p->to_move);
        return GAME_OK;
    }
    s.tt = calloc(s.mask + 1, sizeof *s.tt);
    if (!s.tt) {
        set_err(err, "out of memory (transposition table)");
        return GAME_ENOMEM;
    }
    /* The full window gives the exact value and, at the root, a best move (the first of equal ones). */
    const int lim = game_seeds(g) + 1;
    out->value = solve_rec(&s, p, -lim, lim, &out->move);
    out->nodes = s.nodes;
    free(s.tt);
    if (s.out_of_budget) {
        set_err(err, "too large to solve exactly: more than %llu positions (%s)", (unsigned long long)s.budget,
                game_spec(g));
        return GAME_EINVAL;
    }
    return GAME_OK;
}
