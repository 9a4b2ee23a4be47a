/* test_gposset.c — position sets of the game interface's two-player games (eval/gposset.h) and the
 * accuracy of game agents on them (eval/accuracy.h, accuracy_run): the sampler (quotas, caps, no
 * duplicates, determinism), every move's value against a brute-force minimax written here (no table, no
 * bounds) on small Oware and Congklak boards, the writer and reader (a round trip, the ply restored, errors
 * naming the line), `positions` and `accuracy` for those games, and a sample of the shipped Oware set
 * re-solved. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <cjson/cJSON.h>
#include <unistd.h>

#include "eval/accuracy.h"
#include "eval/game_search.h"
#include "eval/gposset.h"

/* The exact final margin for p->to_move by plain minimax over every line (an extra turn keeps the sign). */
static int brute(const game *g, const game_pos *p, uint64_t *budget)
{
    if (p->over)
        return p->to_move == 0 ? game_margin(g, p) : -game_margin(g, p);
    if (!(*budget)--)
        fail_msg("brute-force minimax: over its node budget");
    int best = -100000;
    for (unsigned legal = game_legal(g, p); legal; legal &= legal - 1) {
        game_pos c = *p;
        assert_int_equal(game_apply(g, &c, __builtin_ctz(legal), NULL), GAME_OK);
        int v = brute(g, &c, budget);
        v = c.to_move == p->to_move ? v : -v;
        if (v > best)
            best = v;
    }
    return best;
}

static gps_set *sample(const game *g, size_t count, size_t early, int max_seeds, int max_left, uint64_t seed)
{
    char err[PS_ERRLEN];
    gps_set *s = gps_create(g, err);
    if (!s)
        fail_msg("gps_create: %s", err);
    ps_sample_opts o = {.count = count, .early = early, .seed = seed, .max_seeds = max_seeds,
                        .max_sows_left = max_left};
    if (gps_sample(s, &o, err) != PS_OK)
        fail_msg("gps_sample %s: %s", game_spec(g), err);
    return s;
}

static void solve(gps_set *s, int threads)
{
    char err[PS_ERRLEN];
    gps_solve_opts o = {.threads = threads, .tt_mb = 8};
    if (gps_solve(s, &o, NULL, err) != PS_OK)
        fail_msg("gps_solve: %s", err);
}

static void check_against_brute(const char *spec, int max_seeds, int max_left)
{
    game *g = tu_game(spec);
    gps_set *s = sample(g, 24, 0, max_seeds, max_left, 3);
    assert_int_equal(gps_count(s), 24);
    solve(s, 2);
    game_solve_props sp;
    game_solve_properties(g, &sp);
    for (size_t i = 0; i < gps_count(s); i++) {
        const gps_entry *e = gps_get(s, i);
        assert_true(e->solved);
        assert_false(e->pos.over);
        assert_true(e->seeds_in_pits <= max_seeds);
        if (max_left)
            assert_true(sp.ply_limit - e->pos.ply <= max_left);
        const unsigned legal = game_legal(g, &e->pos);
        int best = -100000;
        for (int k = 0; k < GAME_MAX_MOVES; k++) {
            if (!(legal >> k & 1)) {
                assert_int_equal(e->values[k], GPS_NO_VALUE);
                continue;
            }
            game_pos c = e->pos;
            assert_int_equal(game_apply(g, &c, k, NULL), GAME_OK);
            uint64_t budget = 50000000;
            int v = brute(g, &c, &budget);
            v = c.to_move == e->pos.to_move ? v : -v;
            assert_int_equal(e->values[k], v);
            best = v > best ? v : best;
        }
        assert_int_equal(e->value, best);
    }
    gps_free(s);
    game_free(g);
}

static void test_values_against_brute_force(void **state)
{
    (void)state;
    check_against_brute("oware:pits=4,seeds=2,max_sows=40", 16, 8);
    check_against_brute("congklak:pits=4,seeds=3", 5, 0);
}

