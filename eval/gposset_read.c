/* gposset_read.c — the reader of solved position sets of every game (gps_load, gps_peek_rules; the format
 * in eval/gposset.h and eval/posset.h). Lines are strict JSON: UTF-8, one object, nothing after it, each
 * key once (cJSON keeps both copies of a repeated key and its lookups return the first, so a duplicate
 * would silently drop a value). Every error names the file and line. */
#include "eval/gposset.h"
#include "eval/gposset_impl.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/errbuf.h"

#define rerr(...) errbuf_set(err, GPS_LOAD_ERRLEN, __VA_ARGS__)

int gps_peek_rules(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int ok = 0;
    if (getline(&line, &cap, f) > 0) {
        cJSON *o = cJSON_Parse(line);
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "rules");
        if (cJSON_IsString(r) && strlen(r->valuestring) < n) {
            snprintf(buf, n, "%s", r->valuestring);
            ok = 1;
        }
        cJSON_Delete(o);
    }
    free(line);
    fclose(f);
    return ok;
}

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF),
 * 0 when it is not one. s is NUL-terminated, so a sequence cut short stops at the NUL. */
static int utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    int n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

/* The 1-based byte column of the first invalid UTF-8 sequence or NUL byte in line (len bytes), 0 if none. */
static size_t bad_text_at(const char *line, size_t len)
{
    for (size_t i = 0; i < len;) {
        int n = line[i] ? utf8_len((const unsigned char *)line + i) : 0;
        if (!n)
            return i + 1;
        i += (size_t)n;
    }
    return 0;
}

/* The first key that appears twice in one object anywhere in the tree under o, or NULL. */
static const char *duplicate_key(const cJSON *o)
{
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next) {
        if (cJSON_IsObject(o))
            for (const cJSON *d = c->next; d; d = d->next)
                if (c->string && d->string && !strcmp(c->string, d->string))
                    return c->string;
        const char *k = duplicate_key(c);
        if (k)
            return k;
    }
    return NULL;
}

/* A whole number in [lo, hi] under key into *out; 0 with the reason in why. */
static int whole(const cJSON *o, const char *key, long lo, long hi, long *out, char *why, size_t wn)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        snprintf(why, wn, "no \"%s\"", key);
        return 0;
    }
    double d = v->valuedouble;
    if (!cJSON_IsNumber(v) || d != floor(d) || d < (double)lo || d > (double)hi) {
        snprintf(why, wn, "\"%s\" is not a whole number in %ld..%ld", key, lo, hi);
        return 0;
    }
    *out = (long)d;
    return 1;
}

/* The moves of mask at p as text, "a b d". */
static void moves_text(const game *g, const game_pos *p, unsigned mask, char *buf, size_t n)
{
    buf[0] = 0;
    for (int k = 0; k < GAME_MAX_MOVES; k++)
        if (mask >> k & 1) {
            char mv[16];
            size_t len = strlen(buf);
            game_move_format(g, p, k, mv, sizeof mv);
            snprintf(buf + len, n - len, "%s%s", len ? " " : "", mv);
        }
}

