/* test_game_agent.c — Mancala básico through the generic agent specs (eval/game_agent.h): every kind legal
 * and deterministic, greedy equals basico_greedy_move and maxn / paranoid equal gs_search, az checks its
 * net, bad specs name the fault. */
#include "test_util.h"

#include <sys/stat.h>

#include "env/basico.h"
#include "eval/game_agent.h"
#include "eval/game_search.h"
#include "nn/h5io.h"
#include "nn/net.h"

#define G tu_game

static game *rules3(void) { return G("basico:players=3,pits=4"); }

/* The same position as env/basico.h holds it, for the oracles. */
static basico_pos bp(const game *g, const game_pos *p)
{
    char s[GAME_POS_STR], err[GAME_ERRLEN];
    basico_pos b;
    game_pos_format(g, p, s, sizeof s);
    if (basico_pos_parse(s, game_rules(g), &b, err) != BASICO_OK)
        fail_msg("'%s': %s", s, err);
    return b;
}

/* Positions along a seeded random game (and a few more games), unfinished ones only. */
static int some_positions(const game *r, game_pos *out, int max, uint64_t seed)
{
    int n = 0;
    uint64_t s = seed;
    while (n < max) {
        game_pos p;
        game_start(r, &p);
        while (!p.over && n < max) {
            out[n++] = p;
            unsigned legal = game_legal(r, &p);
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            int j = (int)((s >> 33) % (unsigned)__builtin_popcount(legal));
            int k = 0;
            for (;; k++)
                if (legal & (1u << k) && j-- == 0)
                    break;
            assert_int_equal(game_apply(r, &p, k, NULL), GAME_OK);
        }
    }
    return n;
}

static void check_legal_and_deterministic(const char *spec, const game *r, int npos)
{
    game_pos pos[200];
    int n = some_positions(r, pos, npos, 7);
    char err[AGENT_ERRLEN];
    game_agent *a = game_agent_create(spec, r, err), *b = game_agent_create(spec, r, err);
    if (!a || !b)
        fail_msg("%s: %s", spec, err);
    game_pos start;
    game_start(r, &start);
    game_agent_new_game(a, &start, 99);
    game_agent_new_game(b, &start, 99);
    for (int i = 0; i < n; i++) {
        int ma = -1, mb = -1;
        assert_int_equal(game_agent_choose(a, &pos[i], &ma), AGENT_OK);
        assert_int_equal(game_agent_choose(b, &pos[i], &mb), AGENT_OK);
        assert_true(ma >= 0 && ma < game_moves(r));
        assert_true(game_legal(r, &pos[i]) & (1u << ma));
        if (ma != mb)
            fail_msg("%s: two instances chose %d and %d at position %d", spec, ma, mb, i);
        game_agent_notify(a, &pos[i], ma); /* the same history for both: a tree kept between moves alike */
        game_agent_notify(b, &pos[i], ma);
    }
    game_agent_free(a);
    game_agent_free(b);
}

static void test_kinds_legal_deterministic(void **state)
{
    (void)state;
    game *r = rules3(), *r2 = G("basico:players=2");
    const char *specs[] = {"random", "random,seed=5", "greedy", "maxn:depth=2", "paranoid:depth=3",
                           "mcts:sims=40", "mcts:sims=30,rollouts=2,c_puct=2,solver=0,seed=3"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        check_legal_and_deterministic(specs[i], r, strncmp(specs[i], "mcts", 4) ? 120 : 25);
        check_legal_and_deterministic(specs[i], r2, strncmp(specs[i], "mcts", 4) ? 60 : 10);
    }
    check_legal_and_deterministic("ab:depth=3", r2, 60); /* two players: alpha-beta is available */
    check_legal_and_deterministic("mcts:sims=30,root=gumbel,gumbel_k=3", r, 25);
    /* a Gumbel root of one considered move without noise: uniform priors rank the lowest legal slot first,
     * and the halving gives it every simulation, so it is played */
    for (int gi = 0; gi < 2; gi++) {
        const game *gm = gi ? r2 : r;
        game_pos pos[40];
        int n = some_positions(gm, pos, 40, 11);
        char err[AGENT_ERRLEN];
        game_agent *a = game_agent_create("mcts:sims=20,root=gumbel,gumbel_k=1,solver=0", gm, err);
        if (!a)
            fail_msg("%s", err);
        for (int i = 0; i < n; i++) {
            int m;
            assert_int_equal(game_agent_choose(a, &pos[i], &m), AGENT_OK);
            assert_int_equal(m, __builtin_ctz(game_legal(gm, &pos[i])));
        }
        game_agent_free(a);
    }
    game_free(r);
    game_free(r2);
}

