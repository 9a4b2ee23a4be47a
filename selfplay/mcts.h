/* mcts.h — the two-player PUCT tree of every two-player game, one tree per game (docs/design.md §3.3), on
 * the game interface's positions (env/game.h): written once in mcts_tree_impl.h and compiled for game_pos in
 * mcts2.c; mcts_mp.h runs every two-player game on it (its value-vector tree is for three and four players).
 * Moves are the mover's slots; "South" below is player 0, "North" player 1.
 *
 * Value convention (the point of this module; search-cases.md case 1). Every node X stores its visit count
 * N(X) and value sum W(X) from the point of view of THE PLAYER TO MOVE AT X's PARENT (the player who chose the
 * move into X); the root uses its own player to move. Backup converts the leaf's value once into South's
 * view and adds it to each node on the path with the sign of that node's parent's mover: the sign therefore
 * changes exactly where the player to move changes, and never across an extra turn (South playing f and
 * moving again keeps South's sign). Q(X) = W(X) / N(X) is in the parent mover's view, so every parent simply
 * maximises Q + U over its children.
 *
 * Selection (PUCT, Silver et al. 2017/2018): child X of node P maximises
 *     Q(X) + c_puct · P(X) · sqrt(N(P)) / (1 + N(X))
 * where N(P) counts P's own visit (its expansion). First-play urgency: an unvisited child gets
 *     Q = Q(P in P's mover's view) − fpu_reduction, clamped to [−1, 1]
 * (the Leela Zero rule: an unvisited move is assumed a little worse than the average of its parent).
 *
 * Leaves: an unexpanded, unfinished node is handed to the evaluator (mcts_mp.h); its priors are read by
 * move slot, masked to the legal moves and renormalised; when the legal priors sum to 0 (or are not
 * finite) they fall back to uniform over the legal moves — never NaN, never an illegal child (cases 3, 4).
 * Finished positions are valued exactly, never by the evaluator: +1 win / 0 draw / −1 loss by the sign of
 * the final margin, for the relevant player.
 *
 * MCTS-Solver (Winands, Björnsson & Saito 2008), when cfg.solver: a finished position is a proven node; a
 * node whose mover has a child proven to win for it is proven won; a node all of whose children are proven
 * takes the best of them (win > draw > loss). Proven values are kept in the same parent-mover view as W.
 * A proven child is not descended again: the simulation backs up its exact value without an evaluation.
 * The search stops early when the root is proven; the chosen move is then a proven win if there is one, and
 * a proven-losing move is never chosen while another exists.
 *
 * Score proofs, when cfg.solver and cfg.margin_utility > 0 — instead of the win/draw/loss proofs
 * above, which with the score utility threw the margin away: once one winning move was proven the search
 * stopped and played any winning move, so a proven win by 1 looked as good as one by 10 and the accuracy
 * against perfect play FELL with more search (82% of data/kalah-6-4 at 800 simulations, 87.8% with score
 * proofs; the endgame third 81% → 90%, README "Perfect play"). A node is scored when its exact utility is
 * known: a finished position or a tablebase leaf (the utility of its exact margin), or an expanded node all
 * of whose children are scored (the best of theirs for its mover: exact minimax over final margins, the
 * simplest case of score-bounded MCTS, Cazenave & Saffidine 2010, with equal bounds). A winning child does
 * NOT score its parent (a larger win may exist). A scored node's W is kept at N × its utility, so Q is exact
 * and selection treats it like any child; it is not descended again (its utility is backed up), and its
 * ancestors receive that utility instead of the leaf's value. The search stops when the root is scored; the
 * move is then the best exact one (whatever tau; ties: lower pit) and the policy target is uniform over the
 * moves of the best utility. No node is then "proven" (proven stays MCTS_UNPROVEN); mcts_node_info.scored
 * and mcts2_root_scored say which are exact. The margin utility needs a game with a final margin
 * (game_has_margin) and divides the margin by all the seeds (game_seeds).
 *
 * Tablebase leaves (Leela Chess Zero probes its endgame tablebases the same way), when
 * cfg.tablebase_seeds > 0: a node other than the root whose position is unfinished and has at most
 * tablebase_seeds seeds in its pits (game_seeds_in_pits) is, when first reached, valued by the game's
 * endgame database (game_endgame: its kind's hook, or one attached with game_set_endgame, as Kalah's
 * tablebase files are; a game without one, or whose database covers fewer seeds, refuses the setting)
 * instead of by the evaluator, and never expanded: each visit backs up +1 / 0 / −1 by the sign
 * of the exact margin for its mover, like a finished position — with cfg.margin_utility w > 0 the exact
 * margin mixed in as for a finished position, so that of two proven wins the search prefers the larger (the
 * solver's optimal move; without it a proven win by 1 seed looked as good as one by 10, and the leaves
 * lowered the accuracy, docs/tablebase.md). With cfg.solver it is also a proven node (scored, with score proofs)
 * (so the proof travels up and a root whose moves are all covered is proven). The root itself is always
 * searched (expanded by the evaluator), so that a covered root still gets visited children to choose from;
 * a covered node that becomes the root through tree reuse loses its proof and is expanded in turn.
 *
 * Noise (cases 6, 7): when cfg.dirichlet_eps > 0, as soon as the root is expanded (or becomes the root
 * through tree reuse) its children's priors become (1 − ε)·P + ε·η with η ~ Dir(α) over the legal moves (a
 * proper sample: Gamma draws, seeded by the tree's RNG). Nodes below the root never get noise.
 *
 * Virtual loss (case 9), used when several leaves of one tree are pending at once (cfg.leaves_per_game > 1):
 * each pending descent charges every node on its path with one loss for that node's parent's mover —
 * selection then sees Q = (W − vl) / (N + vl) — and the charge is removed at backup.
 *
 * Tree reuse: mcts_advance keeps the subtree of the move played (copied compactly into the tree's second node
 * pool) with its statistics and proofs; the next search still runs cfg.sims new simulations on top, so the
 * root noise of the new move always acts on fresh visits.
 *
 * Memory: nodes live in pooled arrays (32 bytes each, 64-byte aligned, in huge pages: mcts_pages.h) that
 * grow geometrically when needed,
 * with the positions of the nodes reached so far in a second pool (one per simulation, not one per node), so
 * a descent sows once, into the node it reaches the first time (that pool is compacted on reuse only once
 * it is mostly garbage); a tree allocates nothing per node in steady state. The descent can run one level
 * at a time (mcts2_select_step) so that a driver interleaves the descents of many trees and their memory
 * loads overlap (mcts2_select_many, selfplay/game_selfplay.c).
 */
