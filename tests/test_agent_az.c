/* test_agent_az.c — az agents built from settings and a net in memory (game_agent_create_az, what training's
 * evaluation plays): the same moves as the az spec with those keys on the net's file, on Kalah (Kalah's own
 * az) and on Oware (the game interface's), raw policy and search; refusals of settings out of range and of
 * levers a game lacks; and a training run whose directory holds a ',' (no agent spec names its files any
 * more) evaluating against opponents, on a position set and through the SPRT gate. Accuracy and the
 * training use worker threads: */
// ctest-labels: threads
#include <cjson/cJSON.h>

#include "eval/accuracy.h"
#include "eval/game_agent.h"
#include "eval/gposset.h"
#include "nn/h5io.h"
#include "nn/net.h"
#include "tests/test_util.h"

#define KALAH_SET SOWZERO_SOURCE_DIR "/tests/data/kalah-4-3.positions.jsonl"
#define OWARE_SET SOWZERO_SOURCE_DIR "/data/oware-6-4.positions.jsonl"

/* A small random net for g, kept in memory and written to path. */
static nn_net *make_net(const game *g, const char *path)
{
    char err[NN_ERRLEN];
    nn_config nc = nn_config_default(game_encode_dim(g), game_moves(g));
    nc.n_hidden = 1;
    nc.hidden[0] = 16;
    nc.n_value = game_value_dim(g);
    nn_net *net = nn_net_create(&nc, 7, err);
    if (!net)
        fail_msg("%s", err);
    if (nn_export_save(path, net, game_spec(g), game_encoding_name(g), err) != NN_OK)
        fail_msg("%s", err);
    return net;
}

/* The moves of spec and of the az agent on every position of the set at path: equal. */
static void same_moves(const char *path, const char *spec, const game_agent_az *az)
{
    gps_set *set;
    game *g;
    char err[ACCURACY_ERRLEN > GPS_LOAD_ERRLEN ? ACCURACY_ERRLEN : GPS_LOAD_ERRLEN];
    if (gps_load(path, &set, &g, err) != PS_OK)
        fail_msg("%s", err);
    accuracy_config by_spec = {.threads = 2, .seed = 3}, by_struct = by_spec;
    by_struct.az = az;
    accuracy_result a, b;
    if (accuracy_run(set, spec, &by_spec, &a, err) != ACCURACY_OK)
        fail_msg("%s: %s", spec, err);
    if (accuracy_run(set, az->name, &by_struct, &b, err) != ACCURACY_OK)
        fail_msg("%s (settings): %s", az->name, err);
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.move, b.move, (size_t)a.n * sizeof *a.move);
    assert_non_null(strstr(b.agent, az->name)); /* describes itself by its name and settings */
    accuracy_result_free(&a);
    accuracy_result_free(&b);
    gps_free(set);
    game_free(g);
}

static agent_search_info search_of(int sims)
{
    agent_search_info s = {.sims = sims, .c_puct = 1.25, .fpu_reduction = 0.25, .batch = 1, .solver = 1, .gumbel_k = 16,
                           .gumbel_c_visit = 50, .gumbel_c_scale = 1};
    return s;
}

static void check_game(const char *rules, const char *set_path, const char *net_name)
{
    game *g = tu_game(rules);
    const char *path = tu_tmp_path(net_name);
    nn_net *net = make_net(g, path);
    for (int sims = 0; sims <= 16; sims += 16) {
        char spec[1200];
        snprintf(spec, sizeof spec, "az:net=%s,sims=%d,c_puct=1.25,fpu=0.25,batch=1", path, sims);
        game_agent_az az = {.net = net, .search = search_of(sims), .name = "the net in memory"};
        same_moves(set_path, spec, &az);
    }
    nn_net_free(net);
    game_free(g);
}

static void test_kalah_az_from_settings_plays_as_its_spec(void **state)
{
    (void)state;
    check_game("kalah:pits=4,seeds=3", KALAH_SET, "az_kalah43.h5");
}

