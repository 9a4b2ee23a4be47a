/* test_net_search.c — a net carries the search it was trained with (nn/h5io.h /search, "Ship the
 * result"): a tiny training run writes its config's values into latest.h5, best.h5 and every checkpoint; an
 * az agent on such a file searches with them, an explicit spec key wins over them, a net without the record
 * gets the built-in defaults exactly as before; a damaged or ill-typed record is an error naming the file
 * and the field (exit 2 from the CLI), never a crash; `sowzero export` carries the record and --config
 * writes a config's; the generic az (other games) takes sims, c_puct, fpu and batch from it. The training
 * run's self-play uses a worker thread, hence: */
// ctest-labels: threads
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <hdf5.h>

#include "tests/test_util.h"
#include "tests/train_util.h"
#include "tests/nn_reseal.h"

#include "eval/game_agent.h"
#include "eval/game_agent.h"
#include "selfplay/mcts.h"

#define RULES "kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0"

/* The settings of the run below: none at its default, so each one read back proves it came from the file. */
#define RUN_SETS                                                                                                  \
    "mcts.c_puct=0.6 mcts.fpu_reduction=0.1 mcts.margin_utility=2 mcts.solver=false eval.sims=6 eval.batch=2 "    \
    "mcts.gumbel_k=8 mcts.gumbel_c_visit=30 mcts.gumbel_c_scale=0.5"

static char run_dir[1024];

/* One tiny run for the whole file (the agent tests use its nets). */
static int setup_run(void **state)
{
    (void)state;
    cfg_config c;
    tiny(&c, RUN_SETS);
    snprintf(run_dir, sizeof run_dir, "%s", scratch("net-search"));
    train_options o = {.run_dir = run_dir};
    char err[TRAIN_ERRLEN];
    if (train_run(&c, &o, NULL, err) != TRAIN_OK) {
        fprintf(stderr, "train_run: %s\n", err);
        return -1;
    }
    return 0;
}

static void expect_run_record(const nn_search *s)
{
    assert_int_equal(s->sims, 6);
    assert_int_equal(s->batch, 2);
    assert_true(s->c_puct == 0.6);
    assert_true(s->fpu_reduction == 0.1);
    assert_true(s->margin_utility == 2);
    assert_int_equal(s->solver, 0);
    assert_string_equal(s->root, "puct");
    assert_int_equal(s->gumbel_k, 8);
    assert_true(s->gumbel_c_visit == 30);
    assert_true(s->gumbel_c_scale == 0.5);
}

static const char *run_file(const char *name)
{
    static char path[2][1200];
    static int k;
    k ^= 1;
    snprintf(path[k], sizeof path[k], "%s/%s", run_dir, name);
    return path[k];
}

/* Every net the run wrote carries the config's settings (checkpoints through nn_ckpt_load as well). */
static void test_train_writes_record(void **state)
{
    (void)state;
    const char *names[] = {"latest.h5", "best.h5", "checkpoints/iter-000001.h5"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        nn_file_info info;
        nn_net *net = NULL;
        char err[NN_ERRLEN];
        if (nn_load(run_file(names[i]), RULES, &net, &info, err) != NN_OK)
            fail_msg("%s", err);
        assert_int_equal(info.have_search, 1);
        expect_run_record(&info.search);
        nn_net_free(net);
    }
    nn_file_info info;
    nn_net *net = NULL;
    nn_optim *opt = NULL;
    nn_ckpt *st = NULL;
    char err[NN_ERRLEN];
    assert_int_equal(nn_ckpt_load(run_file("checkpoints/iter-000001.h5"), RULES, &net, &opt, &st, &info, err), NN_OK);
    expect_run_record(&info.search);
    nn_net_free(net);
    nn_optim_free(opt);
    nn_ckpt_free(st);
}

static game_agent *make_agent(const char *fmt, const char *path)
{
    char spec[AGENT_SPEC_MAX], err[AGENT_ERRLEN];
    snprintf(spec, sizeof spec, fmt, path);
    static game *g; /* one Kalah game for every agent of the run (reachable: not a leak) */
    if (!g)
        g = game_create("kalah", NULL);
    assert_non_null(g);
    game_agent *a = game_agent_create(spec, g, err);
    if (!a)
        fail_msg("%s", err);
    return a;
}