static void test_sampler(void **state)
{
    (void)state;
    game *g = tu_game("oware:pits=4,seeds=2,max_sows=40");
    gps_set *a = sample(g, 30, 6, 0, 0, 9), *b = sample(g, 30, 6, 0, 0, 9);
    size_t n[PS_PHASES] = {0};
    for (size_t i = 0; i < gps_count(a); i++) {
        const gps_entry *e = gps_get(a, i), *f = gps_get(b, i);
        assert_memory_equal(&e->pos, &f->pos, sizeof e->pos); /* the same seed, the same set */
        assert_string_equal(e->source, f->source);
        n[gps_phase(g, e->seeds_in_pits)]++;
        for (size_t j = 0; j < i; j++) { /* no duplicates, ply aside */
            game_pos x = e->pos, y = gps_get(a, j)->pos;
            x.ply = y.ply = 0;
            assert_memory_not_equal(&x, &y, sizeof x);
        }
    }
    assert_int_equal(n[0], 6);
    assert_int_equal(n[1], 12);
    assert_int_equal(n[2], 12);
    gps_free(a);
    gps_free(b);
    /* a phase above max_seeds hands its quota on */
    a = sample(g, 20, 5, 8, 0, 2);
    for (size_t i = 0; i < gps_count(a); i++)
        assert_int_equal(gps_phase(g, gps_get(a, i)->seeds_in_pits) == 2 || gps_get(a, i)->seeds_in_pits <= 8, 1);
    gps_free(a);
    char err[PS_ERRLEN];
    game *k = tu_game("congklak:pits=4,seeds=3");
    gps_set *s = gps_create(k, err);
    ps_sample_opts o = {.count = 5, .max_sows_left = 10};
    assert_int_equal(gps_sample(s, &o, err), PS_EINVAL); /* no ply limit to count to */
    assert_non_null(strstr(err, "max_sows"));
    gps_free(s);
    game_free(k);
    /* a board with fewer positions in a phase than asked for: the sampler stops when none new come, with
     * the phase named, rather than drawing games up to its cap */
    game *tiny = tu_game("kalah:pits=2,seeds=1");
    s = gps_create(tiny, err);
    assert_non_null(s);
    ps_sample_opts many = {.count = 60, .early = 20, .seed = 1};
    assert_int_equal(gps_sample(s, &many, err), PS_EFAIL);
    assert_non_null(strstr(err, "found no new position there"));
    gps_free(s);
    game_free(tiny);
    game *cyc = tu_game("oware:pits=4,seeds=2,max_sows=0");
    assert_null(gps_create(cyc, err)); /* positions can repeat and no ply limit: no solve ends */
    assert_non_null(strstr(err, "max_sows"));
    game_free(cyc);
    game_free(g);
}

/* Sampling with a net (az among the agents, any game with a net of its rules) and solving Kalah with its
 * endgame database: the values with and without it agree. */
static void test_net_and_endgame(void **state)
{
    (void)state;
    char err[PS_ERRLEN];
    game *g = tu_game("oware:max_sows=120");
    gps_set *s = gps_create(g, err);
    assert_non_null(s);
    ps_sample_opts o = {.count = 30, .early = 0, .seed = 5, .max_seeds = 10,
                        .net = SOWZERO_SOURCE_DIR "/nets/oware-6-4.h5"};
    assert_int_equal(gps_sample(s, &o, err), PS_OK);
    int az = 0;
    for (size_t i = 0; i < gps_count(s); i++)
        az += strstr(gps_get(s, i)->source, "az:net=") != NULL;
    assert_true(az > 0);
    gps_free(s);
    s = gps_create(g, err);
    o.net = SOWZERO_SOURCE_DIR "/nets/kalah-6-4.h5"; /* a net of other rules */
    assert_int_equal(gps_sample(s, &o, err), PS_EINVAL);
    assert_non_null(strstr(err, "--net: "));
    gps_free(s);
    game_free(g);

    g = tu_game("kalah:pits=4,seeds=3");
    gps_set *with = sample(g, 30, 6, 0, 0, 3), *without = sample(g, 30, 6, 0, 0, 3);
    gps_solve_opts vo = {.threads = 2, .tt_mb = 8, .endgame = 6};
    ps_solve_stats st;
    assert_int_equal(gps_solve(with, &vo, &st, err), PS_OK);
    vo.endgame = 0;
    vo.threads = 1;
    assert_int_equal(gps_solve(without, &vo, &st, err), PS_OK);
    for (size_t i = 0; i < gps_count(with); i++) {
        const gps_entry *a = gps_get(with, i), *b = gps_get(without, i);
        assert_int_equal(a->value, b->value);
        assert_int_equal(a->best_mask, b->best_mask);
        assert_memory_equal(a->values, b->values, sizeof a->values);
    }
    gps_free(with);
    gps_free(without);
    game_free(g);
    g = tu_game("congklak:pits=4,seeds=3");
    s = sample(g, 5, 1, 0, 0, 1);
    vo.endgame = 6;
    assert_int_equal(gps_solve(s, &vo, &st, err), PS_EINVAL);
    assert_non_null(strstr(err, "no endgame database for congklak"));
    gps_free(s);
    game_free(g);
}

