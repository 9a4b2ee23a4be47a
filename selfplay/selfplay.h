/* selfplay.h — the configuration of self-play (the [selfplay] config section) and what a round reports
 * (docs/design.md §3.3). game_selfplay.h plays it for every game, Kalah included: `threads` workers
 * (pthreads), each running games_per_thread games at once whose leaves share ONE evaluator call per round;
 * a game whose search is done plays its move (temperature for the first mcts_config.temp_moves plies, then
 * the best move), reuses the subtree and searches again. Workers share only the read-only net.
 *
 * Samples: one per decision (every ply of every game, extra turns included; with surprise_weight a number
 * of copies per decision, below), appended to the replay buffer when the game ends (replay.h: x, legal, π,
 * z, margin). π comes from mcts_policy: with pi_visits = 0 (default, search-cases.md case 8) π ∝ N^(1/τ)
 * during the temperature plies and one-hot on the move chosen by mcts_choose(·, 0) afterwards; with pi_visits = 1 it is N^(1/T) / Σ N^(1/T) at every ply, T = pi_temperature
 * (1: the plain visit share N / ΣN)
 * (the Gumbel root and forced playouts change it: mcts_root.h). Whether a decision is full or fast
 * (full_sims_prob) is drawn from its game's tree RNG before the search of that decision starts.
 * A game that reaches max_moves plies unfinished is scored as if it ended there (game_stopped_values:
 * Kalah's sides sweep their own pits into their stores, the end rule of docs/design.md §1.1).
 * Rescoring (rescore = 1; Leela Chess Zero rescores its training games with tablebases the same
 * way): a sample whose position has at most mc.tablebase_seeds seeds in its pits takes its value target z
 * (+1 / 0 / −1) and margin target from the exact final margin under perfect play (mc.tablebase, mcts.h) for
 * its mover instead of from the game's outcome; the other samples keep the outcome. The policy target stays
 * the search's, unless rescore_policy = 1: then a covered sample's π is uniform over its optimal moves (those
 * whose exact margin is the best). Needs mc.tablebase_seeds >= 1 and the game's endgame database
 * (game_endgame: its kind's hook or an attached one, game_set_endgame).
 *
 * Random openings (opening_plies = K > 0; KataGo plays random opening moves for the same reason,
 * Wu 2019 §5): each game draws k uniform in 0..K from its tree's RNG and starts after k sowings, each
 * uniform over the legal moves (an opening that ends the game is drawn again); those sowings are not
 * samples, and the game's record starts from the position they reached. They put lopsided positions into
 * the replay buffer — the kind the solved position set holds (games of random, greedy, ab and mcts agents)
 * and that self-play between two strong searches stops visiting.
 *
 * Policy surprise weighting (surprise_weight = s > 0; KataGo's, lightvector/KataGo
 * docs/KataGoMethods.md): when a game ends, each of its policy samples (full decisions; a value-only sample
 * keeps weight 1) gets the frequency weight w = (1 − s) + s · n · KL_i / Σ_j KL_j over the game's n policy
 * samples, KL_i = Σ_k π_k · ln(π_k / P_k) from the net's prior P at its position (before noise, floored at
 * 1e-6) to the written target π; with Σ KL = 0 every w is 1. The weights sum to n, so the samples per game
 * are n on average, but a decision where the search overturned the net is written floor(w) times and once
 * more with probability w − floor(w) (drawn from a stream of the worker's own, so the games themselves
 * are those of s = 0), and the copies are adjacent in the buffer. The raw policy's misses are where the
 * search disagrees with it; this trains on those positions more often, at full gradient (not importance-
 * weighted: the policy only proposes moves to the search, KataGo's argument). KataGo measures the
 * surprise against the prior it searched with, noise included; here P is the net's own, so that the
 * noise's draw does not decide which positions are repeated. With rescore_policy, π is the database's
 * target where it covers the position. Under mpirun the learner counts the samples it receives, copies
 * included (train/mpi_train.h), where a local run's metrics count decisions.
 *
 * Q-mixed value targets (q_ratio = r > 0; Lc0's q_ratio, and "Lessons from AlphaZero, part 4" (Oracle
 * Developers, 2018) averaging z and q): a sample's value target is (1 − r) · z + r · Q, Q the root value its
 * search reached for each player (mcts_mp_root_value: W / N over the root's visits, kept ones included,
 * the exact value once proven), in the units of z. z is one game's outcome, as noisy as the game is long
 * (a game of three players runs 170 plies); Q is what the search saw at that decision, biased toward the
 * net's own view but far less noisy. A rescored sample keeps its exact target. Needs the plain value in Q:
 * refused with mcts.margin_utility > 0 (Q then holds the margin's share too).
 *
 * BLAS: game_selfplay_run calls nn_set_blas_threads(1) before starting its workers (each worker's nn_forward must
 * stay on its own core); a caller that trains with more BLAS threads raises the count again afterwards.
 */
