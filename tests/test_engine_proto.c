/* test_engine_proto.c — the engine protocol's pieces (eval/engine_proto.h): KGP lines by the grammar of the
 * specification (spec/012-grammar.md), strings, boards both ways, the line reader's deadline and limits;
 * and forfeit records (eval/record.h, [Termination]) written and read back, wrong ones refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "env/game.h"
#include "eval/engine_proto.h"
#include "eval/record.h"
#include "test_util.h"

static kgp_cmd parse_ok(const char *text, char *buf)
{
    char err[KGP_ERRLEN];
    kgp_cmd c;
    strcpy(buf, text);
    if (kgp_parse(buf, &c, err))
        fail_msg("'%s': %s", text, err);
    return c;
}

static void parse_bad(const char *text, const char *msg)
{
    char buf[512], err[KGP_ERRLEN];
    kgp_cmd c;
    strcpy(buf, text);
    if (!kgp_parse(buf, &c, err))
        fail_msg("'%s' parsed", text);
    if (!strstr(err, msg))
        fail_msg("'%s': expected '%s' in '%s'", text, msg, err);
}

static void test_parse(void **state)
{
    (void)state;
    char buf[512];
    kgp_cmd c = parse_ok("kgp 1 0 0", buf);
    assert_false(c.has_id || c.has_ref);
    assert_string_equal(c.name, "kgp");
    assert_int_equal(c.argc, 3);
    assert_int_equal(c.arg[0].type, KGP_INT);
    assert_int_equal(c.arg[0].ival, 1);
    c = parse_ok("6@4 stop\r", buf);
    assert_true(c.has_id && c.has_ref);
    assert_int_equal(c.id, 6);
    assert_int_equal(c.ref, 4);
    assert_string_equal(c.name, "stop");
    assert_int_equal(c.argc, 0);
    c = parse_ok("@8 move 3", buf);
    assert_false(c.has_id);
    assert_true(c.has_ref);
    assert_int_equal(c.ref, 8);
    c = parse_ok("4 state <3,10,2,1,2,3,4,2,0>", buf); /* the grammar's example board */
    assert_int_equal(c.arg[0].type, KGP_BOARD);
    assert_int_equal(c.arg[0].nvals, 9);
    assert_int_equal(c.arg[0].vals[1], 10);
    assert_int_equal(c.arg[0].vals[8], 0);
    c = parse_ok("1 set info:name \"with \\\"quotes\\\" and \\\\\" -0.5 +3 .25 word-x", buf);
    assert_int_equal(c.argc, 6);
    assert_int_equal(c.arg[0].type, KGP_WORD);
    assert_string_equal(c.arg[0].text, "info:name");
    assert_int_equal(c.arg[1].type, KGP_STRING);
    assert_string_equal(c.arg[1].text, "with \"quotes\" and \\");
    assert_int_equal(c.arg[2].type, KGP_REAL);
    assert_true(c.arg[2].rval == -0.5);
    assert_int_equal(c.arg[3].type, KGP_INT);
    assert_int_equal(c.arg[3].ival, 3);
    assert_int_equal(c.arg[4].type, KGP_REAL);
    assert_int_equal(c.arg[5].type, KGP_WORD);
    c = parse_ok("  ping   \"\"  ", buf);
    assert_int_equal(c.argc, 1);
    assert_string_equal(c.arg[0].text, "");

    parse_bad("", "empty line");
    parse_bad("   ", "empty line");
    parse_bad("hello!!", "letters and digits");
    parse_bad("4state", "not followed by a blank");
    parse_bad("@ move 1", "'@' is not followed");
    parse_bad("1234567890123 move 1", "at most 12 digits");
    parse_bad("move \"open", "not closed");
    parse_bad("move \"a\"b", "not followed by a blank");
    parse_bad("state <3,1,2", "a board is <n,...>");
    parse_bad("state <3,,2>", "not a whole number");
    parse_bad("state <3,1;2>", "expected ','");
    parse_bad("state <1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18>", "more than 17 numbers");
    parse_bad("move 1.", "no argument");
    parse_bad("move a=b", "no argument");
    parse_bad("a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", "more than 16 arguments");
}

static void test_quote(void **state)
{
    (void)state;
    char q[64], buf[128], err[KGP_ERRLEN];
    kgp_quote("a \"b\" \\c\td", q, sizeof q);
    assert_string_equal(q, "\"a \\\"b\\\" \\\\c d\"");
    snprintf(buf, sizeof buf, "error %s", q);
    kgp_cmd c;
    assert_int_equal(kgp_parse(buf, &c, err), 0);
    assert_string_equal(c.arg[0].text, "a \"b\" \\c d");
    kgp_quote("0123456789abcdef", q, 8); /* cut short, still a string */
    assert_string_equal(q, "\"0123\"");
}

