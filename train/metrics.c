#include "train/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct train_metrics {
    FILE *f;
    int n_opp;
    char path[4096];
    char *rows;            /* the text of every row in the file, header excluded (train_metrics_rows) */
    size_t rows_len, rows_cap;
};

/* Appends len bytes of text to m->rows. 0 or -1 (out of memory). */
static int keep_text(train_metrics *m, const char *text, size_t len)
{
    if (m->rows_len + len + 1 > m->rows_cap) {
        size_t cap = m->rows_cap ? m->rows_cap : 4096;
        while (cap < m->rows_len + len + 1)
            cap *= 2;
        char *r = realloc(m->rows, cap);
        if (!r)
            return -1;
        m->rows = r;
        m->rows_cap = cap;
    }
    memcpy(m->rows + m->rows_len, text, len);
    m->rows_len += len;
    m->rows[m->rows_len] = 0;
    return 0;
}

char *train_metrics_column_name(const char *spec, char *buf, size_t n)
{
    size_t i = 0;
    for (; spec[i] && i + 1 < n; i++) {
        char c = spec[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        buf[i] = ok ? c : '_';
    }
    if (n)
        buf[i] = 0;
    return buf;
}

/* The header line (without newline) into buf. */
static void header(char *buf, size_t n, const char *const *opponents, int n_opp)
{
    size_t len = (size_t)snprintf(buf, n,
                                  "iteration,games,samples,replay,steps,loss,loss_policy,loss_value,loss_margin,"
                                  "loss_l2,lr,selfplay_pos_per_s,selfplay_s,train_s,eval_s");
    for (int k = 0; k < n_opp && len < n; k++) {
        char col[128];
        train_metrics_column_name(opponents[k], col, sizeof col);
        len += (size_t)snprintf(buf + len, n - len, ",score_%s,south_%s,north_%s", col, col, col);
    }
    if (len < n)
        snprintf(buf + len, n - len, ",elapsed_s,accuracy_raw,regret_raw,accuracy_search,regret_search");
}

static void set_err(char *err, size_t errlen, const char *what, const char *path)
{
    if (err && errlen)
        snprintf(err, errlen, "%s '%s': %s", what, path, strerror(errno));
}

/* Leading integer of a CSV row (the iteration), or -1. */
static int64_t row_iteration(const char *line)
{
    char *end;
    errno = 0;
    long long v = strtoll(line, &end, 10);
    return errno || end == line || *end != ',' ? -1 : (int64_t)v;
}

/* Rewrites path keeping the header (which must equal hdr) and rows with iteration <= keep; the kept rows
 * also go to m->rows. */
static int cut_back(train_metrics *m, const char *path, const char *hdr, int64_t keep, char *err, size_t errlen)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        set_err(err, errlen, "cannot open", path);
        return -1;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        set_err(err, errlen, "cannot write", tmp);
        fclose(in);
        return -1;
    }
    size_t cap = 0;
    char *line = NULL;
    ssize_t got;
    int first = 1, rc = 0;
    while ((got = getline(&line, &cap, in)) >= 0) {
        int whole = got > 0 && line[got - 1] == '\n';
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = 0;
        if (!first && !whole)
            continue;   /* the row a killed run was writing */
        if (first) {
            first = 0;
            if (strcmp(line, hdr) != 0) {
                if (err && errlen)
                    snprintf(err, errlen, "'%s' has other columns than this config gives (were the evaluation "
                             "opponents changed?)", path);
                rc = -1;
                break;
            }
        } else {
            int64_t it = row_iteration(line);
            if (it < 0 || it > keep)
                continue;
            line[got] = '\n';
            if (keep_text(m, line, (size_t)got + 1) != 0) {
                errno = ENOMEM;
                set_err(err, errlen, "cannot keep the rows of", path);
                rc = -1;
                break;
            }
            line[got] = 0;
        }
        fprintf(out, "%s\n", line);
    }
    if (first && rc == 0) {
        if (err && errlen)
            snprintf(err, errlen, "'%s' is empty", path);
        rc = -1;
    }
    free(line);
    fclose(in);
    if (fclose(out) != 0 && rc == 0) {
        set_err(err, errlen, "cannot write", tmp);
        rc = -1;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        set_err(err, errlen, "cannot rename", tmp);
        rc = -1;
    }
    if (rc != 0)
        remove(tmp);
    return rc;
}

