/* posset_read.c — reader of solved position sets (format in eval/posset.h, checks in posset_read.h). */
#include "eval/posset_read.h"
#include "env/errbuf.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define set_err(err, ...) errbuf_set(err, POSSET_ERRLEN, __VA_ARGS__)

struct posset {
    kalah_rules rules;
    char *rules_text, *command, *commit;
    uint64_t seed;
    posset_entry *e;
    int n;
};

const kalah_rules *posset_rules(const posset *s) { return &s->rules; }
int posset_count(const posset *s) { return s->n; }
const posset_entry *posset_get(const posset *s, int i) { return &s->e[i]; }
const char *posset_rules_text(const posset *s) { return s->rules_text; }
const char *posset_command(const posset *s) { return s->command ? s->command : ""; }
const char *posset_commit(const posset *s) { return s->commit ? s->commit : ""; }
uint64_t posset_seed(const posset *s) { return s->seed; }

void posset_free(posset *s)
{
    if (!s)
        return;
    free(s->rules_text);
    free(s->command);
    free(s->commit);
    free(s->e);
    free(s);
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

/* The first key that appears twice in one object anywhere in the tree under o, or NULL: cJSON keeps both and
 * its lookups return the first, so a duplicate would silently drop a value. */
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

/* A whole number in [lo, hi] under key, or -1 with a message (where = "PATH:LINE"). */
static int get_int(const cJSON *o, const char *key, long lo, long hi, long *out, const char *where, char *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        set_err(err, "%s: no \"%s\"", where, key);
        return -1;
    }
    double d = v->valuedouble;
    if (!cJSON_IsNumber(v) || d != floor(d) || d < (double)lo || d > (double)hi) {
        set_err(err, "%s: \"%s\" is not a whole number in %ld..%ld", where, key, lo, hi);
        return -1;
    }
    *out = (long)d;
    return 0;
}

static const char *get_str(const cJSON *o, const char *key, const char *where, char *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || !cJSON_IsString(v)) {
        set_err(err, "%s: %s \"%s\"", where, v ? "not a string:" : "no", key);
        return NULL;
    }
    return v->valuestring;
}

static int dup_opt(const cJSON *o, const char *key, char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || !cJSON_IsString(v))
        return 0;
    return (*out = strdup(v->valuestring)) ? 0 : -1;
}

static int read_header(posset *s, const cJSON *h, long *count, const char *where, char *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(h, "format");
    if (!f || !cJSON_IsString(f) || strcmp(f->valuestring, PS_FORMAT)) {
        set_err(err, "%s: not a position set (the first line has no \"format\":\"%s\")", where, PS_FORMAT);
        return POSSET_EINVAL;
    }
    long version;
    if (get_int(h, "format_version", 0, 1000000, &version, where, err))
        return POSSET_EINVAL;
    if (version != PS_FORMAT_VERSION) {
        set_err(err, "%s: format_version %ld (this reader knows %d)", where, version, PS_FORMAT_VERSION);
        return POSSET_EINVAL;
    }
    const char *rules = get_str(h, "rules", where, err);
    if (!rules)
        return POSSET_EINVAL;
    char kerr[KALAH_ERRLEN];
    if (kalah_rules_parse(rules, &s->rules, kerr) != KALAH_OK) {
        set_err(err, "%s: rules \"%s\": %s", where, rules, kerr);
        return POSSET_EINVAL;
    }
    if (s->rules.max_sows > 0) {
        set_err(err, "%s: rules \"%s\": a set needs rules without a sow limit (max_sows=0): the value of a "
                     "position then depends on the sow count, which the format does not carry", where, rules);
        return POSSET_EINVAL;
    }
    if (get_int(h, "count", 0, 100000000L, count, where, err))
        return POSSET_EINVAL;
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(h, "seed");
    if (seed && cJSON_IsNumber(seed) && seed->valuedouble >= 0)
        s->seed = (uint64_t)seed->valuedouble;
    if (!(s->rules_text = strdup(rules)) || dup_opt(h, "command", &s->command) || dup_opt(h, "commit", &s->commit)) {
        set_err(err, "out of memory");
        return POSSET_ENOMEM;
    }
    return POSSET_OK;
}

