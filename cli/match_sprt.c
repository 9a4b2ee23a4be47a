/* match_sprt.c — `match --sprt` (contract in match_sprt.h): batches of colour-swapped pairs, the
 * pentanomial counts, the GSPRT of eval/sprt.h after each batch, Elo and normalized Elo at the end.
 *
 * Normalized Elo (fishtest, fastchess): with the pair score x = points / 2 in {0, 1/4, 1/2, 3/4, 1}, its
 * mean s and per-pair variance v over the pairs, nElo = (s − 1/2) / sqrt(2 v) · 800 / ln 10 — the Elo a
 * result of that t-value would be if the draws were those of a balanced pair; intervals: s ± 1.96 sqrt(v / N)
 * mapped through the same formula (and through 400 log10(s / (1 − s)) for the Elo). */
#include "cli/match_sprt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "eval/sprt.h"

int cli_match_sprt_parse(const char *cmd, const char *text, match_sprt_args *out)
{
    match_sprt_args a = {NAN, NAN, 0.05, 0.05};
    char buf[256];
    if (strlen(text) >= sizeof buf) {
        cli_error(cmd, "--sprt: too long");
        return 0;
    }
    strcpy(buf, text);
    static const char *const keys[4] = {"elo0", "elo1", "alpha", "beta"};
    unsigned seen = 0;
    for (char *kv = buf, *next; kv; kv = next) {
        if ((next = strchr(kv, ',')))
            *next++ = 0;
        if (!*kv) {
            cli_error(cmd, "--sprt %s: an empty entry (key=value pairs separated by single commas)", text);
            return 0;
        }
        char *eq = strchr(kv, '='), *end;
        if (!eq) {
            cli_error(cmd, "--sprt: '%s' is not key=value (elo0=, elo1=, alpha=, beta=)", kv);
            return 0;
        }
        *eq = 0;
        errno = 0;
        double v = strtod(eq + 1, &end);
        if (!eq[1] || *end || errno || !isfinite(v)) {
            cli_error(cmd, "--sprt: %s=%s is not a number", kv, eq + 1);
            return 0;
        }
        for (int k = 0; k < 4; k++)
            if (!strcmp(kv, keys[k])) {
                if (seen >> k & 1) {
                    cli_error(cmd, "--sprt: %s given twice", kv);
                    return 0;
                }
                seen |= 1u << k;
            }
        if (!strcmp(kv, "elo0"))
            a.elo0 = v;
        else if (!strcmp(kv, "elo1"))
            a.elo1 = v;
        else if (!strcmp(kv, "alpha"))
            a.alpha = v;
        else if (!strcmp(kv, "beta"))
            a.beta = v;
        else {
            cli_error(cmd, "--sprt: unknown key '%s' (elo0, elo1, alpha, beta)", kv);
            return 0;
        }
    }
    if (isnan(a.elo0) || isnan(a.elo1)) {
        cli_error(cmd, "--sprt: needs elo0= and elo1= (e.g. --sprt elo0=0,elo1=10)");
        return 0;
    }
    if (!(a.elo0 < a.elo1) || a.elo0 <= -1000 || a.elo1 >= 1000) {
        cli_error(cmd, "--sprt: needs -1000 < elo0 < elo1 < 1000 (got elo0=%g, elo1=%g)", a.elo0, a.elo1);
        return 0;
    }
    if (!(a.alpha > 0 && a.alpha <= 0.5) || !(a.beta > 0 && a.beta <= 0.5)) {
        cli_error(cmd, "--sprt: alpha and beta are error rates in (0, 0.5] (got %g, %g)", a.alpha, a.beta);
        return 0;
    }
    *out = a;
    return 1;
}

static double to_elo(double s) { return -400.0 * log10(1.0 / s - 1.0); }
static double to_nelo(double s, double var) { return (s - 0.5) / sqrt(2.0 * var) * (800.0 / log(10.0)); }

typedef struct {
    int pairs[5], wins, draws, losses, games;
    double llr, lower, upper;
    int decision;
    double score, score_lo, score_hi, var, elo, elo_lo, elo_hi, nelo, nelo_lo, nelo_hi;
} sprt_state;

