/* perfect.c — the agent's margins against the exact values; contract in perfect.h. */
#include "eval/perfect.h"

#include <math.h>
#include <string.h>


int perfect_value(agent *solver, const kalah_pos *p, int *south_value)
{
    if (strcmp(agent_kind(solver), "solver") != 0 || p->over)
        return AGENT_EINVAL;
    int k, rc = agent_choose(solver, p, &k);
    if (rc != AGENT_OK)
        return rc;
    game_agent_stats st;
    agent_last_stats(solver, &st);
    int v = (int)lroundf(st.value); /* the exact margin for the side to move at p */
    *south_value = p->side == KALAH_SOUTH ? v : -v;
    return AGENT_OK;
}

double perfect_t975(int df)
{
    /* t(0.975, df), df = 1..30 (standard tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2). */
    static const double table[31] = {
        NAN,      12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157,
        2.228139, 2.200985,  2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024,
        2.085963, 2.079614,  2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230,
        2.042272};
    if (df < 1)
        return NAN;
    if (df <= 30)
        return table[df];
    /* Abramowitz & Stegun 26.7.5: t = z + g1/v + g2/v^2 + g3/v^3 + g4/v^4, z the normal quantile. */
    double z = 1.959963984540054, v = df, z2 = z * z;
    double g1 = (z2 + 1) * z / 4;
    double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
    double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
    double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
    return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

void perfect_stats_compute(const int *margin_south, const int *exact_south, int n, int seat, perfect_stats *out)
{
    memset(out, 0, sizeof *out);
    out->games = n;
    if (n <= 0)
        return;
    int sign = seat == KALAH_SOUTH ? 1 : -1;
    double sum = 0, sum_v = 0;
    for (int i = 0; i < n; i++) {
        int d = sign * (margin_south[i] - exact_south[i]);
        sum += d;
        sum_v += sign * exact_south[i];
        out->reached += d >= 0;
    }
    out->mean = sum / n;
    out->exact_mean = sum_v / n;
    out->lo = out->hi = out->mean;
    if (n < 2)
        return;
    double ss = 0; /* two passes: the deviations, not sum of squares minus square of sums */
    for (int i = 0; i < n; i++) {
        double e = sign * (margin_south[i] - exact_south[i]) - out->mean;
        ss += e * e;
    }
    double half = perfect_t975(n - 1) * sqrt(ss / (n - 1)) / sqrt((double)n);
    out->lo = out->mean - half;
    out->hi = out->mean + half;
    out->have_interval = 1;
}
