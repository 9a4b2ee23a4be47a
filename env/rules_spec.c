/* rules_spec.c — "game:key=value,..." rules specs (docs/design.md §2, §4). */
#include "env/rules_spec.h"
#include "env/errbuf.h"
#include "env/kalah.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define set_err(err, ...) errbuf_set(err, KALAH_ERRLEN, __VA_ARGS__)

size_t rspec_game_len(const char *spec) { return spec ? strcspn(spec, ":") : 0; }

static int parse_value(const rspec_key *k, const char *val, int *out)
{
    if (k->names) {
        for (int i = 0; i <= k->hi; i++)
            if (!strcmp(val, k->names[i])) {
                *out = i;
                return 1;
            }
        return 0;
    }
    if (k->bool_words && (!strcmp(val, "false") || !strcmp(val, "true"))) {
        *out = val[0] == 't';
        return 1;
    }
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (errno || end == val || *end || v < k->lo || v > k->hi)
        return 0;
    *out = (int)v;
    return 1;
}

/* "a, b or c" for a named key, "a whole number lo..hi" for an integer one. */
static void describe(const rspec_key *k, char *buf, size_t n)
{
    if (!k->names) {
        snprintf(buf, n, "a whole number %d..%d%s", k->lo, k->hi, k->bool_words ? ", or true/false" : "");
        return;
    }
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i <= k->hi && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i == 0 ? "" : i == k->hi ? " or " : ", ", k->names[i]);
}

int rspec_parse(const char *spec, const char *game, const rspec_key *keys, int nkeys, int *values, char *err)
{
    if (!spec) {
        set_err(err, "no rules spec");
        return RSPEC_EINVAL;
    }
    size_t glen = rspec_game_len(spec);
    if (glen != strlen(game) || strncmp(spec, game, glen)) {
        set_err(err, "unknown game '%.*s' (expected '%s' or '%s:key=value,...')", (int)glen, spec, game, game);
        return RSPEC_EINVAL;
    }
    if (!spec[glen])
        return RSPEC_OK;
    char buf[256];
    if (strlen(spec + glen + 1) >= sizeof buf) {
        set_err(err, "rules spec too long (at most %zu characters after '%s:')", sizeof buf - 1, game);
        return RSPEC_EINVAL;
    }
    strcpy(buf, spec + glen + 1);
    if (!buf[0]) {
        set_err(err, "'%s:' has an empty key=value list: give at least one key=value (or write just '%s')", game,
                game);
        return RSPEC_EINVAL;
    }
    if (buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,")) {
        set_err(err, "empty key=value pair in '%s'", spec);
        return RSPEC_EINVAL;
    }
    int got[16];
    unsigned seen = 0;
    if (nkeys > 16)
        nkeys = 16;
    char *save = NULL;
    for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) {
            set_err(err, "'%s' is not key=value", kv);
            return RSPEC_EINVAL;
        }
        *eq = 0;
        int which = -1;
        for (int i = 0; i < nkeys; i++)
            if (!strcmp(kv, keys[i].key))
                which = i;
        if (which < 0) {
            char known[128];
            size_t o = 0;
            known[0] = 0;
            for (int i = 0; i < nkeys && o < sizeof known; i++)
                o += (size_t)snprintf(known + o, sizeof known - o, "%s%s", i ? ", " : "", keys[i].key);
            set_err(err, "unknown %s rules key '%s' (known: %s)", game, kv, known);
            return RSPEC_EINVAL;
        }
        if (seen & (1u << which)) {
            set_err(err, "rules key '%s' given twice", kv);
            return RSPEC_EINVAL;
        }
        seen |= 1u << which;
        if (!parse_value(&keys[which], eq + 1, &got[which])) {
            char expect[128];
            describe(&keys[which], expect, sizeof expect);
            set_err(err, "rules key %s: bad value '%s' (expected %s)", kv, eq + 1, expect);
            return RSPEC_EINVAL;
        }
    }
    for (int i = 0; i < nkeys; i++)
        if (seen & (1u << i))
            values[i] = got[i];
    return RSPEC_OK;
}

char *rspec_format(const char *game, const rspec_key *keys, int nkeys, const int *values, char *buf, size_t n)
{
    size_t o = (size_t)snprintf(buf, n, "%s", game);
    for (int i = 0; i < nkeys && o < n; i++) {
        const rspec_key *k = &keys[i];
        if (k->names && values[i] >= 0 && values[i] <= k->hi)
            o += (size_t)snprintf(buf + o, n - o, "%c%s=%s", i ? ',' : ':', k->key, k->names[values[i]]);
        else
            o += (size_t)snprintf(buf + o, n - o, "%c%s=%d", i ? ',' : ':', k->key, values[i]);
    }
    return buf;
}
