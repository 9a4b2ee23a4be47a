/* posset.h — the format of a solved position set (positions with the exact value of every move), its
 * phases and the option and report types of eval/gposset.h, which samples, solves, writes and reads every
 * game's sets.
 *
 * File format (JSON Lines, UTF-8, one JSON object per line), version 1:
 *   line 1, the header:
 *     {"format":"sowzero-positions","format_version":1,"rules":"<kalah_rules_format>","count":N,
 *      "command":"<the generating command line>","commit":"<git commit or unknown>","seed":S}
 *   lines 2..N+1, one position each:
 *     {"position":"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S","to_move":"S","seeds_in_pits":48,"ply":K,
 *      "source":"opening:6","value":8,"best":["c"],"moves":{"a":-2,"b":0,"c":8,...}}
 *   `position` is docs/design.md §2's position string; `ply` the sowings from the start that reached it;
 *   `moves` maps EVERY legal move letter (a.. South, A.. North, in letter order) to the exact final margin
 *   under perfect play after that move, for the player to move here (own store − opponent's store at the
 *   end; an extra turn keeps the perspective); `value` = the largest, `best` = every move reaching it, in
 *   letter order. Positions are never finished and never repeat (same board and side to move).
 *
 * Phases (the sampler's quotas and the accuracy report's `by_phase`, eval/accuracy.h, use this one cut): by
 * the seeds still in the pits, s, out of the board's total T = 2·pits·seeds: early ("opening") s > 2T/3,
 * middle ("middlegame") T/3 < s <= 2T/3, late ("endgame") s <= T/3 — Kalah(6,4): 48-33, 32-17, 16-0.
 */
#ifndef SOWZERO_EVAL_POSSET_H
#define SOWZERO_EVAL_POSSET_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>


#define PS_ERRLEN SZ_ERRLEN
#define PS_SOURCE_MAX 160       /* longest source label, NUL included */
#define PS_PHASES 3
#define PS_FORMAT "sowzero-positions"
#define PS_FORMAT_VERSION 1

enum { PS_OK = SZ_OK, PS_EINVAL = SZ_EINVAL, PS_ENOMEM = SZ_ENOMEM, PS_EIO = SZ_EIO, PS_EFAIL = SZ_EFAIL };

/* The phase's name in reports: "opening", "middlegame", "endgame" ("?" outside 0..PS_PHASES-1). */
const char *ps_phase_name(int phase);

/* Sampling options (eval/gposset.h gps_sample). The set gets exactly `early` positions of the early phase
 * and the rest, count − early, split evenly between the middle and late phases (the middle one takes the
 * odd one). */
typedef struct {
    size_t count;       /* positions wanted, >= 1 */
    size_t early;       /* of them in the early phase, <= count */
    uint64_t seed;      /* everything drawn follows from it: the same options give the same set */
    int max_seeds;      /* > 0: only positions with at most this many seeds in the pits (the first plies of
                         * Kalah(6,4), 44-48 seeds, take 10 s to minutes each to solve); 0 = no cap */
    const char *net;    /* NULL, or a net file (nn/h5io.h) whose `az` agent joins the game agents */
    int max_sows_left;  /* > 0: only positions with at most this many sowings left before the rules' ply
                         * limit (the generic sampler, eval/gposset.h, for rules with one: the solve's horizon,
                         * so its cost); 0 = no cap */
} ps_sample_opts;

/* What solving a set took (eval/gposset.h gps_solve). */
typedef struct {
    double endgame_seconds;  /* wall time of the endgame database build (0 when mapped from a file or none) */
    double seconds;          /* wall time of the solving (after the build) */
    uint64_t nodes;          /* positions visited by all the solves */
    int threads;             /* threads that solved (fewer than asked when some could not start) */
} ps_solve_stats;

/* The header line's fields other than rules and count (which come from the set). */
typedef struct {
    const char *command;    /* the generating command line */
    const char *commit;     /* git commit, or "unknown" */
    uint64_t seed;          /* the sampling seed (at most 2^53, JSON's exact integers) */
} ps_header;

#endif
