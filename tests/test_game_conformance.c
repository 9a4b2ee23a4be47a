/* test_game_conformance.c — the game interface's contract (env/game.h), checked for EVERY registered game
 * on every rules spec its kind lists as examples: rules-spec round trip, position and move notation round
 * trips, seed conservation, the legal-move mask agreeing with apply, illegal moves refused with an error
 * and the position unchanged, events consistent with the positions, determinism (replaying a game's moves
 * gives the same positions byte for byte), random playouts ending, values of finished games; then the
 * team's rule vectors (moves, perft, legal sets) of every registered game read through the interface.
 * A new game passes this file without any edit here. */
#include "test_util.h"

#include <math.h>

#include "env/game.h"

#define PLAYOUTS 60
#define MAX_PLIES 20000

static uint64_t rng_next(uint64_t *s) /* splitmix64 (Steele et al. 2014): the test's own generator */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int random_slot(unsigned legal, uint64_t *s)
{
    int n = __builtin_popcount(legal), pick = (int)(rng_next(s) % (uint64_t)n);
    while (pick--)
        legal &= legal - 1;
    return __builtin_ctz(legal);
}

#define make tu_game

static void test_registry(void **state)
{
    (void)state;
    assert_true(game_kind_count() >= 2);
    assert_non_null(game_kind_find("kalah"));
    assert_non_null(game_kind_find("basico:players=4"));
    assert_null(game_kind_find("kala"));
    assert_null(game_kind_find("kalahx"));
    assert_null(game_kind_at(game_kind_count()));
    char err[GAME_ERRLEN] = "";
    assert_null(game_create("chess:pits=6", err));
    assert_non_null(strstr(err, "unknown game 'chess'"));
    assert_non_null(strstr(err, "kalah"));
    for (int i = 0; i < game_kind_count(); i++) {
        const game_kind *k = game_kind_at(i);
        assert_ptr_equal(game_kind_find(k->name), k);
        assert_non_null(k->examples);
        assert_non_null(k->examples[0]);
        assert_true(k->rules_size <= GAME_RULES_MAX);
        /* Every rules key appears in the canonical spec. */
        assert_non_null(k->rule_keys);
        game *g = game_create(k->name, err);
        assert_non_null(g);
        for (const char *const *key = k->rule_keys; *key; key++) {
            char pat[64];
            snprintf(pat, sizeof pat, "%s=", *key);
            assert_non_null(strstr(game_spec(g), pat));
        }
        game_free(g);
        /* The default first: the bare name. */
        assert_string_equal(k->examples[0], k->name);
        err[0] = 0;
        char bad[64];
        snprintf(bad, sizeof bad, "%s:nosuchkey=1", k->name);
        assert_null(game_create(bad, err));
        assert_true(strlen(err) > 0);
    }
}

