/* test_match_book.c — opening books (eval/book.h) and `match` / `tournament --book FILE`: the format's
 * positions, move lists and comments; every bad line refused with FILE:LINE; each opening played with both
 * colours in file order, wrapping round; --book with --openings refused; --sprt walking the book. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <unistd.h>
#include <cjson/cJSON.h>
#include "eval/book.h"
#include "eval/game_match.h"
#include "eval/record.h"

static const char good_book[] = "# a test book\n"
                                "c f A          # moves from the start\n"
                                "\n"
                                "   4,4,0,5,5,5,1,4,4,4,4,4,4,0 S   \n"
                                "b\n"
                                "  # an indented comment\n"
                                "a B c D\n";

static void test_read_good(void **state)
{
    (void)state;
    game *g = tu_game("kalah");
    const char *path = tu_tmp_path("good.book");
    tu_write_text(path, good_book);
    opening_book *b;
    char err[BOOK_ERRLEN];
    if (book_read(g, path, &b, err) != BOOK_OK)
        fail_msg("%s", err);
    assert_int_equal(b->n, 4);
    assert_int_equal(b->entry[0].line, 2);
    assert_int_equal(b->entry[0].at_start, 1);
    assert_int_equal(b->entry[0].n_moves, 3);
    assert_int_equal(b->entry[0].moves[0], 2); /* c */
    assert_int_equal(b->entry[0].moves[1], 5); /* f: c was an extra turn */
    assert_int_equal(b->entry[0].moves[2], 0); /* A */
    assert_int_equal(b->entry[1].line, 4);
    assert_int_equal(b->entry[1].at_start, 0);
    assert_int_equal(b->entry[1].n_moves, 0);
    game_pos want = tu_game_pos(g, "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S"), got;
    book_entry_position(g, &b->entry[1], &got);
    assert_memory_equal(got.cell, want.cell, sizeof got.cell);
    assert_int_equal(got.to_move, 0);
    /* "c f A" from the start, through the game itself */
    game_pos p;
    game_start(g, &p);
    game_apply(g, &p, 2, NULL);
    game_apply(g, &p, 5, NULL);
    game_apply(g, &p, 0, NULL);
    book_entry_position(g, &b->entry[0], &got);
    assert_memory_equal(got.cell, p.cell, sizeof p.cell);
    assert_int_equal(got.to_move, p.to_move);
    assert_int_equal(b->entry[3].n_moves, 4);
    assert_int_equal(b->entry[3].line, 7);
    book_free(b);
    game_free(g);
}

/* Each bad line: the error names the file and the line, and what is wrong. */
static void test_read_bad(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"c\nc z\n", ":2: move 2 'z'"},
        {"a\n\na A A\n", ":3: move 3 'A'"}, /* after a and A South is to move */
        {"c c\n", ":1: move 2 'c'"},           /* c is empty after c (an extra turn) */
        {"4,4,4,4,4,4,0,4,4,4,4,4,4 S\n", ":1: position '4,4,4,4,4,4,0,4,4,4,4,4,4 S'"},
        {"0,0,0,0,0,0,24,4,4,4,4,4,4,0 S\n", ":1: position"},                            /* South has no move */
        {"# nothing\n\n   \n", ": no openings"},
        {"abc\n", ":1: move 1 'abc'"},
    };
    game *g = tu_game("kalah");
    const char *path = tu_tmp_path("bad.book");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tu_write_text(path, cases[i].text);
        opening_book *b = (opening_book *)1;
        char err[BOOK_ERRLEN] = "";
        assert_int_equal(book_read(g, path, &b, err), BOOK_EINVAL);
        assert_null(b);
        if (!strstr(err, cases[i].want) || strncmp(err, path, strlen(path)))
            fail_msg("case %zu: '%s' does not name %s%s", i, err, path, cases[i].want);
    }
    /* a line of moves that ends the game: Kalah(1,1) ends at its first sowing */
    game *tiny = tu_game("kalah:pits=1,seeds=1");
    tu_write_text(path, "a\n");
    opening_book *b;
    char err[BOOK_ERRLEN];
    assert_int_equal(book_read(tiny, path, &b, err), BOOK_EINVAL);
    assert_non_null(strstr(err, ":1: the moves end the game"));
    game_free(tiny);
    assert_int_equal(book_read(g, tu_tmp_path("no-such.book"), &b, err), BOOK_EIO);
    assert_non_null(strstr(err, "cannot open"));
    game_free(g);
}