/* Checks one position line into e; 0 with the reason in why. */
static int read_entry(const game *g, const cJSON *o, gps_entry *e, char *why, size_t wn)
{
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(o, "position");
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(o, "to_move");
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(o, "best");
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(o, "moves");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "source");
    long v;
    char gerr[GAME_ERRLEN];
    if (!cJSON_IsString(pos)) {
        snprintf(why, wn, "%s \"position\"", pos ? "not a string:" : "no");
        return 0;
    }
    memset(e, 0, sizeof *e);
    if (game_pos_parse(g, pos->valuestring, &e->pos, gerr) != GAME_OK) {
        errbuf_set(why, wn, "position \"%.80s\": %s", pos->valuestring, gerr);
        return 0;
    }
    const unsigned legal = game_legal(g, &e->pos);
    if (e->pos.over || !legal) {
        snprintf(why, wn, "position \"%.80s\" is finished (no move to judge)", pos->valuestring);
        return 0;
    }
    game_solve_props sp;
    game_solve_properties(g, &sp);
    if (!whole(o, "ply", 0, sp.ply_limit > 0 ? sp.ply_limit - 1 : 1000000000L, &v, why, wn))
        return 0;
    e->pos.ply = (uint16_t)v;
    if (sp.ply_limit > 0) { /* the solver's horizon, said twice so that a line cut from its header is caught */
        long left;
        if (!whole(o, "sows_left", 0, sp.ply_limit, &left, why, wn))
            return 0;
        if (left != sp.ply_limit - v) {
            snprintf(why, wn, "sows_left %ld but max_sows - ply is %ld", left, sp.ply_limit - v);
            return 0;
        }
    }
    char side[2];
    gps_seat_letter(g, e->pos.to_move, side);
    if (!cJSON_IsString(tm) || strcmp(tm->valuestring, side) != 0) {
        snprintf(why, wn, "to_move \"%.8s\" but the position has %s to move", cJSON_IsString(tm) ? tm->valuestring : "?",
                 side);
        return 0;
    }
    e->seeds_in_pits = game_seeds_in_pits(g, &e->pos);
    const int bound = game_board_seeds(g, &e->pos);
    if (!whole(o, "seeds_in_pits", 0, bound, &v, why, wn))
        return 0;
    if (v != e->seeds_in_pits) {
        snprintf(why, wn, "seeds_in_pits %ld but the position has %d seeds in its pits", v, e->seeds_in_pits);
        return 0;
    }
    if (src && !cJSON_IsString(src)) {
        snprintf(why, wn, "\"source\" is not a string");
        return 0;
    }
    snprintf(e->source, sizeof e->source, "%s", src ? src->valuestring : "");

    /* moves: exactly the legal moves, each a margin within the seeds on the board */
    if (!cJSON_IsObject(moves)) {
        snprintf(why, wn, "%s \"moves\" object", moves ? "not a" : "no");
        return 0;
    }
    char legal_txt[GAME_MAX_MOVES * 8];
    moves_text(g, &e->pos, legal, legal_txt, sizeof legal_txt);
    unsigned seen = 0;
    for (int k = 0; k < GAME_MAX_MOVES; k++)
        e->values[k] = GPS_NO_VALUE;
    e->value = GPS_NO_VALUE;
    const cJSON *m;
    cJSON_ArrayForEach(m, moves)
    {
        int k = game_move_parse(g, &e->pos, m->string, gerr);
        if (k < 0 || !(legal >> k & 1)) {
            snprintf(why, wn, "moves: '%.16s' is not a legal move (legal: %s)", m->string, legal_txt);
            return 0;
        }
        if (seen >> k & 1) {
            snprintf(why, wn, "moves: '%.16s' given twice", m->string);
            return 0;
        }
        double d = m->valuedouble;
        if (!cJSON_IsNumber(m) || d != floor(d) || fabs(d) > bound) {
            snprintf(why, wn, "moves: '%.16s' is not a whole margin in %d..%d (%d seeds on the board)", m->string,
                     -bound, bound, bound);
            return 0;
        }
        seen |= 1u << k;
        e->values[k] = (int)d;
        if (e->values[k] > e->value)
            e->value = e->values[k];
    }
    if (seen != legal) {
        snprintf(why, wn, "moves: gives %d of the %d legal moves (legal: %s)", __builtin_popcount(seen),
                 __builtin_popcount(legal), legal_txt);
        return 0;
    }
    for (int k = 0; k < GAME_MAX_MOVES; k++)
        if (e->values[k] == e->value)
            e->best_mask |= 1u << k;
    if (!whole(o, "value", -bound, bound, &v, why, wn))
        return 0;
    if (v != e->value) {
        snprintf(why, wn, "value %ld but the best of moves is %d", v, e->value);
        return 0;
    }
    if (!cJSON_IsArray(best)) {
        snprintf(why, wn, "%s \"best\" array", best ? "not a" : "no");
        return 0;
    }
    unsigned bm = 0;
    const cJSON *b;
    cJSON_ArrayForEach(b, best)
    {
        int k = cJSON_IsString(b) ? game_move_parse(g, &e->pos, b->valuestring, gerr) : -1;
        if (k < 0 || !(legal >> k & 1)) {
            snprintf(why, wn, "best: %s%.16s%s is not a legal move (legal: %s)", cJSON_IsString(b) ? "'" : "",
                     cJSON_IsString(b) ? b->valuestring : "an entry", cJSON_IsString(b) ? "'" : "", legal_txt);
            return 0;
        }
        bm |= 1u << k;
    }
    if (bm != e->best_mask || cJSON_GetArraySize(best) != __builtin_popcount(bm)) {
        char want[GAME_MAX_MOVES * 8];
        moves_text(g, &e->pos, e->best_mask, want, sizeof want);
        snprintf(why, wn, "best does not list exactly the moves reaching value %d (moves say: %s)", e->value, want);
        return 0;
    }
    e->solved = 1;
    return 1;
}

/* The header line: format, format_version, rules (a game the solver accepts), count; command and seed kept
 * when present. PS_OK with *g and *s made, else PS_EINVAL / PS_ENOMEM with the reason in why. */
