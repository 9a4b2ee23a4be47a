/* test_agent.c — agent specs (eval/agent.h): errors that name the key, seeding, and each kind's choice on
 * positions whose answer is known by hand (greedy's turn chains, alpha-beta's case 2, MCTS's case 1, the
 * az agent's raw policy), and the same agents behind the game interface (eval/game_agent.h), each of which
 * an abort flag stops. */
#include "tests/test_util.h"

#include "eval/agent.h"
#include "eval/game_agent.h"
#include "nn/h5io.h"
#include "nn/net.h"
#include "selfplay/mcts_mp.h"

static kalah_pos parse_pos(const kalah_rules *r, const char *s)
{
    kalah_pos p;
    char err[KALAH_ERRLEN];
    if (kalah_pos_parse(s, r, &p, NULL, err) != KALAH_OK)
        fail_msg("%s: %s", s, err);
    return p;
}

static agent *make(const char *spec, const kalah_rules *r)
{
    char err[AGENT_ERRLEN];
    agent *a = agent_create(spec, r, err);
    if (!a)
        fail_msg("agent '%s': %s", spec, err);
    return a;
}

/* The same through the game interface, on an instance of "kalah" rules (g). */
static game_agent *make_g(const char *spec, const game *g)
{
    char err[AGENT_ERRLEN];
    game_agent *a = game_agent_create(spec, g, err);
    if (!a)
        fail_msg("agent '%s': %s", spec, err);
    return a;
}

static int choose_g(game_agent *a, const game_pos *p)
{
    int k = -1;
    if (game_agent_choose(a, p, &k) != AGENT_OK)
        fail_msg("agent '%s': %s", game_agent_spec(a), game_agent_error(a));
    return k;
}

static game_pos parse_g(const game *g, const char *s)
{
    game_pos p;
    char err[GAME_ERRLEN];
    if (game_pos_parse(g, s, &p, err) != GAME_OK)
        fail_msg("%s: %s", s, err);
    return p;
}

static int choose(agent *a, const kalah_pos *p)
{
    int k = -1;
    int rc = agent_choose(a, p, &k);
    if (rc != AGENT_OK)
        fail_msg("agent '%s': %s", agent_spec(a), agent_error(a));
    return k;
}