/* Everything the contract says about one position and every slot's move from it. */
static void check_position(const game *g, const game_pos *p)
{
    const int players = game_players(g), moves = game_moves(g);
    char err[GAME_ERRLEN], s[GAME_POS_STR], s2[GAME_POS_STR];
    assert_true(p->to_move < players);
    assert_int_equal(game_board_seeds(g, p) <= game_seeds(g), 1);

    /* Position notation: format → parse → the same string, the same legal set, the same state. */
    game_pos back;
    game_pos_format(g, p, s, sizeof s);
    err[0] = 0;
    if (game_pos_parse(g, s, &back, err) != GAME_OK)
        fail_msg("%s: position '%s' does not parse back: %s", game_spec(g), s, err);
    assert_string_equal(game_pos_format(g, &back, s2, sizeof s2), s);
    assert_int_equal(game_legal(g, &back), game_legal(g, p));
    assert_int_equal(back.to_move, p->to_move);
    assert_int_equal(back.over, p->over);
    assert_memory_equal(back.cell, p->cell, sizeof p->cell);
    assert_memory_equal(back.extra, p->extra, sizeof p->extra);

    unsigned legal = game_legal(g, p);
    assert_int_equal(legal >> moves, 0);
    assert_int_equal(legal == 0, p->over != 0); /* a position that is not over has a move */
    if (p->over) {
        double v[GAME_MAX_PLAYERS];
        game_values(g, p, v);
        double sum = 0;
        for (int i = 0; i < players; i++) {
            assert_true(v[i] >= -1.0 && v[i] <= 1.0);
            sum += v[i];
        }
        if (players == 2)
            assert_true(fabs(sum) < 1e-12);
        if (game_has_margin(g)) {
            int m = game_margin(g, p);
            assert_true(v[0] == (double)((m > 0) - (m < 0)));
        }
        int s0, s1; /* the scores, where the game keeps them, make the margin */
        if (game_has_margin(g) && game_score(g, p, 0, &s0) && game_score(g, p, 1, &s1))
            assert_int_equal(s0 - s1, game_margin(g, p));
    } else {
        float enc[256];
        assert_true(game_encode_dim(g) > 0 && game_encode_dim(g) <= 256);
        game_encode(g, p, enc);
        for (int i = 0; i < game_encode_dim(g); i++)
            assert_true(isfinite(enc[i]));
        double v[GAME_MAX_PLAYERS];
        game_estimate(g, p, v);
        for (int i = 0; i < players; i++)
            assert_true(v[i] >= -1.0 && v[i] <= 1.0);
        unsigned gr = game_greedy(g, p);
        assert_true(gr != 0 && (gr & ~legal) == 0);
    }

    /* Every slot, and slots out of range: apply agrees with the mask, refusals leave p unchanged. */
    for (int k = -1; k <= moves; k++) {
        game_pos q = *p;
        game_step ev;
        int rc = game_apply(g, &q, k, &ev);
        int is_legal = k >= 0 && k < moves && (legal >> k & 1u);
        if (!is_legal) {
            assert_true(rc == (p->over ? GAME_EOVER : GAME_EILLEGAL));
            assert_memory_equal(&q, p, sizeof q);
            continue;
        }
        assert_int_equal(rc, GAME_OK);
        assert_int_equal(q.ply, p->ply + 1);
        assert_int_equal(ev.over, q.over);
        if (ev.extra_turn) {
            assert_false(q.over);
            assert_int_equal(q.to_move, p->to_move);
        }
        assert_true(ev.last < GAME_MAX_CELLS);
        /* Seeds are conserved unless the mover left the game taking its seeds out (básico). */
        if (ev.finished)
            assert_true(game_board_seeds(g, &q) <= game_board_seeds(g, p));
        else
            assert_int_equal(game_board_seeds(g, &q), game_board_seeds(g, p));
        /* Move notation round trip. */
        char mv[8];
        game_move_format(g, p, k, mv, sizeof mv);
        err[0] = 0;
        assert_int_equal(game_move_parse(g, p, mv, err), k);
        /* Determinism: the same move from the same position gives the same bytes. */
        game_pos q2 = *p;
        game_step ev2;
        assert_int_equal(game_apply(g, &q2, k, &ev2), GAME_OK);
        assert_memory_equal(&q2, &q, sizeof q);
        assert_memory_equal(&ev2, &ev, sizeof ev);
        /* The batched stepper is the same function. */
        game_pos qb = *p;
        game_step evb;
        game_apply_batch(g, &qb, &k, 1, &evb);
        assert_memory_equal(&qb, &q, sizeof q);
        assert_memory_equal(&evb, &ev, sizeof ev);
    }
    /* Move text that is no move is refused with a message. */
    static const char *junk[] = {"", "?", "zz", "1x", "aa"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        err[0] = 0;
        assert_true(game_move_parse(g, p, junk[i], err) < 0);
        assert_true(strlen(err) > 0);
    }
}

/* Random playouts from the start: every position checked; each game ends; replaying the moves gives the
 * same positions. */
