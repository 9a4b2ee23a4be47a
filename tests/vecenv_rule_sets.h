/* vecenv_rule_sets.h — the Kalah rule sets the batched stepper's tests run (test_vecenv.c,
 * test_vecenv_gym.c): pits 1..7, every capture and end rule, sowing limits, and boards with full laps
 * (n >= 2m+1 seeds in a pit: seeds=12 and 18 make them common). */
#ifndef SOWZERO_TESTS_VECENV_RULE_SETS_H
#define SOWZERO_TESTS_VECENV_RULE_SETS_H

static const char *rule_sets[] = {
    "kalah",
    "kalah:pits=1,seeds=3",
    "kalah:pits=2,seeds=5,capture=always",
    "kalah:pits=3,seeds=6,capture=none,end=mover-empty",
    "kalah:pits=4,seeds=10,max_sows=30",
    "kalah:pits=5,seeds=12,capture=always,end=mover-empty",
    "kalah:pits=6,seeds=4,capture=always,end=mover-empty,max_sows=50",
    "kalah:pits=7,seeds=18",
    "kalah:pits=7,seeds=2,capture=none,max_sows=9",
};
#define N_RULES (int)(sizeof rule_sets / sizeof rule_sets[0])

#endif