static void test_write_read_round_trip(void **state)
{
    (void)state;
    game *g = tu_game("oware:pits=4,seeds=2,max_sows=40");
    gps_set *s = sample(g, 20, 0, 10, 14, 5);
    solve(s, 1);
    const char *path = tu_tmp_path("gps.jsonl");
    char err[GPS_LOAD_ERRLEN];
    ps_header h = {.command = "test", .commit = "unknown", .seed = 5};
    assert_int_equal(gps_write(s, &h, path, err), PS_OK);
    gps_set *r;
    game *rg;
    assert_int_equal(gps_load(path, &r, &rg, err), PS_OK);
    assert_string_equal(game_spec(rg), game_spec(g));
    assert_string_equal(gps_command(r), "test");
    assert_int_equal(gps_count(r), gps_count(s));
    for (size_t i = 0; i < gps_count(s); i++) {
        const gps_entry *e = gps_get(s, i), *f = gps_get(r, i);
        assert_memory_equal(&e->pos, &f->pos, sizeof e->pos); /* the ply comes back too */
        assert_memory_equal(e->values, f->values, sizeof e->values);
        assert_int_equal(e->value, f->value);
        assert_int_equal(e->best_mask, f->best_mask);
        assert_int_equal(f->line, (int)i + 2);
    }
    gps_free(r);
    game_free(rg);
    /* a wrong value and a wrong sows_left are refused with the file and line */
    char *line0, *line1;
    assert_int_equal(gps_format_line(s, &h, -1, &line0), PS_OK);
    assert_int_equal(gps_format_line(s, &h, 0, &line1), PS_OK);
    cJSON *o = cJSON_Parse(line1);
    cJSON_ReplaceItemInObject(o, "value", cJSON_CreateNumber(cJSON_GetObjectItem(o, "value")->valueint + 1));
    char *bad = cJSON_PrintUnformatted(o);
    cJSON *hd = cJSON_Parse(line0);
    cJSON_ReplaceItemInObject(hd, "count", cJSON_CreateNumber(1));
    char *h1 = cJSON_PrintUnformatted(hd), text[4096];
    snprintf(text, sizeof text, "%s\n%s\n", h1, bad);
    tu_write_text(path, text);
    assert_int_equal(gps_load(path, &r, &rg, err), PS_EINVAL);
    assert_non_null(strstr(err, ":2: value"));
    assert_null(r);
    cJSON_Delete(o);
    free(bad);
    o = cJSON_Parse(line1);
    cJSON_ReplaceItemInObject(o, "sows_left", cJSON_CreateNumber(cJSON_GetObjectItem(o, "sows_left")->valueint + 1));
    bad = cJSON_PrintUnformatted(o);
    snprintf(text, sizeof text, "%s\n%s\n", h1, bad);
    tu_write_text(path, text);
    assert_int_equal(gps_load(path, &r, &rg, err), PS_EINVAL);
    assert_non_null(strstr(err, ":2: sows_left"));
    cJSON_Delete(o);
    cJSON_Delete(hd);
    free(bad);
    free(h1);
    free(line0);
    free(line1);
    gps_free(s);
    game_free(g);
}

static void test_accuracy_on_a_set(void **state)
{
    (void)state;
    game *g = tu_game("congklak:pits=4,seeds=3");
    gps_set *s = sample(g, 30, 0, 9, 0, 7);
    solve(s, 2);
    char err[ACCURACY_ERRLEN];
    accuracy_config cfg = {.threads = 2, .seed = 1};
    accuracy_result res;
    assert_int_equal(accuracy_run(s, "solve", &cfg, &res, err), ACCURACY_OK); /* perfect play */
    assert_int_equal(res.all.optimal, 30);
    assert_true(res.all.mean_regret == 0.0);
    accuracy_result_free(&res);
    assert_int_equal(accuracy_run(s, "random", &cfg, &res, err), ACCURACY_OK);
    int opt = 0;
    for (int i = 0; i < res.n; i++) {
        const gps_entry *e = gps_get(s, (size_t)i);
        assert_int_equal(res.regret[i], e->value - e->values[res.move[i]]);
        opt += res.regret[i] == 0;
    }
    assert_int_equal(res.all.optimal, opt);
    accuracy_result_free(&res);
    cfg.threads = 1; /* the figures do not depend on the threads */
    accuracy_result r1, r2;
    assert_int_equal(accuracy_run(s, "mcts:sims=50", &cfg, &r1, err), ACCURACY_OK);
    cfg.threads = 3;
    assert_int_equal(accuracy_run(s, "mcts:sims=50", &cfg, &r2, err), ACCURACY_OK);
    assert_memory_equal(r1.move, r2.move, (size_t)r1.n * sizeof *r1.move);
    accuracy_result_free(&r1);
    accuracy_result_free(&r2);
    assert_int_equal(accuracy_run(s, "ab:dept=3", &cfg, &res, err), ACCURACY_EAGENT);
    gps_free(s);
    game_free(g);
}

