/* test_train_levers.c — the training levers on a game of the generic stack (Oware through rules.spec), and
 * their refusals by a fact of the game: a run with eval.positions measures its accuracy on Oware's solved
 * set (the metrics' accuracy columns, what `sowzero accuracy` reports for the same net) with the self-play
 * levers on; SPRT gating accepts and rejects; the root levers (Gumbel, forced playouts) write distributions
 * as policy targets; three players rule out the gate and a solved set, a game
 * without an endgame database the database's levers, each message naming the fact; the keys a config
 * writes follow the same facts. */
// ctest-labels: threads
#include "tests/test_util.h"
#include "tests/train_util.h"

#include <cjson/cJSON.h>
#include <math.h>

#include "env/game.h"
#include "selfplay/replay.h"

#define OWARE_SET SOWZERO_SOURCE_DIR "/data/oware-6-4.positions.jsonl" /* its rules: oware:max_sows=120 */
#define KALAH_SET SOWZERO_SOURCE_DIR "/tests/data/kalah-4-3.positions.jsonl"

/* tiny() on Oware under the solved set's rules: a ply limit of 120 sowings. */
#define OWARE "rules.spec=oware:max_sows=120 eval.opponents=greedy "

static void run(const char *dir, const char *extra, train_summary *sum)
{
    cfg_config c;
    tiny(&c, extra);
    train_options o = {.run_dir = dir};
    char err[TRAIN_ERRLEN];
    int rc = train_run(&c, &o, sum, err);
    if (rc != TRAIN_OK)
        fail_msg("train_run: %d %s", rc, err);
}

/* eval.positions on Oware, the self-play levers on: every evaluation writes the raw policy's and the search's
 * accuracy on the set, and the raw policy's is what `sowzero accuracy` reports for latest.h5. */
