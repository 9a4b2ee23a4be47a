/* vecenv.h — B Kalah boards stepped together (structure of arrays, SIMD), for random playouts and
 * batched observation/legal-mask extraction.
 *
 * Rules: every rule set kalah_rules accepts (docs/design.md §1.1: pits 1..7, capture opposite|always|none,
 * end either-empty|mover-empty, max_sows); every sowing gives exactly what kalah_sow gives for the same
 * position and move (tests/test_vecenv.c checks this). Layout idea: docs/design.md §3.1.
 *
 * Storage: one byte plane per board cell (lane i of plane c is cell c of board i), blocked by 64 boards (a
 * block's planes are 64 bytes each, one after the other, so a SIMD block of boards is one run of memory),
 * kept in the *mover's* orientation: planes 0..m-1 the mover's pits (a.. order), m the mover's store, m+1..2m the
 * opponent's pits, 2m+1 the opponent's store. Every sowing then runs over planes 0..2m with no per-lane
 * side logic; a turn change swaps the two halves in the lanes it concerns. Per board also: the absolute
 * side to move, and a 16-bit sowing counter (for max_sows; it wraps like kalah_pos.sows).
 *
 * Kernels: AVX-512 (F+BW+VL; 64 lanes per instruction), AVX2 (32) and a portable scalar loop, picked at
 * create time (VECENV_AUTO: the best the CPU supports) or forced. All kernels give bit-identical boards,
 * outputs and statistics for the same inputs and seed.
 *
 * Random moves (vecenv_step_random): board i belongs to group g = i / 8, which owns a xorshift64 state
 * (Marsaglia 2003, shifts 13, 7, 17; seeded with SplitMix64 of seed + g, never zero). Each random step
 * advances every group's state twice, giving words a then b; board 8g + j draws the 16-bit value
 * u = (j even ? a : b) >> (16 * (j / 2)) & 0xFFFF and plays its k-th non-empty pit (in a.. order) with
 * k = (u * count) >> 16, count = number of legal pits. Bias: each pit's probability is 1/count within
 * count/65536 (< 1.1e-4) relative — 65536 is not a multiple of 3, 5, 6 or 7.
 *
 * Auto-reset: when created with auto_reset, a board whose game ends is set back to the start position
 * (South to move, counter 0) in the same step, after the step's outputs and statistics were taken.
 * Without it, a finished board stays finished (pits swept, as kalah_sow leaves it) and is skipped by
 * later steps.
 *
 * Threads: a vecenv is not thread-safe; give each thread its own. Library functions never print.
 */
#ifndef SOWZERO_VECENV_H
#define SOWZERO_VECENV_H

#include <stdint.h>

#include "env/kalah.h"

#define VECENV_LANES 64  /* the batch must be a positive multiple of this */
#define VECENV_MAX_BATCH (1 << 20)

typedef enum {
    VECENV_AUTO = 0, /* the best kernel this CPU supports */
    VECENV_SCALAR,   /* portable C, one board at a time */
    VECENV_AVX2,     /* 32 boards per instruction */
    VECENV_AVX512    /* AVX-512 F+BW+VL, 64 boards per instruction */
} vecenv_kernel;

typedef struct vecenv vecenv;

/* Counts since create (or vecenv_stats_clear): sowings played, games ended, and how they ended
 * (by the final stores: South > North, North > South, equal). */
typedef struct {
    uint64_t sows;
    uint64_t games;
    uint64_t south_wins;
    uint64_t north_wins;
    uint64_t draws;
} vecenv_stats;

/* Optional per-board outputs of one step: each pointer is NULL (not wanted) or an array of B bytes,
 * owned by the caller, overwritten by the step. For a board that was already finished (no auto-reset)
 * and so did not move: move = 255, flags 0, stores unchanged. */
typedef struct {
    uint8_t *move;        /* relative pit sown, 0..m-1 (as kalah_sow's k) */
    uint8_t *extra_turn;  /* 1 as kalah_step.extra_turn: landed in the own store and the game goes on */
    uint8_t *captured;    /* as kalah_step.captured */
    uint8_t *ended;       /* 1 when this sowing ended the game */
    uint8_t *store_south; /* South's store after the sowing (after the final sweep; before an auto-reset) */
    uint8_t *store_north; /* North's store, likewise */
} vecenv_out;

/* ---- kernels ---- */

