/* congklak.h — Congklak (Indonesia): Kalah's board with relay sowing (docs/design.md §1.3).
 *
 * Board, indices, notation and stores are Kalah's (env/kalah.h, docs/design.md §1.1 and §2): for pits = m,
 * South pits a.. = 0..m-1, South store m, North pits A.. = m+1..2m, North store 2m+1; the pit opposite
 * index i is 2m - i. The rule parameters are exactly Kalah's (pits, seeds, capture, end, max_sows; §1.3:
 * "capture ... exactly as in Kalah", "end and max_sows as in Kalah"), so a Congklak rule set is a
 * kalah_rules value and a position is a kalah_pos; only the defaults (pits 7, seeds 7), the spec's game
 * name and the move differ.
 *
 * A move (one ply) is the whole relay chain of one chosen pit: take its seeds and sow them one per
 * position in index order, skipping the opponent's store (the origin receives a seed on a full lap).
 * The seed that ends a sowing decides: the own store -> extra turn; a pit (either side) that held seeds
 * before it landed -> relay: pick all its seeds up and sow on from the next position; an own empty pit
 * -> capture per r->capture as in Kalah, the turn ends; an opponent's empty pit -> the turn ends. A pit
 * emptied earlier in the same move counts as empty. Then the end rule and max_sows apply as in Kalah.
 *
 * Library functions never print; errors are a negative code and a message in err (KALAH_ERRLEN bytes,
 * may be NULL).
 */
#ifndef SOWZERO_CONGKLAK_H
#define SOWZERO_CONGKLAK_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

#include "env/kalah.h"

typedef kalah_rules congklak_rules;

/* What one move (a whole relay chain) did. */
typedef struct {
    uint8_t extra_turn;  /* the chain ended in the mover's store and the game goes on */
    uint8_t captured;    /* seeds moved to the store by the capture (opposite seeds + the capturing seed, or
                          * 1 under capture=always with an empty opposite pit); the end sweep not counted */
    uint8_t over;        /* the game ended with this move */
    uint8_t last;        /* board index where the chain's last seed fell */
    uint16_t relays;     /* pick-ups by relay (the chosen pit not counted; a pit picked up twice counts 2) */
    uint16_t seeds_sown; /* seeds dropped in all, every relay included (for bench env's sows/s) */
} congklak_step;

/* KALAH_OK, KALAH_EINVAL, KALAH_EILLEGAL, KALAH_EOVER, and: */
enum { CONGKLAK_ELOOP = SZ_ELOOP }; /* a relay chain ran past its proven bound (cannot happen; see congklak_sow) */

/* pits 7, seeds 7, capture=opposite, end=either-empty, max_sows=0 (docs/design.md §1.3). */
congklak_rules congklak_rules_default(void);

/* The ranges of Kalah (pits 1..7, seeds 1..18, 2*pits*seeds <= 255, max_sows 0..65535); KALAH_OK or
 * KALAH_EINVAL with a message naming the field. */
int congklak_rules_check(const congklak_rules *r, char *err);

/* Parses "congklak" or "congklak:pits=7,seeds=7,capture=opposite,end=either-empty,max_sows=0" (any subset
 * of the keys, any order, each once; missing keys keep congklak_rules_default's values). KALAH_OK or
 * KALAH_EINVAL with a message naming the bad game name, key or value. */
int congklak_rules_parse(const char *spec, congklak_rules *out, char *err);

/* The full canonical spec, every key (96 bytes always suffice). Returns buf. */
char *congklak_rules_format(const congklak_rules *r, char *buf, size_t n);

/* The start: every pit r->seeds, stores empty, South to move. */
static inline void congklak_start(const congklak_rules *r, kalah_pos *out) { kalah_start(r, out); }

/* Bit k set when the mover's relative pit k is non-empty; 0 once over. */
static inline unsigned congklak_legal(const congklak_rules *r, const kalah_pos *p) { return kalah_legal(r, p); }

/* Plays relative pit k of the player to move: the whole relay chain, capture, extra turn, end and sweep
 * (docs/design.md §1.3). Returns KALAH_OK; KALAH_EOVER if the game is over; KALAH_EILLEGAL if k is out of
 * range or the pit is empty; CONGKLAK_ELOOP if the chain exceeds (2m+1) * (seeds in pits + 1) seeds
 * dropped. That bound holds for every chain (each lap of 2m+1 positions passes the mover's store, which
 * keeps the seed it gets, so there are at most as many laps as seeds in pits) and the check keeps a
 * corrupted board from looping forever. The position is unchanged on error. info may be NULL. */
int congklak_play(const congklak_rules *r, kalah_pos *p, int k, congklak_step *info);

/* Final margin South store - North store; winner 1 South, -1 North, 0 draw (meaningful once over). */
static inline int congklak_margin(const congklak_rules *r, const kalah_pos *p) { return kalah_margin(r, p); }
static inline int congklak_winner(const congklak_rules *r, const kalah_pos *p) { return kalah_winner(r, p); }

/* Position strings in Kalah's notation (docs/design.md §2): the rules' pits and total are enforced and a
 * position the end rule says is finished is marked over and swept, exactly as kalah_pos_parse with r. */
static inline int congklak_pos_parse(const char *s, const congklak_rules *r, kalah_pos *out, char *err)
{
    return kalah_pos_parse(s, r, out, NULL, err);
}
static inline char *congklak_pos_format(const congklak_rules *r, const kalah_pos *p, char *buf, size_t n)
{
    return kalah_pos_format(r, p, buf, n);
}

/* Move letters: South a.., North A.. (kalah_move_letter / kalah_move_parse apply unchanged). */

/* ---- encoding for the network ---- */

/* Floats per position: 2m + 2. The layout of kalah_encode, from the mover's point of view: out[0..m-1]
 * the mover's pits a.., out[m..2m-1] the opponent's pits in its own a.. order, out[2m] the mover's store,
 * out[2m+1] the opponent's store, every count divided by r->seeds (the start reads 1.0 per pit).
 * Encoding name for exports: CONGKLAK_ENCODING_NAME. */
static inline int congklak_encode_dim(const congklak_rules *r) { return 2 * r->pits + 2; }
static inline void congklak_encode(const congklak_rules *r, const kalah_pos *p, float *out) { kalah_encode(r, p, out); }
#define CONGKLAK_ENCODING_NAME "congklak-mover-v1"

#endif
