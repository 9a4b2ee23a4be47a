/* mcts_mp.h — PUCT Monte-Carlo tree search for every game of the game interface (env/game.h), 2–4 players,
 * with a value per player. A two-player game runs on the two-player tree (mcts.h, mcts2_*), behind these
 * same functions: its values are the mover's value and
 * its negation, an exact node (proven, or scored by score proofs) is both proven and decided, and game_decided is
 * not consulted (with two players a fixed value ends the game). Three and four players run on the
 * value-vector tree described here; what differs from mcts.h:
 *
 * Values are vectors. A value has one entry per player (absolute player order 0..players-1), each in
 * [−1, 1], as game_values gives them (two-player games: win +1, draw 0, loss −1; básico: the rank score
 * mapped to [−1, 1], first place +1, last −1, shared places share the mean). Every node X stores its visit count N(X) and the vector sum W(X)
 * of the values backed up through it; Q_p(X) = W_p(X) / N(X). Backup adds the leaf's whole vector to every
 * node on the path — there is no sign to flip, so an extra sowing (the same player choosing again) needs no
 * special case at all: each node simply chooses for ITS mover m, maximising
 *     Q_m(X) + c_puct · P(X) · sqrt(N(P)) / (1 + N(X))          (PUCT, Silver et al. 2017/2018)
 * over its children X (the max^n rule of Luckhardt & Irani 1986 applied to sampled values; Sturtevant 2003
 * and Petosa & Balch 2019 use the same vector backup for multi-player UCT / AlphaZero). First-play urgency
 * as in mcts.h: an unvisited child gets Q = Q_m(P) − fpu_reduction, clamped to [−1, 1].
 *
 * Leaves: an unexpanded, unfinished node is sent to the evaluator (mcts_mp_eval below), which returns move
 * priors for the mover and a value vector; priors are masked to the legal pits and renormalised (uniform
 * when they sum to 0 or are not finite). A finished position is valued exactly (its rank scores), never by
 * the evaluator.
 *
 * With two players "each node chooses for its own mover" is exactly Kalah's negamax sign convention
 * (v_0 = −v_1), extra turns included.
 *
 * Proofs (the max^n form of MCTS-Solver, when cfg.solver). Two kinds of exactness:
 *   proven  — the whole value vector is exact: a finished position; a node all of whose children are proven
 *             (it takes the vector of the child best for its mover m, ties to the lower pit); a node with a
 *             proven child giving m first place (+1, the best possible).
 *   decided — the value for the node's CHOOSER (the parent's mover) is exact: a proven node; a position
 *             where the chooser's value is already fixed (game_decided: a básico player who finished or
 *             resigned); and, when the
 *             chooser is the node's own mover (the node was reached by an extra sowing, or is the root), as
 *             soon as one child is decided at +1 or every child is decided (the best of them). This is what
 *             lets the search prove "I finish first with this chain of sowings" while the other players'
 *             places are still open.
 * A decided child's exact value replaces its Q in selection and the move choice; a child decided at −1
 * (last place) is never chosen while another exists; a proven child is not descended again (its vector is
 * backed up without an evaluation); the search stops once the root is decided (its best move is known).
 * Noise, temperature, tree reuse, virtual loss (cfg.leaves_per_game > 1: a pending descent charges every
 * node on its path with one loss (−1) for that node's parent's mover) and the mcts_config fields are as
 * in mcts.h.
 *
 * The root levers (mcts_root.h, by the rules Kalah's search applies; mcts_mp_root.c): cfg.root = gumbel
 * (Gumbel top-m and sequential halving at the root, the halving's survivor played, the completed-Q target;
 * no Dirichlet noise, temperature or reuse at such a root) and cfg.forced_playouts_k (forced playouts at
 * the root, pruned from the target). The root's Q in their formulas is the root mover's entry of the value
 * vectors; a child decided at +1 for that mover is played first, one decided at −1 is Kalah's proven loss.
 * The margin utility (cfg.margin_utility w > 0) needs two players and a final margin: a two-player game
 * gets it from mcts.h's two-player tree (score proofs included), with the net evaluator
 * of mcts_mp_eval_net_create_utility mixing its margin head in the same way; this tree refuses it.
 *
 * Memory: nodes live in one pooled array that grows geometrically; reuse compacts the kept subtree.
 * Errors: MCTS_* codes of mcts_status.h, with a message where an err buffer (MCTS_ERRLEN) is taken.
 */
