/* test_shipped_net.c — the trained net shipped in nets/ (issue 15: "the strongest net goes into the repo").
 *
 * The file must load through the sealed-file check (nn/h5seal: CRC-32 in the user block), carry the rules
 * of the position set it was measured on, and still play as trained: its raw policy (az sims=0, one net
 * call per position, deterministic) must reach the optimal-move share nets/README.md states, within a
 * point. A random net scores about 48% on the set (README, "Accuracy against perfect play"), so a damaged,
 * replaced or untrained file fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "eval/accuracy.h"
#include "eval/posset_read.h"

#define SHIPPED_NET "nets/kalah-6-4.h5"
#define SHIPPED_SET "data/kalah-6-4.positions.jsonl"
/* nets/README.md: the raw policy's optimal-move share on SHIPPED_SET */
#define SHIPPED_RAW_RATE 0.8655

static void test_shipped_net_plays_as_trained(void **state)
{
    (void)state;
    char set_path[1024], spec[1200], err[ACCURACY_ERRLEN];
    snprintf(set_path, sizeof set_path, "%s/%s", SOWZERO_SOURCE_DIR, SHIPPED_SET);
    snprintf(spec, sizeof spec, "az:net=%s/%s,sims=0", SOWZERO_SOURCE_DIR, SHIPPED_NET);
    posset *set = NULL;
    assert_int_equal(posset_load(set_path, &set, err), 0);
    accuracy_config cfg = {.threads = 1, .seed = 1};
    accuracy_result res;
    int rc = accuracy_run(set, spec, &cfg, &res, err);
    if (rc != ACCURACY_OK)
        fail_msg("%s: %s", SHIPPED_NET, err);
    assert_int_equal(res.all.positions, posset_count(set));
    if (res.all.optimal_rate < SHIPPED_RAW_RATE - 0.01 || res.all.optimal_rate > SHIPPED_RAW_RATE + 0.01)
        fail_msg("%s: raw policy optimal on %.4f of %s, nets/README.md says %.3f", SHIPPED_NET,
                 res.all.optimal_rate, SHIPPED_SET, SHIPPED_RAW_RATE);
    accuracy_result_free(&res);
    posset_free(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_net_plays_as_trained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
