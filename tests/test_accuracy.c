/* test_accuracy.c — solved position sets of Kalah (eval/gposset.h, the reader of every game's sets) and
 * accuracy against perfect play: the reader's checks (every error names the file and line), the figures on a hand-checked set, the solver agent (optimal on the
 * fixture, uniform among optimal moves, exact per-move values), determinism across thread counts, and the
 * accuracy / move commands' exit codes. The fixture tests/data/kalah-4-3.positions.jsonl was written by
 * tests/data/make_positions.py with `sowzero solve` per child. The accuracy runs use worker threads: */
// ctest-labels: threads
#include <math.h>

#include <cjson/cJSON.h>

#include "env/game.h"
#include "env/kalah.h"
#include "eval/accuracy.h"
#include "eval/agent.h"
#include "eval/game_agent.h"
#include "eval/gposset.h"
#include "nn/h5io.h"
#include "nn/net.h"
#include "tests/test_util.h"

#define FIXTURE SOWZERO_SOURCE_DIR "/tests/data/kalah-4-3.positions.jsonl"
#define R43 "kalah:pits=4,seeds=3,capture=opposite,end=either-empty,max_sows=0"
#define HEADER "{\"format\":\"sowzero-positions\",\"format_version\":1,\"rules\":\"" R43 "\",\"count\":%d}\n"

/* Four hand-made positions of Kalah(4,3) (the margins are invented: the reader checks consistency, not
 * the game's truth), one per line, and the phase each falls in (24 seeds: >16 opening, >8 middle). */
static const char *const hand[4] = {
    /* 24 seeds in the pits (opening); best b */
    "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,\"source\":\"hand\","
    "\"value\":6,\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2}}",
    /* North to move, two best moves (opening) */
    "{\"position\":\"3,3,3,3,0,3,3,3,3,0 N\",\"to_move\":\"N\",\"seeds_in_pits\":24,\"ply\":1,"
    "\"value\":1,\"best\":[\"A\",\"B\"],\"moves\":{\"A\":1,\"B\":1,\"C\":-3,\"D\":0}}",
    /* 4 seeds left (endgame), one legal move */
    "{\"position\":\"1,0,0,0,10,1,0,0,2,10 S\",\"to_move\":\"S\",\"seeds_in_pits\":4,\"ply\":30,"
    "\"value\":-2,\"best\":[\"a\"],\"moves\":{\"a\":-2}}",
    /* 16 seeds left (middle game), best b and d */
    "{\"position\":\"2,2,2,2,4,2,2,2,2,4 S\",\"to_move\":\"S\",\"seeds_in_pits\":16,\"ply\":12,"
    "\"value\":4,\"best\":[\"b\",\"d\"],\"moves\":{\"a\":0,\"b\":4,\"c\":-4,\"d\":4}}",
};

static const char *tmp_file(const char *name)
{
    static char bufs[4][1024];
    static int slot;
    char *p = bufs[slot++ % 4];
    snprintf(p, 1024, "%s/%s", SOWZERO_TMP, name);
    return p;
}

/* Writes the header (count) and the given lines; returns the path. */
static const char *write_set(const char *name, int count, const char *const *lines, int n)
{
    const char *path = tmp_file(name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, HEADER, count);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s\n", lines[i]);
    fclose(f);
    return path;
}

/* A loaded set and the game its header named. */
typedef struct {
    gps_set *s;
    game *g;
} loaded;

static loaded load_ok(const char *path)
{
    loaded l;
    char err[GPS_LOAD_ERRLEN];
    if (gps_load(path, &l.s, &l.g, err) != PS_OK)
        fail_msg("%s", err);
    return l;
}

static void loaded_free(loaded *l)
{
    gps_free(l->s);
    game_free(l->g);
}

static int phase_of(const char *rules, int seeds)
{
    game *g = game_create(rules, NULL);
    assert_non_null(g);
    int ph = gps_phase(g, seeds);
    game_free(g);
    return ph;
}

