/* test_sprt.c — the GSPRT (eval/sprt.h) against an independent computation: the constrained maximum
 * likelihood found directly in the probabilities (golden-section line searches along the feasible
 * directions, no Lagrange multiplier), for the trinomial and the pentanomial model; Wald's bounds and a few
 * hand-computed values. */
#include "tests/test_util.h"

#include <math.h>

#include "eval/sprt.h"

static double loglik(const double *n, const double *p, int k)
{
    double ll = 0;
    for (int i = 0; i < k; i++) {
        if (p[i] <= 0)
            return -INFINITY;
        ll += n[i] * log(p[i]);
    }
    return ll;
}

/* max of loglik over p + t v, t in [lo, hi] (concave along the line). */
static double line_max(const double *n, double *p, const double *v, int k)
{
    double lo = -1e9, hi = 1e9; /* the t keeping every p_i + t v_i >= 0 */
    for (int i = 0; i < k; i++) {
        if (v[i] > 0)
            lo = fmax(lo, -p[i] / v[i]);
        if (v[i] < 0)
            hi = fmin(hi, -p[i] / v[i]);
    }
    const double g = (sqrt(5.0) - 1) / 2;
    double a = lo, b = hi, q[8];
    for (int it = 0; it < 200; it++) {
        double c = b - g * (b - a), d = a + g * (b - a), fc, fd;
        for (int i = 0; i < k; i++)
            q[i] = p[i] + c * v[i];
        fc = loglik(n, q, k);
        for (int i = 0; i < k; i++)
            q[i] = p[i] + d * v[i];
        fd = loglik(n, q, k);
        if (fc > fd)
            b = d;
        else
            a = c;
    }
    double t = (a + b) / 2;
    for (int i = 0; i < k; i++)
        p[i] += t * v[i];
    return loglik(n, p, k);
}

/* max over {p >= 0, sum p = 1, sum p x = s} of sum n log p, the cells' scores x equally spaced on [0, 1]
 * (k = 3 or 5): cyclic line searches along the second differences, which span the feasible directions. */
static double constrained_max(const double *counts, int k, double s)
{
    double n[8], p[8], x[8], sxx = 0;
    for (int i = 0; i < k; i++) {
        n[i] = fmax(counts[i], SPRT_MIN_COUNT);
        x[i] = (double)i / (k - 1);
        sxx += (x[i] - 0.5) * x[i];
    }
    for (int i = 0; i < k; i++) /* a feasible interior start: uniform, tilted to mean s */
        p[i] = 1.0 / k + (s - 0.5) / sxx * (x[i] - 0.5);
    double ll = 0;
    for (int round = 0; round < 300; round++)
        for (int j = 0; j + 2 < k; j++) {
            double v[8] = {0};
            v[j] = 1, v[j + 1] = -2, v[j + 2] = 1;
            ll = line_max(n, p, v, k);
        }
    return ll;
}

static double independent_llr(const double *counts, int k, double elo0, double elo1)
{
    return constrained_max(counts, k, sprt_score(elo1)) - constrained_max(counts, k, sprt_score(elo0));
}

static void test_trinomial_against_the_direct_maximum(void **state)
{
    (void)state;
    static const int wdl[][3] = {{10, 20, 5}, {2, 0, 0}, {0, 0, 3}, {50, 100, 50}, {120, 60, 80}, {7, 1, 12}};
    static const double elos[][2] = {{0, 10}, {0, 30}, {-10, 20}};
    for (size_t i = 0; i < sizeof wdl / sizeof wdl[0]; i++)
        for (size_t e = 0; e < sizeof elos / sizeof elos[0]; e++) {
            double counts[3] = {wdl[i][2], wdl[i][1], wdl[i][0]}; /* loss, draw, win */
            double want = independent_llr(counts, 3, elos[e][0], elos[e][1]);
            double got = sprt_llr_trinomial(wdl[i][0], wdl[i][1], wdl[i][2], elos[e][0], elos[e][1]);
            if (fabs(got - want) > 1e-6 * fmax(1, fabs(want)))
                fail_msg("W-D-L %d-%d-%d, elo %g..%g: LLR %.9f, direct maximum %.9f", wdl[i][0], wdl[i][1],
                         wdl[i][2], elos[e][0], elos[e][1], got, want);
        }
}

static void test_pentanomial_against_the_direct_maximum(void **state)
{
    (void)state;
    static const int pairs[][5] = {{1, 4, 10, 6, 3}, {0, 0, 0, 0, 2}, {5, 0, 0, 0, 0}, {10, 20, 40, 20, 10},
                                   {0, 3, 30, 9, 0}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        double counts[5];
        for (int j = 0; j < 5; j++)
            counts[j] = pairs[i][j];
        double want = independent_llr(counts, 5, 0, 20), got = sprt_llr_pentanomial(pairs[i], 0, 20);
        if (fabs(got - want) > 1e-6 * fmax(1, fabs(want)))
            fail_msg("pairs %d %d %d %d %d: LLR %.9f, direct maximum %.9f", pairs[i][0], pairs[i][1], pairs[i][2],
                     pairs[i][3], pairs[i][4], got, want);
    }
}

static void test_hand_computed_values(void **state)
{
    (void)state;
    /* s(0) = 1/2; s(400) = 10/11 */
    assert_true(fabs(sprt_score(0) - 0.5) < 1e-15 && fabs(sprt_score(400) - 10.0 / 11) < 1e-15);
    /* two wins: the MLE puts the whole score on wins, p_w = s, so LLR = 2 log(s1/s0) (up to the 1e-3 counts) */
    double s1 = sprt_score(30);
    assert_true(fabs(sprt_llr_trinomial(2, 0, 0, 0, 30) - 2 * log(s1 / 0.5)) < 1e-2);
    /* an even score: both hypotheses above it, H0 the closer one, LLR < 0 */
    assert_true(sprt_llr_trinomial(30, 40, 30, 0, 30) < 0);
    /* no games: 0 */
    assert_true(fabs(sprt_llr_trinomial(0, 0, 0, 0, 30)) < 1e-6);
    double lo, hi;
    sprt_bounds(0.05, 0.05, &lo, &hi);
    assert_true(fabs(hi - log(19.0)) < 1e-12 && fabs(lo + log(19.0)) < 1e-12);
    assert_int_equal(sprt_decide(3.0, lo, hi), SPRT_H1);
    assert_int_equal(sprt_decide(-3.0, lo, hi), SPRT_H0);
    assert_int_equal(sprt_decide(0.0, lo, hi), SPRT_CONTINUE);
    /* bad arguments */
    assert_true(isnan(sprt_llr_trinomial(1, 1, 1, 30, 0)));
    double n[2] = {1, 1}, x[2] = {0.6, 1};
    assert_true(isnan(sprt_llr(n, x, 2, 0.5, 0.55)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trinomial_against_the_direct_maximum),
        cmocka_unit_test(test_pentanomial_against_the_direct_maximum),
        cmocka_unit_test(test_hand_computed_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
