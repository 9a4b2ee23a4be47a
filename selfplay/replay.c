/* replay.c — the windowed, mutex-guarded ring of self-play samples and its checkpoint blob (replay.h). */
#include "selfplay/replay.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/net.h"
#include "selfplay/mcts_status.h"

_Static_assert(REPLAY_MAX_VALUE == NN_MAX_VALUE, "a buffer must hold the targets of any value head");

#define MAGIC "SZRB"
#define VERSION 2u
#define ORDER 0x01020304u
/* Version 2's header; version 1 lacks the u32 n_value after pits. */
#define HEADER (4 + 4 + 4 + 4 + 4 + 4 + 8 + 8 + 8)
#define HEADER_V1 (HEADER - 4)

struct replay_buffer {
    pthread_mutex_t mu;
    int dim, pits, n_value;
    size_t window, count, head;  /* head: slot of the next write; the oldest is (head − count) mod window */
    uint64_t total;
    float *x, *pi, *z, *margin;
    uint8_t *legal;
};

replay_buffer *replay_create(int dim, int pits, int n_value, size_t window, char *err)
{
    if (dim < 1 || pits < 1 || pits > 64 || n_value < 1 || n_value > REPLAY_MAX_VALUE || window < 1 ||
        window > ((size_t)1 << 34)) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "replay: %s",
                     dim < 1                            ? "dim must be >= 1"
                     : pits < 1 || pits > 64            ? "pits must be in 1..64"
                     : n_value < 1 || n_value > REPLAY_MAX_VALUE ? "n_value must be in 1..8"
                                                        : "window must be in 1..2^34");
        return NULL;
    }
    replay_buffer *rb = calloc(1, sizeof *rb);
    if (rb) {
        rb->dim = dim;
        rb->pits = pits;
        rb->n_value = n_value;
        rb->window = window;
        rb->x = malloc(window * (size_t)dim * sizeof(float));
        rb->pi = malloc(window * (size_t)pits * sizeof(float));
        rb->legal = malloc(window * (size_t)pits);
        rb->z = malloc(window * (size_t)n_value * sizeof(float));
        rb->margin = malloc(window * sizeof(float));
    }
    if (!rb || !rb->x || !rb->pi || !rb->legal || !rb->z || !rb->margin) {
        if (rb) {
            free(rb->x), free(rb->pi), free(rb->legal), free(rb->z), free(rb->margin);
            free(rb);
        }
        if (err)
            snprintf(err, MCTS_ERRLEN, "replay: out of memory for a window of %zu samples", window);
        return NULL;
    }
    pthread_mutex_init(&rb->mu, NULL);
    return rb;
}

void replay_free(replay_buffer *rb)
{
    if (!rb)
        return;
    pthread_mutex_destroy(&rb->mu);
    free(rb->x), free(rb->pi), free(rb->legal), free(rb->z), free(rb->margin);
    free(rb);
}

int replay_dim(const replay_buffer *rb) { return rb->dim; }
int replay_pits(const replay_buffer *rb) { return rb->pits; }
int replay_n_value(const replay_buffer *rb) { return rb->n_value; }
size_t replay_window(const replay_buffer *rb) { return rb->window; }

size_t replay_size(replay_buffer *rb)
{
    pthread_mutex_lock(&rb->mu);
    size_t n = rb->count;
    pthread_mutex_unlock(&rb->mu);
    return n;
}

uint64_t replay_total(replay_buffer *rb)
{
    pthread_mutex_lock(&rb->mu);
    uint64_t n = rb->total;
    pthread_mutex_unlock(&rb->mu);
    return n;
}

/* Writes one sample into slot `at` (no locking). */
static void put(replay_buffer *rb, size_t at, const float *x, const uint8_t *legal, const float *pi,
                const float *z, float margin)
{
    memcpy(rb->x + at * rb->dim, x, (size_t)rb->dim * sizeof(float));
    memcpy(rb->legal + at * rb->pits, legal, (size_t)rb->pits);
    memcpy(rb->pi + at * rb->pits, pi, (size_t)rb->pits * sizeof(float));
    memcpy(rb->z + at * rb->n_value, z, (size_t)rb->n_value * sizeof(float));
    rb->margin[at] = margin;
}