static void test_reader_reads_the_hand_set(void **state)
{
    (void)state;
    loaded l = load_ok(write_set("acc_hand.jsonl", 4, hand, 4));
    assert_int_equal(gps_count(l.s), 4);
    assert_string_equal(game_spec(l.g), R43);
    assert_int_equal(game_moves(l.g), 4);
    const gps_entry *e = gps_get_const(l.s, 1);
    assert_int_equal(e->pos.to_move, 1); /* North */
    assert_int_equal(e->value, 1);
    assert_int_equal(e->best_mask, 3u);
    assert_int_equal(e->values[2], -3);
    assert_int_equal(e->line, 3);
    e = gps_get_const(l.s, 2);
    assert_int_equal(e->values[0], -2);
    assert_int_equal(e->values[1], GPS_NO_VALUE);
    assert_int_equal(e->seeds_in_pits, 4);
    assert_int_equal(e->pos.ply, 30);
    assert_int_equal(gps_phase(l.g, 24), 0);
    assert_int_equal(gps_phase(l.g, 17), 0);
    assert_int_equal(gps_phase(l.g, 16), 1);
    assert_int_equal(gps_phase(l.g, 9), 1);
    assert_int_equal(gps_phase(l.g, 8), 2);
    assert_int_equal(gps_phase(l.g, 0), 2);
    /* Kalah(6,4)'s phases: 48-33, 32-17, 16-0 */
    assert_int_equal(phase_of("kalah", 33), 0);
    assert_int_equal(phase_of("kalah", 32), 1);
    assert_int_equal(phase_of("kalah", 17), 1);
    assert_int_equal(phase_of("kalah", 16), 2);
    loaded_free(&l);
    /* the fixture reads too */
    l = load_ok(FIXTURE);
    assert_int_equal(gps_count(l.s), 40);
    loaded_free(&l);
}

/* A valid position line of the 4-pit, 3-seed set (136 bytes). */
#define GOOD                                                                                                 \
    "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,\"value\":6,"          \
    "\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2}}"

