/* endgame.h — endgame database for the alpha-beta solver (eval/alphabeta; shared through eval/tbase.h).
 *
 * Play from a Kalah position depends only on the pits and the side to move (alphabeta's tt.h explains
 * why), so the final margin is (own store − opponent's store) + F(pits) with F seen from the mover. The
 * database holds F exactly for every arrangement of at most `max_seeds` seeds in the 2·pits pits, the
 * mover's row first: F is the margin the mover makes on the seeds still in play under perfect play.
 *
 * Index: an arrangement c[0..2m-1] with sum <= N is the strictly increasing sequence
 * s_i = c_0 + ... + c_i + i (i < 2m) in 0..N+2m-1, ranked in the combinatorial number system
 * (Knuth, TAOCP 7.2.1.3): rank = sum_i C(s_i, i+1). So the table has C(N+2m, 2m) one-byte entries
 * (Kalah(6,·): N = 20 → 226 M, N = 24 → 1.25 G) and a lookup is 2m additions of table binomials.
 *
 * Built by memoised recursion: a move never raises the number of seeds in the pits, and a move that keeps
 * it only carries seeds forward within a row, so the recursion always ends. Valid for every rule set with
 * max_sows = 0 (with a sow limit the value depends on the sow count).
 */
#ifndef SOWZERO_EVAL_ENDGAME_H
#define SOWZERO_EVAL_ENDGAME_H

#include <stddef.h>
#include <stdint.h>

#include "env/kalah.h"

typedef struct eg_db eg_db;

/* Builds the database of rules r for up to max_seeds (1..127) seeds in the pits (capped at the total).
 * threads: build threads (1 or more; fewer are used if some cannot start). Takes time proportional to its size. Returns NULL with a message in err
 * (KALAH_ERRLEN bytes, may be NULL) when the rules have max_sows > 0, max_seeds is out of range, the
 * table would exceed 16 GiB, or memory runs out. */
eg_db *eg_create(const kalah_rules *r, int max_seeds, int threads, char *err);
void eg_free(eg_db *db);

int eg_max_seeds(const eg_db *db);
/* The rules the database was built for (owned by db). */
const kalah_rules *eg_rules(const eg_db *db);
size_t eg_bytes(const eg_db *db);

/* F of a position that is not finished and has at most eg_max_seeds seeds in its pits: the final margin
 * under perfect play minus the current store difference, both for p->side. */
int eg_value(const eg_db *db, const kalah_pos *p);

#endif
