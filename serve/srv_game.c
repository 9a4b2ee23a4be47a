/* srv_game.c — the served games on the game interface, with seed-by-seed move events (srv_game.h). */
#include "serve/srv_game.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "env/errbuf.h"

#define set_err(err, ...) errbuf_set(err, SRV_ERRLEN, __VA_ARGS__)

int srv_rules_parse(const char *spec, srv_rules *out, char *err)
{
    char e[GAME_ERRLEN];
    memset(out, 0, sizeof *out);
    game *g = game_create(spec, e);
    if (!g) {
        set_err(err, "rules '%s': %s", spec, e);
        return SRV_EINVAL;
    }
    out->g = g;
    out->players = game_players(g);
    out->pits = game_moves(g);
    /* The page draws any game whose kind describes its board (env/game.h, game_layout). */
    if (!game_layout_of(g, &out->lay) || out->lay.rows != out->players || out->lay.pits != out->pits ||
        out->players * (out->pits + 1) > SRV_MAX_CELLS) {
        set_err(err, "rules '%s': the game '%s' describes no board the page can draw (game_kind.layout, "
                "env/game.h)", spec, game_name(g));
        srv_rules_free(out);
        return SRV_EINVAL;
    }
    out->cells = out->players * (out->pits + 1);
    return SRV_OK;
}

void srv_rules_free(srv_rules *r)
{
    game_free(r->g);
    memset(r, 0, sizeof *r);
}

const char *srv_rules_spec(const srv_rules *r) { return game_spec(r->g); }

int srv_store(const srv_rules *r, int player) { return player * (r->pits + 1) + r->pits; }

int srv_cell_live(const srv_rules *r, const srv_pos *p, int cell)
{
    return !(r->lay.flags & GAME_SOW_SKIPS_LEFT_ROWS) || game_in_play(r->g, p, cell / (r->pits + 1));
}

int srv_pit_seeds(const srv_rules *r, const srv_pos *p)
{
    int n = 0;
    for (int i = 0; i < r->cells; i++)
        if (i % (r->pits + 1) != r->pits)
            n += p->cell[i];
    return n;
}

void srv_start(const srv_rules *r, srv_pos *out) { game_start(r->g, out); }
unsigned srv_legal(const srv_rules *r, const srv_pos *p) { return game_legal(r->g, p); }

char *srv_move_text(const srv_rules *r, const srv_pos *p, int k, char *buf) { return game_move_format(r->g, p, k, buf, 8); }

/* The next cell a seed goes to after `idx` in the game's sowing order (its layout flags). */
static int next_cell(const srv_rules *r, const srv_pos *before, int origin, int idx)
{
    const unsigned f = r->lay.flags;
    for (int guard = 0; guard <= r->cells; guard++) {
        idx = (idx + 1) % r->cells;
        const int store = idx % (r->pits + 1) == r->pits;
        if (store && (f & GAME_SOW_SKIPS_STORES))
            continue;
        if (store && (f & GAME_SOW_SKIPS_OPPONENT_STORES) && idx != srv_store(r, before->to_move))
            continue;
        if ((f & GAME_SOW_SKIPS_ORIGIN) && idx == origin)
            continue;
        if ((f & GAME_SOW_SKIPS_LEFT_ROWS) && !srv_cell_live(r, before, idx))
            continue;
        return idx;
    }
    return idx;
}

/* Sows on the copy c[] of the board before the move and records the drops (and relay pick-ups) in ev. */
static void sow_path(const srv_rules *r, const srv_pos *before, srv_event *ev, int *c)
{
    int hand = c[ev->origin], idx = ev->origin, own_store = srv_store(r, ev->mover);
    c[ev->origin] = 0;
    ev->path_len = ev->n_pickups = 0;
    while (hand > 0) {
        if (ev->path_len == SRV_MAX_PATH) {
            ev->path_len = 0;
            return;
        }
        idx = next_cell(r, before, ev->origin, idx);
        c[idx]++;
        hand--;
        ev->path[ev->path_len++] = (unsigned char)idx;
        /* Relay sowing: a run ending in a pit that held seeds before the seed landed picks them all up. */
        if (!hand && (r->lay.flags & GAME_SOW_RELAY) && idx != own_store && c[idx] > 1 &&
            ev->n_pickups < SRV_MAX_PATH / 2) {
            ev->pickup_at[ev->n_pickups] = (short)ev->path_len;
            ev->pickup_cell[ev->n_pickups++] = (unsigned char)idx;
            hand = c[idx];
            c[idx] = 0;
        }
    }
}

