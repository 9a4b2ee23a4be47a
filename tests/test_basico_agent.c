/* test_basico_agent.c — Mancala básico agent specs (eval/basico_agent.h): every kind legal and deterministic,
 * greedy / maxn / paranoid equal their library functions, az checks its net, bad specs name the fault. */
#include "test_util.h"

#include <sys/stat.h>

#include "eval/basico_agent.h"
#include "eval/basico_search.h"
#include "nn/h5io.h"
#include "nn/net.h"

static basico_rules rules3(void)
{
    basico_rules r = basico_rules_default();
    r.players = 3;
    r.pits = 4;
    return r;
}

/* Positions along a seeded random game (and a few more games), unfinished ones only. */
static int some_positions(const basico_rules *r, basico_pos *out, int max, uint64_t seed)
{
    int n = 0;
    uint64_t s = seed;
    while (n < max) {
        basico_pos p;
        basico_start(r, &p);
        while (!p.over && n < max) {
            out[n++] = p;
            unsigned legal = basico_legal(r, &p);
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            int j = (int)((s >> 33) % (unsigned)__builtin_popcount(legal));
            int k = 0;
            for (;; k++)
                if (legal & (1u << k) && j-- == 0)
                    break;
            assert_int_equal(basico_play(r, &p, k, NULL), BASICO_OK);
        }
    }
    return n;
}

static void check_legal_and_deterministic(const char *spec, const basico_rules *r, int npos)
{
    basico_pos pos[200];
    int n = some_positions(r, pos, npos, 7);
    char err[AGENT_ERRLEN];
    basico_agent *a = basico_agent_create(spec, r, err), *b = basico_agent_create(spec, r, err);
    if (!a || !b)
        fail_msg("%s: %s", spec, err);
    basico_pos start;
    basico_start(r, &start);
    basico_agent_new_game(a, &start, 99);
    basico_agent_new_game(b, &start, 99);
    for (int i = 0; i < n; i++) {
        int ma = -1, mb = -1;
        assert_int_equal(basico_agent_choose(a, &pos[i], &ma), AGENT_OK);
        assert_int_equal(basico_agent_choose(b, &pos[i], &mb), AGENT_OK);
        assert_true(ma >= 0 && ma < r->pits);
        assert_true(basico_legal(r, &pos[i]) & (1u << ma));
        if (ma != mb)
            fail_msg("%s: two instances chose %d and %d at position %d", spec, ma, mb, i);
        basico_agent_notify(a, &pos[i], ma);
    }
    basico_agent_free(a);
    basico_agent_free(b);
}

static void test_kinds_legal_deterministic(void **state)
{
    (void)state;
    basico_rules r = rules3(), r2 = basico_rules_default();
    r2.players = 2;
    const char *specs[] = {"random", "random,seed=5", "greedy", "maxn:depth=2", "paranoid:depth=3",
                           "mcts:sims=40", "mcts:sims=30,rollouts=2,c_puct=2,solver=0,seed=3"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        check_legal_and_deterministic(specs[i], &r, strncmp(specs[i], "mcts", 4) ? 120 : 25);
        check_legal_and_deterministic(specs[i], &r2, strncmp(specs[i], "mcts", 4) ? 60 : 10);
    }
}

static void test_kind_names_and_seeds(void **state)
{
    (void)state;
    basico_rules r = rules3();
    char err[AGENT_ERRLEN];
    const char *specs[] = {"random", "greedy", "maxn", "paranoid", "mcts", "random:seed=3"};
    const char *kinds[] = {"random", "greedy", "maxn", "paranoid", "mcts", "random"};
    for (int i = 0; i < 6; i++) {
        basico_agent *a = basico_agent_create(specs[i], &r, err);
        assert_non_null(a);
        assert_string_equal(basico_agent_kind(a), kinds[i]);
        assert_string_equal(basico_agent_spec(a), specs[i]);
        basico_agent_free(a);
    }
    /* random: a different game seed gives a different sequence of choices at the start position. */
    basico_agent *a = basico_agent_create("random", &r, err);
    basico_pos p;
    basico_start(&r, &p);
    int seq[2][40];
    for (int g = 0; g < 2; g++) {
        basico_agent_new_game(a, &p, (uint64_t)g + 1);
        for (int i = 0; i < 40; i++)
            assert_int_equal(basico_agent_choose(a, &p, &seq[g][i]), AGENT_OK);
    }
    assert_true(memcmp(seq[0], seq[1], sizeof seq[0]) != 0);
    /* and the same game seed repeats it */
    basico_agent_new_game(a, &p, 1);
    for (int i = 0; i < 40; i++) {
        int m;
        basico_agent_choose(a, &p, &m);
        assert_int_equal(m, seq[0][i]);
    }
    basico_agent_free(a);
}

