/* mcts_root.h — the root levers of both searches (Kalah's, mcts.h, and every game's, mcts_mp.h): Gumbel
 * AlphaZero's root and KataGo's forced playouts with policy target pruning. The pure formulas and the rules
 * over a root's children (arrays in child order) are public here, so that tests check them against
 * independent computation and both trees apply the same ones; each tree's hooks (selection at the root, the
 * policy target, the move: mcts_root.c for Kalah's, mcts_mp_root.c for every game's) only read its root's
 * children into arrays, and are switched on by mcts_config.root / forced_playouts_k.
 *
 * Gumbel root (Danihelka, Guez, Schrittwieser & Silver, ICLR 2022, "Policy improvement by planning with
 * Gumbel"; the choices below follow the authors' reference implementation, DeepMind's mctx, where the paper
 * leaves them open):
 *   - When the root is expanded, every legal root action a gets g(a) ~ Gumbel(0, 1) scaled by gumbel_scale
 *     (g = −log(−log u), u uniform from the tree's RNG); logits(a) = log P(a) (the masked, renormalised
 *     prior; Dirichlet noise is not used: g is the exploration).
 *   - Sequential halving over the budget n = sims − 1 simulations after the root's expansion, m = min(k,
 *     legal actions) considered: mcts_gumbel_halving gives, for simulation i, the visit count an action
 *     must have to be eligible; among the eligible, the root takes argmax g + logits + σ(q̂) (mctx
 *     score_considered), so the first m simulations take the top m of g + logits and each phase keeps the
 *     better half. Below the root the selection is PUCT, unchanged (not the paper's deterministic
 *     non-root rule).
 *   - σ(q̂(a)) = (c_visit + max_b N(b)) · c_scale · q̂(a) (paper eq. 8), with q̂ the completed Q: Q(a) for
 *     visited actions, v_mix for the others (appendix D eq. 33), then min-max rescaled to [0, 1] over the
 *     root's actions (mctx qtransform_completed_by_mix_value, rescale_values = True; the paper assumes values
 *     in [0, 1], ours are in [−1, 1]).
 *   - The move played: among the actions with the most visits, argmax g + logits + σ(q̂) (the halving's
 *     survivor); a proven win is played first and a proven loss never while another move exists (solver).
 *   - The policy target: π' = softmax(logits + σ(q̂)) over the legal actions (paper §4, eq. 11), written by
 *     self-play instead of the visit counts.
 *   - The root is never reused (the halving schedule counts the root's visits from zero, as mctx does).
 *
 * Forced playouts and policy target pruning (Wu 2019, "Accelerating Self-Play Learning in Go", §3.2): at
 * the root, a child c with N(c) < n_forced(c) = sqrt(k · P(c) · Σ_b N(b)) is chosen before PUCT is asked
 * (the lowest such pit first); P is the root prior with noise. Before the target is written, every child c
 * other than the most visited c* loses up to n_forced(c) visits as long as its PUCT score stays below
 * c*'s (both with the tree's PUCT formula, mcts.h, and N(parent) = N(root)); a child left with at most one
 * visit is pruned to zero. The move played still comes from the unpruned counts.
 */
#ifndef SOWZERO_SELFPLAY_MCTS_ROOT_H
#define SOWZERO_SELFPLAY_MCTS_ROOT_H

#include <stdint.h>

#include "selfplay/rng.h"

/* The sequential-halving schedule of mctx (seq_halving.get_sequence_of_considered_visits): seq[i] for
 * i = 0..n−1 is the visit count an action must have to be chosen by simulation i, for m >= 1 considered
 * actions and a budget of n >= 0 simulations. Each phase gives every remaining action
 * max(1, floor(n / (ceil(log2 m) · remaining))) more visits, then halves the remaining (at least 2).
 * seq holds n ints (caller's memory). */
void mcts_gumbel_halving(int m, int n, int *seq);

/* σ(q̂) of the root's `count` actions (formulas at the top): n[i] visits, q[i] the mover's Q (read only
 * where n[i] > 0), prior[i] the prior probability, raw the net's value of the root for its mover;
 * c_visit >= 0, c_scale > 0. Writes count doubles into sigma. */
void mcts_gumbel_sigma(const int *n, const double *q, const double *prior, int count, double raw, double c_visit,
                       double c_scale, double *sigma);

/* π' = softmax(log prior[i] + sigma[i]) over i < count (prior 0 gives 0), into pi (count doubles). */
void mcts_gumbel_target(const double *prior, const double *sigma, int count, double *pi);

/* KataGo's n_forced = sqrt(k · prior · total), total = Σ_b N(b). */
double mcts_forced_playouts(double k, double prior, int total);

/* Policy target pruning (formulas at the top) of `count` root children: n visits, q the mover's Q of the
 * visited ones, prior P, c_puct and parent_n = N(root) of the tree's PUCT, k the forced-playout constant.
 * Writes the pruned visit counts (doubles, not rounded) into out; the most visited child keeps its count.
 * Returns the index of that child, −1 when no child has a visit (out = n then). */
int mcts_forced_prune(const int *n, const double *q, const double *prior, int count, double c_puct, int parent_n,
                      double k, double *out);

/* ---- the rules over a root's `count` children (child order; count <= 64) ---- */

/* Draws g[i] = −log(−log u) · scale for the count children, u uniform from rng (one draw each); scale 0
 * draws nothing and writes zeros (the evaluation search stays deterministic). */
void mcts_gumbel_draw(mcts_rng *rng, double scale, int count, float *g);

/* The Gumbel scores g[i] + log prior[i] + σ(q̂)[i] (mcts_gumbel_sigma's arguments, g from mcts_gumbel_draw)
 * into score (count doubles). */
void mcts_gumbel_scores(const int *n, const double *q, const double *prior, const float *g, int count,
                        double raw, double c_visit, double c_scale, double *score);

/* The child the Gumbel root descends to: cnt[i] = N(i) plus its pending virtual visits; the simulation's
 * index is Σ cnt; among the children holding seq[index] visits (past the schedule's end its last entry;
 * len = 0: no schedule) the best score (ties: the lower index), else the best of the least visited. */
int mcts_gumbel_pick(const int *cnt, const double *score, int count, const int *seq, int len);

/* The Gumbel root's move: among the children not skipped (skip[i] != 0: proven lost while another is not;
 * skip may be NULL) with the most visits n, the best score (ties: the lower index). */
int mcts_gumbel_choose(const int *n, const uint8_t *skip, const double *score, int count);

/* The child a forced playout goes to: the first not skipped with cnt[i] (N plus pending virtual visits) <
 * mcts_forced_playouts(k, prior[i], Σ n); −1 when none is owed (PUCT chooses). */
int mcts_forced_pick(const int *n, const int *cnt, const double *prior, const uint8_t *skip, int count,
                     double k);

/* The pruned policy target: mcts_forced_prune's counts raised to 1/tau (tau > 0) and normalised into pi
 * (count doubles). 1, or 0 when no weight remains (pi untouched; the caller uses the plain visits). */
int mcts_forced_target(const int *n, const double *q, const double *prior, int count, double c_puct, int parent_n,
                       double k, double tau, double *pi);

#endif
