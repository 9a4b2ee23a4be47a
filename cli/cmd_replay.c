/* sowzero replay — apply a move sequence and show every step (docs/design.md §4). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "env/game.h"
#include "eval/record.h"

static void help(void)
{
    puts("usage: sowzero replay [--rules SPEC] [--position POS] [--json] MOVE...\n"
         "       sowzero replay --pgn FILE [--game N] [--json]\n"
         "Applies the moves in order, in the game's notation (Kalah: South a..f, North A..F; an extra turn is\n"
         "simply the next move by the same player; basico: the mover's letters a.. or 'resign') and prints\n"
         "each new position, extra turns, captures and relays, then the stores and result. An illegal move is\n"
         "an error naming its number; nothing after it is applied.\n"
         "  --rules SPEC     the game and its rules (default: kalah)\n"
         "  --position POS   start position string (default: the start)\n"
         "  --pgn FILE       replay a game of a record file of any game (eval/record.h: rules, start and\n"
         "                   moves from the record), exactly as replaying its moves with --rules would\n"
         "  --game N         which game of the file (default 1)\n"
         "  --json           print {\"positions\",\"extra_turn\",\"captured\",\"relays\",\"finished\",\"over\",\n"
         "                   \"places\"}, and where the game keeps two scores \"stores\" and \"winner\"");
}

/* Every game through the game interface: moves in the game's notation (game_move_parse), or
 * "resign" where the game has it. JSON: positions, extra_turn, captured, relays, finished (the mover left
 * the circuit), over, places (per player once over, from the values: 1 + the players with a better one;
 * 0 before), and where the game keeps scores (game_score) stores [player 0, player 1] and winner ("S",
 * "N", "draw", null). */