/* Without keys, the az agent searches with the run's settings; its description says so. */
static void test_agent_uses_record(void **state)
{
    (void)state;
    game_agent *a = make_agent("az:net=%s", run_file("best.h5"));
    agent_search_info si;
    assert_int_equal(game_agent_search_settings(a, &si), AGENT_OK);
    assert_int_equal(si.sims, 6);
    assert_int_equal(si.batch, 2);
    assert_true(si.c_puct == 0.6);
    assert_true(si.fpu_reduction == 0.1);
    assert_true(si.margin_utility == 2);
    assert_int_equal(si.solver, 0);
    assert_int_equal(si.gumbel, 0);
    assert_int_equal(si.net_record, 1);
    assert_int_equal(si.from_net, AGENT_FROM_SIMS | AGENT_FROM_C_PUCT | AGENT_FROM_FPU | AGENT_FROM_BATCH |
                                      AGENT_FROM_MARGIN | AGENT_FROM_SOLVER | AGENT_FROM_ROOT);
    const char *d = game_agent_describe(a);
    assert_non_null(strstr(d, ",sims=6,c_puct=0.6,fpu=0.1,batch=2,margin=2,solver=0,root=puct"));
    assert_non_null(strstr(d, "from the net's search record: sims, c_puct, fpu, batch, margin, solver, root"));
    /* it plays: a move from the start */
    game *g = game_create("kalah", NULL);
    game_pos p;
    game_start(g, &p);
    game_free(g);
    int mv = -1;
    assert_int_equal(game_agent_choose(a, &p, &mv), AGENT_OK);
    assert_true(mv >= 0 && mv < 6);
    game_agent_free(a);
}

/* A key given in the spec wins over the record; the others still come from it. */
static void test_explicit_key_wins(void **state)
{
    (void)state;
    game_agent *a = make_agent("az:net=%s,c_puct=2,sims=3,margin=0,solver=1,root=gumbel,gumbel_k=4", run_file("latest.h5"));
    agent_search_info si;
    assert_int_equal(game_agent_search_settings(a, &si), AGENT_OK);
    assert_int_equal(si.sims, 3);
    assert_true(si.c_puct == 2);
    assert_true(si.margin_utility == 0);
    assert_int_equal(si.solver, 1);
    assert_int_equal(si.gumbel, 1);
    assert_int_equal(si.gumbel_k, 4);
    assert_true(si.gumbel_c_visit == 30); /* from the record, as are fpu and batch */
    assert_true(si.fpu_reduction == 0.1);
    assert_int_equal(si.batch, 2);
    assert_int_equal(si.from_net, AGENT_FROM_FPU | AGENT_FROM_BATCH);
    game_agent_free(a);
    /* root=gumbel over a puct record: the record's Gumbel constants, and the description names them as its */
    a = make_agent("az:net=%s,root=gumbel", run_file("latest.h5"));
    assert_int_equal(game_agent_search_settings(a, &si), AGENT_OK);
    assert_int_equal(si.gumbel, 1);
    assert_int_equal(si.gumbel_k, 8);
    assert_true(si.gumbel_c_visit == 30 && si.gumbel_c_scale == 0.5);
    assert_int_equal(si.from_net, AGENT_FROM_SIMS | AGENT_FROM_C_PUCT | AGENT_FROM_FPU | AGENT_FROM_BATCH |
                                      AGENT_FROM_MARGIN | AGENT_FROM_SOLVER | AGENT_FROM_GUMBEL);
    assert_non_null(strstr(game_agent_describe(a), ",root=gumbel,gumbel_k=8,gumbel_c_visit=30,gumbel_c_scale=0.5 (from "
                                              "the net's search record: sims, c_puct, fpu, batch, margin, solver, "
                                              "gumbel_*)"));
    game_agent_free(a);
    /* sims=0 (the raw policy) given explicitly against a record of 6 */
    a = make_agent("az:net=%s,sims=0", run_file("latest.h5"));
    assert_int_equal(game_agent_search_settings(a, &si), AGENT_OK);
    assert_int_equal(si.sims, 0);
    game_agent_free(a);
}

