/* replay.h — the replay buffer of self-play samples (docs/design.md §3.3), thread-safe, with a window.
 *
 * A sample is one self-play decision:
 *   x[dim]       kalah_encode of the position (mover's view, dim = kalah_encode_dim = 2m + 2)
 *   legal[pits]  1 where the mover's relative pit is a legal move, else 0
 *   pi[pits]     policy target from the root visit counts (mcts_policy; 0 on illegal pits, sums to 1),
 *                or all zeros: a value-only sample (playout cap randomization, selfplay.full_sims_prob).
 *                The sum of pi is the sample's policy weight (1 or 0): the loss's policy term of a row is
 *                −Σ pi log p, which with pi = 0 is 0 with a zero gradient (nn/net.h), so the layout, the
 *                blob and its version are unchanged and older checkpoints resume as they were.
 *   z[n_value]   final result(s): for a two-player game (n_value = 1) the result for the player to move at
 *                that position, +1 win, 0 draw, −1 loss; for a game of more players one value per player
 *                in the order the caller's value head uses (the net's n_value, nn/net.h)
 *   margin       final store margin for that player divided by the total seeds 2·pits·seeds, in [−1, 1]
 *                (REPLAY_MARGIN_SCALE documents the scaling; the margin head's target)
 * The buffer keeps the last `window` samples added (a ring: the oldest is overwritten). Sampling draws
 * uniformly with replacement from what the buffer holds. All functions may be called from any thread
 * (one mutex); a sampled batch is a consistent snapshot.
 *
 * Checkpoints: replay_save serialises contents + position into a byte blob (the train loop stores it with
 * nn_ckpt_put_blob); replay_restore puts it back, so a resumed run samples from exactly the same buffer.
 * Blob layout (little-endian as on the machines we run; native byte order is written and checked by a
 * marker): "SZRB" magic, u32 version (2), u32 byte-order marker 0x01020304, u32 dim, u32 pits,
 * u32 n_value, u64 window, u64 count (samples held), u64 total_added, then `count` records oldest first,
 * each dim floats x, pits bytes legal, pits floats pi, n_value floats z, float margin.
 * Version 1 (written before vector values) is the same without the n_value field, with one float z per
 * record; replay_restore still reads it into a buffer of n_value = 1, so older checkpoints resume.
 */
#ifndef SOWZERO_SELFPLAY_REPLAY_H
#define SOWZERO_SELFPLAY_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include "env/kalah.h"
#include "selfplay/rng.h"

/* margin target = final margin for the mover / (2 · pits · seeds) */
#define REPLAY_MARGIN_SCALE "margin / (2 * pits * seeds)"

typedef struct replay_buffer replay_buffer;

/* One sample, in the caller's memory (see the top). */
typedef struct {
    const float *x;        /* dim floats */
    const uint8_t *legal;  /* pits bytes */
    const float *pi;       /* pits floats */
    const float *z;        /* n_value floats */
    float margin;
} replay_sample;

#define REPLAY_MAX_VALUE 8 /* = NN_MAX_VALUE (nn/net.h) */

/* A buffer holding up to `window` (>= 1) samples of dim floats, pits moves and n_value value targets
 * (dim >= 1, 1 <= pits <= 64, 1 <= n_value <= REPLAY_MAX_VALUE). NULL on bad arguments / out of memory
 * (message in err, MCTS_ERRLEN bytes, may be NULL). */
replay_buffer *replay_create(int dim, int pits, int n_value, size_t window, char *err);
void replay_free(replay_buffer *rb);

int replay_dim(const replay_buffer *rb);
int replay_pits(const replay_buffer *rb);
int replay_n_value(const replay_buffer *rb);
size_t replay_window(const replay_buffer *rb);
/* Samples held now (<= window). */
size_t replay_size(replay_buffer *rb);
/* Samples ever added (the position in the stream; restored by replay_restore). */
uint64_t replay_total(replay_buffer *rb);

/* Appends n samples atomically (oldest dropped beyond the window). 0, or MCTS_EINVAL for a NULL field
 * (x, legal, pi, z). */
int replay_add(replay_buffer *rb, const replay_sample *s, int n);

/* Appends every sample src holds to dst, oldest first (as replay_add would have, one at a time), and
 * empties src (its total_added is kept): how samples played into a buffer of their own join the training
 * buffer at a chosen moment. Locks src, then dst (never call it with the two the other way round at once).
 * MCTS_OK, or MCTS_EINVAL when dst is src or their dim, pits or n_value differ. */
int replay_drain(replay_buffer *dst, replay_buffer *src);

/* Draws `batch` samples uniformly with replacement (indices from rng) into row-major arrays:
 * x batch × dim, legal batch × pits, pi batch × pits, z batch × n_value, margin batch (legal and margin
 * may be NULL).
 * The layout is that of nn_batch (nn/net.h). MCTS_OK, or MCTS_EINVAL when the buffer is empty / batch < 1. */
int replay_sample_batch(replay_buffer *rb, mcts_rng *rng, int batch, float *x, uint8_t *legal, float *pi,
                        float *z, float *margin);

/* Copies sample i (0 = oldest held, < replay_size) into the caller's arrays (any may be NULL; z receives
 * n_value floats). MCTS_OK or MCTS_EINVAL. */
int replay_get(replay_buffer *rb, size_t i, float *x, uint8_t *legal, float *pi, float *z, float *margin);

/* Removes every sample (total_added is kept). */
void replay_clear(replay_buffer *rb);

/* Serialises contents and position into a new malloc'd blob (*data, caller frees; *n bytes). MCTS_OK or
 * MCTS_ENOMEM. */
int replay_save(replay_buffer *rb, void **data, size_t *n);

/* Replaces contents and position with a blob from replay_save. The blob's dim, pits and n_value must match
 * the buffer's (a version-1 blob has n_value 1); its window may differ (the newest min(count, window) samples are kept). MCTS_OK, or
 * MCTS_EINVAL with a message (bad magic/version/byte order, wrong sizes, truncated) — the buffer is then
 * unchanged. */
int replay_restore(replay_buffer *rb, const void *data, size_t n, char *err);

#endif