static void test_kind_names_and_seeds(void **state)
{
    (void)state;
    game *r = rules3();
    char err[AGENT_ERRLEN];
    const char *specs[] = {"random", "greedy", "maxn", "paranoid", "mcts", "random:seed=3"};
    const char *kinds[] = {"random", "greedy", "maxn", "paranoid", "mcts", "random"};
    for (int i = 0; i < 6; i++) {
        game_agent *a = game_agent_create(specs[i], r, err);
        assert_non_null(a);
        assert_string_equal(game_agent_kind(a), kinds[i]);
        assert_string_equal(game_agent_spec(a), specs[i]);
        game_agent_free(a);
    }
    /* random: a different game seed gives a different sequence of choices at the start position. */
    game_agent *a = game_agent_create("random", r, err);
    game_pos p;
    game_start(r, &p);
    int seq[2][40];
    for (int g = 0; g < 2; g++) {
        game_agent_new_game(a, &p, (uint64_t)g + 1);
        for (int i = 0; i < 40; i++)
            assert_int_equal(game_agent_choose(a, &p, &seq[g][i]), AGENT_OK);
    }
    assert_true(memcmp(seq[0], seq[1], sizeof seq[0]) != 0);
    /* and the same game seed repeats it */
    game_agent_new_game(a, &p, 1);
    for (int i = 0; i < 40; i++) {
        int m;
        game_agent_choose(a, &p, &m);
        assert_int_equal(m, seq[0][i]);
    }
    game_agent_free(a);
    game_free(r);
}

static void test_library_equivalence(void **state)
{
    (void)state;
    game *rs[2] = {rules3(), G("basico:players=4,pits=4,full_ranking=0")};
    char err[AGENT_ERRLEN];
    for (int ri = 0; ri < 2; ri++) {
        const game *r = rs[ri];
        game_pos pos[150];
        int n = some_positions(r, pos, 150, 11 + ri);
        game_agent *g = game_agent_create("greedy,seed=4", r, err);
        game_agent *mx = game_agent_create("maxn:depth=3", r, err);
        game_agent *pa = game_agent_create("paranoid:depth=4,seed=9", r, err);
        game_agent *md = game_agent_create("maxn", r, err); /* default depth 4 */
        assert_non_null(g);
        assert_non_null(mx);
        assert_non_null(pa);
        assert_non_null(md);
        for (int i = 0; i < n; i++) {
            int m;
            gs_result res;
            basico_pos b = bp(r, &pos[i]);
            assert_int_equal(game_agent_choose(g, &pos[i], &m), AGENT_OK);
            assert_int_equal(m, basico_greedy_move(game_rules(r), &b));
            assert_int_equal(game_agent_choose(mx, &pos[i], &m), AGENT_OK);
            assert_int_equal(gs_search(r, &pos[i], GS_MAXN, 3, NULL, &res), GAME_OK);
            assert_int_equal(m, res.move);
            assert_int_equal(game_agent_choose(md, &pos[i], &m), AGENT_OK);
            assert_int_equal(gs_search(r, &pos[i], GS_MAXN, 4, NULL, &res), GAME_OK);
            assert_int_equal(m, res.move);
            assert_int_equal(game_agent_choose(pa, &pos[i], &m), AGENT_OK);
            assert_int_equal(gs_search(r, &pos[i], GS_PARANOID, 4, NULL, &res), GAME_OK);
            assert_int_equal(m, res.move);
        }
        game_agent_free(g);
        game_agent_free(mx);
        game_agent_free(pa);
        game_agent_free(md);
    }
    game_free(rs[0]);
    game_free(rs[1]);
}

static void test_over_position(void **state)
{
    (void)state;
    game *r = rules3();
    char err[AGENT_ERRLEN];
    game_agent *a = game_agent_create("greedy", r, err);
    game_pos p;
    game_start(r, &p);
    while (!p.over)
        assert_int_equal(game_apply(r, &p, __builtin_ctz(game_greedy(r, &p)), NULL), GAME_OK);
    int m = 7;
    assert_int_equal(game_agent_choose(a, &p, &m), AGENT_EOVER);
    assert_string_equal(game_agent_error(a), "the game is over");
    game_agent_free(a);
    game_free(r);
}

