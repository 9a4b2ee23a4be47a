/* test_elo.c — Bradley–Terry ratings (eval/elo.h) against closed forms and invariants, search-cases.md
 * case 10, perfect scores, and the `elo` command (pooling files, anchors, JSON). */
#include "tests/test_util.h"

#include <math.h>
#include <cjson/cJSON.h>
#include "eval/elo.h"
#include "eval/game_match.h"
#include "env/kalah.h"
#include "eval/record.h"

static elo_result *fit_or_fail(elo_pool *p, const elo_options *o)
{
    elo_result *r;
    char err[ELO_ERRLEN];
    if (elo_fit(p, o, &r, err) != ELO_OK)
        fail_msg("elo_fit: %s", err);
    return r;
}

static elo_pool *two_players(int w, int d, int l)
{
    elo_pool *p = elo_pool_create();
    assert_int_equal(elo_pool_player(p, "A"), 0);
    assert_int_equal(elo_pool_player(p, "B"), 1);
    assert_int_equal(elo_pool_add(p, 0, 1, w, d, l), ELO_OK);
    return p;
}

/* search-cases.md case 10: 10 wins, 8 losses, 22 draws = .525 = +17.4 Elo (a draw is not a loss). */
static void test_case10_draw_is_not_a_loss(void **state)
{
    (void)state;
    elo_pool *p = two_players(10, 22, 8);
    elo_result *r = fit_or_fail(p, NULL);
    assert_true(fabs(r->score[0] - 0.525) < 1e-12);
    double d = r->elo[0] - r->elo[1];
    if (fabs(d - 17.4) > 0.05)
        fail_msg("case 10: got %+.3f Elo, want +17.4", d);
    assert_int_equal(r->prior, 0);
    assert_int_equal(r->games[0], 40);
    elo_result_free(r);
    elo_pool_free(p);
    /* The match statistics give the same number. */
    match_result m;
    memset(&m, 0, sizeof m);
    m.all = (match_tally){10, 22, 8};
    match_result_stats(&m);
    assert_true(fabs(m.score - 0.525) < 1e-12);
    assert_true(fabs(m.elo - 17.4) < 0.05);
    assert_int_equal(m.elo_clamped, 0);
    assert_true(m.score_lo < 0.525 && m.score_hi > 0.525);
}

/* Two players: the ML difference is the closed form 400 log10(s/(1-s)), its sd 400/ln10 / sqrt(n s (1-s)),
 * and the anchor only shifts the scale. */
static void test_two_player_closed_form(void **state)
{
    (void)state;
    static const int cases[][3] = {{7, 0, 3}, {3, 4, 13}, {1, 0, 1}, {25, 50, 5}, {2, 97, 1}, {60, 1, 39}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int w = cases[c][0], d = cases[c][1], l = cases[c][2], n = w + d + l;
        double s = (w + 0.5 * d) / n;
        elo_pool *p = two_players(w, d, l);
        elo_options o = {"B", 1500};
        elo_result *r = fit_or_fail(p, &o);
        double want = 400 * log10(s / (1 - s));
        if (fabs(r->elo[0] - r->elo[1] - want) > 1e-6)
            fail_msg("%d/%d/%d: got %.9f, want %.9f", w, d, l, r->elo[0] - r->elo[1], want);
        assert_true(fabs(r->elo[1] - 1500) < 1e-9);
        assert_int_equal(r->anchor, 1);
        double sd = 400 / log(10) / sqrt(n * s * (1 - s));
        assert_true(fabs(r->sd[0] - sd) < 1e-6 * sd);
        assert_true(fabs(r->hi[0] - r->lo[0] - 2 * ELO_Z95 * sd) < 1e-6);
        assert_true(r->lo[1] == r->elo[1] && r->hi[1] == r->elo[1]);
        /* LOS of the better player: Phi(d / sd). */
        double los = 0.5 * erfc(-(want / sd) / sqrt(2));
        assert_true(fabs(r->los[0 * 2 + 1] - los) < 1e-9);
        assert_true(fabs(r->los[1 * 2 + 0] - (1 - los)) < 1e-9);
        assert_int_equal(r->order[0], want >= 0 ? 0 : 1);
        elo_result_free(r);
        elo_pool_free(p);
    }
}

