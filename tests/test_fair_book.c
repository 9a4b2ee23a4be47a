/* test_fair_book.c — fair-openings books (`solve --fair-book K --within W`, cli/solve_book.h) and the shipped
 * data/kalah-6-4-fair.book. Books written for Kalah(4,3) and Kalah(5,2) (by Kalah's alpha-beta) and for
 * small Congklak and Oware boards (by the generic solver) are checked line by line against a construction
 * of their own: the positions of 1..K sowings enumerated here through the game interface, each solved by
 * the game interface's own exact solver (gs_solve_generic, which shares no code with the alpha-beta solver
 * that wrote the Kalah books) — the book holds exactly those within ±W, at their first shortest move list,
 * with their values. The shipped Kalah(6,4) book (whose positions take tens of seconds
 * each to solve, too long for a test) is checked for everything but its values: it reads as a book, its
 * header names the command, its lines are exactly the enumeration's positions that it says are within
 * the band, each at its first shortest path, its values within the band. */
#include "tests/test_util.h"

#include <unistd.h>
#include "eval/book.h"
#include "eval/game_search.h"

#define MAX_NODES 4096

typedef struct {
    game_pos p;
    int path[8], n;
} enode;

static int same_pos(const game *g, const game_pos *a, const game_pos *b)
{
    return a->to_move == b->to_move && !memcmp(a->cell, b->cell, (size_t)(2 * game_moves(g) + 2));
}

/* Every distinct unfinished position of 1..k sowings from the start, level by level, each at its first
 * path (parents in order, then the slot). Returns the count. */
static int enumerate(const game *g, int k, enode *out)
{
    int n = 0, lo = 0, hi = 0;
    enode root;
    memset(&root, 0, sizeof root);
    game_start(g, &root.p);
    for (int depth = 1; depth <= k; depth++) {
        int parents = depth == 1 ? 1 : hi - lo;
        for (int i = 0; i < parents; i++) {
            enode par = depth == 1 ? root : out[lo + i];
            unsigned legal = game_legal(g, &par.p);
            for (int m = 0; m < game_moves(g); m++) {
                if (!(legal >> m & 1))
                    continue;
                enode c = par;
                game_apply(g, &c.p, m, NULL);
                c.path[c.n++] = m;
                if (c.p.over)
                    continue;
                int dup = same_pos(g, &c.p, &root.p);
                for (int j = 0; j < n && !dup; j++)
                    dup = same_pos(g, &out[j].p, &c.p);
                if (!dup) {
                    assert_true(n < MAX_NODES);
                    out[n++] = c;
                }
            }
        }
        lo = hi;
        hi = n;
    }
    return n;
}

/* The value after '#' on each opening line of path, in order (at most max). */
static int comment_values(const char *path, int *values, int max)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        const char *h = strchr(line, '#');
        assert_non_null(h);
        assert_true(n < max);
        assert_int_equal(sscanf(h + 1, "%d", &values[n]), 1);
        n++;
    }
    fclose(f);
    return n;
}

/* The book at path against the enumeration of 1..k sowings for g. solve: the book holds exactly the
 * positions whose value by gs_solve is within ±w, with those values. Else (values unknown): its entries are
 * positions of the enumeration, in its order, and their values within ±w. Each entry is its position's
 * first shortest path. Returns the enumeration's count and *kept the book's. */
static int check_book(const game *g, const char *path, int k, int w, int solve, int *kept)
{
    static enode nodes[MAX_NODES];
    static int values[MAX_NODES];
    int n = enumerate(g, k, nodes);
    opening_book *b;
    char err[BOOK_ERRLEN];
    if (book_read(g, path, &b, err) != BOOK_OK)
        fail_msg("%s", err);
    assert_int_equal(comment_values(path, values, MAX_NODES), b->n);
    int at = 0;
    for (int i = 0; i < n; i++) {
        game_pos p;
        int v = 0, in_book = at < b->n;
        if (in_book) {
            book_entry_position(g, &b->entry[at], &p);
            in_book = same_pos(g, &p, &nodes[i].p);
        }
        if (solve) {
            gs_solution sol;
            char serr[GAME_ERRLEN];
            if (gs_solve_generic(g, &nodes[i].p, 0, NULL, &sol, serr) != GAME_OK)
                fail_msg("%s", serr);
            v = nodes[i].p.to_move == 0 ? sol.value : -sol.value;
            if ((v >= -w && v <= w) != in_book)
                fail_msg("%s: position %d of the enumeration (value %+d) is %s the book", path, i + 1, v,
                         in_book ? "wrongly in" : "missing from");
        }
        if (!in_book)
            continue;
        const book_entry *e = &b->entry[at];
        assert_int_equal(e->at_start, 1);
        assert_int_equal(e->n_moves, nodes[i].n);
        for (int m = 0; m < nodes[i].n; m++)
            assert_int_equal(e->moves[m], nodes[i].path[m]);
        if (solve)
            assert_int_equal(values[at], v);
        assert_true(values[at] >= -w && values[at] <= w);
        at++;
    }
    if (at != b->n)
        fail_msg("%s: line %d is not a position of 1..%d sowings in the enumeration's order", path, b->entry[at].line, k);
    *kept = b->n;
    book_free(b);
    return n;
}

