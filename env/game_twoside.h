/* game_twoside.h — what the game kinds of the games sharing Kalah's position (kalah_pos: Kalah, Congklak,
 * Oware) have in common as adapters to the game interface (env/game.h): the game_pos <-> kalah_pos copy,
 * move letters and their errors, values from the margin, the exact solver's properties.
 * Internal to env/game_*.c and the adapters that hand Kalah's positions to its own fast code (eval's
 * agents and solver, self-play); static inline so each kind stays one file.
 *
 * game_pos layout of these games: cell[0..15] is kalah_pos.cell (South pits 0..m-1, South store or
 * captures m, North pits m+1..2m, North store or captures 2m+1), to_move = side (0 South, 1 North),
 * ply = kalah_pos.sows, extra[] unused (zero). */
#ifndef SOWZERO_GAME_TWOSIDE_H
#define SOWZERO_GAME_TWOSIDE_H

#include <string.h>

#include "env/errbuf.h"
#include "env/game.h"
#include "env/kalah.h"

_Static_assert(KALAH_CELLS <= GAME_MAX_CELLS && KALAH_MAX_PITS <= GAME_MAX_MOVES, "kalah_pos fits game_pos");

/* The seats of the two-row games in texts (game_kind.seat_names): the S and N of their notation. */
static const char *const gt_seat_names[2] = {"South", "North"};

static inline void gt_to_kalah(const game_pos *g, kalah_pos *k)
{
    memcpy(k->cell, g->cell, KALAH_CELLS);
    k->side = g->to_move;
    k->over = g->over;
    k->sows = g->ply;
}

static inline void gt_from_kalah(const kalah_pos *k, game_pos *g)
{
    memset(g, 0, sizeof *g);
    memcpy(g->cell, k->cell, KALAH_CELLS);
    g->to_move = k->side;
    g->over = k->over;
    g->ply = k->sows;
}

/* Writes a move's result back into the position it was played on (whose other bytes are already zero):
 * the solver and the searches apply millions of moves, the memset of gt_from_kalah is not needed there. */
static inline void gt_update_from_kalah(const kalah_pos *k, game_pos *g)
{
    memcpy(g->cell, k->cell, KALAH_CELLS);
    g->to_move = k->side;
    g->over = k->over;
    g->ply = k->sows;
}

/* South's score minus North's: the store (or captures) cells. */
static inline int gt_margin(int pits, const game_pos *p) { return (int)p->cell[pits] - (int)p->cell[2 * pits + 1]; }

/* A player's store (or captures) cell: its score (game_kind.score). */
static inline int gt_score(int pits, const game_pos *p, int player) { return p->cell[player ? 2 * pits + 1 : pits]; }

/* Values of a finished two-player game: win 1, draw 0, loss -1 (game.h's conventions). */
static inline void gt_values(int margin, double *v)
{
    v[0] = (margin > 0) - (margin < 0);
    v[1] = -v[0];
}

/* The horizon estimate: the score difference scaled into (-1, 1) so that a finished game outranks it. */
static inline void gt_estimate(int margin, int total_seeds, double *v)
{
    v[0] = margin / (double)(total_seeds + 1);
    v[1] = -v[0];
}

/* The exact solver's properties of these games (game_kind.solve_props): the score cells are the two
 * stores (captures), the limit is max_sows; inert when play never reads the stores (Kalah, Congklak). */
static inline void gt_solve_props(int pits, int max_sows, int stores_inert, game_solve_props *out)
{
    out->flags = GAME_SOLVE_SCORE_CELLS | (stores_inert ? GAME_SOLVE_SCORES_INERT : 0u);
    out->score_cell[0] = pits;
    out->score_cell[1] = 2 * pits + 1;
    out->ply_limit = max_sows;
}

/* A move letter of the player to move (a.. South, A.. North) on a board of `pits` pits. */
static inline int gt_move_parse(int pits, const game_pos *p, const char *s, char *err)
{
    kalah_rules k = {.pits = pits};
    int m = kalah_move_parse(&k, p->to_move, s, 0);
    if (m == KALAH_EILLEGAL)
        errbuf_set(err, GAME_ERRLEN, "move '%s' is a pit of %s, but %s is to move", s,
                   p->to_move ? "South" : "North", p->to_move ? "North" : "South");
    else if (m < 0)
        errbuf_set(err, GAME_ERRLEN, "'%s' is not a move of this board (pits a..%c for South, A..%c for North)",
                   s ? s : "", 'a' + pits - 1, 'A' + pits - 1);
    return m;
}

static inline void gt_move_format(const game_pos *p, int move, char *buf, size_t n)
{
    if (n >= 2) {
        buf[0] = kalah_move_letter(p->to_move, move);
        buf[1] = 0;
    }
}

#endif
