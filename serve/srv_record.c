/* srv_record.c — records of served games through eval/record.h, the one record format of every game. */
#define _GNU_SOURCE
#include "serve/srv_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/errbuf.h"
#include "eval/record.h"

#define set_err(err, ...) errbuf_set(err, SRV_ERRLEN, __VA_ARGS__)

char *srv_record_write(const srv_rules *r, const srv_pos *start, const uint8_t *moves, int n,
                       const char *const *names, char *err)
{
    record_game g;
    char e[RECORD_ERRLEN] = "out of memory", *text = NULL;
    size_t len = 0;
    if (record_game_init_game(&g, r->g, start, e)) {
        set_err(err, "%s", e);
        return NULL;
    }
    int ok = record_set(&g.event, "sowzero serve") == RECORD_OK;
    for (int q = 0; ok && q < r->players; q++)
        ok = record_set_seat(&g, q, names[q], NULL) == RECORD_OK;
    for (int i = 0; ok && i < n; i++)
        ok = record_push(&g, moves[i]) == RECORD_OK;
    FILE *f = ok ? open_memstream(&text, &len) : NULL;
    if (f) {
        ok = record_write(f, &g, e) == RECORD_OK;
        ok &= fclose(f) == 0;
    }
    record_game_clear(&g);
    if (!f || !ok) {
        free(text);
        set_err(err, "%s", e);
        return NULL;
    }
    return text;
}

int srv_record_read(const char *text, srv_rules *r, srv_pos *start, uint8_t **moves, int *n, char *err)
{
    record_game g;
    char e[RECORD_ERRLEN];
    *moves = NULL;
    *n = 0;
    int rc = record_read_text(text, "record", &g, e);
    if (rc != RECORD_OK) {
        set_err(err, "%s", rc == RECORD_EOF ? "the record holds no game" : e);
        return SRV_EINVAL;
    }
    if (g.result_only) {
        set_err(err, "record:%d: a result-only record has no moves to replay", g.line);
        record_game_clear(&g);
        return SRV_EINVAL;
    }
    /* The record's canonical rules as the server sees them. */
    if (srv_rules_parse(game_spec(g.game), r, err) != SRV_OK) {
        record_game_clear(&g);
        return SRV_EINVAL;
    }
    if (!(*moves = malloc((size_t)g.n_moves + 1))) {
        set_err(err, "out of memory");
        srv_rules_free(r);
        record_game_clear(&g);
        return SRV_EINVAL;
    }
    memcpy(*moves, g.moves, (size_t)g.n_moves);
    *n = g.n_moves;
    *start = g.gstart;
    record_game_clear(&g);
    return SRV_OK;
}
