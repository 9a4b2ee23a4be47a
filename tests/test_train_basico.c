/* test_train_basico.c — training Mancala básico from a config (rules.game = basico): the config checks that
 * tie keys to their game, the derived net shape (one value output per player, no margin head), a short run
 * whose files record the básico rules and encoding and whose evaluation plays the trained agent against a
 * field of an opponent, a stopped-and-resumed run ending bit-identical to a straight one, and a short run
 * that learns to beat greedy on mean place. */
// ctest-labels: threads
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "nn/h5io.h"
#include "test_util.h"
#include "train/config.h"
#include "train/train.h"

static const char *const tiny_sets[] = {
    "rules.game=basico", "rules.players=3", "rules.pits=4", "run.iterations=1", "net.hidden=16,16",
    "mcts.sims=8", "selfplay.threads=1", "selfplay.games=6", "selfplay.games_per_thread=6",
    "train.batch_size=32", "train.steps_per_iteration=4", "train.min_replay=10", "train.replay_window=3000",
    "eval.opponents=greedy", "eval.games=6", "eval.every=1", "eval.sims=4", "run.checkpoint_every=1",
};

/* Applies the tiny sets plus `extra` (space-separated); returns cfg_finish's result, message in err. */
static int tiny(cfg_config *c, const char *extra, char *err)
{
    cfg_defaults(c);
    for (size_t i = 0; i < sizeof tiny_sets / sizeof tiny_sets[0]; i++)
        if (cfg_set(c, tiny_sets[i], err))
            return -1;
    if (extra) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", extra);
        char *save = NULL;
        for (char *s = strtok_r(buf, " ", &save); s; s = strtok_r(NULL, " ", &save))
            if (cfg_set(c, s, err))
                return -1;
    }
    return cfg_finish(c, err);
}

static void expect_error(const char *extra, const char *needle)
{
    cfg_config c;
    char err[CFG_ERRLEN] = "";
    if (tiny(&c, extra, err) == 0)
        fail_msg("'%s' was accepted", extra);
    if (!strstr(err, needle))
        fail_msg("'%s': message '%s' lacks '%s'", extra, err, needle);
}

static void test_config(void **state)
{
    (void)state;
    cfg_config c;
    char err[CFG_ERRLEN], spec[128];
    if (tiny(&c, NULL, err))
        fail_msg("%s", err);
    assert_string_equal(c.rules.game, "basico");
    assert_int_equal(c.net.input_dim, 3 * (4 + 2));
    assert_int_equal(c.net.n_policy, 4);
    assert_int_equal(c.net.n_value, 3);
    assert_int_equal(c.net.margin_head, 0);
    assert_string_equal(cfg_rules_spec(&c, spec, sizeof spec), "basico:players=3,pits=4,seeds=4,full_ranking=1");
    expect_error("rules.capture=none", "rules.capture: basico has no rules key 'capture' (its keys: players, pits, seeds, full_ranking)");
    expect_error("rules.max_sows=100", "rules.max_sows");
    expect_error("rules.pits=5", "rules.pits");
    expect_error("rules.seeds=5", "rules.seeds");
    expect_error("net.margin_head=true", "net.margin_head");
    expect_error("eval.opponents=ab:depth=3", "eval.opponents");
    expect_error("rules.players=5", "rules.players");
    /* the levers are refused by a fact of the game only: three players rule out the SPRT gate */
    expect_error("eval.gate=sprt", "eval.gate needs a two-player game");
    if (tiny(&c, "selfplay.opening_plies=4", err) || tiny(&c, "selfplay.surprise_weight=0.5", err) ||
        tiny(&c, "selfplay.opening_sims=64", err))
        fail_msg("a self-play lever refused for basico: %s", err);
    /* and the other way round: básico keys with Kalah */
    cfg_defaults(&c);
    assert_int_equal(cfg_set(&c, "run.iterations=1", err), 0);
    assert_int_equal(cfg_set(&c, "rules.players=3", err), 0);
    assert_int_not_equal(cfg_finish(&c, err), 0);
    assert_non_null(strstr(err, "rules.players: kalah has no rules key 'players'"));
}

