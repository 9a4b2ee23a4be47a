/* mcts_mp_root.c — the root levers of every game's search (mcts_mp.h): Gumbel AlphaZero's root and KataGo's
 * forced playouts with policy target pruning, by the rules of mcts_root.h that Kalah's search applies too.
 * Each node chooses for its own mover, so the root's Q (sigma's completed Q, the pruning's PUCT) is the root
 * mover's entry of its children's value vectors; a child decided for that mover counts with its exact
 * value, and one decided at −1 (last place) is Kalah's proven loss: never chosen while another exists. */
#include <stdlib.h>

#include "selfplay/mcts_mp_impl.h"
#include "selfplay/mcts_root.h"

#define RT_TREE mcts_mp_tree
#define RT_NODE mpnode
#define RT_MAX GAME_MAX_MOVES
#define RT_SIMS(t) ((t)->cfg.sims)
#define RT_EXACT(c) (((c)->flags & F_DECIDED) != 0)
#define RT_Q(t, c) mp_child_q(c, (t)->pool[0].mover)
#define RT_LOST(c) (((c)->flags & F_DECIDED) && (c)->dv <= -1.0f)
#define RT_WON(c) (((c)->flags & F_DECIDED) && (c)->dv >= 1.0f)
#define RT_BEST(t) mp_best_root_child(t)
#define RT_BEGIN mp_root_begin
#define RT_SELECT mp_root_select
#define RT_POLICY mp_root_policy
#define RT_CHOOSE mp_root_choose
#include "selfplay/mcts_root_impl.h"
