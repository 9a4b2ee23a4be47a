/* elo.c — Bradley–Terry maximum likelihood by Newton's method (model and sources in elo.h). */
#include "eval/elo.h"
#include "env/errbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Natural-log scale <-> Elo scale: P = 1/(1+e^-t) with t = R ln10 / 400. */
#define ELO_PER_NAT (400.0 / 2.302585092994046)

#define set_err(err, ...) errbuf_set(err, ELO_ERRLEN, __VA_ARGS__)

double elo_from_score(double s) { return 400.0 * log10(s / (1.0 - s)); }

double elo_expected_score(double d) { return 1.0 / (1.0 + pow(10.0, -d / 400.0)); }

void elo_wilson(double points, double n, double z, double *lo, double *hi)
{
    double p = points / n, z2 = z * z;
    double centre = p + z2 / (2 * n), half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)), den = 1 + z2 / n;
    double l = (centre - half) / den, h = (centre + half) / den;
    /* At 0 (or n) points the bound is exactly 0 (or 1); rounding would leave ~1e-17 there. */
    *lo = l < 0 || points <= 0 ? 0 : l;
    *hi = h > 1 || points >= n ? 1 : h;
}

double elo_normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* ---- pool ---- */

struct elo_pool {
    int n, cap;
    char **name;
    double *pts;   /* cap × cap: pts[i*cap+j] = points i scored against j */
    int *games;    /* cap × cap, symmetric */
};

elo_pool *elo_pool_create(void) { return calloc(1, sizeof(elo_pool)); }

void elo_pool_free(elo_pool *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++)
        free(p->name[i]);
    free(p->name);
    free(p->pts);
    free(p->games);
    free(p);
}

int elo_pool_count(const elo_pool *p) { return p->n; }
const char *elo_pool_name(const elo_pool *p, int i) { return i >= 0 && i < p->n ? p->name[i] : NULL; }

static int pool_grow(elo_pool *p)
{
    int cap = p->cap ? 2 * p->cap : 8;
    char **nm = realloc(p->name, (size_t)cap * sizeof *nm);
    if (!nm)
        return ELO_ENOMEM;
    p->name = nm;
    double *pts = calloc((size_t)cap * cap, sizeof *pts);
    int *g = calloc((size_t)cap * cap, sizeof *g);
    if (!pts || !g) {
        free(pts);
        free(g);
        return ELO_ENOMEM;
    }
    for (int i = 0; i < p->n; i++)
        for (int j = 0; j < p->n; j++) {
            pts[i * cap + j] = p->pts[i * p->cap + j];
            g[i * cap + j] = p->games[i * p->cap + j];
        }
    free(p->pts);
    free(p->games);
    p->pts = pts;
    p->games = g;
    p->cap = cap;
    return ELO_OK;
}

int elo_pool_player(elo_pool *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->name[i], name))
            return i;
    if (p->n == p->cap && pool_grow(p))
        return ELO_ENOMEM;
    if (!(p->name[p->n] = strdup(name)))
        return ELO_ENOMEM;
    return p->n++;
}

int elo_pool_add(elo_pool *p, int a, int b, int wins, int draws, int losses)
{
    if (a < 0 || b < 0 || a >= p->n || b >= p->n || a == b || wins < 0 || draws < 0 || losses < 0)
        return ELO_EINVAL;
    int games = wins + draws + losses;
    p->games[a * p->cap + b] += games;
    p->games[b * p->cap + a] += games;
    p->pts[a * p->cap + b] += wins + 0.5 * draws;
    p->pts[b * p->cap + a] += losses + 0.5 * draws;
    return ELO_OK;
}

/* ---- fitting ---- */

void elo_result_free(elo_result *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n; i++)
        free(r->name[i]);
    free(r->name);
    free(r->elo);
    free(r->lo);
    free(r->hi);
    free(r->sd);
    free(r->games);
    free(r->points);
    free(r->score);
    free(r->perfect);
    free(r->los);
    free(r->order);
    free(r);
}