static void test_spec_errors_name_the_key(void **state)
{
    (void)state;
    game *g = game_create("kalah", NULL);
    assert_non_null(g);
    static const struct {
        const char *spec, *words;
    } cases[] = {
        {"mcts:sim=5", "unknown key 'sim' for mcts"},
        {"random:pits=4", "'pits' is a rules key"},
        {"greedy:max_sows=400", "'max_sows' is a rules key"},
        {"ab:depth=x", "depth=x"},
        {"ab:depth=0", "depth=0"},
        {"ab:tt_mb=99999", "tt_mb=99999"},
        {"ab:depth=3,depth=4", "'depth' given twice"},
        {"foo:depth=3", "unknown kind 'foo'"},
        {"greedy:seed", "'seed' is not key=value"},
        {"greedy:seed=-1", "seed=-1"},
        {"mcts:", "nothing after ':'"},
        {"greedy,", "nothing after ','"},
        {"", "empty agent spec"},
        {"mcts:sims=0", "sims=0"},
        {"mcts:c_puct=abc", "c_puct=abc"},
        {"az:sims=3", "net=PATH"},
        {"az:net=/nonexistent/x.h5,sims=1", "/nonexistent/x.h5"},
        {"random:depth=3", "unknown key 'depth' for random"},
        {"ab:depth=4,", "empty key=value pair"},
        {"ab:depth=4,,", "empty key=value pair"},
        {"ab:,depth=4", "empty key=value pair"},
        {"ab:depth=4,,seed=2", "empty key=value pair"},
        {"ab:,", "empty key=value pair"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[AGENT_ERRLEN] = "";
        game_agent *a = game_agent_create(cases[i].spec, g, err);
        if (a)
            fail_msg("'%s' was accepted", cases[i].spec);
        if (!strstr(err, cases[i].words))
            fail_msg("'%s': message '%s' lacks '%s'", cases[i].spec, err, cases[i].words);
    }
    game_free(g);
    /* The commands report them as usage errors. */
    char *out;
    assert_int_equal(tu_run(&out, 1, "match random 'mcts:sim=5' --games 2"), 2);
    assert_non_null(strstr(out, "'sim'"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "play 'greedy:depth=1' </dev/null"), 2);
    assert_non_null(strstr(out, "'depth'"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "match random 'ab:depth=2,,' --games 2"), 2);
    assert_non_null(strstr(out, "empty key=value pair"));
    free(out);
}

static void test_accessors_and_over(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    agent *a = make("ab:depth=3,tt_mb=1,seed=4", &r);
    assert_string_equal(agent_spec(a), "ab:depth=3,tt_mb=1,seed=4");
    assert_string_equal(agent_kind(a), "ab");
    kalah_pos p = parse_pos(&r, "0,0,0,0,0,0,30,0,0,0,0,0,0,18 N");
    p.over = 1;
    int k;
    assert_int_equal(agent_choose(a, &p, &k), AGENT_EOVER);
    agent_free(a);
    agent_free(NULL);
}

/* Same (spec seed, game seed) → same moves; another game seed → another sequence. */
static void test_random_is_seeded_per_game(void **state)
{
    (void)state;
    game *g = game_create("kalah", NULL);
    /* docs/design.md §2 writes the seed as ",seed=N" after any spec, also one without keys. */
    game_agent *a = make_g("random,seed=5", g), *b = make_g("random:seed=5", g);
    game_pos p;
    game_start(g, &p);
    int seq[3][64];
    for (int run = 0; run < 3; run++) {
        game_agent *x = run == 1 ? b : a;
        game_agent_new_game(x, &p, run == 2 ? 8 : 7);
        for (int i = 0; i < 64; i++) {
            seq[run][i] = choose_g(x, &p);
            assert_true(seq[run][i] >= 0 && seq[run][i] < 6);
        }
    }
    assert_memory_equal(seq[0], seq[1], sizeof seq[0]);
    assert_memory_not_equal(seq[0], seq[2], sizeof seq[0]);
    game_agent_free(a);
    game_agent_free(b);
    game_free(g);
}

/* Kalah's greedy (its kind's hook) follows extra turns: f (1 seed, extra turn) then a (captures 10+1) beats
 * a alone (captures 11). */
static void test_greedy_follows_turn_chains(void **state)
{
    (void)state;
    game *g = game_create("kalah", NULL);
    /* a=1 c=2 f=1 | North D=1 E=10, N store 33. a alone: 11-33; f then a: 12-33; c: 0-33. */
    game_pos p = parse_g(g, "1,0,2,0,0,1,0,0,0,0,1,10,0,33 S");
    assert_int_equal(game_greedy(g, &p), 1u << 5);
    for (uint64_t s = 0; s < 8; s++) {
        game_agent *a = make_g("greedy", g);
        game_agent_new_game(a, &p, s);
        assert_int_equal(choose_g(a, &p), 5);
        game_agent_free(a);
    }
    /* The same for North (mirrored position): F, i.e. relative pit 5. */
    game_pos q = parse_g(g, "0,0,0,1,10,0,33,1,0,2,0,0,1,0 N");
    game_agent *a = make_g("greedy", g);
    assert_int_equal(choose_g(a, &q), 5);
    /* Ties are split at random among the tied moves only: from the start position a sowing of d, e or f
     * gains 1 and ends the turn, c chains into another sowing (+2 at best); greedy must always play c. */
    game_pos st;
    game_start(g, &st);
    assert_int_equal(game_greedy(g, &st), 1u << 2);
    for (uint64_t s = 0; s < 16; s++) {
        game_agent_new_game(a, &st, s);
        assert_int_equal(choose_g(a, &st), 2);
    }
    /* a tie: a and b both end the turn at the same margin (no capture, no extra turn); each is played for
     * some seed */
    game_pos t = parse_g(g, "1,1,0,0,0,0,20,0,0,0,0,0,1,25 S");
    assert_int_equal(game_greedy(g, &t), 3u);
    unsigned seen = 0;
    for (uint64_t s = 0; s < 32; s++) {
        game_agent_new_game(a, &t, s);
        seen |= 1u << choose_g(a, &t);
    }
    assert_int_equal(seen, 3u);
    game_agent_free(a);
    game_free(g);
}

/* search-cases.md case 2: from the start at depth 2, c (+2) is the best move. */
static void test_ab_agent_case2(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    agent *a = make("ab:depth=2,tt_mb=1", &r);
    kalah_pos p;
    kalah_start(&r, &p);
    assert_int_equal(choose(a, &p), 2);
    agent_free(a);
    a = make("ab:nodes=5000,tt_mb=1", &r);
    int k = choose(a, &p);
    assert_true(k >= 0 && k < 6);
    agent_free(a);
}

/* search-cases.md case 1: f wins 25-23, e only draws; the rollout MCTS agent must play f. */
static void test_mcts_agent_case1(void **state)
{
    (void)state;
    game *g = game_create("kalah", NULL);
    game_pos p = parse_g(g, "0,0,0,0,2,1,22,1,0,0,0,0,0,22 S");
    game_agent *a = make_g("mcts:sims=300,seed=3", g);
    assert_int_equal(choose_g(a, &p), 5);
    game_agent_stats st;
    game_agent_last_stats(a, &st);
    assert_true(st.valid && st.have_visits && st.nodes >= 1 && st.visits[5] > st.visits[4]);
    assert_int_equal(st.visits[0] + st.visits[1] + st.visits[2] + st.visits[3], 0); /* empty pits */
    /* Tree reuse through notify: play f, then the agent continues from the reached position, whose subtree
     * it kept (its visits count beside the new simulations). */
    int kept = st.visits[5];
    game_agent_notify(a, &p, 5);
    game_pos q = p;
    assert_int_equal(game_apply(g, &q, 5, NULL), GAME_OK);
    int k = choose_g(a, &q);
    assert_true(game_legal(g, &q) & (1u << k));
    game_agent_last_stats(a, &st);
    assert_true(st.nodes >= (uint64_t)kept);
    game_agent_free(a);
    game_free(g);
}

/* az: sims=0 plays the argmax of the net's policy over the legal moves; sims>0 plays a legal move; a net
 * trained for other rules is refused with both rules named. */
/* One game of spec against itself through eval/game_agent.h ("kalah" rules) beside the same spec's Kalah
 * agents (eval/agent.h), both notified of every move and reseeded alike: the same move at every ply and the
 * same search statistics (nodes, visits, value, principal variation): game_agent's Kalah kinds are Kalah's
 * fast agents. Returns the plies played. */
static int play_both(const char *rules, const char *spec, uint64_t game_seed)
{
    char err[AGENT_ERRLEN];
    game *g = game_create(rules, err);
    assert_non_null(g);
    const kalah_rules *r = game_rules(g);
    game_agent *ga[2];
    agent *ka[2];
    game_pos p;
    game_start(g, &p);
    kalah_pos kp;
    kalah_start(r, &kp);
    for (int s = 0; s < 2; s++) {
        if (!(ga[s] = game_agent_create(spec, g, err)))
            fail_msg("game_agent '%s': %s", spec, err);
        ka[s] = make(spec, r);
        assert_string_equal(game_agent_kind(ga[s]), agent_kind(ka[s]));
        game_agent_new_game(ga[s], &p, game_seed + (uint64_t)s);
        agent_new_game(ka[s], &kp, game_seed + (uint64_t)s);
    }
    int ply = 0;
    for (; !p.over; ply++) {
        int s = p.to_move, kg = -1;
        assert_int_equal(kp.side, s);
        assert_int_equal(game_agent_choose(ga[s], &p, &kg), AGENT_OK);
        int kk = choose(ka[s], &kp);
        assert_int_equal(kg, kk);
        game_agent_stats x;
        game_agent_stats y;
        game_agent_last_stats(ga[s], &x);
        agent_last_stats(ka[s], &y);
        assert_int_equal(x.valid, 1);
        assert_true(x.nodes == y.nodes);
        for (int k = 0; k < r->pits; k++)
            assert_int_equal(x.visits[k], y.visits[k]);
        assert_true(x.value == y.value);
        assert_int_equal(x.pv_len, y.pv_len);
        for (int i = 0; i < x.pv_len; i++)
            assert_int_equal(x.pv[i], y.pv[i]);
        for (int t = 0; t < 2; t++) {
            game_agent_notify(ga[t], &p, kg);
            agent_notify(ka[t], &kp, kk);
        }
        assert_int_equal(game_apply(g, &p, kg, NULL), GAME_OK);
        assert_int_equal(kalah_play(r, &kp, kk, NULL), KALAH_OK);
    }
    assert_true(kp.over);
    for (int s = 0; s < 2; s++) {
        game_agent_free(ga[s]);
        agent_free(ka[s]);
    }
    game_free(g);
    return ply;
}

static void test_game_agent_kalah_is_kalahs_agent(void **state)
{
    (void)state;
    static const char *const specs[] = {"ab:depth=5", "ab:nodes=3000,seed=2", "solver:tt_mb=1,endgame=6"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        assert_true(play_both(i == 2 ? "kalah:pits=3,seeds=2" : "kalah:pits=4,seeds=3", specs[i], 7) > 4);
    /* the generic kinds stay generic on Kalah; a kind neither knows gets Kalah's message */
    char err[AGENT_ERRLEN];
    game *g = game_create("kalah", err);
    static const char *const generic[] = {"random", "greedy", "maxn:depth=2", "mcts:sims=10", "solve:nodes=100000"};
    for (size_t i = 0; i < sizeof generic / sizeof generic[0]; i++) {
        game_agent *a = game_agent_create(generic[i], g, err);
        assert_non_null(a);
        assert_int_equal(strncmp(game_agent_kind(a), generic[i], strlen(game_agent_kind(a))), 0);
        game_agent_free(a);
    }
    assert_null(game_agent_create("solve:nodes=1x", g, err));
    assert_non_null(strstr(err, "nodes=1x"));
    assert_null(game_agent_create("foo", g, err));
    assert_non_null(strstr(err, "solver"));
    game_free(g);
}

static void test_az_agent(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    game *g = game_create("kalah", NULL);
    char err[NN_ERRLEN], path[512], rules[128], spec[700];
    snprintf(path, sizeof path, "%s/agent_az.h5", SOWZERO_TMP);
    nn_config cfg = nn_config_default(kalah_encode_dim(&r), r.pits);
    nn_net *net = nn_net_create(&cfg, 42, err);
    if (!net)
        fail_msg("%s", err);
    if (nn_export_save(path, net, kalah_rules_format(&r, rules, sizeof rules), KALAH_ENCODING_NAME, err) != NN_OK)
        fail_msg("%s", err);
    nn_workspace *ws = nn_workspace_create(net, 1);
    kalah_pos kp = parse_pos(&r, "0,3,0,5,0,2,14,4,4,4,4,4,4,0 S");
    game_pos p = parse_g(g, "0,3,0,5,0,2,14,4,4,4,4,4,4,0 S");
    float x[16], pol[KALAH_MAX_PITS], val;
    uint8_t legal[KALAH_MAX_PITS];
    kalah_encode(&r, &kp, x);
    for (int k = 0; k < 6; k++)
        legal[k] = (kalah_legal(&r, &kp) >> k) & 1;
    assert_int_equal(nn_forward(net, ws, x, legal, 1, pol, &val), NN_OK);
    int best = -1;
    for (int k = 0; k < 6; k++)
        if (legal[k] && (best < 0 || pol[k] > pol[best]))
            best = k;
    snprintf(spec, sizeof spec, "az:net=%s,sims=0", path);
    game_agent *a = make_g(spec, g);
    assert_int_equal(choose_g(a, &p), best);
    game_agent_free(a);
    /* a whole game against itself: legal moves, and each search's root statistics */
    snprintf(spec, sizeof spec, "az:net=%s,sims=30,seed=2", path);
    a = make_g(spec, g);
    game_pos q;
    game_start(g, &q);
    game_agent_new_game(a, &q, 3);
    for (int ply = 0; !q.over; ply++) {
        int k = choose_g(a, &q);
        assert_true(game_legal(g, &q) >> k & 1);
        game_agent_stats st;
        game_agent_last_stats(a, &st);
        assert_true(st.valid && st.have_visits && st.have_prior && st.nodes >= 1 && st.visits[k] > 0);
        assert_true(st.value >= -1 && st.value <= 1);
        game_agent_notify(a, &q, k);
        assert_int_equal(game_apply(g, &q, k, NULL), GAME_OK);
    }
    game_agent_free(a);
    snprintf(spec, sizeof spec, "az:net=%s,sims=40,batch=4,seed=2", path);
    a = make_g(spec, g);
    int k = choose_g(a, &p);
    assert_true(legal[k]);
    game_agent_free(a);
    game *other = game_create("kalah:seeds=3", NULL);
    char aerr[AGENT_ERRLEN];
    assert_null(game_agent_create(spec, other, aerr));
    assert_non_null(strstr(aerr, "seeds=3"));
    game_free(other);
    char spec2[700];
    /* root=gumbel (no noise): at one simulation every completed Q is the net's value, so the move is the
     * prior's argmax; at 40 it is what mcts_mp_search with the same settings plays */
    snprintf(spec2, sizeof spec2, "az:net=%s,sims=1,root=gumbel", path);
    a = make_g(spec2, g);
    assert_int_equal(choose_g(a, &p), best);
    game_agent_free(a);
    snprintf(spec2, sizeof spec2, "az:net=%s,sims=40,root=gumbel,gumbel_k=4,gumbel_c_visit=20", path);
    a = make_g(spec2, g);
    mcts_config mc = mcts_config_default();
    mc.sims = 40;
    mc.root = MCTS_ROOT_GUMBEL;
    mc.gumbel_k = 4;
    mc.gumbel_c_visit = 20;
    mcts_mp_eval *ev = mcts_mp_eval_net_create(net, g, 1, NULL);
    mcts_mp_result res;
    assert_int_equal(mcts_mp_search(g, &p, &mc, ev, 1, &res, NULL), MCTS_OK);
    assert_int_equal(choose_g(a, &p), res.move);
    mcts_mp_eval_free(ev);
    game_agent_free(a);
    char aerr0[AGENT_ERRLEN];
    snprintf(spec2, sizeof spec2, "az:net=%s,sims=4,root=best", path);
    assert_null(game_agent_create(spec2, g, aerr0));
    assert_non_null(strstr(aerr0, "root must be puct or gumbel"));
    if (!nn_net_config(net)->margin_head) {
        snprintf(spec2, sizeof spec2, "az:net=%s,sims=4,margin=0.5", path);
        assert_null(game_agent_create(spec2, g, aerr0));
        assert_non_null(strstr(aerr0, "margin head"));
    }
    nn_workspace_free(ws);
    nn_net_free(net);
    game_free(g);
}

/* The search levers' keys (tb=, tbroot=, root=gumbel, margin=) on Kalah's az, on a board small enough for
 * tb=8's endgame database to be quick: the settings say what the agent plays with, a whole game is legal,
 * and with tb=8 every root the database covers is played by one of its optimal moves (the solver's values). */
static void test_game_agent_az_levers(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    assert_int_equal(kalah_rules_parse("kalah:pits=4,seeds=3", &r, NULL), KALAH_OK);
    nn_config nc = nn_config_default(kalah_encode_dim(&r), r.pits);
    nc.n_hidden = 1;
    nc.hidden[0] = 8;
    nc.margin_head = 1;
    char err[NN_ERRLEN], path[512], rules[128], spec[800];
    nn_net *net = nn_net_create(&nc, 9, err);
    if (!net)
        fail_msg("%s", err);
    snprintf(path, sizeof path, "%s/agent_az_levers.h5", SOWZERO_TMP);
    if (nn_export_save(path, net, kalah_rules_format(&r, rules, sizeof rules), KALAH_ENCODING_NAME, err) != NN_OK)
        fail_msg("%s", err);
    nn_net_free(net);
    game *g = game_create(rules, NULL);
    assert_non_null(g);
    game_agent *solver = make_g("solver:tt_mb=1,endgame=0", g);
    game_agent_set_detail(solver, 1);
    static const struct {
        const char *keys;
        int tb, tbroot, gumbel;
        double margin;
    } levers[] = {{"tb=8", 8, 1, 0, 0},
                  {"root=gumbel,gumbel_k=4", 0, 0, 1, 0},
                  {"margin=0.5", 0, 0, 0, 0.5},
                  {"tb=8,tbroot=0,margin=0.25", 8, 0, 0, 0.25}};
    for (size_t i = 0; i < sizeof levers / sizeof levers[0]; i++) {
        snprintf(spec, sizeof spec, "az:net=%s,sims=24,seed=3,%s", path, levers[i].keys);
        game_agent *a = make_g(spec, g);
        agent_search_info si;
        assert_int_equal(game_agent_search_settings(a, &si), AGENT_OK);
        assert_int_equal(si.tb, levers[i].tb);
        assert_int_equal(si.tbroot, levers[i].tbroot);
        assert_int_equal(si.gumbel, levers[i].gumbel);
        assert_true(si.margin_utility == levers[i].margin);
        int covered = 0;
        game_pos p;
        game_start(g, &p);
        game_agent_new_game(a, &p, 11);
        while (!p.over) {
            int k = choose_g(a, &p);
            assert_true(game_legal(g, &p) >> k & 1);
            if (levers[i].tbroot && game_seeds_in_pits(g, &p) <= 8) {
                game_agent_stats st;
                choose_g(solver, &p);
                game_agent_last_stats(solver, &st);
                assert_int_equal(st.values[k], (int)st.value); /* an optimal move */
                covered++;
            }
            game_agent_notify(a, &p, k);
            assert_int_equal(game_apply(g, &p, k, NULL), GAME_OK);
        }
        if (levers[i].tbroot)
            assert_true(covered > 0);
        game_agent_free(a);
    }
    game_agent_free(solver);
    game_free(g);
}

/* The abort flag (agent_set_abort, game_agent_set_abort): set, every search kind returns AGENT_ESTOPPED
 * with "stopped"; cleared, the same agent plays the move a fresh one plays. */
static void test_abort_flag(void **state)
{
    (void)state;
    static const struct {
        const char *rules, *spec, *pos;
    } cases[] = {
        {"kalah:pits=4,seeds=3", "ab:depth=8", NULL},
        {"kalah:pits=4,seeds=3", "mcts:sims=300,seed=2", NULL},
        {"kalah:pits=3,seeds=2", "solver:tt_mb=1,endgame=0", NULL},
        {"kalah:pits=4,seeds=3", "greedy:seed=1", NULL},
        {"oware", "mcts:sims=300,seed=2", NULL},
        {"oware", "ab:depth=4", NULL},
        {"oware:max_sows=60", "solve:nodes=100000000", "0,0,0,1,1,2,20,0,0,0,1,1,1,21 S"},
        {"basico:players=3", "maxn:depth=3", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[AGENT_ERRLEN];
        game *g = game_create(cases[i].rules, err);
        assert_non_null(g);
        game_pos p;
        if (cases[i].pos)
            assert_int_equal(game_pos_parse(g, cases[i].pos, &p, err), GAME_OK);
        else
            game_start(g, &p);
        game_agent *a = game_agent_create(cases[i].spec, g, err), *fresh = game_agent_create(cases[i].spec, g, err);
        if (!a || !fresh)
            fail_msg("%s %s: %s", cases[i].rules, cases[i].spec, err);
        game_agent_new_game(a, &p, 9);
        game_agent_new_game(fresh, &p, 9);
        int flag = 1, k = -1, want = -1;
        game_agent_set_abort(a, &flag);
        int rc = game_agent_choose(a, &p, &k);
        if (rc != AGENT_ESTOPPED || strcmp(game_agent_error(a), "stopped"))
            fail_msg("%s %s with the flag set: %d '%s'", cases[i].rules, cases[i].spec, rc, game_agent_error(a));
        flag = 0;
        if (game_agent_choose(a, &p, &k) != AGENT_OK || game_agent_choose(fresh, &p, &want) != AGENT_OK)
            fail_msg("%s %s: %s %s", cases[i].rules, cases[i].spec, game_agent_error(a), game_agent_error(fresh));
        if (k != want)
            fail_msg("%s %s: %d after a stop, %d fresh", cases[i].rules, cases[i].spec, k, want);
        game_agent_free(a);
        game_agent_free(fresh);
        game_free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_errors_name_the_key),
        cmocka_unit_test(test_accessors_and_over),
        cmocka_unit_test(test_random_is_seeded_per_game),
        cmocka_unit_test(test_greedy_follows_turn_chains),
        cmocka_unit_test(test_ab_agent_case2),
        cmocka_unit_test(test_mcts_agent_case1),
        cmocka_unit_test(test_az_agent),
        cmocka_unit_test(test_game_agent_kalah_is_kalahs_agent),
        cmocka_unit_test(test_game_agent_az_levers),
        cmocka_unit_test(test_abort_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