/* A net without the record: the built-in defaults, exactly as before the record existed. */
static void test_no_record_defaults(void **state)
{
    (void)state;
    char err[NN_ERRLEN];
    nn_net *net = load_net(run_dir, "latest.h5");
    const char *plain = tu_tmp_path("net-search-plain.h5");
    assert_int_equal(nn_export_save(plain, net, RULES, KALAH_ENCODING_NAME, err), NN_OK);
    nn_net_free(net);
    nn_file_info info;
    assert_int_equal(nn_load(plain, RULES, &net, &info, err), NN_OK);
    assert_int_equal(info.have_search, 0);
    nn_net_free(net);
    game_agent *a = make_agent("az:net=%s", plain);
    agent_search_info si;
    assert_int_equal(game_agent_search_settings(a, &si), AGENT_OK);
    mcts_config d = mcts_config_default();
    assert_int_equal(si.sims, 200);
    assert_int_equal(si.batch, 1);
    assert_true(si.c_puct == d.c_puct);
    assert_true(si.fpu_reduction == d.fpu_reduction);
    assert_true(si.margin_utility == d.margin_utility);
    assert_int_equal(si.solver, d.solver);
    assert_int_equal(si.gumbel, d.root == MCTS_ROOT_GUMBEL);
    assert_int_equal(si.net_record, 0);
    assert_int_equal(si.from_net, 0);
    assert_non_null(strstr(game_agent_describe(a), "the net records no search settings"));
    game_agent_free(a);
    /* other kinds: no search settings, the description is the spec */
    a = make_agent("%s", "ab:depth=2");
    assert_int_equal(game_agent_search_settings(a, &si), AGENT_EINVAL);
    assert_string_equal(game_agent_describe(a), "ab:depth=2");
    game_agent_free(a);
}