/* Cholesky factorisation in place of the k×k symmetric positive definite a (lower triangle); -1 if not SPD. */
static int cholesky(double *a, int k)
{
    for (int j = 0; j < k; j++) {
        double d = a[j * k + j];
        for (int l = 0; l < j; l++)
            d -= a[j * k + l] * a[j * k + l];
        if (!(d > 0))
            return -1;
        d = sqrt(d);
        a[j * k + j] = d;
        for (int i = j + 1; i < k; i++) {
            double s = a[i * k + j];
            for (int l = 0; l < j; l++)
                s -= a[i * k + l] * a[j * k + l];
            a[i * k + j] = s / d;
        }
    }
    return 0;
}

/* Solves L L^T x = b in place (b becomes x) with the factor from cholesky(). */
static void chol_solve(const double *L, int k, double *b)
{
    for (int i = 0; i < k; i++) {
        double s = b[i];
        for (int l = 0; l < i; l++)
            s -= L[i * k + l] * b[l];
        b[i] = s / L[i * k + i];
    }
    for (int i = k - 1; i >= 0; i--) {
        double s = b[i];
        for (int l = i + 1; l < k; l++)
            s -= L[l * k + i] * b[l];
        b[i] = s / L[i * k + i];
    }
}

typedef struct {
    int n;
    const double *w; /* n × n points */
    const double *g; /* n × n games */
} bt_data;

/* ln sigma(x) without overflow. */
static double log_sigmoid(double x) { return x >= 0 ? -log1p(exp(-x)) : x - log1p(exp(x)); }

static double loglik(const bt_data *d, const double *t)
{
    double ll = 0;
    for (int i = 0; i < d->n; i++)
        for (int j = i + 1; j < d->n; j++) {
            double g = d->g[i * d->n + j];
            if (g > 0) {
                double w = d->w[i * d->n + j];
                ll += w * log_sigmoid(t[i] - t[j]) + (g - w) * log_sigmoid(t[j] - t[i]);
            }
        }
    return ll;
}

/* Gradient and minus the Hessian, reduced to the k = n-1 free players (the anchor removed): pos maps a
 * player to its free position (-1 for the anchor). */
static void grad_info(const bt_data *d, const double *t, const int *pos, int k, double *grad, double *info)
{
    int n = d->n;
    memset(grad, 0, (size_t)k * sizeof *grad);
    memset(info, 0, (size_t)k * k * sizeof *info);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double g = d->g[i * n + j];
            if (i == j || g <= 0)
                continue;
            double p = 1.0 / (1.0 + exp(t[j] - t[i]));
            int a = pos[i], b = pos[j];
            if (a < 0)
                continue;
            grad[a] += d->w[i * n + j] - g * p;
            info[a * k + a] += g * p * (1 - p);
            if (b >= 0)
                info[a * k + b] -= g * p * (1 - p);
        }
}

/* Strong connectivity of "i scored against j" (reach[i][j] by Floyd–Warshall; n is small). */
static int strongly_connected(const bt_data *d, unsigned char *reach)
{
    int n = d->n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            reach[i * n + j] = i == j || d->w[i * n + j] > 0;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            if (reach[i * n + k])
                for (int j = 0; j < n; j++)
                    reach[i * n + j] |= reach[k * n + j];
    for (int i = 0; i < n * n; i++)
        if (!reach[i])
            return 0;
    return 1;
}