/* A Kalah position → the mover's board → the notation → the same position (South and North to move). */
static void test_boards(void **state)
{
    (void)state;
    game *g = tu_game("kalah:pits=6,seeds=4");
    static const char *const pos[] = {"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "0,5,5,5,5,4,0,4,4,4,4,4,4,0 N",
                                      "1,0,3,0,9,2,10,0,7,1,1,0,6,8 N"};
    static const char *const board[] = {"<6,0,0,4,4,4,4,4,4,4,4,4,4,4,4>", "<6,0,0,4,4,4,4,4,4,0,5,5,5,5,4>",
                                        "<6,8,10,0,7,1,1,0,6,1,0,3,0,9,2>"};
    for (int i = 0; i < 3; i++) {
        game_pos p = tu_game_pos(g, pos[i]), q;
        char b[256], line[300], note[GAME_POS_STR], err[KGP_ERRLEN];
        assert_string_equal(kgp_board_format(g, &p, b, sizeof b), board[i]);
        snprintf(line, sizeof line, "state %s", b);
        kgp_cmd c;
        assert_int_equal(kgp_parse(line, &c, err), 0);
        int pits;
        assert_int_equal(kgp_board_check(&c.arg[0], &pits, err), 0);
        assert_int_equal(pits, 6);
        q = tu_game_pos(g, kgp_board_notation(&c.arg[0], note, sizeof note));
        /* the board is the mover's view: the same cells with the mover as South */
        for (int k = 0; k < 6; k++) {
            assert_int_equal(q.cell[k], p.cell[p.to_move ? 7 + k : k]);
            assert_int_equal(q.cell[7 + k], p.cell[p.to_move ? k : 7 + k]);
        }
        assert_int_equal(q.cell[6], p.cell[p.to_move ? 13 : 6]);
        assert_int_equal(q.to_move, 0);
    }
    game_free(g);
    char line[128], err[KGP_ERRLEN];
    kgp_cmd c;
    int pits;
    static const char *const bad[][2] = {{"state <0,0,0>", "board of 0 pits"},
                                         {"state <8,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1>", "board of 8 pits"},
                                         {"state <3,0,0,1,1,1>", "has 9 numbers"},
                                         {"state <1,200,50,3,3>", "at most 255 fit"},
                                         {"state word", "not a board"}};
    for (int i = 0; i < 5; i++) {
        snprintf(line, sizeof line, "%s", bad[i][0]);
        if (kgp_parse(line, &c, err) == 0 && kgp_board_check(&c.arg[0], &pits, err) == 0)
            fail_msg("'%s' accepted", bad[i][0]);
        if (!strstr(err, bad[i][1]))
            fail_msg("'%s': expected '%s' in '%s'", bad[i][0], bad[i][1], err);
    }
}

/* Lines through a pipe: CRLF and LF, the deadline, an overlong line skipped, the last line without its
 * newline, then the end. */
static void test_reader(void **state)
{
    (void)state;
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    kgp_reader rd;
    kgp_reader_init(&rd, fd[0]);
    char line[KGP_LINE_MAX + 1];
    long long t0 = kgp_now_ms();
    assert_int_equal(kgp_read_line(&rd, line, 50), 0);
    assert_true(kgp_now_ms() - t0 >= 45);
    assert_int_equal(kgp_send(fd[1], "4 state %s", "<1,0,0,1,1>"), 0);
    assert_int_equal(write(fd[1], "two\nthree", 9), 9);
    assert_int_equal(kgp_read_line(&rd, line, 1000), 1);
    assert_string_equal(line, "4 state <1,0,0,1,1>");
    assert_true(kgp_line_ready(&rd));
    assert_int_equal(kgp_read_line(&rd, line, 1000), 1);
    assert_string_equal(line, "two");
    assert_int_equal(kgp_read_line(&rd, line, 20), 0); /* "three" waits for its newline */
    char big[3 * KGP_LINE_MAX];
    memset(big, 'x', sizeof big);
    assert_int_equal(write(fd[1], "\n", 1), 1);
    assert_int_equal(kgp_read_line(&rd, line, 1000), 1);
    assert_string_equal(line, "three");
    assert_int_equal(write(fd[1], big, sizeof big), (ssize_t)sizeof big);
    assert_int_equal(write(fd[1], "\nafter\nlast", 11), 11);
    close(fd[1]);
    assert_int_equal(kgp_read_line(&rd, line, 1000), -2);
    assert_int_equal(kgp_read_line(&rd, line, 1000), 1);
    assert_string_equal(line, "after");
    assert_int_equal(kgp_read_line(&rd, line, 1000), 1);
    assert_string_equal(line, "last");
    assert_int_equal(kgp_read_line(&rd, line, 1000), -1);
    close(fd[0]);
    assert_int_equal(pipe(fd), 0);
    kgp_reader_init(&rd, fd[0]);
    assert_int_equal(write(fd[1], "a\0b\n", 4), 4);
    assert_int_equal(kgp_read_line(&rd, line, 1000), -2); /* a NUL byte inside a line */
    close(fd[0]);
    assert_int_equal(kgp_send(fd[1], "x"), -1); /* the reader is gone: an error, not SIGPIPE's death */
    close(fd[1]);
}

