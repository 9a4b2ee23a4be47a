/* srv_record.c — records of served games: eval/record.h for Kalah, its layout for básico (srv_record.h). */
#define _GNU_SOURCE
#include "serve/srv_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/errbuf.h"
#include "eval/record.h"

#define set_err(err, ...) errbuf_set(err, SRV_ERRLEN, __VA_ARGS__)

/* The result token of the generic layout: two-player games 1-0 / 0-1 / 1/2-1/2, others the places per
 * seat joined by '-'; "*" while unfinished. */
static void result_token(const srv_rules *r, const srv_pos *p, char *buf, size_t n)
{
    int places[SRV_MAX_PLAYERS];
    if (!p->over) {
        snprintf(buf, n, "*");
        return;
    }
    srv_places(r, p, places);
    if (r->players == 2) {
        snprintf(buf, n, "%s", places[0] == places[1] ? "1/2-1/2" : places[0] < places[1] ? "1-0" : "0-1");
        return;
    }
    size_t at = 0;
    for (int q = 0; q < r->players && at < n; q++)
        at += (size_t)snprintf(buf + at, n - at, "%s%d", q ? "-" : "", places[q]);
}

/* A tag value with \" and \\ escaped, as eval/record.h writes them. */
static void put_tag(FILE *f, const char *name, const char *value)
{
    fprintf(f, "[%s \"", name);
    for (const char *c = value; *c; c++)
        fprintf(f, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
    fprintf(f, "\"]\n");
}

char *srv_record_write(const srv_rules *r, const srv_pos *start, const uint8_t *moves, int n,
                       const char *const *names, char *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        set_err(err, "out of memory");
        return NULL;
    }
    int ok = 1;
    if (r->fam == SRV_KALAH) {
        record_game g = {0};
        char e[RECORD_ERRLEN];
        kalah_pos ks;
        memset(&ks, 0, sizeof ks);
        memcpy(ks.cell, start->cell, KALAH_CELLS);
        ks.side = start->to_move;
        ks.over = start->over;
        record_game_init(&g, &r->k, &ks);
        ok = record_set(&g.event, "sowzero serve") == RECORD_OK && record_set(&g.south, names[0]) == RECORD_OK &&
             record_set(&g.north, names[1]) == RECORD_OK;
        for (int i = 0; ok && i < n; i++)
            ok = record_push(&g, moves[i]) == RECORD_OK;
        if (ok && record_write(f, &g, e) != RECORD_OK) {
            set_err(err, "%s", e);
            ok = 0;
        } else if (!ok) {
            set_err(err, "out of memory");
        }
        record_game_clear(&g);
    } else {
        char buf[GAME_POS_STR], res[32], mv[8];
        srv_pos p = *start, s0;
        srv_start(r, &s0);
        put_tag(f, "Event", "sowzero serve");
        put_tag(f, "Rules", srv_rules_spec(r));
        for (int q = 0; q < r->players; q++) {
            char tag[16];
            snprintf(tag, sizeof tag, "Seat%d", q);
            put_tag(f, tag, names[q]);
        }
        if (!srv_pos_equal(r, start, &s0))
            put_tag(f, "Start", srv_pos_format(r, start, buf, sizeof buf));
        srv_pos end = p;
        for (int i = 0; i < n; i++)
            srv_play(r, &end, moves[i], NULL);
        result_token(r, &end, res, sizeof res);
        put_tag(f, "Result", res);
        fputc('\n', f);
        for (int i = 0; i < n; i++) {
            fprintf(f, "%s%s", srv_move_text(r, &p, moves[i], mv), (i + 1) % 30 ? " " : "\n");
            srv_play(r, &p, moves[i], NULL);
        }
        fprintf(f, "%s\n\n", res);
    }
    if (fclose(f) || !ok) {
        free(text);
        if (ok)
            set_err(err, "out of memory");
        return NULL;
    }
    return text;
}

/* Reads the value of tag `name` from text ("[Name "value"]" at a line start) into buf; 1 if found. */
static int tag_value(const char *text, const char *name, char *buf, size_t n)
{
    size_t nl = strlen(name);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (l[0] != '[' || strncmp(l + 1, name, nl) || strncmp(l + 1 + nl, " \"", 2))
            continue;
        const char *v = l + nl + 3;
        size_t at = 0;
        for (; *v && *v != '"' && *v != '\n' && at + 1 < n; v++) {
            if (*v == '\\' && v[1])
                v++;
            buf[at++] = *v;
        }
        buf[at] = 0;
        return *v == '"';
    }
    return 0;
}

