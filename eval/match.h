/* match.h — matches between two agents: colour-swapped pairs from random openings, in parallel (issue 7).
 *
 * Pairing: games come in pairs i = 0 .. games/2 - 1. Pair i starts both of its games from the same opening:
 * `opening_plies` uniformly random sowings from the rules' start position (redrawn if the game would end
 * inside the opening), generated from (seed, i) only. Game 2i has A as South, game 2i+1 has B as South.
 * Every game's agents are reseeded per game (agent_new_game with a seed derived from (seed, game, side)),
 * so the results and records depend on (specs, rules, games, opening_plies, seed) only — not on the number
 * of threads or their scheduling (except for agents with a time limit such as ab:ms=).
 *
 * Statistics, from A's point of view (a draw scores 1/2):
 *   score = (wins + draws/2) / games; 95% interval: Wilson's (elo.h, elo_wilson);
 *   elo = 400 log10(score / (1 - score)), the Elo difference A − B the score implies (elo.h), with the score
 *   clamped to [1/(2n), 1 - 1/(2n)] so that a 100% (0%) score still gives a finite value: that of n - 1/2
 *   points out of n, as if one win had been a draw. elo_clamped is then +1 (−1): the maximum-likelihood value
 *   is +inf (−inf), so the number shown is only a bound. elo_lo / elo_hi are the same transform of the Wilson
 *   interval, clamped the same way (so at 100% elo_hi = elo, and elo_lo is a proper 95% lower bound).
 *
 * Against perfect play (cfg.exact): each pair's opening position is solved once (eval/perfect.h) by the
 * worker's solver agent, which keeps its transposition table and endgame database for the whole match (so
 * a solver playing in the match then finds its first position in the table); per game the final margin
 * and the opening's exact value are kept, and A's margin against the exact value is summed up per seat.
 *
 * Threads: each worker thread gets its own two agent instances (agent.h), all created by the calling thread
 * before the workers start (az agents read HDF5, which is not thread-safe). The progress callback is called
 * with the runner's lock held, one call at a time, from whichever thread finished a game.
 *
 * Library functions never print; errors return MATCH_* codes with a message.
 */
#ifndef SOWZERO_MATCH_H
#define SOWZERO_MATCH_H

#include <stdint.h>

#include "env/kalah.h"
#include "eval/agent.h"
#include "eval/perfect.h"
#include "eval/record.h"

#define MATCH_ERRLEN 400

enum { MATCH_OK = 0, MATCH_EINVAL = -1, MATCH_EAGENT = -2, MATCH_ENOMEM = -3, MATCH_EGAME = -4 };

/* Longest game played before a match gives up (MATCH_EGAME): a safety net for rules without max_sows. */
#define MATCH_MAX_SOWS 100000

typedef struct {
    int games;           /* total games, even, >= 2 (colour-swapped pairs) */
    int opening_plies;   /* random sowings before the agents play, >= 0 (default 2) */
    int threads;         /* worker threads, >= 1 (capped at the number of pairs) */
    uint64_t seed;       /* openings and agent reseeding */
    int keep_records;    /* 1: fill match_result.records (one per game, in game order) */
    const char *event;   /* [Event] of the records (NULL: "sowzero match") */
    const char *name_a, *name_b; /* optional display names written as [SouthName]/[NorthName] */
    void (*progress)(void *ud, int done, int total); /* may be NULL; see threads above */
    void *progress_ud;
    /* 1: every opening's exact value (eval/perfect.h) is solved once per pair, by A or B when one is a
     * `solver` agent (its table then already holds the first solve of both games), else by a `solver`
     * agent each worker creates (tt_mb 256 + its endgame database: about 324 MB a worker for Kalah(6,4));
     * fills match_result.exact and .perfect. */
    int exact;
    const char *exact_solver; /* the spec of those workers' solver agents; NULL = "solver" */
} match_config;

/* games 100, opening_plies 2, threads 1, seed 1, no records, no callback. */
match_config match_config_default(void);

/* Wins, draws and losses of A. */
typedef struct {
    int wins, draws, losses;
} match_tally;

typedef struct {
    int games;
    match_tally all;
    match_tally seat[2];   /* seat[KALAH_SOUTH]: games where A was South; seat[KALAH_NORTH]: A was North */
    double score, score_lo, score_hi;      /* A's score and its 95% Wilson interval */
    double seat_score[2];                  /* A's score by seat */
    double elo, elo_lo, elo_hi;            /* implied Elo difference A − B and its 95% interval (see above) */
    int elo_clamped;                       /* +1: A won every point (elo is a lower bound), −1: lost all */
    double avg_sows;                       /* mean sowings per game */
    double seconds;                        /* wall-clock time */
    double seat_seconds[2];                /* mean wall seconds per game with A in seat [KALAH_SOUTH] / [NORTH]
                                            * (both agents' thinking; the pair's exact solve not included) */
    record_game *records;                  /* cfg.keep_records: games records, in game order (owned) */
    int n_records;
    int *margin;                           /* per game, in game order: final margin South − North (owned) */
    int have_exact;                        /* cfg.exact: the fields below are filled */
    int *exact;                            /* per game: the exact value of its opening, South's view (owned) */
    perfect_stats perfect[2];              /* A against the exact values, [KALAH_SOUTH] / [KALAH_NORTH] seat */
    double exact_seconds;                  /* mean wall seconds of a pair's exact solve (its solver's first
                                            * solve builds the endgame database: included) */
} match_result;

/* Plays the match A (spec_a) vs B (spec_b) under rules r. *out is filled (free its records and per-game
 * arrays with match_result_free). Returns MATCH_OK; MATCH_EINVAL (bad config: message names the field), MATCH_EAGENT
 * (a spec does not parse: the agent's message; or an agent failed during a game), MATCH_EGAME (a game
 * exceeded MATCH_MAX_SOWS), MATCH_ENOMEM. */
int match_run(const char *spec_a, const char *spec_b, const kalah_rules *r, const match_config *cfg,
              match_result *out, char *err);
void match_result_free(match_result *res);

/* Fills the statistics of res (score, interval, Elo, seat scores) from its tallies. */
void match_result_stats(match_result *res);

/* The opening of pair `pair`: plies random sowings from the start of r, redrawn (up to 1000 times) while
 * the game would end inside it. *out receives the position and moves[] (plies entries, may be NULL) the
 * relative pits played. Returns plies, or -1 when all 1000 draws end the game (the length does not fit
 * the board: match_run refuses it with MATCH_EINVAL; *out is then the start). Deterministic in (seed,
 * pair). */
int match_opening(const kalah_rules *r, int plies, uint64_t seed, int pair, kalah_pos *out, uint8_t *moves);

/* Plays one game to the end from position `start` reached by the opening moves (n_opening of them, may be
 * 0) from the start of r: south and north choose in turn (both are notified of every move, the opening's
 * included). rec (may be NULL) receives the whole game (opening included, rec->opening set; tags are
 * left to the caller). *final receives the final position. MATCH_OK, MATCH_EAGENT (message), MATCH_EGAME,
 * MATCH_ENOMEM. */
int match_play_game(agent *south, agent *north, const kalah_rules *r, const uint8_t *opening, int n_opening,
                    uint64_t game_seed, record_game *rec, kalah_pos *final, char *err);

#endif
