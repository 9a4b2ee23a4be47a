/* mpi_wire.h — the byte layout of the messages between the MPI learner and its self-play workers
 * (train/mpi_train.h). No MPI here: packing and checking are plain functions (tests/test_mpi_wire.c).
 *
 * Both kinds of message start with the same 24-byte header, all fields in the sender's byte order, which
 * the marker checks (a cluster of mixed byte orders is refused, not misread):
 *   u32 magic ("SZSM" samples / "SZNT" net), u32 version (1), u32 byte-order marker 0x01020304, u32 pad 0,
 *   i64 net_iteration (the iteration count of the learner's net that made the samples / that is sent)
 * Samples: then u32 dim, u32 pits, u32 n_value, u32 n (samples), u32 games (games finished: a worker puts
 *   its whole round's count on the round's last message, 0 on the others), u32 pad 0, and n records, each the
 *   replay layout of selfplay/replay.h: dim f32 x, pits u8 legal, pits f32 pi, n_value f32 z, f32 margin.
 *   Kalah 6x4: 14·4 + 6 + 6·4 + 4 + 4 = 94 bytes a sample, 48 bytes a message.
 * Net: then u64 n_params and n_params f32 in the nn_params layout (nn/net.h); both sides build the net
 *   from the same [net] config, so the count is the check that they did.
 */
#ifndef SOWZERO_TRAIN_MPI_WIRE_H
#define SOWZERO_TRAIN_MPI_WIRE_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

#include "nn/net.h"
#include "selfplay/replay.h"

#define MPIW_ERRLEN SZ_ERRLEN
#define MPIW_SAMPLES_HEAD 48
#define MPIW_NET_HEAD 32

enum { MPIW_OK = SZ_OK, MPIW_EINVAL = SZ_EINVAL };

/* What a samples message's header says. */
typedef struct {
    int64_t net_iteration;
    int dim, pits, n_value, n, games;
} mpiw_samples_head;

/* Bytes of one sample record (see the top). */
size_t mpiw_sample_bytes(int dim, int pits, int n_value);

/* Bytes of a samples message of n samples. */
size_t mpiw_samples_size(int dim, int pits, int n_value, int n);

/* Packs samples [from, from + n) of rb (replay_get order: 0 = oldest held) into buf (cap bytes, at least
 * mpiw_samples_size) as one message saying `games` games and net_iteration. *len gets its size. MPIW_OK, or
 * MPIW_EINVAL with err (MPIW_ERRLEN bytes) when the range is outside rb or buf is too small. */
int mpiw_pack_samples(replay_buffer *rb, size_t from, int n, int games, int64_t net_iteration, void *buf,
                      size_t cap, size_t *len, char *err);

/* Reads and checks the header of the samples message buf (len bytes as received): magic, version, byte
 * order, and that len is exactly its size. MPIW_OK or MPIW_EINVAL with err. */
int mpiw_read_samples_head(const void *buf, size_t len, mpiw_samples_head *h, char *err);

/* Appends the samples of message buf to rb after checking the header, that dim / pits / n_value are rb's,
 * and every value (legal 0/1, pi >= 0 and finite, x, z and margin finite): a bad message adds nothing.
 * MPIW_OK or MPIW_EINVAL with err. */
int mpiw_unpack_samples(const void *buf, size_t len, replay_buffer *rb, char *err);

/* Bytes of a net message for n_params parameters. */
size_t mpiw_net_size(size_t n_params);

/* Writes net's parameters and net_iteration into buf (mpiw_net_size(nn_param_count(net)) bytes). */
void mpiw_pack_net(const nn_net *net, int64_t net_iteration, void *buf);

/* Copies the parameters of net message buf (len bytes) into net, after checking the header and that the
 * parameter count is net's. *net_iteration gets the version. MPIW_OK or MPIW_EINVAL with err (the net is
 * then unchanged). */
int mpiw_unpack_net(const void *buf, size_t len, nn_net *net, int64_t *net_iteration, char *err);

#endif
