/* solve_family.h — `sowzero solve` for Congklak and Oware (cli/solve_family.c, eval/family_search.h);
 * cmd_solve routes every registered game other than Kalah here. */
#ifndef SOWZERO_SOLVE_FAMILY_H
#define SOWZERO_SOLVE_FAMILY_H

#include <stdint.h>

/* What a solve found, as `solve` prints it (for Kalah's path in cmd_solve.c and this one). */
typedef struct {
    int value;              /* final margin for the player to move */
    unsigned best_mask;     /* every optimal relative pit */
    int side, pits;         /* side to move (letters a.. or A..), pits per side */
    uint64_t nodes;
    double seconds;
    const char *rules, *position;
    int over;               /* the position was already finished */
    int endgame;            /* Kalah: an endgame database was built (the text then says how long) */
    double endgame_seconds; /* Kalah's JSON key endgame_seconds; < 0: the key is left out */
} solve_report;

/* Prints the report (one cJSON object with json, else text lines). Returns the exit status. */
int solve_print(const solve_report *r, int json);

/* Solves the position (pos_text, NULL = the start) of the game named by spec, after `sows` plies already
 * played (they count towards max_sows), with a tt_mb MiB table. Prints like solve (JSON: value, best,
 * nodes, seconds, rules, position, over). Congklak and Oware use eval/family_search.h; any other
 * registered game the generic gs_solve (two-player games with a margin, small boards). Returns the exit
 * status: 2 for a bad spec, position or a game without a margin or with more than two players, 1 when
 * the solve fails (a line without end: Oware with max_sows=0; a board too large for gs_solve). */
int solve_family(const char *spec, const char *pos_text, long tt_mb, long sows, int json);

#endif
