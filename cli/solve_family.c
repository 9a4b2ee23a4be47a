/* solve_family.c — `sowzero solve --rules congklak:...|oware:...`: the exact solver of eval/family_search.h
 * on the games that share Kalah's position (DESIGN.md §1.3, §1.4, §3.5); and solve's one printer of a
 * result, for Kalah's path too. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/solve_family.h"
#include "env/congklak.h"
#include "env/game.h"
#include "env/oware.h"
#include "eval/family_search.h"

#define CMD "solve"

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
    } else {
        cli_error(CMD, "no exact solver for game '%s' (solve knows kalah, congklak and oware)", game_name(gi));
        game_free(gi);
        return 2;
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