#ifndef SOWZERO_SELFPLAY_MCTS_MP_H
#define SOWZERO_SELFPLAY_MCTS_MP_H

#include <stdint.h>

#include "env/game.h"
#include "nn/net.h"
#include "selfplay/mcts_status.h"
#include "selfplay/mcts.h"
#include "selfplay/rng.h"

/* ---- evaluators ---- */

typedef struct mcts_mp_eval mcts_mp_eval;

/* The interface. evaluate: n unfinished positions
 * (1..max_batch) → prior (n × game_moves floats, by the mover's slot, >= 0; illegal slots may hold
 * anything finite) and value (n × game_players floats, ABSOLUTE player order, each in [−1, 1]).
 * Implementations embed it as their first member. One evaluator belongs to one thread at a time. */
struct mcts_mp_eval {
    int (*evaluate)(mcts_mp_eval *e, const game_pos *pos, int n, float *prior, float *value);
    void (*reseed)(mcts_mp_eval *e, uint64_t seed);   /* may be NULL */
    void (*destroy)(mcts_mp_eval *e);
    const game *game;          /* borrowed: outlives the evaluator */
    int max_batch;
    double forward_seconds;    /* wall time inside the expensive call (nn_forward / the playouts) */
    uint64_t calls, positions;
};

/* The net evaluator: game_encode of each position (mover's point of view) and legal mask → one nn_forward
 * call. The net must have input_dim game_encode_dim(g), n_policy game_moves(g) and n_value
 * game_value_dim(g): with one value output (two-player games) it is the mover's value and the opponent
 * gets its negation; with one per player they are in the mover-relative order of the encoding (output j
 * is player (mover + j) % players) and are rotated back to absolute order here. The net is borrowed and only read. NULL with a message on a
 * mismatch / out of memory. */
mcts_mp_eval *mcts_mp_eval_net_create(const nn_net *net, const game *g, int max_batch, char *err);

/* The same with the margin utility w >= 0 (mcts.margin_utility): the mover's value is (v + w · clamp(m, −1,
 * 1)) / (1 + w), v the value head and m the margin head (the final margin for the mover / game_seeds, as
 * self-play writes its target), the mix the search gives finished positions. w = 0 is
 * mcts_mp_eval_net_create; w > 0 needs a net with a margin head and a two-player game (else NULL, message). */
mcts_mp_eval *mcts_mp_eval_net_create_utility(const nn_net *net, const game *g, int max_batch, double margin_utility,
                                              char *err);

/* MCTS_OK when net's shape fits g (input_dim, n_policy, n_value as above), else MCTS_EINVAL with the
 * three numbers it has and needs in err (MCTS_ERRLEN). */
int mcts_mp_net_check(const nn_net *net, const game *g, char *err);

/* Uniform priors over the legal pits; value = mean over `rollouts` (>= 1) uniformly random playouts to
 * the end of the game of each player's 2·rank score − 1. Seeded by seed. */
mcts_mp_eval *mcts_mp_eval_rollout_create(const game *g, int rollouts, int max_batch, uint64_t seed,
                                          char *err);

void mcts_mp_eval_free(mcts_mp_eval *e);

/* One evaluator per worker thread: net (shared, read-only) or rollouts. */
typedef struct mcts_mp_eval_factory {
    mcts_mp_eval *(*create)(const struct mcts_mp_eval_factory *f, const game *g, int max_batch,
                            uint64_t seed, char *err);
    const nn_net *net;
    double margin_utility; /* net: mcts_mp_eval_net_create_utility's w (0 = the plain value) */
    int rollouts;
    void *user;
} mcts_mp_eval_factory;