/* "auto", "scalar", "avx2", "avx512" → kernel; returns KALAH_OK or KALAH_EINVAL. */
int vecenv_kernel_parse(const char *s, vecenv_kernel *out);
/* The names above; "?" for an unknown value. */
const char *vecenv_kernel_name(vecenv_kernel k);
/* 1 when this CPU (and OS) can run kernel k (VECENV_AUTO and VECENV_SCALAR always can). */
int vecenv_kernel_supported(vecenv_kernel k);
/* The kernel VECENV_AUTO resolves to: AVX-512 if supported, else AVX2, else scalar. */
vecenv_kernel vecenv_kernel_best(void);

/* ---- lifetime ---- */

/* Creates B = batch boards under rules r, all at the start position, with kernel `kernel` (VECENV_AUTO
 * resolves here), auto-reset on when auto_reset != 0, random streams seeded from seed. *out receives the
 * new environment (free with vecenv_free). Errors: KALAH_EINVAL with a message in err (KALAH_ERRLEN bytes,
 * may be NULL) for invalid rules, a batch that is not a positive multiple of VECENV_LANES (or above
 * VECENV_MAX_BATCH), a kernel this CPU cannot run, or out of memory; *out is then NULL. */
int vecenv_create(const kalah_rules *r, int batch, vecenv_kernel kernel, int auto_reset, uint64_t seed,
                  vecenv **out, char *err);
void vecenv_free(vecenv *v); /* NULL is fine */

int vecenv_batch(const vecenv *v);
vecenv_kernel vecenv_kernel_used(const vecenv *v); /* never VECENV_AUTO */
const kalah_rules *vecenv_rules(const vecenv *v);  /* owned by v */

/* Re-seeds the random streams (same definition as at create). */
void vecenv_seed(vecenv *v, uint64_t seed);
/* Every board back to the start position; statistics and random state untouched. */
void vecenv_reset(vecenv *v);

/* ---- boards ---- */

/* Loads position p (absolute kalah_pos, side, over, sows) into board i. Errors (board unchanged):
 * KALAH_EINVAL when i is out of range, a cell beyond 2m+1 is non-zero or the cells total more than 255
 * seeds, or p is not finished but its mover has no seeds (kalah_pos_parse would have settled it);
 * KALAH_EOVER when p is finished and v auto-resets (such a board could never move). */
int vecenv_set(vecenv *v, int i, const kalah_pos *p);

/* Board i as an absolute kalah_pos (cells in index order, side, over, sows), as kalah_sow would have left
 * it; i must be in 0..B-1. */
void vecenv_get(const vecenv *v, int i, kalah_pos *out);

/* Legal-move masks: out[i] = kalah_legal of board i (bit k = relative pit k non-empty; 0 when finished).
 * out has B bytes. */
void vecenv_legal(const vecenv *v, uint8_t *out);

/* Observations: out[i * d + j] = kalah_encode of board i, element j, d = kalah_encode_dim (2m+2); out
 * has B * d floats, row-major (board-major), the same floats kalah_encode writes ("kalah-mover-v1"). */
void vecenv_observe(const vecenv *v, float *out);

/* ---- stepping ---- */

/* Sows moves[i] (relative pit 0..m-1 of board i's mover) on every unfinished board; finished boards
 * ignore their entry. out may be NULL. Returns KALAH_OK, or KALAH_EILLEGAL (nothing changed, *bad set to
 * the first offending board when bad is non-NULL) if an unfinished board's move is out of range or
 * names an empty pit. */
int vecenv_step(vecenv *v, const uint8_t *moves, const vecenv_out *out, int *bad);

/* Every unfinished board sows a uniformly random legal pit (see the header comment for the stream).
 * out may be NULL. */
void vecenv_step_random(vecenv *v, const vecenv_out *out);

/* `steps` random steps without per-board outputs: the playout fast path (the same boards, random state
 * and statistics as `steps` calls of vecenv_step_random). steps >= 0. */
void vecenv_run_random(vecenv *v, long steps);

void vecenv_stats_get(const vecenv *v, vecenv_stats *out);
void vecenv_stats_clear(vecenv *v);

