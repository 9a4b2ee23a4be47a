/* test_cli.c — the sowzero binary as a whole: the command list, unknown commands, and the OpenBLAS
 * kernel fix-up of cli/blas_core.c. */
#include "tests/test_util.h"

static void test_help_lists_every_command(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 0, "--help"), 0);
    const char *commands[] = {"train", "perft", "replay", "solve", "play", "match", "tournament", "elo",
                              "net", "export", "bench"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strstr(out, commands[i]))
            fail_msg("--help does not list %s", commands[i]);
    free(out);
    assert_int_equal(tu_run(&out, 1, "frobnicate"), 2);
    assert_non_null(strstr(out, "unknown command 'frobnicate'"));
    free(out);
    assert_int_equal(tu_run(&out, 1, ""), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "train --resume '%s'", SOWZERO_TMP), 2);
    assert_non_null(strstr(out, "not a run directory"));
    free(out);
}

/* An unknown game in --rules names every registered game (env/games.def), whichever command reads it:
 * the Kalah-only commands' parser once listed only kalah. */
static void test_unknown_game_lists_all(void **state)
{
    (void)state;
    char known[256] = "(known: ";
    for (int i = 0; i < game_kind_count(); i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", game_kind_at(i)->name);
    strcat(known, ")");
    assert_true(game_kind_count() >= 4);
    static const char *const cmds[] = {"replay --rules foo", "solve --rules foo:pits=4", "perft 1 --rules foo",
                                       "match random random --rules foo", "bench env --rules foo",
                                       "move random --rules foo --position '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'",
                                       "net --net x.h5 --rules foo", "play random --rules foo"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *out;
        int rc = tu_run(&out, 1, "%s </dev/null", cmds[i]);
        if (rc != 2 || !strstr(out, "unknown game 'foo'") || !strstr(out, known))
            fail_msg("sowzero %s: exit %d, wanted 2 and \"unknown game 'foo' ... %s\":\n%s", cmds[i], rc, known, out);
        free(out);
    }
}

/* README's command table against the binary: every command `sowzero --help` lists has a row, and every
 * --option a row's usage shows is one the command's own --help knows. */
static void test_readme_command_table(void **state)
{
    (void)state;
    FILE *f = fopen(SOWZERO_SOURCE_DIR "/README.md", "r");
    assert_non_null(f);
    char line[2048], rows[64][48];
    int n = 0, in_table = 0;
    char *help;
    assert_int_equal(tu_run(&help, 0, "--help"), 0);
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "| command | what it does |", 26)) {
            in_table = 1;
            continue;
        }
        if (!in_table || !strncmp(line, "|---", 4))
            continue;
        if (line[0] != '|')
            break;
        char *cell = strchr(line, '`'), *end = cell ? strstr(line + 1, " | ") : NULL;
        assert_non_null(cell);
        assert_non_null(end);
        *end = 0;
        char cmd[48];
        assert_int_equal(sscanf(cell + 1, "%47[a-z]", cmd), 1);
        assert_true(n < 64);
        strcpy(rows[n++], cmd);
        char *usage;
        assert_int_equal(tu_run(&usage, 1, "%s --help", cmd), 0);
        for (char *o = strstr(cell, "--"); o; o = strstr(o + 2, "--")) {
            char opt[48];
            if (sscanf(o, "%47[-a-z]", opt) != 1 || strlen(opt) < 3)
                continue;
            if (!strstr(usage, opt))
                fail_msg("README's row for %s shows %s, which 'sowzero %s --help' does not know", cmd, opt, cmd);
        }
        free(usage);
    }
    fclose(f);
    assert_true(n >= 15);
    /* The command list of --help: two spaces, a name, spaces, its line. */
    for (char *l = strstr(help, "\ncommands:\n"); l && (l = strchr(l + 1, '\n'));) {
        char cmd[48];
        if (sscanf(l + 1, "  %47[a-z]", cmd) != 1)
            continue;
        int found = 0;
        for (int i = 0; i < n; i++)
            found |= !strcmp(rows[i], cmd);
        if (!found)
            fail_msg("'sowzero --help' lists %s, README's command table has no row for it", cmd);
    }
    free(help);
}