static void test_library_equivalence(void **state)
{
    (void)state;
    basico_rules rs[2] = {rules3(), basico_rules_default()};
    rs[1].players = 4;
    rs[1].pits = 4;
    rs[1].full_ranking = 0;
    char err[AGENT_ERRLEN];
    for (int ri = 0; ri < 2; ri++) {
        const basico_rules *r = &rs[ri];
        basico_pos pos[150];
        int n = some_positions(r, pos, 150, 11 + ri);
        basico_agent *g = basico_agent_create("greedy,seed=4", r, err);
        basico_agent *mx = basico_agent_create("maxn:depth=3", r, err);
        basico_agent *pa = basico_agent_create("paranoid:depth=4,seed=9", r, err);
        basico_agent *md = basico_agent_create("maxn", r, err); /* default depth 4 */
        assert_non_null(g);
        assert_non_null(mx);
        assert_non_null(pa);
        assert_non_null(md);
        for (int i = 0; i < n; i++) {
            int m;
            bs_result res;
            assert_int_equal(basico_agent_choose(g, &pos[i], &m), AGENT_OK);
            assert_int_equal(m, basico_greedy_move(r, &pos[i]));
            assert_int_equal(basico_agent_choose(mx, &pos[i], &m), AGENT_OK);
            assert_int_equal(bs_search(r, &pos[i], BS_MAXN, 3, &res), BASICO_OK);
            assert_int_equal(m, res.move);
            assert_int_equal(basico_agent_choose(md, &pos[i], &m), AGENT_OK);
            assert_int_equal(bs_search(r, &pos[i], BS_MAXN, 4, &res), BASICO_OK);
            assert_int_equal(m, res.move);
            assert_int_equal(basico_agent_choose(pa, &pos[i], &m), AGENT_OK);
            assert_int_equal(bs_search(r, &pos[i], BS_PARANOID, 4, &res), BASICO_OK);
            assert_int_equal(m, res.move);
        }
        basico_agent_free(g);
        basico_agent_free(mx);
        basico_agent_free(pa);
        basico_agent_free(md);
    }
}

static void test_over_position(void **state)
{
    (void)state;
    basico_rules r = rules3();
    char err[AGENT_ERRLEN];
    basico_agent *a = basico_agent_create("greedy", &r, err);
    basico_pos p;
    basico_start(&r, &p);
    while (!p.over)
        assert_int_equal(basico_play(&r, &p, basico_greedy_move(&r, &p), NULL), BASICO_OK);
    int m = 7;
    assert_int_equal(basico_agent_choose(a, &p, &m), AGENT_EOVER);
    assert_string_equal(basico_agent_error(a), "the game is over");
    basico_agent_free(a);
}

