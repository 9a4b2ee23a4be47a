/* mpi_wire.c — message layouts of distributed self-play (contract in mpi_wire.h). */
#include "train/mpi_wire.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selfplay/mcts_status.h"

#define MAGIC_SAMPLES 0x4D535A53u /* "SZSM" read as little-endian u32 */
#define MAGIC_NET 0x544E5A53u     /* "SZNT" */
#define VERSION 1u
#define ORDER 0x01020304u

static void put32(unsigned char **p, uint32_t v)
{
    memcpy(*p, &v, 4);
    *p += 4;
}

static uint32_t get32(const unsigned char **p)
{
    uint32_t v;
    memcpy(&v, *p, 4);
    *p += 4;
    return v;
}

static void put_head(unsigned char **p, uint32_t magic, int64_t net_iteration)
{
    put32(p, magic);
    put32(p, VERSION);
    put32(p, ORDER);
    put32(p, 0);
    memcpy(*p, &net_iteration, 8);
    *p += 8;
}

/* The common header; MPIW_OK with *net_iteration, else err says what is wrong. */
static int get_head(const unsigned char **p, size_t len, size_t min, uint32_t magic, const char *what,
                    int64_t *net_iteration, char *err)
{
    if (len < min) {
        snprintf(err, MPIW_ERRLEN, "%s message of %zu bytes is shorter than its %zu-byte header", what, len, min);
        return MPIW_EINVAL;
    }
    uint32_t m = get32(p), v = get32(p), o = get32(p);
    (void)get32(p);
    if (m != magic || v != VERSION || o != ORDER) {
        snprintf(err, MPIW_ERRLEN, "not a version-%u %s message of this byte order (magic %08" PRIx32
                 ", version %" PRIu32 ", marker %08" PRIx32 ")", VERSION, what, m, v, o);
        return MPIW_EINVAL;
    }
    memcpy(net_iteration, *p, 8);
    *p += 8;
    return MPIW_OK;
}

size_t mpiw_sample_bytes(int dim, int pits, int n_value)
{
    return (size_t)dim * 4 + (size_t)pits + (size_t)pits * 4 + (size_t)n_value * 4 + 4;
}

size_t mpiw_samples_size(int dim, int pits, int n_value, int n)
{
    return MPIW_SAMPLES_HEAD + (size_t)n * mpiw_sample_bytes(dim, pits, n_value);
}

int mpiw_pack_samples(replay_buffer *rb, size_t from, int n, int games, int64_t net_iteration, void *buf,
                      size_t cap, size_t *len, char *err)
{
    int dim = replay_dim(rb), pits = replay_pits(rb), nv = replay_n_value(rb);
    size_t size = mpiw_samples_size(dim, pits, nv, n);
    if (n < 0 || games < 0 || from + (size_t)n > replay_size(rb) || size > cap) {
        snprintf(err, MPIW_ERRLEN, "cannot pack samples %zu..%zu of %zu (%zu bytes into %zu)", from,
                 from + (size_t)(n > 0 ? n : 0), replay_size(rb), size, cap);
        return MPIW_EINVAL;
    }
    unsigned char *p = buf;
    put_head(&p, MAGIC_SAMPLES, net_iteration);
    put32(&p, (uint32_t)dim);
    put32(&p, (uint32_t)pits);
    put32(&p, (uint32_t)nv);
    put32(&p, (uint32_t)n);
    put32(&p, (uint32_t)games);
    put32(&p, 0);
    float x[dim], pi[pits], z[REPLAY_MAX_VALUE], margin;
    uint8_t legal[pits];
    for (int i = 0; i < n; i++) {
        replay_get(rb, from + (size_t)i, x, legal, pi, z, &margin);
        memcpy(p, x, (size_t)dim * 4);
        p += (size_t)dim * 4;
        memcpy(p, legal, (size_t)pits);
        p += pits;
        memcpy(p, pi, (size_t)pits * 4);
        p += (size_t)pits * 4;
        memcpy(p, z, (size_t)nv * 4);
        p += (size_t)nv * 4;
        memcpy(p, &margin, 4);
        p += 4;
    }
    *len = size;
    return MPIW_OK;
}

int mpiw_read_samples_head(const void *buf, size_t len, mpiw_samples_head *h, char *err)
{
    const unsigned char *p = buf;
    if (get_head(&p, len, MPIW_SAMPLES_HEAD, MAGIC_SAMPLES, "samples", &h->net_iteration, err) != MPIW_OK)
        return MPIW_EINVAL;
    uint32_t f[5];
    for (int i = 0; i < 5; i++)
        f[i] = get32(&p);
    if (f[0] < 1 || f[0] > 65536 || f[1] < 1 || f[1] > 64 || f[2] < 1 || f[2] > REPLAY_MAX_VALUE ||
        f[3] > 100000000u || f[4] > 100000000u) {
        snprintf(err, MPIW_ERRLEN, "samples message header out of range (dim %" PRIu32 ", pits %" PRIu32
                 ", n_value %" PRIu32 ", %" PRIu32 " samples, %" PRIu32 " games)", f[0], f[1], f[2], f[3], f[4]);
        return MPIW_EINVAL;
    }
    *h = (mpiw_samples_head){.net_iteration = h->net_iteration, .dim = (int)f[0], .pits = (int)f[1],
                             .n_value = (int)f[2], .n = (int)f[3], .games = (int)f[4]};
    size_t want = mpiw_samples_size(h->dim, h->pits, h->n_value, h->n);
    if (len != want) {
        snprintf(err, MPIW_ERRLEN, "samples message of %zu bytes, its header says %zu", len, want);
        return MPIW_EINVAL;
    }
    return MPIW_OK;
}