/* Validates one position line into *e. */
static int read_entry(const posset *s, const cJSON *o, posset_entry *e, const char *where, char *err)
{
    const kalah_rules *r = &s->rules;
    char kerr[KALAH_ERRLEN];
    const char *pos = get_str(o, "position", where, err);
    if (!pos)
        return -1;
    int pits;
    if (kalah_pos_parse(pos, r, &e->pos, &pits, kerr) != KALAH_OK) {
        set_err(err, "%s: position \"%s\": %s", where, pos, kerr);
        return -1;
    }
    unsigned legal = kalah_legal(r, &e->pos);
    if (e->pos.over || !legal) {
        set_err(err, "%s: position \"%s\" is finished (no move to judge)", where, pos);
        return -1;
    }
    const char *side = get_str(o, "to_move", where, err);
    if (!side)
        return -1;
    if (strcmp(side, e->pos.side ? "N" : "S")) {
        set_err(err, "%s: to_move \"%s\" but the position has %s to move", where, side, e->pos.side ? "N" : "S");
        return -1;
    }
    long v, total = 2L * r->pits * r->seeds, in_pits = 0;
    for (int k = 0; k < r->pits; k++)
        in_pits += e->pos.cell[kalah_pit_index(r, 0, k)] + e->pos.cell[kalah_pit_index(r, 1, k)];
    if (get_int(o, "seeds_in_pits", 0, total, &v, where, err))
        return -1;
    if (v != in_pits) {
        set_err(err, "%s: seeds_in_pits %ld but the position has %ld seeds in its pits", where, v, in_pits);
        return -1;
    }
    e->seeds_in_pits = (int)v;
    if (get_int(o, "ply", 0, 1000000000L, &v, where, err))
        return -1;
    e->ply = (int)v;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "source");
    if (src && !cJSON_IsString(src)) {
        set_err(err, "%s: \"source\" is not a string", where);
        return -1;
    }

    /* moves: exactly the legal letters, each a margin the seeds still in play allow. */
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(o, "moves");
    if (!moves || !cJSON_IsObject(moves)) {
        set_err(err, "%s: %s \"moves\" object", where, moves ? "not an" : "no");
        return -1;
    }
    char legal_txt[3 * KALAH_MAX_PITS + 1] = "";
    for (int k = 0; k < r->pits; k++) {
        e->margin[k] = POSSET_NO_MOVE;
        if (legal >> k & 1) {
            size_t n = strlen(legal_txt);
            snprintf(legal_txt + n, sizeof legal_txt - n, "%s%c", n ? " " : "", kalah_move_letter(e->pos.side, k));
        }
    }
    /* The final margin is the store difference ± what is left in the pits. */
    int sd = kalah_margin(r, &e->pos) * (e->pos.side ? -1 : 1);
    unsigned seen = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, moves)
    {
        int k = kalah_move_parse(r, e->pos.side, m->string, 0);
        if (k < 0 || !(legal >> k & 1)) {
            set_err(err, "%s: moves: '%s' is not a legal move (legal: %s)", where, m->string, legal_txt);
            return -1;
        }
        if (seen >> k & 1) {
            set_err(err, "%s: moves: '%s' given twice", where, m->string);
            return -1;
        }
        double d = m->valuedouble;
        if (!cJSON_IsNumber(m) || d != floor(d) || d < sd - in_pits || d > sd + in_pits) {
            set_err(err, "%s: moves: '%s' is not a whole margin in %ld..%ld (store difference %+d, %ld seeds in "
                         "the pits)", where, m->string, sd - in_pits, sd + in_pits, sd, in_pits);
            return -1;
        }
        seen |= 1u << k;
        e->margin[k] = (int)d;
    }
    if (seen != legal) {
        set_err(err, "%s: moves: gives %d of the %d legal moves (legal: %s)", where, __builtin_popcount(seen),
                __builtin_popcount(legal), legal_txt);
        return -1;
    }
    e->value = POSSET_NO_MOVE;
    e->best_mask = 0;
    for (int k = 0; k < r->pits; k++)
        if (legal >> k & 1 && e->margin[k] > e->value)
            e->value = e->margin[k];
    for (int k = 0; k < r->pits; k++)
        if (legal >> k & 1 && e->margin[k] == e->value)
            e->best_mask |= 1u << k;

    if (get_int(o, "value", -255, 255, &v, where, err))
        return -1;
    if (v != e->value) {
        set_err(err, "%s: value %ld but the best of moves is %d", where, v, e->value);
        return -1;
    }
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(o, "best");
    if (!best || !cJSON_IsArray(best)) {
        set_err(err, "%s: %s \"best\" array", where, best ? "not a" : "no");
        return -1;
    }
    unsigned bm = 0;
    const cJSON *b;
    cJSON_ArrayForEach(b, best)
    {
        int k = cJSON_IsString(b) ? kalah_move_parse(r, e->pos.side, b->valuestring, 0) : -1;
        if (k < 0 || !(legal >> k & 1)) {
            set_err(err, "%s: best: %s%s%s is not a legal move (legal: %s)", where, cJSON_IsString(b) ? "'" : "",
                    cJSON_IsString(b) ? b->valuestring : "an entry", cJSON_IsString(b) ? "'" : "", legal_txt);
            return -1;
        }
        bm |= 1u << k;
    }
    if (bm != e->best_mask || cJSON_GetArraySize(best) != __builtin_popcount(bm)) {
        char want[3 * KALAH_MAX_PITS + 1] = "";
        for (int k = 0; k < r->pits; k++)
            if (e->best_mask >> k & 1) {
                size_t n = strlen(want);
                snprintf(want + n, sizeof want - n, "%s%c", n ? " " : "", kalah_move_letter(e->pos.side, k));
            }
        set_err(err, "%s: best does not list exactly the moves reaching value %d (moves say: %s)", where, e->value,
                want);
        return -1;
    }
    return 0;
}

