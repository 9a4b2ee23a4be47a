/* test_config.c — the training config (train/config.h): every error path names file:line and the key, --set
 * overrides are validated the same way, the writer round-trips, and the example configs load and document
 * every key. */
#include <float.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"
#include "train/config.h"
#include "train/config_keys.h"

/* Writes text to SOWZERO_TMP/<name> and returns the path (static buffer). */
static const char *write_file(const char *name, const char *text)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", SOWZERO_TMP, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Loads text as a config file and expects failure with a message holding every given fragment. */
static void expect_load_error(const char *text, ...)
{
    const char *path = write_file("bad.ini", text);
    cfg_config c;
    char err[CFG_ERRLEN] = "";
    cfg_defaults(&c);
    int rc = cfg_load(&c, path, err);
    if (rc == 0)
        rc = cfg_finish(&c, err);
    if (rc == 0)
        fail_msg("config was accepted:\n%s", text);
    va_list ap;
    va_start(ap, text);
    for (const char *frag; (frag = va_arg(ap, const char *)) != NULL;)
        if (!strstr(err, frag))
            fail_msg("message '%s' lacks '%s'", err, frag);
    va_end(ap);
}

static void test_error_paths(void **state)
{
    (void)state;
    expect_load_error("[run]\niterations = 1\n\n[nets]\nhidden = 4\n", "bad.ini:4:", "unknown section [nets]", NULL);
    expect_load_error("[run]\niterations = 1\n[net]\nhiden = 4\n", "bad.ini:4:", "net.hiden", "unknown key",
                      "hidden", NULL);
    expect_load_error("iterations = 1\n", "bad.ini:1:", "outside any section", NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\npits = six\n", "bad.ini:4:", "rules.pits", "bad value 'six'",
                      NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\npits = 9\n", "bad.ini:4:", "rules.pits", "bad value '9'",
                      "1..7", NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\ngame = basico\ncapture = none\n", "bad.ini:5:", "rules.capture",
                      "basico has no rules key 'capture'", NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\ngame = chess\n", "bad.ini:4:", "rules.game",
                      "unknown game 'chess'", "kalah, basico", NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\npits = 3x\n", "bad.ini:4:", "rules.pits", "bad value", NULL);
    expect_load_error("[run]\niterations = 0\n", "bad.ini:2:", "run.iterations", "out of range", NULL);
    /* A malformed width list is an error, not a different net (empty entries used to be skipped). */
    expect_load_error("[run]\niterations = 1\n[net]\nhidden = 128,,128\n", "bad.ini:4:", "net.hidden", NULL);
    expect_load_error("[run]\niterations = 1\n[net]\nhidden = 128,\n", "bad.ini:4:", "net.hidden", NULL);
    expect_load_error("[run]\niterations = 1\n[net]\nactivation = tanh\n", "bad.ini:4:", "activation", NULL);
    expect_load_error("[run]\niterations = 99999999999999999999999\n", "bad.ini:2:", "out of range", NULL);
    expect_load_error("[run]\niterations = 1\n[train]\nlr = 0\n", "bad.ini:4:", "train.lr", "out of range", "0 <",
                      NULL);
    expect_load_error("[run]\niterations = 1\n[train]\nlr = nan\n", "bad.ini:4:", "train.lr", "bad value", NULL);
    expect_load_error("[run]\niterations = 1\n[train]\nlr = 1e999\n", "bad.ini:4:", "train.lr", NULL);
    expect_load_error("[run]\niterations = 1\n[train]\noptimizer = rmsprop\n", "bad.ini:4:", "train.optimizer",
                      "one of sgd, adam", NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\ncapture = sometimes\n", "bad.ini:4:", "rules.capture",
                      "opposite, always, none", NULL);
    expect_load_error("[run]\niterations = 1\n[net]\nresidual = maybe\n", "bad.ini:4:", "net.residual",
                      "true or false", NULL);
    expect_load_error("[run]\niterations = 1\n[net]\nhidden = 64,0\n", "bad.ini:4:", "net.hidden", NULL);
    expect_load_error("[run]\niterations = 1\n[net]\nhidden = 1,2,3,4,5,6,7,8,9\n", "bad.ini:4:", "net.hidden", NULL);
    expect_load_error("[run]\niterations = 1\n[net]\nhidden =\n", "bad.ini:4:", "net.hidden", "empty", NULL);
    expect_load_error("[run]\nseed = -3\niterations = 1\n", "bad.ini:2:", "run.seed", "bad value", NULL);
    expect_load_error("[run]\nname = my run\niterations = 1\n", "bad.ini:2:", "run.name", NULL);
    expect_load_error("[run]\niterations = 1\niterations = 2\n", "bad.ini:3:", "run.iterations",
                      "given twice (first on line 2)", NULL);
    expect_load_error("[run]\niterations = 1\n[net]\nhidden = 64\n  128\n", "bad.ini:5:", "net.hidden", "twice",
                      NULL);
    expect_load_error("[run]\niterations = 1\n\n[mcts]\nsims 200\n", "bad.ini:5:", "syntax error", NULL);
    expect_load_error("[run]\niterations = 1\n[mcts\nsims = 3\n", "bad.ini:3:", "syntax error", NULL);
    char longline[400];
    snprintf(longline, sizeof longline, "[run]\niterations = 1\n[eval]\nopponents = greedy%0250d\n", 0);
    expect_load_error(longline, "bad.ini:4:", "longer than", NULL);
    /* required key */
    expect_load_error("[rules]\npits = 6\n", "bad.ini:", "missing required key run.iterations", NULL);
    /* cross-field checks name the key's line */
    expect_load_error("[run]\niterations = 1\n[train]\nreplay_window = 100\nmin_replay = 200\n", "bad.ini:5:",
                      "train.min_replay", "replay_window", NULL);
    expect_load_error("[run]\niterations = 1\n[eval]\ngames = 7\n", "bad.ini:4:", "eval.games", "even", NULL);
    expect_load_error("[run]\niterations = 1\n[eval]\nopponents = greedy, ab:dept=4\n", "bad.ini:4:", "eval.opponents",
                      "dept", NULL);
    expect_load_error("[run]\niterations = 1\n[eval]\nopponents = seed=3\n", "bad.ini:4:", "eval.opponents",
                      "without an agent", NULL);
    expect_load_error("[run]\niterations = 1\n[selfplay]\nopponents = greedy, ab:dept=4\n", "bad.ini:4:",
                      "selfplay.opponents", "dept", NULL);
    expect_load_error("[run]\niterations = 1\n[selfplay]\nopponent_share = 1.5\n", "bad.ini:4:",
                      "selfplay.opponent_share", NULL);
    expect_load_error("[run]\niterations = 1\n[train]\nlr = 0.001\nlr_min = 0.01\n", "bad.ini:5:", "train.lr_min",
                      NULL);
    expect_load_error("[run]\niterations = 1\n[selfplay]\nthreads = 0\n", "bad.ini:4:", "selfplay.threads", NULL);
    /* the search levers: cross-field checks name the key and its line */
    expect_load_error("[run]\niterations = 1\n[net]\nmargin_head = false\n[mcts]\nmargin_utility = 0.5\n", "bad.ini:6:",
                      "mcts.margin_utility", "margin_head", NULL);
    expect_load_error("[run]\niterations = 1\n[net]\nmargin_head = true\n[mcts]\nmargin_utility = 0.5\n"
                      "[selfplay]\nq_ratio = 0.5\n", "bad.ini:8:", "selfplay.q_ratio", "margin_utility", NULL);
    expect_load_error("[run]\niterations = 1\n[selfplay]\nq_ratio = -0.1\n", "bad.ini:4:", "selfplay.q_ratio", NULL);
    expect_load_error("[run]\niterations = 1\n[mcts]\nroot = gumbel\nforced_playouts_k = 2\n", "bad.ini:",
                      "mcts.forced_playouts_k", NULL);
    expect_load_error("[run]\niterations = 1\n[mcts]\nroot = best\n", "bad.ini:4:", "mcts.root", "puct, gumbel", NULL);
    expect_load_error("[run]\niterations = 1\n[selfplay]\nfull_sims_prob = 0.25\n", "bad.ini:", "selfplay.fast_sims",
                      NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\ngame = basico\nplayers = 3\npits = 4\nseeds = 4\n"
                      "[eval]\ngames = 6\nfinal_games = 6\n[mcts]\nmargin_utility = 0.5\n",
                      "bad.ini:12:", "mcts.margin_utility", "more than two players", NULL);
    expect_load_error("[run]\niterations = 1\n[selfplay]\nopening_plies = 101\n", "bad.ini:4:",
                      "selfplay.opening_plies", NULL);
    /* the levers a game's facts rule out: refused by the fact, at the key's line */
    expect_load_error("[run]\niterations = 1\n[rules]\ngame = basico\nplayers = 3\npits = 4\nseeds = 4\n"
                      "[eval]\ngames = 6\nfinal_games = 6\ngate = sprt\n",
                      "bad.ini:11:", "eval.gate", "needs a two-player game", "basico has 3 players", NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\nspec = oware\n[mcts]\ntablebase_seeds = 8\n",
                      "bad.ini:6:", "mcts.tablebase_seeds", "needs an exact endgame database",
                      "oware declares none", "endgame hook", NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\nspec = congklak\n[eval]\ntablebase_seeds = 8\n",
                      "bad.ini:6:", "eval.tablebase_seeds", "congklak declares none", NULL);
    expect_load_error("[run]\niterations = 1\n[selfplay]\nsurprise_weight = 1.5\n", "bad.ini:4:",
                      "selfplay.surprise_weight", NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\nspec = oware\n[selfplay]\nrescore = true\n",
                      "bad.ini:6:", "selfplay.rescore", "oware declares none", NULL);
    /* one-hot pit features: Kalah's encoding only, 0 or at least 2 levels */
    expect_load_error("[run]\niterations = 1\n[net]\nonehot_levels = 1\n", "bad.ini:4:", "net.onehot_levels",
                      NULL);
    expect_load_error("[run]\niterations = 1\n[net]\nonehot_levels = 257\n", "bad.ini:4:", "net.onehot_levels",
                      NULL);
    expect_load_error("[run]\niterations = 1\n[rules]\ngame = basico\nplayers = 3\npits = 4\nseeds = 4\n"
                      "[eval]\ngames = 6\nfinal_games = 6\n[net]\nonehot_levels = 8\n",
                      "bad.ini:12:", "net.onehot_levels", "basico", NULL);

    cfg_config c;
    char err[CFG_ERRLEN];
    cfg_defaults(&c);
    assert_int_equal(cfg_load(&c, SOWZERO_TMP "/no/such/file.ini", err), -1);
    assert_non_null(strstr(err, "no/such/file.ini: cannot open"));
}

static void test_set_overrides(void **state)
{
    (void)state;
    cfg_config c;
    char err[CFG_ERRLEN];
    cfg_defaults(&c);
    assert_int_equal(cfg_set(&c, "run.iterations=12", err), 0);
    assert_int_equal(cfg_set(&c, " net.hidden = 32, 16 ", err), 0);
    assert_int_equal(cfg_set(&c, "train.optimizer=sgd", err), 0);
    assert_int_equal(cfg_set(&c, "eval.opponents=ab:depth=2,seed=5, greedy", err), 0);
    assert_int_equal(cfg_finish(&c, err), 0);
    assert_int_equal(c.run.iterations, 12);
    assert_int_equal(c.net.n_hidden, 2);
    assert_int_equal(c.net.hidden[0], 32);
    assert_int_equal(c.net.hidden[1], 16);
    assert_int_equal(c.optim.kind, NN_OPT_SGD);
    assert_int_equal(c.eval.n_opponents, 2);
    assert_string_equal(c.eval.opponents[0], "ab:depth=2,seed=5");
    assert_string_equal(c.eval.opponents[1], "greedy");
    /* an engine's command keeps its spaces and commas inside quotes */
    assert_int_equal(cfg_set(&c, "selfplay.opponents=engine:cmd='my engine --x 1,2',ms=100 greedy", err), 0);
    assert_int_equal(c.league.n_opponents, 2);
    assert_string_equal(c.league.opponents[0], "engine:cmd='my engine --x 1,2',ms=100");
    assert_string_equal(c.league.opponents[1], "greedy");
    assert_int_not_equal(cfg_set(&c, "eval.opponents=engine:cmd=\"a b,ms=100", err), 0);
    assert_non_null(strstr(err, "quote"));
    /* an empty entry is an error, not dropped; one comma with blanks around it separates */
    static const char *const empty[] = {"selfplay.opponents=greedy,,random", "selfplay.opponents=greedy, ,random",
                                        "selfplay.opponents=,greedy", "eval.opponents=greedy,"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        assert_int_not_equal(cfg_set(&c, empty[i], err), 0);
        assert_non_null(strstr(err, "an empty entry"));
    }
    assert_int_equal(cfg_set(&c, "selfplay.opponents=greedy , random", err), 0);
    assert_int_equal(c.league.n_opponents, 2);
    assert_true(cfg_was_set(&c, "run.iterations"));
    assert_false(cfg_was_set(&c, "run.seed"));
    assert_string_equal(c.run.name, "run");  /* no file: the fallback name */

    static const struct {
        const char *set, *frag;
    } bad[] = {
        {"run.iterations", "expected section.key=value"},
        {"iterations=3", "expected section.key=value"},
        {"runs.iterations=3", "unknown section [runs]"},
        {"run.iteration=3", "unknown key"},
        {"run.iterations=three", "bad value 'three'"},
        {"rules.pits=0", "out of range"},
        {"mcts.c_puct=-1", "out of range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg_defaults(&c);
        assert_int_equal(cfg_set(&c, bad[i].set, err), -1);
        char prefix[128];
        snprintf(prefix, sizeof prefix, "--set %s:", bad[i].set);
        if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, bad[i].frag))
            fail_msg("--set %s: message '%s'", bad[i].set, err);
    }
    /* a cross-field error caused by an override names the override */
    cfg_defaults(&c);
    assert_int_equal(cfg_set(&c, "run.iterations=1", err), 0);
    assert_int_equal(cfg_set(&c, "eval.games=3", err), 0);
    assert_int_equal(cfg_finish(&c, err), -1);
    assert_non_null(strstr(err, "--set eval.games"));
    /* The command line beats the file in how the rules are given: --set rules.spec over a file's game and
     * keys, --set rules.game over a file's spec; both ways from one source stay an error. */
    char path[1024];
    snprintf(path, sizeof path, "%s/rules-way.ini", SOWZERO_TMP);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[rules]\ngame = oware\npits = 6\n[run]\niterations = 1\n", f);
    fclose(f);
    char spec[GAME_SPEC_MAX];
    cfg_defaults(&c);
    assert_int_equal(cfg_load(&c, path, err), 0);
    assert_int_equal(cfg_set(&c, "rules.spec=congklak:seeds=5", err), 0);
    if (cfg_finish(&c, err))
        fail_msg("%s", err);
    assert_non_null(strstr(cfg_rules_spec(&c, spec, sizeof spec), "congklak:pits=7,seeds=5,"));
    assert_false(cfg_was_set(&c, "rules.game"));
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("[rules]\nspec = oware:max_sows=60\n[run]\niterations = 1\n", f);
    fclose(f);
    cfg_defaults(&c);
    assert_int_equal(cfg_load(&c, path, err), 0);
    assert_int_equal(cfg_set(&c, "rules.game=basico", err), 0);
    assert_int_equal(cfg_set(&c, "eval.opponents=greedy", err), 0);
    if (cfg_finish(&c, err))
        fail_msg("%s", err);
    assert_non_null(strstr(cfg_rules_spec(&c, spec, sizeof spec), "basico"));
    /* a key over a file's spec changes that key of it: the spec's game and other keys stay */
    cfg_defaults(&c);
    assert_int_equal(cfg_load(&c, path, err), 0);
    assert_int_equal(cfg_set(&c, "rules.pits=4", err), 0);
    assert_int_equal(cfg_set(&c, "rules.max_sows=90", err), 0);
    assert_int_equal(cfg_set(&c, "eval.opponents=greedy", err), 0);
    if (cfg_finish(&c, err))
        fail_msg("%s", err);
    assert_string_equal(c.spec, "oware:pits=4,max_sows=90");
    cfg_rules_spec(&c, spec, sizeof spec);
    if (strncmp(spec, "oware:", 6) || !strstr(spec, "pits=4") || !strstr(spec, "max_sows=90"))
        fail_msg("%s", spec);
    cfg_defaults(&c);
    assert_int_equal(cfg_set(&c, "run.iterations=1", err), 0);
    assert_int_equal(cfg_set(&c, "rules.spec=congklak", err), 0);
    assert_int_equal(cfg_set(&c, "rules.pits=5", err), 0);
    assert_int_equal(cfg_finish(&c, err), -1);
    assert_non_null(strstr(err, "the rules are given by rules.spec"));
    /* train.overlap runs SGD on one BLAS thread: with train.threads > 1 it is refused, naming both */
    cfg_defaults(&c);
    assert_int_equal(cfg_set(&c, "run.iterations=1", err), 0);
    assert_int_equal(cfg_set(&c, "train.threads=2", err), 0);
    assert_int_equal(cfg_set(&c, "train.overlap=1", err), 0);
    assert_int_equal(cfg_finish(&c, err), -1);
    if (!strstr(err, "train.overlap") || !strstr(err, "train.threads"))
        fail_msg("%s", err);
}

