/* basico.h — Mancala básico, the 2–4 player "empty your side" race (docs/design.md §1.2).
 *
 * Board: player p's pits at indices p*(pits+1) + 0..pits-1 (its a.. order), its store at p*(pits+1)+pits;
 * players run counter-clockwise 0, 1, 2, 3 and so does play. Sowing drops one stone in every following
 * position of the circuit, every store included (the origin pit too on a full lap); no captures; a sowing
 * whose last stone lands in any store gives the mover another sowing. A player whose pits are all empty
 * right after its own sowing finishes: its pits and store leave the circuit (their stones leave the game)
 * and the others play on. Ranking (docs/design.md §1.2): full_ranking = 1 ranks by finishing order; with
 * full_ranking = 0 the first finisher wins at once and the others are ranked by fewest stones left in
 * their pits, equal counts sharing a place (1, 2, 2, 4). A player may resign: it leaves the circuit and
 * takes the lowest place not yet given (resigning first = last place).
 *
 * Position string (documented here, the notation of this game): the counts of every position in index
 * order, comma-separated, with '-' for each position of a player who has left; a space; the player to
 * move as a digit (0-based); and, when anyone has left, a space and the leavers in order of leaving, each
 * as the player's digit followed by 'f' (finished) or 'r' (resigned), comma-separated. Start of
 * basico:players=3,pits=4,seeds=4: "4,4,4,4,0,4,4,4,4,0,4,4,4,4,0 0". Moves are the mover's pit letters
 * a.. (relative pit 0..pits-1), as in Kalah; a game record is the letters in order.
 *
 * Library functions never print; they return BASICO_OK or a negative code and fill err (KALAH_ERRLEN).
 */
#ifndef SOWZERO_BASICO_H
#define SOWZERO_BASICO_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

#include "env/kalah.h"

#define BASICO_MAX_PLAYERS 4
#define BASICO_MAX_PITS 7
#define BASICO_CELLS 32

typedef struct {
    int players;      /* 2..4 */
    int pits;         /* 6; 7 allowed with 2 players; 4 allowed with 3-4 players */
    int seeds;        /* 4 or 3 stones per pit at the start */
    int full_ranking; /* 1: rank by finishing order; 0: first finisher wins, others by stones left */
} basico_rules;

typedef struct {
    uint8_t cell[BASICO_CELLS];
    uint8_t to_move;       /* player to move */
    uint8_t active;        /* bit p set while player p is in the circuit */
    uint8_t over;
    uint8_t n_left;        /* players who have left, in order: */
    uint8_t left[BASICO_MAX_PLAYERS];     /* player of each departure */
    uint8_t resigned[BASICO_MAX_PLAYERS]; /* 1 if that departure was a resignation */
    uint8_t place[BASICO_MAX_PLAYERS];    /* final place per player (1 = first); 0 while undecided */
} basico_pos;

typedef struct {
    uint8_t extra_turn; /* the last stone fell in a store and the mover is still in the circuit */
    uint8_t finished;   /* the mover emptied its pits with this sowing and left the circuit */
    uint8_t over;       /* the game ended */
    uint8_t last;       /* index of the last stone */
} basico_step;

enum { BASICO_OK = SZ_OK, BASICO_EINVAL = SZ_EINVAL, BASICO_EILLEGAL = SZ_EILLEGAL, BASICO_EOVER = SZ_EOVER };

/* Default rules: 3 players, 6 pits, 4 stones, full ranking. */
basico_rules basico_rules_default(void);

/* Checks the combination (players 2..4; pits 6, or 7 with 2 players, or 4 with 3-4 players; seeds 3 or
 * 4; full_ranking 0/1). BASICO_OK or BASICO_EINVAL with a message naming the field. */
int basico_rules_check(const basico_rules *r, char *err);

/* Parses "basico" or "basico:players=3,pits=4,seeds=3,full_ranking=0". Errors name the key/value. */
int basico_rules_parse(const char *spec, basico_rules *out, char *err);
char *basico_rules_format(const basico_rules *r, char *buf, size_t n);

/* Positions in the circuit: players * (pits + 1). */
static inline int basico_cells(const basico_rules *r) { return r->players * (r->pits + 1); }
static inline int basico_store(const basico_rules *r, int player) { return player * (r->pits + 1) + r->pits; }

void basico_start(const basico_rules *r, basico_pos *out);

/* Bit k set when the mover's relative pit k is non-empty; 0 once the game is over. */
unsigned basico_legal(const basico_rules *r, const basico_pos *p);

/* Sows the mover's pit k. BASICO_EOVER, BASICO_EILLEGAL (empty or out of range); position unchanged on
 * error. info may be NULL. */
int basico_play(const basico_rules *r, basico_pos *p, int k, basico_step *info);

/* The player to move resigns (takes the lowest place not yet given and leaves the circuit). */
int basico_resign(const basico_rules *r, basico_pos *p);

/* Stones in player's pits (0 once it has left). */
int basico_pit_stones(const basico_rules *r, const basico_pos *p, int player);

/* Rank score in [0, 1] of player's final place: (players - place) / (players - 1); 1 = first. The
 * per-player value vector of multi-player search. Only meaningful once over. */
double basico_rank_score(const basico_rules *r, const basico_pos *p, int player);

/* Notation (see the top of this file). parse checks field count, numbers, '-' exactly for leavers, the
 * mover digit (an active player), the leavers list, and the stone total (players*pits*seeds minus what
 * left the game is not checkable, so the total may only be <= the start total). */
int basico_pos_parse(const char *s, const basico_rules *r, basico_pos *out, char *err);
char *basico_pos_format(const basico_rules *r, const basico_pos *p, char *buf, size_t n);

/* ---- encoding for the network ---- */

/* Floats per encoded position: players · (pits + 2). */
static inline int basico_encode_dim(const basico_rules *r) { return r->players * (r->pits + 2); }

/* Encodes p from the mover's point of view into out[basico_encode_dim(r)]: for each relative player
 * q = 0..players-1 (absolute player (mover + q) % players, so q = 0 is the mover and the rest follow in
 * playing order), a block of pits + 2 floats: its pits a.. divided by r->seeds (the start reads 1.0), then
 * 1 if it is still in the circuit (else 0), then its rank score (basico_rank_score) if its place is already
 * decided, else 0. Stores are left out: stones in a store never move again and do not decide the ranking.
 * Encoding name for exports: BASICO_ENCODING_NAME. */
void basico_encode(const basico_rules *r, const basico_pos *p, float *out);
#define BASICO_ENCODING_NAME "basico-mover-v1"

/* Leaf counts at exactly 1..depth plies (one ply = one sowing; resignations are not moves). */
void basico_perft(const basico_rules *r, const basico_pos *p, int depth, uint64_t *nodes);

/* ---- static knowledge for the baselines (eval/basico_search.h, the game interface's hooks) ---- */

/* Static value vector of p: exact rank scores once over; else players still in play are ranked by
 * fewest stones left in their pits among the places not yet given (equal counts share the mean of the
 * places they span), and scored as basico_rank_score would. out has r->players entries. */
void basico_estimate(const basico_rules *r, const basico_pos *p, double *out);

/* The greedy baseline: the move that leaves the fewest stones in the mover's pits after its whole turn
 * (extra sowings followed greedily, finishing counts as zero), ties to the lowest pit. -1 if over. */
int basico_greedy_move(const basico_rules *r, const basico_pos *p);

#endif