static void finish_stats(sprt_state *st)
{
    int n = 0;
    double sum = 0, sq = 0;
    for (int k = 0; k < 5; k++) {
        n += st->pairs[k];
        sum += st->pairs[k] * (k / 4.0);
    }
    st->score = n ? sum / n : 0.5;
    for (int k = 0; k < 5; k++)
        sq += st->pairs[k] * (k / 4.0 - st->score) * (k / 4.0 - st->score);
    st->var = n ? sq / n : 0;
    double half = n ? 1.959963984540054 * sqrt(st->var / n) : 0;
    st->score_lo = st->score - half;
    st->score_hi = st->score + half;
    /* the Elo of a score of 0 or 1 is infinite: kept as such (printed as a bound) */
    st->elo = st->score <= 0 ? -INFINITY : st->score >= 1 ? INFINITY : to_elo(st->score);
    st->elo_lo = st->score_lo <= 0 ? -INFINITY : st->score_lo >= 1 ? INFINITY : to_elo(st->score_lo);
    st->elo_hi = st->score_hi <= 0 ? -INFINITY : st->score_hi >= 1 ? INFINITY : to_elo(st->score_hi);
    if (st->var > 0) {
        st->nelo = to_nelo(st->score, st->var);
        st->nelo_lo = to_nelo(st->score_lo, st->var);
        st->nelo_hi = to_nelo(st->score_hi, st->var);
    } else {
        st->nelo = st->nelo_lo = st->nelo_hi = NAN; /* every pair alike: no spread to normalize by */
    }
}

static cJSON *num_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static const char *verdict(int d) { return d == SPRT_H1 ? "H1" : d == SPRT_H0 ? "H0" : "none"; }

static int print_json(char **spec, const game *g, const game_match_config *cfg, const match_sprt_args *sa,
                      const sprt_state *st)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "rules", game_spec(g));
    cJSON_AddStringToObject(o, "a", spec[0]);
    cJSON_AddStringToObject(o, "b", spec[1]);
    cJSON_AddNumberToObject(o, "seed", (double)cfg->seed);
    cJSON *s = cJSON_AddObjectToObject(o, "sprt");
    cJSON_AddNumberToObject(s, "elo0", sa->elo0);
    cJSON_AddNumberToObject(s, "elo1", sa->elo1);
    cJSON_AddNumberToObject(s, "alpha", sa->alpha);
    cJSON_AddNumberToObject(s, "beta", sa->beta);
    cJSON_AddNumberToObject(s, "lower", st->lower);
    cJSON_AddNumberToObject(s, "upper", st->upper);
    cJSON_AddNumberToObject(s, "llr", st->llr);
    cJSON_AddStringToObject(s, "result", verdict(st->decision));
    cJSON_AddNumberToObject(s, "games", st->games);
    cJSON_AddNumberToObject(s, "pairs", st->games / 2);
    cJSON *p = cJSON_AddArrayToObject(s, "pentanomial");
    for (int k = 0; k < 5; k++)
        cJSON_AddItemToArray(p, cJSON_CreateNumber(st->pairs[k]));
    cJSON_AddNumberToObject(s, "wins", st->wins);
    cJSON_AddNumberToObject(s, "draws", st->draws);
    cJSON_AddNumberToObject(s, "losses", st->losses);
    cJSON_AddNumberToObject(s, "score", st->score);
    cJSON_AddNumberToObject(s, "score_lo", st->score_lo);
    cJSON_AddNumberToObject(s, "score_hi", st->score_hi);
    cJSON_AddItemToObject(s, "elo", num_or_null(st->elo));
    cJSON_AddItemToObject(s, "elo_lo", num_or_null(st->elo_lo));
    cJSON_AddItemToObject(s, "elo_hi", num_or_null(st->elo_hi));
    cJSON_AddItemToObject(s, "nelo", num_or_null(st->nelo));
    cJSON_AddItemToObject(s, "nelo_lo", num_or_null(st->nelo_lo));
    cJSON_AddItemToObject(s, "nelo_hi", num_or_null(st->nelo_hi));
    return cli_print_json(o);
}

static void print_elo(const char *what, double v, double lo, double hi)
{
    if (isnan(v))
        printf("%s n/a (every pair scored alike)", what);
    else if (isinf(v))
        printf("%s %cinfinity (A scored %s point)", what, v > 0 ? '+' : '-', v > 0 ? "every" : "no");
    else if (isinf(lo) || isinf(hi))
        printf("%s %+.1f [%s, %s]", what, v, isinf(lo) ? "-inf" : "", isinf(hi) ? "+inf" : "");
    else
        printf("%s %+.1f [%+.1f, %+.1f]", what, v, lo, hi);
}