static const char *scratch(const char *name)
{
    static char bufs[4][1024];
    static int slot;
    char *p = bufs[slot++ % 4];
    snprintf(p, 1024, "%s/train-basico-%s", SOWZERO_TMP, name);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", p);
    assert_int_equal(system(cmd), 0);
    return p;
}

static nn_net *load_net(const char *dir, const char *name, const char *rules, nn_file_info *info)
{
    char path[2400], err[NN_ERRLEN];
    nn_net *net = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (nn_load(path, rules, &net, info, err) != NN_OK)
        fail_msg("%s", err);
    return net;
}

static void test_run_and_resume(void **state)
{
    (void)state;
    cfg_config c;
    char err[TRAIN_ERRLEN > CFG_ERRLEN ? TRAIN_ERRLEN : CFG_ERRLEN];
    if (tiny(&c, "run.iterations=3 train.replay_window=300 train.min_replay=40", err))
        fail_msg("%s", err);
    const char *straight = scratch("straight"), *split = scratch("split");
    train_options o = {.run_dir = straight};
    train_summary sum;
    int rc = train_run(&c, &o, &sum, err);
    if (rc != TRAIN_OK)
        fail_msg("%s", err);
    assert_int_equal(sum.iterations, 3);
    assert_int_equal(sum.games, 18);
    /* the evaluation: 6 games with the trained agent in each seat twice, scores in range */
    assert_true(sum.have_eval);
    assert_int_equal(sum.eval[0].games, 6);
    assert_int_equal(sum.eval[0].seat_games[0], 2);
    assert_int_equal(sum.eval[0].seat_games[1], 4);
    assert_true(sum.eval[0].mean_place >= 1.0 && sum.eval[0].mean_place <= 3.0);
    assert_true(sum.eval[0].score >= sum.eval[0].score_lo && sum.eval[0].score <= sum.eval[0].score_hi);
    /* mean place and rank score describe the same games: score = (3 − place) / 2 */
    assert_true(fabs(sum.eval[0].score - (3.0 - sum.eval[0].mean_place) / 2.0) < 1e-9);

    nn_file_info info;
    nn_net *a = load_net(straight, "latest.h5", "basico:players=3,pits=4,seeds=4,full_ranking=1", &info);
    assert_string_equal(info.encoding, BASICO_ENCODING_NAME);
    assert_int_equal(nn_net_config(a)->n_value, 3);

    /* `sowzero net` on the básico net, reproduced by the README's numpy code (tests/nn_export_check.py) */
    static const char *positions[] = {"4,4,4,4,0,4,4,4,4,0,4,4,4,4,0 0", "-,-,-,-,-,4,0,8,2,3,1,4,4,12,0 2 0f",
                                      "-,-,-,-,-,4,0,8,2,3,1,4,4,12,0 1 0r", "1,0,3,0,2,4,4,0,1,0,2,2,2,2,0 1"};
    for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++) {
        char *a_out, *b_out;
        assert_int_equal(tu_run(&a_out, 0, "net --net '%s/latest.h5' --position '%s' --json", straight, positions[i]), 0);
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "'%s' '%s/tests/nn_export_check.py' '%s/latest.h5' '%s'", SOWZERO_PYTHON3,
                 SOWZERO_SOURCE_DIR, straight, positions[i]);
        FILE *py = popen(cmd, "r");
        assert_non_null(py);
        b_out = calloc(1, 65536);
        assert_true(fread(b_out, 1, 65535, py) > 0);
        assert_int_equal(pclose(py), 0);
        cJSON *ja = cJSON_Parse(a_out), *jb = cJSON_Parse(b_out);
        if (!ja || !jb)
            fail_msg("unparsable: sowzero '%s', numpy '%s'", a_out, b_out);
        const char *keys[] = {"policy", "values"};
        for (int k = 0; k < 2; k++) {
            cJSON *xa = cJSON_GetObjectItem(ja, keys[k]), *xb = cJSON_GetObjectItem(jb, keys[k]);
            assert_int_equal(cJSON_GetArraySize(xa), k ? 3 : 4);
            assert_int_equal(cJSON_GetArraySize(xb), cJSON_GetArraySize(xa));
            for (int j = 0; j < cJSON_GetArraySize(xa); j++)
                if (fabs(cJSON_GetArrayItem(xa, j)->valuedouble - cJSON_GetArrayItem(xb, j)->valuedouble) > 1e-5)
                    fail_msg("%s %s[%d]: sowzero %s, numpy %s", positions[i], keys[k], j, a_out, b_out);
        }
        assert_true(fabs(cJSON_GetObjectItem(ja, "value")->valuedouble - cJSON_GetObjectItem(jb, "value")->valuedouble) <
                    1e-5);
        cJSON_Delete(ja), cJSON_Delete(jb);
        free(a_out), free(b_out);
    }

    /* bad input on the básico paths of the CLI: clear messages, non-zero exits */
    char *out;
    assert_int_equal(tu_run(&out, 1, "net --net '%s/latest.h5' --rules basico:players=4", straight), 2);
    assert_non_null(strstr(out, "the net was trained for 'basico:players=3,pits=4,seeds=4,full_ranking=1'"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "net --net '%s/latest.h5' --position '4,4,4,4,0 0'", straight), 2);
    assert_non_null(strstr(out, "--position"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "solve --rules basico:players=3"), 2);
    assert_non_null(strstr(out, "needs a two-player game with a margin"));
    free(out);

    /* stopped after 1, resumed from the run's own config.ini: the same weights as the straight run */
    train_options o1 = {.run_dir = split, .stop_after = 1};
    rc = train_run(&c, &o1, &sum, err);
    assert_int_equal(rc, TRAIN_STOPPED);
    char path[2400];
    snprintf(path, sizeof path, "%s/config.ini", split);
    cfg_config r;
    cfg_defaults(&r);
    if (cfg_load(&r, path, err) || cfg_finish(&r, err))
        fail_msg("%s", err);
    assert_string_equal(cfg_rules_spec(&r, path, sizeof path), "basico:players=3,pits=4,seeds=4,full_ranking=1");
    train_options o2 = {.run_dir = split, .resume = 1};
    rc = train_run(&r, &o2, &sum, err);
    if (rc != TRAIN_OK)
        fail_msg("resume: %s", err);
    nn_net *b = load_net(split, "latest.h5", NULL, NULL);
    assert_int_equal(nn_param_count(a), nn_param_count(b));
    assert_memory_equal(nn_params(a), nn_params(b), nn_param_count(a) * sizeof(float));
    nn_net_free(a);
    nn_net_free(b);
}

