/* twoside.h — the two-row games that share Kalah's position layout (kalah_pos: 2m+2 byte counts, side to
 * move, over, sows; DESIGN.md §2 notation): Kalah (§1.1), Congklak (§1.3) and Oware (§1.4). A
 * twoside_game is a rule set bound to its legal-move and move functions, so code that only needs those
 * (perft) is written once for the three games; the exact solver works on the game interface
 * (eval/game_search.h), to which these games declare the same facts through game_kind.solve_props.
 *
 * This is the small native table of these games, not the project's one game interface (env/game.h,
 * DESIGN.md §3): an adapter to that interface can be built on it. */
#ifndef SOWZERO_TWOSIDE_H
#define SOWZERO_TWOSIDE_H

#include <stdint.h>

#include "env/kalah.h"

typedef struct {
    const char *name;   /* the rules spec's game name: "kalah", "congklak", "oware" */
    const void *rules;  /* the game's rules struct (borrowed; must outlive the table) */
    int pits;           /* pits per player m: the board has 2m+2 cells */
    int max_sows;       /* the rules' ply limit (0 = none), counted in kalah_pos.sows */
    int stores_inert;   /* 1 when play never reads the two store cells (Kalah, Congklak): the rest of the
                         * game depends on the pits, side and sows only; 0 for Oware (majority end) */
    /* Bit k set when the mover's relative pit k is a legal move; 0 once the game is over. */
    unsigned (*legal)(const void *rules, const kalah_pos *p);
    /* Plays legal move k (the caller checked legal); 0, or a negative error code of the game (the
     * position is then unchanged). */
    int (*play)(const void *rules, kalah_pos *p, int k);
} twoside_game;

/* Seeds in side's pits (0 South, 1 North) of a board with m pits per side. */
int twoside_row_seeds(const uint8_t *cell, int m, int side);

/* The end's sweep of Kalah, Congklak and Oware (DESIGN.md §1.1, §1.4): each side's pit seeds go to its own
 * store (or captures) cell. */
void twoside_sweep(uint8_t *cell, int m);

/* The table of Kalah under r (r borrowed). */
twoside_game twoside_kalah(const kalah_rules *r);

/* Leaf counts at exactly depth 1..depth from p (one ply = one move; a finished game contributes nothing
 * deeper; DESIGN.md §3.1): nodes[d-1] = positions at ply d, nodes has `depth` entries. Returns 0, or the
 * first negative error code a move returned (the counts are then incomplete). */
int twoside_perft(const twoside_game *g, const kalah_pos *p, int depth, uint64_t *nodes);

#endif