/* Symmetric results give equal ratings: a cyclic 3-player pool (each beats the next 7-3) and pure draws. */
static void test_symmetric_results_equal_ratings(void **state)
{
    (void)state;
    elo_pool *p = elo_pool_create();
    for (int i = 0; i < 3; i++) {
        char nm[8];
        snprintf(nm, sizeof nm, "P%d", i);
        elo_pool_player(p, nm);
    }
    for (int i = 0; i < 3; i++)
        elo_pool_add(p, i, (i + 1) % 3, 7, 0, 3);
    elo_result *r = fit_or_fail(p, NULL);
    for (int i = 0; i < 3; i++) {
        assert_true(fabs(r->elo[i]) < 1e-9);
        assert_true(fabs(r->score[i] - 0.5) < 1e-12);
        for (int j = 0; j < 3; j++)
            assert_true(fabs(r->los[i * 3 + j] - 0.5) < 1e-9);
    }
    assert_true(fabs(r->sd[1] - r->sd[2]) < 1e-9);
    elo_result_free(r);
    elo_pool_free(p);

    p = two_players(0, 12, 0); /* only draws */
    r = fit_or_fail(p, NULL);
    assert_true(fabs(r->elo[0] - r->elo[1]) < 1e-9);
    assert_int_equal(r->prior, 0);
    assert_int_equal(r->perfect[0], 0);
    elo_result_free(r);
    elo_pool_free(p);
}

/* Draws count half a win: 4 wins + 4 draws + 2 losses rates exactly like 6 wins + 4 losses. */
static void test_draws_are_half_wins(void **state)
{
    (void)state;
    elo_pool *p = two_players(4, 4, 2), *q = two_players(6, 0, 4);
    elo_result *r = fit_or_fail(p, NULL), *s = fit_or_fail(q, NULL);
    assert_true(fabs((r->elo[0] - r->elo[1]) - (s->elo[0] - s->elo[1])) < 1e-9);
    assert_true(fabs(r->elo[0] - r->elo[1] - 400 * log10(6.0 / 4.0)) < 1e-9);
    elo_result_free(r);
    elo_result_free(s);
    elo_pool_free(p);
    elo_pool_free(q);
}

/* Several players: at the optimum every player's expected score equals its actual points (the ML
 * condition of the Bradley–Terry model), whatever the anchor. */
static void test_ml_condition_many_players(void **state)
{
    (void)state;
    elo_pool *p = elo_pool_create();
    const char *names[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++)
        elo_pool_player(p, names[i]);
    static const int res[][5] = {{0, 1, 8, 3, 1}, {0, 2, 5, 2, 3}, {0, 3, 2, 1, 7}, {1, 2, 6, 0, 4},
                                 {1, 4, 9, 1, 0}, {2, 3, 4, 4, 2}, {3, 4, 3, 3, 4}, {2, 4, 5, 0, 5}};
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
        elo_pool_add(p, res[i][0], res[i][1], res[i][2], res[i][3], res[i][4]);
    elo_options o = {"c", 100};
    elo_result *r = fit_or_fail(p, &o);
    assert_int_equal(r->prior, 0);
    for (int i = 0; i < 5; i++) {
        double expect = 0;
        for (size_t k = 0; k < sizeof res / sizeof res[0]; k++) {
            int a = res[k][0], b = res[k][1], n = res[k][2] + res[k][3] + res[k][4];
            if (a == i)
                expect += n * elo_expected_score(r->elo[a] - r->elo[b]);
            if (b == i)
                expect += n * elo_expected_score(r->elo[b] - r->elo[a]);
        }
        if (fabs(expect - r->points[i]) > 1e-6)
            fail_msg("player %s: expected score %.9f, points %.1f", names[i], expect, r->points[i]);
    }
    assert_true(fabs(r->elo[2] - 100) < 1e-9);
    for (int k = 1; k < 5; k++)
        assert_true(r->elo[r->order[k - 1]] >= r->elo[r->order[k]]);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            if (i != j)
                assert_true(fabs(r->los[i * 5 + j] + r->los[j * 5 + i] - 1) < 1e-9);
    elo_result_free(r);
    elo_pool_free(p);
}