#ifndef SOWZERO_SELFPLAY_MCTS_H
#define SOWZERO_SELFPLAY_MCTS_H

#include "env/status.h"

#include <stdint.h>
#include "env/game.h"
#include "selfplay/mcts_status.h"
#include "selfplay/rng.h"

/* Search parameters. Field names are the keys of the [mcts] config section. */
typedef struct {
    int sims;               /* simulations per move, >= 1; default 200. New ones: visits a reused subtree
                               brings along come on top (the root's expansion is the first simulation) */
    double c_puct;          /* exploration constant of PUCT, > 0; default 1.5 */
    double fpu_reduction;   /* first-play urgency: unvisited Q = parent Q − this, in [0, 2]; default 0.25 */
    double dirichlet_alpha; /* root noise concentration, > 0; default 1.0 (≈ 10 / typical legal moves) */
    double dirichlet_eps;   /* root noise weight ε in [0, 1]; 0 = no noise (evaluation); default 0.25 */
    int temp_moves;         /* self-play: plies from the game start played with temperature, >= 0; default 10 */
    double temperature;     /* τ of those plies, > 0: move sampled ∝ N^(1/τ); default 1.0 */
    int leaves_per_game;    /* leaves one tree may have pending in one batch (> 1 uses virtual loss),
                               1..64; default 1 */
    int solver;             /* 0/1: MCTS-Solver proofs (score proofs when margin_utility > 0); default 1 */
    int reuse_tree;         /* 0/1: keep the played move's subtree; default 1 */
    /* The search levers (docs/levers.md; mcts_root.h has their formulas and sources); every default is off. */
    int root;               /* MCTS_ROOT_PUCT (default) or MCTS_ROOT_GUMBEL: Gumbel top-k + sequential halving
                               at the root (Danihelka et al. 2022); below the root PUCT as above */
    int gumbel_k;           /* gumbel: m, the root actions considered (top-m of g + logits), 1..64; default 16 */
    double gumbel_c_visit;  /* gumbel: c_visit of sigma, >= 0; default 50 */
    double gumbel_c_scale;  /* gumbel: c_scale of sigma, > 0; default 1.0 */
    double gumbel_scale;    /* gumbel: scale of the Gumbel noise g, >= 0; 1 in self-play, 0 = deterministic
                               (mcts_mp_search uses 0, like dirichlet_eps); default 1.0 */
    double forced_playouts_k; /* KataGo forced playouts at the root (Wu 2019 §3.2), >= 0; 0 = off (default),
                               KataGo uses 2; mcts2_policy then prunes them from pi */
    double margin_utility;  /* weight w of the final-margin utility (KataGo §4), >= 0; 0 = off (default):
                               a finished position is worth (result + w·margin/(2·pits·seeds)) / (1 + w) */
    int tablebase_seeds;    /* tablebase leaves (see the top) up to this many seeds in the pits, 0..127;
                               0 = off (default); > 0 needs the game's endgame database covering that many */
} mcts_config;

