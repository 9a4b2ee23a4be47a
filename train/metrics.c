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
};

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

/* Rewrites path keeping the header (which must equal hdr) and rows with iteration <= keep. */
static int cut_back(const char *path, const char *hdr, int64_t keep, char *err, size_t errlen)
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
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = 0;
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

int train_metrics_check(const char *path, const char *const *opponents, int n_opp, char *err, size_t errlen)
{
    if (n_opp < 0 || n_opp > TRAIN_MAX_OPPONENTS) {
        if (err && errlen)
            snprintf(err, errlen, "metrics: bad arguments for '%s'", path);
        return -1;
    }
    char hdr[TRAIN_MAX_OPPONENTS * 420 + 256];
    header(hdr, sizeof hdr, opponents, n_opp);
    FILE *in = fopen(path, "r");
    if (!in) {
        set_err(err, errlen, "cannot open", path);
        return -1;
    }
    size_t cap = 0;
    char *line = NULL;
    ssize_t got = getline(&line, &cap, in);
    int io = ferror(in);
    fclose(in);
    while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
        line[--got] = 0;
    int rc = 0;
    if (io) {
        set_err(err, errlen, "cannot read", path);
        rc = -1;
    } else if (got < 0) {
        if (err && errlen)
            snprintf(err, errlen, "'%s' is empty", path);
        rc = 1;
    } else if (strcmp(line, hdr) != 0) {
        if (err && errlen)
            snprintf(err, errlen, "'%s' has other columns than this config gives (were the evaluation opponents "
                     "changed?)", path);
        rc = 1;
    }
    free(line);
    return rc;
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
    if (keep_through >= 0 && cut_back(path, hdr, keep_through, err, errlen) != 0)
        return NULL;
    FILE *f = fopen(path, keep_through >= 0 ? "a" : "w");
    if (!f) {
        set_err(err, errlen, "cannot write", path);
        return NULL;
    }
    if (keep_through < 0 && (fprintf(f, "%s\n", hdr) < 0 || fflush(f) != 0)) {
        set_err(err, errlen, "cannot write", path);
        fclose(f);
        return NULL;
    }
    train_metrics *m = calloc(1, sizeof *m);
    if (!m) {
        fclose(f);
        return NULL;
    }
    m->f = f;
    m->n_opp = n_opp;
    strcpy(m->path, path);
    return m;
}

/* ",value" with enough digits to plot, or "," alone for a missing value. */
static void cell(FILE *f, int have, double v)
{
    if (have && isfinite(v))
        fprintf(f, ",%.7g", v);
    else
        fputc(',', f);
}

int train_metrics_append(train_metrics *m, const train_row *r, char *err, size_t errlen)
{
    FILE *f = m->f;
    fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64, r->iteration, r->games, r->samples,
            r->replay, r->steps);
    cell(f, r->have_loss, r->loss);
    cell(f, r->have_loss, r->loss_policy);
    cell(f, r->have_loss, r->loss_value);
    cell(f, r->have_loss, r->loss_margin);
    cell(f, r->have_loss, r->loss_l2);
    cell(f, r->have_loss, r->lr);
    cell(f, 1, r->selfplay_pos_per_s);
    fprintf(f, ",%.3f,%.3f,%.3f", r->selfplay_s, r->train_s, r->eval_s);
    for (int k = 0; k < m->n_opp; k++) {
        cell(f, r->have_eval, r->score[k]);
        cell(f, r->have_eval, r->south[k]);
        cell(f, r->have_eval, r->north[k]);
    }
    fprintf(f, ",%.3f", r->elapsed_s);
    cell(f, r->have_accuracy, r->accuracy_raw);
    cell(f, r->have_accuracy, r->regret_raw);
    cell(f, r->have_accuracy, r->accuracy_search);
    cell(f, r->have_accuracy, r->regret_search);
    fputc('\n', f);
    if (ferror(f) || fflush(f) != 0) {
        set_err(err, errlen, "cannot write", m->path);
        return -1;
    }
    return 0;
}

void train_metrics_close(train_metrics *m)
{
    if (!m)
        return;
    fclose(m->f);
    free(m);
}
