/* test_util.h — small helpers shared by the cmocka tests: reading the team's vector files and running
 * the built `sowzero` binary. Header-only so each test stays one executable. */
#ifndef SOWZERO_TEST_UTIL_H
#define SOWZERO_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <glob.h>

#include "env/game.h"

/* Splits a vector line "f1 | f2 | ..." in place into trimmed fields; returns the count (<= max). */
static inline int tu_split(char *line, char **fields, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *f = strtok_r(line, "|", &save); f && n < max; f = strtok_r(NULL, "|", &save)) {
        while (*f == ' ' || *f == '\t')
            f++;
        char *e = f + strlen(f);
        while (e > f && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
            *--e = 0;
        fields[n++] = f;
    }
    return n;
}

/* Opens tests/vectors/<name> (the project's copy of the team's vectors); fails the test if missing. */
static inline FILE *tu_open_vector(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SOWZERO_VECTORS_DIR, name);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open vector file %s", path);
    return f;
}

/* Next data line (skips blanks and # comments); returns 0 at EOF. */
static inline int tu_next_line(FILE *f, char *buf, size_t n)
{
    while (fgets(buf, (int)n, f)) {
        char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\n' || *s == 0)
            continue;
        return 1;
    }
    return 0;
}

/* Runs `SOWZERO_BIN args` through the shell, capturing stdout (and stderr when merge_stderr) into a
 * malloc'd string (*out, caller frees). Returns the exit status, or -1 if it could not run. */
static inline int tu_run(char **out, int merge_stderr, const char *fmt, ...)
{
    char args[4096], cmd[4600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s%s", SOWZERO_BIN, args, merge_stderr ? " 2>&1" : " 2>/dev/null");
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 1024)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    int st = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The game of a rules spec (env/game.h; the caller frees it with game_free); fails the test with the
 * message when the spec does not parse. */
static inline game *tu_game(const char *spec)
{
    char err[GAME_ERRLEN];
    game *g = game_create(spec, err);
    if (!g)
        fail_msg("game_create('%s'): %s", spec, err);
    return g;
}

/* A position string of g, parsed; fails the test with the message when it does not parse. */
static inline game_pos tu_game_pos(const game *g, const char *text)
{
    char err[GAME_ERRLEN];
    game_pos p;
    if (game_pos_parse(g, text, &p, err) != GAME_OK)
        fail_msg("%s: position '%s': %s", game_spec(g), text, err);
    return p;
}

/* SOWZERO_TMP/name (created), in one of 4 rotating static buffers. */
static inline const char *tu_tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    mkdir(SOWZERO_TMP, 0777);
    snprintf(buf[k], sizeof buf[k], "%s/%s", SOWZERO_TMP, name);
    return buf[k];
}

/* Writes text to path (fails the test when it cannot). */
static inline void tu_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The whole text of path (the caller frees it; fails the test when it cannot be read). */
static inline char *tu_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((got = fread(buf + n, 1, cap - 1 - n, f)) > 0)
        if ((n += got) == cap - 1) {
            buf = realloc(buf, cap *= 2);
            assert_non_null(buf);
        }
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* How many temporary files of a save of path are there: "PATH.*.tmp" (nn/h5io.c, eval/endgame_file.c). */
static inline int tu_temp_files(const char *path)
{
    char pattern[1100];
    snprintf(pattern, sizeof pattern, "%s.*.tmp", path);
    glob_t g;
    int n = glob(pattern, 0, NULL, &g) == 0 ? (int)g.gl_pathc : 0;
    globfree(&g);
    return n;
}

#endif
