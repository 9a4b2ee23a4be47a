/* game_match.h — games of any game of the game interface (env/game.h) among 2–4 agents (game_agent.h), in
 * parallel, one runner for every game (Kalah's agents are its fast ones, eval/game_agent.h).
 *
 * Seat plans (k agent specs, `players` seats; the game's seats are its players 0..players-1, 0 moving first):
 *   k == players      games come in groups of k! : game g of a group seats the agents in the (g mod k!)-th
 *                     permutation of 0..k-1 in lexicographic order (agent perm[s] in seat s; the first game of
 *                     a group is 0, 1, 2, ...). With games a multiple of k! every agent sits in every seat
 *                     equally often (and for k = 2 these are colour-swapped pairs: game 2i has A as South,
 *                     game 2i+1 has B as South, both from pair i's opening).
 *   k == 2 < players  "one agent against a field": groups of `players` games; in game j of a group agent A
 *                     (spec 0) takes seat j and copies of B (spec 1) fill the other seats, so A's seat rotates
 *                     0..players-1.
 * Any other k is MATCH_EINVAL. A group's games all start from the same opening: an opening book's entry
 * (cfg.book, below), or else opening_plies uniformly random
 * moves from the start (redrawn, up to 1000 times, while the game would end inside it), drawn from (seed,
 * group) only. A length that ends all 1000 draws does not fit the board: the match is refused (MATCH_EINVAL),
 * never played from a shorter opening — the opening length is one of the match's stated conditions.
 * With more than two players a last group may be partial (games need not be a multiple of the
 * group size); two-player games come in whole colour-swapped pairs (games even).
 *
 * Every game reseeds each seat's agent (game_agent_new_game) from (seed, game, seat), so the results depend
 * on (specs, rules, games, opening_plies, seed) only — not on the thread count or scheduling. A time control
 * (below) makes them depend on the clock too: what a time budget lets a search find, and whether a move
 * comes in time.
 *
 * Places come from the final values (game_values): a seat's place is 1 + the number of seats with a
 * strictly higher value, so equal values share a place (1, 2, 2, 4; a two-player draw is 1, 1) — for
 * básico exactly the places env/basico.h gives.
 * Statistics per agent, over the seats it filled (a B of the k = 2 plan fills players − 1 seats a game):
 *   mean_place   mean of the places (1 = first); a game's places sum to less than 1 + ... + players when
 *                some are shared.
 *   mean_score   mean of (value + 1) / 2: básico's rank score (players − place) / (players − 1); for two
 *                players 1 a win, 1/2 a draw, 0 a loss.
 *   firsts       seats that took place 1; first_share adds 1/m for a first place shared by m seats (the
 *                present rules never share place 1 — the first finisher wins alone, or finishing order
 *                decides — so first_share == firsts today; the field keeps the sum of shares over agents
 *                equal to the number of games should that change).
 *   seat_place[s] mean place when in seat s (0 if never there), seat_n[s] seats taken there.
 * With players == 2 (and so k == 2) the result also holds A's wins/draws/losses against B overall and by A's
 * seat, the score with its Wilson interval and the implied Elo difference (match_result_stats below): a draw
 * is a shared place.
 *
 * Records (cfg.keep_records): one game record per game, in game order, in eval/record.h's format (the one
 * `replay --pgn` and `elo` read): [Event] (cfg.event, default "sowzero match"), [Round] the game number,
 * the seats' specs (South/North for two players, Seat0.. for more) and cfg.names' names when given,
 * [Rules] the canonical spec, [Start], [Opening] the random opening's plies, [Result] and, for two-player
 * games with a score, [Score]; then the moves in the game's notation and the result token.
 *
 * Forfeits: an agent whose choose returns AGENT_EFORFEIT (an outside engine, eval/engine_agent.h: illegal
 * move, malformed line, no move in time, exit) loses that game where it stands: its value is −1 and every other
 * seat's +1 (place last; the others share place 1), the game's forfeit names the seat, and its record
 * carries [Termination "forfeit by SEAT: REASON"] (eval/record.h). The match goes on.
 *
 * Safety cap: a game still running after GAME_MATCH_MAX_PLIES plies stops the match with MATCH_EGAME. It
 * cannot happen under the rules as they are. Básico: a sowing either drops a stone in some store (stones
 * never leave a store, so at most S such sowings for S stones) or stays inside the mover's own row, moving
 * stones towards its store — which strictly raises the sum over players of the stones' pit indices, a
 * number in 0..S·(pits − 1) that only store sowings can lower; a game thus lasts at most
 * S + (S + 1)·S·(pits − 1) sowings (46,656 for 4 players × 6 pits × 4 stones). Kalah: the same argument with
 * two stores. Games with cycles (Oware) end by their max_sows rule.
 *
 * Time control (cfg.tc_*; cutechess's tc=, fastchess's): per move (tc_move_ms > 0: each move may take that
 * long) and/or a game clock per seat (tc_base_ms > 0 at the start, tc_inc_ms added after each of the seat's
 * moves: Fischer's increment). Before each move the agents play, the mover gets two times (game_agent_set_time):
 *   hard = the most it may take: tc_move_ms + tc_margin_ms, and/or its clock + tc_margin_ms (the smaller);
 *   soft = the time it aims to use: tc_move_ms, and/or min(clock / 20 + tc_inc_ms, clock / 2) (the smaller;
 *          at least 1 ms) — a plain time manager for the agents that take a budget (game_agent.h); an
 *          engine is sent `stop` at soft (its last move counts), or waited for until hard when it has none.
 * The time charged is the wall-clock time of game_agent_choose (game_agent_last_ms: an engine's start is not
 * charged). A move that took longer than hard, or an engine with no move by hard, loses the game on time:
 * a forfeit (see "Forfeits") with game_match_game.time_forfeit set and [Termination "time forfeit"] in its
 * record. Otherwise the clock loses the time taken (down to 0 at least: within the margin it is not a
 * loss) and gains tc_inc_ms. The opening's moves and adjudication take no time.
 *
 * Adjudication (cfg.adjudicate = N >= 1; games that game_match_adjudicable accepts: an exact solver and an
 * end that sweeps every seed into the stores; as a tablebase adjudicates chess games): before each move the
 * agents play (not inside the opening), a game whose pits hold at most N seeds in all ends there: the
 * worker's exact solver (as for exact values, below: a seat's exact solver agent, else its own,
 * cfg.exact_solver or game_agent_exact_spec's) finds the final margin M of perfect play from that position
 * (game_agent_exact_value, South's view), and the game counts as if played out so: margin M, values and
 * places by its sign, final stores (total + M) / 2 and (total − M) / 2. Its record has the moves up to
 * there, [Result] and [Score] from M and [Termination "adjudication"] (eval/record.h). Adjudication
 * changes no game's result under perfect play from there; it saves the time of playing the end out and
 * removes the agents' endgame errors from the results, as tablebase adjudication does in engine testing.
 *
 * Against perfect play (cfg.exact; every game with an exact solver, game_agent_exact_spec; the others are
 * refused with MATCH_EINVAL): each group's opening position is solved once by the worker's exact solver
 * agent — A or B when one is an exact solver (Kalah's `solver`: its table and endgame database then already
 * hold the first solve of both games), else one (cfg.exact_solver, or game_agent_exact_spec's) the worker
 * creates and keeps for the whole match; a worker then claims whole groups, not single games, so that one solve serves the group.
 * Per game the opening's exact value is kept beside the final margin, and A's margin against it is summed up
 * per seat (perfect_stats_compute: game 2i has A as South, 2i+1 as North).
 *
 * Threads: each worker holds `players` agent instances (one per seat), all created by the calling thread
 * before the workers start (az reads HDF5). Worker t plays the groups t, t + T, t + 2T, ... (T workers) first
 * and then takes what is left from the end of the match, so that with a pool (below) the same worker, and so
 * the same solver table, meets a group's opening in every match of a tournament. The progress callback runs
 * under the runner's lock, one call at a time, from whichever thread finished a game. Library code: no
 * printing; errors return MATCH_* codes with a message.
 *
 * Pools (cfg.pool; the solver in the tournament): without one, every game_match_run creates its
 * instances and frees them when it returns, so a solver agent's table (and, with its last reference, the
 * endgame database, eval/tbase.h) is thrown away after each match of a tournament, and the next match
 * re-solves the same openings. With a pool, worker t's c-th instance of spec S (c counts the seats of this
 * match with that spec, then the exact values' own solver) is the pool's instance (S, t, c): taken from the
 * pool when a match before created it, else created (by the calling thread, before the workers start) and
 * added to it. The pool keeps its instances until game_match_pool_free. Every game still reseeds every seat
 * (game_agent_new_game, as above), and no kind's moves depend on what its instance played before
 * (eval/game_agent.h, eval/agent.h: ab clears its table, mcts/az drop their tree, the solver's exact values
 * do not depend on its table), so the games, places and statistics are the same with and without a pool;
 * only the time and game_match_agent_stats.nodes differ. Memory: the pool holds every spec's instances of
 * every worker for its whole life (a solver's tt_mb MiB per worker thread).
 */