static void push(replay_buffer *rb, const float *x, const uint8_t *legal, const float *pi, const float *z,
                 float margin)
{
    put(rb, rb->head, x, legal, pi, z, margin);
    rb->head = (rb->head + 1) % rb->window;
    if (rb->count < rb->window)
        rb->count++;
    rb->total++;
}

int replay_add(replay_buffer *rb, const replay_sample *s, int n)
{
    for (int i = 0; i < n; i++)
        if (!s[i].x || !s[i].legal || !s[i].pi || !s[i].z)
            return MCTS_EINVAL;
    pthread_mutex_lock(&rb->mu);
    for (int i = 0; i < n; i++)
        push(rb, s[i].x, s[i].legal, s[i].pi, s[i].z, s[i].margin);
    pthread_mutex_unlock(&rb->mu);
    return MCTS_OK;
}

/* Slot of the i-th oldest sample held. */
static size_t slot(const replay_buffer *rb, size_t i) { return (rb->head + rb->window - rb->count + i) % rb->window; }

int replay_drain(replay_buffer *dst, replay_buffer *src)
{
    if (dst == src || dst->dim != src->dim || dst->pits != src->pits || dst->n_value != src->n_value)
        return MCTS_EINVAL;
    pthread_mutex_lock(&src->mu);
    pthread_mutex_lock(&dst->mu);
    for (size_t i = 0; i < src->count; i++) {
        size_t at = slot(src, i);
        push(dst, src->x + at * src->dim, src->legal + at * src->pits, src->pi + at * src->pits,
             src->z + at * src->n_value, src->margin[at]);
    }
    src->count = 0;
    pthread_mutex_unlock(&dst->mu);
    pthread_mutex_unlock(&src->mu);
    return MCTS_OK;
}

static void get(const replay_buffer *rb, size_t at, size_t row, float *x, uint8_t *legal, float *pi, float *z,
                float *margin)
{
    if (x)
        memcpy(x + row * rb->dim, rb->x + at * rb->dim, (size_t)rb->dim * sizeof(float));
    if (legal)
        memcpy(legal + row * rb->pits, rb->legal + at * rb->pits, (size_t)rb->pits);
    if (pi)
        memcpy(pi + row * rb->pits, rb->pi + at * rb->pits, (size_t)rb->pits * sizeof(float));
    if (z)
        memcpy(z + row * rb->n_value, rb->z + at * rb->n_value, (size_t)rb->n_value * sizeof(float));
    if (margin)
        margin[row] = rb->margin[at];
}

int replay_sample_batch(replay_buffer *rb, mcts_rng *rng, int batch, float *x, uint8_t *legal, float *pi,
                        float *z, float *margin)
{
    if (batch < 1 || !rng)
        return MCTS_EINVAL;
    pthread_mutex_lock(&rb->mu);
    if (rb->count == 0) {
        pthread_mutex_unlock(&rb->mu);
        return MCTS_EINVAL;
    }
    for (int b = 0; b < batch; b++) {
        size_t i = rb->count <= UINT32_MAX ? mcts_rng_below(rng, (uint32_t)rb->count)
                                           : (size_t)(mcts_rng_next(rng) % rb->count);
        get(rb, slot(rb, i), (size_t)b, x, legal, pi, z, margin);
    }
    pthread_mutex_unlock(&rb->mu);
    return MCTS_OK;
}

int replay_get(replay_buffer *rb, size_t i, float *x, uint8_t *legal, float *pi, float *z, float *margin)
{
    pthread_mutex_lock(&rb->mu);
    int ok = i < rb->count;
    if (ok)
        get(rb, slot(rb, i), 0, x, legal, pi, z, margin);
    pthread_mutex_unlock(&rb->mu);
    return ok ? MCTS_OK : MCTS_EINVAL;
}

void replay_clear(replay_buffer *rb)
{
    pthread_mutex_lock(&rb->mu);
    rb->count = rb->head = 0;
    pthread_mutex_unlock(&rb->mu);
}

/* ---- checkpoint blob ---- */

static size_t record_bytes(int dim, int pits, int n_value)
{
    return (size_t)dim * 4 + (size_t)pits + (size_t)pits * 4 + (size_t)n_value * 4 + 4;
}