/* Every broken set is refused with "PATH:LINE: ..." naming what is wrong. */
static void test_reader_errors(void **state)
{
    (void)state;
    static const struct {
        const char *header; /* NULL: the good header with count 1 */
        const char *line;   /* the position line (NULL: none) */
        int err_line;       /* 0: the message names the path without a line */
        const char *words;
    } cases[] = {
        {"{\"hello\":1}\n", NULL, 1, "not a position set"},
        {"garbage\n", NULL, 1, "not a position set"},
        {"{\"format\":\"sowzero-positions\",\"format_version\":2,\"rules\":\"" R43 "\",\"count\":0}\n", NULL, 1,
         "format_version 2"},
        {"{\"format\":\"sowzero-positions\",\"format_version\":1,\"rules\":\"kalah:pits=9\",\"count\":0}\n", NULL, 1,
         "rules"},
        {"{\"format\":\"sowzero-positions\",\"format_version\":1,\"rules\":\"kalah:pits=4,seeds=3,max_sows=50\","
         "\"count\":1}\n", GOOD, 2, "no \"sows_left\""}, /* a ply limit: each line says the sowings left */
        {"{\"format\":\"sowzero-positions\",\"format_version\":1,\"rules\":\"" R43 "\"}\n", NULL, 1, "count"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",", 2, "not a JSON object"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,"
               "\"value\":6,\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"e\":-2}}", 2,
         "moves: 'e' is not a legal move (legal: a b c d)"},
        {NULL, "{\"position\":\"1,0,0,0,10,1,0,0,2,10 S\",\"to_move\":\"S\",\"seeds_in_pits\":4,\"ply\":0,"
               "\"value\":-2,\"best\":[\"a\"],\"moves\":{\"a\":-2,\"b\":0}}", 2, "'b' is not a legal move"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,"
               "\"value\":6,\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2}}", 2, "gives 3 of the 4 legal moves"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,"
               "\"value\":5,\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2}}", 2,
         "value 5 but the best of moves is 6"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,"
               "\"value\":6,\"best\":[\"b\",\"c\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2}}", 2,
         "best does not list exactly the moves reaching value 6 (moves say: b)"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"N\",\"seeds_in_pits\":24,\"ply\":0,"
               "\"value\":6,\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2}}", 2, "to_move \"N\""},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":20,\"ply\":0,"
               "\"value\":6,\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2}}", 2, "seeds_in_pits 20"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,"
               "\"value\":30,\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":30,\"c\":2,\"d\":-2}}", 2,
         "'b' is not a whole margin in -24..24"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,"
               "\"value\":6,\"best\":[\"b\"],\"moves\":{\"a\":6}}", 2, "position \"3,3,3,3,0,3,3,3 S\""},
        {NULL, "{\"position\":\"0,0,0,0,12,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":12,\"ply\":0,"
               "\"value\":0,\"best\":[],\"moves\":{}}", 2, "is finished"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,"
               "\"value\":6,\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2}}", 2, "no \"ply\""},
        /* strict JSON lines: nothing after the object, UTF-8 only, each key once */
        {NULL, GOOD "xyz", 2, "text after the JSON object (at byte 137)"},
        {NULL, GOOD " }", 2, "text after the JSON object"},
        {NULL, GOOD "{}", 2, "text after the JSON object"},
        {"{\"format\":\"sowzero-positions\",\"format_version\":1,\"rules\":\"" R43 "\",\"count\":1} 1\n", NULL, 1,
         "text after the JSON object"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"source\":\"x\xff\",\"to_move\":\"S\"}", 2,
         "invalid UTF-8 at byte 48"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"source\":\"\xc0\xaf\"}", 2, "invalid UTF-8"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"source\":\"\xed\xa0\x80\"}", 2, "invalid UTF-8"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"source\":\"\xe2\x82\"}", 2, "invalid UTF-8"},
        {NULL, "{\"ply\":0,\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,"
               "\"value\":6,\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2}}", 2,
         "key \"ply\" appears twice in one object"},
        {NULL, "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,"
               "\"value\":6,\"best\":[\"b\"],\"moves\":{\"a\":-6,\"b\":6,\"c\":2,\"d\":-2,\"b\":-6}}", 2,
         "key \"b\" appears twice"},
        {"{\"format\":\"sowzero-positions\",\"format_version\":1,\"rules\":\"" R43 "\",\"count\":1,\"count\":2}\n",
         NULL, 1, "key \"count\" appears twice"},
    };
    char err[GPS_LOAD_ERRLEN], want[1200];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = tmp_file("acc_bad.jsonl");
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        if (cases[i].header)
            fputs(cases[i].header, f);
        else
            fprintf(f, HEADER, 1);
        if (cases[i].line)
            fprintf(f, "%s\n", cases[i].line);
        fclose(f);
        gps_set *s = (gps_set *)1;
        game *g = (game *)1;
        int rc = gps_load(path, &s, &g, err);
        if (rc != PS_EINVAL)
            fail_msg("case %zu: code %d (%s)", i, rc, rc ? err : "accepted");
        assert_null(s);
        assert_null(g);
        snprintf(want, sizeof want, "%s:%d: ", path, cases[i].err_line);
        if (strncmp(err, want, strlen(want)) || !strstr(err, cases[i].words))
            fail_msg("case %zu: got '%s', want '%s...%s...'", i, err, want, cases[i].words);
    }
    /* the count must match, blank lines only at the end, a missing file is an I/O error */
    gps_set *s;
    game *g;
    const char *path = write_set("acc_count.jsonl", 5, hand, 4);
    assert_int_equal(gps_load(path, &s, &g, err), PS_EINVAL);
    assert_non_null(strstr(err, "the header says 5 positions, the file has 4"));
    path = write_set("acc_count.jsonl", 3, hand, 4);
    assert_int_equal(gps_load(path, &s, &g, err), PS_EINVAL);
    snprintf(want, sizeof want, "%s:5: more positions than the header's count 3", path);
    assert_string_equal(err, want);
    const char *gap[3] = {hand[0], "", hand[1]};
    path = write_set("acc_gap.jsonl", 2, gap, 3);
    assert_int_equal(gps_load(path, &s, &g, err), PS_EINVAL);
    snprintf(want, sizeof want, "%s:3: a blank line inside the set", path);
    assert_string_equal(err, want);
    const char *good[1] = {GOOD " \t"};
    loaded l = load_ok(write_set("acc_good.jsonl", 1, good, 1));
    assert_int_equal(gps_count(l.s), 1);
    loaded_free(&l);
    path = tmp_file("acc_nul.jsonl");
    FILE *nf = fopen(path, "w");
    assert_non_null(nf);
    fprintf(nf, HEADER, 1);
    fwrite(GOOD "\0x\n", 1, sizeof GOOD + 2, nf);
    fclose(nf);
    assert_int_equal(gps_load(path, &s, &g, err), PS_EINVAL);
    snprintf(want, sizeof want, "%s:2: a NUL byte at byte 137", path);
    assert_non_null(strstr(err, want));
    const char *tail[3] = {hand[0], hand[1], ""};
    l = load_ok(write_set("acc_tail.jsonl", 2, tail, 3));
    loaded_free(&l);
    assert_int_equal(gps_load(tmp_file("acc_no_such.jsonl"), &s, &g, err), PS_EIO);
    assert_non_null(strstr(err, "acc_no_such.jsonl: cannot open"));
    assert_null(s);
}

