/* elo.h — Bradley–Terry ratings on the Elo scale, score intervals (docs/design.md §3.5).
 *
 * Model (Bradley & Terry 1952; Elo scale as in Elo 1978): player i beats j with probability
 *   P(i > j) = 1 / (1 + 10^(-(R_i - R_j) / 400)),
 * a draw counting half a win for each side (so a pair's data is "points scored of games played"). The
 * ratings maximise the log-likelihood  sum_{i<j} w_ij ln P(i>j) + (n_ij - w_ij) ln P(j>i)  over all games
 * (w_ij = points i scored against j, n_ij = games between them), with the anchor's rating fixed. Solved by
 * Newton's method with step halving (the log-likelihood is concave; Hunter 2004, "MM algorithms for
 * generalized Bradley–Terry models", shows the maximiser is unique when the comparison graph is strongly
 * connected). For two players this reproduces the closed form R_a - R_b = 400 log10(s / (1 - s)).
 *
 * 95% intervals: R_i ± 1.96 sd_i from the observed Fisher information (minus the Hessian of the log-
 * likelihood with the anchor fixed): cov = (-H)^-1, so an interval is the uncertainty of R_i - R_anchor
 * and the anchor's own interval has width 0. Treating a draw as half a win and half a loss overstates the
 * variance a little when there are many draws (the intervals are conservative).
 *
 * Likelihood of superiority (the normal approximation used by BayesElo and Stockfish's tools):
 *   LOS(i, j) = Phi((R_i - R_j) / sd(R_i - R_j)),  var(R_i - R_j) = C_ii + C_jj - 2 C_ij.
 *
 * Perfect scores. When some group of players scored no point at all against the others (e.g. an agent won
 * or lost every game), the maximum-likelihood ratings are infinite. Then — and only then — the fit adds a
 * weak prior: one virtual draw to every pair of players that met (result->prior = 1; result->perfect
 * flags who won or lost every game). Games, points and scores in the result count real games only. Players
 * split into groups that never met (no chain of games connects them) are an error: their ratings are not
 * comparable.
 *
 * Library functions never print; errors return ELO_* codes with a message.
 */
#ifndef SOWZERO_ELO_H
#define SOWZERO_ELO_H

#include "env/status.h"

#define ELO_ERRLEN SZ_ERRLEN

enum { ELO_OK = SZ_OK, ELO_EINVAL = SZ_EINVAL, ELO_ENOMEM = SZ_ENOMEM, ELO_EDISCONNECTED = SZ_ENOSOLUTION };

/* ---- closed forms ---- */

/* Elo difference implied by a score s in (0, 1): 400 log10(s / (1 - s)). s outside (0, 1) gives ±inf;
 * callers clamp (see game_match.h, match_result). */
double elo_from_score(double s);
/* Expected score of a player rated d Elo above its opponent: 1 / (1 + 10^(-d/400)). */
double elo_expected_score(double d);
/* Wilson score interval (Wilson 1927) for `points` successes out of n > 0 trials at normal quantile z
 * (1.959964 for 95%): (p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), p = points/n. A game's points
 * may be 0, 1/2 or 1; treating the score as a binomial proportion makes the interval conservative when there
 * are draws. Always within [0, 1]. */
void elo_wilson(double points, double n, double z, double *lo, double *hi);
/* Standard normal CDF. */
double elo_normal_cdf(double x);

#define ELO_Z95 1.959963984540054

/* ---- a pool of game results ---- */

typedef struct elo_pool elo_pool;

elo_pool *elo_pool_create(void);
void elo_pool_free(elo_pool *p);

/* Index of the player called name, added if new (names are compared exactly). Returns >= 0, or ELO_ENOMEM. */
int elo_pool_player(elo_pool *p, const char *name);
int elo_pool_count(const elo_pool *p);
const char *elo_pool_name(const elo_pool *p, int i);

/* Adds results of player a against player b (a != b, both valid indices): wins, draws and losses counted
 * from a's side (non-negative). ELO_OK or ELO_EINVAL. */
int elo_pool_add(elo_pool *p, int a, int b, int wins, int draws, int losses);

/* ---- fitting ---- */

typedef struct {
    const char *anchor;  /* name of the player whose rating is fixed; NULL = the first player added */
    double anchor_elo;   /* its rating (0 by default); finite, |anchor_elo| <= ELO_ANCHOR_MAX */
} elo_options;

/* The largest anchor rating in magnitude: beyond it the ratings lose the precision of their differences. */
#define ELO_ANCHOR_MAX 1e6

typedef struct {
    int n;               /* players, in pool order */
    char **name;         /* n names (owned by the result) */
    double *elo;         /* ratings */
    double *lo, *hi;     /* 95% interval (see above); lo = hi = elo for the anchor */
    double *sd;          /* standard deviation of elo[i] - elo[anchor] */
    int *games;          /* real games played */
    double *points;      /* points scored (wins + draws / 2) */
    double *score;       /* points / games */
    int *perfect;        /* +1 won every game, -1 lost every game, 0 otherwise */
    double *los;         /* n × n row-major: los[i*n+j] = P(R_i > R_j); 0.5 on the diagonal */
    int *order;          /* player indices sorted by rating, best first (ties: pool order) */
    int anchor;          /* index of the anchor */
    double anchor_elo;
    int prior;           /* 1 when the virtual draws were added (some ML rating was infinite) */
    int iterations;      /* Newton steps taken */
} elo_result;

/* Fits the ratings of every player in the pool. opt may be NULL (anchor = first player at 0). Returns ELO_OK
 * with a new result in *out (free with elo_result_free); ELO_EINVAL (fewer than 2 players, a player with
 * no games, unknown anchor, an anchor rating that is not finite or beyond ELO_ANCHOR_MAX), ELO_EDISCONNECTED (message names two players no chain of games connects),
 * ELO_ENOMEM. */
int elo_fit(const elo_pool *p, const elo_options *opt, elo_result **out, char *err);
void elo_result_free(elo_result *r);

#endif
