/* basico_match.h — games of Mancala básico among 2–4 agents (basico_agent.h), in parallel (issue 8).
 *
 * Seat plans (k agent specs, `players` seats; the game's seats are its players 0..players-1, 0 moving first):
 *   k == players      games come in groups of k! : game g of a group seats the agents in the (g mod k!)-th
 *                     permutation of 0..k-1 in lexicographic order (agent perm[s] in seat s; the first game of
 *                     a group is 0, 1, 2, ...). With games a multiple of k! every agent sits in every seat
 *                     equally often (and for k = 2 this is eval/match.h's colour-swapped pairs).
 *   k == 2 < players  "one agent against a field": groups of `players` games; in game j of a group agent A
 *                     (spec 0) takes seat j and copies of B (spec 1) fill the other seats, so A's seat rotates
 *                     0..players-1.
 * Any other k is MATCH_EINVAL. A group's games all start from the same opening: opening_plies uniformly random
 * sowings from the start (redrawn, up to 1000 times, while the game would end inside it; on boards so small
 * that every draw ends early the opening stops before the ending sowing), drawn from (seed, group) only.
 * A last group may be partial (games need not be a multiple of the group size).
 *
 * Every game reseeds each seat's agent (basico_agent_new_game) from (seed, game, seat), so the results depend
 * on (specs, rules, games, opening_plies, seed) only — not on the thread count or scheduling.
 *
 * Statistics per agent, over the seats it filled (a B of the k = 2 plan fills players − 1 seats a game):
 *   mean_place   mean of the places (1 = first). A place shared by several players (full_ranking = 0: the
 *                non-winners with equal stones left) counts as the shared place number env/basico.h gives it
 *                (1, 2, 2, 4: both count 2), so a game's places sum to less than 1 + ... + players then.
 *   mean_score   mean rank score basico_rank_score = (players − place) / (players − 1), 1 = first.
 *   firsts       seats that took place 1; first_share adds 1/m for a first place shared by m seats (the
 *                present rules never share place 1 — the first finisher wins alone, or finishing order
 *                decides — so first_share == firsts today; the field keeps the sum of shares over agents
 *                equal to the number of games should that change).
 *   seat_place[s] mean place when in seat s (0 if never there), seat_n[s] seats taken there.
 * With players == 2 (and so k == 2) the result also holds A's wins/draws/losses against B overall and by A's
 * seat, the score with its Wilson interval and the implied Elo difference, computed exactly as eval/match.h
 * does (match_result_stats): a draw is a shared place.
 *
 * Records (cfg.keep_records): one text line per game, in game order, TAB-separated key=value fields:
 *   game=N  rules=RULES  seat0=SPEC ... seat{players-1}=SPEC  opening=K  moves=LETTERS  places=P0,P1,..  sows=S
 * RULES as basico_rules_format writes it; seatS the spec in seat S; moves the relative pits of the player to
 * move as letters a.. separated by single spaces, in order, the first K being the random opening (replay them
 * with basico_play from basico_start); places the final place of each seat. eval/record.h's format is
 * Kalah's (South/North, stores), hence this one. Specs holding a TAB or newline are refused with records.
 *
 * Safety cap: a game still running after BASICO_MATCH_MAX_SOWS sowings stops the match with MATCH_EGAME. It
 * cannot happen under the rules as they are: a sowing either drops a stone in some store (stones never leave
 * a store, so at most S such sowings for S stones) or stays inside the mover's own row, moving stones towards
 * its store — which strictly raises the sum over players of the stones' pit indices, a number in
 * 0..S·(pits − 1) that only store sowings can lower. A game thus lasts at most S + (S + 1)·S·(pits − 1)
 * sowings (46,656 for 4 players × 6 pits × 4 stones).
 *
 * Threads: each worker holds `players` agent instances (one per seat), all created by the calling thread
 * before the workers start (az reads HDF5). The progress callback runs under the runner's lock, one call at a
 * time, from whichever thread finished a game. Library code: no printing; MATCH_* codes (eval/match.h).
 */
