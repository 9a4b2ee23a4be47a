/* config_write.c — cfg_config → INI text (the run directory's config.ini, documented templates). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "env/game.h"
#include "eval/tbase.h"
#include "train/config.h"
#include "train/config_keys.h"

/* The shortest "%.*g" form that reads back as exactly x. */
static char *fmt_double(double x, char *buf, size_t n)
{
    if (!buf || n == 0) /* never here; GCC 12 with -O3 and ASan cannot see it and warns */
        return buf;
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return buf;
}

char *cfg_format_value(const cfg_config *c, const cfg_key *k, char *buf, size_t n)
{
    const char *field = (const char *)c + k->off;
    switch (k->type) {
    case CK_INT:
        snprintf(buf, n, "%d", *(const int *)field);
        break;
    case CK_I64:
        snprintf(buf, n, "%" PRId64, *(const int64_t *)field);
        break;
    case CK_U64:
        snprintf(buf, n, "%" PRIu64, *(const uint64_t *)field);
        break;
    case CK_DBL:
        fmt_double(*(const double *)field, buf, n);
        break;
    case CK_BOOL:
        snprintf(buf, n, "%s", *(const int *)field ? "true" : "false");
        break;
    case CK_ENUM: {
        int v = *(const int *)field, count = 0;
        while (k->names[count])
            count++;
        snprintf(buf, n, "%s", v >= 0 && v < count ? k->names[v] : "?");
        break;
    }
    case CK_STR:
    case CK_NAME:
        snprintf(buf, n, "%s", field);
        break;
    case CK_HIDDEN: {
        size_t len = 0;
        buf[0] = 0;
        for (int i = 0; i < c->net.n_hidden && len < n; i++)
            len += (size_t)snprintf(buf + len, n - len, "%s%d", i ? "," : "", c->net.hidden[i]);
        break;
    }
    case CK_OPPONENTS: {
        size_t len = 0;
        buf[0] = 0;
        const int league = !strcmp(k->section, "selfplay");
        const int count = league ? c->league.n_opponents : c->eval.n_opponents;
        for (int i = 0; i < count && len < n; i++)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
                                    league ? c->league.opponents[i] : c->eval.opponents[i]);
        break;
    }
    }
    return buf;
}

char *cfg_format_range(const cfg_key *k, char *buf, size_t n)
{
    char lo[40], hi[40];
    switch (k->type) {
    case CK_INT:
    case CK_I64:
        if (k->hi >= 9.2e18)
            snprintf(buf, n, ">= %.0f", k->lo);
        else
            snprintf(buf, n, "%.0f..%.0f", k->lo, k->hi);
        break;
    case CK_U64:
        snprintf(buf, n, "any whole number >= 0");
        break;
    case CK_DBL:
        fmt_double(k->lo, lo, sizeof lo);
        fmt_double(k->hi, hi, sizeof hi);
        snprintf(buf, n, "%s %s x %s %s", lo, k->lo_open ? "<" : "<=", k->hi_open ? "<" : "<=", hi);
        break;
    case CK_BOOL:
        snprintf(buf, n, "true or false");
        break;
    case CK_ENUM: {
        size_t len = 0;
        buf[0] = 0;
        for (int i = 0; k->names[i] && len < n; i++)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", k->names[i]);
        break;
    }
    case CK_STR:
        snprintf(buf, n, "text, at most %zu characters", k->size - 1);
        break;
    case CK_NAME:
        snprintf(buf, n, "letters, digits, _ - . (at most %zu)", k->size - 1);
        break;
    case CK_HIDDEN:
        snprintf(buf, n, "1 to %d widths in %.0f..%.0f", NN_MAX_HIDDEN, k->lo, k->hi);
        break;
    case CK_OPPONENTS:
        snprintf(buf, n, "0 to %d agent specs", CFG_MAX_OPPONENTS);
        break;
    }
    return buf;
}

/* Writes text as '# ' comment lines wrapped at ~100 columns. */
static void comment(FILE *f, const char *text)
{
    const char *p = text;
    while (*p) {
        size_t take = strlen(p);
        if (take > 98) {
            take = 98;
            while (take > 0 && p[take] != ' ')
                take--;
            if (take == 0)
                take = 98;
        }
        fprintf(f, "# %.*s\n", (int)take, p);
        p += take;
        while (*p == ' ')
            p++;
    }
}