#ifndef SOWZERO_GAME_MATCH_H
#define SOWZERO_GAME_MATCH_H

#include "env/status.h"

#include <stdatomic.h>
#include <stdint.h>

#include "env/game.h"
#include "eval/book.h"
#include "eval/game_agent.h"
#include "eval/perfect.h"

#define MATCH_ERRLEN SZ_ERRLEN

enum { MATCH_OK = SZ_OK, MATCH_EINVAL = SZ_EINVAL, MATCH_EAGENT = SZ_EAGENT, MATCH_ENOMEM = SZ_ENOMEM, MATCH_EGAME = SZ_EGAME,
       MATCH_STOPPED = SZ_ESTOPPED, MATCH_EIO = SZ_EIO };

/* Wins, draws and losses of A. */
typedef struct {
    int wins, draws, losses;
} match_tally;

/* A two-player match from A's point of view (a draw scores 1/2):
 *   score = (wins + draws/2) / games; 95% interval: Wilson's (elo.h, elo_wilson);
 *   elo = 400 log10(score / (1 - score)), the Elo difference A − B the score implies (elo.h), with the score
 *   clamped to [1/(2n), 1 - 1/(2n)] so that a 100% (0%) score still gives a finite value: that of n - 1/2
 *   points out of n, as if one win had been a draw. elo_clamped is then +1 (−1): the maximum-likelihood value
 *   is +inf (−inf), so the number shown is only a bound. elo_lo / elo_hi are the same transform of the Wilson
 *   interval, clamped the same way (so at 100% elo_hi = elo, and elo_lo is a proper 95% lower bound). */
