/* srv_game.c — Kalah and básico behind the server's game interface, with seed-by-seed move events. */
#include "serve/srv_game.h"

#include <stdio.h>
#include <string.h>

#include "env/errbuf.h"

#define set_err(err, ...) errbuf_set(err, SRV_ERRLEN, __VA_ARGS__)

int srv_rules_parse(const char *spec, srv_rules *out, char *err)
{
    char e[KALAH_ERRLEN];
    memset(out, 0, sizeof *out);
    if (!strncmp(spec, "basico", 6) && (spec[6] == 0 || spec[6] == ':')) {
        out->kind = SRV_GAME_BASICO;
        if (basico_rules_parse(spec, &out->b, e) != BASICO_OK) {
            set_err(err, "rules '%s': %s", spec, e);
            return SRV_EINVAL;
        }
        return SRV_OK;
    }
    if (!strncmp(spec, "kalah", 5) && (spec[5] == 0 || spec[5] == ':')) {
        out->kind = SRV_GAME_KALAH;
        if (kalah_rules_parse(spec, &out->k, e) != KALAH_OK) {
            set_err(err, "rules '%s': %s", spec, e);
            return SRV_EINVAL;
        }
        return SRV_OK;
    }
    set_err(err, "rules '%s': unknown game (games: kalah, basico)", spec);
    return SRV_EINVAL;
}

char *srv_rules_format(const srv_rules *r, char *buf, size_t n)
{
    return r->kind == SRV_GAME_BASICO ? basico_rules_format(&r->b, buf, n) : kalah_rules_format(&r->k, buf, n);
}

int srv_players(const srv_rules *r) { return r->kind == SRV_GAME_BASICO ? r->b.players : 2; }
int srv_pits(const srv_rules *r) { return r->kind == SRV_GAME_BASICO ? r->b.pits : r->k.pits; }
int srv_cells(const srv_rules *r) { return r->kind == SRV_GAME_BASICO ? basico_cells(&r->b) : 2 * r->k.pits + 2; }
int srv_store(const srv_rules *r, int player)
{
    return r->kind == SRV_GAME_BASICO ? basico_store(&r->b, player) : kalah_store(&r->k, player);
}

void srv_start(const srv_rules *r, srv_pos *out)
{
    memset(out, 0, sizeof *out);
    if (r->kind == SRV_GAME_BASICO)
        basico_start(&r->b, &out->b);
    else
        kalah_start(&r->k, &out->k);
}

int srv_to_move(const srv_rules *r, const srv_pos *p) { return r->kind == SRV_GAME_BASICO ? p->b.to_move : p->k.side; }
int srv_over(const srv_rules *r, const srv_pos *p) { return r->kind == SRV_GAME_BASICO ? p->b.over : p->k.over; }
unsigned srv_legal(const srv_rules *r, const srv_pos *p)
{
    return r->kind == SRV_GAME_BASICO ? basico_legal(&r->b, &p->b) : kalah_legal(&r->k, &p->k);
}

char srv_move_letter(const srv_rules *r, const srv_pos *p, int k)
{
    return r->kind == SRV_GAME_BASICO ? (char)('a' + k) : kalah_move_letter(p->k.side, k);
}

/* The drops of a sowing of `n` seeds from `origin` in the game's order (see srv_game.h). */
static int sow_path(const srv_rules *r, const srv_pos *before, int origin, int n, unsigned char *path)
{
    int cells = srv_cells(r), idx = origin;
    if (n > SRV_MAX_PATH)
        return 0;
    for (int i = 0; i < n; i++) {
        for (int guard = 0; guard <= cells; guard++) {
            idx = (idx + 1) % cells;
            if (r->kind == SRV_GAME_KALAH) {
                if (idx != kalah_store(&r->k, !before->k.side))
                    break;
            } else if (before->b.active & (1u << (idx / (r->b.pits + 1)))) {
                break;
            }
        }
        path[i] = (unsigned char)idx;
    }
    return n;
}