static void print_text(const match_sprt_args *sa, const sprt_state *st, int max_games)
{
    if (st->decision == SPRT_H1)
        printf("\nH1 accepted: A is better than B by elo1 = %g rather than elo0 = %g (LLR %.2f >= %.2f) after %d "
               "games\n", sa->elo1, sa->elo0, st->llr, st->upper, st->games);
    else if (st->decision == SPRT_H0)
        printf("\nH0 accepted: A is not better than B by elo1 = %g; elo0 = %g is the likelier (LLR %.2f <= %.2f) "
               "after %d games\n", sa->elo1, sa->elo0, st->llr, st->lower, st->games);
    else
        printf("\nno decision after %d games (the most --games %d allows): LLR %.2f within [%.2f, %.2f]\n", st->games,
               max_games, st->llr, st->lower, st->upper);
    printf("pentanomial (pairs in which A scored 0, 1/2, 1, 3/2, 2 points): %d %d %d %d %d  (%d pairs)\n", st->pairs[0],
           st->pairs[1], st->pairs[2], st->pairs[3], st->pairs[4], st->games / 2);
    printf("A: %d wins, %d draws, %d losses; score %.4f [%.4f, %.4f] 95%% (pair variance %.4f)\n", st->wins,
           st->draws, st->losses, st->score, st->score_lo, st->score_hi, st->var);
    print_elo("Elo A - B", st->elo, st->elo_lo, st->elo_hi);
    printf(";  ");
    print_elo("normalized Elo", st->nelo, st->nelo_lo, st->nelo_hi);
    printf("  (95%%)\n");
}

int cli_match_sprt(const char *cmd, char **spec, const game *g, const game_match_config *cfg,
                   const match_sprt_args *sa, int json)
{
    if (game_players(g) != 2) {
        cli_error(cmd, "--sprt: two-player games only (%s has %d players)", game_spec(g), game_players(g));
        return 2;
    }
    if (cfg->exact) {
        cli_error(cmd, "--sprt: not with --exact (or a solver agent): the test compares A with B only");
        return 2;
    }
    sprt_state st;
    memset(&st, 0, sizeof st);
    sprt_bounds(sa->alpha, sa->beta, &st.lower, &st.upper);
    int threads = cfg->threads > 0 ? cfg->threads : 1;
    int batch = 8 * threads < 16 ? 16 : 8 * threads; /* whole pairs for every thread, then a check */
    if (!json)
        printf("SPRT  A = %s\n      B = %s\nrules %s; elo0 %g, elo1 %g, alpha %g, beta %g: stop when LLR <= %.2f "
               "(H0) or >= %.2f (H1), at most %d games\n\n", spec[0], spec[1], game_spec(g), sa->elo0, sa->elo1,
               sa->alpha, sa->beta, st.lower, st.upper, cfg->games);
    const char *const specs[2] = {spec[0], spec[1]};
    for (int b = 0; st.games < cfg->games && st.decision == SPRT_CONTINUE; b++) {
        game_match_config bc = *cfg;
        bc.games = cfg->games - st.games < batch ? cfg->games - st.games : batch;
        bc.seed = cfg->seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(b + 1)); /* new openings each batch */
        if (cfg->book) /* a book is walked through in order, batch after batch, wrapping round at its end */
            bc.book_first = (int)(((long long)cfg->book_first + st.games / 2) % cfg->book->n);
        bc.progress = NULL;
        game_match_result res;
        char err[MATCH_ERRLEN];
        int rc = game_match_run(specs, 2, g, &bc, &res, err);
        if (rc != MATCH_OK) {
            cli_error(cmd, "%s", err);
            game_match_result_free(&res);
            return rc == MATCH_EINVAL ? 2 : 1;
        }
        for (int i = 0; i + 1 < res.games; i += 2) {
            int points2 = 0; /* A's points in the pair, doubled: 0..4 */
            for (int j = i; j < i + 2; j++) {
                const game_match_game *gm = &res.game[j];
                int a = gm->agent[0] == 0 ? 0 : 1, pa = gm->place[a], pb = gm->place[1 - a];
                points2 += pa < pb ? 2 : pa == pb ? 1 : 0;
                st.wins += pa < pb;
                st.draws += pa == pb;
                st.losses += pa > pb;
            }
            st.pairs[points2]++;
        }
        st.games += res.games;
        game_match_result_free(&res);
        st.llr = sprt_llr_pentanomial(st.pairs, sa->elo0, sa->elo1);
        st.decision = sprt_decide(st.llr, st.lower, st.upper);
        if (!json) {
            printf("  games %6d  LLR %+6.2f  pentanomial %d %d %d %d %d\n", st.games, st.llr, st.pairs[0], st.pairs[1],
                   st.pairs[2], st.pairs[3], st.pairs[4]);
            fflush(stdout);
        }
    }
    finish_stats(&st);
    if (json)
        return print_json(spec, g, cfg, sa, &st);
    print_text(sa, &st, cfg->games);
    return 0;
}