mcts_mp_eval_factory mcts_mp_eval_factory_net(const nn_net *net);
mcts_mp_eval_factory mcts_mp_eval_factory_rollout(int rollouts);

/* ---- the single-position search (agents `mcts:` and `az:` of eval/game_agent.h) ---- */

typedef struct {
    int move;                                 /* chosen slot */
    int root_visits;
    int visits[GAME_MAX_MOVES];              /* by slot, 0 on illegal pits */
    float pi[GAME_MAX_MOVES];                /* visit shares, sum 1 */
    float value[GAME_MAX_PLAYERS];          /* Q(root) per player (absolute order) */
    int proven;                               /* 1 if the root is proven (value is then exact) */
    int won;                                  /* 1 if the chosen move assures the mover first place */
    uint64_t evals;
} mcts_mp_result;

/* Searches p (unfinished) with cfg, WITHOUT noise (dirichlet_eps, gumbel_scale and forced_playouts_k are
 * taken as 0), and picks the most visited root move (a child decided at +1 for the mover first; ties: the
 * higher Q for the mover, then the lower pit), or with root = gumbel the halving's survivor; out->pi is then
 * the completed-Q target. seed reseeds the tree
 * and the evaluator (when it has reseed). ev->max_batch must be >= cfg.leaves_per_game.
 * MCTS_OK, MCTS_EINVAL, MCTS_EOVER, MCTS_ENOMEM, MCTS_EEVAL (message in err). */
int mcts_mp_search(const game *g, const game_pos *p, const mcts_config *cfg, mcts_mp_eval *ev,
                   uint64_t seed, mcts_mp_result *out, char *err);

/* mcts_mp_search with a time budget (a match's time control, eval/game_match.h): the search also stops,
 * between batches of leaves, once ms milliseconds of wall-clock time (CLOCK_MONOTONIC) have passed since
 * the call and the root has a visited child, playing what it has found by then. ms <= 0: no budget (the
 * same search as mcts_mp_search). A search stopped by time depends on the clock, not only on its seed.
 * abort: a flag (borrowed, read with relaxed atomic loads between batches; NULL: none) that another thread
 * or a signal handler sets to stop the search at once: MCTS_ESTOPPED, no move. */
int mcts_mp_search_timed(const game *g, const game_pos *p, const mcts_config *cfg, mcts_mp_eval *ev,
                         uint64_t seed, int64_t ms, const int *abort, mcts_mp_result *out, char *err);

/* ---- the tree, for drivers that batch leaves across games ---- */

typedef struct mcts_mp_tree mcts_mp_tree;

/* A tree for games of g (borrowed, must outlive the tree), rooted at the start position. */
mcts_mp_tree *mcts_mp_tree_create(const game *g, const mcts_config *cfg, uint64_t seed, char *err);
void mcts_mp_tree_free(mcts_mp_tree *t);
int mcts_mp_tree_set_config(mcts_mp_tree *t, const mcts_config *cfg, char *err);

/* Discards the tree; the root becomes p (no pending leaves allowed). */
void mcts_mp_set_root(mcts_mp_tree *t, const game_pos *p);

/* Plays slot `move` (legal at the root), keeping its subtree when cfg.reuse_tree. MCTS_OK,
 * MCTS_EINVAL (illegal / leaves pending), MCTS_ENOMEM (tree reset to the new position, still usable). */
int mcts_mp_advance(mcts_mp_tree *t, int move);

const game_pos *mcts_mp_root_pos(const mcts_mp_tree *t);

/* 1 when cfg.sims simulations have completed since the root was set/reached, or the root is proven or
 * finished. */
int mcts_mp_done(const mcts_mp_tree *t);

/* One descent (return values as mcts_select: a leaf handle >= 0 with *leaf filled, or MCTS_SIM_DONE,
 * MCTS_COLLISION, MCTS_FULL, MCTS_ENOMEM). */
int mcts_mp_select(mcts_mp_tree *t, game_pos *leaf);