/* The figure in small: a few seconds of self-play and SGD on the 4-pit board, and the trained net
 * (with a 32-simulation search) in one seat against two greedy players takes a better mean place than an
 * even share (2.0) — while the untrained net with the same search does worse than that. Deterministic:
 * one self-play thread, and matches do not depend on their thread count. */
static double trained_place_vs_greedy(int iterations, int steps, const char *dir)
{
    cfg_config c;
    char err[TRAIN_ERRLEN > CFG_ERRLEN ? TRAIN_ERRLEN : CFG_ERRLEN], extra[512];
    snprintf(extra, sizeof extra,
             "run.iterations=%d train.steps_per_iteration=%d net.hidden=64,64 mcts.sims=32 mcts.temp_moves=8 "
             "selfplay.games=64 selfplay.games_per_thread=32 selfplay.pi_visits=true train.lr=0.003 "
             "train.batch_size=128 train.min_replay=500 train.replay_window=100000 eval.games=150 eval.every=0 "
             "eval.threads=2 eval.sims=32 run.checkpoint_every=100",
             iterations, steps);
    if (tiny(&c, extra, err))
        fail_msg("%s", err);
    train_options o = {.run_dir = dir};
    train_summary sum;
    if (train_run(&c, &o, &sum, err) != TRAIN_OK)
        fail_msg("%s", err);
    assert_true(sum.have_eval);
    assert_int_equal(sum.eval[0].games, 150);
    return sum.eval[0].mean_place;
}

static void test_learns_to_beat_greedy(void **state)
{
    (void)state;
    double untrained = trained_place_vs_greedy(1, 0, scratch("untrained"));
    double trained = trained_place_vs_greedy(10, 60, scratch("trained"));
    print_message("mean place against two greedy players: untrained %.2f, trained %.2f\n", untrained, trained);
    assert_true(untrained > 2.0);
    assert_true(trained < 1.85);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_run_and_resume),
        cmocka_unit_test(test_learns_to_beat_greedy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