/* Does the path, with the capture and the end sweep, build the engine's board? */
static int path_checks(const srv_rules *r, const srv_pos *before, const srv_pos *after, const srv_event *ev)
{
    int cells = srv_cells(r), c[SRV_MAX_CELLS];
    const uint8_t *b = r->kind == SRV_GAME_KALAH ? before->k.cell : before->b.cell;
    const uint8_t *a = r->kind == SRV_GAME_KALAH ? after->k.cell : after->b.cell;
    for (int i = 0; i < cells; i++)
        c[i] = b[i];
    c[ev->origin] = 0;
    for (int i = 0; i < ev->path_len; i++)
        c[ev->path[i]]++;
    if (r->kind == SRV_GAME_KALAH) {
        int m = r->k.pits, store = kalah_store(&r->k, ev->mover);
        if (ev->captured) {
            c[store] += c[ev->capture_pit] + c[ev->capture_opposite];
            c[ev->capture_pit] = c[ev->capture_opposite] = 0;
        }
        if (ev->over)
            for (int s = 0; s < 2; s++)
                for (int k = 0; k < m; k++) {
                    int i = kalah_pit_index(&r->k, s, k);
                    c[kalah_store(&r->k, s)] += c[i];
                    c[i] = 0;
                }
        for (int i = 0; i < cells; i++)
            if (c[i] != a[i])
                return 0;
        return 1;
    }
    for (int i = 0; i < cells; i++)
        if ((after->b.active & (1u << (i / (r->b.pits + 1)))) && c[i] != a[i])
            return 0;
    return 1;
}

int srv_play(const srv_rules *r, srv_pos *p, int k, srv_event *ev)
{
    if (srv_over(r, p))
        return SRV_EOVER;
    if (k < 0 || k >= srv_pits(r) || !(srv_legal(r, p) & (1u << k)))
        return SRV_EILLEGAL;
    srv_pos before = *p;
    srv_event e;
    memset(&e, 0, sizeof e);
    e.mover = srv_to_move(r, p);
    e.move = k;
    e.letter = srv_move_letter(r, p, k);
    e.capture_pit = e.capture_opposite = -1;
    if (r->kind == SRV_GAME_KALAH) {
        kalah_step st;
        e.origin = kalah_pit_index(&r->k, p->k.side, k);
        if (kalah_play(&r->k, &p->k, k, &st) != KALAH_OK)
            return SRV_EILLEGAL;
        e.extra_turn = st.extra_turn;
        e.over = st.over;
        e.captured = st.captured;
        if (st.captured) {
            e.capture_pit = st.last;
            e.capture_opposite = 2 * r->k.pits - st.last;
        }
        e.path_len = sow_path(r, &before, e.origin, before.k.cell[e.origin], e.path);
    } else {
        basico_step st;
        e.origin = e.mover * (r->b.pits + 1) + k;
        if (basico_play(&r->b, &p->b, k, &st) != BASICO_OK)
            return SRV_EILLEGAL;
        e.extra_turn = st.extra_turn;
        e.finished = st.finished;
        e.over = st.over;
        e.path_len = sow_path(r, &before, e.origin, before.b.cell[e.origin], e.path);
    }
    if (!path_checks(r, &before, p, &e))
        e.path_len = 0;
    if (ev)
        *ev = e;
    return SRV_OK;
}

int srv_move_parse(const srv_rules *r, const srv_pos *p, const char *text, char *err)
{
    if (srv_over(r, p)) {
        set_err(err, "move '%s': the game is over", text);
        return SRV_EOVER;
    }
    int pits = srv_pits(r), k;
    if (r->kind == SRV_GAME_KALAH) {
        k = kalah_move_parse(&r->k, p->k.side, text, 0);
        if (k == KALAH_EILLEGAL) {
            set_err(err, "move '%s': that is %s's pit, but %s is to move", text, p->k.side ? "South" : "North",
                    p->k.side ? "North" : "South");
            return SRV_EINVAL;
        }
    } else {
        k = text[0] >= 'a' && text[0] < 'a' + pits && !text[1] ? text[0] - 'a' : -1;
    }
    if (k < 0) {
        set_err(err, "move '%s' is not a pit letter of the player to move (%c..%c)", text,
                srv_move_letter(r, p, 0), srv_move_letter(r, p, pits - 1));
        return SRV_EINVAL;
    }
    if (!(srv_legal(r, p) & (1u << k))) {
        set_err(err, "move '%s': the pit is empty", text);
        return SRV_EILLEGAL;
    }
    return k;
}

int srv_pos_parse(const srv_rules *r, const char *text, srv_pos *out, char *err)
{
    char e[KALAH_ERRLEN];
    memset(out, 0, sizeof *out);
    int rc = r->kind == SRV_GAME_BASICO ? basico_pos_parse(text, &r->b, &out->b, e)
                                        : kalah_pos_parse(text, &r->k, &out->k, NULL, e);
    if (rc != 0) {
        set_err(err, "position '%s': %s", text, e);
        return SRV_EINVAL;
    }
    return SRV_OK;
}

char *srv_pos_format(const srv_rules *r, const srv_pos *p, char *buf, size_t n)
{
    return r->kind == SRV_GAME_BASICO ? basico_pos_format(&r->b, &p->b, buf, n) : kalah_pos_format(&r->k, &p->k, buf, n);
}

