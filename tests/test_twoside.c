/* test_twoside.c — the two-row games through the game interface (env/game.h; env/twoside.h is now only the
 * row helpers their rules share): game_perft and game_legal of Congklak and Oware against every line of
 * the team's congklak-perft.txt, oware-perft.txt and families-legal.txt (tests/vectors/), every depth
 * (test_game_conformance stops at 7), and game_perft on Kalah against Kalah's own perft (an independent
 * recursion over the SIMD sowing) and perft.txt. */
#include "tests/test_util.h"

#include "env/game.h"
#include "env/kalah.h"

/* The game and position of one vector line. */
static game *setup(const char *spec, const char *text, game_pos *p)
{
    char err[GAME_ERRLEN];
    game *g = game_create(spec, err);
    if (!g)
        fail_msg("%s: %s", spec, err);
    if (game_pos_parse(g, text, p, err) != GAME_OK)
        fail_msg("%s under %s: %s", text, spec, err);
    return g;
}

/* Every line of both perft files; the deepest counts take about a second under ASan. */
static void test_perft_vectors(void **state)
{
    (void)state;
    static const struct { const char *file; int lines; } files[] = {{"congklak-perft.txt", 112}, {"oware-perft.txt", 122}};
    for (int i = 0; i < 2; i++) {
        FILE *f = tu_open_vector(files[i].file);
        char line[512];
        int count = 0;
        while (tu_next_line(f, line, sizeof line)) {
            char *fl[4];
            assert_int_equal(tu_split(line, fl, 4), 4);
            game_pos p;
            game *g = setup(fl[0], fl[1], &p);
            int depth = atoi(fl[2]);
            uint64_t nodes[64];
            game_perft(g, &p, depth, nodes);
            game_free(g);
            if (nodes[depth - 1] != strtoull(fl[3], NULL, 10))
                fail_msg("perft %d of '%s' under %s: got %llu, want %s", depth, fl[1], fl[0],
                         (unsigned long long)nodes[depth - 1], fl[3]);
            count++;
        }
        fclose(f);
        assert_int_equal(count, files[i].lines);
    }
}

static void test_legal_vectors(void **state)
{
    (void)state;
    FILE *f = tu_open_vector("families-legal.txt");
    char line[512];
    int count[2] = {0, 0};
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[3];
        assert_int_equal(tu_split(line, fl, 3), 3);
        game_pos p;
        game *g = setup(fl[0], fl[1], &p);
        int oware = !strcmp(game_name(g), "oware");
        unsigned legal = game_legal(g, &p);
        char got[64] = "";
        for (int k = 0; k < game_moves(g); k++)
            if (legal & (1u << k)) {
                size_t o = strlen(got);
                snprintf(got + o, sizeof got - o, "%s%c", o ? " " : "", kalah_move_letter(p.to_move, k));
            }
        if (!legal)
            strcpy(got, "-");
        if (strcmp(got, fl[2]))
            fail_msg("legal moves of '%s' under %s: got '%s', want '%s'", fl[1], fl[0], got, fl[2]);
        assert_int_equal(!legal, p.over); /* no legal move exactly when the parser found the game over */
        game_free(g);
        count[oware]++;
    }
    fclose(f);
    assert_int_equal(count[0], 6);
    assert_int_equal(count[1], 18);
}

static void test_kalah_perft(void **state)
{
    (void)state;
    FILE *f = tu_open_vector("perft.txt");
    char line[512], err[KALAH_ERRLEN];
    int count = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[4];
        assert_int_equal(tu_split(line, fl, 4), 4);
        kalah_rules r;
        kalah_pos p;
        if (kalah_rules_parse(fl[0], &r, err) != KALAH_OK || kalah_pos_parse(fl[1], &r, &p, NULL, err) != KALAH_OK)
            fail_msg("%s | %s: %s", fl[0], fl[1], err);
        int depth = atoi(fl[2]);
        if (depth > 8)
            continue; /* the deep counts are test_kalah's */
        uint64_t a[16], b[16];
        game_pos gp;
        game *g = setup(fl[0], fl[1], &gp);
        game_perft(g, &gp, depth, a);
        game_free(g);
        kalah_perft(&r, &p, depth, b);
        assert_memory_equal(a, b, (size_t)depth * sizeof a[0]);
        assert_int_equal(a[depth - 1], strtoull(fl[3], NULL, 10));
        count++;
    }
    fclose(f);
    assert_true(count >= 10);
    /* Depth 0 and a finished position count nothing. */
    game *g = game_create("kalah", err);
    assert_non_null(g);
    game_pos p;
    uint64_t n[2] = {7, 7};
    game_start(g, &p);
    game_perft(g, &p, 0, n);
    assert_int_equal(n[0], 7);
    p.over = 1;
    game_perft(g, &p, 2, n);
    assert_int_equal(n[0] + n[1], 0);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perft_vectors),
        cmocka_unit_test(test_legal_vectors),
        cmocka_unit_test(test_kalah_perft),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