int posset_load(const char *path, posset **out, char *err)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        set_err(err, "%s: cannot open: %s", path, strerror(errno));
        return POSSET_EIO;
    }
    posset *s = calloc(1, sizeof *s);
    char *line = NULL, where[POSSET_ERRLEN / 2];
    size_t cap = 0;
    long count = -1;
    int lineno = 0, rc = POSSET_OK, cap_e = 0, blank_at = 0;
    if (!s) {
        set_err(err, "out of memory");
        fclose(f);
        return POSSET_ENOMEM;
    }
    ssize_t len;
    while (rc == POSSET_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (strspn(line, " \t") == (size_t)len) {
            blank_at = blank_at ? blank_at : lineno;
            continue;
        }
        if (blank_at) {
            set_err(err, "%s:%d: a blank line inside the set", path, blank_at);
            rc = POSSET_EINVAL;
            break;
        }
        size_t bad = bad_text_at(line, (size_t)len);
        if (bad) {
            set_err(err, "%s: %s at byte %zu (lines are UTF-8 JSON)", where,
                    line[bad - 1] ? "invalid UTF-8" : "a NUL byte", bad);
            rc = POSSET_EINVAL;
            break;
        }
        const char *end = NULL;
        cJSON *o = cJSON_ParseWithLengthOpts(line, (size_t)len, &end, 0);
        if (!o || !cJSON_IsObject(o)) {
            if (lineno == 1)
                set_err(err, "%s: not a position set (the first line is not a JSON object)", where);
            else
                set_err(err, "%s: not a JSON object", where);
            cJSON_Delete(o);
            rc = POSSET_EINVAL;
            break;
        }
        end += strspn(end, " \t");
        const char *dup = duplicate_key(o);
        if (end != line + len || dup) {
            if (dup)
                set_err(err, "%s: key \"%s\" appears twice in one object", where, dup);
            else
                set_err(err, "%s: text after the JSON object (at byte %zu)", where, (size_t)(end - line) + 1);
            cJSON_Delete(o);
            rc = POSSET_EINVAL;
            break;
        }
        if (lineno == 1) {
            rc = read_header(s, o, &count, where, err);
        } else if (s->n >= count) {
            set_err(err, "%s: more positions than the header's count %ld", where, count);
            rc = POSSET_EINVAL;
        } else {
            if (s->n == cap_e) {
                cap_e = cap_e ? 2 * cap_e : 256;
                posset_entry *ne = realloc(s->e, (size_t)cap_e * sizeof *ne);
                if (!ne) {
                    set_err(err, "out of memory");
                    rc = POSSET_ENOMEM;
                }
                else
                    s->e = ne;
            }
            if (rc == POSSET_OK) {
                posset_entry *e = &s->e[s->n];
                memset(e, 0, sizeof *e);
                e->line = lineno;
                if (read_entry(s, o, e, where, err))
                    rc = POSSET_EINVAL;
                else
                    s->n++;
            }
        }
        cJSON_Delete(o);
    }
    if (rc == POSSET_OK && ferror(f)) {
        set_err(err, "%s: read error", path);
        rc = POSSET_EIO;
    }
    if (rc == POSSET_OK && lineno == 0) {
        set_err(err, "%s: not a position set (the file is empty)", path);
        rc = POSSET_EINVAL;
    }
    if (rc == POSSET_OK && s->n != count) {
        set_err(err, "%s: the header says %ld positions, the file has %d", path, count, s->n);
        rc = POSSET_EINVAL;
    }
    free(line);
    fclose(f);
    if (rc != POSSET_OK) {
        posset_free(s);
        return rc;
    }
    *out = s;
    return POSSET_OK;
}