typedef struct {
    int games;
    match_tally all;
    match_tally seat[2];   /* seat[0]: games where A was South (seat 0); seat[1]: A was North */
    double score, score_lo, score_hi;      /* A's score and its 95% Wilson interval */
    double seat_score[2];                  /* A's score by seat */
    double elo, elo_lo, elo_hi;            /* implied Elo difference A − B and its 95% interval (see above) */
    int elo_clamped;                       /* +1: A won every point (elo is a lower bound), −1: lost all */
    double seat_seconds[2];                /* game_match_run: mean wall seconds per game with A in seat 0 / 1
                                            * (both agents' thinking; a group's exact solve not included) */
} match_result;

/* Fills the statistics of res (games, score, interval, Elo, seat scores) from its tallies. */
void match_result_stats(match_result *res);

#define GAME_MATCH_MAX_AGENTS GAME_MAX_PLAYERS
#define GAME_MATCH_MAX_PLIES 100000

typedef struct {
    int games;           /* >= 1 */
    int opening_plies;   /* random sowings before the agents play, 0..1000 (ignored with a book) */
    /* An opening book (eval/book.h; borrowed) in place of the random openings: group i starts from entry
     * (book_first + i) mod book->n, so that a book of n entries played with games = n × the group size
     * plays every entry once, each with every seat permutation (both colours for two players). A move
     * list's moves are the game's first plies ([Opening] in its record), a position is its [Start].
     * NULL: the random openings above. */
    const opening_book *book;
    int book_first;      /* >= 0 */
    int threads;         /* worker threads, >= 1 (capped at games) */
    uint64_t seed;       /* openings and agent reseeding */
    int keep_records;    /* 1: fill game_match_result.records */
    const char *event;   /* the records' [Event]; NULL = "sowzero match" */
    const char *const *names; /* the records' name tags per agent (n_agents entries); NULL = none */
    void (*progress)(void *ud, int done, int total); /* may be NULL */
    void *progress_ud;
    /* Called as each game ends, in the order they end (not game order with several threads), under the
     * runner's lock (one call at a time), with the game's index (0-based; its record's [Round] is index + 1)
     * and its record (the text is made for this call when keep_records is 0; borrowed for the call). Returns
     * 0 to go on; anything else stops the match with MATCH_EIO (the callback keeps its own reason). A game
     * abandoned by `stop` is never passed. May be NULL. */
    int (*on_record)(void *ud, int game, const char *record);
    void *record_ud;
    /* Set to non-zero (by a signal handler or another thread) to stop the match early: no game starts after
     * it, and games in play are abandoned at their next move (a move in progress is finished first). The
     * match then returns MATCH_STOPPED with *out holding the games that finished: out->games of them, in
     * game order, with every statistic over those games only. NULL: never stopped. */
    const atomic_int *stop;
    /* 1: every opening's exact value (eval/perfect.h) is solved once per group (see "Against perfect play"
     * above): games with an exact solver (game_agent_exact_spec). The workers' own Kalah solver, when neither A nor B is a `solver` agent, costs tt_mb 256 +
     * its endgame database: about 324 MB a worker for Kalah(6,4). Fills game_match_result.exact, .perfect. */
    int exact;
    const char *exact_solver; /* the spec of those workers' solver agents; NULL = game_agent_exact_spec's
                               * (Kalah: "solver", with adjudicate and not exact "solver:tt_mb=32,endgame=E",
                               * E = min(adjudicate, 17)) */
    /* Adjudication (game_match_adjudicable; see "Adjudication" above): 0 = never; N >= 1: once the agents play, a game
     * whose pits hold at most N seeds is ended there, scored by perfect play. */
    int adjudicate;
    /* Time control (see "Time control" above); all 0 = none. tc_inc_ms needs tc_base_ms. */
    int64_t tc_move_ms;  /* > 0: each move may take this long */
    int64_t tc_base_ms;  /* > 0: each seat's game clock at the start */
    int64_t tc_inc_ms;   /* added to the mover's clock after each of its moves */
    int64_t tc_margin_ms; /* how far past its time a move may end without losing on time */
    /* Agent instances to reuse across matches (see "Pools" above; borrowed; made for this game; one match at
     * a time); NULL = fresh instances for this match only. */
    struct game_match_pool *pool;
    /* Agents built from settings and a net in memory instead of a spec (training's evaluation): NULL, or
     * n_agents pointers; a non-NULL az[i] makes every instance of agent i (game_agent_create_az), and
     * specs[i], its name, is never parsed. Not with a pool. */
    const game_agent_az *const *az;
} game_match_config;

