/* srv_solve.c — exact values of every move of a small position (see srv_solve.h). */
#include "serve/srv_solve.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "eval/game_search.h"

static cJSON *refuse(cJSON *o, const char *reason)
{
    cJSON_AddBoolToObject(o, "solved", 0);
    cJSON_AddStringToObject(o, "reason", reason);
    cJSON_AddNullToObject(o, "values");
    cJSON_AddArrayToObject(o, "best");
    return o;
}

/* The exact final margin for the mover after slot k, or 0 with *known = 0 when not solved in budget (by
 * the game's exact solver: eval/game_search.h, Kalah's own alpha-beta for Kalah). */
static int move_value(const srv_rules *r, const srv_pos *p, int k, uint64_t budget, int *known, uint64_t *nodes,
                      double *secs)
{
    srv_pos c = *p;
    int mover = p->to_move;
    srv_play(r, &c, k, NULL);
    *known = 0;
    if (c.over) {
        int d = game_margin(r->g, &c);
        *known = 1;
        return mover ? -d : d;
    }
    gs_solution sol = {0};
    struct timespec t0, t1;
    char err[GAME_ERRLEN];
    int v = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (gs_solve(r->g, &c, budget, NULL, &sol, err) == GAME_OK) {
        v = sol.value;
        *known = 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *nodes += sol.nodes;
    *secs += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return c.to_move == mover ? v : -v;
}

cJSON *srv_solve_moves(const srv_rules *r, const srv_pos *p, int max_seeds, uint64_t nodes)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "max_seeds", max_seeds);
    cJSON_AddNumberToObject(o, "budget", (double)nodes);
    if (r->players != 2 || !game_has_margin(r->g))
        return refuse(o, "no exact solver for this game (two-player games with a margin only)");
    if (p->over)
        return refuse(o, "the game is over");
    int in_pits = srv_pit_seeds(r, p);
    if (in_pits > max_seeds) {
        char why[96];
        snprintf(why, sizeof why, "%d seeds in the pits; the solver runs from %d", in_pits, max_seeds);
        return refuse(o, why);
    }
    unsigned legal = srv_legal(r, p);
    int n_legal = __builtin_popcount(legal), all = 1, have = 0, best = 0, val[GAME_MAX_MOVES] = {0};
    int known[GAME_MAX_MOVES] = {0};
    uint64_t used = 0;
    double secs = 0;
    for (int k = 0; k < r->pits; k++) {
        if (!(legal & (1u << k)))
            continue;
        val[k] = move_value(r, p, k, nodes / (uint64_t)n_legal + 1, &known[k], &used, &secs);
        if (!known[k])
            all = 0;
        else if (!have || val[k] > best) {
            best = val[k];
            have = 1;
        }
    }
    cJSON_AddBoolToObject(o, "solved", all);
    if (all)
        cJSON_AddNullToObject(o, "reason");
    else
        cJSON_AddStringToObject(o, "reason", "a move was not solved within the node budget");
    cJSON *v = cJSON_AddArrayToObject(o, "values"), *b = cJSON_AddArrayToObject(o, "best");
    char text[8];
    for (int k = 0; k < r->pits; k++) {
        cJSON_AddItemToArray(v, known[k] ? cJSON_CreateNumber(val[k]) : cJSON_CreateNull());
        if (all && known[k] && val[k] == best)
            cJSON_AddItemToArray(b, cJSON_CreateString(srv_move_text(r, p, k, text)));
    }
    cJSON_AddNumberToObject(o, "nodes", (double)used);
    cJSON_AddNumberToObject(o, "seconds", secs);
    return o;
}