static void test_bad_specs(void **state)
{
    (void)state;
    basico_rules r = rules3();
    static const char *cases[][2] = {
        {"", "empty agent spec"},
        {"ab:depth=3", "agent 'ab:depth=3': unknown kind 'ab' for basico (random, greedy, maxn, paranoid, mcts, az)"},
        {"maxn:dept=3", "agent 'maxn:dept=3': unknown key 'dept' for maxn (keys: depth, seed)"},
        {"maxn:depth=0", "agent 'maxn:depth=0': depth=0 is not a whole number in 1..12"},
        {"paranoid:depth=x", "depth=x is not a whole number in 1..12"},
        {"mcts:players=3", "agent 'mcts:players=3': 'players' is a rules key, not an agent key (give the rules "
                           "with --rules)"},
        {"greedy:pits=4", "'pits' is a rules key"},
        {"greedy:", "nothing after ':'"},
        {"random,seed=x", "seed=x is not a whole number"},
        {"mcts:sims", "'sims' is not key=value"},
        {"mcts:sims=5,sims=6", "key 'sims' given twice"},
        {"mcts:sims=0", "sims=0 is not a whole number in 1..10000000"},
        {"mcts:depth=3", "unknown key 'depth' for mcts (keys: sims, rollouts, c_puct, solver, seed)"},
        {"mcts:c_puct=-1", "c_puct=-1 is not a number"},
        {"mcts:solver=2", "solver=2 is not a whole number in 0..1"},
        {"az:sims=5", "agent 'az:sims=5': az needs net=PATH.h5"},
        {"az:net=/nonexistent/x.h5,sims=5", "net=/nonexistent/x.h5"},
        {"random:depth=2", "unknown key 'depth' for random (keys: seed)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[AGENT_ERRLEN] = "";
        basico_agent *a = basico_agent_create(cases[i][0], &r, err);
        if (a)
            fail_msg("'%s' was accepted", cases[i][0]);
        if (!strstr(err, cases[i][1]))
            fail_msg("'%s': message '%s' lacks '%s'", cases[i][0], err, cases[i][1]);
    }
    basico_rules bad = r;
    bad.players = 5;
    char err[AGENT_ERRLEN] = "";
    assert_null(basico_agent_create("random", &bad, err));
    assert_non_null(strstr(err, "bad rules"));
}

/* ---- az ---- */

static void export_net(const char *path, const basico_rules *r, int input_dim, int n_policy, int n_value,
                       const char *rules_text, const char *encoding)
{
    nn_config cfg = nn_config_default(input_dim, n_policy);
    cfg.n_hidden = 1;
    cfg.hidden[0] = 16;
    cfg.n_value = n_value;
    cfg.margin_head = 0;
    char err[NN_ERRLEN], rules[128];
    nn_net *net = nn_net_create(&cfg, 5, err);
    if (!net)
        fail_msg("nn_net_create: %s", err);
    if (nn_export_save(path, net, rules_text ? rules_text : basico_rules_format(r, rules, sizeof rules), encoding,
                       err) != NN_OK)
        fail_msg("export: %s", err);
    nn_net_free(net);
}

static void tmp_path(char *buf, size_t n, const char *name)
{
    mkdir(SOWZERO_TMP, 0777);
    snprintf(buf, n, "%s/test_basico_agent_%s.h5", SOWZERO_TMP, name);
}

static void expect_az_error(const char *path, const basico_rules *r, const char *want)
{
    char spec[600], err[AGENT_ERRLEN] = "";
    snprintf(spec, sizeof spec, "az:net=%s,sims=4", path);
    basico_agent *a = basico_agent_create(spec, r, err);
    if (a)
        fail_msg("%s was accepted", spec);
    if (!strstr(err, want) || !strstr(err, "net="))
        fail_msg("%s: message '%s' lacks '%s'", spec, err, want);
}

static void test_az_checks_net(void **state)
{
    (void)state;
    basico_rules r = rules3(), r2 = r;
    r2.players = 2;
    r2.pits = 6;
    int dim = basico_encode_dim(&r);
    char ok[512], wrong_rules[512], wrong_nv[512], wrong_enc[512], wrong_dim[512];
    tmp_path(ok, sizeof ok, "ok");
    tmp_path(wrong_rules, sizeof wrong_rules, "rules");
    tmp_path(wrong_nv, sizeof wrong_nv, "nvalue");
    tmp_path(wrong_enc, sizeof wrong_enc, "encoding");
    tmp_path(wrong_dim, sizeof wrong_dim, "dim");
    char rules2[128];
    export_net(ok, &r, dim, r.pits, r.players, NULL, BASICO_ENCODING_NAME);
    export_net(wrong_rules, &r, dim, r.pits, r.players, basico_rules_format(&r2, rules2, sizeof rules2),
               BASICO_ENCODING_NAME);
    export_net(wrong_nv, &r, dim, r.pits, 1, NULL, BASICO_ENCODING_NAME);
    export_net(wrong_enc, &r, dim, r.pits, r.players, NULL, KALAH_ENCODING_NAME);
    export_net(wrong_dim, &r, dim + 1, r.pits, r.players, NULL, BASICO_ENCODING_NAME);
    expect_az_error(wrong_rules, &r, "net was trained for rules 'basico:players=2,pits=6");
    expect_az_error(wrong_nv, &r, "has n_value 1 (value outputs), the game has 3 players");
    expect_az_error(wrong_enc, &r, "uses input encoding");
    expect_az_error(wrong_dim, &r, "input_dim");

    /* The right net: sims=0 plays the policy's argmax over the legal pits; a search plays legal moves. */
    char spec[600], err[AGENT_ERRLEN];
    snprintf(spec, sizeof spec, "az:net=%s,sims=0", ok);
    basico_agent *raw = basico_agent_create(spec, &r, err);
    if (!raw)
        fail_msg("%s: %s", spec, err);
    nn_net *net;
    char nerr[NN_ERRLEN];
    assert_int_equal(nn_load(ok, NULL, &net, NULL, nerr), NN_OK);
    nn_workspace *ws = nn_workspace_create(net, 1);
    basico_pos pos[60];
    int n = some_positions(&r, pos, 60, 3);
    for (int i = 0; i < n; i++) {
        float x[64], policy[BASICO_MAX_PITS], value[BASICO_MAX_PLAYERS];
        uint8_t legal[BASICO_MAX_PITS];
        unsigned lm = basico_legal(&r, &pos[i]);
        basico_encode(&r, &pos[i], x);
        for (int k = 0; k < r.pits; k++)
            legal[k] = (uint8_t)(lm >> k & 1u);
        assert_int_equal(nn_forward(net, ws, x, legal, 1, policy, value), NN_OK);
        int best = -1;
        for (int k = 0; k < r.pits; k++)
            if (legal[k] && (best < 0 || policy[k] > policy[best]))
                best = k;
        int m;
        assert_int_equal(basico_agent_choose(raw, &pos[i], &m), AGENT_OK);
        assert_int_equal(m, best);
    }
    nn_workspace_free(ws);
    nn_net_free(net);
    basico_agent_free(raw);
    snprintf(spec, sizeof spec, "az:net=%s,sims=16,batch=4,fpu=0.3,c_puct=2", ok);
    check_legal_and_deterministic(spec, &r, 20);
    snprintf(spec, sizeof spec, "az:net=%s,sims=12", ok);
    check_legal_and_deterministic(spec, &r, 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_legal_deterministic),
        cmocka_unit_test(test_kind_names_and_seeds),
        cmocka_unit_test(test_library_equivalence),
        cmocka_unit_test(test_over_position),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_az_checks_net),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