#ifndef SOWZERO_BASICO_MATCH_H
#define SOWZERO_BASICO_MATCH_H

#include <stdint.h>

#include "env/basico.h"
#include "eval/basico_agent.h"
#include "eval/match.h"   /* MATCH_* codes, MATCH_ERRLEN, match_result for the two-player statistics */

#define BASICO_MATCH_MAX_AGENTS BASICO_MAX_PLAYERS
#define BASICO_MATCH_MAX_SOWS 100000

typedef struct {
    int games;           /* >= 1 */
    int opening_plies;   /* random sowings before the agents play, 0..1000 */
    int threads;         /* worker threads, >= 1 (capped at games) */
    uint64_t seed;       /* openings and agent reseeding */
    int keep_records;    /* 1: fill basico_match_result.records */
    void (*progress)(void *ud, int done, int total); /* may be NULL */
    void *progress_ud;
} basico_match_config;

/* games 120 (a multiple of 2!, 3!, 4!, 3 and 4), opening_plies 2, threads 1, seed 1, no records, no callback. */
basico_match_config basico_match_config_default(void);

typedef struct {
    int games;                            /* games it played */
    int seats;                            /* seats it filled (= games, or players − 1 per game for a field) */
    double place_sum;                     /* sum of its places */
    double mean_place, mean_score;        /* see above */
    int firsts;                           /* seats that took place 1 */
    double first_share;                   /* sum of 1/m over them, m = seats sharing place 1 */
    int seat_n[BASICO_MAX_PLAYERS];       /* seats taken in each seat position */
    double seat_place[BASICO_MAX_PLAYERS];/* mean place in each seat position, 0 where never seated */
} basico_match_agent_stats;

typedef struct {
    uint8_t agent[BASICO_MAX_PLAYERS];    /* agent index in each seat */
    uint8_t place[BASICO_MAX_PLAYERS];    /* final place of each seat */
    int sows;                             /* sowings of the whole game, opening included */
} basico_match_game;

typedef struct {
    int players, n_agents, games;
    basico_match_agent_stats agent[BASICO_MATCH_MAX_AGENTS];
    basico_match_game *game;              /* games entries, in game order (owned) */
    int duel;                             /* 1 when players == 2: `two` is filled */
    match_result two;                     /* A (agent 0) vs B: all, seat[s] = A in seat s, score, Elo, ... */
    double avg_sows;                      /* mean sowings per game */
    double seconds;                       /* wall-clock time */
    char **records;                       /* keep_records: games lines (each ends in '\n', owned) */
    int n_records;
} basico_match_result;

/* Plays n_agents specs under rules r as described above. *out is filled (free with basico_match_result_free,
 * also after an error). MATCH_OK; MATCH_EINVAL (bad config or agent count: the message names the field),
 * MATCH_EAGENT (a spec does not parse: the agent's message; or an agent failed in a game), MATCH_EGAME,
 * MATCH_ENOMEM. */
int basico_match_run(const char *const *specs, int n_agents, const basico_rules *r, const basico_match_config *cfg,
                     basico_match_result *out, char *err);
void basico_match_result_free(basico_match_result *res);

/* Games per group of the seat plan (k! or players), or 0 when (n_agents, players) has no plan. */
int basico_match_group_size(int n_agents, int players);

/* The seat plan: agent_at[s] = the agent index in seat s of game `game` (players entries). */
void basico_match_seats(int n_agents, int players, int game, int *agent_at);

/* The opening of group `group` (see above): *out receives the position, moves[] (may be NULL; plies entries)
 * the relative pits played. Returns the number of sowings played. Deterministic in (seed, group). */
int basico_match_opening(const basico_rules *r, int plies, uint64_t seed, int group, basico_pos *out,
                         uint8_t *moves);

#endif
