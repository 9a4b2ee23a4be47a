/* config.c — INI → cfg_config (train/config.h): the libinih handler, value parsers, overrides, checks. */
#include "train/config.h"
#include "env/fileio.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "eval/agent.h"
#include "eval/game_agent.h"
#include "eval/tbase.h"
#include "eval/gposset.h"
#include "train/config_keys.h"

void cfg_defaults(cfg_config *c)
{
    memset(c, 0, sizeof *c);
    const kalah_rules k = kalah_rules_default(); /* the default game; cfg_finish sizes the net from the game */
    c->rules = (cfg_rules){.game = "kalah", .pits = k.pits, .seeds = k.seeds, .players = 3, .full_ranking = 1,
                           .capture = (int)k.capture, .end = (int)k.end, .max_sows = k.max_sows};
    c->net = nn_config_default(kalah_encode_dim(&k), k.pits);
    c->mcts = mcts_config_default();
    c->selfplay = selfplay_config_default();
    c->optim = nn_optim_config_default();
    c->loss = nn_loss_weights_default();
    c->train = (cfg_train){.batch_size = 256, .steps_per_iteration = 100, .replay_window = 100000,
                           .min_replay = 1000, .threads = 1, .lr_total_steps = 0};
    c->eval = (cfg_eval){.n_opponents = 1, .games = 20, .final_games = 0, .every = 5, .threads = 1,
                         .sims = 100, .batch = 1, .opening_plies = 2, .gate = CFG_GATE_NONE, .gate_every = 1,
                         .gate_elo0 = 0, .gate_elo1 = 35, .gate_alpha = 0.05, .gate_beta = 0.05, .gate_games = 200};
    strcpy(c->eval.opponents[0], "ab:depth=4");
    c->league = (cfg_league){.n_opponents = 0, .share = 0.25};
    c->run = (cfg_run){.seed = 1, .iterations = 0, .checkpoint_every = 5, .keep_checkpoints = 3};
    strcpy(c->run.dir, "runs");
    c->mpi = (cfg_mpi){.max_staleness = 2, .samples_per_message = 4096, .worker_games = 0, .flood = 0};
}

/* ---- value parsing ---- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = 0;
    return s;
}

/* Parses a whole decimal integer into *out within [lo, hi]; 0 ok, -1 not a number, -2 out of range. */
static int parse_i64(const char *s, double lo, double hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end)
        return -1;
    if (errno == ERANGE || (double)v < lo || (double)v > hi)
        return -2;
    *out = (int64_t)v;
    return 0;
}

/* A token of an opponent list starts a new spec unless it is a key=value option of the previous one: a
 * token whose first '=' comes before any ':' ("seed=3", "net=C:/x.h5"). Kinds never contain '='. */
static int starts_spec(const char *tok)
{
    const char *eq = strchr(tok, '='), *colon = strchr(tok, ':');
    return !eq || (colon && colon < eq);
}

/* The next token of an opponent list at *at: separated by commas, spaces and tabs outside quotes, so that
 * an engine's cmd='prog --flag x,y' stays whole (the agent parser reads the quotes). Cuts buf in place;
 * NULL at the end, or with *open set when a quote is not closed. */
/* The next token of an opponents list (separated by one comma and/or blanks; quotes keep their text).
 * *open: the token opens a quote it does not close. *empty: a comma with no entry before or after it
 * (",,", a leading or a trailing comma). *commas: -1 before the first call, then the parser's own. NULL at
 * the end. */
static char *next_token(char **at, int *open, int *empty, int *commas)
{
    char *p = *at;
    const int first = *commas < 0;
    if (first)
        *commas = 0;
    while (*p && strchr(", \t", *p))
        *commas += *p++ == ',';
    *empty = *commas > 1 || (*commas && (first || !*p));
    if (!*p)
        return NULL;
    char *tok = p, quote = 0;
    for (; *p && (quote || !strchr(", \t", *p)); p++)
        if (quote ? *p == quote : (*p == '\'' || *p == '"'))
            quote = quote ? 0 : *p;
    *open = quote != 0;
    *commas = *p == ','; /* the separator the token's end overwrites counts for the next call */
    if (*p)
        *p++ = 0;
    *at = p;
    return tok;
}

static int parse_opponents(cfg_config *c, const cfg_key *k, const char *v, char *msg, size_t n)
{
    const int league = !strcmp(k->section, "selfplay");
    int *n_out = league ? &c->league.n_opponents : &c->eval.n_opponents;
    char(*out)[CFG_SPEC_LEN] = league ? c->league.opponents : c->eval.opponents;
    char buf[CFG_SPEC_LEN * CFG_MAX_OPPONENTS];
    if (strlen(v) >= sizeof buf) {
        snprintf(msg, n, "value too long");
        return -1;
    }
    strcpy(buf, v);
    int count = 0;
    char specs[CFG_MAX_OPPONENTS][CFG_SPEC_LEN];
    char *at = buf;
    int open = 0, empty = 0, commas = -1;
    for (char *tok; (tok = next_token(&at, &open, &empty, &commas)) || empty;) {
        if (empty) {
            snprintf(msg, n, "an empty entry (two commas, or a comma at an end) in '%.80s'", v);
            return -1;
        }
        if (open) {
            snprintf(msg, n, "'%.60s' opens a quote that is not closed", tok);
            return -1;
        }
        if (starts_spec(tok)) {
            if (count == CFG_MAX_OPPONENTS) {
                snprintf(msg, n, "more than %d opponents", CFG_MAX_OPPONENTS);
                return -1;
            }
            if (strlen(tok) >= CFG_SPEC_LEN) {
                snprintf(msg, n, "agent spec '%.40s...' is too long", tok);
                return -1;
            }
            strcpy(specs[count++], tok);
        } else {
            if (count == 0) {
                snprintf(msg, n, "'%s' is an option without an agent before it", tok);
                return -1;
            }
            size_t len = strlen(specs[count - 1]);
            if (len + 1 + strlen(tok) >= CFG_SPEC_LEN) {
                snprintf(msg, n, "agent spec '%.60s,...' is too long", specs[count - 1]);
                return -1;
            }
            specs[count - 1][len] = ',';
            strcpy(specs[count - 1] + len + 1, tok);
        }
    }
    *n_out = count;
    memcpy(out, specs, sizeof specs);
    return 0;
}