static void test_syntax_details(void **state)
{
    (void)state;
    const char *path = write_file("ok.ini", "# comment\n; comment\n[run]\niterations = 3 ; inline\n"
                                            "seed = 18446744073709551615   # inline too\n"
                                            "[eval]\nopponents = ab:depth=4,seed=2 greedy, mcts:sims=10,rollouts=2\n"
                                            "[net]\nmargin_head = off\nresidual = YES\n");
    cfg_config c;
    char err[CFG_ERRLEN];
    cfg_defaults(&c);
    if (cfg_load(&c, path, err) || cfg_finish(&c, err))
        fail_msg("%s", err);
    assert_int_equal(c.run.iterations, 3);
    assert_true(c.run.seed == UINT64_MAX);
    assert_int_equal(c.eval.n_opponents, 3);
    assert_string_equal(c.eval.opponents[0], "ab:depth=4,seed=2");
    assert_string_equal(c.eval.opponents[1], "greedy");
    assert_string_equal(c.eval.opponents[2], "mcts:sims=10,rollouts=2");
    assert_int_equal(c.net.margin_head, 0);
    assert_int_equal(c.net.residual, 1);
    assert_string_equal(c.run.name, "ok");  /* from the file name */
    assert_int_equal(c.net.input_dim, 14);
    assert_int_equal(c.net.n_policy, 6);
    assert_int_equal(c.optim.sched.total_steps, 3 * c.train.steps_per_iteration);
}

