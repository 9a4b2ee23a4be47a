/* test_shipped_net.c — the trained net shipped in nets/ ("the strongest net goes into the repo").
 *
 * The file must load through the sealed-file check (nn/h5seal: CRC-32 in the user block), carry the rules
 * of the position set it was measured on, and still play as trained: its raw policy (az sims=0, one net
 * call per position, deterministic) must reach the optimal-move share nets/README.md states, within a
 * point. A random net scores about 48% on the set (README, "Accuracy against perfect play"), so a damaged,
 * replaced or untrained file fails here. It also carries the search it was trained with (nn/h5io.h /search,
 * the values of nets/kalah-6-4.config.ini), so `az:net=nets/kalah-6-4.h5` without keys plays at its
 * strength: the effective settings are checked here, the strength itself by `sowzero accuracy` (README). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "eval/accuracy.h"
#include "eval/game_agent.h"
#include "eval/gposset.h"

#define SHIPPED_NET "nets/kalah-6-4.h5"
#define SHIPPED_SET "data/kalah-6-4.positions.jsonl"
/* nets/README.md: the raw policy's optimal-move share on SHIPPED_SET */
#define SHIPPED_RAW_RATE 0.8965

static void test_shipped_net_plays_as_trained(void **state)
{
    (void)state;
    char set_path[1024], spec[1200], err[ACCURACY_ERRLEN > GPS_LOAD_ERRLEN ? ACCURACY_ERRLEN : GPS_LOAD_ERRLEN];
    snprintf(set_path, sizeof set_path, "%s/%s", SOWZERO_SOURCE_DIR, SHIPPED_SET);
    snprintf(spec, sizeof spec, "az:net=%s/%s,sims=0", SOWZERO_SOURCE_DIR, SHIPPED_NET);
    gps_set *set = NULL;
    game *g = NULL;
    if (gps_load(set_path, &set, &g, err) != PS_OK)
        fail_msg("%s", err);
    accuracy_config cfg = {.threads = 1, .seed = 1};
    accuracy_result res;
    int rc = accuracy_run(set, spec, &cfg, &res, err);
    if (rc != ACCURACY_OK)
        fail_msg("%s: %s", SHIPPED_NET, err);
    assert_int_equal(res.all.positions, (int)gps_count(set));
    if (res.all.optimal_rate < SHIPPED_RAW_RATE - 0.01 || res.all.optimal_rate > SHIPPED_RAW_RATE + 0.01)
        fail_msg("%s: raw policy optimal on %.4f of %s, nets/README.md says %.3f", SHIPPED_NET,
                 res.all.optimal_rate, SHIPPED_SET, SHIPPED_RAW_RATE);
    accuracy_result_free(&res);
    gps_free(set);
    game_free(g);
}

/* The Oware net (nets/oware-6-4.h5, trained by configs/oware.ini) on its solved set, the same way: the raw
 * policy's optimal-move share that nets/README.md states, within a point (the random agent: 69.5%). */
#define OWARE_NET "nets/oware-6-4.h5"
#define OWARE_SET "data/oware-6-4.positions.jsonl"
#define OWARE_RAW_RATE 0.932

static void test_oware_net_plays_as_trained(void **state)
{
    (void)state;
    char set_path[1024], spec[1200], err[ACCURACY_ERRLEN > GPS_LOAD_ERRLEN ? ACCURACY_ERRLEN : GPS_LOAD_ERRLEN];
    snprintf(set_path, sizeof set_path, "%s/%s", SOWZERO_SOURCE_DIR, OWARE_SET);
    snprintf(spec, sizeof spec, "az:net=%s/%s,sims=0", SOWZERO_SOURCE_DIR, OWARE_NET);
    gps_set *set = NULL;
    game *g = NULL;
    if (gps_load(set_path, &set, &g, err) != PS_OK)
        fail_msg("%s", err);
    accuracy_config cfg = {.threads = 1, .seed = 1};
    accuracy_result res;
    if (accuracy_run(set, spec, &cfg, &res, err) != ACCURACY_OK)
        fail_msg("%s: %s", OWARE_NET, err);
    assert_int_equal(res.all.positions, 1000);
    if (res.all.optimal_rate < OWARE_RAW_RATE - 0.01 || res.all.optimal_rate > OWARE_RAW_RATE + 0.01)
        fail_msg("%s: raw policy optimal on %.4f of %s, nets/README.md says %.3f", OWARE_NET, res.all.optimal_rate,
                 OWARE_SET, OWARE_RAW_RATE);
    accuracy_result_free(&res);
    gps_free(set);
    game_free(g);
}

/* Without keys the az agent searches as the net was trained (kalah-6-4.config.ini: eval.sims 800,
 * mcts.c_puct 0.75, fpu_reduction 0.25, margin_utility 5, solver true, root puct, eval.batch 1). */
static void test_shipped_net_search_record(void **state)
{
    (void)state;
    char spec[1200], err[AGENT_ERRLEN];
    snprintf(spec, sizeof spec, "az:net=%s/%s", SOWZERO_SOURCE_DIR, SHIPPED_NET);
    game *g = game_create("kalah", NULL);
    assert_non_null(g);
    game_agent *a = game_agent_create(spec, g, err);
    if (!a)
        fail_msg("%s", err);
    agent_search_info si;
    assert_int_equal(game_agent_search_settings(a, &si), AGENT_OK);
    assert_int_equal(si.net_record, 1);
    assert_int_equal(si.sims, 800);
    assert_true(si.c_puct == 0.75);
    assert_true(si.fpu_reduction == 0.25);
    assert_true(si.margin_utility == 5);
    assert_int_equal(si.solver, 1);
    assert_int_equal(si.gumbel, 0);
    assert_int_equal(si.batch, 1);
    assert_int_equal(si.tb, 0); /* the database stays opt-in (tb=N) */
    game_agent_free(a);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_net_plays_as_trained),
        cmocka_unit_test(test_shipped_net_search_record),
        cmocka_unit_test(test_oware_net_plays_as_trained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