static int finite_all(const float *a, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return 0;
    return 1;
}

int mpiw_unpack_samples(const void *buf, size_t len, replay_buffer *rb, char *err)
{
    mpiw_samples_head h;
    if (mpiw_read_samples_head(buf, len, &h, err) != MPIW_OK)
        return MPIW_EINVAL;
    int dim = replay_dim(rb), pits = replay_pits(rb), nv = replay_n_value(rb);
    if (h.dim != dim || h.pits != pits || h.n_value != nv) {
        snprintf(err, MPIW_ERRLEN, "samples of dim %d, %d pits, %d values; the learner's buffer has %d, %d, %d "
                 "(do all ranks read the same config?)", h.dim, h.pits, h.n_value, dim, pits, nv);
        return MPIW_EINVAL;
    }
    /* Decode and check everything into one scratch block, then add it in one call: a bad message adds
     * nothing, and the buffer's mutex is taken once per message, not per sample. */
    size_t rec = mpiw_sample_bytes(dim, pits, nv), n = (size_t)h.n;
    size_t nf = (size_t)dim + (size_t)pits + (size_t)nv;
    float *f = malloc(n * nf * sizeof *f + 1);
    uint8_t *legal = malloc(n * (size_t)pits + 1);
    replay_sample *s = malloc(n * sizeof *s + 1);
    int rc = f && legal && s ? MPIW_OK : MPIW_EINVAL;
    if (rc != MPIW_OK)
        snprintf(err, MPIW_ERRLEN, "out of memory for a message of %d samples", h.n);
    const unsigned char *p = (const unsigned char *)buf + MPIW_SAMPLES_HEAD;
    for (size_t i = 0; i < n && rc == MPIW_OK; i++, p += rec) {
        float *x = f + i * nf, *pi = x + dim, *z = pi + pits;
        uint8_t *l = legal + i * (size_t)pits;
        float margin;
        memcpy(x, p, (size_t)dim * 4);
        memcpy(l, p + (size_t)dim * 4, (size_t)pits);
        memcpy(pi, p + (size_t)dim * 4 + pits, (size_t)pits * 4);
        memcpy(z, p + (size_t)dim * 4 + pits + (size_t)pits * 4, (size_t)nv * 4);
        memcpy(&margin, p + (size_t)dim * 4 + pits + (size_t)pits * 4 + (size_t)nv * 4, 4);
        int ok = finite_all(x, dim) && finite_all(pi, pits) && finite_all(z, nv) && isfinite(margin);
        for (int k = 0; k < pits && ok; k++)
            ok = l[k] <= 1 && pi[k] >= 0;
        if (!ok) {
            snprintf(err, MPIW_ERRLEN, "sample %zu of %d holds a value out of range (a legal flag not 0/1, a "
                     "negative or non-finite number)", i + 1, h.n);
            rc = MPIW_EINVAL;
        }
        s[i] = (replay_sample){.x = x, .legal = l, .pi = pi, .z = z, .margin = margin};
    }
    if (rc == MPIW_OK && n > 0 && replay_add(rb, s, h.n) != MCTS_OK) {
        snprintf(err, MPIW_ERRLEN, "cannot add %d samples to the replay buffer", h.n);
        rc = MPIW_EINVAL;
    }
    free(f);
    free(legal);
    free(s);
    return rc;
}

size_t mpiw_net_size(size_t n_params)
{
    return MPIW_NET_HEAD + n_params * 4;
}

void mpiw_pack_net(const nn_net *net, int64_t net_iteration, void *buf)
{
    unsigned char *p = buf;
    uint64_t np = nn_param_count(net);
    put_head(&p, MAGIC_NET, net_iteration);
    memcpy(p, &np, 8);
    memcpy(p + 8, nn_params_const(net), (size_t)np * 4);
}

int mpiw_unpack_net(const void *buf, size_t len, nn_net *net, int64_t *net_iteration, char *err)
{
    const unsigned char *p = buf;
    int64_t it;
    if (get_head(&p, len, MPIW_NET_HEAD, MAGIC_NET, "net", &it, err) != MPIW_OK)
        return MPIW_EINVAL;
    uint64_t np;
    memcpy(&np, p, 8);
    size_t want = nn_param_count(net);
    if (np != want || len != mpiw_net_size(want)) {
        snprintf(err, MPIW_ERRLEN, "net message of %" PRIu64 " parameters (%zu bytes); this rank's [net] has %zu "
                 "(do all ranks read the same config?)", np, len, want);
        return MPIW_EINVAL;
    }
    memcpy(nn_params(net), p + 8, want * 4);
    *net_iteration = it;
    return MPIW_OK;
}