/* Whether line (no newline) is a metrics header at all: "iteration,games,samples,..." of column names. */
static int looks_like_header(const char *line)
{
    if (strncmp(line, "iteration,games,samples,replay,steps,", 37) != 0)
        return 0;
    for (const char *p = line; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == ','))
            return 0;
    return 1;
}

static int count_commas(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == ',';
    return n;
}

int train_metrics_check(const char *path, const char *const *opponents, int n_opp, int64_t keep_through,
                        int64_t *last_iteration, char *err, size_t errlen)
{
    int64_t dummy;
    if (!last_iteration)
        last_iteration = &dummy;
    *last_iteration = 0;
    if (n_opp < 0 || n_opp > TRAIN_MAX_OPPONENTS) {
        if (err && errlen)
            snprintf(err, errlen, "metrics: bad arguments for '%s'", path);
        return -1;
    }
    char hdr[TRAIN_MAX_OPPONENTS * 420 + 256];
    header(hdr, sizeof hdr, opponents, n_opp);
    FILE *in = fopen(path, "r");
    if (!in) {
        if (errno == ENOENT) {
            if (err && errlen)
                snprintf(err, errlen, "'%s' is missing", path);
            return TRAIN_METRICS_MISSING;
        }
        set_err(err, errlen, "cannot open", path);
        return -1;
    }
    size_t cap = 0;
    char *line = NULL;
    ssize_t got;
    int rc = TRAIN_METRICS_OK, n = 0, fields = count_commas(hdr);
    int64_t last = 0;
    while (rc == TRAIN_METRICS_OK && (got = getline(&line, &cap, in)) >= 0) {
        n++;
        int whole = got > 0 && line[got - 1] == '\n';
        if (memchr(line, 0, (size_t)got)) {
            if (err && errlen)
                snprintf(err, errlen, "%s:%d: a NUL byte: the file is damaged", path, n);
            rc = TRAIN_METRICS_DAMAGED;
            break;
        }
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = 0;
        if (n == 1) {
            if (strcmp(line, hdr) == 0)
                continue;
            if (looks_like_header(line)) {
                if (err && errlen)
                    snprintf(err, errlen, "'%s' has other columns than this config gives (were the evaluation "
                             "opponents changed?)", path);
                rc = TRAIN_METRICS_MISMATCH;
            } else {
                if (err && errlen)
                    snprintf(err, errlen, "%s:1: not a metrics.csv header line: the file is damaged", path);
                rc = TRAIN_METRICS_DAMAGED;
            }
            break;
        }
        int64_t it = row_iteration(line);
        /* A last line without its newline is the row a killed run was writing, of an iteration after the
         * checkpoint's (dropped on resume); one the checkpoint covers was cut off. */
        if (!whole && (it < 0 || it > keep_through))
            break;
        const char *bad = !whole                                  ? "the row is cut off"
                          : it < 0                                ? "the row does not start with an iteration number"
                          : last && it != last + 1                ? "the iteration numbers do not follow one another"
                          : count_commas(line) != fields          ? "the row has another number of cells than the header"
                                                                  : NULL;
        if (bad) {
            if (err && errlen)
                snprintf(err, errlen, "%s:%d: %s: the file is damaged", path, n, bad);
            rc = TRAIN_METRICS_DAMAGED;
            break;
        }
        last = it;
    }
    if (rc == TRAIN_METRICS_OK && n > 0 && last < keep_through) {
        if (err && errlen)
            snprintf(err, errlen, "%s:%d: the rows end at iteration %" PRId64 ", before the checkpoint's: the file "
                     "is damaged", path, n + 1, last);
        rc = TRAIN_METRICS_DAMAGED;
    }
    int io = ferror(in);
    fclose(in);
    free(line);
    if (io) {
        set_err(err, errlen, "cannot read", path);
        return -1;
    }
    if (rc == TRAIN_METRICS_OK && n == 0) {
        if (err && errlen)
            snprintf(err, errlen, "%s:1: the file is empty (no header line)", path);
        rc = TRAIN_METRICS_DAMAGED;
    }
    *last_iteration = last;
    return rc;
}

