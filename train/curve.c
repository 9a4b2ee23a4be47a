/* curve.c — metrics.csv's accuracy rows; contract in curve.h. */
#include "train/curve.h"
#include "env/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 8192
#define MAX_CELLS 128

/* Splits line in place at every ',' (empty cells kept, unlike strtok) and strips the newline. */
static int split(char *line, char **cells)
{
    line[strcspn(line, "\r\n")] = 0;
    int n = 0;
    for (char *p = line;; p++) {
        if (n == MAX_CELLS)
            return -1;
        cells[n++] = p;
        p += strcspn(p, ",");
        if (!*p)
            return n;
        *p = 0;
    }
}

static int number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return *s && !*end && errno == 0 ? 0 : -1;
}

int train_curve_read(const char *path, train_curve_point **out, int *n, char *err, size_t errlen)
{
    static const char *const names[7] = {"iteration",      "games",         "elapsed_s", "accuracy_search",
                                         "regret_search", "accuracy_raw", "regret_raw"};
    *out = NULL;
    *n = 0;
    FILE *f = sz_fopen_input(path);
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return TRAIN_CURVE_EIO;
    }
    char *line = malloc(MAX_LINE), *cells[MAX_CELLS];
    int col[7], rc = TRAIN_CURVE_EINVAL, cap = 0, lineno = 1;
    train_curve_point *pts = NULL;
    if (!line) {
        rc = TRAIN_CURVE_ENOMEM;
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    int nh = fgets(line, MAX_LINE, f) ? split(line, cells) : 0;
    for (int k = 0; k < 7; k++) {
        col[k] = -1;
        for (int i = 0; i < nh; i++)
            if (!strcmp(cells[i], names[k]))
                col[k] = i;
        if (col[k] < 0) {
            snprintf(err, errlen, "%s:1: not a sowzero metrics.csv (no column '%s' in the header)", path, names[k]);
            goto out;
        }
    }
    while (fgets(line, MAX_LINE, f)) {
        lineno++;
        int nc = split(line, cells);
        if (nc != nh) {
            snprintf(err, errlen, "%s:%d: %d cells, the header has %d", path, lineno, nc, nh);
            goto out;
        }
        if (!*cells[col[3]]) /* no evaluation on the position set in this iteration */
            continue;
        /* what the trainer writes: counts, seconds and regrets >= 0, shares in [0, 1], all finite */
        static const double hi[7] = {9e15, 9e15, 1e12, 1, 1e6, 1, 1e6};
        double v[7];
        for (int k = 0; k < 7; k++) {
            if (number(cells[col[k]], &v[k])) {
                snprintf(err, errlen, "%s:%d: column %s: '%s' is not a number", path, lineno, names[k], cells[col[k]]);
                goto out;
            }
            if (!(v[k] >= 0 && v[k] <= hi[k]) || (k < 2 && v[k] != (double)(int64_t)v[k])) {
                snprintf(err, errlen, "%s:%d: column %s: '%s' is out of range (%s)", path, lineno, names[k],
                         cells[col[k]], k < 2 ? "a whole number >= 0" : hi[k] == 1 ? "a share in 0..1" : ">= 0");
                goto out;
            }
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            train_curve_point *grown = realloc(pts, (size_t)cap * sizeof *pts);
            if (!grown) {
                rc = TRAIN_CURVE_ENOMEM;
                snprintf(err, errlen, "out of memory");
                goto out;
            }
            pts = grown;
        }
        pts[(*n)++] = (train_curve_point){.iteration = (int64_t)v[0], .games = (int64_t)v[1], .elapsed_s = v[2],
                                          .accuracy_search = v[3], .regret_search = v[4], .accuracy_raw = v[5],
                                          .regret_raw = v[6]};
    }
    if (ferror(f)) {
        rc = TRAIN_CURVE_EIO;
        snprintf(err, errlen, "%s: read error", path);
        goto out;
    }
    *out = pts;
    pts = NULL;
    rc = TRAIN_CURVE_OK;
out:
    if (rc != TRAIN_CURVE_OK)
        *n = 0;
    free(pts);
    free(line);
    fclose(f);
    return rc;
}