/* Completes pending leaf `handle` with prior (game_moves floats) and value (game_players floats, absolute order,
 * clamped to [−1, 1]): expands it and backs the vector up. MCTS_OK, MCTS_EINVAL, MCTS_ENOMEM. */
int mcts_mp_complete(mcts_mp_tree *t, int handle, const float *prior, const float *value);

int mcts_mp_pending(const mcts_mp_tree *t);

/* Root statistics by slot (game_moves entries; illegal 0): visits and, when q != NULL, Q for the root's
 * mover. Returns N(root). */
int mcts_mp_root_visits(const mcts_mp_tree *t, int *visits, float *q);

/* Q(root) per player (game_players floats, absolute order; zeros before any visit; the exact vector once the
 * root is proven). Returns 1 if proven. */
int mcts_mp_root_value(const mcts_mp_tree *t, float *value);

/* 1 when the root is decided at +1: a move assures its mover first place (mcts_mp_choose plays it). */
int mcts_mp_root_won(const mcts_mp_tree *t);

/* Policy target π ∝ N^(1/tau) over the legal moves (tau == 0: one-hot of mcts_mp_choose(t, 0)); with
 * cfg.forced_playouts_k > 0 and tau > 0, N is first pruned of the forced playouts; with root = gumbel π is
 * the completed-Q target whatever tau (mcts_root.h). MCTS_OK or MCTS_EINVAL (root not expanded). */
int mcts_mp_policy(const mcts_mp_tree *t, double tau, float *pi);

/* The move to play: tau > 0 samples ∝ N^(1/tau) (tree RNG) among the children not decided at −1 (when
 * another exists); tau == 0 the best (a child decided at +1, else the most visited not decided at −1, ties
 * by Q then lower pit). A child decided at +1 is always played, even with tau > 0. With root = gumbel the
 * move is the halving's survivor whatever tau (mcts_root.h). Returns the slot or MCTS_EINVAL. */
int mcts_mp_choose(mcts_mp_tree *t, double tau);

mcts_rng *mcts_mp_tree_rng(mcts_mp_tree *t);

/* Runs the search of t's current root to its end (mcts_mp_done) with ev, up to `leaves` (1..ev->max_batch,
 * the tree's cfg.leaves_per_game) leaves per evaluator call: what mcts_mp_search does between setting the
 * root and choosing, for a caller that keeps its tree between moves (an agent's tree reuse). ms > 0: also
 * stops once that many milliseconds have passed and a root child has a visit; abort: as
 * mcts_mp_search_timed. MCTS_OK, MCTS_ENOMEM, MCTS_EEVAL (the leaves of the failed call are completed
 * neutrally, so no leaf stays pending), MCTS_ESTOPPED; message in err (MCTS_ERRLEN, may be NULL). */
int mcts_mp_run(mcts_mp_tree *t, mcts_mp_eval *ev, int leaves, int64_t ms, const int *abort, char *err);

/* The two-player tree (mcts.h) that runs t when its game has two players, else NULL: drivers batch its
 * descents with mcts2_select_many and complete its leaves with the leaf mover's value (value[leaf.to_move]),
 * exactly as mcts_mp_select / mcts_mp_complete would. Borrowed: it lives as long as t. */
mcts2_tree *mcts_mp_two(mcts_mp_tree *t);

/* Inspection for tests: node count, root index, and one node's fields. */
typedef struct {
    int parent, move, mover, visits, expanded, terminal, proven, first_child, n_children;
    int decided;                    /* the chooser's value is exact: */
    float decided_value;            /* that value (for the parent's mover) */
    float prior;
    double w[GAME_MAX_PLAYERS];   /* value sums per player (absolute order) */
} mcts_mp_node_info;
int mcts_mp_node_count(const mcts_mp_tree *t);
int mcts_mp_root_index(const mcts_mp_tree *t);
int mcts_mp_node_get(const mcts_mp_tree *t, int index, mcts_mp_node_info *out);
int mcts_mp_node_child(const mcts_mp_tree *t, int index, int move);

#endif