static void test_generated_books_are_exact(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int k, w;
    } cases[] = {{"kalah:pits=4,seeds=3", 3, 1},     {"kalah:pits=5,seeds=2", 3, 2},
                 {"kalah:pits=4,seeds=3", 2, 0},     {"congklak:pits=4,seeds=3", 2, 1},
                 {"oware:pits=4,seeds=2,max_sows=30", 2, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *out = tu_tmp_path("fair.book");
        unlink(out);
        char *text;
        assert_int_equal(tu_run(&text, 1, "solve --rules %s --fair-book %d --within %d --out '%s' --threads 1 "
                                          "--endgame 0 --no-progress", cases[i].rules, cases[i].k, cases[i].w, out), 0);
        free(text);
        game *g = tu_game(cases[i].rules);
        int kept, n = check_book(g, out, cases[i].k, cases[i].w, 1, &kept);
        print_message("%s, 1..%d sowings: %d of %d positions within +-%d\n", cases[i].rules, cases[i].k, kept, n,
                      cases[i].w);
        assert_true(kept > 0 && kept < n);
        /* the book plays: each opening with both colours */
        assert_int_equal(tu_run(&text, 1, "match greedy random --rules %s --book '%s' --threads 1", cases[i].rules,
                                out), 0);
        free(text);
        game_free(g);
    }
    char *text;
    assert_int_equal(tu_run(&text, 1, "solve --fair-book 2"), 2);
    assert_non_null(strstr(text, "--out"));
    free(text);
    assert_int_equal(tu_run(&text, 1, "solve --within 2 --out x.book"), 2);
    free(text);
    assert_int_equal(tu_run(&text, 1, "solve --fair-book 6 --out x.book"), 2);
    free(text);
    /* a game the exact solver cannot solve (three players, no margin) */
    assert_int_equal(tu_run(&text, 1, "solve --rules basico --fair-book 2 --out '%s'", tu_tmp_path("o.book")), 2);
    assert_non_null(strstr(text, "two-player"));
    free(text);
}

static void test_shipped_book(void **state)
{
    (void)state;
    const char *path = SOWZERO_SOURCE_DIR "/data/kalah-6-4-fair.book";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    int k = 0, w = -1, kept_said = -1, of_said = -1;
    while (fgets(line, sizeof line, f) && line[0] == '#') {
        const char *g = strstr(line, "Generated by: sowzero solve ");
        if (g) {
            const char *a = strstr(g, "--fair-book "), *b = strstr(g, "--within ");
            assert_non_null(a);
            assert_non_null(b);
            k = atoi(a + 12);
            w = atoi(b + 9);
            assert_non_null(strstr(g, "--out data/kalah-6-4-fair.book"));
        }
        const char *s = strstr(line, "seeds: ");
        if (s)
            assert_int_equal(sscanf(s, "seeds: %d of the %d", &kept_said, &of_said), 2);
    }
    fclose(f);
    assert_true(k >= 1 && k <= 3);
    assert_int_equal(w, 2);
    game *g = tu_game("kalah");
    int kept, n = check_book(g, path, k, w, 0, &kept);
    assert_int_equal(n, of_said);
    assert_int_equal(kept, kept_said);
    print_message("%s: 1..%d sowings, %d of %d positions within +-%d\n", path, k, kept, n, w);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_books_are_exact),
        cmocka_unit_test(test_shipped_book),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
