/* kalah.h — Kalah rules, the packed board, sowing, notation and perft.
 *
 * Rules: docs/design.md §1.1 (every parameter of the rules table is a field of kalah_rules).
 * Notation: docs/design.md §2. Board layout: docs/design.md §3.1.
 *
 * Board indices for pits = m: South pits 0..m-1 (a..), South store m, North pits m+1..2m (A..),
 * North store 2m+1. The pit opposite index i is 2m - i. A whole board is one 16-byte vector (one byte per
 * index, 2m+2 <= 16, unused bytes zero), so a sowing is two byte-vector adds of precomputed masks.
 *
 * Moves are *relative* pit numbers 0..m-1 of the player to move (0 = a for South, A for North); a legal-move
 * set is a bit mask over those numbers. Library functions never print; they return error codes and fill a
 * caller's message buffer where one is given.
 */
#ifndef SOWZERO_KALAH_H
#define SOWZERO_KALAH_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

#define KALAH_MAX_PITS 7
#define KALAH_CELLS 16          /* bytes in a packed board */
#define KALAH_ERRLEN SZ_ERRLEN

typedef enum { KALAH_SOUTH = 0, KALAH_NORTH = 1 } kalah_side;

typedef enum {
    KALAH_CAPTURE_OPPOSITE = 0, /* capture only when the opposite pit is non-empty (standard Kalah) */
    KALAH_CAPTURE_ALWAYS,       /* as OPPOSITE, but an empty opposite pit still banks the capturing seed */
    KALAH_CAPTURE_NONE          /* no captures */
} kalah_capture;

typedef enum {
    KALAH_END_EITHER_EMPTY = 0, /* after any sowing, if either row is empty, both rows are swept home */
    KALAH_END_MOVER_EMPTY       /* ends when the player to move has an empty row; the other sweeps */
} kalah_end;

/* The rule set, docs/design.md §1.1. A plain value: copy it freely. */
typedef struct {
    int pits;              /* pits per player, 1..7 */
    int seeds;             /* seeds per pit at the start, 1..18, 2*pits*seeds <= 255 */
    kalah_capture capture;
    kalah_end end;
    int max_sows;          /* 0 = no limit; else the game ends (with the sweep) after that many sowings */
} kalah_rules;

/* A position: the packed board plus the side to move. `over` is set once the game has ended (the board
 * then shows the swept result); `sows` counts sowings since the start (for max_sows; positions parsed
 * from a string start at 0). */
typedef struct {
    _Alignas(16) uint8_t cell[KALAH_CELLS];
    uint8_t side;          /* kalah_side of the player to move (after the end: who would have moved) */
    uint8_t over;
    uint16_t sows;
} kalah_pos;

/* What one sowing did. */
typedef struct {
    uint8_t extra_turn;    /* the last seed fell in the mover's store and the game goes on */
    uint8_t captured;      /* seeds moved to the store by a capture (opposite seeds + the capturing seed) */
    uint8_t over;          /* the game ended with this sowing */
    uint8_t last;          /* board index where the last seed fell */
} kalah_step;

enum { KALAH_OK = SZ_OK, KALAH_EINVAL = SZ_EINVAL, KALAH_EILLEGAL = SZ_EILLEGAL, KALAH_EOVER = SZ_EOVER };

/* ---- rules ---- */

/* The default rules: Kalah(6,4), capture=opposite, end=either-empty, no sow limit. */
kalah_rules kalah_rules_default(void);

/* Checks every field's range (docs/design.md §1.1). Returns KALAH_OK or KALAH_EINVAL with a message naming the
 * field in err (KALAH_ERRLEN bytes, may be NULL). */
int kalah_rules_check(const kalah_rules *r, char *err);

/* Parses a rules spec: "kalah" or "kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=400"
 * (any subset of keys, any order; missing keys keep their defaults). Returns KALAH_OK, or KALAH_EINVAL with
 * a message naming the bad key or value. */
int kalah_rules_parse(const char *spec, kalah_rules *out, char *err);

/* Writes the full canonical spec ("kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0")
 * into buf (size n, 96 bytes always suffice). Returns buf. */
char *kalah_rules_format(const kalah_rules *r, char *buf, size_t n);

/* The same two under another game's name, for the games whose rules are Kalah's keys (Congklak, docs/design.md
 * §1.3): "game" or "game:key=value,..." over `defaults` (env/rules_spec.h reads both). */
int kalah_rules_parse_as(const char *game, const kalah_rules *defaults, const char *spec, kalah_rules *out,
                         char *err);
char *kalah_rules_format_as(const char *game, const kalah_rules *r, char *buf, size_t n);

/* Parses one capture/end rule name ("opposite", "always", "none" / "either-empty", "mover-empty");
 * returns KALAH_OK or KALAH_EINVAL. Shared by the spec parser and the config loader. */