/* Applies the capture and the end sweep of the move to c[] and says whether that is the engine's board. */
static int path_checks(const srv_rules *r, const srv_pos *after, srv_event *ev, int *c)
{
    int m = r->pits, store = srv_store(r, ev->mover), last = ev->path_len ? ev->path[ev->path_len - 1] : -1;
    ev->n_capture = 0;
    if (ev->captured && (r->lay.flags & GAME_CAPTURE_OPPOSITE) && last >= 0) {
        int opp = 2 * m - last;
        ev->capture[ev->n_capture++] = (unsigned char)last;
        ev->capture[ev->n_capture++] = (unsigned char)opp;
        c[store] += c[last] + c[opp];
        c[last] = c[opp] = 0;
    }
    if (ev->over && (r->lay.flags & GAME_END_UNSHOWN))
        return 1; /* e.g. Oware's majority, must-feed and max_sows ends: seeds the path does not show */
    if (r->lay.flags & GAME_CAPTURE_BACKWARD) {
        int got = 0;
        for (int i = last; ev->captured && i >= 0 && (i / (m + 1)) != ev->mover && i % (m + 1) != m &&
                           (c[i] == 2 || c[i] == 3) && ev->n_capture < SRV_MAX_CAPTURE;
             i--) {
            ev->capture[ev->n_capture++] = (unsigned char)i;
            got += c[i];
            c[store] += c[i];
            c[i] = 0;
        }
        if (got != ev->captured)
            return 0;
    }
    if (ev->over && (r->lay.flags & GAME_END_SWEEP))
        for (int s = 0; s < r->players; s++)
            for (int k = 0; k < m; k++) {
                int i = s * (m + 1) + k;
                c[srv_store(r, s)] += c[i];
                c[i] = 0;
            }
    for (int i = 0; i < r->cells; i++)
        if (srv_cell_live(r, after, i) && c[i] != after->cell[i])
            return 0;
    return 1;
}

int srv_play(const srv_rules *r, srv_pos *p, int k, srv_event *ev)
{
    if (p->over)
        return SRV_EOVER;
    if (k < 0 || k >= r->pits || !(srv_legal(r, p) & (1u << k)))
        return SRV_EILLEGAL;
    srv_pos before = *p;
    game_step st;
    if (game_apply(r->g, p, k, &st) != GAME_OK)
        return SRV_EILLEGAL;
    if (!ev)
        return SRV_OK;
    memset(ev, 0, offsetof(srv_event, path));
    ev->n_pickups = ev->n_capture = 0;
    ev->mover = before.to_move;
    ev->move = k;
    srv_move_text(r, &before, k, ev->letter);
    ev->origin = ev->mover * (r->pits + 1) + k;
    ev->extra_turn = st.extra_turn;
    ev->relays = st.relays;
    ev->finished = st.finished;
    ev->over = st.over;
    ev->captured = st.captured;
    int c[SRV_MAX_CELLS];
    for (int i = 0; i < r->cells; i++)
        c[i] = before.cell[i];
    sow_path(r, &before, ev, c);
    if (!ev->path_len || !path_checks(r, p, ev, c)) {
        ev->path_len = ev->n_pickups = 0;
        if (!(r->lay.flags & GAME_CAPTURE_BACKWARD))
            ev->n_capture = 0;
    }
    return SRV_OK;
}

int srv_move_parse(const srv_rules *r, const srv_pos *p, const char *text, char *err)
{
    char e[GAME_ERRLEN];
    if (p->over) {
        set_err(err, "move '%s': the game is over", text);
        return SRV_EOVER;
    }
    int k = game_move_parse(r->g, p, text, e);
    if (k < 0) {
        set_err(err, "move '%s': %s", text, e);
        return SRV_EINVAL;
    }
    if (k >= r->pits || !(srv_legal(r, p) & (1u << k))) {
        set_err(err, "move '%s': not a legal move here (the pit is empty, or the rules forbid it)", text);
        return SRV_EILLEGAL;
    }
    return k;
}

int srv_pos_parse(const srv_rules *r, const char *text, srv_pos *out, char *err)
{
    char e[GAME_ERRLEN];
    if (game_pos_parse(r->g, text, out, e) != GAME_OK) {
        set_err(err, "position '%s': %s", text, e);
        return SRV_EINVAL;
    }
    return SRV_OK;
}

char *srv_pos_format(const srv_rules *r, const srv_pos *p, char *buf, size_t n) { return game_pos_format(r->g, p, buf, n); }

int srv_pos_equal(const srv_rules *r, const srv_pos *x, const srv_pos *y)
{
    (void)r;
    return !memcmp(x, y, sizeof *x);
}