static int replay_game(const char *spec, const char *pos_text, int json, int nmoves, char **moves)
{
    char err[GAME_ERRLEN], buf[GAME_POS_STR];
    game *g = game_create(spec, err);
    if (!g) {
        cli_error("replay", "--rules '%s': %s", spec, err);
        return 2;
    }
    game_pos p;
    if (!pos_text)
        game_start(g, &p);
    else if (game_pos_parse(g, pos_text, &p, err) != GAME_OK) {
        cli_error("replay", "--position '%s': %s", pos_text, err);
        game_free(g);
        return 2;
    }
    int *slot = calloc((size_t)nmoves + 1, sizeof *slot); /* -1: resign */
    game_pos q = p;
    for (int i = 0; slot && i < nmoves; i++) {
        int rc = q.over ? GAME_EOVER : GAME_OK;
        if (rc == GAME_OK && !strcmp(moves[i], "resign")) {
            slot[i] = -1;
            if ((rc = game_resign(g, &q)) == GAME_EINVAL)
                snprintf(err, sizeof err, "%s has no resignation", game_name(g));
        } else if (rc == GAME_OK) {
            slot[i] = game_move_parse(g, &q, moves[i], err);
            rc = slot[i] < 0 ? slot[i] : game_apply(g, &q, slot[i], NULL);
            if (rc == GAME_EILLEGAL && slot[i] >= 0)
                snprintf(err, sizeof err, "the pit is empty or the move is not allowed");
        }
        if (rc != GAME_OK) {
            cli_error("replay", "move %d ('%s'): %s", i + 1, moves[i],
                      rc == GAME_EOVER ? "the game is already over" : err);
            free(slot);
            game_free(g);
            return 2;
        }
    }
    if (!slot) {
        cli_error("replay", "out of memory");
        game_free(g);
        return 1;
    }
    const int np = game_players(g);
    cJSON *o = json ? cJSON_CreateObject() : NULL, *positions = NULL, *extra = NULL, *captured = NULL,
          *relays = NULL, *finished = NULL;
    if (json) {
        positions = cJSON_AddArrayToObject(o, "positions");
        extra = cJSON_AddArrayToObject(o, "extra_turn");
        captured = cJSON_AddArrayToObject(o, "captured");
        relays = cJSON_AddArrayToObject(o, "relays");
        finished = cJSON_AddArrayToObject(o, "finished");
    } else {
        printf("start %s\n", game_pos_format(g, &p, buf, sizeof buf));
    }
    for (int i = 0; i < nmoves; i++) {
        game_step st = {0};
        if (slot[i] < 0)
            game_resign(g, &p);
        else
            game_apply(g, &p, slot[i], &st);
        game_pos_format(g, &p, buf, sizeof buf);
        if (json) {
            cJSON_AddItemToArray(positions, cJSON_CreateString(buf));
            cJSON_AddItemToArray(extra, cJSON_CreateBool(st.extra_turn));
            cJSON_AddItemToArray(captured, cJSON_CreateNumber(st.captured));
            cJSON_AddItemToArray(relays, cJSON_CreateNumber(st.relays));
            cJSON_AddItemToArray(finished, cJSON_CreateBool(st.finished));
        } else {
            char extra_text[64] = "";
            if (st.captured)
                snprintf(extra_text, sizeof extra_text, "  captures %d", st.captured);
            if (st.relays)
                snprintf(extra_text + strlen(extra_text), sizeof extra_text - strlen(extra_text), "  relays %d",
                         st.relays);
            printf("%3d. %-6s %s%s%s%s\n", i + 1, moves[i], buf, st.extra_turn ? "  extra turn" : "", extra_text,
                   st.finished ? "  finished" : "");
        }
    }
    free(slot);
    double v[GAME_MAX_PLAYERS];
    int place[GAME_MAX_PLAYERS], sc[2];
    int has_scores = np == 2 && game_score(g, &p, 0, &sc[0]) && game_score(g, &p, 1, &sc[1]);
    game_values(g, &p, v);
    for (int a = 0; a < np; a++) {
        place[a] = p.over ? 1 : 0;
        for (int b = 0; b < np && p.over; b++)
            place[a] += v[b] > v[a];
    }
    const char *winner = !p.over ? NULL : v[0] > v[1] ? "S" : v[0] < v[1] ? "N" : "draw";
    char seat[GAME_MAX_PLAYERS][24]; /* the seats' names in the text: South/North for the two-row games */
    for (int a = 0; a < np; a++)
        game_seat_name(g, a, seat[a], sizeof seat[a]);
    const int named = np == 2 && game_get_kind(g)->seat_names;
    game_free(g);
    if (json) {
        cJSON_AddBoolToObject(o, "over", p.over);
        cJSON *places = cJSON_AddArrayToObject(o, "places");
        for (int a = 0; a < np; a++)
            cJSON_AddItemToArray(places, cJSON_CreateNumber(place[a]));
        if (has_scores) {
            cJSON *stores = cJSON_AddArrayToObject(o, "stores");
            cJSON_AddItemToArray(stores, cJSON_CreateNumber(sc[0]));
            cJSON_AddItemToArray(stores, cJSON_CreateNumber(sc[1]));
            if (winner)
                cJSON_AddStringToObject(o, "winner", winner);
            else
                cJSON_AddNullToObject(o, "winner");
        }
        return cli_print_json(o);
    }
    if (has_scores && named) /* as Kalah's text says it (the fields of the notation's stores) */
        printf("stores S %d  N %d\n", sc[0], sc[1]);
    else if (has_scores)
        printf("stores %d - %d\n", sc[0], sc[1]);
    if (p.over && named) {
        printf("game over: %s\n", place[0] < place[1] ? "South wins" : place[1] < place[0] ? "North wins" : "draw");
    } else if (p.over) {
        printf("game over: places");
        for (int a = 0; a < np; a++)
            printf(" %d:%d", a, place[a]);
        putchar('\n');
    } else {
        printf("%s to move\n", seat[p.to_move]);
    }
    return 0;
}