/* Reads every record of path into recs (at most max); returns their count. */
static int read_records(const char *path, record_game *recs, int max)
{
    record_game *all;
    int n;
    char err[RECORD_ERRLEN];
    if (record_read_file(path, &all, &n, err) != RECORD_OK)
        fail_msg("%s", err);
    assert_true(n <= max);
    memcpy(recs, all, (size_t)n * sizeof *recs);
    free(all); /* the records' strings now belong to recs */
    return n;
}

/* The position a record's game reached when its opening ended. */
static game_pos opening_end(const record_game *r)
{
    game_pos p = r->gstart;
    for (int i = 0; i < r->opening; i++)
        game_apply(r->game, &p, r->moves[i], NULL);
    return p;
}

/* `match --book`: the book once through by default (2 games an opening), game 2i and 2i+1 from entry i with
 * the colours swapped, the moves of a move list as the record's opening, a position as its [Start]. */
static void test_match_plays_each_opening_with_both_colours(void **state)
{
    (void)state;
    const char *book = tu_tmp_path("match.book"), *pgn = tu_tmp_path("match-book.pgn");
    tu_write_text(book, good_book);
    unlink(pgn);
    char *out;
    assert_int_equal(tu_run(&out, 0, "match greedy ab:depth=2 --book '%s' --threads 2 --pgn '%s' --json", book, pgn), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "games")->valueint, 8);
    assert_int_equal(cJSON_GetObjectItem(j, "book_openings")->valueint, 4);
    assert_string_equal(cJSON_GetObjectItem(j, "book")->valuestring, book);
    cJSON_Delete(j);
    free(out);
    game *g = tu_game("kalah");
    opening_book *b;
    char err[BOOK_ERRLEN];
    assert_int_equal(book_read(g, book, &b, err), BOOK_OK);
    record_game rec[10];
    assert_int_equal(read_records(pgn, rec, 10), 8);
    for (int i = 0; i < 8; i++) {
        const record_game *r = NULL;
        for (int k = 0; k < 8; k++)
            if (rec[k].round == i + 1)
                r = &rec[k];
        assert_non_null(r);
        const book_entry *e = &b->entry[i / 2];
        game_pos want, got = opening_end(r);
        book_entry_position(g, e, &want);
        assert_memory_equal(got.cell, want.cell, sizeof got.cell);
        assert_int_equal(got.to_move, want.to_move);
        assert_int_equal(r->opening, e->n_moves);
        assert_memory_equal(r->gstart.cell, e->start.cell, sizeof e->start.cell);
        /* A (greedy) is South in the pair's first game, North in its second */
        assert_string_equal(r->south, i % 2 ? "ab:depth=2" : "greedy");
    }
    for (int k = 0; k < 8; k++)
        record_game_clear(&rec[k]);
    /* --games beyond the book wraps round: games 9 and 10 replay entry 0 */
    unlink(pgn);
    assert_int_equal(tu_run(NULL, 0, "match greedy random --book '%s' --games 10 --threads 1 --pgn '%s'", book, pgn), 0);
    assert_int_equal(read_records(pgn, rec, 10), 10);
    game_pos a = opening_end(&rec[8]), first = opening_end(&rec[0]);
    assert_int_equal(rec[8].round, 9);
    assert_memory_equal(a.cell, first.cell, sizeof a.cell);
    for (int k = 0; k < 10; k++)
        record_game_clear(&rec[k]);
    book_free(b);
    game_free(g);
}