static int parse_hidden(cfg_config *c, const cfg_key *k, const char *v, char *msg, size_t n)
{
    char buf[256];
    int widths[NN_MAX_HIDDEN], count = 0;
    if (strlen(v) >= sizeof buf) {
        snprintf(msg, n, "value too long");
        return -1;
    }
    strcpy(buf, v);
    if (strspn(buf, " \t") == strlen(buf)) {
        snprintf(msg, n, "empty: give at least one layer width");
        return -1;
    }
    /* Split on ',' by hand: strtok would merge "128,,128" into two layers and drop a trailing ",". */
    for (char *tok = buf, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = 0;
        while (*tok == ' ' || *tok == '\t')
            tok++;
        for (char *e = tok + strlen(tok); e > tok && (e[-1] == ' ' || e[-1] == '\t');)
            *--e = 0;
        int64_t w;
        int rc = *tok ? parse_i64(tok, k->lo, k->hi, &w) : -1;
        if (rc || count == NN_MAX_HIDDEN) {
            snprintf(msg, n, "'%s' is not a list of 1 to %d layer widths in %g..%g", v, NN_MAX_HIDDEN, k->lo,
                     k->hi);
            return -1;
        }
        widths[count++] = (int)w;
    }
    if (count == 0) {
        snprintf(msg, n, "empty: give at least one layer width");
        return -1;
    }
    c->net.n_hidden = count;
    memset(c->net.hidden, 0, sizeof c->net.hidden);
    memcpy(c->net.hidden, widths, (size_t)count * sizeof widths[0]);
    return 0;
}

/* Parses value v for key k into c; 0, or -1 with the reason in msg. */
static int apply_value(cfg_config *c, const cfg_key *k, const char *v, char *msg, size_t n)
{
    char *field = (char *)c + k->off;
    char range[160];
    switch (k->type) {
    case CK_INT:
    case CK_I64: {
        int64_t x;
        int rc = parse_i64(v, k->lo, k->hi, &x);
        if (rc) {
            snprintf(msg, n, "%s '%s': expected a whole number in %s", rc == -1 ? "bad value" : "out of range", v,
                     cfg_format_range(k, range, sizeof range));
            return -1;
        }
        if (k->type == CK_INT)
            *(int *)field = (int)x;
        else
            *(int64_t *)field = x;
        return 0;
    }
    case CK_U64: {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(v, &end, 10);
        if (end == v || *end || strchr(v, '-') || errno == ERANGE) {
            snprintf(msg, n, "bad value '%s': expected a whole number in 0..18446744073709551615", v);
            return -1;
        }
        *(uint64_t *)field = (uint64_t)x;
        return 0;
    }
    case CK_DBL: {
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        if (end == v || *end || !isfinite(x)) {
            snprintf(msg, n, "bad value '%s': expected a number %s", v, cfg_format_range(k, range, sizeof range));
            return -1;
        }
        if (x < k->lo || x > k->hi || (k->lo_open && x == k->lo) || (k->hi_open && x == k->hi)) {
            snprintf(msg, n, "out of range '%s': expected a number %s", v, cfg_format_range(k, range, sizeof range));
            return -1;
        }
        /* Training runs with flush-to-zero and denormals-are-zero (train.h), and the net computes in float:
         * a nonzero value below the smallest normal float would silently act as 0 (or fail "> 0" later). */
        if (x != 0 && fabs(x) < FLT_MIN) {
            snprintf(msg, n, "out of range '%s': a nonzero value must be at least %.8g in magnitude (smaller "
                     "ones act as 0 in float arithmetic); expected a number %s", v, (double)FLT_MIN,
                     cfg_format_range(k, range, sizeof range));
            return -1;
        }
        *(double *)field = x;
        return 0;
    }
    case CK_BOOL: {
        static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no", "off"};
        for (int i = 0; i < 4; i++) {
            if (!strcasecmp(v, yes[i]) || !strcasecmp(v, no[i])) {
                *(int *)field = !strcasecmp(v, yes[i]);
                return 0;
            }
        }
        snprintf(msg, n, "bad value '%s': expected true or false (also yes/no, on/off, 1/0)", v);
        return -1;
    }
    case CK_ENUM:
        for (int i = 0; k->names[i]; i++)
            if (!strcmp(v, k->names[i])) {
                *(int *)field = i;
                return 0;
            }
        snprintf(msg, n, "bad value '%s': expected one of %s", v, cfg_format_range(k, range, sizeof range));
        return -1;
    case CK_STR:
    case CK_NAME:
        if (strlen(v) >= k->size) {
            snprintf(msg, n, "value too long (at most %zu characters)", k->size - 1);
            return -1;
        }
        if (k->type == CK_STR && k->lo > 0 && !*v) {
            snprintf(msg, n, "empty value");
            return -1;
        }
        if (k->type == CK_NAME) {
            for (const char *p = v; *p; p++) {
                int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                         *p == '_' || *p == '-' || (*p == '.' && p != v);
                if (!ok) {
                    snprintf(msg, n, "bad value '%s': use letters, digits, '_', '-' and '.' (not first)", v);
                    return -1;
                }
            }
        }
        strcpy(field, v);
        return 0;
    case CK_HIDDEN:
        return parse_hidden(c, k, v, msg, n);
    case CK_OPPONENTS:
        return parse_opponents(c, k, v, msg, n);
    }
    snprintf(msg, n, "internal error: unknown key type");
    return -1;
}

