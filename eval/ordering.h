/* ordering.h — move generation with ordering for the alpha-beta search (internal to eval/alphabeta).
 *
 * Every legal move of the position is played (a sowing costs a few ns, less than guessing its effect) and
 * the children are sorted, best first, by:
 *   1. the transposition table's move (the best or refuting move of an earlier search);
 *   2. extra-turn moves, the pit nearest the store first: sowing the nearest pit first leaves the other
 *      extra-turn pits' counts intact, so a whole chain of extra turns is tried as the first line;
 *   3. the rest by the change of the store difference the move makes for the mover (sowing into the own
 *      store plus any capture; for a move that ends the game, the sweep too): captures before quiet
 *      moves; among equal gains, again the pit nearest the store first. Measured on the exact solves of
 *      Kalah(6,3) and Kalah(6,3, empty captures): 2.7 and 3.1 times fewer nodes than lowest pit first; a
 *      history heuristic on top helped Kalah(5,4) by 15% but cost Kalah(6,3) 75% more nodes.
 * The order is a function of the position and tt_move only, so searches are deterministic.
 */
#ifndef SOWZERO_EVAL_ORDERING_H
#define SOWZERO_EVAL_ORDERING_H

#include "env/kalah.h"

typedef struct {
    kalah_pos child[KALAH_MAX_PITS]; /* positions after each move, in search order */
    int move[KALAH_MAX_PITS];        /* relative pit of each */
    int gain[KALAH_MAX_PITS];        /* mover's store gain of each (seeds) */
    int n;
} ord_list;

/* Plays every legal move of p (not finished) and orders the children as described above; tt_move is a
 * relative pit or -1. */
void ord_generate(const kalah_rules *r, const kalah_pos *p, int tt_move, ord_list *out);

#endif
