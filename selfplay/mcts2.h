/* mcts2.h — the two-player PUCT tree of mcts.h on the game interface's positions (env/game.h): the same
 * source (selfplay/mcts_tree_impl.h) as Kalah's tree, compiled for game_pos. mcts_mp.h runs every
 * two-player game on it (its value-vector tree is for three and four players).
 *
 * Every function is its mcts.h namesake (mcts2_select is mcts_select, ...) with the same conventions —
 * values, proofs and score proofs, tablebase leaves, noise, virtual loss, reuse, the root levers — read
 * with a game of two players for the rules (borrowed: it outlives the tree), game_pos for kalah_pos, the
 * mover's move slots for relative pits and player 0 for South. What differs:
 *   - the margin utility (cfg.margin_utility > 0) needs a game with a final margin (game_has_margin), and
 *     divides the margin by all the seeds (game_seeds);
 *   - tablebase leaves (cfg.tablebase_seeds > 0; cfg.tablebase is not read) are the positions with at most
 *     that many seeds in the pits (game_seeds_in_pits) that the game's endgame database holds
 *     (game_endgame: its kind's hook, or one attached with game_set_endgame, as Kalah's tablebase files
 *     are); a game without one, or whose database covers fewer seeds, refuses the setting.
 * tree_create refuses (NULL, message) a game that does not have exactly two players. */
#ifndef SOWZERO_SELFPLAY_MCTS2_H
#define SOWZERO_SELFPLAY_MCTS2_H

#include <stdint.h>

#include "env/game.h"
#include "selfplay/mcts.h"

typedef struct mcts2_tree mcts2_tree;

/* mcts_select_many's scratch (mcts.h) with game_pos leaves. */
typedef struct {
    mcts_cursor *cur;
    int *live, *found, *handle;
    game_pos *leaf;
    int stride;
} mcts2_many;

mcts2_tree *mcts2_tree_create(const game *g, const mcts_config *cfg, uint64_t seed, char *err);
void mcts2_tree_free(mcts2_tree *t);
int mcts2_tree_set_config(mcts2_tree *t, const mcts_config *cfg, char *err);
void mcts2_set_root(mcts2_tree *t, const game_pos *p);
int mcts2_advance(mcts2_tree *t, int move);
const game_pos *mcts2_root_pos(const mcts2_tree *t);
int mcts2_done(const mcts2_tree *t);
int mcts2_sims_done(const mcts2_tree *t);
int mcts2_select(mcts2_tree *t, game_pos *leaf);
int mcts2_select_begin(mcts2_tree *t, mcts_cursor *c);
int mcts2_select_step(mcts2_tree *t, mcts_cursor *c, game_pos *leaf);
int mcts2_select_many(mcts2_tree *const *t, int n, const mcts2_many *m);
int mcts2_leaf_room(const mcts2_tree *t);
int mcts2_complete(mcts2_tree *t, int handle, const float *prior, float value);
void mcts2_complete_prefetch(const mcts2_tree *t, int handle, int stage);
int mcts2_pending(const mcts2_tree *t);
int mcts2_root_visits(const mcts2_tree *t, int *visits, float *q);
int mcts2_root_prior(const mcts2_tree *t, float *prior);
int mcts2_policy(const mcts2_tree *t, double tau, float *pi);
int mcts2_choose(mcts2_tree *t, double tau);
float mcts2_root_value(const mcts2_tree *t);
int mcts2_root_proven(const mcts2_tree *t);
int mcts2_root_scored(const mcts2_tree *t);
int mcts2_root_index(const mcts2_tree *t);
int mcts2_node_count(const mcts2_tree *t);
int mcts2_node_get(const mcts2_tree *t, int index, mcts_node_info *out);
int mcts2_node_child(const mcts2_tree *t, int index, int move);
mcts_rng *mcts2_tree_rng(mcts2_tree *t);

#endif
