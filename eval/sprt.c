/* sprt.c — the GSPRT on Elo; contract and formulas in sprt.h. */
#include "eval/sprt.h"

#include <math.h>

double sprt_score(double elo)
{
    return 1.0 / (1.0 + pow(10.0, -elo / 400.0));
}

/* log-likelihood at expected score s of the (regularised) counts, up to the term Σ n_i log(n_i / N) that
 * cancels in the ratio: −Σ n_i log(1 + λ (x_i − s)). */
static double mle_loglik(const double *n, const double *x, int k, double s)
{
    double lo_d = 0, hi_d = 0; /* min and max of x_i − s */
    for (int i = 0; i < k; i++) {
        double d = x[i] - s;
        lo_d = d < lo_d ? d : lo_d;
        hi_d = d > hi_d ? d : hi_d;
    }
    /* λ in (−1/hi_d, −1/lo_d); f(λ) = Σ n_i d_i / (1 + λ d_i) falls from +inf to −inf there. */
    double lo = -1.0 / hi_d, hi = -1.0 / lo_d;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi), f = 0;
        if (mid <= lo || mid >= hi)
            break;
        for (int i = 0; i < k; i++) {
            double d = x[i] - s;
            f += n[i] * d / (1 + mid * d);
        }
        if (f > 0)
            lo = mid;
        else
            hi = mid;
    }
    double lambda = 0.5 * (lo + hi), ll = 0;
    for (int i = 0; i < k; i++)
        ll -= n[i] * log1p(lambda * (x[i] - s));
    return ll;
}

double sprt_llr(const double *counts, const double *scores, int n_cells, double s0, double s1)
{
    if (n_cells < 2 || n_cells > SPRT_MAX_CELLS || !(s0 > 0 && s0 < s1 && s1 < 1))
        return NAN;
    double n[SPRT_MAX_CELLS], xmin = 2, xmax = -1, total = 0;
    for (int i = 0; i < n_cells; i++) {
        if (!(counts[i] >= 0) || !(scores[i] >= 0 && scores[i] <= 1))
            return NAN;
        n[i] = counts[i] > SPRT_MIN_COUNT ? counts[i] : SPRT_MIN_COUNT;
        total += counts[i];
        xmin = scores[i] < xmin ? scores[i] : xmin;
        xmax = scores[i] > xmax ? scores[i] : xmax;
    }
    if (!(xmin < s0 && xmax > s1))
        return NAN;
    if (total == 0) /* no evidence either way (the 1e-3 counts alone would tilt it) */
        return 0;
    return mle_loglik(n, scores, n_cells, s1) - mle_loglik(n, scores, n_cells, s0);
}

double sprt_llr_trinomial(int w, int d, int l, double elo0, double elo1)
{
    const double x[3] = {0, 0.5, 1}, n[3] = {l, d, w};
    return sprt_llr(n, x, 3, sprt_score(elo0), sprt_score(elo1));
}

double sprt_llr_pentanomial(const int pairs[5], double elo0, double elo1)
{
    const double x[5] = {0, 0.25, 0.5, 0.75, 1};
    double n[5];
    for (int k = 0; k < 5; k++)
        n[k] = pairs[k];
    return sprt_llr(n, x, 5, sprt_score(elo0), sprt_score(elo1));
}

void sprt_bounds(double alpha, double beta, double *lower, double *upper)
{
    *lower = log(beta / (1 - alpha));
    *upper = log((1 - beta) / alpha);
}

int sprt_decide(double llr, double lower, double upper)
{
    return llr >= upper ? SPRT_H1 : llr <= lower ? SPRT_H0 : SPRT_CONTINUE;
}