/* An agent that won (lost) every game: finite ratings through the documented prior, flagged. */
static void test_perfect_scores_are_finite(void **state)
{
    (void)state;
    elo_pool *p = two_players(10, 0, 0);
    elo_result *r = fit_or_fail(p, NULL);
    assert_int_equal(r->prior, 1);
    assert_int_equal(r->perfect[0], 1);
    assert_int_equal(r->perfect[1], -1);
    assert_true(isfinite(r->elo[0]) && isfinite(r->lo[0]) && isfinite(r->hi[0]));
    /* One virtual draw: 10.5 points of 11. */
    assert_true(fabs(r->elo[0] - r->elo[1] - 400 * log10(10.5 / 0.5)) < 1e-6);
    assert_true(fabs(r->score[0] - 1) < 1e-12 && r->games[0] == 10);
    elo_result_free(r);
    elo_pool_free(p);

    /* Three players where C loses everything but A and B are fine: all finite, C last. */
    p = elo_pool_create();
    elo_pool_player(p, "A");
    elo_pool_player(p, "B");
    elo_pool_player(p, "C");
    elo_pool_add(p, 0, 1, 3, 2, 5);
    elo_pool_add(p, 0, 2, 6, 0, 0);
    elo_pool_add(p, 1, 2, 6, 0, 0);
    r = fit_or_fail(p, NULL);
    assert_int_equal(r->prior, 1);
    assert_int_equal(r->perfect[2], -1);
    assert_int_equal(r->order[2], 2);
    for (int i = 0; i < 3; i++)
        assert_true(isfinite(r->elo[i]) && isfinite(r->sd[i]));
    elo_result_free(r);
    elo_pool_free(p);

    /* The match statistics clamp too. */
    match_result m;
    memset(&m, 0, sizeof m);
    m.all = (match_tally){0, 0, 20};
    match_result_stats(&m);
    assert_int_equal(m.elo_clamped, -1);
    assert_true(isfinite(m.elo) && isfinite(m.elo_lo) && isfinite(m.elo_hi));
    assert_true(fabs(m.elo - 400 * log10(0.5 / 19.5)) < 1e-9);
    assert_true(m.elo_hi > m.elo);
}

static void test_errors(void **state)
{
    (void)state;
    char err[ELO_ERRLEN];
    elo_result *r;
    elo_pool *p = elo_pool_create();
    for (int i = 0; i < 4; i++) {
        char nm[8];
        snprintf(nm, sizeof nm, "P%d", i);
        elo_pool_player(p, nm);
    }
    assert_int_equal(elo_pool_add(p, 1, 1, 1, 0, 0), ELO_EINVAL);
    assert_int_equal(elo_pool_add(p, 0, 9, 1, 0, 0), ELO_EINVAL);
    elo_pool_add(p, 0, 1, 2, 1, 1);
    elo_pool_add(p, 2, 3, 1, 1, 1);
    assert_int_equal(elo_fit(p, NULL, &r, err), ELO_EDISCONNECTED);
    assert_non_null(strstr(err, "separate"));
    elo_pool_add(p, 1, 2, 1, 1, 1);
    elo_options o = {"nobody", 0};
    assert_int_equal(elo_fit(p, &o, &r, err), ELO_EINVAL);
    assert_non_null(strstr(err, "nobody"));
    /* the anchor's rating: finite and within ELO_ANCHOR_MAX */
    const double bad[] = {NAN, INFINITY, -INFINITY, 1e23, -1.5e6};
    for (int i = 0; i < 5; i++) {
        elo_options b = {"P1", bad[i]};
        assert_int_equal(elo_fit(p, &b, &r, err), ELO_EINVAL);
        assert_non_null(strstr(err, "finite"));
    }
    elo_options edge = {"P1", -ELO_ANCHOR_MAX};
    assert_int_equal(elo_fit(p, &edge, &r, err), ELO_OK);
    assert_true(r->elo[1] == -ELO_ANCHOR_MAX);
    elo_result_free(r);
    assert_int_equal(elo_fit(p, NULL, &r, err), ELO_OK);
    elo_result_free(r);
    elo_pool_free(p);
}

static void test_wilson(void **state)
{
    (void)state;
    double lo, hi, z = ELO_Z95;
    elo_wilson(0, 10, z, &lo, &hi);
    assert_true(lo == 0 && fabs(hi - z * z / (10 + z * z)) < 1e-12);
    elo_wilson(10, 10, z, &lo, &hi);
    assert_true(fabs(hi - 1) < 1e-12 && fabs(lo - 10 / (10 + z * z)) < 1e-12);
    elo_wilson(21, 40, z, &lo, &hi);
    assert_true(lo > 0.36 && lo < 0.525 && hi > 0.525 && hi < 0.68);
    assert_true(fabs((lo + hi) / 2 - (0.525 + z * z / 80) / (1 + z * z / 40)) < 1e-12);
    assert_true(fabs(elo_from_score(0.75) - 400 * log10(3)) < 1e-12);
    assert_true(fabs(elo_expected_score(elo_from_score(0.3)) - 0.3) < 1e-12);
}

