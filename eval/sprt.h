/* sprt.h — the sequential probability ratio test on Elo, as engine testing uses it (Wald 1945; the
 * generalized SPRT of fishtest and Leela Zero's gating), for colour-swapped pairs or single games.
 *
 * Hypotheses: H0: the Elo difference candidate − reference is elo0; H1: it is elo1 (elo0 < elo1). An Elo
 * difference e means the expected score s(e) = 1 / (1 + 10^(−e/400)) per game (the logistic model, elo.h).
 *
 * The statistic (GSPRT, the log-likelihood ratio with the nuisance parameters at their maximum-likelihood
 * values): the outcomes fall in cells i with scores x_i and counts n_i — the trinomial model: games, x =
 * 0, 1/2, 1 (loss, draw, win); the pentanomial model: colour-swapped pairs, x = 0, 1/4, 1/2, 3/4, 1 (the pair's
 * points / 2), which keeps the correlation of the two games of an opening, as fishtest does since 2020.
 * Under "expected score s" the maximum-likelihood cell probabilities are
 *     p_i(s) = (n_i / N) / (1 + λ (x_i − s)),   λ the root of  Σ n_i (x_i − s) / (1 + λ (x_i − s)) = 0
 * (Lagrange multipliers for Σ p_i = 1 and Σ p_i x_i = s; the left side falls monotonically in λ on the
 * interval where every 1 + λ (x_i − s) > 0, so bisection finds it), and
 *     LLR = Σ n_i log(p_i(s1) / p_i(s0)).
 * Each count is first raised to at least 1e-3, so that a sample missing a cell (all wins, say) has an
 * interior maximum: two wins then give LLR ≈ 2 log(s1 / s0), not infinity.
 * Wald's bounds: accept H1 when LLR >= log((1 − β) / α), accept H0 when LLR <= log(β / (1 − α)); α is the
 * false-positive rate (H1 accepted when H0 holds), β the false-negative rate. Checking after batches of
 * pairs rather than after each one only overshoots the bounds a little (the errors stay at most α, β).
 *
 * Library code: pure functions, no printing.
 */
#ifndef SOWZERO_EVAL_SPRT_H
#define SOWZERO_EVAL_SPRT_H

#define SPRT_MAX_CELLS 8
#define SPRT_MIN_COUNT 1e-3

enum { SPRT_CONTINUE = 0, SPRT_H1 = 1, SPRT_H0 = -1 };

/* s(e) = 1 / (1 + 10^(-e/400)). */
double sprt_score(double elo);

/* The GSPRT LLR above for n_cells (2..SPRT_MAX_CELLS) cells with counts[i] >= 0 outcomes of score
 * scores[i] (distinct, in [0, 1], the lowest below s0 and the highest above s1), expected scores
 * 0 < s0 < s1 < 1. 0 when every count is 0; NaN when the arguments break those conditions. */
double sprt_llr(const double *counts, const double *scores, int n_cells, double s0, double s1);

/* The trinomial model: w wins, d draws, l losses of the candidate. */
double sprt_llr_trinomial(int w, int d, int l, double elo0, double elo1);

/* The pentanomial model: pairs[k] colour-swapped pairs in which the candidate scored k/2 points (k = 0..4). */
double sprt_llr_pentanomial(const int pairs[5], double elo0, double elo1);

/* Wald's bounds for error rates alpha, beta in (0, 1/2]: *lower = log(beta / (1 - alpha)), *upper =
 * log((1 - beta) / alpha). */
void sprt_bounds(double alpha, double beta, double *lower, double *upper);

/* SPRT_H1, SPRT_H0 or SPRT_CONTINUE for llr against the bounds. */
int sprt_decide(double llr, double lower, double upper);

#endif
