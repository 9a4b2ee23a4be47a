/* game_selfplay.h — self-play of any game of the game interface (env/game.h) with batched evaluation across games and
 * threads, Kalah's included, with the configuration of selfplay.h (selfplay_config, mcts_config), the worker
 * layout (`threads` pthreads, each running games_per_thread games whose leaves share ONE evaluator call per
 * round) and its replay buffer. The search is mcts_mp (values per player); two-player games run on its
 * two-player tree (mcts.h), whose descents are interleaved across the worker's games (mcts2_select_many).
 *
 * Samples: one per decision (extra turns included), appended when the game ends:
 *   x      game_encode of the position (mover's point of view), dim game_encode_dim
 *   legal  the mover's legal slots
 *   π      mcts_mp_policy (as selfplay.h: visit counts sharpened like the move choice, or plain visit shares
 *          with pi_visits = 1; pruned of the forced playouts with mcts.forced_playouts_k, the completed-Q
 *          target with mcts.root = gumbel, whose move is the halving's survivor: mcts_mp.h)
 *   z      game_value_dim entries: with one (two-player games) the mover's final value; with one per player
 *          the final values in the MOVER-RELATIVE order of the encoding, z_j = value of player
 *          (mover + j) % players (mcts_mp.h) — the targets of a value head of that shape
 *   margin the final margin for the mover divided by game_seeds (0 for games without a margin)
 * A game still running after max_moves plies is scored by game_stopped_values (básico: as if the
 * first-finisher rule ended it there).
 *
 * The self-play levers of selfplay_config are those of selfplay.h, written once for both drivers
 * (levers.h): random openings (opening_plies: k uniform in 0..K random sowings from the tree's RNG, not
 * samples), the deeper opening search (opening_sims for a full decision with at least opening_seeds seeds
 * in the pits, game_seeds_in_pits), playout caps (full_sims_prob / fast_sims: a fast decision writes π = 0,
 * a value-only sample) and policy surprise weighting (surprise_weight: each decision written floor(w) or
 * floor(w) + 1 times, adjacent). The surprise's prior P at a decision's position is the net's own, read
 * when the game ends by a second evaluator of the worker (from the factory, its seed apart from the
 * search's): the prior the search expanded that position with, masked to the legal slots (sp_legal_prior),
 * before any root noise — and the search's evaluator sees exactly what it sees without the lever, so the
 * games are those of surprise_weight = 0. Its evaluations count in evals and forward_seconds.
 * Rescoring (rescore, rescore_policy; selfplay.h): a decision whose position has at most mcts.tablebase_seeds
 * seeds in its pits and that the game's endgame database covers (game_endgame: the kind's hook, or the one
 * attached with game_set_endgame, as train does for Kalah's tablebase files) takes z and the margin target
 * from its exact final margin for the mover, and with rescore_policy π uniform over its optimal moves. Needs
 * two players and a database covering those seeds (else MCTS_EINVAL).
 *
 * Determinism: games are assigned to workers by game index (worker t of T plays games t, t + T, ...), and
 * game i's tree is seeded from (seed, i); a worker keeps its finished games' samples in the order they
 * ended and hands them to the buffer after all workers are joined, worker 0 first. So the games, the
 * buffer's contents and its order are a function of (seed, threads, the configs), not of thread timing.
 */
#ifndef SOWZERO_SELFPLAY_GAME_SELFPLAY_H
#define SOWZERO_SELFPLAY_GAME_SELFPLAY_H

#include <stdint.h>

#include "env/game.h"
#include "selfplay/mcts_mp.h"
#include "selfplay/replay.h"
#include "selfplay/selfplay.h"

/* What one run did (the fields of selfplay_stats that apply; samples counts decisions, not surprise copies;
 * wins[p] counts games where player p had the best final value, shared included). */
typedef struct {
    uint64_t games, samples, evals, batches;
    uint64_t simulations;     /* PUCT simulations completed, summed over decisions (the root's new visits) */
    uint64_t wins[GAME_MAX_PLAYERS];
    uint64_t capped;          /* games stopped by max_moves */
    uint64_t league_games[SELFPLAY_MAX_LEAGUE]; /* games of each league opponent, and the search seats' */
    double league_score[SELFPLAY_MAX_LEAGUE];   /* summed mean score in them (selfplay_stats) */
    double seconds, thread_seconds, forward_seconds;
    double avg_batch, forward_share, positions_per_s, games_per_s;
} game_selfplay_stats;

