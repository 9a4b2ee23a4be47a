/* test_cli_input.c — how the CLI meets bad input and asks for help: `sowzero help CMD` is CMD's own help;
 * a malformed or missing record file is bad input (exit status 2) for `elo` and `replay --pgn`; messages
 * that quote bytes of a corrupt file show control bytes and invalid UTF-8 as \xNN (valid UTF-8 as it is);
 * `solve` shows its progress on stderr. */
// ctest-labels: threads
#include "tests/test_util.h"

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/cli_input_%s", SOWZERO_TMP, name);
}

static void write_text(const char *path, const char *s)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(s, f);
    fclose(f);
}

static void test_help_command(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 1, "help train"), 0);
    assert_non_null(strstr(out, "usage: sowzero train CONFIG.ini"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "help bench net"), 0);
    assert_non_null(strstr(out, "usage: sowzero bench net"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "help no-such-command"), 2);
    assert_non_null(strstr(out, "unknown command 'no-such-command'"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "help"), 0);
    assert_non_null(strstr(out, "commands:"));
    free(out);
}

static void test_bad_records(void **state)
{
    (void)state;
    char path[512], *out;
    tmp_path(path, sizeof path, "bad.pgn");
    write_text(path, "[Event \"x\"]\n[South \"a\"]\n[North \"b\"]\n[Rules \"kalah\"]\n[Result \"*\"]\n\n"
                     "c \x01\xffz\xc3\xa1 *\n");
    const char *cmds[2] = {"elo '%s'", "replay --pgn '%s'"};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tu_run(&out, 1, cmds[i], path), 2);
        if (!strstr(out, "bad.pgn:7: move 2 '\\x01\\xffz\xc3\xa1'"))
            fail_msg("%s: %s", cmds[i], out);
        free(out);
    }
    assert_int_equal(tu_run(&out, 1, "elo '%s/no-such.pgn'", SOWZERO_TMP), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "replay --pgn '%s/no-such.pgn'", SOWZERO_TMP), 2);
    free(out);
    /* a directory where a file is read: said so at the open, not as a read error */
    const char *dir_inputs[] = {"elo '%s'", "replay --pgn '%s'", "train '%s'", "match greedy random --book '%s'"};
    for (size_t i = 0; i < sizeof dir_inputs / sizeof dir_inputs[0]; i++) {
        assert_int_equal(tu_run(&out, 1, dir_inputs[i], SOWZERO_TMP), 2);
        if (!strstr(out, "Is a directory"))
            fail_msg("%s: %s", dir_inputs[i], out);
        free(out);
    }
}

/* solve shows its phase on stderr when asked (the default on a terminal), and nothing in a pipe. */
static void test_solve_progress(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 1, "solve --rules kalah:pits=3,seeds=2 --endgame 4 --progress 2>&1 >/dev/null | cat"), 0);
    assert_non_null(strstr(out, "solve: building or mapping the endgame database..."));
    assert_non_null(strstr(out, "solve: searching..."));
    free(out);
    assert_int_equal(tu_run(&out, 1, "solve --rules kalah:pits=3,seeds=2"), 0);
    assert_null(strstr(out, "solve:"));
    assert_non_null(strstr(out, "value"));
    free(out);
}

/* move on a game other than Kalah: the agent's choice and its search's statistics; a bad position, an unknown
 * game and a lever the game has no fact for (tb= without an endgame database) are usage errors naming them. */
static void test_move_any_game(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 1, "move mcts:sims=50,seed=1 --rules oware --position '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S' "
                                     "--json"), 0);
    assert_non_null(strstr(out, "\"rules\":\"oware:"));
    assert_non_null(strstr(out, "\"root_visits\":"));
    assert_non_null(strstr(out, "\"visits\":"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "move mcts:sims=10 --rules oware --position nonsense"), 2);
    assert_non_null(strstr(out, "--position nonsense"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "move mcts:sims=10 --rules nogame --position x"), 2);
    assert_non_null(strstr(out, "unknown game 'nogame'"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "move 'az:net=%s/nets/oware-6-4.h5,tb=4' --rules oware:max_sows=120 "
                                     "--position '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'", SOWZERO_SOURCE_DIR), 2);
    assert_non_null(strstr(out, "tb=4"));
    assert_non_null(strstr(out, "has no endgame database"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_command),
        cmocka_unit_test(test_move_any_game),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_solve_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