static int read_header(const cJSON *o, game **g, gps_set **s, long *count, char *why, size_t wn)
{
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(o, "format");
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(o, "rules");
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(o, "command");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(o, "seed");
    long ver;
    char gerr[GAME_ERRLEN], serr[PS_ERRLEN];
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, PS_FORMAT) != 0) {
        snprintf(why, wn, "not a position set (the first line has no \"format\":\"%s\")", PS_FORMAT);
        return PS_EINVAL;
    }
    if (!whole(o, "format_version", 0, 1000000, &ver, why, wn))
        return PS_EINVAL;
    if (ver != PS_FORMAT_VERSION) {
        snprintf(why, wn, "format_version %ld (this reader knows %d)", ver, PS_FORMAT_VERSION);
        return PS_EINVAL;
    }
    if (!cJSON_IsString(rules)) {
        snprintf(why, wn, "%s \"rules\"", rules ? "not a string:" : "no");
        return PS_EINVAL;
    }
    if (!(*g = game_create(rules->valuestring, gerr))) {
        errbuf_set(why, wn, "rules \"%.120s\": %s", rules->valuestring, gerr);
        return PS_EINVAL;
    }
    if (!(*s = gps_create(*g, serr))) {
        snprintf(why, wn, "rules \"%.120s\": %.200s", rules->valuestring, serr);
        return PS_EINVAL;
    }
    if (!whole(o, "count", 0, 100000000L, count, why, wn))
        return PS_EINVAL;
    if (cJSON_IsString(cmd) && !((*s)->command = strdup(cmd->valuestring))) {
        snprintf(why, wn, "out of memory");
        return PS_ENOMEM;
    }
    if (cJSON_IsNumber(seed) && seed->valuedouble >= 0)
        (*s)->seed = (uint64_t)seed->valuedouble;
    return PS_OK;
}

int gps_load(const char *path, gps_set **out, game **g_out, char *err)
{
    *out = NULL;
    *g_out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        rerr("%s: cannot open: %s", path, strerror(errno));
        return PS_EIO;
    }
    char *line = NULL, why[400];
    size_t cap = 0;
    ssize_t len;
    long count = -1;
    int lineno = 0, blank_at = 0, rc = PS_OK;
    game *g = NULL;
    gps_set *s = NULL;
    while (rc == PS_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (strspn(line, " \t") == (size_t)len) { /* blank: fine at the end only */
            blank_at = blank_at ? blank_at : lineno;
            continue;
        }
        if (blank_at) {
            rerr("%s:%d: a blank line inside the set", path, blank_at);
            rc = PS_EINVAL;
            break;
        }
        size_t bad = bad_text_at(line, (size_t)len);
        if (bad) {
            rerr("%s:%d: %s at byte %zu (lines are UTF-8 JSON)", path, lineno,
                 line[bad - 1] ? "invalid UTF-8" : "a NUL byte", bad);
            rc = PS_EINVAL;
            break;
        }
        const char *end = NULL;
        cJSON *o = cJSON_ParseWithLengthOpts(line, (size_t)len, &end, 0);
        if (!o || !cJSON_IsObject(o)) {
            rerr("%s:%d: %s", path, lineno,
                 lineno == 1 ? "not a position set (the first line is not a JSON object)" : "not a JSON object");
            cJSON_Delete(o);
            rc = PS_EINVAL;
            break;
        }
        end += strspn(end, " \t");
        const char *dup = duplicate_key(o);
        if (dup)
            rerr("%s:%d: key \"%s\" appears twice in one object", path, lineno, dup), rc = PS_EINVAL;
        else if (end != line + len)
            rerr("%s:%d: text after the JSON object (at byte %zu)", path, lineno, (size_t)(end - line) + 1),
                rc = PS_EINVAL;
        else if (lineno == 1) {
            if ((rc = read_header(o, &g, &s, &count, why, sizeof why)) != PS_OK)
                rerr("%s:1: %s", path, why);
        } else if ((long)s->n >= count) {
            rerr("%s:%d: more positions than the header's count %ld", path, lineno, count);
            rc = PS_EINVAL;
        } else {
            gps_entry e, *slot;
            if (!read_entry(g, o, &e, why, sizeof why)) {
                rerr("%s:%d: %s", path, lineno, why);
                rc = PS_EINVAL;
            } else if (!(slot = gps_append(s))) {
                rerr("%s: out of memory", path);
                rc = PS_ENOMEM;
            } else {
                e.line = lineno;
                *slot = e;
            }
        }
        cJSON_Delete(o);
    }
    if (rc == PS_OK && ferror(f)) {
        rerr("%s: read error: %s", path, strerror(errno));
        rc = PS_EIO;
    }
    if (rc == PS_OK && !s) {
        rerr("%s: not a position set (the file is empty)", path);
        rc = PS_EINVAL;
    }
    if (rc == PS_OK && (long)s->n != count) {
        rerr("%s: the header says %ld positions, the file has %zu", path, count, s->n);
        rc = PS_EINVAL;
    }
    free(line);
    fclose(f);
    if (rc != PS_OK) {
        gps_free(s);
        game_free(g);
        return rc;
    }
    *out = s;
    *g_out = g;
    return PS_OK;
}