/* The figures on the hand set, recomputed here from their definitions. */
static void wilson(double k, double n, double *lo, double *hi)
{
    const double z = 1.959963984540054, p = k / n;
    double c = p + z * z / (2 * n), h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)), d = 1 + z * z / n;
    *lo = (c - h) / d;
    *hi = (c + h) / d;
}

static void test_tally_hand_checked(void **state)
{
    (void)state;
    loaded l = load_ok(write_set("acc_hand.jsonl", 4, hand, 4));
    /* slots: a at the start (regret 6 - (-6) = 12), B (0), a (0), c (4 - (-4) = 8) */
    const int moves[4] = {0, 1, 0, 2};
    accuracy_result res;
    char err[ACCURACY_ERRLEN];
    assert_int_equal(accuracy_tally(l.s, moves, &res, err), ACCURACY_OK);
    assert_int_equal(res.n, 4);
    assert_int_equal(res.regret[0], 12);
    assert_int_equal(res.regret[1], 0);
    assert_int_equal(res.regret[3], 8);
    const accuracy_stats *a = &res.all;
    assert_int_equal(a->positions, 4);
    assert_int_equal(a->optimal, 2);
    assert_int_equal(a->blunders, 2);
    assert_float_equal(a->optimal_rate, 0.5, 1e-12);
    assert_float_equal(a->blunder_rate, 0.5, 1e-12);
    double lo, hi;
    wilson(2, 4, &lo, &hi);
    assert_float_equal(a->optimal_lo, lo, 1e-12);
    assert_float_equal(a->optimal_hi, hi, 1e-12);
    assert_float_equal(a->blunder_lo, lo, 1e-12);
    /* regrets 12, 0, 0, 8: mean 5, sample s.d. sqrt(108/3) = 6, half-width 1.96 * 6 / 2 */
    assert_float_equal(a->mean_regret, 5.0, 1e-12);
    assert_float_equal(a->regret_hi, 5.0 + 1.959963984540054 * 3, 1e-9);
    assert_float_equal(a->regret_lo, 0.0, 0); /* 5 - 5.88 clipped at 0 */
    /* phases: opening = positions 0 and 1, middle = 3, endgame = 2 */
    assert_int_equal(res.phase[0].positions, 2);
    assert_int_equal(res.phase[0].optimal, 1);
    assert_float_equal(res.phase[0].mean_regret, 6.0, 1e-12);
    assert_int_equal(res.phase[1].positions, 1);
    assert_int_equal(res.phase[1].optimal, 0);
    assert_int_equal(res.phase[1].blunders, 1);
    assert_float_equal(res.phase[1].regret_lo, 8.0, 0);
    assert_float_equal(res.phase[1].regret_hi, 8.0, 0);
    assert_int_equal(res.phase[2].positions, 1);
    assert_float_equal(res.phase[2].optimal_rate, 1.0, 0);
    accuracy_result_free(&res);
    /* a move that is not legal at its position */
    const int bad[4] = {0, 1, 3, 2};
    assert_int_equal(accuracy_tally(l.s, bad, &res, err), ACCURACY_EINVAL);
    assert_non_null(strstr(err, "line 4"));
    loaded_free(&l);
}

/* The solver agent plays an optimal move at every fixture position, with or without the endgame database,
 * draws among several optimal moves, and reports the exact value of every move (the fixture's margins). */