enum { MCTS_ROOT_PUCT = 0, MCTS_ROOT_GUMBEL = 1 };

mcts_config mcts_config_default(void);

/* Checks every field; MCTS_OK, or MCTS_EINVAL with a message naming the field ("mcts.sims must be >= 1,
 * got 0") in err (MCTS_ERRLEN bytes, may be NULL). */
int mcts_config_check(const mcts_config *c, char *err);

#define MCTS_UNPROVEN 2     /* a proven value slot that holds no proof */

/* ---- the tree, for drivers that batch leaves across games (selfplay/game_selfplay.h) ---- */

typedef struct mcts2_tree mcts2_tree;

/* A tree for positions of g (borrowed: it outlives the tree; exactly two players) with search parameters cfg
 * (copied; checked: NULL with a message on a bad cfg, a game of other than two players, margin_utility > 0
 * without a margin, or tablebase_seeds > 0 beyond the game's endgame database). seed seeds the tree's RNG
 * (noise, temperature sampling). The root is g's start position until mcts2_set_root. Free with
 * mcts2_tree_free. */
mcts2_tree *mcts2_tree_create(const game *g, const mcts_config *cfg, uint64_t seed, char *err);
void mcts2_tree_free(mcts2_tree *t);

/* Replaces the search parameters (checked as mcts_config_check; the tree is kept). */
int mcts2_tree_set_config(mcts2_tree *t, const mcts_config *cfg, char *err);

/* Discards the tree and starts a new one at position p (no pending leaves allowed). */
void mcts2_set_root(mcts2_tree *t, const game_pos *p);

/* Plays slot `move` (legal at the root) and makes the reached position the root, keeping its
 * subtree when cfg.reuse_tree (noise is then added to the new root's priors as described at the top).
 * Must not be called with leaves pending. MCTS_OK, MCTS_EINVAL (illegal move / pending leaves), MCTS_ENOMEM
 * (the tree is then reset to the new position, still usable). */
int mcts2_advance(mcts2_tree *t, int move);

/* The root position. */
const game_pos *mcts2_root_pos(const mcts2_tree *t);

/* 1 when the search of the current root is finished: cfg.sims simulations were completed since the root was
 * set or reached by mcts2_advance, or the root is proven (solver), or the root position is finished. */
int mcts2_done(const mcts2_tree *t);

/* Simulations completed for the current root's search: N(root) minus N(root) when the search began (the
 * visits of a reused subtree are not counted). `bench selfplay` sums it over moves. */
int mcts2_sims_done(const mcts2_tree *t);

/* Return values of mcts2_select besides a leaf handle (>= 0). */
enum {
    MCTS_SIM_DONE = -100, /* the simulation ended on a finished or proven node and is already backed up */
    MCTS_COLLISION = -101, /* it reached a leaf that is already pending: nothing to do, undone */
    MCTS_FULL = -102,     /* cfg.leaves_per_game leaves are already pending */
    MCTS_STEP = -103      /* mcts2_select_step only: the descent goes on, call it again */
};

/* Runs one simulation's descent from the root. When it ends at a leaf that needs the evaluator, writes the
 * leaf's position into *leaf and returns a handle >= 0 to pass to mcts2_complete (the leaf stays pending, its
 * path charged with virtual loss). Otherwise returns MCTS_SIM_DONE, MCTS_COLLISION or MCTS_FULL (*leaf
 * untouched). An unexpanded root is itself the first leaf. MCTS_ENOMEM if a pool cannot grow (nothing is
 * then left charged). */
