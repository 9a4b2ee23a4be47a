/* srv_game.h — the games `sowzero serve` offers: every registered kind of the game interface (env/game.h)
 * whose board the page can draw, plus what a board page needs besides the rules.
 *
 * Boards. The page draws any game whose kind describes its board as data (game_layout, env/game.h): a ring
 * of rows, one per player, each row its pits then its store (or captures) — player q's pits
 * q·(m+1)+0..m-1 and its store q·(m+1)+m. Two drawings cover the layouts: "rows", two facing rows (Kalah,
 * Congklak, Oware: docs/design.md §1.1, §1.3, §1.4), and "ring" (GAME_DRAW_RING: básico's circuit of 2–4
 * players, §1.2). A kind without a layout is refused by srv_rules_parse (its board could not be drawn).
 *
 * Events. For every move this module reports the sowing seed by seed (`path`, with relay pick-ups), the
 * capture, extra turn, departure and end. The path follows the sowing order the layout's flags declare
 * (skipped stores, the skipped origin pit, rows of players out of play, relays) and is checked against
 * the engine: the board it builds, with the declared capture and any end sweep applied, must be the
 * engine's board after the move (not checked when the game's end moves seeds a sowing does not show,
 * GAME_END_UNSHOWN); otherwise the event carries no path and the page shows the result without
 * animation. The engine's board is always the one reported.
 *
 * Library code: nothing prints; errors are codes with a message (SRV_ERRLEN bytes).
 */
#ifndef SOWZERO_SRV_GAME_H
#define SOWZERO_SRV_GAME_H

#include "env/status.h"

#include <cjson/cJSON.h>

#include "env/game.h"

#define SRV_ERRLEN SZ_ERRLEN
#define SRV_MAX_CELLS GAME_MAX_CELLS
#define SRV_MAX_PLAYERS GAME_MAX_PLAYERS
#define SRV_MAX_PATH 1024  /* drops of one move, relays included */
#define SRV_MAX_CAPTURE 8

enum { SRV_OK = SZ_OK, SRV_EINVAL = SZ_EINVAL, SRV_EILLEGAL = SZ_EILLEGAL, SRV_EOVER = SZ_EOVER, SRV_ENOMEM = SZ_ENOMEM,
       SRV_EFAIL = SZ_EFAIL };

/* A served game: the interface's rules instance (game, immutable, shareable between threads) and what
 * the page needs of it. Copies share `g`; the one that srv_rules_parse filled owns it (srv_rules_free). */
typedef struct {
    game *g;
    game_layout lay;   /* the board as its kind describes it (env/game.h) */
    int players, pits, cells;
} srv_rules;

typedef game_pos srv_pos;

/* What one move did, for the page's animation. Board indices are the game's cells. */
typedef struct {
    int mover;             /* seat of the player who moved */
    int move;              /* slot (relative pit) 0..pits-1 */
    char letter[8];        /* its text in the game's notation (game_move_format) */
    int origin;            /* cell of the sown pit */
    int path_len;          /* drops in order (0 = no path: see the top of this file) */
    unsigned char path[SRV_MAX_PATH];
    int n_pickups;         /* Congklak relays: before drop pickup_at[i], cell pickup_cell[i] is emptied */
    short pickup_at[SRV_MAX_PATH / 2];
    unsigned char pickup_cell[SRV_MAX_PATH / 2];
    int extra_turn, relays, finished, over;
    int captured;          /* seeds captured */
    int n_capture;         /* cells the capture emptied (Kalah/Congklak: landing pit and opposite) */
    unsigned char capture[SRV_MAX_CAPTURE];
} srv_event;

/* Parses a rules spec of a registered game (game_create) into *out, which then owns its game. SRV_OK, or
 * SRV_EINVAL with the message (unknown game, bad key or value, a board the page cannot draw). */
int srv_rules_parse(const char *spec, srv_rules *out, char *err);
void srv_rules_free(srv_rules *r);
/* The canonical spec (owned by the game). */
const char *srv_rules_spec(const srv_rules *r);

/* Board index of player's store (or captures). */
int srv_store(const srv_rules *r, int player);
/* Does the cell belong to a player still in the game (básico: 0 for a player who has left)? */
int srv_cell_live(const srv_rules *r, const srv_pos *p, int cell);
/* Seeds in the pits (not in stores). */
int srv_pit_seeds(const srv_rules *r, const srv_pos *p);

void srv_start(const srv_rules *r, srv_pos *out);
static inline int srv_to_move(const srv_rules *r, const srv_pos *p) { (void)r; return p->to_move; }
static inline int srv_over(const srv_rules *r, const srv_pos *p) { (void)r; return p->over; }
unsigned srv_legal(const srv_rules *r, const srv_pos *p);

/* Plays slot k for the player to move; fills ev (may be NULL). SRV_OK, SRV_EOVER, SRV_EILLEGAL. */
int srv_play(const srv_rules *r, srv_pos *p, int k, srv_event *ev);

/* A move's text for the player to move → its slot; SRV_EINVAL (not a move of the mover), SRV_EILLEGAL
 * (an empty pit) or SRV_EOVER, with a message. */
int srv_move_parse(const srv_rules *r, const srv_pos *p, const char *text, char *err);
/* The text of slot k (buf of 8 bytes). */
char *srv_move_text(const srv_rules *r, const srv_pos *p, int k, char *buf);

int srv_pos_parse(const srv_rules *r, const char *text, srv_pos *out, char *err);
char *srv_pos_format(const srv_rules *r, const srv_pos *p, char *buf, size_t n);
int srv_pos_equal(const srv_rules *r, const srv_pos *x, const srv_pos *y);

/* Final places per seat (1 = first, ties share) of a finished game, from game_values. */
void srv_places(const srv_rules *r, const srv_pos *p, int *places);

/* The board as JSON (new object, NULL when out of memory):
 *   {"cells":[counts in index order; null for a cell of a player who left], "to_move", "over",
 *    "legal":[move texts], "position", "result": null | {"places":[per seat], "scores":[per seat] (games
 *    with a score: stores or captures), "winner": seat or null (two-player games: null = draw)}} */
cJSON *srv_board_json(const srv_rules *r, const srv_pos *p);
/* {"mover","move","pit","path":[cells],"pickups":[{"at","cell"}],"extra_turn","relays","captured",
 *  "capture_cells":[cells],"finished","over"} */
cJSON *srv_event_json(const srv_event *ev);
/* {"kind" (game name),"board" ("rows" | "ring"),"rules","players","pits","cells","stores":[per seat]} */
cJSON *srv_layout_json(const srv_rules *r);

#endif
