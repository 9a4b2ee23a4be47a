/* test_play.c — `sowzero play` driven by scripted input through a shell redirect: bad input gets messages
 * (never a crash), undo/hint/quit, end of input, and the game record printed at the end reads back. */
#include "tests/test_util.h"

#include "eval/record.h"

/* Runs `play ARGS < script` (script text written to a file); returns the exit status, output in *out. */
static int play(char **out, const char *args, const char *script)
{
    static int n;
    char path[512];
    snprintf(path, sizeof path, "%s/play_script_%d.txt", SOWZERO_TMP, n++);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(script, f);
    fclose(f);
    return tu_run(out, 1, "play %s < '%s'", args, path);
}

/* The record at the end of the output, read back with the record reader. */
static void read_record(const char *out, record_game *g)
{
    const char *rec = strstr(out, "[Event ");
    if (!rec)
        fail_msg("no record in:\n%s", out);
    char path[512], err[RECORD_ERRLEN];
    snprintf(path, sizeof path, "%s/play_record.pgn", SOWZERO_TMP);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(rec, f);
    fclose(f);
    record_reader *rd = record_reader_open(path, err);
    assert_non_null(rd);
    if (record_read(rd, g, err) != RECORD_OK)
        fail_msg("%s\n%s", err, rec);
    record_reader_free(rd);
}

static void expect(const char *out, const char *words)
{
    if (!strstr(out, words))
        fail_msg("output lacks '%s':\n%s", words, out);
}

static void test_bad_input_gets_messages(void **state)
{
    (void)state;
    char *out;
    int rc = play(&out, "greedy --seed 3", "zz\nA\n9\n\n   \nhint\nundo\nc\nc\nundo\nhelp\nquit\nd\n");
    assert_int_equal(rc, 0);
    expect(out, "'zz' is not a move");
    expect(out, "'A' is North's pit");
    expect(out, "'9' is not a move");
    expect(out, "hint: greedy would play c"); /* the only extra-turn move from the start */
    expect(out, "nothing to undo");
    expect(out, "you play c - last seed in the store: another turn");
    expect(out, "pit c is empty");
    expect(out, "undone: back 1 move");
    expect(out, "undo, hint, quit");
    expect(out, "game stopped");
    record_game g;
    read_record(out, &g);
    assert_int_equal(g.result, RECORD_UNFINISHED);
    assert_int_equal(g.n_moves, 0); /* c was undone, d came after quit */
    assert_string_equal(g.south, "human");
    assert_string_equal(g.north, "greedy");
    record_game_clear(&g);
    free(out);
}

/* Undo takes back the human's move and the agent's replies; end of input stops like quit. */
static void test_undo_and_end_of_input(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(play(&out, "random:seed=4 --as south", "a\nundo\nb\n"), 0);
    expect(out, "you play a");
    expect(out, "North plays");
    expect(out, "undone: back");
    expect(out, "(end of input)");
    record_game g;
    read_record(out, &g);
    assert_true(g.n_moves >= 2);
    assert_int_equal(g.moves[0], 1); /* b: the undone a is gone */
    assert_int_equal(g.result, RECORD_UNFINISHED);
    record_game_clear(&g);
    free(out);
    assert_int_equal(tu_run(&out, 1, "play greedy --as north < /dev/null"), 0);
    expect(out, "South plays c"); /* the agent moves first and keeps its extra turn */
    expect(out, "(end of input)");
    free(out);
}

/* A whole game as North, typing pit numbers 1..6 over and over (many are empty pits: messages, then the
 * next line); the final score line agrees with the record. */
static void test_full_game(void **state)
{
    (void)state;
    char script[8192] = "";
    for (int i = 0; i < 150; i++)
        strcat(script, i % 2 ? "4\n5\n6\n" : "1\n2\n3\n");
    char *out;
    assert_int_equal(play(&out, "greedy --as north --seed 1", script), 0);
    expect(out, "game over: South ");
    record_game g;
    read_record(out, &g);
    assert_int_not_equal(g.result, RECORD_UNFINISHED);
    assert_string_equal(g.north, "human");
    char line[128];
    snprintf(line, sizeof line, "game over: South %d - North %d: %s", g.store_south, g.store_north,
             g.result == RECORD_NORTH_WINS ? "you win" : g.result == RECORD_SOUTH_WINS ? "you lose" : "a draw");
    expect(out, line);
    record_game_clear(&g);
    free(out);
}

static void test_usage_errors(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(tu_run(&out, 1, "play greedy --as east < /dev/null"), 2);
    expect(out, "--as");
    free(out);
    assert_int_equal(tu_run(&out, 1, "play < /dev/null"), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "play greedy --rules kalah:pits=0 < /dev/null"), 2);
    expect(out, "pits");
    free(out);
    assert_int_equal(tu_run(&out, 0, "play --help"), 0);
    expect(out, "undo");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input_gets_messages),
        cmocka_unit_test(test_undo_and_end_of_input),
        cmocka_unit_test(test_full_game),
        cmocka_unit_test(test_usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