int mcts2_select(mcts2_tree *t, game_pos *leaf);

/* The same descent one tree level at a time, so that a driver can interleave the descents of many trees
 * (mcts2_select_many): each step, after choosing a child, prefetches what the next step reads, and the
 * driver works on other trees while those loads arrive. mcts2_select(t, leaf) is exactly
 *     rc = mcts2_select_begin(t, &c); if (rc == MCTS_OK) do rc = mcts2_select_step(t, &c, leaf); while (rc == MCTS_STEP);
 * begin returns MCTS_OK, MCTS_FULL or MCTS_ENOMEM; step returns MCTS_STEP or what mcts2_select returns.
 * One descent per tree at a time, and no other call on that tree (complete, advance, ...) between its
 * begin and its last step. The cursor is a plain value owned by the caller. */
typedef struct {
    int32_t node;   /* the node the next step processes */
    int32_t slot;   /* the pending-leaf slot (handle) this descent records its path in */
    int32_t len, cap;
    int32_t *path;  /* the path so far (the slot's buffer, lent to the cursor until the descent ends) */
} mcts_cursor;

int mcts2_select_begin(mcts2_tree *t, mcts_cursor *c);
int mcts2_select_step(mcts2_tree *t, mcts_cursor *c, game_pos *leaf);

/* Scratch of mcts2_select_many, owned by the caller: n cursors, n ints of live, n of found, and n × stride
 * leaf handles and positions (tree i's j-th leaf at index i * stride + j). */
typedef struct {
    mcts_cursor *cur;
    int *live, *found, *handle;
    game_pos *leaf;
    int stride;  /* >= the largest cfg.leaves_per_game of the trees */
} mcts2_many;

/* For each tree t[i] in turn, what the loop
 *     while (!mcts2_done(t[i]) && (h = mcts2_select(t[i], &leaf)) != MCTS_COLLISION && h != MCTS_FULL) ...
 * does (every leaf h >= 0 recorded, simulations ending with MCTS_SIM_DONE followed by the next one), with
 * the descents of all n trees interleaved one level at a time. The result is the same as running the loops
 * one tree after the other: the trees are independent. found[i] leaves of tree i are written in the order
 * found. MCTS_OK, or MCTS_ENOMEM (no new descent starts after it; the leaves found are still recorded). */
int mcts2_select_many(mcts2_tree *const *t, int n, const mcts2_many *m);

/* At most this many leaves can mcts2_select still add before the next mcts2_complete:
 * cfg.leaves_per_game − mcts2_pending (a bound only: a search may be done, a descent may end without a
 * leaf). Reads nothing but the tree's first cache line. */
int mcts2_leaf_room(const mcts2_tree *t);

/* Finishes pending leaf `handle` with the evaluator's answer for its position: prior (game_moves floats by
 * slot; masked and renormalised here) and value (for the leaf's mover, clamped to [−1, 1]);
 * expands the leaf and backs the value up to the root. MCTS_OK, MCTS_EINVAL (no such pending handle),
 * MCTS_ENOMEM (pool exhausted: the value is still backed up but the leaf stays unexpanded). */
int mcts2_complete(mcts2_tree *t, int handle, const float *prior, float value);

/* A hint, no effect on results: starts loading what mcts2_complete(t, handle) will touch (the leaf, where
 * its children go, the nodes of the path the backup walks). Stage 0 needs nothing loaded, stage 1 reads
 * what stage 0 loads, stage 2 what stage 1 loads; a driver completing many leaves runs stage 0 a few leaves
 * ahead, stage 1 fewer and stage 2 fewer still, so the loads of several leaves overlap. (The evaluation
 * in between has evicted most of the tree from the caches.) */
void mcts2_complete_prefetch(const mcts2_tree *t, int handle, int stage);

/* Pending leaves (selected, not completed). */
int mcts2_pending(const mcts2_tree *t);

/* Root statistics by slot (arrays of game_moves entries, illegal slots 0): visits and, when non-NULL, Q
 * for the root's mover. Returns N(root). */
int mcts2_root_visits(const mcts2_tree *t, int *visits, float *q);