int train_metrics_rebuild(const char *path, const char *const *opponents, int n_opp, const char *rows, size_t len,
                          int64_t keep_through, int64_t *first, int64_t *count, char *err, size_t errlen)
{
    *first = 0;
    *count = 0;
    if (n_opp < 0 || n_opp > TRAIN_MAX_OPPONENTS) {
        if (err && errlen)
            snprintf(err, errlen, "metrics: bad arguments for '%s'", path);
        return -1;
    }
    char hdr[TRAIN_MAX_OPPONENTS * 420 + 256], tmp[4200];
    header(hdr, sizeof hdr, opponents, n_opp);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        set_err(err, errlen, "cannot write", tmp);
        return -1;
    }
    fprintf(out, "%s\n", hdr);
    int fields = count_commas(hdr);
    int64_t last = 0;
    for (size_t at = 0; rows && at < len;) {
        const char *nl = memchr(rows + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (rows + at)) : len - at;
        char line[8192];
        if (n < sizeof line) {
            memcpy(line, rows + at, n);
            line[n] = 0;
            int64_t it = row_iteration(line);
            /* Rows come from a checkpoint this build wrote; anything else is skipped, never copied. */
            if (it > last && it <= keep_through && count_commas(line) == fields) {
                fprintf(out, "%s\n", line);
                if (!*first)
                    *first = it;
                ++*count;
                last = it;
            }
        }
        at += n + 1;
    }
    if (fclose(out) != 0) {
        set_err(err, errlen, "cannot write", tmp);
        remove(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        set_err(err, errlen, "cannot rename", tmp);
        remove(tmp);
        return -1;
    }
    return 0;
}

train_metrics *train_metrics_open(const char *path, const char *const *opponents, int n_opp,
                                  int64_t keep_through, char *err, size_t errlen)
{
    if (n_opp < 0 || n_opp > TRAIN_MAX_OPPONENTS || strlen(path) >= sizeof ((train_metrics *)0)->path) {
        if (err && errlen)
            snprintf(err, errlen, "metrics: bad arguments for '%s'", path);
        return NULL;
    }
    char hdr[TRAIN_MAX_OPPONENTS * 420 + 256];
    header(hdr, sizeof hdr, opponents, n_opp);
    train_metrics *m = calloc(1, sizeof *m);
    if (!m) {
        errno = ENOMEM;
        set_err(err, errlen, "cannot open", path);
        return NULL;
    }
    if (keep_through >= 0 && cut_back(m, path, hdr, keep_through, err, errlen) != 0) {
        free(m->rows);
        free(m);
        return NULL;
    }
    FILE *f = fopen(path, keep_through >= 0 ? "a" : "w");
    if (!f) {
        set_err(err, errlen, "cannot write", path);
        free(m->rows);
        free(m);
        return NULL;
    }
    if (keep_through < 0 && (fprintf(f, "%s\n", hdr) < 0 || fflush(f) != 0)) {
        set_err(err, errlen, "cannot write", path);
        fclose(f);
        free(m->rows);
        free(m);
        return NULL;
    }
    m->f = f;
    m->n_opp = n_opp;
    strcpy(m->path, path);
    return m;
}

