/* test_game_register.c — a game of the caller's own, added at run time (game_kind_register, env/game.h),
 * goes through every layer that is written against the game interface: self-play, a match between the
 * generic agents, serve's board and move events (drawn from the kind's layout, not its name) and the
 * uint8 observation form that Python's VecEnv uses (game_encode_form). The toy game, "toysow", is
 * tests/toy_kind.c. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "env/game.h"
#include "eval/game_match.h"
#include "selfplay/game_selfplay.h"
#include "serve/srv_game.h"
#include "tests/toy_kind.h"

static int setup(void **state)
{
    (void)state;
    char err[GAME_ERRLEN];
    if (toy_kind_register(err) != GAME_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static void test_registry(void **state)
{
    (void)state;
    char err[GAME_ERRLEN], names[256];
    assert_ptr_equal(game_kind_find("toysow:pits=4"), &toy_kind);
    assert_ptr_equal(game_kind_at(game_kind_count() - 2), &toy_kind);
    assert_non_null(strstr(game_kind_names(names, sizeof names), "toysow"));
    /* a name taken, a required entry missing, a name that cannot be a spec's */
    assert_int_equal(game_kind_register(&toy_kind, err), GAME_EINVAL);
    assert_non_null(strstr(err, "already registered"));
    game_kind broken = toy_kind;
    broken.name = "toysow-broken";
    broken.apply = NULL;
    assert_int_equal(game_kind_register(&broken, err), GAME_EINVAL);
    assert_non_null(strstr(err, "apply"));
    broken = toy_kind;
    broken.name = "toy:sow";
    assert_int_equal(game_kind_register(&broken, err), GAME_EINVAL);
    assert_null(game_kind_find("toysow-broken"));
    game *g = game_create("toysow:pits=4,seeds=3", err);
    assert_non_null(g);
    assert_string_equal(game_spec(g), "toysow:pits=4,seeds=3");
    assert_int_equal(game_seeds(g), 24);
    game_free(g);
    assert_null(game_create("toysow:pits=9", err));
    assert_non_null(strstr(err, "pits=9"));
}

static void test_selfplay(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    game *g = game_create("toysow", err);
    assert_non_null(g);
    selfplay_config sc = selfplay_config_default();
    sc.games = 8;
    sc.games_per_thread = 4;
    mcts_config mc = mcts_config_default();
    mc.sims = 32;
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_rollout(1);
    replay_buffer *rb = replay_create(game_encode_dim(g), game_moves(g), game_value_dim(g), 10000, err);
    assert_non_null(rb);
    game_selfplay_stats st;
    assert_int_equal(game_selfplay_run(g, &sc, &mc, &ef, rb, 7, &st, err), MCTS_OK);
    assert_int_equal(st.games, 8);
    assert_true(st.samples >= 8 * 2);
    assert_int_equal(replay_size(rb), st.samples);
    /* every target is a distribution over the mover's legal pits */
    float x[16], pi[8], z[1];
    uint8_t legal[8];
    for (size_t i = 0; i < replay_size(rb); i++) {
        assert_int_equal(replay_get(rb, i, x, legal, pi, z, NULL), MCTS_OK);
        float s = 0;
        for (int k = 0; k < game_moves(g); k++) {
            assert_true(legal[k] || pi[k] == 0.0f);
            assert_true(legal[k] == (x[k] > 0)); /* the mover's own pits come first in the encoding */
            s += pi[k];
        }
        assert_true(s > 0.999f && s < 1.001f);
        assert_true(z[0] >= -1.0f && z[0] <= 1.0f);
    }
    replay_free(rb);
    game_free(g);
}

static void test_match(void **state)
{
    (void)state;
    char err[MATCH_ERRLEN];
    game *g = game_create("toysow:pits=4,seeds=3", err);
    assert_non_null(g);
    const char *specs[] = {"mcts:sims=200", "random"};
    game_match_config cfg = game_match_config_default();
    cfg.games = 40;
    cfg.seed = 3;
    game_match_result res;
    int rc = game_match_run(specs, 2, g, &cfg, &res, err);
    if (rc != MATCH_OK)
        fail_msg("%s", err);
    assert_int_equal(res.games, 40);
    assert_int_equal(res.duel, 1);
    assert_int_equal(res.agent[0].games + res.agent[1].games, 80);
    /* a search of 200 simulations against uniform moves on a board this small */
    assert_true(res.two.score >= 0.75);
    for (int i = 0; i < res.games; i++)
        assert_true(res.game[i].sows >= 2);
    game_match_result_free(&res);
    game_free(g);
}

/* serve's board and events come from the layout: the seed-by-seed path it draws rebuilds the engine's
 * board after every move of random games (srv_play drops a path that does not: path_len 0). */
