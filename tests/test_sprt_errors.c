/* test_sprt_errors.c — the stopping rule of `match --sprt` (eval/sprt.h: the pentanomial GSPRT, Wald's
 * bounds) run many times on simulated colour-swapped pairs whose true Elo difference is known: at
 * elo = elo0 it accepts H1 (a type-I error) at most alpha of the time, at elo = elo1 it accepts H0 (a
 * type-II error) at most beta of the time, each within the sampling error of the simulation, and the mean
 * number of pairs it needs is Wald's average sample number (from the drift of the LLR per pair) plus the
 * overshoot. Deterministic: a fixed-seed generator.
 *
 * The simulated pairs: a pentanomial distribution p_k (k/2 points of 2 for the candidate, k = 0..4) for a
 * true Elo e is the exponential tilt p_k ∝ q_k exp(θ k/4) of a fixed shape q (the spread of real engine
 * pairs: most pairs split 1-1, few 2-0), θ chosen so that the expected pair score Σ p_k k/4 is
 * s(e) = 1 / (1 + 10^(−e/400)). It is not the family the GSPRT's maximum-likelihood nuisance assumes, so the
 * test also sees that the rule keeps its error rates on a model it was not written for. */
#include "tests/test_util.h"

#include <math.h>

#include "eval/sprt.h"

static const double shape[5] = {0.04, 0.20, 0.52, 0.20, 0.04};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s) { return (double)(splitmix(s) >> 11) * 0x1.0p-53; }

/* The tilted pentanomial with mean pair score s (bisection on θ). */
static void pentanomial(double s, double *p)
{
    double lo = -60, hi = 60;
    for (int it = 0; it < 200; it++) {
        double th = 0.5 * (lo + hi), z = 0, m = 0;
        for (int k = 0; k < 5; k++) {
            p[k] = shape[k] * exp(th * k / 4.0);
            z += p[k];
            m += p[k] * k / 4.0;
        }
        if (m / z < s)
            lo = th;
        else
            hi = th;
    }
    double z = 0;
    for (int k = 0; k < 5; k++)
        z += p[k];
    for (int k = 0; k < 5; k++)
        p[k] /= z;
}

typedef struct {
    int h1, h0, undecided;
    double mean_pairs;
} sim_result;

/* runs tests of the hypotheses elo0 < elo1 on pairs drawn from p, the LLR checked after every `batch`
 * pairs (as `match --sprt` checks after each batch), each stopped at max_pairs at the latest. */
static sim_result simulate(const double *p, double elo0, double elo1, double alpha, double beta, int batch, int runs,
                           int max_pairs, uint64_t seed)
{
    double lower, upper, cum[5], c = 0;
    sprt_bounds(alpha, beta, &lower, &upper);
    for (int k = 0; k < 5; k++)
        cum[k] = c += p[k];
    sim_result r = {0, 0, 0, 0};
    uint64_t st = seed;
    long long total = 0;
    for (int run = 0; run < runs; run++) {
        int pairs[5] = {0, 0, 0, 0, 0}, n = 0, d = SPRT_CONTINUE;
        while (d == SPRT_CONTINUE && n < max_pairs) {
            for (int i = 0; i < batch; i++) {
                double u = uniform(&st);
                int k = 0;
                while (k < 4 && u >= cum[k])
                    k++;
                pairs[k]++;
            }
            n += batch;
            d = sprt_decide(sprt_llr_pentanomial(pairs, elo0, elo1), lower, upper);
        }
        r.h1 += d == SPRT_H1;
        r.h0 += d == SPRT_H0;
        r.undecided += d == SPRT_CONTINUE;
        total += n;
    }
    r.mean_pairs = (double)total / runs;
    return r;
}

/* Wald's average sample number under p: ((1 − a) log B + a log A) / drift for a run that ends at B =
 * log(β/(1−α)) with probability 1 − a and at A = log((1−β)/α) with probability a, drift being the LLR's
 * growth per pair under p (the GSPRT's LLR per pair as the counts grow large: sprt_llr of counts ∝ p). */