/* games 120 (a multiple of 2!, 3!, 4!, 3 and 4), opening_plies 2, threads 1, seed 1, no records, no callback,
 * no exact values. */
game_match_config game_match_config_default(void);

typedef struct {
    int games;                            /* games it played */
    int seats;                            /* seats it filled (= games, or players − 1 per game for a field) */
    double place_sum;                     /* sum of its places */
    double mean_place, mean_score;        /* see above */
    int firsts;                           /* seats that took place 1 */
    double first_share;                   /* sum of 1/m over them, m = seats sharing place 1 */
    int seat_n[GAME_MAX_PLAYERS];       /* seats taken in each seat position */
    double seat_place[GAME_MAX_PLAYERS];/* mean place in each seat position, 0 where never seated */
    int forfeits;                         /* games it lost by forfeit (see "Forfeits"), on time included */
    int time_forfeits;                    /* of them, on time (see "Time control") */
    double think_ms;                      /* milliseconds its moves took (game_agent_last_ms), summed */
    int moves;                            /* moves it chose (the opening's not counted) */
    uint64_t nodes;                       /* Kalah's ab and solver: positions searched, mcts/az: root visits,
                                           * summed over its moves (agent_stats.nodes); 0 for the other kinds.
                                           * A solver's count depends on what its table already held (a pool,
                                           * the games its worker played before): a cost, not a result */
} game_match_agent_stats;