static void test_bad_specs(void **state)
{
    (void)state;
    game *r = rules3();
    static const char *cases[][2] = {
        {"", "empty agent spec"},
        {"alphabeta:depth=3", "agent 'alphabeta:depth=3': unknown kind 'alphabeta' for basico (random, greedy, "
                              "maxn, paranoid, ab, solve, mcts, az, br)"},
        {"ab:depth=3", "agent 'ab:depth=3': ab is for two-player games; basico:players=3,pits=4,seeds=4,"
                       "full_ranking=1 has 3 players (use maxn or paranoid)"},
        {"solve", "solve is for two-player games"},
        {"maxn:dept=3", "agent 'maxn:dept=3': unknown key 'dept' for maxn (keys: depth, seed)"},
        {"maxn:depth=0", "agent 'maxn:depth=0': depth=0 is not a whole number in 1..12"},
        {"paranoid:depth=x", "depth=x is not a whole number in 1..12"},
        {"mcts:players=3", "agent 'mcts:players=3': 'players' is a rules key, not an agent key (give the rules "
                           "with --rules)"},
        {"greedy:pits=4", "'pits' is a rules key"},
        {"greedy:", "nothing after ':'"},
        {"maxn:depth=3,", "agent 'maxn:depth=3,': empty key=value pair"},
        {"maxn:depth=3,,seed=1", "empty key=value pair"},
        {"random,seed=x", "seed=x is not a whole number"},
        {"mcts:sims", "'sims' is not key=value"},
        {"mcts:sims=5,sims=6", "key 'sims' given twice"},
        {"mcts:sims=0", "sims=0 is not a whole number in 1..10000000"},
        {"mcts:depth=3", "unknown key 'depth' for mcts (keys: sims, rollouts, c_puct, solver, root, gumbel_k, "
                         "gumbel_c_visit, gumbel_c_scale, seed)"},
        {"mcts:root=best", "agent 'mcts:root=best': root must be puct or gumbel, got 'best'"},
        {"mcts:root=gumbel,gumbel_k=65", "gumbel_k=65 is not a whole number in 1..64"},
        {"mcts:c_puct=-1", "c_puct=-1 is not a number"},
        {"mcts:solver=2", "solver=2 is not a whole number in 0..1"},
        {"az:sims=5", "agent 'az:sims=5': az needs net=PATH.h5"},
        {"az:net=/nonexistent/x.h5,sims=5", "net=/nonexistent/x.h5"},
        {"random:depth=2", "unknown key 'depth' for random (keys: seed)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[AGENT_ERRLEN] = "";
        game_agent *a = game_agent_create(cases[i][0], r, err);
        if (a)
            fail_msg("'%s' was accepted", cases[i][0]);
        if (!strstr(err, cases[i][1]))
            fail_msg("'%s': message '%s' lacks '%s'", cases[i][0], err, cases[i][1]);
    }
    char err[AGENT_ERRLEN] = "";
    assert_null(game_agent_create("random", NULL, err));
    assert_non_null(strstr(err, "no game"));
    /* solve needs a margin: basico with 2 players has none */
    game *r2 = G("basico:players=2");
    assert_null(game_agent_create("solve", r2, err));
    assert_non_null(strstr(err, "solve needs a final margin"));
    game_free(r2);
    game_free(r);
}

/* ---- az ---- */

static void export_net(const char *path, const game *r, int input_dim, int n_policy, int n_value,
                       const char *rules_text, const char *encoding)
{
    nn_config cfg = nn_config_default(input_dim, n_policy);
    cfg.n_hidden = 1;
    cfg.hidden[0] = 16;
    cfg.n_value = n_value;
    cfg.margin_head = 0;
    char err[NN_ERRLEN];
    nn_net *net = nn_net_create(&cfg, 5, err);
    if (!net)
        fail_msg("nn_net_create: %s", err);
    if (nn_export_save(path, net, rules_text ? rules_text : game_spec(r), encoding, err) != NN_OK)
        fail_msg("export: %s", err);
    nn_net_free(net);
}

static void tmp_path(char *buf, size_t n, const char *name)
{
    mkdir(SOWZERO_TMP, 0777);
    snprintf(buf, n, "%s/test_game_agent_%s.h5", SOWZERO_TMP, name);
}

static void expect_az_error(const char *path, const game *r, const char *want)
{
    char spec[600], err[AGENT_ERRLEN] = "";
    snprintf(spec, sizeof spec, "az:net=%s,sims=4", path);
    game_agent *a = game_agent_create(spec, r, err);
    if (a)
        fail_msg("%s was accepted", spec);
    if (!strstr(err, want) || !strstr(err, "net="))
        fail_msg("%s: message '%s' lacks '%s'", spec, err, want);
}

static void test_az_checks_net(void **state)
{
    (void)state;
    game *r = rules3(), *r2 = G("basico:players=2,pits=6");
    int dim = game_encode_dim(r), pits = game_moves(r), players = game_players(r);
    char ok[512], wrong_rules[512], wrong_nv[512], wrong_enc[512], wrong_dim[512];
    tmp_path(ok, sizeof ok, "ok");
    tmp_path(wrong_rules, sizeof wrong_rules, "rules");
    tmp_path(wrong_nv, sizeof wrong_nv, "nvalue");
    tmp_path(wrong_enc, sizeof wrong_enc, "encoding");
    tmp_path(wrong_dim, sizeof wrong_dim, "dim");
    export_net(ok, r, dim, pits, players, NULL, BASICO_ENCODING_NAME);
    export_net(wrong_rules, r, dim, pits, players, game_spec(r2), BASICO_ENCODING_NAME);
    export_net(wrong_nv, r, dim, pits, 1, NULL, BASICO_ENCODING_NAME);
    export_net(wrong_enc, r, dim, pits, players, NULL, KALAH_ENCODING_NAME);
    export_net(wrong_dim, r, dim + 1, pits, players, NULL, BASICO_ENCODING_NAME);
    expect_az_error(wrong_rules, r, "net was trained for rules 'basico:players=2,pits=6");
    expect_az_error(wrong_nv, r,
                    "n_value 1; the rules basico:players=3,pits=4,seeds=4,full_ranking=1 need 18, 4 and 3");
    expect_az_error(wrong_enc, r, "uses input encoding");
    expect_az_error(wrong_dim, r, "input_dim");

    /* The right net: sims=0 plays the policy's argmax over the legal pits; a search plays legal moves. */
    char spec[600], err[AGENT_ERRLEN];
    snprintf(spec, sizeof spec, "az:net=%s,sims=0", ok);
    game_agent *raw = game_agent_create(spec, r, err);
    if (!raw)
        fail_msg("%s: %s", spec, err);
    snprintf(spec, sizeof spec, "az:net=%s,sims=1,root=gumbel", ok);
    game_agent *gumbel1 = game_agent_create(spec, r, err);
    if (!gumbel1)
        fail_msg("%s: %s", spec, err);
    nn_net *net;
    char nerr[NN_ERRLEN];
    assert_int_equal(nn_load(ok, NULL, &net, NULL, nerr), NN_OK);
    nn_workspace *ws = nn_workspace_create(net, 1);
    game_pos pos[60];
    int n = some_positions(r, pos, 60, 3);
    for (int i = 0; i < n; i++) {
        float x[64], policy[BASICO_MAX_PITS], value[BASICO_MAX_PLAYERS];
        uint8_t legal[BASICO_MAX_PITS];
        unsigned lm = game_legal(r, &pos[i]);
        basico_pos b = bp(r, &pos[i]);
        basico_encode(game_rules(r), &b, x); /* the encoding as env/basico.h defines it */
        for (int k = 0; k < pits; k++)
            legal[k] = (uint8_t)(lm >> k & 1u);
        assert_int_equal(nn_forward(net, ws, x, legal, 1, policy, value), NN_OK);
        int best = -1;
        for (int k = 0; k < pits; k++)
            if (legal[k] && (best < 0 || policy[k] > policy[best]))
                best = k;
        int m;
        assert_int_equal(game_agent_choose(raw, &pos[i], &m), AGENT_OK);
        assert_int_equal(m, best);
        /* one simulation of a Gumbel root without noise plays argmax logits: the same move */
        assert_int_equal(game_agent_choose(gumbel1, &pos[i], &m), AGENT_OK);
        assert_int_equal(m, best);
    }
    nn_workspace_free(ws);
    nn_net_free(net);
    game_agent_free(raw);
    game_agent_free(gumbel1);
    snprintf(spec, sizeof spec, "az:net=%s,sims=12,root=gumbel,gumbel_k=2,gumbel_c_scale=0.1", ok);
    check_legal_and_deterministic(spec, r, 20);
    game_agent *a = game_agent_create(spec, r, err);
    assert_non_null(a);
    if (!strstr(game_agent_describe(a), ",root=gumbel,gumbel_k=2,gumbel_c_visit=50,gumbel_c_scale=0.1"))
        fail_msg("%s", game_agent_describe(a));
    game_agent_free(a);
    snprintf(spec, sizeof spec, "az:net=%s,sims=16,batch=4,fpu=0.3,c_puct=2", ok);
    check_legal_and_deterministic(spec, r, 20);
    snprintf(spec, sizeof spec, "az:net=%s,sims=12", ok);
    check_legal_and_deterministic(spec, r, 20);
    game_free(r);
    game_free(r2);
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
