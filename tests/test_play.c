/* test_play.c — `sowzero play` driven by scripted input through a shell redirect: bad input gets messages
 * (never a crash), undo/hint/quit in any case, end of input, and the game record printed at the end reads
 * back; the board is drawn from the human's seat after every agent move; Ctrl-C still prints and saves the
 * record. */
#include "tests/test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

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
    expect(out, "you play c - another turn");
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
    assert_int_equal(tu_run(&out, 1, "play --rules kalah:pits=4 < /dev/null"), 2);
    expect(out, "only Kalah(6,4) without --rules has a default agent");
    free(out);
    assert_int_equal(tu_run(&out, 1, "play greedy --rules kalah:pits=0 < /dev/null"), 2);
    expect(out, "pits");
    free(out);
    assert_int_equal(tu_run(&out, 0, "play --help"), 0);
    expect(out, "undo");
    free(out);
}

/* Without an agent, play is against the shipped net, found from the repository root as a user runs it. */
static void test_shipped_net_by_default(void **state)
{
    (void)state;
    char cmd[4600], buf[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' play < /dev/null 2>&1", SOWZERO_SOURCE_DIR, SOWZERO_BIN);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t len = fread(buf, 1, sizeof buf - 1, p);
    buf[len] = 0;
    int st = pclose(p);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    expect(buf, "against az:net=nets/kalah-6-4.h5");
    expect(buf, "from the net's search record");
}

/* Playing North: the board has North's row (A..) at the bottom and South's on top, and is drawn after each
 * sowing of the agent's extra-turn opening (c, then f), not only when it is the human's turn. Commands are
 * case-insensitive. */
static void test_seat_and_agent_turns(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(play(&out, "greedy --as north", "UNDO\nHint\nQuit\n"), 0);
    const char *top = strstr(out, "South: greedy"), *bottom = strstr(out, "North: you");
    assert_non_null(top);
    assert_non_null(bottom);
    assert_true(top < bottom);
    expect(out, "  A    B    C    D    E    F      North: you");
    expect(out, "  f    e    d    c    b    a      South: greedy");
    expect(out, "South plays c - another turn\n\n");
    expect(out, "South to move (agent)"); /* the board between the agent's two sowings */
    expect(out, "nothing to undo");
    expect(out, "hint: greedy would play");
    expect(out, "game stopped");
    assert_null(strstr(out, "(end of input)")); /* Quit was the command */
    free(out);
}

/* Ctrl-C at the prompt stops the game like quit: the score, the record on stdout and in --pgn. */
static void test_ctrl_c_keeps_the_record(void **state)
{
    (void)state;
    char pgn[512];
    snprintf(pgn, sizeof pgn, "%s/play_sigint.pgn", SOWZERO_TMP);
    remove(pgn);
    int in[2], outp[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(outp), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(in[0], 0), dup2(outp[1], 1), dup2(outp[1], 2);
        close(in[0]), close(in[1]), close(outp[0]), close(outp[1]);
        execl(SOWZERO_BIN, SOWZERO_BIN, "play", "greedy", "--as", "north", "--pgn", pgn, (char *)NULL);
        _exit(127);
    }
    close(in[0]), close(outp[1]);
    char buf[65536];
    size_t len = 0;
    ssize_t r;
    buf[0] = 0;
    /* Wait for the prompt (the handler is installed before it), keeping stdin open so play waits. */
    while (!strstr(buf, "your move> ") && (r = read(outp[0], buf + len, sizeof buf - 1 - len)) > 0)
        buf[len += (size_t)r] = 0;
    assert_non_null(strstr(buf, "your move> "));
    assert_int_equal(kill(pid, SIGINT), 0);
    while ((r = read(outp[0], buf + len, sizeof buf - 1 - len)) > 0)
        buf[len += (size_t)r] = 0;
    close(outp[0]), close(in[1]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("play did not exit normally after Ctrl-C:\n%s", buf);
    expect(buf, "(interrupted)");
    expect(buf, "game stopped: South 2 - North 0 (unfinished)");
    record_game g;
    read_record(buf, &g);
    assert_int_equal(g.n_moves, 2);
    record_game_clear(&g);
    FILE *f = fopen(pgn, "r");
    assert_non_null(f);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input_gets_messages),
        cmocka_unit_test(test_undo_and_end_of_input),
        cmocka_unit_test(test_full_game),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_shipped_net_by_default),
        cmocka_unit_test(test_seat_and_agent_turns),
        cmocka_unit_test(test_ctrl_c_keeps_the_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