/* The facts of c's game that decide which levers apply (train/config.c, lever_facts): its players, whether it
 * has a final margin, whether it has an exact endgame database (the Kalah rules build theirs, any other
 * kind declares it by its endgame hook), and whether its encoding starts with seed counts. */
static void game_facts(const cfg_config *c, int *players, int *margin, int *endgame, int *counts)
{
    char spec[GAME_SPEC_MAX];
    float per_unit;
    game *g = game_create(cfg_rules_spec(c, spec, sizeof spec), NULL);
    *players = g ? game_players(g) : 2;
    *margin = g ? game_has_margin(g) : 1;
    *endgame = g && (tb_supports(g) || game_get_kind(g)->endgame);
    *counts = g && game_encode_count_inputs(g, &per_unit); /* one-hot pit features: leading seed counts */
    game_free(g);
}

static int applies(const cfg_config *c, const cfg_key *k)
{
    int players, margin, endgame, counts;
    if (!strcmp(k->section, "eval") && (!strcmp(k->key, "positions") || !strncmp(k->key, "gate", 4))) {
        game_facts(c, &players, &margin, &endgame, &counts); /* solved sets and the SPRT gate: two players */
        return players == 2 && (margin || strcmp(k->key, "positions"));
    }
    if (!strcmp(k->section, "mcts") && !strcmp(k->key, "margin_utility")) { /* the score utility: a margin */
        game_facts(c, &players, &margin, &endgame, &counts);
        return players == 2 && margin;
    }
    if (!strcmp(k->key, "tablebase_seeds") || !strncmp(k->key, "rescore", 7)) {
        game_facts(c, &players, &margin, &endgame, &counts);
        return endgame;
    }
    if (!strcmp(k->section, "net") && !strcmp(k->key, "onehot_levels")) {
        game_facts(c, &players, &margin, &endgame, &counts);
        return counts;
    }
    if (strcmp(k->section, "rules"))
        return 1;
    return cfg_rules_key_applies(c, k->key); /* rules.spec alone, or the keys the game has */
}

int cfg_write(const cfg_config *c, FILE *f, int flags)
{
    cfg_config def;
    cfg_defaults(&def);
    char value[2048], dvalue[2048], range[256];
    for (int s = 0; cfg_sections[s]; s++) {
        fprintf(f, "%s[%s]\n", s ? "\n" : "", cfg_sections[s]);
        int first = 1;
        for (int i = 0; i < cfg_nkeys; i++) {
            const cfg_key *k = &cfg_keys[i];
            if (strcmp(k->section, cfg_sections[s]) || !applies(c, k))
                continue;
            if ((flags & CFG_WRITE_DOCS) && !first)
                fputc('\n', f);
            first = 0;
            if (flags & CFG_WRITE_DOCS) {
                char line[2600];
                comment(f, k->doc);
                cfg_format_value(&def, k, dvalue, sizeof dvalue);
                cfg_format_range(k, range, sizeof range);
                snprintf(line, sizeof line, "Default: %s. Range: %s.",
                         k->required ? "none (required)" : (dvalue[0] ? dvalue : "(empty)"), range);
                comment(f, line);
            }
            fprintf(f, "%s = %s\n", k->key, cfg_format_value(c, k, value, sizeof value));
        }
    }
    return ferror(f) ? -1 : 0;
}

int cfg_key_applies(const cfg_config *c, int i)
{
    return i >= 0 && i < cfg_nkeys && applies(c, &cfg_keys[i]);
}

int cfg_key_count(void)
{
    return cfg_nkeys;
}

const char *cfg_key_name(int i, char *buf, size_t n)
{
    if (i < 0 || i >= cfg_nkeys)
        return NULL;
    snprintf(buf, n, "%s.%s", cfg_keys[i].section, cfg_keys[i].key);
    return buf;
}

int cfg_was_set(const cfg_config *c, const char *section_dot_key)
{
    char name[96];
    for (int i = 0; i < cfg_nkeys; i++)
        if (!strcmp(cfg_key_name(i, name, sizeof name), section_dot_key))
            return c->line[i] != 0;
    return 0;
}