static void test_solver_agent(void **state)
{
    (void)state;
    loaded l = load_ok(FIXTURE);
    const char *specs[] = {"solver:endgame=0", "solver:endgame=10,tt_mb=16"};
    accuracy_config cfg = {.threads = 2, .seed = 5};
    char err[ACCURACY_ERRLEN];
    for (int i = 0; i < 2; i++) {
        accuracy_result res;
        if (accuracy_run(l.s, specs[i], &cfg, &res, err) != ACCURACY_OK)
            fail_msg("%s", err);
        assert_int_equal(res.all.optimal, 40);
        assert_float_equal(res.all.mean_regret, 0, 0);
        accuracy_result_free(&res);
    }
    char aerr[AGENT_ERRLEN];
    game_agent *ga = game_agent_create("solver:endgame=0", l.g, aerr);
    assert_non_null(ga);
    assert_string_equal(game_agent_kind(ga), "solver");
    game_agent_set_detail(ga, 1); /* the solver's per-move statistics */
    int multi = 0;
    for (int i = 0; i < (int)gps_count(l.s); i++) {
        const gps_entry *e = gps_get_const(l.s, (size_t)i);
        int mv;
        assert_int_equal(game_agent_choose(ga, &e->pos, &mv), AGENT_OK);
        game_agent_stats in;
        game_agent_last_stats(ga, &in);
        assert_true(in.have_values && in.have_pv && in.exact);
        assert_int_equal((int)in.value, e->value);
        for (int k = 0; k < 4; k++)
            assert_int_equal(in.values[k], e->values[k] == GPS_NO_VALUE ? GAME_AGENT_NO_VALUE : e->values[k]);
        if (__builtin_popcount(e->best_mask) < 2)
            continue;
        /* several optimal moves: over game seeds, every one of them is played, and nothing else */
        unsigned seen = 0;
        for (uint64_t g = 0; g < 64; g++) {
            game_agent_new_game(ga, &e->pos, g);
            assert_int_equal(game_agent_choose(ga, &e->pos, &mv), AGENT_OK);
            seen |= 1u << mv;
        }
        assert_int_equal(seen, e->best_mask);
        multi++;
    }
    assert_true(multi >= 3);
    game_agent_free(ga);
    assert_null(game_agent_create("solver:depth=3", l.g, aerr));
    assert_non_null(strstr(aerr, "unknown key 'depth' for solver (keys: tt_mb, endgame, seed)"));
    game *lim = game_create("kalah:pits=4,seeds=3,max_sows=40", aerr);
    assert_non_null(lim);
    assert_null(game_agent_create("solver:endgame=4", lim, aerr));
    assert_non_null(strstr(aerr, "max_sows"));
    game_free(lim);
    loaded_free(&l);
}

/* The same moves whatever the thread count (each position reseeds its agent from (seed, index)); another
 * seed changes what a random agent plays. */
static void test_threads_do_not_change_moves(void **state)
{
    (void)state;
    loaded l = load_ok(FIXTURE);
    const char *specs[] = {"random", "mcts:sims=40", "greedy", "ab:depth=3,seed=7"};
    char err[ACCURACY_ERRLEN];
    for (int i = 0; i < 4; i++) {
        accuracy_result one, three;
        accuracy_config c1 = {.threads = 1, .seed = 11}, c3 = {.threads = 3, .seed = 11};
        if (accuracy_run(l.s, specs[i], &c1, &one, err) || accuracy_run(l.s, specs[i], &c3, &three, err))
            fail_msg("%s: %s", specs[i], err);
        assert_memory_equal(one.move, three.move, 40 * sizeof(int));
        assert_int_equal(one.all.optimal, three.all.optimal);
        if (i == 0) {
            accuracy_result other;
            accuracy_config c2 = {.threads = 2, .seed = 12};
            assert_int_equal(accuracy_run(l.s, specs[i], &c2, &other, err), ACCURACY_OK);
            assert_memory_not_equal(one.move, other.move, 40 * sizeof(int));
            accuracy_result_free(&other);
        }
        accuracy_result_free(&one);
        accuracy_result_free(&three);
    }
    accuracy_result res;
    accuracy_config c = {.threads = 2};
    assert_int_equal(accuracy_run(l.s, "mcts:sim=3", &c, &res, err), ACCURACY_EAGENT);
    assert_non_null(strstr(err, "unknown key 'sim'"));
    c.threads = 0;
    assert_int_equal(accuracy_run(l.s, "random", &c, &res, err), ACCURACY_EINVAL);
    loaded_free(&l);
}

