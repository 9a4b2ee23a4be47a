/* srv_game.h — the games `sowzero serve` offers, behind one small value-type interface (issue 19).
 *
 * Kalah (env/kalah.h, DESIGN.md §1.1) and Mancala básico for 2–4 players (env/basico.h, §1.2) are served
 * through the engines' own checked move functions; this module adds what a board page needs besides the
 * rules: a uniform view of the board (cells in index order, stores, who moves, the result), and for every
 * move an event that replays the sowing seed by seed (`path`), with its extra turn, capture and end.
 *
 * The path is derived here from the sowing order of each game (Kalah: every following position, skipping
 * the opponent's store; básico: every following position of the players still in the circuit) and then
 * checked against the engine: the board the path builds (with the capture moved to the store) must be the
 * engine's board after the move, else the event carries no path (the page then shows the result without
 * animation). The engine's board is always the one reported.
 *
 * When env/game.h (the project's one game interface) lands, this module is the one place to switch over.
 * Library code: nothing prints; errors are codes with a message (SRV_ERRLEN bytes).
 */
#ifndef SOWZERO_SRV_GAME_H
#define SOWZERO_SRV_GAME_H

#include <cjson/cJSON.h>

#include "env/basico.h"
#include "env/kalah.h"

#define SRV_ERRLEN 320
#define SRV_MAX_CELLS 32
#define SRV_MAX_PLAYERS 4
#define SRV_MAX_PATH 512  /* drops of one move: at most the seeds of one pit (<= 255) */

enum { SRV_OK = 0, SRV_EINVAL = -1, SRV_EILLEGAL = -2, SRV_EOVER = -3, SRV_ENOMEM = -4, SRV_EFAIL = -5 };

typedef enum { SRV_GAME_KALAH = 0, SRV_GAME_BASICO = 1 } srv_game_kind;

/* A game's rules: the kind and that engine's rules. A plain value. */
typedef struct {
    srv_game_kind kind;
    kalah_rules k;
    basico_rules b;
} srv_rules;

/* A position of either game (only the member of the rules' kind is meaningful). A plain value. */
typedef struct {
    kalah_pos k;
    basico_pos b;
} srv_pos;

/* What one move did, for the page's animation. Board indices are those of the game (srv_cells). */
typedef struct {
    int mover;             /* seat of the player who moved (Kalah: 0 South, 1 North) */
    int move;              /* relative pit 0..pits-1 */
    char letter;           /* its letter in the notation (DESIGN.md §2; básico: a.. for every player) */
    int origin;            /* board index of the sown pit */
    int path_len;          /* drops in order (0 = no path: see the top of this file) */
    unsigned char path[SRV_MAX_PATH];
    int extra_turn;        /* the mover moves again */
    int captured;          /* Kalah: seeds a capture moved to the store (0 = none) */
    int capture_pit, capture_opposite; /* Kalah: the capturing pit and the one opposite (-1 = none) */
    int finished;          /* básico: the mover emptied its side and left the circuit */
    int over;              /* the game ended with this move (a Kalah end sweeps the pits to the stores) */
} srv_event;

/* Parses a rules spec, "kalah[:...]" (kalah_rules_parse) or "basico[:...]" (basico_rules_parse); the
 * message names the bad key or value. SRV_OK or SRV_EINVAL. */
int srv_rules_parse(const char *spec, srv_rules *out, char *err);
/* The canonical spec into buf (n >= 128). */
char *srv_rules_format(const srv_rules *r, char *buf, size_t n);

int srv_players(const srv_rules *r);
int srv_pits(const srv_rules *r);
int srv_cells(const srv_rules *r);
/* Board index of player's store. */
int srv_store(const srv_rules *r, int player);

void srv_start(const srv_rules *r, srv_pos *out);
int srv_to_move(const srv_rules *r, const srv_pos *p);
int srv_over(const srv_rules *r, const srv_pos *p);
/* Bit k: relative pit k of the player to move is a legal move (0 once over). */
unsigned srv_legal(const srv_rules *r, const srv_pos *p);

/* Plays relative pit k for the player to move; fills ev (may be NULL). SRV_OK, SRV_EOVER, SRV_EILLEGAL
 * (out of range or empty pit); p unchanged on error. */
int srv_play(const srv_rules *r, srv_pos *p, int k, srv_event *ev);

/* Parses a move of the player to move: the letter of the notation (Kalah: a.. South, A.. North; básico
 * a.. for everyone). Returns the relative pit, or SRV_EINVAL with a message (not a pit of the mover) or
 * SRV_EILLEGAL (the pit is empty) or SRV_EOVER. */
int srv_move_parse(const srv_rules *r, const srv_pos *p, const char *text, char *err);
char srv_move_letter(const srv_rules *r, const srv_pos *p, int k);

/* Position strings of the game's notation (kalah_pos_format / basico_pos_format). parse: SRV_EINVAL with
 * the engine's message. */
int srv_pos_parse(const srv_rules *r, const char *text, srv_pos *out, char *err);
char *srv_pos_format(const srv_rules *r, const srv_pos *p, char *buf, size_t n);

/* Equal positions. */
int srv_pos_equal(const srv_rules *r, const srv_pos *x, const srv_pos *y);

/* The board as JSON (new object, caller owns; NULL when out of memory):
 *   {"cells":[counts in index order; null for a cell of a player who left], "to_move": seat, "over": bool,
 *    "legal":[letters], "position": string, "result": null | Kalah {"winner": seat or null (draw),
 *    "stores":[S,N]} | básico {"places":[place per seat]}} */
cJSON *srv_board_json(const srv_rules *r, const srv_pos *p);
/* The event as JSON: {"mover","move","pit","path":[indices],"extra_turn","captured","capture_pit",
 * "capture_opposite","finished","over"} (capture_* are null when there was no capture). */
cJSON *srv_event_json(const srv_event *ev);
/* The rules' layout for drawing: {"kind","rules","players","pits","cells","stores":[index per seat]}. */
cJSON *srv_layout_json(const srv_rules *r);

#endif