/* Maximises the log-likelihood over t (t[anchor] = 0 stays fixed); cov receives (-H)^-1 (k × k). */
static int newton(const bt_data *d, int anchor, double *t, double *cov, int *iterations)
{
    int n = d->n, k = n - 1;
    int *idx = malloc((size_t)n * sizeof *idx), *pos = malloc((size_t)n * sizeof *pos);
    double *grad = malloc((size_t)(k ? k : 1) * sizeof *grad), *info = malloc((size_t)(k ? k * k : 1) * sizeof *info);
    double *trial = malloc((size_t)n * sizeof *trial);
    int rc = ELO_ENOMEM;
    if (!idx || !pos || !grad || !info || !trial)
        goto out;
    for (int i = 0, a = 0; i < n; i++) {
        pos[i] = i == anchor ? -1 : a;
        if (i != anchor)
            idx[a++] = i;
    }
    memset(t, 0, (size_t)n * sizeof *t);
    double ll = loglik(d, t);
    rc = ELO_EINVAL;
    int it;
    for (it = 0; it < 200; it++) {
        grad_info(d, t, pos, k, grad, info);
        double gmax = 0;
        for (int a = 0; a < k; a++)
            gmax = fmax(gmax, fabs(grad[a]));
        if (gmax < 1e-10)
            break;
        if (cholesky(info, k))
            goto out;
        chol_solve(info, k, grad); /* grad now holds the Newton step */
        double step = 1.0, nll = ll;
        for (int h = 0; h < 60; h++, step *= 0.5) {
            memcpy(trial, t, (size_t)n * sizeof *t);
            for (int a = 0; a < k; a++)
                trial[idx[a]] += step * grad[a];
            nll = loglik(d, trial);
            if (nll >= ll - 1e-12 * fabs(ll))
                break;
        }
        memcpy(t, trial, (size_t)n * sizeof *t);
        double moved = 0;
        for (int a = 0; a < k; a++)
            moved = fmax(moved, fabs(step * grad[a]));
        ll = nll;
        if (moved < 1e-12)
            break;
    }
    *iterations = it;
    /* Covariance: invert the information at the optimum column by column. */
    grad_info(d, t, pos, k, grad, info);
    if (cholesky(info, k))
        goto out;
    for (int c = 0; c < k; c++) {
        double *col = trial; /* n >= k scratch */
        memset(col, 0, (size_t)k * sizeof *col);
        col[c] = 1;
        chol_solve(info, k, col);
        for (int a = 0; a < k; a++)
            cov[a * k + c] = col[a];
    }
    rc = ELO_OK;
out:
    free(idx);
    free(pos);
    free(grad);
    free(info);
    free(trial);
    return rc;
}

static int alloc_result(elo_result *r, int n)
{
    r->n = n;
    r->name = calloc((size_t)n, sizeof *r->name);
    r->elo = calloc((size_t)n, sizeof(double));
    r->lo = calloc((size_t)n, sizeof(double));
    r->hi = calloc((size_t)n, sizeof(double));
    r->sd = calloc((size_t)n, sizeof(double));
    r->games = calloc((size_t)n, sizeof(int));
    r->points = calloc((size_t)n, sizeof(double));
    r->score = calloc((size_t)n, sizeof(double));
    r->perfect = calloc((size_t)n, sizeof(int));
    r->los = calloc((size_t)n * n, sizeof(double));
    r->order = calloc((size_t)n, sizeof(int));
    if (!r->name || !r->elo || !r->lo || !r->hi || !r->sd || !r->games || !r->points || !r->score ||
        !r->perfect || !r->los || !r->order)
        return ELO_ENOMEM;
    return ELO_OK;
}

/* Best first, stable (insertion sort: n is small and qsort has no context argument). */
static void sort_by_rating(elo_result *r)
{
    for (int i = 0; i < r->n; i++)
        r->order[i] = i;
    for (int i = 1; i < r->n; i++) {
        int x = r->order[i], j = i;
        while (j > 0 && r->elo[r->order[j - 1]] < r->elo[x]) {
            r->order[j] = r->order[j - 1];
            j--;
        }
        r->order[j] = x;
    }
}