/* Bad uses exit 2 with a message naming the problem; nothing is played. */
static void test_match_book_errors(void **state)
{
    (void)state;
    const char *book = tu_tmp_path("err.book"), *good = tu_tmp_path("ok.book");
    tu_write_text(book, "c\n\nc f Q\n");
    tu_write_text(good, "c\n");
    char *out;
    assert_int_equal(tu_run(&out, 1, "match greedy random --book '%s'", book), 2);
    char want[600];
    snprintf(want, sizeof want, "--book %s:3: move 3 'Q'", book);
    if (!strstr(out, want))
        fail_msg("'%s' does not say '%s'", out, want);
    free(out);
    assert_int_equal(tu_run(&out, 1, "match greedy random --book '%s' --openings 2", good), 2);
    assert_non_null(strstr(out, "--book and --openings"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "tournament --agent greedy --agent random --openings 0 --book '%s'", good), 2);
    assert_non_null(strstr(out, "--book and --openings"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "tournament --agent greedy --agent random --book '%s'", book), 2);
    assert_non_null(strstr(out, ":3: move 3 'Q'"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "match greedy random --book ''"), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "match greedy random --book '%s' --rules kalah:pits=4,seeds=3",
                            tu_tmp_path("ok.book")), 0); /* "c" is a move of Kalah(4,3) too */
    free(out);
    tu_write_text(book, "f\n");
    assert_int_equal(tu_run(&out, 1, "match greedy random --book '%s' --rules kalah:pits=4,seeds=3", book), 2);
    assert_non_null(strstr(out, ":1: move 1 'f'"));
    free(out);
    /* the book is an input: never an output of the same command, and left as it was */
    static const char *const outputs[] = {"match greedy random --games 2 --book '%s' --pgn '%s'",
                                          "match greedy random --book '%s' --sprt elo0=0,elo1=10 --pgn '%s'",
                                          "tournament --agent greedy --agent random --games 2 --book '%s' --csv '%s'",
                                          "tournament --agent greedy --agent random --games 2 --book '%s' --pgn '%s'"};
    for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, outputs[i], good, good);
        assert_int_equal(tu_run(&out, 1, "%s", cmd), 2);
        if (!strstr(out, "is the --book file itself"))
            fail_msg("%s: %s", cmd, out);
        free(out);
        char *left = tu_read_text(good);
        assert_string_equal(left, "c\n");
        free(left);
    }
}

/* tournament --book: every pair plays the same openings, each with both colours. */
static void test_tournament_book(void **state)
{
    (void)state;
    const char *book = tu_tmp_path("tour.book"), *pgn = tu_tmp_path("tour-book.pgn");
    tu_write_text(book, "c f A\nd\n");
    unlink(pgn);
    char *out;
    assert_int_equal(tu_run(&out, 0, "tournament --agent g=greedy --agent r=random --agent a=ab:depth=2 --book '%s' "
                                     "--threads 2 --pgn '%s'", book, pgn), 0);
    free(out);
    record_game rec[12];
    assert_int_equal(read_records(pgn, rec, 12), 12); /* 3 pairs x 2 openings x 2 colours */
    int from_c = 0, from_d = 0;
    for (int k = 0; k < 12; k++) {
        assert_true(rec[k].opening == 3 || rec[k].opening == 1);
        if (rec[k].opening == 3) {
            from_c++;
            assert_true(rec[k].moves[0] == 2 && rec[k].moves[1] == 5 && rec[k].moves[2] == 0);
            assert_true(rec[k].round == 1 || rec[k].round == 2);
        } else {
            from_d++;
            assert_int_equal(rec[k].moves[0], 3);
            assert_true(rec[k].round == 3 || rec[k].round == 4);
        }
        record_game_clear(&rec[k]);
    }
    assert_int_equal(from_c, 6);
    assert_int_equal(from_d, 6);
}

/* --sprt with a book walks it in order, batch after batch: pair i of the whole test plays entry i mod n. */
static void test_sprt_walks_the_book(void **state)
{
    (void)state;
    const char *book = tu_tmp_path("sprt.book"), *pgn = tu_tmp_path("sprt-book.pgn");
    tu_write_text(book, "a\nb\nc\nd\ne\n");
    unlink(pgn);
    char *out;
    assert_int_equal(tu_run(&out, 0, "match random random:seed=3 --book '%s' --sprt elo0=0,elo1=5 --games 40 "
                                     "--threads 1 --pgn '%s' --json", book, pgn), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    int games = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "sprt"), "games")->valueint;
    assert_int_equal(games, 40);
    cJSON_Delete(j);
    free(out);
    record_game rec[40];
    assert_int_equal(read_records(pgn, rec, 40), 40);
    /* batches of 16 games: every record's round restarts at 1 in each, so the opening is the batch's
     * offset (its first pair's number) + its pair, mod 5 */
    for (int k = 0; k < 40; k++) {
        int pair = k / 2; /* one thread: the records come in game order */
        assert_int_equal(rec[k].opening, 1);
        assert_int_equal(rec[k].moves[0], pair % 5);
        record_game_clear(&rec[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_good),
        cmocka_unit_test(test_read_bad),
        cmocka_unit_test(test_match_plays_each_opening_with_both_colours),
        cmocka_unit_test(test_match_book_errors),
        cmocka_unit_test(test_tournament_book),
        cmocka_unit_test(test_sprt_walks_the_book),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