/* A random net for rules spec `rules` (pits p) written to path. */
static void write_net(const char *path, const char *rules, int pits)
{
    kalah_rules r;
    char err[NN_ERRLEN > KALAH_ERRLEN ? NN_ERRLEN : KALAH_ERRLEN];
    assert_int_equal(kalah_rules_parse(rules, &r, err), KALAH_OK);
    nn_config nc = nn_config_default(kalah_encode_dim(&r), pits);
    nc.n_hidden = 1;
    nc.hidden[0] = 8;
    nn_net *net = nn_net_create(&nc, 3, err);
    assert_non_null(net);
    if (nn_export_save(path, net, rules, KALAH_ENCODING_NAME, err) != NN_OK)
        fail_msg("%s", err);
    nn_net_free(net);
}

static cJSON *run_json(int want_rc, const char *fmt, const char *a, const char *b)
{
    char *out;
    char args[3000];
    snprintf(args, sizeof args, fmt, a, b);
    int rc = tu_run(&out, 0, "%s", args);
    if (rc != want_rc)
        fail_msg("sowzero %s: exit %d\n%s", args, rc, out);
    cJSON *o = cJSON_Parse(out);
    if (!o)
        fail_msg("sowzero %s: not JSON: %s", args, out);
    free(out);
    return o;
}

static void test_accuracy_command(void **state)
{
    (void)state;
    cJSON *o = run_json(0, "accuracy %s --positions '%s' --threads 2 --seed 3 --json", "ab:depth=2", FIXTURE);
    const char *keys[] = {"optimal_rate", "optimal_lo", "optimal_hi", "mean_regret", "regret_lo", "regret_hi",
                          "blunder_rate", "positions", "by_phase", "rules", "seconds"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!cJSON_GetObjectItem(o, keys[i]))
            fail_msg("no key %s", keys[i]);
    assert_int_equal(cJSON_GetObjectItem(o, "positions")->valueint, 40);
    cJSON *ph = cJSON_GetObjectItem(o, "by_phase");
    assert_int_equal(cJSON_GetArraySize(ph), 3);
    int sum = 0;
    for (int i = 0; i < 3; i++)
        sum += cJSON_GetObjectItem(cJSON_GetArrayItem(ph, i), "positions")->valueint;
    assert_int_equal(sum, 40);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(ph, 0), "seeds_from")->valueint, 24);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(ph, 2), "seeds_to")->valueint, 0);
    cJSON_Delete(o);
    o = run_json(0, "accuracy %s --positions '%s' --json", "solver:endgame=0", FIXTURE);
    assert_float_equal(cJSON_GetObjectItem(o, "optimal_rate")->valuedouble, 1.0, 0);
    cJSON_Delete(o);
    /* az: a net of the set's rules runs (raw policy and search); a net of other rules is refused */
    const char *net43 = tmp_file("acc_net43.h5"), *net64 = tmp_file("acc_net64.h5");
    write_net(net43, R43, 4);
    write_net(net64, "kalah:pits=6,seeds=4", 6);
    char spec[1200];
    snprintf(spec, sizeof spec, "'az:net=%s,sims=0'", net43);
    o = run_json(0, "accuracy %s --positions '%s' --json", spec, FIXTURE);
    cJSON_Delete(o);
    snprintf(spec, sizeof spec, "'az:net=%s,sims=8'", net43);
    o = run_json(0, "accuracy %s --positions '%s' --threads 2 --json", spec, FIXTURE);
    cJSON_Delete(o);
    char *out;
    assert_int_equal(tu_run(&out, 1, "accuracy 'az:net=%s,sims=0' --positions '%s'", net64, FIXTURE), 2);
    assert_non_null(strstr(out, "rules"));
    free(out);
    /* bad input: exit 2 with the reason */
    assert_int_equal(tu_run(&out, 1, "accuracy random --positions '%s/acc_none.jsonl'", SOWZERO_TMP), 2);
    assert_non_null(strstr(out, "acc_none.jsonl: cannot open"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "accuracy random --positions '%s/configs/quick.ini'", SOWZERO_SOURCE_DIR), 2);
    assert_non_null(strstr(out, "quick.ini:1: not a position set"));
    free(out);
    const char *trail[1] = {GOOD "xyz"};
    const char *tpath = write_set("acc_trail.jsonl", 1, trail, 1);
    assert_int_equal(tu_run(&out, 1, "accuracy random --positions '%s'", tpath), 2);
    assert_non_null(strstr(out, "acc_trail.jsonl:2: text after the JSON object"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "accuracy frob --positions '%s'", FIXTURE), 2);
    assert_non_null(strstr(out, "unknown kind 'frob'"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "accuracy --positions '%s'", FIXTURE), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "accuracy random --threads 0 --positions '%s'", FIXTURE), 2);
    free(out);
    assert_int_equal(tu_run(&out, 0, "accuracy --help"), 0);
    assert_non_null(strstr(out, "--positions"));
    free(out);
    assert_int_equal(tu_run(&out, 0, "--help"), 0);
    assert_non_null(strstr(out, "accuracy"));
    assert_non_null(strstr(out, "move "));
    free(out);
}