int srv_pos_equal(const srv_rules *r, const srv_pos *x, const srv_pos *y)
{
    char a[192], b[192];
    srv_pos_format(r, x, a, sizeof a);
    srv_pos_format(r, y, b, sizeof b);
    if (r->kind == SRV_GAME_KALAH)
        return !strcmp(a, b) && x->k.over == y->k.over && x->k.sows == y->k.sows;
    return !strcmp(a, b) && x->b.over == y->b.over;
}

cJSON *srv_board_json(const srv_rules *r, const srv_pos *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON *cells = cJSON_AddArrayToObject(o, "cells"), *legal = cJSON_AddArrayToObject(o, "legal");
    int n = srv_cells(r);
    for (int i = 0; i < n; i++) {
        int gone = r->kind == SRV_GAME_BASICO && !(p->b.active & (1u << (i / (r->b.pits + 1))));
        uint8_t v = r->kind == SRV_GAME_BASICO ? p->b.cell[i] : p->k.cell[i];
        cJSON_AddItemToArray(cells, gone ? cJSON_CreateNull() : cJSON_CreateNumber(v));
    }
    unsigned lg = srv_legal(r, p);
    for (int k = 0; k < srv_pits(r); k++)
        if (lg & (1u << k)) {
            char s[2] = {srv_move_letter(r, p, k), 0};
            cJSON_AddItemToArray(legal, cJSON_CreateString(s));
        }
    cJSON_AddNumberToObject(o, "to_move", srv_to_move(r, p));
    cJSON_AddBoolToObject(o, "over", srv_over(r, p));
    char buf[192];
    cJSON_AddStringToObject(o, "position", srv_pos_format(r, p, buf, sizeof buf));
    if (!srv_over(r, p)) {
        cJSON_AddNullToObject(o, "result");
    } else if (r->kind == SRV_GAME_KALAH) {
        cJSON *res = cJSON_AddObjectToObject(o, "result");
        int w = kalah_winner(&r->k, &p->k);
        if (w)
            cJSON_AddNumberToObject(res, "winner", w > 0 ? 0 : 1);
        else
            cJSON_AddNullToObject(res, "winner");
        cJSON *st = cJSON_AddArrayToObject(res, "stores");
        cJSON_AddItemToArray(st, cJSON_CreateNumber(p->k.cell[r->k.pits]));
        cJSON_AddItemToArray(st, cJSON_CreateNumber(p->k.cell[2 * r->k.pits + 1]));
    } else {
        cJSON *res = cJSON_AddObjectToObject(o, "result"), *pl = cJSON_AddArrayToObject(res, "places");
        for (int q = 0; q < r->b.players; q++)
            cJSON_AddItemToArray(pl, cJSON_CreateNumber(p->b.place[q]));
    }
    return o;
}

cJSON *srv_event_json(const srv_event *ev)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char s[2] = {ev->letter, 0};
    cJSON_AddNumberToObject(o, "mover", ev->mover);
    cJSON_AddStringToObject(o, "move", s);
    cJSON_AddNumberToObject(o, "pit", ev->origin);
    cJSON *path = cJSON_AddArrayToObject(o, "path");
    for (int i = 0; i < ev->path_len; i++)
        cJSON_AddItemToArray(path, cJSON_CreateNumber(ev->path[i]));
    cJSON_AddBoolToObject(o, "extra_turn", ev->extra_turn);
    cJSON_AddNumberToObject(o, "captured", ev->captured);
    if (ev->captured) {
        cJSON_AddNumberToObject(o, "capture_pit", ev->capture_pit);
        cJSON_AddNumberToObject(o, "capture_opposite", ev->capture_opposite);
    } else {
        cJSON_AddNullToObject(o, "capture_pit");
        cJSON_AddNullToObject(o, "capture_opposite");
    }
    cJSON_AddBoolToObject(o, "finished", ev->finished);
    cJSON_AddBoolToObject(o, "over", ev->over);
    return o;
}

cJSON *srv_layout_json(const srv_rules *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char buf[192];
    cJSON_AddStringToObject(o, "kind", r->kind == SRV_GAME_BASICO ? "basico" : "kalah");
    cJSON_AddStringToObject(o, "rules", srv_rules_format(r, buf, sizeof buf));
    cJSON_AddNumberToObject(o, "players", srv_players(r));
    cJSON_AddNumberToObject(o, "pits", srv_pits(r));
    cJSON_AddNumberToObject(o, "cells", srv_cells(r));
    cJSON *st = cJSON_AddArrayToObject(o, "stores");
    for (int q = 0; q < srv_players(r); q++)
        cJSON_AddItemToArray(st, cJSON_CreateNumber(srv_store(r, q)));
    return o;
}