static int section_known(const char *s)
{
    for (int i = 0; cfg_sections[i]; i++)
        if (!strcmp(cfg_sections[i], s))
            return 1;
    return 0;
}

static const cfg_key *find_key(const char *section, const char *name, int *index)
{
    for (int i = 0; i < cfg_nkeys; i++)
        if (!strcmp(cfg_keys[i].section, section) && !strcmp(cfg_keys[i].key, name)) {
            *index = i;
            return &cfg_keys[i];
        }
    return NULL;
}

/* "unknown key x.y (keys of [x]: a, b, c)" */
static void unknown_key(const char *section, const char *name, char *msg, size_t n)
{
    size_t len = (size_t)snprintf(msg, n, "unknown key (keys of [%s]:", section);
    for (int i = 0; i < cfg_nkeys && len < n; i++)
        if (!strcmp(cfg_keys[i].section, section))
            len += (size_t)snprintf(msg + len, n - len, " %s", cfg_keys[i].key);
    if (len < n)
        snprintf(msg + len, n - len, ")");
    (void)name;
}

static void unknown_section(const char *section, char *msg, size_t n)
{
    size_t len = (size_t)snprintf(msg, n, "unknown section [%s] (sections:", section);
    for (int i = 0; cfg_sections[i] && len < n; i++)
        len += (size_t)snprintf(msg + len, n - len, " [%s]", cfg_sections[i]);
    if (len < n)
        snprintf(msg + len, n - len, ")");
}

/* ---- the file ---- */

typedef struct {
    cfg_config *c;
    FILE *f;
    const char *path;
    int line;            /* line most recently handed to inih */
    int err_line;        /* first error found by the reader or handler (0 = none) */
    char err[CFG_ERRLEN];
    char *buf;           /* getline buffer */
    size_t cap;
} loader;