static void test_move_command(void **state)
{
    (void)state;
    /* solver: the exact value of every move, equal to the fixture's line 2 */
    loaded l = load_ok(FIXTURE);
    const gps_entry *e = gps_get_const(l.s, 0);
    char pos[80];
    game_pos_format(l.g, &e->pos, pos, sizeof pos);
    char where[200];
    snprintf(where, sizeof where, "--rules %s --position '%s'", R43, pos);
    cJSON *o = run_json(0, "move %s %s --json", "solver:endgame=0", where);
    cJSON *vals = cJSON_GetObjectItem(o, "values");
    assert_non_null(vals);
    for (int k = 0; k < 4; k++) {
        char letter[8];
        game_move_format(l.g, &e->pos, k, letter, sizeof letter);
        cJSON *v = cJSON_GetObjectItem(vals, letter);
        if (e->values[k] == GPS_NO_VALUE)
            assert_null(v);
        else
            assert_int_equal(v->valueint, e->values[k]);
    }
    assert_int_equal(cJSON_GetObjectItem(o, "value")->valueint, e->value);
    const char *mv = cJSON_GetObjectItem(o, "move")->valuestring;
    assert_int_equal(e->best_mask >> game_move_parse(l.g, &e->pos, mv, NULL) & 1, 1);
    cJSON_Delete(o);
    /* mcts: the root's visit count N(root) is the simulation count, one more than its children's (the
     * root's own expansion) */
    o = run_json(0, "move %s %s --json", "mcts:sims=64", where);
    cJSON *m, *moves = cJSON_GetObjectItem(o, "moves");
    int visits = 0;
    cJSON_ArrayForEach(m, moves)
    {
        visits += cJSON_GetObjectItem(m, "visits")->valueint;
        double q = cJSON_GetObjectItem(m, "q")->valuedouble, p = cJSON_GetObjectItem(m, "prior")->valuedouble;
        assert_true(q >= -1 && q <= 1 && p > 0 && p <= 1);
    }
    assert_int_equal(cJSON_GetArraySize(moves), __builtin_popcount(game_legal(l.g, &e->pos)));
    assert_int_equal(cJSON_GetObjectItem(o, "root_visits")->valueint, 64);
    assert_int_equal(visits, 63);
    cJSON_Delete(o);
    /* ab: value and a principal variation starting with the move */
    o = run_json(0, "move %s %s --json", "ab:depth=5", where);
    cJSON *pv = cJSON_GetObjectItem(o, "pv");
    assert_true(cJSON_GetArraySize(pv) >= 1);
    assert_string_equal(cJSON_GetArrayItem(pv, 0)->valuestring, cJSON_GetObjectItem(o, "move")->valuestring);
    assert_int_equal(cJSON_GetObjectItem(o, "depth")->valueint, 5);
    cJSON_Delete(o);
    loaded_free(&l);
    char *out;
    assert_int_equal(tu_run(&out, 1, "move greedy"), 2);
    assert_non_null(strstr(out, "--position"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "move greedy --position '0,0,0,0,0,0,24,4,4,4,4,4,4,0 S'"), 2);
    assert_non_null(strstr(out, "the game is over"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "move ab:depth=0 --position '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'"), 2);
    assert_non_null(strstr(out, "depth=0"));
    free(out);
    assert_int_equal(tu_run(&out, 0, "move greedy --position '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'"), 0);
    assert_non_null(strstr(out, "move "));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_reads_the_hand_set),
        cmocka_unit_test(test_reader_errors),
        cmocka_unit_test(test_tally_hand_checked),
        cmocka_unit_test(test_solver_agent),
        cmocka_unit_test(test_threads_do_not_change_moves),
        cmocka_unit_test(test_accuracy_command),
        cmocka_unit_test(test_move_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