/* Replays game number `game_text` (1-based) of a record file through the ordinary move path, so a
 * record shows exactly what typing its moves would. The reader has already validated every move. */
static int replay_record(const char *path, const char *game_text, int json)
{
    long want;
    if (!cli_long("replay", "--game", game_text, 1, 1L << 30, &want))
        return 2;
    char err[RECORD_ERRLEN];
    record_reader *rd = record_reader_open(path, err);
    if (!rd) {
        cli_error("replay", "%s", err);
        return 2;
    }
    record_game g = {0};
    int rc = RECORD_OK;
    long have = 0;
    for (long i = 1; i <= want; i++) {
        record_game_clear(&g);
        if ((rc = record_read(rd, &g, err)) != RECORD_OK)
            break;
        have = i;
    }
    record_reader_free(rd);
    /* A missing game or a malformed record is bad input (exit status 2). */
    if (rc == RECORD_EOF) {
        if (have)
            cli_error("replay", "%s: --game %ld: the file has %ld game%s", path, want, have, have == 1 ? "" : "s");
        else
            cli_error("replay", "%s: holds no game record", path);
        return 2;
    }
    if (rc != RECORD_OK) {
        cli_error("replay", "%s", err);
        return rc == RECORD_ENOMEM ? 1 : 2;
    }
    if (g.result_only) {
        char res[16];
        cli_error("replay", "%s:%d: game %ld is a result-only record (%s, no moves to replay)", path, g.line, want,
                  record_result_text(&g, res, sizeof res));
        record_game_clear(&g);
        return 2;
    }
    /* Every game alike, through the game interface (the reader fills it for Kalah records too). */
    char rbuf[GAME_SPEC_MAX], pbuf[GAME_POS_STR];
    snprintf(rbuf, sizeof rbuf, "%s", game_spec(g.game));
    game_pos_format(g.game, &g.gstart, pbuf, sizeof pbuf);
    /* argv-style list: "replay", options, then the moves (8 bytes each). */
    char **args = calloc((size_t)g.n_moves + 6, sizeof *args), *letters = malloc((size_t)g.n_moves * 8 + 1);
    if (!args || !letters) {
        free(args);
        free(letters);
        record_game_clear(&g);
        cli_error("replay", "out of memory");
        return 1;
    }
    int n = 0;
    args[n++] = "replay";
    args[n++] = "--rules";
    args[n++] = rbuf;
    args[n++] = "--position";
    args[n++] = pbuf;
    if (json)
        args[n++] = "--json";
    game_pos p = g.gstart;
    for (int i = 0; i < g.n_moves; i++) {
        args[n++] = game_move_format(g.game, &p, g.moves[i], letters + 8 * i, 8);
        game_apply(g.game, &p, g.moves[i], NULL);
    }
    record_game_clear(&g);
    rc = cmd_replay(n, args);
    free(args);
    free(letters);
    return rc;
}

int cmd_replay(int argc, char **argv)
{
    static const struct option opts[] = {{"rules", required_argument, 0, 'r'},
                                         {"pgn", required_argument, 0, 'g'},
                                         {"game", required_argument, 0, 'n'},
                                         {"position", required_argument, 0, 'p'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *rules_spec = NULL, *pos_text = NULL, *pgn = NULL, *game_text = "1";
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rules_spec = optarg; break;
        case 'p': pos_text = optarg; break;
        case 'g': pgn = optarg; break;
        case 'n': game_text = optarg; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error("replay");
        }
    }
    if (pgn) {
        if (rules_spec || pos_text || optind < argc) {
            cli_error("replay", "--pgn takes the rules, start and moves from the record: no --rules, "
                                "--position or moves with it");
            return 2;
        }
        return replay_record(pgn, game_text, json);
    }
    return replay_game(rules_spec ? rules_spec : "kalah", pos_text, json, argc - optind, argv + optind);
}
