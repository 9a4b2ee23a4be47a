/* solve_family.h — `sowzero solve` for Congklak and Oware (cli/solve_family.c, eval/family_search.h);
 * cmd_solve routes every registered game other than Kalah here. */
#ifndef SOWZERO_SOLVE_FAMILY_H
#define SOWZERO_SOLVE_FAMILY_H

/* Solves the position (pos_text, NULL = the start) of the game named by spec, after `sows` plies already
 * played (they count towards max_sows), with a tt_mb MiB table. Prints like solve (JSON: value, best,
 * nodes, seconds, rules, position, over). Returns the exit status: 2 for a bad spec, position or a game
 * this solver does not know, 1 when the solve fails (a line without end: Oware with max_sows=0). */
int solve_family(const char *spec, const char *pos_text, long tt_mb, long sows, int json);

#endif
