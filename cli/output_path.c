/* output_path.c — checking an output path before the work (see output_path.h). */
#include "cli/output_path.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

/* 1 when path names the same file as one of the inputs (*hit set to it). */
static int is_input(const struct stat *out, const cli_input *inputs, int n, const cli_input **hit)
{
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (inputs[i].path && stat(inputs[i].path, &st) == 0 && st.st_dev == out->st_dev &&
            st.st_ino == out->st_ino) {
            *hit = &inputs[i];
            return 1;
        }
    }
    return 0;
}

/* A tablebase file (eval/endgame.h): one that starts with its magic line, or any *.sztb name. Such files
 * are written only by `sowzero tablebase build` and the solver's own save; an output of another command
 * there would destroy one, or take the standard name every later solve looks up. */
static int tablebase_file(const char *path, int exists)
{
    size_t n = strlen(path);
    if (n >= 5 && !strcmp(path + n - 5, ".sztb"))
        return 1;
    if (!exists)
        return 0;
    char head[20] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t got = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    return got >= 18 && !strncmp(head, "sowzero-tablebase ", 18);
}

/* The canonical folder of path (realpath of its directory part) and its last component, into dir[n] and
 * *base (pointing into copy, which the caller frees). 0, or -1 when the folder cannot be resolved. */
static int split_canonical(const char *path, char *dir, char **copy, const char **base)
{
    char *d = strdup(path), *b = strdup(path);
    int rc = -1;
    if (d && b && realpath(dirname(d), dir)) {
        *copy = b;
        *base = basename(b);
        b = NULL;
        rc = 0;
    }
    free(d);
    free(b);
    return rc;
}

int cli_same_output(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb)
        return 0; /* one exists and the other does not: two names */
    char da[PATH_MAX], db[PATH_MAX], *ca = NULL, *cb = NULL;
    const char *ba, *bb;
    int same = split_canonical(a, da, &ca, &ba) == 0 && split_canonical(b, db, &cb, &bb) == 0 &&
               !strcmp(da, db) && !strcmp(ba, bb);
    free(ca);
    free(cb);
    return same || !strcmp(a, b);
}

int cli_output_check(const char *cmd, const char *flag, const char *path, int mode, const cli_input *inputs,
                     int n_inputs)
{
    if (!path || !*path) {
        cli_error(cmd, "%s: an empty file name", flag);
        return 0;
    }
    if (path[strlen(path) - 1] == '/') {
        cli_error(cmd, "%s %s: a directory's name, not a file's", flag, path);
        return 0;
    }
    struct stat st;
    const int exists = stat(path, &st) == 0;
    const cli_input *in;
    if (exists && is_input(&st, inputs, n_inputs, &in)) {
        cli_error(cmd, "%s %s: is %s itself: writing it would destroy it; give another file", flag, path, in->what);
        return 0;
    }
    if (tablebase_file(path, exists && S_ISREG(st.st_mode))) {
        cli_error(cmd, "%s %s: is a tablebase file, or has their name (*.sztb): writing it would destroy one or "
                  "stand in for one; give another file", flag, path);
        return 0;
    }
    if (exists) {
        if (S_ISDIR(st.st_mode)) {
            cli_error(cmd, "%s %s: is not a regular file but a directory: give a file name", flag, path);
            return 0;
        }
        int stream_ok = mode == CLI_OUT_STREAM && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
        if (!S_ISREG(st.st_mode) && !stream_ok) {
            cli_error(cmd, "%s %s: is not a regular file", flag, path);
            return 0;
        }
        if (stream_ok) { /* opening a FIFO would wait for its reader: the permission says enough */
            if (access(path, W_OK) != 0) {
                cli_error(cmd, "%s %s: cannot write: %s", flag, path, strerror(errno));
                return 0;
            }
            return 1;
        }
        /* Opened and written 0 bytes (nothing truncated, nothing changed): catches what the permission bits do
         * not, for root too: a read-only file system, a file of /proc that takes no writes. */
        int fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 || write(fd, "", 0) < 0) {
            cli_error(cmd, "%s %s: cannot write: %s", flag, path,
                      errno == EINVAL ? "the file takes no writes" : strerror(errno));
            if (fd >= 0)
                close(fd);
            return 0;
        }
        close(fd);
        return 1;
    }
    if (errno != ENOENT) { /* ENOTDIR, ELOOP, EACCES on the way */
        cli_error(cmd, "%s %s: %s", flag, path, strerror(errno));
        return 0;
    }
    char *copy = strdup(path);
    if (!copy) {
        cli_error(cmd, "out of memory");
        return 0;
    }
    const char *dir = dirname(copy);
    int ok = 0;
    if (stat(dir, &st) != 0)
        cli_error(cmd, "%s %s: cannot write in %s: %s", flag, path, dir,
                  errno == ENOENT ? "its directory does not exist" : strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        cli_error(cmd, "%s %s: %s is not a directory", flag, path, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        cli_error(cmd, "%s %s: cannot write in %s: %s", flag, path, dir, strerror(errno));
    else
        ok = 1;
    free(copy);
    return ok;
}

int cli_output_path_ok(const char *cmd, const char *flag, const char *path)
{
    return cli_output_check(cmd, flag, path, CLI_OUT_STREAM, NULL, 0);
}

const char *cli_spec_net(const char *spec, char *buf, size_t n)
{
    const char *colon = strchr(spec, ':');
    if (!colon)
        return NULL;
    for (const char *k = colon + 1; *k;) {
        size_t len = strcspn(k, ",");
        if (len > 4 && !strncmp(k, "net=", 4)) {
            if (len - 4 >= n)
                return NULL;
            memcpy(buf, k + 4, len - 4);
            buf[len - 4] = 0;
            return buf;
        }
        k += len + (k[len] == ',');
    }
    return NULL;
}