/* ---- Gymnasium steps (the Python VecEnv's engine) ----
 *
 * One fused pass per block of boards: restart, sow, and write every output row while the block is in
 * L1, so that a step costs the sowing plus the bytes written. Gymnasium's NEXT_STEP autoreset: a board
 * whose game ended stays finished (its terminal position visible) until the next step, which restarts it
 * at the start position instead of moving it. Only for a vecenv created without auto_reset.
 *
 * Outputs: row-major, one row per board 0..B-1 (B = vecenv_batch, padding boards included); each pointer
 * NULL (not wanted) or owned by the caller, overwritten by the call. Boards n..B-1 (padding) stand still
 * and get ended 0, rewards 0, sample 0 and the rows of their position. */
typedef struct {
    float *obs;       /* B x d floats (d = 2m+2): kalah_encode of each board after the step ("kalah-mover-v1") */
    uint8_t *mask;    /* B rows of mask_stride bytes: byte k < m is 1 where relative pit k of the board's mover
                       * is legal (all 0: finished), bytes m.. of a row are 0 */
    int8_t *to_play;  /* B: the side to move after the step, 0 South, 1 North (an extra turn keeps it); one
                       * byte per board: a fourth of the int32 row's bytes, one store per 64 boards */
    float *rewards;   /* B x 2 (South, North): the final result (+1 win, -1 loss, 0 draw; kalah_winner) on
                       * the step that ends a game, else 0 */
    uint8_t *ended;   /* B: 1 where the game ended with this step */
    uint8_t *sample;  /* B: a uniformly random legal move (relative pit) for the next step, 0 where none,
                       * drawn with the stepper's pick rule from its random streams (header comment); the
                       * streams advance once per call that asks for it */
    int kept;         /* nonzero: rewards and ended (both non-NULL) still hold the rows this vecenv's previous
                       * gym call wrote there, or all zeros. A reward is nonzero only on a board whose ended
                       * is 1, so the call then rewrites only the rewards of the boards that ended before or
                       * end now (~2.8 of 64 at ~1 game ended per 45 steps; AVX-512: one 8-byte store each,
                       * the first 6 of a block without a branch): the same rows, a fraction of the work */
    uint8_t *obs8;    /* B x d bytes: obs's elements unscaled, the seed counts themselves (each <= 255: a
                       * board holds at most 255 seeds). kalah_encode's floats are obs8[k] * (1.0f / seeds)
                       * in float arithmetic, bit for bit (one rounding, as kalah_encode's). 4 times fewer
                       * bytes than obs; obs and obs8 may both be asked for */
    size_t mask_stride; /* bytes from one board's mask row to the next: 0 means m (rows packed), else >= m.
                         * Every kernel writes every stride: the SIMD ones write packed rows from their
                         * registers, another stride after the kernel in a portable pass */
} vecenv_gym_out;

/* Converts and checks actions for boards 0..n-1 (relative pits, any int64): moves[i] = actions[i] for
 * every board. Unfinished boards must name a non-empty pit of their mover; finished boards (they restart
 * at the next vecenv_gym_step) accept anything. moves has B bytes (entries n..B-1 are set to 0). Returns
 * KALAH_OK, or KALAH_EILLEGAL with *bad = the first offending board (moves then undefined); KALAH_EINVAL
 * when n is not in 1..B. SIMD on the AVX-512 kernel. */
int vecenv_gym_moves(const vecenv *v, const int64_t *actions, int n, uint8_t *moves, int *bad);

/* vecenv_gym_moves for actions given as bytes (uint8: what the stepper's own sample is, and what Python's
 * sample_actions hands out), read as they are, without widening them first; the same checks, results and
 * errors. */
int vecenv_gym_moves8(const vecenv *v, const uint8_t *actions, int n, uint8_t *moves, int *bad);

/* One Gymnasium step of boards 0..n-1: a finished board restarts (South to move, sowing counter 0); every
 * other sows moves[i], which must be legal (vecenv_gym_moves or vecenv_gym_moves8 checked them: this entry does not). Then
 * writes *out; out->sample may be moves itself (each board's move is read before its sample is written),
 * which makes a random playout loop. Statistics count the sowings and games ended (restarts are not sowings). Returns KALAH_OK,
 * or KALAH_EINVAL (nothing done) when v auto-resets, n is not in 1..B or out->mask_stride is neither 0 nor
 * at least m. */
int vecenv_gym_step(vecenv *v, const uint8_t *moves, int n, const vecenv_gym_out *out);

/* The outputs of the boards as they are, without a step (ended 0, rewards 0; sample drawn when asked):
 * for a reset, or to draw a sample alone. Same errors as vecenv_gym_step. */
int vecenv_gym_observe(vecenv *v, int n, const vecenv_gym_out *out);

#endif