/* Writes n records of `south` vs `north` with the given result; the moves are a real finished game. */
static void write_games(FILE *f, const char *south, const char *north, int n, int want)
{
    kalah_rules r = kalah_rules_default();
    int written = 0;
    for (uint64_t seed = 1; written < n; seed++) {
        record_game g;
        char err[RECORD_ERRLEN];
        game *gm = game_create("kalah", err);
        assert_non_null(gm);
        assert_int_equal(record_game_init_game(&g, gm, NULL, err), RECORD_OK);
        game_free(gm);
        kalah_pos p;
        kalah_start(&r, &p);
        uint64_t s = seed * 0x9e3779b97f4a7c15ULL;
        while (!p.over) {
            unsigned legal = kalah_legal(&r, &p);
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            int k = (int)((s >> 33) % 6);
            while (!(legal & (1u << k)))
                k = (k + 1) % 6;
            record_push(&g, k);
            kalah_sow(&r, &p, k, NULL);
        }
        if (kalah_winner(&r, &p) == want) {
            record_set(&g.south, south);
            record_set(&g.north, north);
            if (record_write(f, &g, err))
                fail_msg("%s", err);
            written++;
        }
        record_game_clear(&g);
    }
}

static cJSON *run_json(const char *args)
{
    char *out;
    int rc = tu_run(&out, 0, "%s", args);
    if (rc)
        fail_msg("sowzero %s: exit %d", args, rc);
    cJSON *o = cJSON_Parse(out);
    if (!o)
        fail_msg("sowzero %s: not JSON: %s", args, out);
    free(out);
    return o;
}

/* Bad input the commands meet before any rating: exit 2 with a message. Records of no player (an empty
 * file) are not a failure of the fit; an --anchor naming no agent is refused before a game is played. */
static void test_elo_bad_input_exit_2(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 1, "elo /dev/null"), 2);
    assert_non_null(strstr(out, "at least 2"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "tournament --agent a=random --agent b=greedy --games 2 --anchor zz=0"), 2);
    assert_non_null(strstr(out, "--anchor zz=0"));
    assert_null(strstr(out, "score"));   /* no pair was played */
    free(out);
    double lo, hi;
    elo_wilson(0, 14, 1.96, &lo, &hi);   /* exactly 0 at 0 points, exactly 1 at n */
    assert_true(lo == 0.0);
    elo_wilson(14, 14, 1.96, &lo, &hi);
    assert_true(hi == 1.0);
}

static double rating_of(cJSON *o, const char *name, const char *key)
{
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, "ratings"))
        if (!strcmp(cJSON_GetObjectItem(e, "name")->valuestring, name))
            return cJSON_GetObjectItem(e, key)->valuedouble;
    fail_msg("no rating for %s", name);
    return 0;
}

/* `elo` pools files: two files give what one file holding both gives; the anchor and JSON keys. */
static void test_elo_command_pools_files(void **state)
{
    (void)state;
    char f1[512], f2[512], both[512];
    snprintf(f1, sizeof f1, "%s/elo_pool_1.pgn", SOWZERO_TMP);
    snprintf(f2, sizeof f2, "%s/elo_pool_2.pgn", SOWZERO_TMP);
    snprintf(both, sizeof both, "%s/elo_pool_both.pgn", SOWZERO_TMP);
    FILE *a = fopen(f1, "w"), *b = fopen(f2, "w"), *c = fopen(both, "w");
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    /* file 1: X vs Y 3-1 (X South); file 2: Y vs Z 2-2, Z vs X 1-2. */
    FILE *dst[2] = {a, c};
    for (int i = 0; i < 2; i++) {
        write_games(dst[i], "X", "Y", 3, 1);
        write_games(dst[i], "X", "Y", 1, -1);
    }
    dst[0] = b;
    for (int i = 0; i < 2; i++) {
        write_games(dst[i], "Y", "Z", 2, 1);
        write_games(dst[i], "Z", "Y", 2, 1);
        write_games(dst[i], "Z", "X", 1, 1);
        write_games(dst[i], "X", "Z", 2, 1);
    }
    fclose(a);
    fclose(b);
    fclose(c);
    char args[2048];
    snprintf(args, sizeof args, "elo '%s' '%s' --json", f1, f2);
    cJSON *two = run_json(args);
    snprintf(args, sizeof args, "elo '%s' --json", both);
    cJSON *one = run_json(args);
    const char *names[] = {"X", "Y", "Z"}, *keys[] = {"elo", "lo", "hi", "games", "score"};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 5; k++)
            assert_true(fabs(rating_of(two, names[i], keys[k]) - rating_of(one, names[i], keys[k])) < 1e-9);
    assert_string_equal(cJSON_GetObjectItem(one, "anchor")->valuestring, "X");
    assert_true(rating_of(one, "X", "elo") == 0);
    assert_int_equal((int)rating_of(one, "X", "games"), 7);
    cJSON_Delete(two);
    cJSON_Delete(one);
    /* Anchor Z at 1000: differences unchanged. */
    snprintf(args, sizeof args, "elo '%s' --anchor Z=1000 --json", both);
    cJSON *anch = run_json(args);
    assert_true(fabs(rating_of(anch, "Z", "elo") - 1000) < 1e-9);
    snprintf(args, sizeof args, "elo '%s' --json", both);
    one = run_json(args);
    assert_true(fabs((rating_of(anch, "X", "elo") - rating_of(anch, "Y", "elo")) -
                     (rating_of(one, "X", "elo") - rating_of(one, "Y", "elo"))) < 1e-9);
    cJSON_Delete(anch);
    cJSON_Delete(one);
    /* Errors: a missing file, an unknown anchor. */
    char *out;
    assert_int_equal(tu_run(&out, 1, "elo '%s/no_such.pgn'", SOWZERO_TMP), 2);
    assert_non_null(strstr(out, "no_such.pgn"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "elo '%s' --anchor W=5", both), 2);
    assert_non_null(strstr(out, "'W'"));
    free(out);
}