static void play_spec(const char *spec)
{
    game *g = make(spec);
    char err[GAME_ERRLEN];
    /* The canonical spec is complete: it parses to itself. */
    game *g2 = make(game_spec(g));
    assert_string_equal(game_spec(g2), game_spec(g));
    game_free(g2);
    assert_true(game_players(g) >= 2 && game_players(g) <= GAME_MAX_PLAYERS);
    assert_true(game_moves(g) >= 1 && game_moves(g) <= GAME_MAX_MOVES);
    assert_true(game_value_dim(g) == 1 || game_value_dim(g) == game_players(g));
    assert_non_null(game_encoding_name(g));

    game_pos start;
    game_start(g, &start);
    assert_int_equal(start.ply, 0);
    assert_int_equal(game_board_seeds(g, &start), game_seeds(g));

    /* Broken position strings are refused with a message. */
    static const char *bad_pos[] = {"", "garbage", "1,2,3 S", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 X"};
    for (size_t i = 0; i < sizeof bad_pos / sizeof bad_pos[0]; i++) {
        game_pos tmp;
        err[0] = 0;
        assert_int_equal(game_pos_parse(g, bad_pos[i], &tmp, err), GAME_EINVAL);
        assert_true(strlen(err) > 0);
    }

    static int moves[MAX_PLIES];
    uint64_t seed = 0x5eed0000u + (uint64_t)strlen(spec);
    for (int n = 0; n < PLAYOUTS; n++) {
        game_pos p = start;
        int plies = 0, fixed[GAME_MAX_PLAYERS] = {0};
        double fixed_v[GAME_MAX_PLAYERS] = {0};
        while (!p.over) {
            if (plies >= MAX_PLIES)
                fail_msg("%s: a random playout did not end in %d plies", spec, MAX_PLIES);
            check_position(g, &p);
            /* A value the game calls fixed before the end stays fixed and is the final one. */
            for (int q = 0; q < game_players(g); q++) {
                double v;
                int now = game_decided(g, &p, q, &v);
                if (fixed[q]) {
                    assert_true(now);
                    assert_true(v == fixed_v[q]);
                }
                fixed[q] |= now;
                fixed_v[q] = now ? v : fixed_v[q];
            }
            moves[plies] = random_slot(game_legal(g, &p), &seed);
            assert_int_equal(game_apply(g, &p, moves[plies], NULL), GAME_OK);
            plies++;
        }
        check_position(g, &p);
        double final[GAME_MAX_PLAYERS];
        game_values(g, &p, final);
        for (int q = 0; q < game_players(g); q++)
            if (fixed[q])
                assert_true(final[q] == fixed_v[q]);
        game_pos r = start;
        for (int i = 0; i < plies; i++)
            assert_int_equal(game_apply(g, &r, moves[i], NULL), GAME_OK);
        assert_memory_equal(&r, &p, sizeof r);
    }
    /* perft through the interface agrees with the leaf count of a plain recursion over apply. */
    uint64_t nodes[3];
    game_perft(g, &start, 3, nodes);
    uint64_t d1 = (uint64_t)__builtin_popcount(game_legal(g, &start));
    assert_true(nodes[0] == d1);
    game_free(g);
}

static void test_every_game_plays(void **state)
{
    (void)state;
    for (int i = 0; i < game_kind_count(); i++)
        for (const char *const *s = game_kind_at(i)->examples; *s; s++)
            play_spec(*s);
}

/* Batched random playouts (game_playouts_create) of every example spec: the kind's own stepper or game.c's
 * scalar one counts every sowing, finishes games whose ends add up, and is reproducible from its seed;
 * the Gymnasium modes are refused by a stepper that lacks them, with a reason. */
static void playouts_spec(const char *spec)
{
    game *g = make(spec);
    const int B = 2 * game_playouts_batch_multiple(g), np = game_players(g);
    const long steps = 400;
    char err[GAME_ERRLEN];
    game_playout_stats st[2];
    for (int run = 0; run < 2; run++) {
        game_playouts *p = game_playouts_create(g, B, "auto", GAME_PLAYOUT_RANDOM, 7, err);
        if (!p)
            fail_msg("%s: %s", spec, err);
        game_playouts_run(p, steps / 2);
        game_playouts_run(p, steps / 2);
        game_playouts_stats(p, &st[run]);
        game_playouts_free(p);
    }
    assert_memory_equal(&st[0], &st[1], sizeof st[0]);
    assert_true(st[0].sows == (uint64_t)B * (uint64_t)steps);
    assert_true(st[0].games > 0);
    uint64_t ends = st[0].shared;
    for (int q = 0; q < np; q++)
        ends += st[0].first[q];
    for (int q = np; q < GAME_MAX_PLAYERS; q++)
        assert_true(st[0].first[q] == 0);
    assert_true(ends == st[0].games);
    if (game_playouts_batch_multiple(g) > 1)
        assert_null(game_playouts_create(g, B + 1, "auto", GAME_PLAYOUT_RANDOM, 7, err));
    assert_null(game_playouts_create(g, 0, "auto", GAME_PLAYOUT_RANDOM, 7, err));
    assert_null(game_playouts_create(g, B, "sse9", GAME_PLAYOUT_RANDOM, 7, err));
    assert_true(strlen(err) > 0);
    game_playouts *gym = game_playouts_create(g, B, "auto", GAME_PLAYOUT_GYM_NOOBS, 7, err);
    if (gym) { /* the kind's batched Gymnasium step: a board whose game ended restarts at the next step,
                * which sows nothing on it */
        game_playouts_run(gym, 10);
        game_playout_stats gs;
        game_playouts_stats(gym, &gs);
        assert_true(gs.sows > 0 && gs.sows <= (uint64_t)B * 10 && gs.games <= gs.sows);
        game_playouts_free(gym);
    } else {
        assert_non_null(strstr(err, "Gymnasium"));
    }
    game_free(g);
}

static void test_every_game_playouts(void **state)
{
    (void)state;
    for (int i = 0; i < game_kind_count(); i++)
        for (const char *const *s = game_kind_at(i)->examples; *s; s++)
            playouts_spec(*s);
}

static void test_resign(void **state)
{
    (void)state;
    for (int i = 0; i < game_kind_count(); i++) {
        const game_kind *k = game_kind_at(i);
        game *g = make(k->examples[0]);
        game_pos p;
        game_start(g, &p);
        int rc = game_resign(g, &p);
        if (!k->resign) {
            assert_int_equal(rc, GAME_EINVAL);
        } else {
            /* A resignation is no ply and ends a two-player game; with more it passes the turn on. */
            assert_int_equal(rc, GAME_OK);
            assert_int_equal(p.ply, 0);
            if (game_players(g) == 2)
                assert_true(p.over);
            else
                assert_int_not_equal(p.to_move, 0);
            check_position(g, &p);
        }
        game_free(g);
    }
}

/* ---- the team's vectors, for every registered game they cover ---- */

static void winner_of(const game *g, const game_pos *p, char *out)
{
    double v[GAME_MAX_PLAYERS];
    game_values(g, p, v);
    strcpy(out, !p->over ? "-" : v[0] > 0 ? "S" : v[0] < 0 ? "N" : "draw");
}

/* rules | before | move | after | extra_turn | captured [| relays] | over | winner */
static int check_move_file(const char *name)
{
    FILE *f = tu_open_vector(name);
    char line[1024], err[GAME_ERRLEN];
    int checked = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[10];
        int n = tu_split(line, fl, 10);
        assert_true(n == 8 || n == 9);
        if (!game_kind_find(fl[0]))
            continue; /* a game not registered (yet) */
        game *g = make(fl[0]);
        game_pos p, want;
        err[0] = 0;
        if (game_pos_parse(g, fl[1], &p, err) != GAME_OK)
            fail_msg("%s: '%s': %s", name, fl[1], err);
        int k = game_move_parse(g, &p, fl[2], err);
        assert_true(k >= 0);
        game_step ev;
        assert_int_equal(game_apply(g, &p, k, &ev), GAME_OK);
        assert_int_equal(game_pos_parse(g, fl[3], &want, err), GAME_OK);
        char got[GAME_POS_STR], w[8];
        assert_string_equal(game_pos_format(g, &p, got, sizeof got), fl[3]);
        assert_int_equal(ev.extra_turn, atoi(fl[4]));
        assert_int_equal(ev.captured, atoi(fl[5]));
        if (n == 9)
            assert_int_equal(ev.relays, atoi(fl[6]));
        assert_int_equal(ev.over, atoi(fl[n - 2]));
        winner_of(g, &p, w);
        assert_string_equal(w, fl[n - 1]);
        game_free(g);
        checked++;
    }
    fclose(f);
    return checked;
}