typedef struct {
    uint8_t agent[GAME_MAX_PLAYERS];    /* agent index in each seat */
    uint8_t place[GAME_MAX_PLAYERS];    /* final place of each seat (see above) */
    float value[GAME_MAX_PLAYERS];      /* final value of each seat (game_values) */
    int margin;                           /* final margin seat 0 − seat 1 (0 when the game has none) */
    uint8_t forfeit;                      /* 1 + the seat that lost by forfeit (see "Forfeits"), 0 = none */
    uint8_t adjudicated;                  /* 1: ended by adjudication (margin and values are perfect play's) */
    uint8_t time_forfeit;                 /* 1: the forfeit was on time (see "Time control") */
    int sows;                             /* plies of the whole game, opening included */
} game_match_game;

typedef struct {
    int players, n_agents, games;         /* games: those played (fewer than cfg.games after MATCH_STOPPED) */
    game_match_agent_stats agent[GAME_MATCH_MAX_AGENTS];
    game_match_game *game;              /* games entries, in game order (owned) */
    int duel;                             /* 1 when players == 2: `two` is filled */
    match_result two;                     /* A (agent 0) vs B: all, seat[s] = A in seat s, score, Elo, ... */
    double avg_sows;                      /* mean sowings per game */
    int adjudicated;                      /* games ended by adjudication (cfg.adjudicate) */
    double seconds;                       /* wall-clock time */
    char **records;                       /* keep_records: one record text per game (owned) */
    int n_records;
    int have_exact;                       /* cfg.exact: the fields below are filled */
    int *exact;                           /* per game: the exact value of its opening, seat 0's view (owned) */
    perfect_stats perfect[2];             /* A against the exact values, A in seat 0 (South) / seat 1 (North) */
    double exact_seconds;                 /* mean wall seconds of a group's exact solve (its solver's first
                                           * solve builds the endgame database: included) */
    char *describe[GAME_MATCH_MAX_AGENTS]; /* game_agent_describe of each agent: how it plays (az: the
                                           * effective search settings); owned, NULL when out of memory */
} game_match_result;

/* Plays n_agents specs on game g (borrowed) as described above. *out is filled (free with game_match_result_free,
 * also after an error). MATCH_OK; MATCH_STOPPED (cfg.stop was set before every game was played: *out holds
 * the games that finished, as MATCH_OK would for them); MATCH_EINVAL (bad config or agent count: the message
 * names the field), MATCH_EAGENT (a spec does not parse: the agent's message; or an agent failed in a game),
 * MATCH_EGAME, MATCH_ENOMEM, MATCH_EIO (cfg.on_record refused a record). */
int game_match_run(const char *const *specs, int n_agents, const game *g, const game_match_config *cfg,
                   game_match_result *out, char *err);
void game_match_result_free(game_match_result *res);

/* Agent instances kept across game_match_run calls (see "Pools" above). */
typedef struct game_match_pool game_match_pool;

/* An empty pool for game g (borrowed: it must outlive the pool; a match of another game refuses the pool
 * with MATCH_EINVAL). NULL when out of memory. Not thread-safe: one game_match_run at a time may use it. */
game_match_pool *game_match_pool_create(const game *g);

/* Frees the pool and every instance in it (NULL allowed). */
void game_match_pool_free(game_match_pool *pool);

/* The number of instances the pool holds. */
int game_match_pool_size(const game_match_pool *pool);

/* Games per group of the seat plan (k! or players), or 0 when (n_agents, players) has no plan. */
int game_match_group_size(int n_agents, int players);

/* The seat plan: agent_at[s] = the agent index in seat s of game `game` (players entries). */
void game_match_seats(int n_agents, int players, int game, int *agent_at);

/* The opening of group `group` (see above): *out receives the position, moves[] (may be NULL; plies entries)
 * the slots played. Returns plies, or -1 when all 1000 draws end the game (*out is then the start).
 * Deterministic in (seed, group). */
int game_match_opening(const game *g, int plies, uint64_t seed, int group, game_pos *out, uint8_t *moves);

/* Whether matches of g can be adjudicated: 1, or 0 with the reason in err (AGENT_ERRLEN). The game needs
 * an exact solver (game_agent_exact_spec: two players, a margin, solvable) and an end that sweeps every
 * seed into the stores (game_layout GAME_END_SWEEP, not GAME_END_UNSHOWN), so that the margin of perfect
 * play gives the final score. */
int game_match_adjudicable(const game *g, char *err);

#endif