/* A floating key's nonzero value below the smallest normal float (1e-320 passed "0 < x" and then acted as
 * 0 under flush-to-zero: "cannot create the optimiser: lr ... must be > 0", no file or line) is refused by
 * every floating key, in a file (file:line) and through --set, the smallest normal float still accepted; so
 * is a NUL byte, which used to end a line silently ("pits = 6\0garbage" read as 6). */
static void test_tiny_floats_and_nul(void **state)
{
    (void)state;
    expect_load_error("[run]\niterations = 1\n[train]\nlr = 1e-320\n", "bad.ini:4:", "train.lr", "out of range",
                      NULL);
    expect_load_error("[train]\nl2 = 4.9e-324\n", "bad.ini:2:", "train.l2", "out of range", NULL);
    expect_load_error("[eval]\ngate_elo0 = -1e-310\n", "bad.ini:2:", "eval.gate_elo0", "out of range", NULL);
    cfg_config c;
    char err[CFG_ERRLEN], set[160];
    const char *path;
    int floats = 0;
    for (int i = 0; i < cfg_nkeys; i++) {
        const cfg_key *k = &cfg_keys[i];
        if (k->type != CK_DBL)
            continue;
        floats++;
        double tiny = k->lo < 0 ? -1e-320 : 1e-320;
        if (tiny < k->lo || tiny > k->hi)
            continue;
        cfg_defaults(&c);
        snprintf(set, sizeof set, "%s.%s=%g", k->section, k->key, tiny);
        if (cfg_set(&c, set, err) == 0)
            fail_msg("--set %s was accepted", set);
        assert_non_null(strstr(err, "out of range"));
        snprintf(set, sizeof set, "%s.%s=%.17g", k->section, k->key, k->lo < 0 ? -(double)FLT_MIN : (double)FLT_MIN);
        cfg_defaults(&c);
        if (cfg_set(&c, set, err) != 0)
            fail_msg("--set %s: %s", set, err);
    }
    assert_true(floats >= 20);
    cfg_defaults(&c);
    assert_int_equal(cfg_set(&c, "train.lr=0.001", err), 0);
    /* refused before the run directory is created */
    char dir[1024], *out;
    snprintf(dir, sizeof dir, "%s/tiny-lr-run", SOWZERO_TMP);
    assert_int_equal(tu_run(&out, 1, "train %s/configs/quick.ini --set train.lr=1e-320 --run-dir %s",
                            SOWZERO_SOURCE_DIR, dir), 2);
    assert_non_null(strstr(out, "train.lr"));
    free(out);
    path = write_file("tiny-lr.ini", "[train]\nlr = 1e-320\n");
    assert_int_equal(tu_run(&out, 1, "train %s --run-dir %s", path, dir), 2);
    assert_non_null(strstr(out, "tiny-lr.ini:2:"));
    free(out);
    assert_int_not_equal(access(dir, F_OK), 0);

    static const char with_nul[] = "[rules]\npits = 6\0garbage\nseeds = 4\n";
    static const char nul_in_comment[] = "[rules]\n# a comment\0\npits = 6\n";
    const char *texts[] = {with_nul, nul_in_comment};
    const size_t sizes[] = {sizeof with_nul - 1, sizeof nul_in_comment - 1};
    const char *lines[] = {"nul.ini:2:", "nul.ini:2:"};
    for (int t = 0; t < 2; t++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/nul.ini", SOWZERO_TMP);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(texts[t], 1, sizes[t], f), sizes[t]);
        fclose(f);
        cfg_defaults(&c);
        if (cfg_load(&c, path, err) == 0)
            fail_msg("a NUL byte was accepted (text %d)", t);
        if (!strstr(err, lines[t]) || !strstr(err, "NUL"))
            fail_msg("%s", err);
    }
}