#ifndef SOWZERO_SELFPLAY_SELFPLAY_H
#define SOWZERO_SELFPLAY_SELFPLAY_H

#include <stdint.h>
#include <stdio.h>
#include "env/kalah.h"
#include "selfplay/mcts_status.h"
#include "selfplay/mcts.h"
#include "selfplay/replay.h"

/* Field names are the keys of the [selfplay] config section. */
typedef struct {
    int threads;           /* worker threads, 1..256; default 1 */
    int games_per_thread;  /* games run at once per worker (the batch size reached), 1..4096; default 64 */
    int games;             /* games per game_selfplay_run call (one training iteration), >= 1; default 256 */
    int max_moves;         /* plies after which an unfinished game is scored by sweeping, >= 1; default 1000 */
    int pi_visits;         /* 0/1, see the top; default 0 */
    double pi_temperature; /* T in (0, 100], with pi_visits = 1: π ∝ N^(1/T) (mcts_policy's tau); 1 = the
                              plain visit shares (default), below 1 sharper toward the most visited move */
    /* Playout cap randomization (KataGo, Wu 2019 §3.1): each decision is a full search with probability
     * full_sims_prob (mcts.sims, the configured noise, a policy sample) and otherwise a fast one
     * (fast_sims simulations, no Dirichlet noise, no forced playouts) whose sample trains the value only:
     * its π is written as all zeros, the replay buffer's policy weight (replay.h). */
    double full_sims_prob; /* p in [0, 1]; 1 = off (default: no draw, every move full) */
    int fast_sims;         /* n, >= 1 when full_sims_prob < 1; default 0 */
    int rescore;           /* 0/1: exact value targets from the search's tablebase, see the top; default 0 */
    int rescore_policy;    /* 0/1 (needs rescore): exact policy targets too, see the top; default 0 */
    int opening_plies;     /* K, 0..100: each game starts after k uniform random sowings, k uniform in
                              0..K (no samples for them), see the top; default 0 */
    /* Deeper opening searches: a full decision whose position has at least opening_seeds seeds
     * in the pits gets opening_sims simulations instead of mcts.sims (the raw policy is weakest where the
     * most seeds are in play: 77% optimal in the set's opening phase, 96% in its endgame). */
    int opening_sims;      /* 0 = off (default); else 1..100000000 */
    int opening_seeds;     /* 1..255 seeds in both rows' pits; default 33 (the set's opening phase, 48-33) */
    /* Policy surprise weighting (KataGo, docs/KataGoMethods.md, "Policy Surprise Weighting"): see
     * the top. */
    double surprise_weight; /* s in [0, 1]; 0 = off (default: one sample per decision); KataGo uses 0.5 */
    double q_ratio;         /* r in [0, 1]: the search's root Q's share of the value target, see the top;
                               0 = the game's outcome only (default) */
} selfplay_config;

selfplay_config selfplay_config_default(void);

/* Checks every field; MCTS_OK, or MCTS_EINVAL with a message naming the field ("selfplay.threads must be
 * in 1..256, got 0") in err (MCTS_ERRLEN bytes, may be NULL). */
int selfplay_config_check(const selfplay_config *c, char *err);

/* The most league opponents a self-play run takes (game_selfplay_league.count). */
#define SELFPLAY_MAX_LEAGUE 8

/* What one round of self-play did, as training reports it (game_selfplay_stats has the rest). Rates use the
 * round's wall time. */
typedef struct {
    uint64_t games;          /* games finished */
    uint64_t samples;        /* decisions (= plies played); the samples written to the buffer are as many,
                              * or with surprise_weight as many on average (copies, see the top) */
    double seconds;          /* wall time of the round */
    double positions_per_s;  /* samples (decisions) / seconds */
    /* with a league (game_selfplay_league): per opponent, the games it played and the sum over them of the
     * search seats' mean score ((value + 1) / 2 of each seat's final value: a win 1, a draw 1/2; básico
     * its rank score), so league_score[i] / league_games[i] is the search's score against opponent i */
    uint64_t league_games[SELFPLAY_MAX_LEAGUE];
    double league_score[SELFPLAY_MAX_LEAGUE];
} selfplay_stats;

#endif