int elo_fit(const elo_pool *p, const elo_options *opt, elo_result **out, char *err)
{
    *out = NULL;
    int n = p->n;
    if (n < 2) {
        set_err(err, "ratings need at least 2 players (have %d)", n);
        return ELO_EINVAL;
    }
    int anchor = 0;
    if (opt && !(fabs(opt->anchor_elo) <= ELO_ANCHOR_MAX)) { /* NaN fails the test too */
        set_err(err, "the anchor's rating %g is not a finite number in %g..%g", opt->anchor_elo, -ELO_ANCHOR_MAX,
                ELO_ANCHOR_MAX);
        return ELO_EINVAL;
    }
    if (opt && opt->anchor) {
        anchor = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(p->name[i], opt->anchor))
                anchor = i;
        if (anchor < 0) {
            set_err(err, "anchor '%s' is not one of the %d players", opt->anchor, n);
            return ELO_EINVAL;
        }
    }
    double *w = calloc((size_t)n * n, sizeof *w), *g = calloc((size_t)n * n, sizeof *g);
    double *t = calloc((size_t)n, sizeof *t), *cov = calloc((size_t)n * n, sizeof *cov);
    unsigned char *reach = calloc((size_t)n * n, 1);
    elo_result *r = calloc(1, sizeof *r);
    int rc = ELO_ENOMEM;
    if (!w || !g || !t || !cov || !reach || !r || alloc_result(r, n))
        goto fail;
    for (int i = 0; i < n; i++) {
        if (!(r->name[i] = strdup(p->name[i])))
            goto fail;
        for (int j = 0; j < n; j++) {
            w[i * n + j] = p->pts[i * p->cap + j];
            g[i * n + j] = p->games[i * p->cap + j];
            r->games[i] += p->games[i * p->cap + j];
            r->points[i] += p->pts[i * p->cap + j];
        }
        if (!r->games[i]) {
            set_err(err, "player '%s' has no games", p->name[i]);
            rc = ELO_EINVAL;
            goto fail;
        }
        r->score[i] = r->points[i] / r->games[i];
        r->perfect[i] = r->points[i] == r->games[i] ? 1 : r->points[i] == 0 ? -1 : 0;
    }
    /* Connected at all (games either way)? Use "met" as a symmetric relation. */
    bt_data met = {n, g, g};
    strongly_connected(&met, reach);
    for (int j = 1; j < n; j++)
        if (!reach[j]) {
            set_err(err, "'%s' and '%s' are in separate pools: no chain of games connects them", p->name[0],
                    p->name[j]);
            rc = ELO_EDISCONNECTED;
            goto fail;
        }
    bt_data d = {n, w, g};
    if (!strongly_connected(&d, reach)) {
        r->prior = 1;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j && g[i * n + j] > 0) {
                    w[i * n + j] += 0.5;
                    g[i * n + j] += 1;
                }
    }
    int k = n - 1;
    rc = newton(&d, anchor, t, cov, &r->iterations);
    if (rc) {
        set_err(err, rc == ELO_ENOMEM ? "out of memory" : "the information matrix is singular");
        goto fail;
    }
    /* Expand the reduced covariance to all players (the anchor's row and column are zero). */
    double *full = calloc((size_t)n * n, sizeof *full);
    rc = ELO_ENOMEM;
    if (!full)
        goto fail;
    for (int i = 0, a = 0; i < n; i++) {
        if (i == anchor)
            continue;
        for (int j = 0, b = 0; j < n; j++) {
            if (j == anchor)
                continue;
            full[i * n + j] = cov[a * k + b] * ELO_PER_NAT * ELO_PER_NAT;
            b++;
        }
        a++;
    }
    r->anchor = anchor;
    r->anchor_elo = opt ? opt->anchor_elo : 0;
    for (int i = 0; i < n; i++) {
        r->elo[i] = r->anchor_elo + t[i] * ELO_PER_NAT;
        r->sd[i] = sqrt(full[i * n + i]);
        r->lo[i] = r->elo[i] - ELO_Z95 * r->sd[i];
        r->hi[i] = r->elo[i] + ELO_Z95 * r->sd[i];
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double var = full[i * n + i] + full[j * n + j] - 2 * full[i * n + j];
            double diff = r->elo[i] - r->elo[j];
            double sure = diff > 0 ? 1 : diff < 0 ? 0 : 0.5; /* no variance: only the anchor against itself */
            r->los[i * n + j] = i == j ? 0.5 : var > 0 ? elo_normal_cdf(diff / sqrt(var)) : sure;
        }
    free(full);
    sort_by_rating(r);
    free(w);
    free(g);
    free(t);
    free(cov);
    free(reach);
    *out = r;
    return ELO_OK;
fail:
    if (rc == ELO_ENOMEM)
        set_err(err, "out of memory");
    free(w);
    free(g);
    free(t);
    free(cov);
    free(reach);
    elo_result_free(r);
    return rc;
}