static void loader_error(loader *ld, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void loader_error(loader *ld, int line, const char *fmt, ...)
{
    if (ld->err_line)
        return;
    ld->err_line = line;
    int w = snprintf(ld->err, sizeof ld->err, "%s:%d: ", ld->path, line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ld->err + w, sizeof ld->err - (size_t)w, fmt, ap);
    va_end(ap);
}

/* inih's line reader: counts lines (inih calls the handler for a line before reading the next, so
 * ld->line is the handler's line), rejects over-long lines instead of letting inih split them, and checks
 * section headers here because inih only reports sections through their keys. */
static char *reader(char *str, int num, void *stream)
{
    loader *ld = stream;
    ssize_t got = getline(&ld->buf, &ld->cap, ld->f);
    if (got < 0)
        return NULL;
    ld->line++;
    /* inih sees C strings: a NUL byte would silently end the line ("pits = 6\0garbage" read as 6). */
    if (memchr(ld->buf, 0, (size_t)got))
        loader_error(ld, ld->line, "a NUL byte in the line (is this a text file?)");
    char *s = ld->buf;
    while (*s == ' ' || *s == '\t')
        s++;
    int comment = *s == '#' || *s == ';';
    size_t len = (size_t)got;
    while (len && (ld->buf[len - 1] == '\n' || ld->buf[len - 1] == '\r'))
        len--;
    if (len > (size_t)num - 3 && !comment) {
        loader_error(ld, ld->line, "line longer than %d characters", num - 3);
        len = (size_t)num - 3;
    }
    if (len > (size_t)num - 3)
        len = (size_t)num - 3;
    memcpy(str, ld->buf, len);
    str[len] = '\n';
    str[len + 1] = 0;
    if (*s == '[') {
        char name[64];
        const char *close = strchr(s, ']');
        size_t nl = close ? (size_t)(close - s - 1) : 0;
        if (close && nl < sizeof name) {
            memcpy(name, s + 1, nl);
            name[nl] = 0;
            if (!section_known(trim(name))) {
                char msg[CFG_ERRLEN / 2];
                unknown_section(trim(name), msg, sizeof msg);
                loader_error(ld, ld->line, "%s", msg);
            }
        }
    }
    return str;
}

/* Removes a trailing " # comment" (inih itself strips only " ; comment"). */
static void strip_hash_comment(char *v)
{
    for (char *p = v; *p; p++)
        if (*p == '#' && (p == v || p[-1] == ' ' || p[-1] == '\t')) {
            *p = 0;
            break;
        }
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    loader *ld = user;
    if (ld->err_line)
        return 1;  /* report the first error only; inih's own syntax errors are compared by line */
    if (!*section) {
        loader_error(ld, ld->line, "%s: key outside any section (put it under [rules], [net], ...)", name);
        return 1;
    }
    if (!section_known(section))
        return 1;  /* already reported at the section header */
    int index;
    const cfg_key *k = find_key(section, name, &index);
    char msg[CFG_ERRLEN / 2];
    if (!k) {
        unknown_key(section, name, msg, sizeof msg);
        loader_error(ld, ld->line, "%s.%s: %s", section, name, msg);
        return 1;
    }
    if (ld->c->line[index] > 0) {
        loader_error(ld, ld->line, "%s.%s: given twice (first on line %d)", section, name, ld->c->line[index]);
        return 1;
    }
    char v[CFG_MAX_LINE + 4];
    snprintf(v, sizeof v, "%s", value);
    strip_hash_comment(v);
    if (apply_value(ld->c, k, trim(v), msg, sizeof msg) != 0) {
        loader_error(ld, ld->line, "%s.%s: %s", section, name, msg);
        return 1;
    }
    ld->c->line[index] = ld->line;
    return 1;
}

int cfg_load(cfg_config *c, const char *path, char *err)
{
    loader ld = {.c = c, .path = path};
    if (strlen(path) >= sizeof c->path) {
        snprintf(err, CFG_ERRLEN, "%.200s...: path too long", path);
        return -1;
    }
    ld.f = sz_fopen_input(path);
    if (!ld.f) {
        snprintf(err, CFG_ERRLEN, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int rc = ini_parse_stream(reader, &ld, handler, &ld);
    int read_error = ferror(ld.f);
    fclose(ld.f);
    free(ld.buf);
    if (read_error) {
        snprintf(err, CFG_ERRLEN, "%s: read error", path);
        return -1;
    }
    if (rc > 0 && (!ld.err_line || rc < ld.err_line)) {
        snprintf(err, CFG_ERRLEN, "%s:%d: syntax error: expected 'key = value', '[section]' or a comment", path,
                 rc);
        return -1;
    }
    if (rc < 0) {
        snprintf(err, CFG_ERRLEN, "%s: cannot parse (libinih error %d)", path, rc);
        return -1;
    }
    if (ld.err_line) {
        snprintf(err, CFG_ERRLEN, "%s", ld.err);
        return -1;
    }
    strcpy(c->path, path);
    return 0;
}

int cfg_set(cfg_config *c, const char *assignment, char *err)
{
    char buf[1024], msg[CFG_ERRLEN / 2];
    if (strlen(assignment) >= sizeof buf) {
        snprintf(err, CFG_ERRLEN, "--set %.60s...: too long", assignment);
        return -1;
    }
    strcpy(buf, assignment);
    char *eq = strchr(buf, '=');
    char *dot = strchr(buf, '.');
    if (!eq || !dot || dot > eq) {
        snprintf(err, CFG_ERRLEN, "--set %.400s: expected section.key=value", assignment);
        return -1;
    }
    *eq = 0;
    *dot = 0;
    char *section = trim(buf), *name = trim(dot + 1), *value = trim(eq + 1);
    int index;
    const cfg_key *k;
    if (!section_known(section)) {
        unknown_section(section, msg, sizeof msg);
        snprintf(err, CFG_ERRLEN, "--set %s: %s", assignment, msg);
        return -1;
    }
    if (!(k = find_key(section, name, &index))) {
        unknown_key(section, name, msg, sizeof msg);
        snprintf(err, CFG_ERRLEN, "--set %s: %s.%s: %s", assignment, section, name, msg);
        return -1;
    }
    if (apply_value(c, k, value, msg, sizeof msg) != 0) {
        snprintf(err, CFG_ERRLEN, "--set %s: %s.%s: %s", assignment, section, name, msg);
        return -1;
    }
    c->line[index] = CFG_FROM_SET;
    return 0;
}

/* "FILE:LINE: " or "--set " prefix describing where key `section.key` came from. */
static void origin(const cfg_config *c, const char *section, const char *name, char *buf, size_t n)
{
    int index;
    if (!find_key(section, name, &index) || c->line[index] == 0)
        snprintf(buf, n, "%s: ", c->path[0] ? c->path : "config");
    else if (c->line[index] == CFG_FROM_SET)
        snprintf(buf, n, "--set %s.%s: ", section, name);
    else
        snprintf(buf, n, "%s:%d: ", c->path, c->line[index]);
}

static int check_fail(const cfg_config *c, char *err, const char *section, const char *name, const char *fmt,
                      ...) __attribute__((format(printf, 5, 6)));
static int check_fail(const cfg_config *c, char *err, const char *section, const char *name, const char *fmt, ...)
{
    char where[CFG_PATH_LEN + 64];
    origin(c, section, name, where, sizeof where);
    int w = snprintf(err, CFG_ERRLEN, "%s", where);
    if (w < 0 || w >= CFG_ERRLEN)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + w, CFG_ERRLEN - (size_t)w, fmt, ap);
    va_end(ap);
    return -1;
}

/* The key named inside a module's message "selfplay.threads must be ..." (first word before " "), if it is
 * one of ours; else the fallback. */
static void key_of_message(const char *msg, const char *fb_section, const char *fb_key, char *section,
                           char *name)
{
    char word[96];
    int index;
    strcpy(section, fb_section);
    strcpy(name, fb_key);
    if (sscanf(msg, "%95s", word) != 1)
        return;
    char *dot = strchr(word, '.');
    if (!dot)
        return;
    *dot = 0;
    char *end = dot + 1 + strcspn(dot + 1, ":, ");
    *end = 0;
    if (find_key(word, dot + 1, &index)) {
        strcpy(section, word);
        strcpy(name, dot + 1);
    }
}

/* ---- [rules] ---- */

/* The [rules] keys a game kind may have (its rule_keys), in the key table's order. */
static const char *const rules_keys[] = {"pits", "seeds", "players", "full_ranking", "capture", "end", "max_sows",
                                         NULL};

static int kind_has_key(const game_kind *kind, const char *key)
{
    for (int i = 0; kind && kind->rule_keys[i]; i++)
        if (!strcmp(kind->rule_keys[i], key))
            return 1;
    return 0;
}

int cfg_rules_key_applies(const cfg_config *c, const char *key)
{
    if (!strcmp(key, "spec"))
        return c->spec[0] != 0;
    if (c->spec[0])
        return 0;
    return !strcmp(key, "game") || kind_has_key(game_kind_find(c->rules.game), key);
}

/* rules.game with every rules key the config gives, "NAME:key=value,..." (the game's defaults for the
 * others); into buf[n]. */
static char *compose_spec(const cfg_config *c, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "%s", c->rules.game);
    char sep = ':', value[64];
    for (int i = 0; rules_keys[i] && len < n; i++) {
        int index = 0;
        const cfg_key *k = find_key("rules", rules_keys[i], &index);
        if (!k || !c->line[index])
            continue;
        len += (size_t)snprintf(buf + len, n - len, "%c%s=%s", sep, k->key, cfg_format_value(c, k, value, sizeof value));
        sep = ',';
    }
    return buf;
}

/* The [rules] key a rules parser's message is about: the first rules key named in it as a word, else
 * rules.game. */
static const char *rules_key_of_message(const char *msg)
{
    const char *best = "game", *at = NULL;
    for (int i = 0; rules_keys[i]; i++) {
        const size_t len = strlen(rules_keys[i]);
        for (const char *p = strstr(msg, rules_keys[i]); p; p = strstr(p + 1, rules_keys[i])) {
            const int word = (p == msg || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
                             !(isalnum((unsigned char)p[len]) || p[len] == '_');
            if (word && (!at || p < at)) {
                at = p;
                best = rules_keys[i];
            }
            if (word)
                break;
        }
    }
    return best;
}

/* Fills the [rules] keys the game has from its canonical spec "NAME:key=value,...", so the effective config
 * shows the values the run uses (the game's defaults included). */
static void rules_from_spec(cfg_config *c, const char *spec)
{
    char buf[GAME_SPEC_MAX], msg[CFG_ERRLEN];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL, *colon = strchr(buf, ':');
    for (char *kv = colon ? strtok_r(colon + 1, ",", &save) : NULL; kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        int index = 0;
        if (!eq)
            continue;
        *eq = 0;
        const cfg_key *k = find_key("rules", kv, &index);
        if (k && strcmp(kv, "game") && strcmp(kv, "spec"))
            apply_value(c, k, eq + 1, msg, sizeof msg); /* a value beyond the key's range keeps the field */
    }
}

/* 1 when rules key `key` (its name, `len` bytes) was given on the command line. */
static int set_on_command_line(const cfg_config *c, const char *key, size_t len)
{
    for (int i = 0; rules_keys[i]; i++) {
        int index = 0;
        if (strlen(rules_keys[i]) == len && !strncmp(rules_keys[i], key, len) &&
            find_key("rules", rules_keys[i], &index) && c->line[index] == CFG_FROM_SET)
            return 1;
    }
    return 0;
}

/* The command line beats the file in how the rules are given, as it does key by key: --set rules.spec
 * drops the file's rules.game and rules keys; --set rules.game drops the file's rules.spec (the file's
 * rules keys then apply as usual); a --set rules key over a file's spec replaces that key in the spec (or
 * adds it), the spec's game and other keys kept (oware.ini with --set rules.pits=4 is a 4-pit Oware).
 * Both ways in one source stay an error (rules_game). */
static void command_line_rules_win(cfg_config *c)
{
    int spec_index = 0, index = 0, game_index = 0;
    if (!find_key("rules", "spec", &spec_index) || !find_key("rules", "game", &game_index))
        return;
    const int spec_from = c->line[spec_index];
    if (spec_from == 0)
        return;
    int keys_set = 0;
    for (int i = -1; i < 0 || rules_keys[i]; i++) {
        if (!find_key("rules", i < 0 ? "game" : rules_keys[i], &index))
            continue;
        if (spec_from == CFG_FROM_SET && c->line[index] > 0)
            c->line[index] = 0;
        keys_set |= i >= 0 && c->line[index] == CFG_FROM_SET;
    }
    if (spec_from <= 0)
        return;
    if (c->line[game_index] == CFG_FROM_SET) {
        c->spec[0] = 0;
        c->line[spec_index] = 0;
        return;
    }
    if (!keys_set)
        return;
    /* "NAME:k=v,..." with the command line's keys in place of the spec's own */
    char merged[GAME_SPEC_MAX], value[64];
    const char *colon = strchr(c->spec, ':');
    size_t len = (size_t)snprintf(merged, sizeof merged, "%.*s", (int)(colon ? colon - c->spec : (long)strlen(c->spec)),
                                  c->spec);
    char sep = ':';
    for (const char *at = colon ? colon + 1 : NULL; at && *at && len < sizeof merged;) {
        const size_t n = strcspn(at, ","), klen = strcspn(at, "=,");
        if (!set_on_command_line(c, at, klen)) {
            len += (size_t)snprintf(merged + len, sizeof merged - len, "%c%.*s", sep, (int)n, at);
            sep = ',';
        }
        at += n + (at[n] == ',');
    }
    for (int i = 0; rules_keys[i] && len < sizeof merged; i++) {
        const cfg_key *k = find_key("rules", rules_keys[i], &index);
        if (!k || c->line[index] != CFG_FROM_SET)
            continue;
        len += (size_t)snprintf(merged + len, sizeof merged - len, "%c%s=%s", sep, k->key,
                                cfg_format_value(c, k, value, sizeof value));
        sep = ',';
        c->line[index] = 0;
    }
    snprintf(c->spec, sizeof c->spec, "%s", merged);
    c->line[spec_index] = CFG_FROM_SET; /* it now holds the command line's values: a bad one is blamed there */
}

/* The run's game from [rules] (rules.spec, or rules.game with the keys given), checked by the game's own
 * parser; *out owned by the caller. 0, or -1 with the message naming the key. */
static int rules_game(cfg_config *c, game **out, char *err)
{
    char spec[GAME_SPEC_MAX], gerr[GAME_ERRLEN];
    *out = NULL;
    command_line_rules_win(c);
    if (c->spec[0]) {
        for (int i = -1; i < 0 || rules_keys[i]; i++) {
            char k[48];
            snprintf(k, sizeof k, "rules.%s", i < 0 ? "game" : rules_keys[i]);
            if (cfg_was_set(c, k))
                return check_fail(c, err, "rules", k + 6,
                                  "%s: the rules are given by rules.spec; remove one or the other", k);
        }
        if (!(*out = game_create(c->spec, gerr)))
            return check_fail(c, err, "rules", "spec", "rules.spec: %s", gerr);
        return 0;
    }
    const game_kind *kind = game_kind_find(c->rules.game);
    if (!kind || strchr(c->rules.game, ':')) {
        char names[256] = "";
        for (int i = 0; i < game_kind_count(); i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     game_kind_at(i)->name);
        return check_fail(c, err, "rules", "game", "rules.game: unknown game '%s' (registered: %s)", c->rules.game,
                          names);
    }
    for (int i = 0; rules_keys[i]; i++) {
        char k[48];
        snprintf(k, sizeof k, "rules.%s", rules_keys[i]);
        if (cfg_was_set(c, k) && !kind_has_key(kind, rules_keys[i])) {
            char keys[256] = "";
            for (int j = 0; kind->rule_keys[j]; j++)
                snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", j ? ", " : "", kind->rule_keys[j]);
            return check_fail(c, err, "rules", rules_keys[i], "%s: %s has no rules key '%s' (its keys: %s)", k,
                              kind->name, rules_keys[i], keys);
        }
    }
    if (!(*out = game_create(compose_spec(c, spec, sizeof spec), gerr))) {
        const char *key = rules_key_of_message(gerr);
        return check_fail(c, err, "rules", key, "rules.%s: %s", key, gerr);
    }
    rules_from_spec(c, game_spec(*out));
    return 0;
}

/* The training levers that need a fact of the game (env/game.h) refused where it lacks it, with the fact
 * named; every other lever applies to every game. Whether g (the run's game) has an exact endgame database:
 * the Kalah rules build theirs (eval/tbase.h), any other kind declares it by its endgame hook. 0, or -1
 * with the message. */
static int lever_facts(const cfg_config *c, const game *g, char *err)
{
    const int np = game_players(g);
    if (c->eval.positions[0] && (np != 2 || !game_has_margin(g)))
        return check_fail(c, err, "eval", "positions",
                          "eval.positions needs a two-player game with a final margin (a solved set holds the exact "
                          "margin of every move); %s has %s", game_name(g),
                          np != 2 ? "more than two players" : "no margin");
    if (c->mcts.margin_utility > 0 && (np != 2 || !game_has_margin(g)))
        return check_fail(c, err, "mcts", "margin_utility",
                          "mcts.margin_utility needs a two-player game with a final margin (the utility weighs the "
                          "margin in); %s has %s", game_name(g), np != 2 ? "more than two players" : "no margin");
    if (c->mcts.margin_utility > 0 && !c->net.margin_head)
        return check_fail(c, err, "mcts", "margin_utility",
                          "mcts.margin_utility needs the margin head's estimate: set net.margin_head = true");
    if (c->selfplay.q_ratio > 0 && c->mcts.margin_utility > 0)
        return check_fail(c, err, "selfplay", "q_ratio",
                          "selfplay.q_ratio needs mcts.margin_utility = 0: the search's Q then mixes the margin "
                          "into the value, in other units than the value target");
    if (c->eval.gate != CFG_GATE_NONE && np != 2)
        return check_fail(c, err, "eval", "gate",
                          "eval.gate needs a two-player game: the SPRT scores colour-swapped pairs of games "
                          "between two nets (pentanomial, eval/sprt.h); %s has %d players", game_name(g), np);
    const int endgame = tb_supports(g) || game_get_kind(g)->endgame; /* built by eval/tbase.h, or the kind's */
    static const char *const need_db[][2] = {{"mcts", "tablebase_seeds"}, {"eval", "tablebase_seeds"},
                                             {"selfplay", "rescore"}, {"selfplay", "rescore_policy"}};
    const int on[] = {c->mcts.tablebase_seeds > 0, c->eval.tablebase_seeds > 0, c->selfplay.rescore,
                      c->selfplay.rescore_policy};
    char why[160];
    for (int i = 0; i < 4 && !endgame; i++) {
        if (on[i] && tb_unsupported_reason(g, why, sizeof why))
            return check_fail(c, err, need_db[i][0], need_db[i][1],
                              "%s.%s needs an exact endgame database, and %s has none: %s", need_db[i][0],
                              need_db[i][1], game_name(g), why);
        if (on[i])
            return check_fail(c, err, need_db[i][0], need_db[i][1],
                              "%s.%s needs an exact endgame database, and %s declares none (its game kind has no "
                              "endgame hook, env/game.h)", need_db[i][0], need_db[i][1], game_name(g));
    }
    return 0;
}

int cfg_finish(cfg_config *c, char *err)
{
    for (int i = 0; i < cfg_nkeys; i++)
        if (cfg_keys[i].required && c->line[i] == 0)
            return check_fail(c, err, cfg_keys[i].section, cfg_keys[i].key,
                              "missing required key %s.%s (add it under [%s])", cfg_keys[i].section,
                              cfg_keys[i].key, cfg_keys[i].section);
    char msg[NN_ERRLEN + AGENT_ERRLEN], sec[32], key[32];
    game *rg;
    if (rules_game(c, &rg, err))
        return -1;
    /* The net's shape from the game interface. */
    const int np = game_players(rg), margin = game_has_margin(rg);
    c->net.input_dim = game_encode_dim(rg);
    c->net.n_policy = game_moves(rg);
    c->net.n_value = game_value_dim(rg);
    game_free(rg);
    if (c->net.margin_head && !margin) {
        if (cfg_was_set(c, "net.margin_head"))
            return check_fail(c, err, "net", "margin_head",
                              "net.margin_head: this game has no final margin to predict; set false");
        c->net.margin_head = 0;
    }
    /* The default opponent, alpha-beta on the margin, needs two players and a margin. */
    if (!cfg_was_set(c, "eval.opponents") && (np != 2 || !margin)) {
        c->eval.n_opponents = 1;
        strcpy(c->eval.opponents[0], "greedy");
    }
    /* The default game count rounded up to whole seat rotations (20 -> 21 for three players). */
    if (np > 2 && !cfg_was_set(c, "eval.games"))
        c->eval.games = (c->eval.games + np - 1) / np * np;
    if (np > 2 && (c->eval.games % np || c->eval.final_games % np))
        return check_fail(c, err, "eval", c->eval.games % np ? "games" : "final_games",
                          "eval.%s must be a multiple of the players (%d: the trained agent takes each seat "
                          "equally often)", c->eval.games % np ? "games" : "final_games", np);
    /* One-hot pit features: the leading inputs the game's encoding declares seed counts on one scale
     * (game_encode_count_inputs: its layout and encode form). */
    if (c->net.onehot_levels == 1)
        return check_fail(c, err, "net", "onehot_levels", "net.onehot_levels must be 0 (off) or 2..%d, got 1",
                          NN_MAX_ONEHOT_LEVELS);
    if (c->net.onehot_levels > 1) {
        char spec[GAME_SPEC_MAX];
        game *g = game_create(cfg_rules_spec(c, spec, sizeof spec), NULL); /* the rules were checked above */
        float per_unit = 0;
        const int counts = g ? game_encode_count_inputs(g, &per_unit) : 0;
        game_free(g);
        if (!counts)
            return check_fail(c, err, "net", "onehot_levels",
                              "net.onehot_levels needs an encoding whose first inputs are seed counts (the game kind's "
                              "layout and encode form, env/game.h); %s declares none", spec);
        c->net.onehot_inputs = counts;
        c->net.onehot_scale = per_unit;
    } else {
        c->net.onehot_inputs = 0;
        c->net.onehot_scale = 0.0f;
    }
    if (nn_config_check(&c->net, msg) != NN_OK) /* blame the key the message is about */
        return check_fail(c, err, "net", strstr(msg, "activation") ? "activation" : "hidden", "[net]: %s", msg);
    if (mcts_config_check(&c->mcts, msg) != MCTS_OK) {
        key_of_message(msg, "mcts", "sims", sec, key);
        return check_fail(c, err, sec, key, "%s", msg);
    }
    if (selfplay_config_check(&c->selfplay, msg) != MCTS_OK) {
        key_of_message(msg, "selfplay", "games", sec, key);
        return check_fail(c, err, sec, key, "%s", msg);
    }
    if (c->train.lr_anneal_by == CFG_ANNEAL_TIME) {
        const char *why = c->optim.sched.kind != NN_LR_COSINE ? "needs train.lr_schedule = cosine"
                          : c->run.time_limit <= 0            ? "needs run.time_limit > 0 (the budget it plans over)"
                          : c->train.lr_total_steps != 0      ? "needs train.lr_total_steps = 0 (it plans the length)"
                                                              : NULL;
        if (why)
            return check_fail(c, err, "train", "lr_anneal_by", "train.lr_anneal_by = time %s", why);
    }
    int64_t auto_steps = c->run.iterations * (int64_t)c->train.steps_per_iteration;
    c->optim.sched.total_steps = c->train.lr_total_steps ? c->train.lr_total_steps : (auto_steps > 0 ? auto_steps : 1);
    if (c->optim.sched.lr_min > c->optim.sched.lr)
        return check_fail(c, err, "train", "lr_min", "train.lr_min (%g) must not exceed train.lr (%g)",
                          c->optim.sched.lr_min, c->optim.sched.lr);
    if (nn_optim_config_check(&c->optim, msg) != NN_OK)
        return check_fail(c, err, "train", "optimizer", "[train]: %s", msg);
    if (c->train.overlap && c->train.threads > 1) /* OpenBLAS's thread count is one for the whole process */
        return check_fail(c, err, "train", "overlap", "train.overlap = 1 runs SGD on one BLAS thread beside the "
                          "self-play workers: set train.threads = 1 (it is %d)", c->train.threads);
    if (c->train.min_replay > c->train.replay_window)
        return check_fail(c, err, "train", "min_replay", "train.min_replay (%d) exceeds train.replay_window (%d)",
                          c->train.min_replay, c->train.replay_window);
    /* The opponents and the seat plan through the game interface (eval/game_agent.h, eval/game_match.h):
     * two-player games come in colour-swapped pairs. */
    char spec[GAME_SPEC_MAX], gerr[GAME_ERRLEN];
    game *g = game_create(cfg_rules_spec(c, spec, sizeof spec), gerr);
    if (!g)
        return check_fail(c, err, "rules", "spec", "rules.spec: %s", gerr);
    int duel = game_players(g) == 2;
    if (c->eval.games % 2 && duel) {
        game_free(g);
        return check_fail(c, err, "eval", "games", "eval.games must be even (colour-swapped pairs), got %d",
                          c->eval.games);
    }
    if ((c->eval.final_games % 2 && duel) || c->eval.final_games == 1) {
        game_free(g);
        return check_fail(c, err, "eval", "final_games",
                          "eval.final_games must be 0 or even (colour-swapped pairs), got %d", c->eval.final_games);
    }
    for (int l = 0; l < 2; l++) { /* the evaluation's opponents, then the self-play league's */
        const char *sec = l ? "selfplay" : "eval";
        for (int i = 0; i < (l ? c->league.n_opponents : c->eval.n_opponents); i++) {
            char aerr[AGENT_ERRLEN];
            game_agent *a = game_agent_create(l ? c->league.opponents[i] : c->eval.opponents[i], g, aerr);
            game_agent_free(a);
            if (!a) {
                game_free(g);
                return check_fail(c, err, sec, "opponents", "%s.opponents: %s", sec, aerr);
            }
        }
    }
    int fact = lever_facts(c, g, err); /* the levers some games' facts rule out */
    game_free(g);
    if (fact)
        return fact;
    if (c->selfplay.rescore && !c->mcts.tablebase_seeds)
        return check_fail(c, err, "selfplay", "rescore",
                          "selfplay.rescore needs mcts.tablebase_seeds >= 1 (the database it rescores with)");
    if (c->eval.tablebase_seeds && c->eval.sims == 0)
        return check_fail(c, err, "eval", "tablebase_seeds",
                          "eval.tablebase_seeds needs eval.sims >= 1 (the raw policy does not search)");
    if (c->eval.gate_elo0 >= c->eval.gate_elo1)
        return check_fail(c, err, "eval", "gate_elo1", "eval.gate_elo1 (%g) must exceed eval.gate_elo0 (%g)",
                          c->eval.gate_elo1, c->eval.gate_elo0);
    if (c->eval.gate_games % 2)
        return check_fail(c, err, "eval", "gate_games", "eval.gate_games must be even (colour-swapped pairs), got %d",
                          c->eval.gate_games);
    if (!c->run.name[0]) {
        const char *base = c->path[0] ? strrchr(c->path, '/') : NULL;
        base = base ? base + 1 : c->path[0] ? c->path : "run";
        size_t len = strlen(base);
        if (len > 4 && !strcmp(base + len - 4, ".ini"))
            len -= 4;
        size_t j = 0;
        for (size_t i = 0; i < len && j + 1 < sizeof c->run.name; i++) {
            char ch = base[i];
            int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                     ch == '_' || ch == '-' || (ch == '.' && j > 0);
            c->run.name[j++] = ok ? ch : '_';
        }
        c->run.name[j] = 0;
        if (!j)
            strcpy(c->run.name, "run");
    }
    return 0;
}

int cfg_load_positions(const cfg_config *c, cfg_positions *out, char *err)
{
    memset(out, 0, sizeof *out);
    if (!c->eval.positions[0])
        return 0;
    char perr[GPS_LOAD_ERRLEN], want[GAME_SPEC_MAX], got[GAME_SPEC_MAX];
    cfg_rules_spec(c, want, sizeof want);
    if (gps_load(c->eval.positions, &out->set, &out->game, perr) != PS_OK)
        return check_fail(c, err, "eval", "positions", "eval.positions: %s", perr);
    snprintf(got, sizeof got, "%s", game_spec(out->game));
    if (strcmp(want, got)) {
        cfg_positions_free(out);
        return check_fail(c, err, "eval", "positions", "eval.positions: %s is a set of %s, not of the run's rules %s",
                          c->eval.positions, got, want);
    }
    return 0;
}

void cfg_positions_free(cfg_positions *p)
{
    gps_free(p->set);
    game_free(p->game);
    memset(p, 0, sizeof *p);
}

char *cfg_rules_spec(const cfg_config *c, char *buf, size_t n)
{
    char spec[GAME_SPEC_MAX];
    if (c->spec[0])
        snprintf(spec, sizeof spec, "%s", c->spec);
    else
        compose_spec(c, spec, sizeof spec);
    game *g = game_create(spec, NULL);
    snprintf(buf, n, "%s", g ? game_spec(g) : spec);
    game_free(g);
    return buf;
}
