/* test_margin_utility.c — the margin utility of the generic search (selfplay/mcts_mp.h, cfg.margin_utility)
 * against the game interface's exact solver (eval/game_search.h): with the solver its proofs are score
 * proofs, on every two-player game with a margin. */
#include "tests/test_util.h"
#include <math.h>
#include <string.h>
#include "env/game.h"
#include "eval/game_search.h"
#include "selfplay/mcts_mp.h"

#define G tu_game

static mcts_config search_cfg(int sims)
{
    mcts_config c = mcts_config_default();
    c.sims = sims;
    c.dirichlet_eps = 0;
    return c;
}

/* The margin utility (cfg.margin_utility > 0) with the solver: score proofs. On endgames of three two-player
 * games with a margin, reached by random play until few seeds are left in the pits, a search that proves
 * its root plays a move of the largest exact margin (gs_solve's best_mask), where win/draw/loss proofs
 * would take any win; and a game without a margin is refused at create. */
static void test_margin_utility_score_proofs(void **state)
{
    (void)state;
    static const char *const specs[] = {"kalah:pits=4,seeds=3", "congklak:pits=4,seeds=3",
                                        "oware:pits=4,seeds=3,max_sows=40"};
    char err[MCTS_ERRLEN], serr[GAME_ERRLEN];
    int proven = 0, larger = 0, tried = 0;
    for (int si = 0; si < 3; si++) {
        game *gm = G(specs[si]);
        mcts_mp_eval *ev = mcts_mp_eval_rollout_create(gm, 1, 1, 5, err);
        assert_non_null(ev);
        mcts_config c = search_cfg(10000);
        c.solver = 1;
        c.margin_utility = 1.0;
        uint64_t rng = 0x5eed + (uint64_t)si;
        for (int trial = 0; trial < 80; trial++) {
            game_pos p;
            game_start(gm, &p);
            while (!p.over && game_seeds_in_pits(gm, &p) > 7) {
                unsigned legal = game_legal(gm, &p);
                rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
                int pick = (int)((rng >> 33) % (uint64_t)__builtin_popcount(legal));
                while (pick--)
                    legal &= legal - 1;
                game_apply(gm, &p, __builtin_ctz(legal), NULL);
            }
            if (p.over || __builtin_popcount(game_legal(gm, &p)) < 2)
                continue;
            gs_solution sol;
            assert_int_equal(gs_solve(gm, &p, 0, NULL, &sol, serr), GAME_OK);
            mcts_mp_result res;
            assert_int_equal(mcts_mp_search(gm, &p, &c, ev, 3, &res, err), MCTS_OK);
            tried++;
            if (!res.proven)
                continue;
            proven++;
            if (!(sol.best_mask >> res.move & 1))
                fail_msg("%s: proven root plays slot %d, the best margin %d is only at mask %#x", specs[si], res.move,
                         sol.value, sol.best_mask);
            /* the proven value is the utility of the exact margin for the mover */
            const double w = c.margin_utility, v = (double)((sol.value > 0) - (sol.value < 0));
            const float want = (float)((v + w * sol.value / (double)game_seeds(gm)) / (1.0 + w));
            assert_true(fabsf(res.value[p.to_move] - want) < 1e-4f);
            larger += sol.value > 1;
        }
        mcts_mp_eval_free(ev);
        game_free(gm);
    }
    print_message("proven %d of %d, by more than one seed %d\n", proven, tried, larger);
    assert_true(proven >= 30);
    assert_true(larger >= 5); /* wins by more than one seed, where the margin decides among winning moves */
    game *b = G("basico:players=3,pits=4");
    mcts_config c = search_cfg(10);
    c.margin_utility = 1.0;
    assert_null(mcts_mp_tree_create(b, &c, 1, err));
    assert_non_null(strstr(err, "margin"));
    game_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_margin_utility_score_proofs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