/* Plays sc->games games of g (borrowed) with search mc and evaluators from ef (one per worker, max_batch =
 * games_per_thread × leaves_per_game), appending samples to rb (may be NULL; else its dim, pits and n_value
 * must be game_encode_dim, game_moves, game_value_dim). st may be NULL. Sets BLAS to 1 thread (selfplay.h).
 * Returns MCTS_OK or a negative MCTS_* code with the message in err (MCTS_ERRLEN); the games finished before
 * an error are in rb. */
int game_selfplay_run(const game *g, const selfplay_config *sc, const mcts_config *mc,
                      const mcts_mp_eval_factory *ef, replay_buffer *rb, uint64_t seed, game_selfplay_stats *st,
                      char *err);

/* One finished game, for game_selfplay_run_games: the position its decisions began at (after its random
 * opening) and the n slots played from there, one per decision (a game stopped by max_moves is unfinished).
 * Borrowed for the call. Returns 0, or nonzero to fail the run with MCTS_EIO. */
typedef int (*game_selfplay_game_fn)(void *ctx, const game_pos *start, const uint8_t *moves, int n);

/* Fixed opponents in self-play (a league, as AlphaStar's and OpenAI Five's self-play keeps a share of its
 * games against other agents): in a share of the games, drawn per game from its tree's RNG, k seats (k
 * uniform in 1..players − 1, the seats uniform) are played by one opponent (uniform over count) and the
 * others by the search. Only the search's decisions become samples; their value targets are the final
 * values of that mixed game, so the value head also learns positions the self-play field alone never
 * reaches (in a game of more than two players, self-play's field co-adapts: three copies of one net play
 * a game none of its outside opponents plays). The opponents' moves are in the games handed to on_game.
 * Each worker creates its own agents (create: agent i of count, NULL on failure with the message in err,
 * MCTS_ERRLEN); choose gets the position and a seed drawn for this decision (the agent is told a new game
 * starts at p: no state is kept between its decisions, so one agent serves all the worker's games) and
 * returns 0 with a legal slot in *move, or nonzero with the reason in err (MCTS_ERRLEN): the run then
 * ends with MCTS_EINVAL, as with a bad config (an engine that died, say), rather than train on games with
 * a hole. Borrowed for the run; all calls from the creating worker's thread. */
typedef struct game_selfplay_league {
    int count;    /* opponents, 1..SELFPLAY_MAX_LEAGUE */
    double share; /* the share of games with an opponent, in [0, 1] (0: every game self-play) */
    void *ctx;
    void *(*create)(void *ctx, int i, char *err);
    int (*choose)(void *agent, const game_pos *p, uint64_t seed, int *move, char *err);
    void (*free)(void *agent);
} game_selfplay_league;

/* game_selfplay_run that also hands every finished game to on_game (may be NULL), with ctx, after the
 * workers end, in the replay buffer's order: worker 0's games first, each worker's in the order they ended
 * (so game i's samples follow game i − 1's). For game records (eval/record.h) and tests. */
int game_selfplay_run_games(const game *g, const selfplay_config *sc, const mcts_config *mc,
                            const mcts_mp_eval_factory *ef, replay_buffer *rb, game_selfplay_game_fn on_game,
                            void *ctx, uint64_t seed, game_selfplay_stats *st, char *err);

/* game_selfplay_run_games with fixed opponents in league->share of the games (league may be NULL: none;
 * with a league whose share is 0 the games and samples are those without one). Returns MCTS_EINVAL when
 * an opponent cannot be created or chooses an illegal move (the message names it), else as
 * game_selfplay_run. */
int game_selfplay_run_league(const game *g, const selfplay_config *sc, const mcts_config *mc,
                             const mcts_mp_eval_factory *ef, const game_selfplay_league *league, replay_buffer *rb,
                             game_selfplay_game_fn on_game, void *ctx, uint64_t seed, game_selfplay_stats *st,
                             char *err);

#endif