static void test_oware_accuracy(void **state)
{
    (void)state;
    const char *dir = scratch("levers-oware-accuracy");
    train_summary sum;
    run(dir,
        OWARE "run.iterations=2 eval.positions=" OWARE_SET " selfplay.opening_plies=8 selfplay.opening_sims=16 "
              "selfplay.surprise_weight=0.5",
        &sum);
    assert_true(sum.have_accuracy);
    char csv[1 << 16];
    snprintf(csv, sizeof csv, "%s", slurp(dir, "metrics.csv"));
    assert_int_equal(count_char(csv, '\n'), 3);
    for (int it = 1; it <= 2; it++) {
        double a = csv_cell(csv, it, "accuracy_search"), r = csv_cell(csv, it, "regret_search");
        double ar = csv_cell(csv, it, "accuracy_raw"), rr = csv_cell(csv, it, "regret_raw");
        if (!(a >= 0 && a <= 1 && ar >= 0 && ar <= 1 && r >= 0 && rr >= 0))
            fail_msg("iteration %d: accuracy %g / %g, regret %g / %g", it, a, ar, r, rr);
        /* in steps of 1/1000, the set's 1,000 positions */
        assert_true(fabs(a * 1000 - round(a * 1000)) < 1e-3 && fabs(ar * 1000 - round(ar * 1000)) < 1e-3);
    }
    char *out;
    assert_int_equal(tu_run(&out, 0, "accuracy 'az:net=%s/latest.h5,sims=0' --positions '%s' --json", dir, OWARE_SET),
                     0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_true(fabs(cJSON_GetObjectItem(j, "optimal_rate")->valuedouble - csv_cell(csv, 2, "accuracy_raw")) < 1e-6);
    assert_true(fabs(cJSON_GetObjectItem(j, "mean_regret")->valuedouble - csv_cell(csv, 2, "regret_raw")) < 1e-6);
    cJSON_Delete(j);
    free(out);
}

/* A set of other rules is refused before the run starts, naming both rules. */
static void test_positions_of_other_rules(void **state)
{
    (void)state;
    cfg_config c;
    tiny(&c, OWARE "eval.positions=" KALAH_SET);
    const char *dir = scratch("levers-oware-wrong-set");
    train_options o = {.run_dir = dir};
    char err[TRAIN_ERRLEN];
    assert_int_equal(train_run(&c, &o, NULL, err), TRAIN_EINVAL);
    if (!strstr(err, "eval.positions: ") || !strstr(err, "is a set of kalah:pits=4,seeds=3") ||
        !strstr(err, "not of the run's rules oware"))
        fail_msg("%s", err);
    assert_false(file_exists(dir, "metrics.csv"));
}

/* eval.gate on Oware: a gate that always accepts makes the self-play net the trained one; one that cannot
 * accept keeps the first net. */
static void test_oware_gate(void **state)
{
    (void)state;
    const char *gated = OWARE "run.iterations=2 eval.gate=sprt eval.gate_games=4 eval.threads=2 ";
    char extra[512];
    const char *yes = scratch("levers-oware-gate-yes");
    train_summary sum;
    snprintf(extra, sizeof extra, "%s%s", gated, "eval.gate_elo0=-1000 eval.gate_elo1=-999 eval.gate_alpha=0.5 "
                                                 "eval.gate_beta=0.5");
    run(yes, extra, &sum);
    assert_int_equal(sum.gates, 2);
    assert_int_equal(sum.gates_accepted, 2);
    nn_net *sp = load_net(yes, "selfplay.h5"), *latest = load_net(yes, "latest.h5");
    assert_true(same_params(sp, latest));
    nn_net_free(sp), nn_net_free(latest);

    const char *no = scratch("levers-oware-gate-no"), *init = scratch("levers-oware-init");
    snprintf(extra, sizeof extra, "%s%s", gated, "eval.gate_elo0=999 eval.gate_elo1=1000 eval.gate_alpha=1e-6");
    run(no, extra, &sum);
    assert_int_equal(sum.gates, 2);
    assert_int_equal(sum.gates_accepted, 0);
    run(init, OWARE "run.iterations=1 train.steps_per_iteration=0 eval.opponents= eval.every=0", &sum);
    sp = load_net(no, "selfplay.h5");
    nn_net *first = load_net(init, "latest.h5"), *trained = load_net(no, "latest.h5");
    assert_true(same_params(sp, first));
    assert_false(same_params(sp, trained));
    nn_net_free(sp), nn_net_free(first), nn_net_free(trained);
}

/* The root levers on Oware's self-play: a run with each finishes, and every policy target its replay buffer
 * holds (the checkpoint's) is a distribution over the legal moves — with the Gumbel root the completed-Q
 * softmax, positive on every legal move. */
static void test_oware_root_levers(void **state)
{
    (void)state;
    const char *levers[] = {"mcts.root=gumbel mcts.gumbel_k=4", "mcts.forced_playouts_k=2"};
    for (int li = 0; li < 2; li++) {
        const char *dir = scratch(li ? "levers-oware-forced" : "levers-oware-gumbel");
        char extra[256];
        snprintf(extra, sizeof extra, OWARE "%s", levers[li]);
        train_summary sum;
        run(dir, extra, &sum);
        char path[1200], err[NN_ERRLEN];
        snprintf(path, sizeof path, "%s/checkpoints/iter-000001.h5", dir);
        game *g = tu_game("oware:max_sows=120");
        nn_ckpt *st = NULL;
        nn_net *net = NULL;
        nn_file_info info;
        if (nn_ckpt_load(path, game_spec(g), &net, NULL, &st, &info, err) != NN_OK)
            fail_msg("%s", err);
        assert_string_equal(info.search.root, li ? "puct" : "gumbel");
        const void *blob;
        size_t n;
        assert_int_equal(nn_ckpt_get_blob(st, "replay", &blob, &n), NN_OK);
        const int dim = game_encode_dim(g), m = game_moves(g);
        replay_buffer *rb = replay_create(dim, m, game_value_dim(g), 3000, err);
        assert_non_null(rb);
        assert_int_equal(replay_restore(rb, blob, n, err), MCTS_OK);
        assert_true(replay_size(rb) > 0);
        float *x = malloc((size_t)dim * sizeof *x), pi[GAME_MAX_MOVES];
        uint8_t legal[GAME_MAX_MOVES];
        for (size_t i = 0; i < replay_size(rb); i++) {
            assert_int_equal(replay_get(rb, i, x, legal, pi, NULL, NULL), MCTS_OK);
            double s = 0;
            for (int k = 0; k < m; k++) {
                if (!(pi[k] >= 0) || (!legal[k] && pi[k] != 0) || (li == 0 && legal[k] && !(pi[k] > 0)))
                    fail_msg("%s: sample %zu pi[%d] = %g (legal %d)", levers[li], i, k, pi[k], legal[k]);
                s += pi[k];
            }
            if (fabs(s - 1.0) > 1e-4)
                fail_msg("%s: sample %zu pi sums to %g", levers[li], i, s);
        }
        free(x);
        replay_free(rb);
        game_free(g);
        nn_net_free(net);
        nn_ckpt_free(st);
    }
}

static void expect_refusal(const char *extra, const char *key, const char *fact)
{
    cfg_config c;
    char err[CFG_ERRLEN], buf[1024];
    cfg_defaults(&c);
    for (size_t i = 0; i < sizeof tiny_sets / sizeof tiny_sets[0]; i++)
        assert_int_equal(cfg_set(&c, tiny_sets[i], err), 0);
    snprintf(buf, sizeof buf, "%s", extra);
    char *save = NULL;
    for (char *s = strtok_r(buf, " ", &save); s; s = strtok_r(NULL, " ", &save))
        if (cfg_set(&c, s, err))
            fail_msg("%s", err);
    if (cfg_finish(&c, err) == 0)
        fail_msg("'%s' was accepted", extra);
    if (!strstr(err, key) || !strstr(err, fact))
        fail_msg("'%s': message '%s' lacks '%s' or '%s'", extra, err, key, fact);
}

/* Refusals name the fact the game lacks; the keys a run's config.ini holds are those its game's facts allow. */
static void test_refusals_by_fact(void **state)
{
    (void)state;
    const char *basico = "rules.game=basico rules.players=3 rules.pits=4 eval.opponents=greedy eval.games=6 ";
    char extra[512];
    snprintf(extra, sizeof extra, "%seval.gate=sprt", basico);
    expect_refusal(extra, "eval.gate", "needs a two-player game");
    snprintf(extra, sizeof extra, "%seval.positions=" OWARE_SET, basico);
    expect_refusal(extra, "eval.positions", "more than two players");
    expect_refusal(OWARE "mcts.tablebase_seeds=6", "mcts.tablebase_seeds", "oware declares none");
    expect_refusal(OWARE "eval.tablebase_seeds=6", "eval.tablebase_seeds", "endgame hook");
    expect_refusal(OWARE "mcts.tablebase_seeds=6 selfplay.rescore=true", "mcts.tablebase_seeds",
                   "needs an exact endgame database");
    expect_refusal("rules.spec=congklak eval.opponents=greedy selfplay.rescore=true", "selfplay.rescore",
                   "congklak declares none");
    /* one-hot pit features from the encode form: Oware's 12 pits (4 seeds each), Congklak's 10 (5 each) */
    {
        cfg_config o;
        tiny(&o, OWARE "net.onehot_levels=8");
        assert_int_equal(o.net.onehot_inputs, 12);
        assert_true(o.net.onehot_scale == 4.0f);
        tiny(&o, "rules.spec=congklak:pits=5,seeds=5 eval.opponents=greedy net.onehot_levels=8");
        assert_int_equal(o.net.onehot_inputs, 10);
        assert_true(o.net.onehot_scale == 5.0f);
        expect_refusal("rules.game=basico rules.players=3 rules.pits=4 eval.opponents=greedy eval.games=6 "
                       "net.onehot_levels=8", "net.onehot_levels", "basico");
    }
    /* playout caps, the root levers and the margin utility run on every game whose facts allow them: the
     * utility needs two players and a margin, and the margin head */
    {
        cfg_config o;
        tiny(&o, OWARE "mcts.margin_utility=0.5 net.margin_head=true");
        assert_true(o.mcts.margin_utility == 0.5);
    }
    expect_refusal("rules.game=basico rules.players=3 rules.pits=4 eval.opponents=greedy eval.games=6 "
                   "mcts.margin_utility=0.5", "mcts.margin_utility", "more than two players");
    expect_refusal(OWARE "mcts.margin_utility=0.5 net.margin_head=false", "mcts.margin_utility", "margin head");
    cfg_config c;
    tiny(&c, OWARE "selfplay.full_sims_prob=0.5 selfplay.fast_sims=4");
    tiny(&c, OWARE "mcts.root=gumbel mcts.gumbel_k=4");
    tiny(&c, OWARE "mcts.forced_playouts_k=2");
    /* what applies is written out: Oware's config.ini has the gate, the set, the score utility and the
     * self-play levers */
    tiny(&c, OWARE);
    char name[96];
    for (int i = 0; i < cfg_key_count(); i++) {
        cfg_key_name(i, name, sizeof name);
        int want = strcmp(name, "mcts.tablebase_seeds") && strcmp(name, "eval.tablebase_seeds") &&
                   strcmp(name, "selfplay.rescore") && strcmp(name, "selfplay.rescore_policy");
        if (!strncmp(name, "eval.gate", 9) || !strcmp(name, "eval.positions") || !strncmp(name, "selfplay.opening", 16) ||
            !strcmp(name, "selfplay.surprise_weight") || !strcmp(name, "selfplay.full_sims_prob") ||
            !strcmp(name, "mcts.root") || !strncmp(name, "mcts.gumbel", 11) || !strcmp(name, "mcts.forced_playouts_k") ||
            !strcmp(name, "mcts.margin_utility") || !want)
            if (cfg_key_applies(&c, i) != want)
                fail_msg("oware: %s %s", name, want ? "does not apply" : "applies");
    }
    snprintf(extra, sizeof extra, "%sselfplay.surprise_weight=0.5 selfplay.opening_plies=4", basico);
    tiny(&c, extra);
    for (int i = 0; i < cfg_key_count(); i++) {
        cfg_key_name(i, name, sizeof name);
        int two_player = !strncmp(name, "eval.gate", 9) || !strcmp(name, "eval.positions"),
            margin = !strcmp(name, "mcts.margin_utility"), root = !strcmp(name, "mcts.root") ||
                                                            !strncmp(name, "mcts.gumbel", 11) ||
                                                            !strcmp(name, "mcts.forced_playouts_k");
        if ((two_player || margin || root || !strcmp(name, "selfplay.surprise_weight")) &&
            cfg_key_applies(&c, i) == (two_player || margin))
            fail_msg("basico: %s %s", name, two_player || margin ? "applies" : "does not apply");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oware_accuracy),
        cmocka_unit_test(test_positions_of_other_rules),
        cmocka_unit_test(test_oware_gate),
        cmocka_unit_test(test_oware_root_levers),
        cmocka_unit_test(test_refusals_by_fact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
