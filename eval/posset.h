/* posset.h — the format of a solved position set (positions with the exact value of every move) and the
 * types shared with eval/gposset.h, which samples, solves, writes and reads every game's sets; and a
 * sampler of Kalah positions into a set of kalah_pos, for `bench solve` (which benchmarks Kalah's solver
 * on them) and its tests.
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

#include "env/kalah.h"

#define PS_ERRLEN SZ_ERRLEN
#define PS_SOURCE_MAX 160       /* longest source label, NUL included */
#define PS_PHASES 3
#define PS_FORMAT "sowzero-positions"
#define PS_FORMAT_VERSION 1

enum { PS_OK = SZ_OK, PS_EINVAL = SZ_EINVAL, PS_ENOMEM = SZ_ENOMEM, PS_EIO = SZ_EIO, PS_EFAIL = SZ_EFAIL };

typedef struct {
    kalah_pos pos;
    int ply;                           /* sowings from the start */
    char source[PS_SOURCE_MAX];        /* how it was reached, e.g. "opening:6", "game:greedy-vs-random" */
    int solved;                        /* values[] hold the exact margins (eval/gposset.h gps_solve) */
    int values[KALAH_MAX_PITS];        /* per relative pit: the margin after the move, AB_NO_VALUE if illegal */
    double seconds;                    /* wall time its solve took (s) */
    uint64_t nodes;                    /* positions the solve visited */
} ps_entry;

typedef struct ps_set ps_set;

/* An empty set for rules r (copied; checked with kalah_rules_check). NULL with a message in err
 * (PS_ERRLEN bytes, may be NULL) for bad rules or no memory. Free with ps_free. */
ps_set *ps_create(const kalah_rules *r, char *err);
void ps_free(ps_set *s);

const kalah_rules *ps_rules(const ps_set *s);
size_t ps_count(const ps_set *s);
/* Entry i (0 <= i < ps_count), owned by the set; valid until the next ps_add. */
ps_entry *ps_get(ps_set *s, size_t i);

/* Adds p (reached after `ply` sowings, described by source, truncated to PS_SOURCE_MAX - 1 bytes) unless
 * it is finished or already in the set (same 16-byte board and side to move). Returns 1 added, 0 skipped,
 * PS_ENOMEM. */
int ps_add(ps_set *s, const kalah_pos *p, int ply, const char *source);

/* Seeds in the pits of p (both rows), and its phase 0 early, 1 middle, 2 late (see above). */
int ps_seeds_in_pits(const kalah_rules *r, const kalah_pos *p);
int ps_phase(const kalah_rules *r, int seeds_in_pits);
/* The seeds-in-pits range of a phase: *hi >= s >= *lo for every s of it (Kalah(6,4) early: 48, 33). */
void ps_phase_range(const kalah_rules *r, int phase, int *hi, int *lo);
/* That range as text, e.g. "48-33", into buf (n bytes, 16 suffice). Returns buf. */
char *ps_phase_label(const kalah_rules *r, int phase, char *buf, size_t n);
/* The phase's name in reports: "opening", "middlegame", "endgame" ("?" outside 0..PS_PHASES-1). */
const char *ps_phase_name(int phase);

/* Sampling options. The set gets exactly `early` positions of the early phase and the rest, count − early,
 * split evenly between the middle and late phases (the middle one takes the odd one). */
typedef struct {
    size_t count;       /* positions wanted, >= 1 */
    size_t early;       /* of them in the early phase, <= count */
    uint64_t seed;      /* everything drawn follows from it: the same options give the same set */
    int max_seeds;      /* > 0: only positions with at most this many seeds in the pits (the first plies of
                         * Kalah(6,4), 44-48 seeds, take 10 s to minutes each to solve); 0 = no cap */
    const char *net;    /* NULL, or a net file (nn/h5io.h) whose `az` agent joins the game agents */
    int max_sows_left;  /* > 0: only positions with at most this many sowings left before the rules' ply
                         * limit (the generic sampler, eval/gposset.h, for rules with one: the solve's horizon,
                         * so its cost); 0 = no cap. ps_sample refuses it. */
} ps_sample_opts;

/* Fills an empty set by sampling positions from two kinds of sources, drawn at random (seeded):
 *   - random openings ("opening:K"): K uniform random sowings from the start, K uniform in 1..6·pits;
 *     the position reached (if unfinished) is a candidate;
 *   - games ("game:A-vs-B", A plays South): 0..3 uniform random sowings, then agents A and B (eval/agent.h,
 *     drawn from random, greedy, ab:depth=2/4/6 (random among equal moves), mcts:sims=100 and, with a net,
 *     az:net=…,sims=100) play to the end; each phase still short of positions takes one of the game's
 *     positions in that phase, drawn uniformly (a few draws past duplicates).
 * Duplicates and finished positions are never added. Fails with PS_EFAIL and a message naming the phase
 * when 1000 + 200·count draws do not fill the quotas (a small board has too few positions in a phase),
 * PS_EINVAL for bad options or an agent that cannot be built (the net), PS_ENOMEM. */
int ps_sample(ps_set *s, const ps_sample_opts *o, char *err);

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