/* Appends ",value" with enough digits to plot, or "," alone for a missing value, to buf at *len. */
static void cell(char *buf, size_t n, size_t *len, int have, double v)
{
    if (*len >= n)
        return;
    int w = have && isfinite(v) ? snprintf(buf + *len, n - *len, ",%.7g", v) : snprintf(buf + *len, n - *len, ",");
    *len += w > 0 ? (size_t)w : 0;
}

int train_metrics_append(train_metrics *m, const train_row *r, char *err, size_t errlen)
{
    char buf[TRAIN_MAX_OPPONENTS * 64 + 1024];
    size_t n = sizeof buf, len = 0;
    len += (size_t)snprintf(buf, n, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64, r->iteration,
                            r->games, r->samples, r->replay, r->steps);
    cell(buf, n, &len, r->have_loss, r->loss);
    cell(buf, n, &len, r->have_loss, r->loss_policy);
    cell(buf, n, &len, r->have_loss, r->loss_value);
    cell(buf, n, &len, r->have_loss, r->loss_margin);
    cell(buf, n, &len, r->have_loss, r->loss_l2);
    cell(buf, n, &len, r->have_loss, r->lr);
    cell(buf, n, &len, 1, r->selfplay_pos_per_s);
    len += (size_t)snprintf(buf + len, n - len, ",%.3f,%.3f,%.3f", r->selfplay_s, r->train_s, r->eval_s);
    for (int k = 0; k < m->n_opp; k++) {
        cell(buf, n, &len, r->have_eval, r->score[k]);
        cell(buf, n, &len, r->have_eval, r->south[k]);
        cell(buf, n, &len, r->have_eval, r->north[k]);
    }
    len += (size_t)snprintf(buf + len, n - len, ",%.3f", r->elapsed_s);
    cell(buf, n, &len, r->have_accuracy, r->accuracy_raw);
    cell(buf, n, &len, r->have_accuracy, r->regret_raw);
    cell(buf, n, &len, r->have_accuracy, r->accuracy_search);
    cell(buf, n, &len, r->have_accuracy, r->regret_search);
    if (len + 1 >= n) {
        errno = EOVERFLOW;
        set_err(err, errlen, "cannot format a row of", m->path);
        return -1;
    }
    buf[len++] = '\n';
    buf[len] = 0;
    if (keep_text(m, buf, len) != 0) {
        errno = ENOMEM;
        set_err(err, errlen, "cannot keep the rows of", m->path);
        return -1;
    }
    if (fputs(buf, m->f) < 0 || fflush(m->f) != 0) {
        set_err(err, errlen, "cannot write", m->path);
        return -1;
    }
    return 0;
}

const char *train_metrics_rows(const train_metrics *m, size_t *len)
{
    *len = m->rows_len;
    return m->rows ? m->rows : "";
}

void train_metrics_close(train_metrics *m)
{
    if (!m)
        return;
    fclose(m->f);
    free(m->rows);
    free(m);
}

int train_metrics_find_row(const char *path, int64_t iteration, char *out, size_t n)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return errno == ENOENT ? 0 : -1;
    size_t cap = 0;
    char *line = NULL;
    ssize_t got;
    int found = 0, first = 1;
    while (!found && (got = getline(&line, &cap, in)) >= 0) {
        if (first) {
            first = 0;
            continue;
        }
        if (got == 0 || line[got - 1] != '\n' || row_iteration(line) != iteration)
            continue;
        line[got - 1] = 0;
        snprintf(out, n, "%s", line);
        found = 1;
    }
    int io = ferror(in);
    fclose(in);
    free(line);
    return io ? -1 : found;
}

char *train_metrics_row_counts(const train_row *r, char *buf, size_t n)
{
    snprintf(buf, n, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",", r->iteration, r->games,
             r->samples, r->replay, r->steps);
    return buf;
}