/* The root's priors P by slot (game_moves floats into prior, 0 on illegal slots, summing to 1) as the
 * evaluator gave them after masking and renormalising, before the root noise (dirichlet_eps) is mixed into
 * the children's: the net's own policy at the root, which selfplay.surprise_weight compares with the
 * search's target. MCTS_OK, or MCTS_EINVAL when the root is not expanded yet. */
int mcts2_root_prior(const mcts2_tree *t, float *prior);

/* Policy target π from the root's visit counts (case 8): tau > 0 gives π ∝ N^(1/tau) over the legal moves;
 * tau == 0 gives the one-hot of the move mcts2_choose(t, 0) would play. Illegal slots get 0; π sums to 1.
 * With cfg.forced_playouts_k > 0 and tau > 0, N is first pruned of the forced playouts; with root = gumbel
 * π is the completed-Q target whatever tau (mcts_root.h).
 * pi has game_moves entries. MCTS_OK, or MCTS_EINVAL when the root has no visited child. */
int mcts2_policy(const mcts2_tree *t, double tau, float *pi);

/* The move to play: tau > 0 samples ∝ N^(1/tau) (tree RNG) among the children not proven lost (when any
 * other exists); tau == 0 takes the best: a proven win, else the most visited non-losing child (ties: the
 * higher Q, then the lower pit). A proven win is always played, even with tau > 0. With root = gumbel the
 * move is the halving's survivor whatever tau (mcts_root.h). Returns the slot,
 * or MCTS_EINVAL when the root has no visited child. */
int mcts2_choose(mcts2_tree *t, double tau);

/* The temperature rule behind mcts2_policy / mcts2_choose, shared with mcts_mp.h: wt[i] = n[i]^(1/tau) for
 * `count` root children (0 where n[i] == 0 or skip[i] is nonzero; skip may be NULL). Returns the sum of the
 * weights (the caller treats a sum that is not > 0 or not finite as "no weights"). */
double mcts_visit_weights(const int *n, const uint8_t *skip, int count, double tau, double *wt);

/* Draws an index with probability wt[i] / wsum (wsum = their sum, > 0) from one uniform of rng; −1 when
 * rounding runs past the end of the range. */
int mcts_visit_draw(mcts_rng *rng, const double *wt, int count, double wsum);

/* Q(root) for the root's mover (0 before any visit) and the root's proven value for its mover (+1/0/−1 or
 * MCTS_UNPROVEN). */
float mcts2_root_value(const mcts2_tree *t);
int mcts2_root_proven(const mcts2_tree *t);
/* 1 when score proofs (cfg.solver with cfg.margin_utility > 0) have made the root exact, else 0. */
int mcts2_root_scored(const mcts2_tree *t);

/* ---- inspection (tests, debugging) ---- */

typedef struct {
    int parent;        /* node index of the parent, −1 for the root */
    int move;          /* slot played from the parent (−1 for the root) */
    int side;          /* player to move at this node, −1 if the node was never reached */
    int parent_side;   /* player to move at the parent = the player whose view W, Q and proven use */
    int visits;        /* N */
    double w;          /* W */
    float prior;       /* P (after masking, renormalising and root noise) */
    int vloss;         /* pending virtual losses */
    float q_select;    /* Q as selection sees it now: (W − vloss) / (N + vloss), 0 when both are 0 */
    int expanded, terminal, pending;
    int exact;         /* a tablebase leaf (valued by the game's endgame database, never expanded) */
    int proven;        /* +1/0/−1 for parent_side, or MCTS_UNPROVEN */
    int scored;        /* score proofs: W / N is the node's exact utility for parent_side */
    int first_child, n_children;  /* children are node indices first_child .. first_child + n_children − 1 */
} mcts_node_info;

int mcts2_root_index(const mcts2_tree *t);
int mcts2_node_count(const mcts2_tree *t);
/* MCTS_OK or MCTS_EINVAL (index out of range). */
int mcts2_node_get(const mcts2_tree *t, int index, mcts_node_info *out);
/* Child index of slot `move` below node `index`, or −1 when that node has no such child. */
int mcts2_node_child(const mcts2_tree *t, int index, int move);

/* The tree's RNG (for drivers that need a per-game stream). */
mcts_rng *mcts2_tree_rng(mcts2_tree *t);

#endif