/* rules | position | depth | nodes */
static int check_perft_file(const char *name)
{
    FILE *f = tu_open_vector(name);
    char line[1024], err[GAME_ERRLEN];
    int checked = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[4];
        assert_int_equal(tu_split(line, fl, 4), 4);
        if (!game_kind_find(fl[0]))
            continue;
        int depth = atoi(fl[2]);
        if (depth > 7)
            continue; /* the deep counts belong to each game's own fast tests */
        game *g = make(fl[0]);
        game_pos p;
        assert_int_equal(game_pos_parse(g, fl[1], &p, err), GAME_OK);
        uint64_t nodes[16];
        game_perft(g, &p, depth, nodes);
        assert_int_equal(nodes[depth - 1], strtoull(fl[3], NULL, 10));
        game_free(g);
        checked++;
    }
    fclose(f);
    return checked;
}

/* rules | position | legal moves ('-' none) */
static int check_legal_file(const char *name)
{
    FILE *f = tu_open_vector(name);
    char line[1024], err[GAME_ERRLEN];
    int checked = 0;
    while (tu_next_line(f, line, sizeof line)) {
        char *fl[3];
        assert_int_equal(tu_split(line, fl, 3), 3);
        if (!game_kind_find(fl[0]))
            continue;
        game *g = make(fl[0]);
        game_pos p;
        assert_int_equal(game_pos_parse(g, fl[1], &p, err), GAME_OK);
        char want[64] = "";
        unsigned legal = game_legal(g, &p);
        for (int k = 0; k < game_moves(g); k++)
            if (legal >> k & 1u) {
                char mv[8];
                if (want[0])
                    strcat(want, " ");
                strcat(want, game_move_format(g, &p, k, mv, sizeof mv));
            }
        assert_string_equal(legal ? want : "-", fl[2]);
        game_free(g);
        checked++;
    }
    fclose(f);
    return checked;
}

static void test_vectors(void **state)
{
    (void)state;
    /* Kalah is always registered: its vectors must be read, not skipped. */
    assert_true(check_move_file("moves.txt") > 20);
    assert_true(check_perft_file("perft.txt") > 10);
    int other = check_move_file("congklak-moves.txt") + check_move_file("oware-moves.txt") +
                check_perft_file("congklak-perft.txt") + check_perft_file("oware-perft.txt") +
                check_legal_file("families-legal.txt");
    if (game_kind_find("congklak") || game_kind_find("oware"))
        assert_true(other > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_every_game_plays),
        cmocka_unit_test(test_every_game_playouts),
        cmocka_unit_test(test_resign),
        cmocka_unit_test(test_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
