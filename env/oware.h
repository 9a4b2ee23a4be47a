/* oware.h — Oware (awalé, ayo) under the Abapa tournament rules: captures of 2 or 3 (docs/design.md §1.4).
 *
 * Board: Kalah's layout and notation (env/kalah.h, docs/design.md §2) with no stores on the circuit: for
 * pits = m, South pits a.. = 0..m-1, South's captured seeds m, North pits A.. = m+1..2m, North's captured
 * seeds 2m+1. A position is a kalah_pos; its `sows` counts plies since the position given (max_sows).
 *
 * A move: take all seeds of an own non-empty pit and sow one per pit in index order over the 2m pits
 * only, skipping the origin pit whenever the sowing comes round to it; no extra turns. If the last seed
 * makes an opponent's pit hold 2 or 3, those seeds are captured, and so is each pit before it (walking
 * back) while it is the opponent's and holds 2 or 3. A move whose captures would take every seed on the
 * opponent's side (a grand slam) captures nothing under grand_slam=nocapture (the default, Abapa) and all
 * of them under grand_slam=capture. Must feed: when the opponent's pits are all empty, only moves that sow
 * at least one seed into them are legal.
 *
 * The end, tested after every move in this order (the order of tests/vectors/oware-moves.txt, which
 * docs/design.md §1.4 states too):
 *   1. majority: a player holds more than pits*seeds captured seeds — over, the rest stays on the board;
 *   2. max_sows plies played since the position given — each player captures the seeds in its own pits;
 *   3. the player to move has no legal move — its pits are empty (possible after a grand slam under
 *      grand_slam=capture, or in a given position) or it cannot feed the empty opponent; in both cases
 *      every seed left lies on one side and each player captures the seeds in its own pits (so the
 *      mover who cannot feed captures every seed left).
 * A finished position's side token is the player who would have moved next. More captures wins.
 *
 * Library functions never print; errors are a negative code and a message in err (KALAH_ERRLEN bytes,
 * may be NULL).
 */
#ifndef SOWZERO_OWARE_H
#define SOWZERO_OWARE_H

#include <stddef.h>
#include <stdint.h>

#include "env/kalah.h"

#define OWARE_MAX_PITS 6
#define OWARE_MAX_SEEDS 8

typedef enum {
    OWARE_GRAND_SLAM_NOCAPTURE = 0, /* a grand slam is legal and captures nothing (Abapa) */
    OWARE_GRAND_SLAM_CAPTURE        /* a grand slam captures every seed on the opponent's side */
} oware_grand_slam;

/* The rule set, docs/design.md §1.4. A plain value. */
typedef struct {
    int pits;                    /* pits per player, 2..6 */
    int seeds;                   /* seeds per pit at the start, 1..8 */
    oware_grand_slam grand_slam;
    int max_sows;                /* plies until the game ends with each side capturing its own pits;
                                  * 0 = no limit (cycles are then possible), default 300 */
} oware_rules;

/* What one move did. */
typedef struct {
    uint8_t captured;   /* seeds this move captured (0 for a grand slam under nocapture); sweep not counted */
    uint8_t grand_slam; /* the move's captures would have taken every seed on the opponent's side */
    uint8_t over;       /* the game ended with this move */
    uint8_t last;       /* board index where the last seed fell */
} oware_step;

/* Return codes: KALAH_OK, KALAH_EINVAL, KALAH_EILLEGAL, KALAH_EOVER (env/kalah.h). */

/* pits 6, seeds 4, grand_slam=nocapture, max_sows=300. */
oware_rules oware_rules_default(void);

/* Checks every field's range; KALAH_OK or KALAH_EINVAL with a message naming the field. */
int oware_rules_check(const oware_rules *r, char *err);

/* Parses "oware" or "oware:pits=6,seeds=4,grand_slam=nocapture,max_sows=300" (any subset of the keys, any
 * order, each once; missing keys keep the defaults). KALAH_OK or KALAH_EINVAL naming the key or value. */
int oware_rules_parse(const char *spec, oware_rules *out, char *err);

/* The full canonical spec, every key (96 bytes always suffice). Returns buf. */
char *oware_rules_format(const oware_rules *r, char *buf, size_t n);

/* The start: every pit r->seeds, no captures, South to move. */
void oware_start(const oware_rules *r, kalah_pos *out);

/* Seeds needed to reach the total of the majority end: pits*seeds + 1. */
static inline int oware_majority(const oware_rules *r) { return r->pits * r->seeds + 1; }

/* Bit k set when the mover's relative pit k is legal (non-empty, and when the opponent's pits are all
 * empty, holding at least m - k seeds so that the sowing reaches them); 0 once over. */
unsigned oware_legal(const oware_rules *r, const kalah_pos *p);

/* Plays relative pit k of the player to move: sowing, captures, grand slam, then the end tests in the
 * order above. KALAH_OK, KALAH_EOVER (game over) or KALAH_EILLEGAL (k out of range, an empty pit, or a
 * move that does not feed an empty opponent); the position is unchanged on error. info may be NULL. */
int oware_play(const oware_rules *r, kalah_pos *p, int k, oware_step *info);

/* Final margin South captures - North captures; winner 1 South, -1 North, 0 draw. */
static inline int oware_margin(const oware_rules *r, const kalah_pos *p)
{
    return (int)p->cell[r->pits] - (int)p->cell[2 * r->pits + 1];
}
static inline int oware_winner(const oware_rules *r, const kalah_pos *p)
{
    int d = oware_margin(r, p);
    return (d > 0) - (d < 0);
}

/* Parses a position string (Kalah's notation; the two store fields are the captures). The field count
 * must match r->pits and the total 2*pits*seeds; errors name the problem (the field for a bad number).
 * A position that is already finished (majority, or no legal move for the side to move) is marked over,
 * swept as above when the end is by no legal move. KALAH_OK or KALAH_EINVAL. */
int oware_pos_parse(const char *s, const oware_rules *r, kalah_pos *out, char *err);
static inline char *oware_pos_format(const oware_rules *r, const kalah_pos *p, char *buf, size_t n)
{
    kalah_rules k = {.pits = r->pits};
    return kalah_pos_format(&k, p, buf, n);
}

/* Move letters: South a.., North A..; parses like kalah_move_parse for a board of r->pits. */
int oware_move_parse(const oware_rules *r, int side, const char *s);

/* ---- encoding for the network ---- */

/* Floats per position: 2m + 2. From the mover's point of view: out[0..m-1] the mover's pits a..,
 * out[m..2m-1] the opponent's pits in its own a.. order, out[2m] the mover's captures, out[2m+1] the
 * opponent's captures, every count divided by r->seeds (the start reads 1.0 per pit): kalah_encode's
 * layout. Encoding name for exports: OWARE_ENCODING_NAME. */
static inline int oware_encode_dim(const oware_rules *r) { return 2 * r->pits + 2; }
void oware_encode(const oware_rules *r, const kalah_pos *p, float *out);
#define OWARE_ENCODING_NAME "oware-mover-v1"

#endif