int replay_save(replay_buffer *rb, void **data, size_t *n)
{
    pthread_mutex_lock(&rb->mu);
    size_t rec = record_bytes(rb->dim, rb->pits, rb->n_value), len = HEADER + rb->count * rec;
    uint8_t *p = malloc(len), *q = p;
    if (!p) {
        pthread_mutex_unlock(&rb->mu);
        return MCTS_ENOMEM;
    }
    uint32_t u32[5] = {VERSION, ORDER, (uint32_t)rb->dim, (uint32_t)rb->pits, (uint32_t)rb->n_value};
    uint64_t u64[3] = {rb->window, rb->count, rb->total};
    memcpy(q, MAGIC, 4), q += 4;
    memcpy(q, u32, sizeof u32), q += sizeof u32;
    memcpy(q, u64, sizeof u64), q += sizeof u64;
    for (size_t i = 0; i < rb->count; i++) {
        size_t at = slot(rb, i);
        memcpy(q, rb->x + at * rb->dim, (size_t)rb->dim * 4), q += (size_t)rb->dim * 4;
        memcpy(q, rb->legal + at * rb->pits, (size_t)rb->pits), q += rb->pits;
        memcpy(q, rb->pi + at * rb->pits, (size_t)rb->pits * 4), q += (size_t)rb->pits * 4;
        memcpy(q, rb->z + at * rb->n_value, (size_t)rb->n_value * 4), q += (size_t)rb->n_value * 4;
        memcpy(q, &rb->margin[at], 4), q += 4;
    }
    pthread_mutex_unlock(&rb->mu);
    *data = p;
    *n = len;
    return MCTS_OK;
}

#define RBAD(...) (err ? snprintf(err, MCTS_ERRLEN, __VA_ARGS__) : 0, MCTS_EINVAL)

int replay_restore(replay_buffer *rb, const void *data, size_t n, char *err)
{
    const uint8_t *p = data;
    if (!p || n < HEADER_V1 || memcmp(p, MAGIC, 4))
        return RBAD("replay blob: not a replay buffer (bad magic or shorter than the header)");
    uint32_t ver, u32[4] = {0, 0, 0, 1}; /* order, dim, pits, n_value (1 in a version-1 blob) */
    uint64_t u64[3];
    memcpy(&ver, p + 4, 4);
    if (ver != VERSION && ver != 1)
        return RBAD("replay blob: version %u, this build reads 1 and %u", ver, VERSION);
    size_t header = ver == 1 ? HEADER_V1 : HEADER;
    if (n < header)
        return RBAD("replay blob: shorter than its header");
    memcpy(u32, p + 8, (ver == 1 ? 3 : 4) * sizeof(uint32_t));
    memcpy(u64, p + header - sizeof u64, sizeof u64);
    if (u32[0] != ORDER)
        return RBAD("replay blob: written with a different byte order");
    if ((int)u32[1] != rb->dim || (int)u32[2] != rb->pits || (int)u32[3] != rb->n_value)
        return RBAD("replay blob: dim %u pits %u n_value %u, the buffer has dim %d pits %d n_value %d", u32[1],
                    u32[2], u32[3], rb->dim, rb->pits, rb->n_value);
    size_t rec = record_bytes(rb->dim, rb->pits, rb->n_value);
    uint64_t count = u64[1];
    if (count > u64[0] || count > u64[2] || count > (n - header) / rec || n != header + count * rec)
        return RBAD("replay blob: %llu samples do not fit its %zu bytes (or its window)", (unsigned long long)count, n);
    pthread_mutex_lock(&rb->mu);
    rb->count = rb->head = 0;
    size_t skip = count > rb->window ? (size_t)count - rb->window : 0;
    const uint8_t *q = p + header + skip * rec;
    for (size_t i = skip; i < count; i++) {  /* memcpy: the blob's fields need not be aligned */
        size_t at = rb->head;
        memcpy(rb->x + at * rb->dim, q, (size_t)rb->dim * 4), q += (size_t)rb->dim * 4;
        memcpy(rb->legal + at * rb->pits, q, (size_t)rb->pits), q += rb->pits;
        memcpy(rb->pi + at * rb->pits, q, (size_t)rb->pits * 4), q += (size_t)rb->pits * 4;
        memcpy(rb->z + at * rb->n_value, q, (size_t)rb->n_value * 4), q += (size_t)rb->n_value * 4;
        memcpy(&rb->margin[at], q, 4), q += 4;
        rb->head = (rb->head + 1) % rb->window;
        rb->count++;
    }
    rb->total = u64[2];
    pthread_mutex_unlock(&rb->mu);
    return MCTS_OK;
}