static int read_generic(const char *text, srv_rules *r, srv_pos *start, uint8_t **moves, int *n, char *err)
{
    char buf[256], want[64];
    if (tag_value(text, "Start", buf, sizeof buf) && srv_pos_parse(r, buf, start, err) != SRV_OK)
        return SRV_EINVAL;
    if (!tag_value(text, "Result", want, sizeof want)) {
        set_err(err, "the record has no [Result \"...\"] tag");
        return SRV_EINVAL;
    }
    /* The movetext: every line after the tags that does not start with '['. */
    size_t cap = strlen(text) / 2 + 2;
    uint8_t *mv = malloc(cap);
    if (!mv) {
        set_err(err, "out of memory");
        return SRV_EINVAL;
    }
    srv_pos p = *start;
    int count = 0, line = 1, seen_result = 0;
    for (const char *l = text; *l; line++) {
        const char *e = strchr(l, '\n');
        size_t ll = e ? (size_t)(e - l) : strlen(l);
        if (l[0] != '[') {
            for (size_t i = 0; i < ll;) {
                while (i < ll && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r'))
                    i++;
                size_t j = i;
                while (j < ll && l[j] != ' ' && l[j] != '\t' && l[j] != '\r')
                    j++;
                if (j == i)
                    break;
                char tok[64];
                snprintf(tok, sizeof tok, "%.*s", (int)(j - i), l + i);
                i = j;
                if (seen_result) {
                    set_err(err, "line %d: '%s' after the result token", line, tok);
                    free(mv);
                    return SRV_EINVAL;
                }
                if (!strcmp(tok, want) && (strlen(tok) > 1 || tok[0] == '*')) {
                    seen_result = 1;
                    continue;
                }
                char e2[SRV_ERRLEN];
                int k = srv_move_parse(r, &p, tok, e2);
                if (k < 0) {
                    set_err(err, "line %d: move %d: %s", line, count + 1, e2);
                    free(mv);
                    return SRV_EINVAL;
                }
                srv_play(r, &p, k, NULL);
                mv[count++] = (uint8_t)k;
            }
        }
        if (!e)
            break;
        l = e + 1;
    }
    char got[64];
    result_token(r, &p, got, sizeof got);
    if (!seen_result || strcmp(got, want)) {
        set_err(err, "the record's result '%s' %s; replaying its moves gives '%s'", want,
                seen_result ? "does not match" : "does not end the movetext", got);
        free(mv);
        return SRV_EINVAL;
    }
    *moves = mv;
    *n = count;
    return SRV_OK;
}

int srv_record_read(const char *text, srv_rules *r, srv_pos *start, uint8_t **moves, int *n, char *err)
{
    char spec[256];
    *moves = NULL;
    *n = 0;
    if (!tag_value(text, "Rules", spec, sizeof spec)) {
        set_err(err, "the record has no [Rules \"...\"] tag");
        return SRV_EINVAL;
    }
    if (srv_rules_parse(spec, r, err) != SRV_OK)
        return SRV_EINVAL;
    srv_start(r, start);
    if (r->fam != SRV_KALAH) {
        int rc = read_generic(text, r, start, moves, n, err);
        if (rc != SRV_OK)
            srv_rules_free(r);
        return rc;
    }
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    char e[RECORD_ERRLEN];
    record_reader *rd = f ? record_reader_from_stream(f, "record", e) : NULL;
    if (!rd) {
        if (f)
            fclose(f);
        set_err(err, "%s", f ? e : "out of memory");
        srv_rules_free(r);
        return SRV_EINVAL;
    }
    record_game g = {0};
    int rc = record_read(rd, &g, e);
    record_reader_free(rd);
    fclose(f);
    if (rc != RECORD_OK) {
        set_err(err, "%s", rc == RECORD_EOF ? "the record holds no game" : e);
        srv_rules_free(r);
        return SRV_EINVAL;
    }
    /* The record's rules and start (the reader canonicalised them) as the game interface sees them. */
    char canon[128], pos[80];
    kalah_rules_format(&g.rules, canon, sizeof canon);
    kalah_pos_format(&g.rules, &g.start, pos, sizeof pos);
    srv_rules_free(r);
    *moves = malloc((size_t)g.n_moves + 1);
    int bad = !*moves;
    if (bad)
        set_err(err, "out of memory");
    else if (srv_rules_parse(canon, r, err) != SRV_OK)
        bad = 1;
    else if (srv_pos_parse(r, pos, start, err) != SRV_OK) {
        srv_rules_free(r);
        bad = 1;
    }
    if (bad) {
        free(*moves);
        *moves = NULL;
        record_game_clear(&g);
        return SRV_EINVAL;
    }
    memcpy(*moves, g.moves, (size_t)g.n_moves);
    *n = g.n_moves;
    record_game_clear(&g);
    return SRV_OK;
}