int kalah_capture_parse(const char *s, kalah_capture *out);
int kalah_end_parse(const char *s, kalah_end *out);
const char *kalah_capture_name(kalah_capture c);
const char *kalah_end_name(kalah_end e);

/* ---- positions ---- */

/* The start position of r: every pit holds r->seeds, stores empty, South to move. */
void kalah_start(const kalah_rules *r, kalah_pos *out);

static inline int kalah_store(const kalah_rules *r, int side) { return side ? 2 * r->pits + 1 : r->pits; }
/* Board index of relative pit k (0..m-1) of `side`. */
static inline int kalah_pit_index(const kalah_rules *r, int side, int k) { return side ? r->pits + 1 + k : k; }
/* Total seeds on the board (all pits and both stores). */
int kalah_total(const kalah_rules *r, const kalah_pos *p);

/* Bit k set when relative pit k of the player to move is non-empty; 0 when the game is over. */
unsigned kalah_legal(const kalah_rules *r, const kalah_pos *p);

/* Sows relative pit `k` of the player to move, applying capture, extra turn, end and sweep per r.
 * Precondition: the move is legal (bit k of kalah_legal is set); not checked here — this is the hot path.
 * O(1): two 16-byte mask adds (docs/design.md §3.1). `info` may be NULL. */
void kalah_sow(const kalah_rules *r, kalah_pos *p, int k, kalah_step *info);

/* Checked kalah_sow: KALAH_EOVER if the game is over, KALAH_EILLEGAL if k is out of range or the pit is
 * empty; the position is unchanged on error. */
int kalah_play(const kalah_rules *r, kalah_pos *p, int k, kalah_step *info);

/* Final margin South store - North store (meaningful once over; else the current store difference). */
static inline int kalah_margin(const kalah_rules *r, const kalah_pos *p)
{
    return (int)p->cell[r->pits] - (int)p->cell[2 * r->pits + 1];
}

/* Winner of a finished game: 1 South, -1 North, 0 draw. */
static inline int kalah_winner(const kalah_rules *r, const kalah_pos *p)
{
    int d = kalah_margin(r, p);
    return (d > 0) - (d < 0);
}

/* ---- notation (docs/design.md §2) ---- */

/* Position string: the 2m+2 counts in index order, comma-separated, a space, S or N. Parses into out and
 * sets *pits_out to m (from the count of fields). When `r` is non-NULL the count must match r->pits and the
 * total must equal 2*pits*seeds. Rejects, with a message in err naming the problem and the field number:
 * wrong count of fields, a non-number, a negative or too-large count, a bad side token, a wrong total.
 * The position gets over = 1 when the rules (r non-NULL) say it is already finished. Returns KALAH_OK or
 * KALAH_EINVAL. */
int kalah_pos_parse(const char *s, const kalah_rules *r, kalah_pos *out, int *pits_out, char *err);

/* Writes the position string into buf (size n; 64 bytes always suffice). Returns buf. */
char *kalah_pos_format(const kalah_rules *r, const kalah_pos *p, char *buf, size_t n);

/* Move letter of relative pit k for side: South 'a'+k, North 'A'+k. */
static inline char kalah_move_letter(int side, int k) { return (char)((side ? 'A' : 'a') + k); }

/* Parses a move for the player to move: a letter of that player's row ('a'.. for South, 'A'.. for North)
 * or, when allow_number is set, a digit 1..m counted from the mover's far end (a = 1). Returns the
 * relative pit 0..m-1, or KALAH_EINVAL (not a move of this board), or KALAH_EILLEGAL (the opponent's pit). */
int kalah_move_parse(const kalah_rules *r, int side, const char *s, int allow_number);

/* ---- perft ---- */

/* Leaf counts at exactly depth 1..depth from p (one ply = one sowing; a finished game contributes nothing
 * deeper): nodes[d-1] = positions at ply d. nodes has `depth` entries. */
void kalah_perft(const kalah_rules *r, const kalah_pos *p, int depth, uint64_t *nodes);

/* ---- encoding for the network ---- */

/* Floats per encoded position: 2m + 2. */
static inline int kalah_encode_dim(const kalah_rules *r) { return 2 * r->pits + 2; }

/* Encodes p from the mover's point of view into out[kalah_encode_dim(r)]:
 *   out[0..m-1]   the mover's pits a.. (relative order), out[m..2m-1] the opponent's pits in its own a..
 *   order, out[2m] the mover's store, out[2m+1] the opponent's store; every count divided by r->seeds
 *   (so the start position reads 1.0 in each pit). Encoding name for exports: "kalah-mover-v1". */
void kalah_encode(const kalah_rules *r, const kalah_pos *p, float *out);
#define KALAH_ENCODING_NAME "kalah-mover-v1"

#endif