/* Every value of a config, as text, for comparisons. */
static void dump(const cfg_config *c, char *buf, size_t n)
{
    FILE *f = fmemopen(buf, n, "w");
    assert_non_null(f);
    assert_int_equal(cfg_write(c, f, CFG_WRITE_PLAIN), 0);
    fclose(f);
}

/* A config of the defaults with sets[0..n) (a), written with its docs to path and read back (b): the two
 * hold the same values, and exactly the keys that apply to the game were written. */
static void round_trip(const char *const *sets, size_t n, const char *path, cfg_config *a, cfg_config *b)
{
    char err[CFG_ERRLEN];
    cfg_defaults(a);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(cfg_set(a, sets[i], err), 0);
    if (cfg_finish(a, err))
        fail_msg("%s", err);
    FILE *f = fopen(path, "w");
    assert_int_equal(cfg_write(a, f, CFG_WRITE_DOCS), 0);
    fclose(f);
    cfg_defaults(b);
    if (cfg_load(b, path, err) || cfg_finish(b, err))
        fail_msg("%s", err);
    static char da[16384], db[16384];
    dump(a, da, sizeof da);
    dump(b, db, sizeof db);
    assert_string_equal(da, db);
    for (int i = 0; i < cfg_key_count(); i++) {
        char name[96];
        assert_int_equal(cfg_was_set(b, cfg_key_name(i, name, sizeof name)), cfg_key_applies(b, i));
    }
}

