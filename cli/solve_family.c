/* solve_family.c — `sowzero solve --rules congklak:...|oware:...`: the exact solver of eval/family_search.h
 * on the games that share Kalah's position (DESIGN.md §1.3, §1.4, §3.5); every other registered two-player
 * game with a margin through the generic gs_solve (eval/game_search.h); and solve's one printer of a
 * result, for Kalah's path too. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/solve_family.h"
#include "env/congklak.h"
#include "env/game.h"
#include "env/oware.h"
#include "eval/family_search.h"
#include "eval/game_search.h"

#define CMD "solve"

/* The generic path (eval/game_search.h, gs_solve): two-player games with a margin; every best move by
 * solving each child. Small boards only (gs_solve's node budget). Returns the exit status. */
static int solve_generic(const game *g, const char *pos_text, long sows, int json)
{
    char err[GAME_ERRLEN], rbuf[GAME_SPEC_MAX], pbuf[GAME_POS_STR];
    game_pos p;
    if (!pos_text)
        game_start(g, &p);
    else if (game_pos_parse(g, pos_text, &p, err) != GAME_OK) {
        cli_error(CMD, "--position '%s': %s", pos_text, err);
        return 2;
    }
    if (game_players(g) != 2 || !game_has_margin(g)) {
        cli_error(CMD, "--rules '%s': solve needs a two-player game with a final margin", game_spec(g));
        return 2;
    }
    p.ply = (uint16_t)sows;
    gs_solution root, child;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (gs_solve(g, &p, 0, &root, err) != GAME_OK) {
        cli_error(CMD, "%s", err);
        return 1;
    }
    unsigned best = 0;
    uint64_t nodes = root.nodes;
    for (unsigned legal = game_legal(g, &p); legal; legal &= legal - 1) {
        int k = __builtin_ctz(legal);
        game_pos q = p;
        game_apply(g, &q, k, NULL);
        if (gs_solve(g, &q, 0, &child, err) != GAME_OK) {
            cli_error(CMD, "%s", err);
            return 1;
        }
        nodes += child.nodes;
        int v = q.over ? (p.to_move ? -game_margin(g, &q) : game_margin(g, &q))
                : q.to_move == p.to_move ? child.value : -child.value;
        best |= (unsigned)(v == root.value) << k;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    snprintf(rbuf, sizeof rbuf, "%s", game_spec(g));
    game_pos_format(g, &p, pbuf, sizeof pbuf);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    solve_report rep = {.value = root.value, .best_mask = best, .side = p.to_move, .pits = game_moves(g),
                        .nodes = nodes, .seconds = secs, .rules = rbuf, .position = pbuf, .over = p.over,
                        .endgame_seconds = -1};
    return solve_print(&rep, json);
}

int solve_family(const char *spec, const char *pos_text, long tt_mb, long sows, int json)
{
    char err[GAME_ERRLEN];
    game *gi = game_create(spec, err);
    if (!gi) {
        cli_error(CMD, "--rules '%s': %s", spec, err);
        return 2;
    }
    /* The game interface parsed the rules; the solver works on the game's own rules struct and
     * kalah_pos, which game_rules hands out for these two kinds. */
    twoside_game g;
    kalah_pos p;
    int rc;
    char rbuf[GAME_SPEC_MAX], pbuf[GAME_POS_STR];
    if (!strcmp(game_name(gi), "congklak")) {
        const congklak_rules *r = game_rules(gi);
        g = congklak_game(r);
        rc = pos_text ? congklak_pos_parse(pos_text, r, &p, err) : (congklak_start(r, &p), KALAH_OK);
    } else if (!strcmp(game_name(gi), "oware")) {
        const oware_rules *r = game_rules(gi);
        g = oware_game(r);
        rc = pos_text ? oware_pos_parse(pos_text, r, &p, err) : (oware_start(r, &p), KALAH_OK);
    } else { /* any other registered game: the generic exact solve of the game interface */
        rc = solve_generic(gi, pos_text, sows, json);
        game_free(gi);
        return rc;
    }
    if (rc != KALAH_OK) {
        cli_error(CMD, "--position '%s': %s", pos_text, err);
        game_free(gi);
        return 2;
    }
    if (g.max_sows > 0 && sows >= g.max_sows && !p.over) {
        cli_error(CMD, "--sows %ld: with max_sows=%d the game ended at ply %d, yet the position is not finished",
                  sows, g.max_sows, g.max_sows);
        game_free(gi);
        return 2;
    }
    p.sows = (uint16_t)sows;
    snprintf(rbuf, sizeof rbuf, "%s", game_spec(gi));
    kalah_pos_format(&(kalah_rules){.pits = g.pits}, &p, pbuf, sizeof pbuf);

    fs_solver *s = fs_create(&g, (size_t)tt_mb, err);
    if (!s) {
        cli_error(CMD, "%s", err);
        game_free(gi);
        return 1;
    }
    fs_result res;
    rc = fs_solve(s, &p, 0, &res, err);
    fs_free(s);
    game_free(gi);
    if (rc != FS_OK && rc != FS_EOVER) {
        cli_error(CMD, "%s", err);
        return 1;
    }
    solve_report rep = {.value = res.value, .best_mask = res.best_mask, .side = p.side, .pits = g.pits,
                        .nodes = res.nodes, .seconds = res.seconds, .rules = rbuf, .position = pbuf,
                        .over = rc == FS_EOVER, .endgame_seconds = -1};
    return solve_print(&rep, json);
}

int solve_print(const solve_report *r, int json)
{
    const char *who = r->side ? "North" : "South";
    char best[3 * KALAH_MAX_PITS + 1] = "";
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "value", r->value);
        cJSON *arr = cJSON_AddArrayToObject(o, "best");
        for (int k = 0; k < r->pits; k++)
            if (r->best_mask >> k & 1) {
                char l[2] = {kalah_move_letter(r->side, k), 0};
                cJSON_AddItemToArray(arr, cJSON_CreateString(l));
            }
        cJSON_AddNumberToObject(o, "nodes", (double)r->nodes);
        cJSON_AddNumberToObject(o, "seconds", r->seconds);
        cJSON_AddStringToObject(o, "rules", r->rules);
        cJSON_AddStringToObject(o, "position", r->position);
        cJSON_AddBoolToObject(o, "over", r->over);
        if (r->endgame_seconds >= 0)
            cJSON_AddNumberToObject(o, "endgame_seconds", r->endgame_seconds);
        return cli_print_json(o);
    }
    for (int k = 0; k < r->pits; k++)
        if (r->best_mask >> k & 1) {
            size_t n = strlen(best);
            snprintf(best + n, sizeof best - n, "%s%c", n ? " " : "", kalah_move_letter(r->side, k));
        }
    printf("rules %s\nposition %s\n", r->rules, r->position);
    if (r->over)
        printf("the game is over: final margin %+d for %s\n", r->value, who);
    else
        printf("value %+d for %s (final margin under perfect play)\nbest %s\n", r->value, who, best);
    printf("nodes %llu\nseconds %.3f\n", (unsigned long long)r->nodes, r->seconds);
    if (r->endgame)
        printf("endgame database build %.3f s\n", r->endgame_seconds);
    return 0;
}