static void test_cli(void **state)
{
    (void)state;
    char *out;
    const char *path = tu_tmp_path("gcli.jsonl");
    unlink(path);
    assert_int_equal(tu_run(&out, 1, "positions --solve --out '%s' --rules oware:pits=4,seeds=2,max_sows=0", path), 2);
    assert_non_null(strstr(out, "max_sows"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --solve --out '%s' --rules oware:pits=4,seeds=2,max_sows=40 "
                                     "--endgame 4", path), 2);
    assert_non_null(strstr(out, "--endgame"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --solve --out '%s' --rules kalah:pits=3,seeds=2 --endgame 0 "
                                     "--max-sows-left 5", path), 2);
    assert_non_null(strstr(out, "--max-sows-left"));
    free(out);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(tu_run(&out, 0, "positions --solve --out '%s' --rules oware:pits=4,seeds=2,max_sows=40 "
                                     "--count 30 --min-early 0 --max-seeds 12 --max-sows-left 14 --threads 2 "
                                     "--tt-mb 8 --json", path), 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    assert_int_equal(cJSON_GetObjectItem(o, "count")->valueint, 30);
    cJSON_Delete(o);
    free(out);
    assert_int_equal(tu_run(&out, 0, "accuracy greedy --positions '%s' --threads 2 --json", path), 0);
    o = cJSON_Parse(out);
    assert_non_null(o);
    assert_int_equal(cJSON_GetObjectItem(o, "positions")->valueint, 30);
    assert_string_equal(cJSON_GetObjectItem(o, "rules")->valuestring, "oware:pits=4,seeds=2,grand_slam=nocapture,max_sows=40");
    cJSON_Delete(o);
    free(out);
    assert_int_equal(tu_run(&out, 0, "accuracy solve --positions '%s' --threads 1 --json", path), 0);
    o = cJSON_Parse(out);
    assert_int_equal(cJSON_GetObjectItem(o, "optimal")->valueint, 30);
    cJSON_Delete(o);
    free(out);
    assert_int_equal(tu_run(&out, 1, "accuracy maxn:dept=2 --positions '%s'", path), 2);
    assert_non_null(strstr(out, "dept"));
    free(out);
}

/* The shipped set: its header, its caps, and a few of its positions (the ones nearest the ply limit, fast)
 * solved again. */
static void test_shipped_oware_set(void **state)
{
    (void)state;
    char err[GPS_LOAD_ERRLEN];
    gps_set *s;
    game *g;
    if (gps_load(SOWZERO_SOURCE_DIR "/data/oware-6-4.positions.jsonl", &s, &g, err) != PS_OK)
        fail_msg("%s", err);
    assert_string_equal(game_name(g), "oware");
    assert_true(gps_count(s) >= 1000);
    assert_non_null(strstr(gps_command(s), "sowzero positions --solve"));
    gs_solver *sv = gs_solver_create(g, 16, err);
    assert_non_null(sv);
    game_solve_props sp;
    game_solve_properties(g, &sp);
    assert_true(sp.ply_limit > 0);
    int checked = 0;
    for (size_t i = 0; i < gps_count(s); i++) {
        const gps_entry *e = gps_get(s, i);
        assert_true(e->seeds_in_pits <= 12);
        if (checked >= 6 || i % 7 || sp.ply_limit - e->pos.ply > 16)
            continue;
        unsigned legal = game_legal(g, &e->pos);
        for (int k = 0; k < GAME_MAX_MOVES; k++) {
            if (!(legal >> k & 1))
                continue;
            game_pos c = e->pos;
            assert_int_equal(game_apply(g, &c, k, NULL), GAME_OK);
            int v;
            if (c.over) {
                v = (e->pos.to_move == 0 ? 1 : -1) * game_margin(g, &c);
            } else {
                gs_solution sol;
                assert_int_equal(gs_solver_run(sv, &c, 0, &sol, err), GAME_OK);
                v = c.to_move == e->pos.to_move ? sol.value : -sol.value;
            }
            assert_int_equal(e->values[k], v);
        }
        checked++;
    }
    assert_int_equal(checked, 6);
    gs_solver_free(sv);
    gps_free(s);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_against_brute_force),
        cmocka_unit_test(test_sampler),
        cmocka_unit_test(test_net_and_endgame),
        cmocka_unit_test(test_write_read_round_trip),
        cmocka_unit_test(test_accuracy_on_a_set),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_shipped_oware_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
