/* mcts2.c — the two-player PUCT tree (mcts.h) of every game of the game interface: mcts_tree_impl.h
 * compiled for game_pos, with the game's functions for sowing and scoring and its endgame database behind
 * the tablebase leaves. */
#include "selfplay/mcts.h"
#include "selfplay/mcts_impl.h"

#include <stdio.h>

/* Two players, at most eight move slots, and a final margin when the margin utility asks for one. */
static int game2_check(const game *g, const mcts_config *cfg, char *err)
{
    const char *why = !g                                              ? "no game"
                      : game_players(g) != 2                          ? "the tree is for two players"
                      : game_moves(g) > GAME_MAX_MOVES                ? "more move slots than the tree holds"
                      : cfg && cfg->margin_utility > 0 && !game_has_margin(g) ? "mcts.margin_utility needs a final margin"
                                                                      : NULL;
    if (!why)
        return MCTS_OK;
    if (err)
        snprintf(err, MCTS_ERRLEN, "%s%s%s", why, g ? "; the game is " : "", g ? game_spec(g) : "");
    return MCTS_EINVAL;
}

/* tablebase_seeds > 0 needs an endgame database of the game covering that many seeds: its kind's, or one
 * attached to it (game_set_endgame). */
static int game2_tb_check(const game *g, const mcts_config *c, char *err)
{
    int have = game_endgame_seeds(g);
    if (c->tablebase_seeds > 0 && have < c->tablebase_seeds) {
        if (err) {
            if (have == 0)
                snprintf(err, MCTS_ERRLEN, "mcts.tablebase_seeds = %d needs an endgame database, and %s has none",
                         c->tablebase_seeds, game_spec(g));
            else
                snprintf(err, MCTS_ERRLEN, "mcts.tablebase_seeds = %d, but the endgame database of %s covers only "
                         "%d seeds", c->tablebase_seeds, game_spec(g), have);
        }
        return MCTS_EINVAL;
    }
    return MCTS_OK;
}

/* +1 / 0 / −1: finished p's result for player 0. */
static inline int game2_winner(const game *g, const game_pos *p)
{
    double v[GAME_MAX_PLAYERS] = {0};
    game_values(g, p, v);
    return (v[0] > 0) - (v[0] < 0);
}

/* A tablebase leaf: at most `seeds` seeds in the pits and in the game's database; *m = the exact final
 * margin for p's mover. */
static inline int game2_tb_probe(const game *g, int seeds, const game_pos *p, int *m)
{
    int m0;
    if (game_seeds_in_pits(g, p) > seeds || !game_endgame(g, p, &m0))
        return 0;
    *m = p->to_move == 0 ? m0 : -m0;
    return 1;
}

#define MT_TREE mcts2_tree
#define MT_TREE_TAG mcts2_tree
#define MT_MANY mcts2_many
#define MT(name) mcts2_##name
#define MT_POS game_pos
#define MT_RULES_T const game *
#define MT_RULES_ARG const game *
#define MT_RULES_CHECK(g, cfg, err) game2_check((g), (cfg), (err))
#define MT_RULES_SET(t, g) ((t)->r = (g))
#define MT_MAX_MOVES GAME_MAX_MOVES
#define MT_MOVES(t) game_moves((t)->r)
#define MT_SIDE(p) ((p)->to_move)
#define MT_START(t, p) game_start((t)->r, (p))
#define MT_SOW(t, p, m) ((void)game_apply((t)->r, (p), (m), NULL))
#define MT_LEGAL(t, p) game_legal((t)->r, (p))
#define MT_WINNER(t, p) game2_winner((t)->r, (p))
#define MT_MARGIN(t, p) game_margin((t)->r, (p))
#define MT_MARGIN_SCALE(t) ((double)game_seeds((t)->r))
#define MT_TB_CHECK(t, c, err) game2_tb_check((t)->r, (c), (err))
#define MT_TB_PROBE(t, p, m) game2_tb_probe((t)->r, (t)->cfg.tablebase_seeds, (p), (m))
#include "selfplay/mcts_tree_impl.h"