static void test_oware_az_from_settings_plays_as_its_spec(void **state)
{
    (void)state;
    check_game("oware:max_sows=120", OWARE_SET, "az_oware.h5");
}

static void test_refusals(void **state)
{
    (void)state;
    char err[AGENT_ERRLEN];
    game *kalah = tu_game("kalah:pits=4,seeds=3"), *oware = tu_game("oware:max_sows=120");
    game *basico = tu_game("basico:players=3");
    nn_net *kn = make_net(kalah, tu_tmp_path("az_kalah_r.h5")), *on = make_net(oware, tu_tmp_path("az_oware_r.h5"));
    nn_net *bn = make_net(basico, tu_tmp_path("az_basico_r.h5"));
    game_agent_az az = {.net = kn, .search = search_of(8), .name = "x"};
    az.search.c_puct = 0;
    assert_null(game_agent_create_az(kalah, &az, err));
    assert_non_null(strstr(err, "agent 'x': c_puct is out of its range"));
    az.search.c_puct = 1;
    az.search.batch = 0;
    az.net = on;
    assert_null(game_agent_create_az(oware, &az, err));
    assert_non_null(strstr(err, "batch"));
    az.search.batch = 1;
    az.search.tb = 6;
    assert_null(game_agent_create_az(oware, &az, err));
    assert_non_null(strstr(err, "endgame database"));
    az.search.tb = 0;
    az.search.margin_utility = 1;
    az.net = bn;
    assert_null(game_agent_create_az(basico, &az, err));
    assert_non_null(strstr(err, "two players and a margin")); /* margin and solver both */
    az.search.margin_utility = 0;
    az.search.solver = 0;
    az.net = kn; /* a net of other rules: its shapes do not fit */
    assert_null(game_agent_create_az(oware, &az, err));
    az.net = NULL;
    assert_null(game_agent_create_az(oware, &az, err));
    az.net = bn;
    game_agent *a = game_agent_create_az(basico, &az, err);
    if (!a)
        fail_msg("%s", err);
    assert_string_equal(game_agent_spec(a), "x");
    assert_string_equal(game_agent_kind(a), "az");
    game_pos p;
    game_start(basico, &p);
    int mv;
    assert_int_equal(game_agent_choose(a, &p, &mv), AGENT_OK);
    assert_true(game_legal(basico, &p) >> mv & 1);
    game_agent_free(a);
    nn_net_free(kn);
    nn_net_free(on);
    nn_net_free(bn);
    game_free(kalah);
    game_free(oware);
    game_free(basico);
}

/* A run directory with a ',' in its name: evaluation games, the accuracy on a set and the gate all play. */
static void test_training_in_a_directory_with_a_comma(void **state)
{
    (void)state;
    char dir[1100], *out;
    snprintf(dir, sizeof dir, "%s/az run,with,commas", SOWZERO_TMP);
    char rm[1200];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    assert_int_equal(system(rm), 0);
    int rc = tu_run(&out, 1,
                    "train '%s/configs/quick.ini' --run-dir '%s' --set run.iterations=2 --set eval.every=1 "
                    "--set eval.games=4 --set eval.positions='%s/data/kalah-6-4-holdout.positions.jsonl' "
                    "--set eval.gate=sprt --set eval.gate_games=4 --set selfplay.games=64",
                    SOWZERO_SOURCE_DIR, dir, SOWZERO_SOURCE_DIR);
    if (rc != 0)
        fail_msg("exit %d:\n%s", rc, out);
    assert_non_null(strstr(out, "accuracy on"));
    assert_non_null(strstr(out, "gate after iteration 1"));
    free(out);
    char path[1200];
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    char *csv = tu_read_text(path);
    assert_non_null(csv);
    int lines = 0;
    for (const char *c = csv; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 3); /* the header and two iterations */
    free(csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kalah_az_from_settings_plays_as_its_spec),
        cmocka_unit_test(test_oware_az_from_settings_plays_as_its_spec),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_training_in_a_directory_with_a_comma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