static void test_write_round_trip(void **state)
{
    (void)state;
    cfg_config a, b;
    char err[CFG_ERRLEN];
    cfg_defaults(&a);
    const char *sets[] = {"run.iterations=7", "train.lr=0.1", "train.l2=3e-05", "mcts.c_puct=1.2345678901234567",
                          "net.hidden=20,10,5", "eval.opponents=greedy random", "run.seed=123456789012345",
                          "rules.capture=always", "train.lr_schedule=cosine", "run.name=abc.d-e_f"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        assert_int_equal(cfg_set(&a, sets[i], err), 0);
    assert_int_equal(cfg_finish(&a, err), 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/roundtrip.ini", SOWZERO_TMP);
    FILE *f = fopen(path, "w");
    assert_int_equal(cfg_write(&a, f, CFG_WRITE_DOCS), 0);
    fclose(f);
    cfg_defaults(&b);
    if (cfg_load(&b, path, err) || cfg_finish(&b, err))
        fail_msg("%s", err);
    static char da[16384], db[16384];
    dump(&a, da, sizeof da);
    dump(&b, db, sizeof db);
    assert_string_equal(da, db);
    assert_true(a.mcts.c_puct == b.mcts.c_puct);
    assert_true(memcmp(&a.optim, &b.optim, sizeof a.optim) == 0);
    assert_true(memcmp(&a.rules, &b.rules, sizeof a.rules) == 0);
    /* every key of the game was in the file, and only those */
    for (int i = 0; i < cfg_key_count(); i++) {
        char name[96];
        assert_int_equal(cfg_was_set(&b, cfg_key_name(i, name, sizeof name)), cfg_key_applies(&b, i));
    }
    /* a básico config: its own rules keys round-trip, the Kalah ones are left out */
    const char *bsets[] = {"run.iterations=3", "rules.game=basico", "rules.players=4", "rules.pits=4",
                           "rules.seeds=3", "rules.full_ranking=false", "eval.opponents=greedy maxn:depth=2",
                           "selfplay.opponents=random, maxn:depth=1,seed=4", "selfplay.opponent_share=0.5"};
    round_trip(bsets, sizeof bsets / sizeof bsets[0], path, &a, &b);
    char sa[GAME_SPEC_MAX], sb[GAME_SPEC_MAX];
    assert_string_equal(cfg_rules_spec(&a, sa, sizeof sa), cfg_rules_spec(&b, sb, sizeof sb));
    assert_string_equal(sb, "basico:players=4,pits=4,seeds=3,full_ranking=0");
    assert_int_equal(b.net.n_value, 4);
    assert_false(cfg_was_set(&b, "rules.capture"));
    assert_int_equal(b.league.n_opponents, 2);
    assert_string_equal(b.league.opponents[1], "maxn:depth=1,seed=4");
    assert_true(b.league.share == 0.5);
    assert_int_equal(b.eval.n_opponents, 2); /* the two lists apart */
    /* another two-player game with a margin: its score utility is written out and read back */
    const char *osets[] = {"run.iterations=3", "rules.spec=oware:max_sows=60", "net.margin_head=true",
                           "mcts.margin_utility=3", "eval.opponents=greedy"};
    round_trip(osets, sizeof osets / sizeof osets[0], path, &a, &b);
    assert_true(b.mcts.margin_utility == 3);
}

static void test_enum_names_match_modules(void **state)
{
    (void)state;
    cfg_config c;
    char err[CFG_ERRLEN], buf[64];
    const char *capture[] = {"opposite", "always", "none"}, *end[] = {"either-empty", "mover-empty"};
    for (int i = 0; i < 3; i++) {
        cfg_defaults(&c);
        snprintf(buf, sizeof buf, "rules.capture=%s", capture[i]);
        assert_int_equal(cfg_set(&c, buf, err), 0);
        kalah_capture k;
        assert_int_equal(kalah_capture_parse(capture[i], &k), KALAH_OK);
        assert_int_equal(c.rules.capture, k);
    }
    for (int i = 0; i < 2; i++) {
        cfg_defaults(&c);
        snprintf(buf, sizeof buf, "rules.end=%s", end[i]);
        assert_int_equal(cfg_set(&c, buf, err), 0);
        kalah_end k;
        assert_int_equal(kalah_end_parse(end[i], &k), KALAH_OK);
        assert_int_equal(c.rules.end, k);
    }
    const char *opt[] = {"sgd", "adam"}, *sched[] = {"constant", "step", "cosine"};
    for (int i = 0; i < 2; i++) {
        cfg_defaults(&c);
        snprintf(buf, sizeof buf, "train.optimizer=%s", opt[i]);
        assert_int_equal(cfg_set(&c, buf, err), 0);
        nn_opt_kind k;
        assert_int_equal(nn_opt_kind_parse(opt[i], &k), NN_OK);
        assert_int_equal(c.optim.kind, k);
    }
    for (int i = 0; i < 3; i++) {
        cfg_defaults(&c);
        snprintf(buf, sizeof buf, "train.lr_schedule=%s", sched[i]);
        assert_int_equal(cfg_set(&c, buf, err), 0);
        nn_lr_kind k;
        assert_int_equal(nn_lr_kind_parse(sched[i], &k), NN_OK);
        assert_int_equal(c.optim.sched.kind, k);
    }
}

/* The example configs load, pass every check, and document every key of their game in place (a "key = "
 * line preceded by a comment line). */
static void test_example_configs(void **state)
{
    (void)state;
    const char *names[] = {"kalah.ini",     "quick.ini",    "kalah-strong.ini",
                           "basico-3p.ini", "congklak.ini", "oware.ini"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        char path[1024], err[CFG_ERRLEN];
        snprintf(path, sizeof path, "%s/configs/%s", SOWZERO_SOURCE_DIR, names[n]);
        cfg_config c;
        cfg_defaults(&c);
        if (cfg_load(&c, path, err) || cfg_finish(&c, err))
            fail_msg("%s", err);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        static char text[200000];
        size_t len = fread(text, 1, sizeof text - 1, f);
        text[len] = 0;
        fclose(f);
        for (int i = 0; i < cfg_key_count(); i++) {
            char name[96], needle[100];
            cfg_key_name(i, name, sizeof name);
            if (!cfg_key_applies(&c, i))
                continue;
            char *dot = strchr(name, '.');
            snprintf(needle, sizeof needle, "\n%s = ", dot + 1);
            /* find the key inside its own section */
            char section[40];
            snprintf(section, sizeof section, "\n[%.*s]", (int)(dot - name), name);
            const char *sec = strstr(text, section);
            if (!sec)
                fail_msg("%s: no section %s", names[n], section + 1);
            const char *next = strstr(sec + 1, "\n[");
            const char *hit = strstr(sec, needle);
            if (!hit || (next && hit > next))
                fail_msg("%s: key %s is not written out in its section", names[n], name);
            /* the line before the key is a comment */
            const char *line_start = hit - 1;
            while (line_start > text && line_start[-1] != '\n')
                line_start--;
            if (*line_start != '#')
                fail_msg("%s: key %s has no comment above it", names[n], name);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_paths),
        cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_syntax_details),
        cmocka_unit_test(test_tiny_floats_and_nul),
        cmocka_unit_test(test_write_round_trip),
        cmocka_unit_test(test_enum_names_match_modules),
        cmocka_unit_test(test_example_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