static double wald_asn(const double *p, double elo0, double elo1, double alpha, double beta, double a)
{
    double lower, upper, counts[5];
    sprt_bounds(alpha, beta, &lower, &upper);
    for (int k = 0; k < 5; k++)
        counts[k] = 1e6 * p[k];
    const double x[5] = {0, 0.25, 0.5, 0.75, 1};
    double drift = sprt_llr(counts, x, 5, sprt_score(elo0), sprt_score(elo1)) / 1e6;
    return ((1 - a) * lower + a * upper) / drift;
}

static void check(double true_elo, double elo0, double elo1, double alpha, double beta, int batch)
{
    const int runs = 3000;
    double p[5];
    pentanomial(sprt_score(true_elo), p);
    double mean = 0;
    for (int k = 0; k < 5; k++)
        mean += p[k] * k / 4.0;
    assert_true(fabs(mean - sprt_score(true_elo)) < 1e-12);
    sim_result r = simulate(p, elo0, elo1, alpha, beta, batch, runs, 1000000, 0x5eed0000u + (uint64_t)batch);
    assert_int_equal(r.undecided, 0); /* the SPRT ends with probability 1; no run came near the cap */
    int at_h0 = fabs(true_elo - elo0) < 1e-9;
    double err = (double)(at_h0 ? r.h1 : r.h0) / runs, nominal = at_h0 ? alpha : beta;
    /* the error rate is at most its bound (Wald: alpha / (1 − beta) at worst; overshoot lowers it), allowing
     * 3 standard errors of the simulated rate; and the rule does not err far less often than the bound
     * says, as one that waited needlessly long would (the overshoot of a batch costs some) */
    double se = sqrt(nominal * (1 - nominal) / runs);
    print_message("true elo %+.0f (H%d), batch %d: error rate %.4f (bound %.3f), mean pairs %.1f\n", true_elo, !at_h0,
                  batch, err, nominal, r.mean_pairs);
    assert_true(err <= nominal / (1 - (at_h0 ? beta : alpha)) + 3 * se);
    assert_true(err >= 0.4 * nominal);
    /* Wald's ASN with the probability of the wrong decision at its bound; the batches' overshoot adds at
     * most a batch, and Wald's figure ignores the overshoot over the bound itself (a few percent here) */
    double asn = wald_asn(p, elo0, elo1, alpha, beta, at_h0 ? alpha : 1 - beta);
    print_message("  Wald's average sample number %.1f pairs\n", asn);
    assert_true(r.mean_pairs >= 0.9 * asn);
    assert_true(r.mean_pairs <= 1.25 * asn + batch);
}

static void test_error_rates_at_h0_and_h1(void **state)
{
    (void)state;
    check(0, 0, 20, 0.05, 0.05, 1);
    check(20, 0, 20, 0.05, 0.05, 1);
    check(0, 0, 20, 0.05, 0.05, 8); /* as `match --sprt` checks: after batches of 8 pairs (16 games) */
    check(20, 0, 20, 0.05, 0.05, 8);
    check(-10, -10, 30, 0.10, 0.02, 1); /* unequal error rates */
    check(30, -10, 30, 0.10, 0.02, 1);
}

/* Between and beyond the hypotheses the test goes the way the truth leans: far below elo0 it almost always
 * accepts H0, far above elo1 H1, and at the midpoint roughly half and half. */
static void test_decisions_follow_the_truth(void **state)
{
    (void)state;
    double p[5];
    pentanomial(sprt_score(-20), p);
    sim_result r = simulate(p, 0, 20, 0.05, 0.05, 1, 1000, 1000000, 11);
    assert_true(r.h0 >= 995);
    pentanomial(sprt_score(40), p);
    r = simulate(p, 0, 20, 0.05, 0.05, 1, 1000, 1000000, 12);
    assert_true(r.h1 >= 995);
    pentanomial(sprt_score(10), p);
    r = simulate(p, 0, 20, 0.05, 0.05, 1, 1000, 1000000, 13);
    assert_true(r.h1 > 350 && r.h0 > 350);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_rates_at_h0_and_h1),
        cmocka_unit_test(test_decisions_follow_the_truth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