static void test_serve(void **state)
{
    (void)state;
    char err[SRV_ERRLEN];
    srv_rules r;
    assert_int_equal(srv_rules_parse("toysow:pits=3,seeds=3", &r, err), SRV_OK);
    cJSON *lay = srv_layout_json(&r);
    assert_string_equal(cJSON_GetObjectItem(lay, "kind")->valuestring, "toysow");
    assert_string_equal(cJSON_GetObjectItem(lay, "board")->valuestring, "rows");
    cJSON *stores = cJSON_GetObjectItem(lay, "stores");
    assert_int_equal(cJSON_GetArrayItem(stores, 0)->valueint, 3);
    assert_int_equal(cJSON_GetArrayItem(stores, 1)->valueint, 7);
    cJSON_Delete(lay);
    uint64_t rng = 12345;
    int moves = 0;
    for (int game_i = 0; game_i < 30; game_i++) {
        srv_pos p;
        srv_start(&r, &p);
        while (!p.over) {
            unsigned legal = srv_legal(&r, &p);
            int n = __builtin_popcount(legal), pick;
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            pick = (int)((rng >> 33) % (uint64_t)n);
            int k = 0;
            for (; legal; legal &= legal - 1, pick--)
                if (!pick) {
                    k = __builtin_ctz(legal);
                    break;
                }
            srv_pos before = p;
            srv_event ev;
            assert_int_equal(srv_play(&r, &p, k, &ev), SRV_OK);
            assert_true(ev.path_len > 0);
            assert_int_equal(ev.path_len, before.cell[before.to_move * 4 + k]);
            moves++;
        }
    }
    assert_true(moves > 100);
    /* an illegal move's message is the game's, not a family's */
    srv_pos p;
    srv_start(&r, &p);
    p.cell[0] = 0;
    assert_int_equal(srv_move_parse(&r, &p, "a", err), SRV_EILLEGAL);
    assert_non_null(strstr(err, "not a legal move"));
    srv_rules_free(&r);
    /* a kind without a layout has no drawing */
    assert_int_equal(srv_rules_parse("toysow-plain", &r, err), SRV_EINVAL);
    assert_non_null(strstr(err, "describes no board"));
}

/* The uint8 observations (python/src/szpy_obs.c) rest on game_encode_form: integer times scale gives
 * the encoding to float rounding over random games; a kind with no layout and no hook has no such form. */
static void test_encode_form(void **state)
{
    (void)state;
    char err[GAME_ERRLEN];
    const char *specs[] = {"toysow:pits=4,seeds=3", "kalah", "oware", "congklak:pits=5,seeds=5",
                           "basico:players=3,pits=4"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        game *g = game_create(specs[s], err);
        assert_non_null(g);
        const int d = game_encode_dim(g);
        float scale[64], x[64];
        int high[64];
        assert_int_equal(game_encode_form(g, scale, high), 0);
        /* the leading seed counts net.onehot_levels expands: the two rows of pits, counts / seeds per pit */
        static const int counts[] = {8, 12, 12, 10}, per_pit[] = {3, 4, 4, 5};
        float per_unit = 0;
        const int n_counts = game_encode_count_inputs(g, &per_unit);
        if (s < 4 && (n_counts != counts[s] || per_unit != (float)per_pit[s]))
            fail_msg("%s: %d leading counts of %g per unit", specs[s], n_counts, per_unit);
        uint64_t rng = 99 + s;
        for (int game_i = 0; game_i < 20; game_i++) {
            game_pos p;
            game_start(g, &p);
            while (!p.over) {
                game_encode(g, &p, x);
                for (int j = 0; j < d; j++) {
                    long k = lrintf(x[j] / scale[j]);
                    assert_true(k >= 0 && k <= high[j]);
                    /* count / seeds and count * (1 / seeds) may differ in the last bit (seeds = 3, 5) */
                    if (fabsf((float)k * scale[j] - x[j]) > 2 * FLT_EPSILON * fmaxf(1.0f, x[j]))
                        fail_msg("%s: element %d is %g, not an integer times %g", specs[s], j, x[j], scale[j]);
                }
                unsigned legal = game_legal(g, &p);
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                int pick = (int)((rng >> 33) % (uint64_t)__builtin_popcount(legal));
                while (pick--)
                    legal &= legal - 1;
                assert_int_equal(game_apply(g, &p, __builtin_ctz(legal), NULL), GAME_OK);
            }
        }
        game_free(g);
    }
    game *g = game_create("toysow-plain", err);
    float scale[64];
    int high[64];
    assert_int_equal(game_encode_form(g, scale, high), -1);
    game_layout lay;
    assert_int_equal(game_layout_of(g, &lay), 0);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_selfplay),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_serve),
        cmocka_unit_test(test_encode_form),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