/* Rewrites /search of path by one edit, then reseals the file so the loader meets the edit. */
static void edit_record(const char *path, const char *what)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t sp = H5Screate(H5S_SCALAR);
    if (!strcmp(what, "group")) { /* /search a dataset, not a group */
        assert_true(H5Ldelete(f, "search", H5P_DEFAULT) >= 0);
        hid_t d = H5Dcreate2(f, "search", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dclose(d);
    } else {
        hid_t g = H5Gopen2(f, "search", H5P_DEFAULT);
        assert_true(g >= 0);
        if (!strcmp(what, "missing"))
            assert_true(H5Adelete(g, "fpu_reduction") >= 0);
        else if (!strcmp(what, "string")) { /* c_puct a string */
            assert_true(H5Adelete(g, "c_puct") >= 0);
            hid_t t = H5Tcopy(H5T_C_S1);
            H5Tset_size(t, 4);
            hid_t a = H5Acreate2(g, "c_puct", t, sp, H5P_DEFAULT, H5P_DEFAULT);
            H5Awrite(a, t, "0.7");
            H5Aclose(a);
            H5Tclose(t);
        } else { /* a double where a whole number is due, or out of range */
            const char *name = !strcmp(what, "fraction") ? "solver" : !strcmp(what, "root") ? "root" : "c_puct";
            double v = !strcmp(what, "fraction") ? 0.5 : -1;
            assert_true(H5Adelete(g, name) >= 0);
            if (!strcmp(what, "root")) { /* a number where the root's name is due */
                hid_t a = H5Acreate2(g, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
                long long one = 1;
                H5Awrite(a, H5T_NATIVE_LLONG, &one);
                H5Aclose(a);
            } else {
                hid_t a = H5Acreate2(g, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
                H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
                H5Aclose(a);
            }
        }
        H5Gclose(g);
    }
    H5Sclose(sp);
    assert_true(H5Fclose(f) >= 0);
    assert_int_equal(tu_reseal(path), 0);
}

/* A damaged or ill-typed record: nn_load, the agent and the CLI name the file and the field; exit 2. */
static void test_bad_record(void **state)
{
    (void)state;
    struct {
        const char *what, *needle;
    } cases[] = {{"group", "/search is not a readable group"},
                 {"missing", "lacks the field 'fpu_reduction'"},
                 {"string", "'c_puct' has the wrong type"},
                 {"fraction", "field solver = 0.5 is not a whole number"},
                 {"range", "field c_puct = -1 is out of range"},
                 {"root", "attribute 'root' has the wrong type"}};
    const char *bad = tu_tmp_path("net-search-bad.h5");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[3000], err[NN_ERRLEN], aerr[AGENT_ERRLEN];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", run_file("latest.h5"), bad);
        assert_int_equal(system(cmd), 0);
        edit_record(bad, cases[i].what);
        nn_net *net = NULL;
        nn_file_info info;
        assert_int_equal(nn_load(bad, NULL, &net, &info, err), NN_EFORMAT);
        assert_null(net);
        if (!strstr(err, bad) || !strstr(err, cases[i].needle))
            fail_msg("%s: '%s' lacks the file or '%s'", cases[i].what, err, cases[i].needle);
        char spec[2000];
        snprintf(spec, sizeof spec, "az:net=%s,sims=2", bad);
        game *kg = game_create("kalah", NULL);
        assert_null(game_agent_create(spec, kg, aerr));
        game_free(kg);
        if (!strstr(aerr, bad) || !strstr(aerr, cases[i].needle))
            fail_msg("agent: '%s'", aerr);
        char *out = NULL;
        assert_int_equal(tu_run(&out, 1, "net --net '%s'", bad), 2);
        assert_non_null(strstr(out, cases[i].needle));
        free(out);
        assert_int_equal(tu_run(&out, 1, "match 'az:net=%s,sims=2' random --games 2", bad), 2);
        assert_non_null(strstr(out, cases[i].needle));
        free(out);
    }
    /* the writer refuses a record out of range */
    nn_net *net = load_net(run_dir, "latest.h5");
    nn_search s;
    memset(&s, 0, sizeof s);
    s.sims = 1, s.batch = 1, s.c_puct = 1, s.gumbel_k = 16, s.gumbel_c_scale = 1;
    snprintf(s.root, sizeof s.root, "puct");
    char err[NN_ERRLEN];
    assert_int_equal(nn_search_check(&s, err), NN_OK);
    s.batch = 65;
    assert_int_equal(nn_export_save_search(bad, net, RULES, KALAH_ENCODING_NAME, &s, err), NN_EINVAL);
    assert_non_null(strstr(err, "batch = 65 is out of range"));
    s.batch = 1;
    snprintf(s.root, sizeof s.root, "other");
    assert_int_equal(nn_search_check(&s, err), NN_EINVAL);
    assert_non_null(strstr(err, "root"));
    nn_net_free(net);
}

/* The CLI: `net` shows the record, `export` carries it, `export --config` writes a config's (and refuses one
 * for other rules), the agent's effective settings appear in `accuracy` and `match`. */
static void test_cli(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(tu_run(&out, 1, "net --net '%s'", run_file("best.h5")), 0);
    assert_non_null(strstr(out, "search sims=6,c_puct=0.6,fpu=0.1,batch=2,margin=2,solver=0,root=puct"));
    free(out);
    assert_int_equal(tu_run(&out, 0, "net --net '%s' --json", run_file("best.h5")), 0);
    assert_non_null(strstr(out, "\"search\":{\"sims\":6,\"batch\":2,\"c_puct\":0.6"));
    free(out);
    const char *plain = tu_tmp_path("net-search-plain.h5"), *copy = tu_tmp_path("net-search-copy.h5");
    assert_int_equal(tu_run(&out, 1, "net --net '%s' --json", plain), 0);
    assert_non_null(strstr(out, "\"search\":null"));
    free(out);
    /* export keeps the record */
    assert_int_equal(tu_run(&out, 0, "export '%s' '%s' --json", run_file("best.h5"), copy), 0);
    assert_non_null(strstr(out, "\"search\":{\"sims\":6"));
    free(out);
    /* --config: the config's settings onto a net without them (the way nets/kalah-6-4.h5 got its record) */
    const char *ini = tu_tmp_path("net-search.ini");
    tu_write_text(ini, "[rules]\ngame = kalah\n[net]\nhidden = 16,16\n[mcts]\nc_puct = 0.9\nmargin_utility = 3\n"
                       "[eval]\nsims = 123\n[run]\niterations = 1\n");
    assert_int_equal(tu_run(&out, 1, "export '%s' '%s' --config '%s'", plain, copy, ini), 0);
    assert_non_null(strstr(out, "search record: sims=123,c_puct=0.9,fpu=0.25,batch=1,margin=3,solver=1,root=puct"));
    free(out);
    nn_file_info info;
    nn_net *net = NULL, *orig = load_net(run_dir, "latest.h5");
    char err[NN_ERRLEN];
    assert_int_equal(nn_load(copy, RULES, &net, &info, err), NN_OK);
    assert_int_equal(info.have_search, 1);
    assert_int_equal(info.search.sims, 123);
    assert_true(info.search.c_puct == 0.9);
    /* the weights unchanged, bit for bit */
    assert_int_equal(nn_param_count(net), nn_param_count(orig));
    assert_memory_equal(nn_params_const(net), nn_params_const(orig), nn_param_count(net) * sizeof(float));
    nn_net_free(net);
    nn_net_free(orig);
    tu_write_text(ini, "[rules]\ngame = kalah\npits = 4\n[run]\niterations = 1\n");
    assert_int_equal(tu_run(&out, 1, "export '%s' '%s' --config '%s'", plain, copy, ini), 2);
    assert_non_null(strstr(out, "is for rules 'kalah:pits=4"));
    free(out);
    tu_write_text(ini, "[mcts]\nc_puct = -1\n");
    assert_int_equal(tu_run(&out, 1, "export '%s' '%s' --config '%s'", plain, copy, ini), 2);
    assert_non_null(strstr(out, "net-search.ini:2"));
    free(out);
    /* the agent as it plays, beside its spec */
    assert_int_equal(tu_run(&out, 1, "match 'az:net=%s,sims=2' random --games 2", run_file("best.h5")), 0);
    assert_non_null(strstr(out, "plays as az:net="));
    assert_non_null(strstr(out, ",sims=2,c_puct=0.6,fpu=0.1,batch=2,margin=2,solver=0,root=puct (from the net's"));
    free(out);
    assert_int_equal(tu_run(&out, 0, "match 'az:net=%s,sims=2' random --games 2 --json", run_file("best.h5")), 0);
    assert_non_null(strstr(out, "\"plays\":\"az:net="));
    /* "plays" is a spec that plays the same (it ends with its last key), the note its own field */
    assert_non_null(strstr(out, ",root=puct\",\"plays_note\":\"from the net's search record: "));
    assert_non_null(strstr(out, "\"plays\":null,\"plays_note\":null")); /* random */
    free(out);
}

/* export --config refuses a record with margin_utility > 0 for a net without a margin head: the az agent would
 * refuse every use of the file (selfplay/evaluator.c) unless each spec said margin=0. Without the margin it
 * writes the record. */
static void test_export_config_margin_head(void **state)
{
    (void)state;
    char err[NN_ERRLEN], *out = NULL;
    game *g = tu_game("kalah");
    nn_config c = nn_config_default(game_encode_dim(g), game_moves(g));
    c.hidden[0] = c.hidden[1] = c.hidden[2] = 8;
    c.margin_head = 0;
    nn_net *net = nn_net_create(&c, 5, err);
    assert_non_null(net);
    const char *path = tu_tmp_path("net-search-nomargin.h5"), *copy = tu_tmp_path("net-search-nomargin-copy.h5");
    assert_int_equal(nn_export_save_search(path, net, game_spec(g), game_encoding_name(g), NULL, err), NN_OK);
    nn_net_free(net);
    game_free(g);
    const char *ini = tu_tmp_path("net-search-margin.ini");
    tu_write_text(ini, "[rules]\ngame = kalah\n[mcts]\nmargin_utility = 3\n[run]\niterations = 1\n");
    remove(copy);
    assert_int_equal(tu_run(&out, 1, "export '%s' '%s' --config '%s'", path, copy, ini), 2);
    assert_non_null(strstr(out, "mcts.margin_utility = 3 needs a net with a margin head"));
    assert_non_null(strstr(out, "net-search-margin.ini"));
    free(out);
    FILE *f = fopen(copy, "rb"); /* nothing written */
    assert_null(f);
    tu_write_text(ini, "[rules]\ngame = kalah\n[mcts]\nmargin_utility = 0\n[net]\nmargin_head = false\n"
                       "[eval]\nsims = 9\n[run]\niterations = 1\n");
    assert_int_equal(tu_run(&out, 1, "export '%s' '%s' --config '%s'", path, copy, ini), 0);
    assert_non_null(strstr(out, "search record: sims=9,"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "match 'az:net=%s,sims=1' random --games 2 --threads 1", copy), 0);
    free(out);
}

/* The generic az of the other games takes sims, c_puct, fpu, batch, the root keys and, in two-player games
 * with a margin, margin and solver from the record. */
static void test_generic_az(void **state)
{
    (void)state;
    char err[NN_ERRLEN], aerr[AGENT_ERRLEN], spec[1200];
    game *g = tu_game("oware");
    nn_config c = nn_config_default(game_encode_dim(g), game_moves(g));
    c.n_value = game_value_dim(g);
    c.hidden[0] = c.hidden[1] = c.hidden[2] = 8;
    nn_net *net = nn_net_create(&c, 3, err);
    assert_non_null(net);
    nn_search s = {.sims = 7, .batch = 3, .c_puct = 0.5, .fpu_reduction = 0.3, .margin_utility = 0, .solver = 1,
                   .root = "puct", .gumbel_k = 16, .gumbel_c_visit = 50, .gumbel_c_scale = 1};
    const char *path = tu_tmp_path("net-search-oware.h5");
    assert_int_equal(nn_export_save_search(path, net, game_spec(g), game_encoding_name(g), &s, err), NN_OK);
    nn_net_free(net);
    snprintf(spec, sizeof spec, "az:net=%s,fpu=0.2", path);
    game_agent *a = game_agent_create(spec, g, aerr);
    if (!a)
        fail_msg("%s", aerr);
    const char *d = game_agent_describe(a);
    assert_non_null(strstr(d, ",sims=7,c_puct=0.5,fpu=0.2,batch=3,margin=0,solver=1,root=puct (from the net's search "
                              "record: sims, c_puct, batch, margin, solver, root)"));
    game_pos p;
    game_start(g, &p);
    int mv = -1;
    assert_int_equal(game_agent_choose(a, &p, &mv), AGENT_OK);
    game_agent_free(a);
    /* a Gumbel record: the root and its constants too, a spec key still winning */
    snprintf(s.root, sizeof s.root, "gumbel");
    s.gumbel_k = 4;
    s.gumbel_c_scale = 0.1;
    nn_net *net2 = nn_net_create(&c, 3, err);
    assert_non_null(net2);
    assert_int_equal(nn_export_save_search(path, net2, game_spec(g), game_encoding_name(g), &s, err), NN_OK);
    nn_net_free(net2);
    snprintf(spec, sizeof spec, "az:net=%s,gumbel_k=3", path);
    if (!(a = game_agent_create(spec, g, aerr)))
        fail_msg("%s", aerr);
    d = game_agent_describe(a);
    if (!strstr(d, ",batch=3,margin=0,solver=1,root=gumbel,gumbel_k=3,gumbel_c_visit=50,gumbel_c_scale=0.1 (from the "
                   "net's search record: sims, c_puct, fpu, batch, margin, solver, root)"))
        fail_msg("%s", d);
    assert_int_equal(game_agent_choose(a, &p, &mv), AGENT_OK);
    game_agent_free(a);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_writes_record), cmocka_unit_test(test_agent_uses_record),
        cmocka_unit_test(test_explicit_key_wins),   cmocka_unit_test(test_no_record_defaults),
        cmocka_unit_test(test_bad_record),          cmocka_unit_test(test_cli),
        cmocka_unit_test(test_generic_az),          cmocka_unit_test(test_export_config_margin_head),
    };
    return cmocka_run_group_tests(tests, setup_run, NULL);
}