/* Text outputs count threads in English: "1 thread", "2 threads" (they said "1 threads"). */
static void test_thread_counts(void **state)
{
    (void)state;
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"accuracy random --positions '" SOWZERO_SOURCE_DIR "/tests/data/kalah-4-3.positions.jsonl' --threads 1",
         " 1 thread, "},
        {"accuracy random --positions '" SOWZERO_SOURCE_DIR "/tests/data/kalah-4-3.positions.jsonl' --threads 2",
         " 2 threads, "},
        {"match random greedy --rules congklak:pits=4,seeds=3 --games 2 --threads 1", "), 1 thread, rules "},
        {"match random greedy --games 2 --threads 1", "), 1 thread, rules "},
        {"match random greedy --rules basico:players=3,pits=4,seeds=3 --games 6 --threads 1", "; 1 thread, seed"},
        {"bench net --reps 1 --min-ms 1", " 1 BLAS thread, "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out;
        int rc = tu_run(&out, 0, "%s", cases[i].args);
        if (rc != 0 || !strstr(out, cases[i].want) || strstr(out, " 1 threads") || strstr(out, "thread(s)"))
            fail_msg("sowzero %s: exit %d, wanted '%s':\n%s", cases[i].args, rc, cases[i].want, out);
        free(out);
    }
}

/* Where the CPU runs AVX2+FMA and the user set no core, the binary must not be left on OpenBLAS's SSE3
 * fallback; a core the user sets is kept. */
/* bench net --onehot K times the one-hot net beside the plain net of the expanded width; a level count
 * out of range is bad input (exit 2, the flag named). */
static void test_bench_net_onehot(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 0, "bench net --reps 1 --min-ms 1 --onehot 16 --json"), 0);
    assert_non_null(strstr(out, "\"onehot_levels\":16"));
    assert_non_null(strstr(out, "\"dense_train_step_ms\""));
    free(out);
    assert_int_equal(tu_run(&out, 1, "bench net --onehot 1"), 2);
    assert_non_null(strstr(out, "--onehot"));
    free(out);
}

static void test_blas_core_fixup(void **state)
{
    (void)state;
    char *out;
    __builtin_cpu_init();
    int fast_cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    assert_int_equal(tu_run(&out, 0, "bench net --reps 1 --min-ms 1 --json"), 0);
    assert_non_null(strstr(out, "\"blas_core\""));
    if (fast_cpu && !getenv("OPENBLAS_CORETYPE"))
        assert_null(strstr(out, "\"blas_core\":\"Prescott\""));
    free(out);
    assert_int_equal(tu_run(&out, 0, "bench net --reps 1 --min-ms 1 --json 2>/dev/null; OPENBLAS_CORETYPE=Prescott '%s' bench net --reps 1 --min-ms 1 --json", SOWZERO_BIN), 0);
    assert_non_null(strstr(out, "\"blas_core\":\"Prescott\""));
    free(out);
}

/* export refuses to write its output over its own input (a checkpoint would lose its training state). */
static void test_export_onto_itself(void **state)
{
    (void)state;
    char *out, dir[512];
    snprintf(dir, sizeof dir, "%s/cli_export", SOWZERO_TMP);
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir); /* train refuses an existing run directory (a re-run) */
    assert_int_equal(system(rm), 0);
    assert_int_equal(tu_run(&out, 1, "train '%s/configs/quick.ini' --set run.iterations=1 --set eval.every=0 "
                                     "--set eval.final_games=0 --run-dir '%s' >/dev/null", SOWZERO_SOURCE_DIR, dir), 0);
    free(out);
    assert_int_equal(tu_run(&out, 1, "export '%s/latest.h5' '%s/latest.h5'", dir, dir), 2);
    assert_non_null(strstr(out, "is CHECKPOINT itself"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "net --net '%s/latest.h5' --json", dir), 0);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_lists_every_command),
        cmocka_unit_test(test_unknown_game_lists_all),
        cmocka_unit_test(test_thread_counts),
        cmocka_unit_test(test_readme_command_table),
        cmocka_unit_test(test_blas_core_fixup),
        cmocka_unit_test(test_bench_net_onehot),
        cmocka_unit_test(test_export_onto_itself),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
