/* test_train_gate.c — SPRT gating in training (train.h "Gating"): a gate that always accepts makes the
 * self-play net the trained one, a gate that cannot accept keeps the first net, and a gated run stopped
 * and resumed ends bit-identical to one that never stopped (the self-play net is in the checkpoints).
 * Self-play and the gate's matches run worker threads, hence: */
// ctest-labels: threads
#include "tests/test_util.h"
#include "tests/train_util.h"

static void run(const char *dir, const char *extra, int64_t stop_after, int resume, train_summary *sum)
{
    cfg_config c;
    if (resume)
        run_config(&c, dir, NULL);
    else
        tiny(&c, extra);
    train_options o = {.run_dir = dir, .resume = resume, .stop_after = stop_after};
    char err[TRAIN_ERRLEN];
    int rc = train_run(&c, &o, sum, err);
    if (rc != TRAIN_OK && rc != TRAIN_STOPPED)
        fail_msg("train_run: %d %s", rc, err);
}

#define GATED "run.iterations=2 eval.gate=sprt eval.gate_games=4 eval.threads=2 "

static void test_a_gate_that_always_accepts(void **state)
{
    (void)state;
    /* H0 -1000 Elo, H1 -999, both bounds 0: any score above ~0.3% accepts */
    const char *dir = scratch("gate-yes");
    train_summary sum;
    run(dir, GATED "eval.gate_elo0=-1000 eval.gate_elo1=-999 eval.gate_alpha=0.5 eval.gate_beta=0.5", 0, 0, &sum);
    assert_int_equal(sum.gates, 2);
    assert_int_equal(sum.gates_accepted, 2);
    nn_net *sp = load_net(dir, "selfplay.h5"), *latest = load_net(dir, "latest.h5");
    assert_true(same_params(sp, latest)); /* the last gate accepted the trained net of the last iteration */
    nn_net_free(sp);
    nn_net_free(latest);
}

static void test_a_gate_that_cannot_accept(void **state)
{
    (void)state;
    /* H1 at +1000 Elo with alpha 1e-6: four games cannot reach the upper bound log(0.95e6) */
    const char *dir = scratch("gate-no");
    train_summary sum;
    run(dir, GATED "eval.gate_elo0=999 eval.gate_elo1=1000 eval.gate_alpha=1e-6", 0, 0, &sum);
    assert_int_equal(sum.gates, 2);
    assert_int_equal(sum.gates_accepted, 0);
    /* the self-play net is still the initial one: the same as a run's net before any SGD */
    const char *dir0 = scratch("gate-no0");
    train_summary s0;
    run(dir0, "run.iterations=1 train.steps_per_iteration=0 eval.opponents= eval.every=0", 0, 0, &s0);
    nn_net *sp = load_net(dir, "selfplay.h5"), *init = load_net(dir0, "latest.h5");
    assert_true(same_params(sp, init));
    nn_net_free(sp);
    nn_net_free(init);
}

static void test_stopped_and_resumed_gated_run_is_identical(void **state)
{
    (void)state;
    const char *extra = GATED "run.iterations=3 eval.gate_elo0=-1000 eval.gate_elo1=0";
    const char *a = scratch("gate-straight"), *b = scratch("gate-resumed");
    train_summary sa, sb;
    run(a, extra, 0, 0, &sa);
    run(b, extra, 1, 0, &sb);
    run(b, NULL, 0, 1, &sb);
    assert_int_equal(sb.iterations, 3);
    assert_int_equal(sa.gates, sb.gates);
    assert_int_equal(sa.gates_accepted, sb.gates_accepted);
    const char *files[2] = {"latest.h5", "selfplay.h5"};
    for (int i = 0; i < 2; i++) {
        nn_net *x = load_net(a, files[i]), *y = load_net(b, files[i]);
        if (!same_params(x, y))
            fail_msg("%s differs between the straight and the resumed run", files[i]);
        nn_net_free(x);
        nn_net_free(y);
    }
}

static void test_gate_keys(void **state)
{
    (void)state;
    cfg_config c;
    char err[CFG_ERRLEN];
    cfg_defaults(&c);
    assert_int_equal(c.eval.gate, CFG_GATE_NONE);
    assert_int_equal(cfg_set(&c, "eval.gate=maybe", err), -1);
    assert_int_equal(cfg_set(&c, "eval.gate_alpha=0", err), -1);
    assert_int_equal(cfg_set(&c, "run.iterations=1", err), 0);
    assert_int_equal(cfg_set(&c, "eval.gate_elo1=-5", err), 0);
    assert_int_equal(cfg_finish(&c, err), -1);
    assert_non_null(strstr(err, "eval.gate_elo1"));
    cfg_defaults(&c);
    assert_int_equal(cfg_set(&c, "run.iterations=1", err), 0);
    assert_int_equal(cfg_set(&c, "eval.gate_games=7", err), 0);
    assert_int_equal(cfg_finish(&c, err), -1);
    assert_non_null(strstr(err, "eval.gate_games"));
    cfg_defaults(&c);
    assert_int_equal(cfg_set(&c, "run.iterations=1", err), 0);
    assert_int_equal(cfg_set(&c, "rules.game=basico", err), 0);
    assert_int_equal(cfg_set(&c, "rules.pits=4", err), 0);
    assert_int_equal(cfg_set(&c, "eval.games=6", err), 0);
    assert_int_equal(cfg_set(&c, "eval.gate=sprt", err), 0);
    assert_int_equal(cfg_finish(&c, err), -1);
    assert_non_null(strstr(err, "eval.gate needs a two-player game: the SPRT scores colour-swapped pairs"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_gate_that_always_accepts),
        cmocka_unit_test(test_a_gate_that_cannot_accept),
        cmocka_unit_test(test_stopped_and_resumed_gated_run_is_identical),
        cmocka_unit_test(test_gate_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
