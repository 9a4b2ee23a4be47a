#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "env/game.h"

/* Length of the valid UTF-8 sequence (RFC 3629: 2-4 bytes, no overlong forms, no surrogates, at most
 * U+10FFFF) starting at s, or 0 when it is not one. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    if (n == 3 && s[0] > 0xef)
        n = 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
        (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

void cli_error(const char *cmd, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* Messages quote what they refuse, which can be the raw bytes of a corrupt file: control bytes and
     * invalid UTF-8 are shown as \xNN so that the terminal and line-based logs get one readable line. */
    fprintf(stderr, "sowzero %s: ", cmd);
    for (const unsigned char *s = (const unsigned char *)buf; *s;) {
        int n = *s >= 0x80 ? utf8_len(s) : (*s >= 0x20 && *s != 0x7f);
        if (n) {
            fwrite(s, 1, (size_t)n, stderr);
            s += n;
        } else
            fprintf(stderr, "\\x%02x", *s++);
    }
    fputc('\n', stderr);
}

int cli_rules(const char *cmd, const char *spec, kalah_rules *out)
{
    char err[KALAH_ERRLEN];
    if (kalah_rules_parse(spec, out, err) != KALAH_OK) {
        char gerr[GAME_ERRLEN];
        game *g = game_create(spec, gerr); /* the rules of a game, but not Kalah's: another game */
        if (g)
            cli_error(cmd, "--rules '%s': this command plays Kalah only; %s works with perft, replay, bench env, "
                      "match, tournament, play, net, serve, train (rules.spec) and, with two players and a margin, solve", spec,
                      game_name(g));
        else if (!game_kind_find(spec)) { /* not a game at all: name every registered one, not only Kalah */
            char names[96];
            cli_error(cmd, "--rules '%s': unknown game '%.*s' (known: %s)", spec, (int)strcspn(spec, ":"), spec,
                      game_kind_names(names, sizeof names));
        } else
            cli_error(cmd, "--rules '%s': %s", spec, gerr);
        game_free(g);
        return 0;
    }
    return 1;
}

int cli_position(const char *cmd, const char *text, const kalah_rules *r, kalah_pos *out)
{
    char err[KALAH_ERRLEN];
    int pits;
    if (!text) {
        kalah_start(r, out);
        return 1;
    }
    if (kalah_pos_parse(text, r, out, &pits, err) != KALAH_OK) {
        cli_error(cmd, "--position '%s': %s", text, err);
        return 0;
    }
    return 1;
}

int cli_setup(const char *cmd, const char *rules_spec, const char *pos_text, kalah_rules *r, kalah_pos *p)
{
    if (rules_spec)
        return cli_rules(cmd, rules_spec, r) && cli_position(cmd, pos_text, r, p);
    *r = kalah_rules_default();
    if (pos_text) {
        char err[KALAH_ERRLEN];
        int pits;
        kalah_pos raw;
        if (kalah_pos_parse(pos_text, NULL, &raw, &pits, err) != KALAH_OK) {
            cli_error(cmd, "--position '%s': %s", pos_text, err);
            return 0;
        }
        r->pits = pits;
        int total = 0;
        for (int i = 0; i < 2 * pits + 2; i++)
            total += raw.cell[i];
        if (total % (2 * pits) || total / (2 * pits) < 1 || total / (2 * pits) > 18) {
            cli_error(cmd, "--position '%s': %d seeds is not 2*pits*seeds for pits=%d; give --rules", pos_text,
                      total, pits);
            return 0;
        }
        r->seeds = total / (2 * pits);
    }
    return cli_position(cmd, pos_text, r, p);
}

int cli_long(const char *cmd, const char *what, const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) {
        cli_error(cmd, "%s: '%s' is not a whole number in %ld..%ld", what, text, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

int cli_seed(const char *cmd, const char *what, const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long s = strtoull(text, &end, 10);
    if (!*text || *end || *text == '-' || errno) {
        cli_error(cmd, "%s: '%s' is not a whole number >= 0", what, text);
        return 0;
    }
    *out = s;
    return 1;
}

int cli_double(const char *cmd, const char *what, const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= lo && v <= hi)) {
        cli_error(cmd, "%s: '%s' is not a number in %g..%g", what, text, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

int cli_print_json(cJSON *obj)
{
    char *s = cJSON_PrintUnformatted(obj);
    cJSON_Delete(obj);
    if (!s)
        return 1;
    puts(s);
    cJSON_free(s);
    return fflush(stdout) == 0 ? 0 : 1;
}

int cli_usage_error(const char *cmd)
{
    fprintf(stderr, "sowzero %s: see 'sowzero %s --help'\n", cmd, cmd);
    return 2;
}

const char *cli_data_path(const char *path, char *buf, size_t n)
{
    if (!path[0] || path[0] == '/' || access(path, F_OK) == 0)
        return path;
#ifdef SOWZERO_DATADIR_FROM_BIN
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = NULL;
    if (len > 0) {
        exe[len] = 0;
        slash = strrchr(exe, '/');
    }
    if (slash) {
        *slash = 0;
        int w = snprintf(buf, n, "%s/" SOWZERO_DATADIR_FROM_BIN "/%s", exe, path);
        if (w > 0 && (size_t)w < n && access(buf, F_OK) == 0)
            return buf;
    }
#endif
#ifdef SOWZERO_DATADIR
    int w = snprintf(buf, n, SOWZERO_DATADIR "/%s", path);
    if (w > 0 && (size_t)w < n && access(buf, F_OK) == 0)
        return buf;
#endif
    return path;
}

/* The command line as one string, arguments with spaces or quotes in single quotes. Caller frees. */
char *cli_command_line(int argc, char **argv)
{
    size_t n = 16;
    for (int i = 0; i < argc; i++)
        n += 4 * strlen(argv[i]) + 3;
    char *s = malloc(n), *w = s;
    if (!s)
        return NULL;
    w += sprintf(w, "sowzero");
    for (int i = 0; i < argc; i++) {
        *w++ = ' ';
        if (!argv[i][0] || strpbrk(argv[i], " \t'\"\\$")) {
            *w++ = '\'';
            for (const char *c = argv[i]; *c; c++)
                w += *c == '\'' ? sprintf(w, "'\\''") : sprintf(w, "%c", *c);
            *w++ = '\'';
        } else {
            w += sprintf(w, "%s", argv[i]);
        }
    }
    *w = 0;
    return s;
}
