/* srv_solve.c — exact values of every move of a small Kalah position (see srv_solve.h). */
#include "serve/srv_solve.h"

#include <stdio.h>

#include "eval/alphabeta.h"

/* 4 MiB of table per call: solving positions of up to ~20 seeds needs no more, and a call allocates it
 * afresh so concurrent analyses share nothing. */
#define SOLVE_TT_MB 4

static cJSON *refuse(cJSON *o, const char *reason)
{
    cJSON_AddBoolToObject(o, "solved", 0);
    cJSON_AddStringToObject(o, "reason", reason);
    cJSON_AddNullToObject(o, "values");
    cJSON_AddArrayToObject(o, "best");
    return o;
}

cJSON *srv_solve_moves(const srv_rules *r, const srv_pos *p, int max_seeds, uint64_t nodes)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "max_seeds", max_seeds);
    cJSON_AddNumberToObject(o, "budget", (double)nodes);
    if (r->kind != SRV_GAME_KALAH)
        return refuse(o, "no exact solver for this game");
    const kalah_rules *kr = &r->k;
    const kalah_pos *kp = &p->k;
    if (kp->over)
        return refuse(o, "the game is over");
    int in_pits = 0, m = kr->pits;
    for (int i = 0; i < 2 * m + 2; i++)
        if (i != m && i != 2 * m + 1)
            in_pits += kp->cell[i];
    if (in_pits > max_seeds) {
        char why[96];
        snprintf(why, sizeof why, "%d seeds in the pits; the solver runs from %d", in_pits, max_seeds);
        return refuse(o, why);
    }
    ab_search *s = ab_create(kr, SOLVE_TT_MB, NULL);
    if (!s)
        return refuse(o, "out of memory for the solver");
    unsigned legal = kalah_legal(kr, kp);
    int n_legal = __builtin_popcount(legal), all = 1, have = 0, best = 0, val[KALAH_MAX_PITS] = {0};
    int known[KALAH_MAX_PITS] = {0};
    uint64_t used = 0;
    double secs = 0;
    for (int k = 0; k < m; k++) {
        if (!(legal & (1u << k)))
            continue;
        kalah_pos c = *kp;
        kalah_play(kr, &c, k, NULL);
        int mover = kp->side;
        if (c.over) {
            int d = kalah_margin(kr, &c);
            val[k] = mover ? -d : d;
            known[k] = 1;
        } else {
            ab_limits lim = {0};
            lim.exact = 1;
            lim.nodes = nodes / (uint64_t)n_legal + 1;
            ab_result res = {0};
            if (ab_think(s, &c, &lim, &res) == AB_OK && res.exact) {
                val[k] = c.side == mover ? res.value : -res.value;
                known[k] = 1;
            }
            used += res.nodes;
            secs += res.seconds;
        }
        if (!known[k])
            all = 0;
        else if (!have || val[k] > best) {
            best = val[k];
            have = 1;
        }
    }
    ab_free(s);
    cJSON_AddBoolToObject(o, "solved", all);
    if (all)
        cJSON_AddNullToObject(o, "reason");
    else
        cJSON_AddStringToObject(o, "reason", "a move was not solved within the node budget");
    cJSON *v = cJSON_AddArrayToObject(o, "values"), *b = cJSON_AddArrayToObject(o, "best");
    for (int k = 0; k < m; k++) {
        cJSON_AddItemToArray(v, known[k] ? cJSON_CreateNumber(val[k]) : cJSON_CreateNull());
        if (all && known[k] && val[k] == best) {
            char l[2] = {kalah_move_letter(kp->side, k), 0};
            cJSON_AddItemToArray(b, cJSON_CreateString(l));
        }
    }
    cJSON_AddNumberToObject(o, "nodes", (double)used);
    cJSON_AddNumberToObject(o, "seconds", secs);
    return o;
}
