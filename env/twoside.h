/* twoside.h — helpers the rules of the two-row games share (kalah_pos: 2m+2 byte counts, side to move,
 * over, sows; docs/design.md §2 notation), used by Congklak's (§1.3) and Oware's (§1.4). Every layer above env/ plays these games through the game interface (env/game.h:
 * game_perft, the exact solver eval/game_search.h with game_kind.solve_props); there is no second table. */
#ifndef SOWZERO_TWOSIDE_H
#define SOWZERO_TWOSIDE_H

#include <stdint.h>

/* Seeds in side's pits (0 South, 1 North) of a board with m pits per side. */
int twoside_row_seeds(const uint8_t *cell, int m, int side);

/* The end's sweep of Kalah, Congklak and Oware (docs/design.md §1.1, §1.4): each side's pit seeds go to its own
 * store (or captures) cell. */
void twoside_sweep(uint8_t *cell, int m);

#endif