void srv_places(const srv_rules *r, const srv_pos *p, int *places)
{
    double v[GAME_MAX_PLAYERS];
    game_values(r->g, p, v);
    for (int q = 0; q < r->players; q++) {
        places[q] = 1;
        for (int o = 0; o < r->players; o++)
            places[q] += v[o] > v[q] + 1e-9;
    }
}

cJSON *srv_board_json(const srv_rules *r, const srv_pos *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON *cells = cJSON_AddArrayToObject(o, "cells"), *legal = cJSON_AddArrayToObject(o, "legal");
    for (int i = 0; i < r->cells; i++)
        cJSON_AddItemToArray(cells, srv_cell_live(r, p, i) ? cJSON_CreateNumber(p->cell[i]) : cJSON_CreateNull());
    unsigned lg = srv_legal(r, p);
    char buf[GAME_POS_STR];
    for (int k = 0; k < r->pits; k++)
        if (lg & (1u << k))
            cJSON_AddItemToArray(legal, cJSON_CreateString(srv_move_text(r, p, k, buf)));
    cJSON_AddNumberToObject(o, "to_move", p->to_move);
    cJSON_AddBoolToObject(o, "over", p->over);
    cJSON_AddStringToObject(o, "position", srv_pos_format(r, p, buf, sizeof buf));
    if (!p->over) {
        cJSON_AddNullToObject(o, "result");
        return o;
    }
    cJSON *res = cJSON_AddObjectToObject(o, "result"), *pl = cJSON_AddArrayToObject(res, "places");
    int places[GAME_MAX_PLAYERS], score;
    srv_places(r, p, places);
    for (int q = 0; q < r->players; q++)
        cJSON_AddItemToArray(pl, cJSON_CreateNumber(places[q]));
    if (game_score(r->g, p, 0, &score)) {
        cJSON *sc = cJSON_AddArrayToObject(res, "scores");
        for (int q = 0; q < r->players; q++) {
            game_score(r->g, p, q, &score);
            cJSON_AddItemToArray(sc, cJSON_CreateNumber(score));
        }
    }
    if (r->players == 2) {
        if (places[0] == places[1])
            cJSON_AddNullToObject(res, "winner");
        else
            cJSON_AddNumberToObject(res, "winner", places[0] < places[1] ? 0 : 1);
    }
    return o;
}

cJSON *srv_event_json(const srv_event *ev)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "mover", ev->mover);
    cJSON_AddStringToObject(o, "move", ev->letter);
    cJSON_AddNumberToObject(o, "pit", ev->origin);
    cJSON *path = cJSON_AddArrayToObject(o, "path"), *pk = cJSON_AddArrayToObject(o, "pickups");
    for (int i = 0; i < ev->path_len; i++)
        cJSON_AddItemToArray(path, cJSON_CreateNumber(ev->path[i]));
    for (int i = 0; i < ev->n_pickups; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "at", ev->pickup_at[i]);
        cJSON_AddNumberToObject(x, "cell", ev->pickup_cell[i]);
        cJSON_AddItemToArray(pk, x);
    }
    cJSON_AddBoolToObject(o, "extra_turn", ev->extra_turn);
    cJSON_AddNumberToObject(o, "relays", ev->relays);
    cJSON_AddNumberToObject(o, "captured", ev->captured);
    cJSON *cc = cJSON_AddArrayToObject(o, "capture_cells");
    for (int i = 0; i < ev->n_capture; i++)
        cJSON_AddItemToArray(cc, cJSON_CreateNumber(ev->capture[i]));
    cJSON_AddBoolToObject(o, "finished", ev->finished);
    cJSON_AddBoolToObject(o, "over", ev->over);
    return o;
}

cJSON *srv_layout_json(const srv_rules *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "kind", game_name(r->g));
    cJSON_AddStringToObject(o, "board", r->lay.flags & GAME_DRAW_RING ? "ring" : "rows");
    cJSON_AddStringToObject(o, "rules", srv_rules_spec(r));
    cJSON_AddNumberToObject(o, "players", r->players);
    cJSON_AddNumberToObject(o, "pits", r->pits);
    cJSON_AddNumberToObject(o, "cells", r->cells);
    cJSON_AddNumberToObject(o, "seeds", game_seeds(r->g));
    cJSON *st = cJSON_AddArrayToObject(o, "stores");
    for (int q = 0; q < r->players; q++)
        cJSON_AddItemToArray(st, cJSON_CreateNumber(srv_store(r, q)));
    return o;
}