static const char forfeit_record[] =
    "[Event \"sowzero match\"]\n"
    "[South \"greedy\"]\n"
    "[North \"engine:cmd=x\"]\n"
    "[Rules \"kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0\"]\n"
    "[Result \"1-0\"]\n"
    "[Termination \"forfeit by North: engine 'x' forfeits: sent no move within ms=5 ms\"]\n"
    "\n"
    "c d 1-0\n";

static void test_forfeit_records(void **state)
{
    (void)state;
    record_game g;
    char err[RECORD_ERRLEN];
    assert_int_equal(record_read_text(forfeit_record, "f.pgn", &g, err), RECORD_OK);
    assert_int_equal(g.forfeit, 2);
    assert_int_equal(g.result, RECORD_SOUTH_WINS);
    assert_int_equal(g.places[0], 1);
    assert_int_equal(g.places[1], 2);
    assert_false(g.gfinal.over);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(record_write(f, &g, err), RECORD_OK);
    fclose(f);
    assert_non_null(strstr(text, "[Termination \"forfeit by North: engine 'x' forfeits: sent no move within ms=5 "
                                 "ms\"]\n"));
    record_game_clear(&g);
    assert_int_equal(record_read_text(text, "again.pgn", &g, err), RECORD_OK);
    assert_int_equal(g.forfeit, 2);
    record_game_clear(&g);
    free(text);

    /* wrong ones: the forfeit's loser won, a seat the game has not, a forfeit after the game ended */
    char bad[2048];
    snprintf(bad, sizeof bad, "%s", forfeit_record);
    memcpy(strstr(bad, "[Result \"1-0\"]"), "[Result \"0-1\"]", 14);
    memcpy(strstr(bad, "c d 1-0"), "c d 0-1", 7);
    assert_int_equal(record_read_text(bad, "b.pgn", &g, err), RECORD_EINVAL);
    assert_non_null(strstr(err, "[Result \"0-1\"] but replaying"));
    record_game_clear(&g);
    snprintf(bad, sizeof bad, "%s", forfeit_record);
    memcpy(strstr(bad, "by North"), "by Seat7", 8);
    assert_int_equal(record_read_text(bad, "b.pgn", &g, err), RECORD_EINVAL);
    assert_non_null(strstr(err, "names no seat"));
    record_game_clear(&g);
    /* Oware, three players' básico: the same tag with the game's seats */
    static const char basico[] = "[Event \"e\"]\n[Seat0 \"a\"]\n[Seat1 \"b\"]\n[Seat2 \"engine:cmd=x\"]\n"
                                 "[Rules \"basico:players=3\"]\n[Result \"1-1-3\"]\n"
                                 "[Termination \"forfeit by Seat2: gone\"]\n\na 1-1-3\n";
    assert_int_equal(record_read_text(basico, "b3.pgn", &g, err), RECORD_OK);
    assert_int_equal(g.forfeit, 3);
    assert_int_equal(g.result, RECORD_RANKED);
    record_game_clear(&g);
    /* another [Termination] text is kept and changes nothing */
    static const char other[] = "[South \"a\"]\n[North \"b\"]\n[Result \"*\"]\n[Termination \"adjourned\"]\n\nc *\n";
    assert_int_equal(record_read_text(other, "o.pgn", &g, err), RECORD_OK);
    assert_int_equal(g.forfeit, 0);
    assert_int_equal(g.result, RECORD_UNFINISHED);
    assert_string_equal(g.termination, "adjourned");
    record_game_clear(&g);
}

/* A forfeit whose moves end the game is refused (one-pit Kalah ends at its first move). */
static void test_forfeit_after_end(void **state)
{
    (void)state;
    static const char rec[] = "[South \"a\"]\n[North \"b\"]\n[Rules \"kalah:pits=1,seeds=1\"]\n[Result \"0-1\"]\n"
                              "[Termination \"forfeit by South: late\"]\n\na 0-1\n";
    record_game g;
    char err[RECORD_ERRLEN];
    assert_int_equal(record_read_text(rec, "end.pgn", &g, err), RECORD_EINVAL);
    assert_non_null(strstr(err, "but the moves end the game"));
    record_game_clear(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),          cmocka_unit_test(test_quote),
        cmocka_unit_test(test_boards),         cmocka_unit_test(test_reader),
        cmocka_unit_test(test_forfeit_records), cmocka_unit_test(test_forfeit_after_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