/* Result-only records (a result, no moves) rate exactly as played games with the same results; a record
 * whose moves contradict its result is still refused, naming its line. */
static void test_elo_result_only_records(void **state)
{
    (void)state;
    char played[512], bare[512];
    snprintf(played, sizeof played, "%s/elo_ro_played.pgn", SOWZERO_TMP);
    snprintf(bare, sizeof bare, "%s/elo_ro_bare.pgn", SOWZERO_TMP);
    FILE *a = fopen(played, "w"), *b = fopen(bare, "w");
    assert_non_null(a);
    assert_non_null(b);
    static const struct {
        const char *s, *n;
        int games, want;
    } plan[] = {{"X", "Y", 3, 1}, {"Y", "X", 1, 0}, {"Y", "Z", 2, -1}, {"Z", "X", 1, 1}, {"X", "Z", 1, -1}};
    for (size_t i = 0; i < sizeof plan / sizeof plan[0]; i++) {
        write_games(a, plan[i].s, plan[i].n, plan[i].games, plan[i].want);
        const char *tok = plan[i].want > 0 ? "1-0" : plan[i].want < 0 ? "0-1" : "1/2-1/2";
        for (int g = 0; g < plan[i].games; g++)
            fprintf(b, "[South \"%s\"]\n[North \"%s\"]\n[Result \"%s\"]\n\n%s\n\n", plan[i].s, plan[i].n, tok, tok);
    }
    fclose(a);
    fclose(b);
    char args[1200];
    snprintf(args, sizeof args, "elo '%s' --json", played);
    cJSON *one = run_json(args);
    snprintf(args, sizeof args, "elo '%s' --json", bare);
    cJSON *two = run_json(args);
    assert_int_equal(cJSON_GetObjectItem(two, "games")->valueint, 8);
    const char *names[] = {"X", "Y", "Z"}, *keys[] = {"elo", "lo", "hi", "games", "score"};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 5; k++)
            assert_true(fabs(rating_of(two, names[i], keys[k]) - rating_of(one, names[i], keys[k])) < 1e-9);
    cJSON_Delete(one);
    cJSON_Delete(two);
    char *out;
    assert_int_equal(tu_run(&out, 1, "replay --pgn '%s' --game 2", bare), 2); /* nothing to replay */
    assert_non_null(strstr(out, "elo_ro_bare.pgn:7: game 2 is a result-only record (1-0, no moves to replay)"));
    free(out);
    b = fopen(bare, "a");
    assert_non_null(b);
    fprintf(b, "[South \"X\"]\n[North \"Y\"]\n[Result \"1-0\"]\n\nc 1-0\n");
    fclose(b);
    assert_int_not_equal(tu_run(&out, 1, "elo '%s'", bare), 0);
    char want[600];
    snprintf(want, sizeof want, "elo_ro_bare.pgn:%d: [Result \"1-0\"] but replaying the moves", 8 * 6 + 3);
    if (!strstr(out, want))
        fail_msg("got '%s', want '%s'", out, want);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case10_draw_is_not_a_loss),
        cmocka_unit_test(test_two_player_closed_form),
        cmocka_unit_test(test_symmetric_results_equal_ratings),
        cmocka_unit_test(test_draws_are_half_wins),
        cmocka_unit_test(test_ml_condition_many_players),
        cmocka_unit_test(test_perfect_scores_are_finite),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_wilson),
        cmocka_unit_test(test_elo_command_pools_files),
        cmocka_unit_test(test_elo_result_only_records),
        cmocka_unit_test(test_elo_bad_input_exit_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
