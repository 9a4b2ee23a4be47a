/* h5io.h — nets in HDF5 files: the export (weights + metadata) and the checkpoint (export + optimiser
 * state + the trainer's state). Layout (docs/design.md §3.2):
 *
 *   /                      attributes: format = "sowzero-net", format_version = NN_FORMAT_VERSION (int),
 *                          rules (caller's rules spec), encoding (caller's input-encoding name),
 *                          activation ("relu"), residual (int 0/1), input_dim, n_policy, n_value (ints),
 *                          kind = "export" or "checkpoint". n_value (value-head outputs) is optional on
 *                          reading: files written before it existed have none and mean n_value = 1.
 *                          onehot_inputs, onehot_levels (ints), onehot_scale (double): only for a net with
 *                          one-hot input features (nn/net.h; all three or none); without them, none.
 *   /layers/NN_name/W      float32, out × in   (NN_name from nn_layer_get: "00_hidden", ..., "03_policy",
 *   /layers/NN_name/b      float32, out         "04_value", "05_margin"); sorted names = evaluation order;
 *                                               the value layer has n_value rows (out), the margin 1;
 *                                               00_hidden's in is nn_input_width (one-hot features)
 *   checkpoint only:
 *   /optimizer             attributes: kind ("sgd"/"adam"), schedule ("constant"/"step"/"cosine"), lr,
 *                          momentum, beta1, beta2, eps, gamma, lr_min (doubles), step_size, total_steps,
 *                          step (int64); datasets: its state vectors by name ("velocity" or "m", "v"),
 *                          float32, one per vector, n_params long
 *   /train/NAME            the caller's nn_ckpt items: int64 scalars and uint8 byte blobs. Conventional
 *                          names: "step" (int64), "rng" (blob: RNG state bytes), "replay_position" (int64);
 *                          train/ may add any others (e.g. a serialized replay buffer index).
 *   optional, export and checkpoint:
 *   /search                the search the net was trained to play with (nn_search below): a
 *                          group with only attributes, one per field, named as the fields: sims, batch,
 *                          solver, gumbel_k (int64), c_puct, fpu_reduction, margin_utility, gumbel_c_visit,
 *                          gumbel_c_scale (double), root (string "puct" or "gumbel"). Files without it
 *                          (every file written before it, and nets no run trained) have no record: the az
 *                          agent then uses its built-in defaults. On reading, every field must be present,
 *                          of its type (an integer field a whole number) and in its range (nn_search_check);
 *                          anything else is NN_EFORMAT naming the file and the field. Attributes beyond the
 *                          fields are ignored (room for later fields).
 *
 * A hidden layer's residual flag is not stored per layer: the root `residual` attribute applies to every
 * hidden layer whose W is square (see nn/net.h). The README's numpy snippet is tests/nn_export_check.py.
 *
 * Every file starts with a 512-byte HDF5 user block holding a CRC-32 of the rest (nn/h5seal.h); loading
 * verifies it before libhdf5 parses anything, so a damaged file is refused, never crashes or hangs inside
 * libhdf5 and never loads other numbers. Files written before the checksum are refused (NN_EFORMAT) with
 * advice: nn_upgrade (`sowzero net --upgrade FILE`) rewrites such a file the user trusts. h5py and the h5
 * tools read files with a user block as any other.
 *
 * Files are written in the HDF5 1.10 format (readable by libhdf5 1.10 and later, h5py included): its
 * superblock and object headers (which hold every attribute, link and each dataset's one-chunk index) carry
 * checksums libhdf5 verifies. Strings are fixed-length (h5py reads them as bytes); every array is one chunk
 * of its own shape with a Fletcher-32 checksum. So a file edited behind the sowzero checksum and resealed
 * (crafted) is refused by those checksums or by the reader's checks: every attribute a scalar of exactly
 * its type, every array stored whole as that one chunk and read back equal to its stored bytes, the root's
 * entries those of its kind, every value in range. Files written before (the old layout: HDF5's earliest
 * format, no metadata checksums, variable-length strings in the global heap) still load; their string
 * heap references, attribute messages and chunk layouts are checked before libhdf5 decodes or follows
 * them (nn/h5heap.h), but a crafted old-layout file can still move a chunk's address onto zero bytes (the
 * array then reads as zeros) or change attribute values within their ranges. nn_upgrade rewrites such a file in the current layout.
 *
 * Saving builds the file in memory (HDF5 core driver), writes it to a temporary file of its own,
 * PATH.PID.N.tmp (never one that exists), fsyncs and rename()s it over PATH: a crash or a full disk never leaves a broken file under PATH, and a failed write leaves nothing open
 * and no temporary file behind (NN_EIO naming the file and errno's reason).
 * Loading checks format, format_version, every shape (against each other, and against the optimiser
 * state; a value layer whose rows disagree with n_value is NN_EFORMAT), and, when the caller gives expected rules, the rules string (exact match of the canonical spec);
 * the float datasets' type (IEEE float32 little-endian exactly); a truncated or corrupt file gives
 * NN_EFORMAT with a message naming the file, never a crash. HDF5's own error printing is
 * switched off by these functions.
 *
 * Not thread-safe: Debian's HDF5 is the non-threadsafe build, so call these from one thread at a time.
 */
#ifndef SOWZERO_NN_H5IO_H
#define SOWZERO_NN_H5IO_H

#include <stddef.h>
#include <stdint.h>
#include "nn/net.h"
#include "nn/optim.h"

#define NN_FORMAT_NAME "sowzero-net"
#define NN_FORMAT_VERSION 1
#define NN_META_LEN 160

/* The search settings a net was trained with, as the trainer's evaluation played it (train_search_record
 * fills them from a config: eval.sims and eval.batch, the rest from [mcts] of the same names). The az agent
 * (eval/agent.h) takes them as its defaults for this net: an explicit spec key wins over them, they win over
 * the built-in defaults. Not the tablebase (mcts.tablebase_seeds, eval.tablebase_seeds): a database costs a
 * minute to build, the user asks for it with tb=N. Ranges (nn_search_check) are those of the config keys. */
typedef struct {
    int sims;              /* eval.sims: the recommended simulations per move, 0..1000000 (0: raw policy) */
    int batch;             /* eval.batch: leaves per net call (virtual loss above 1), 1..64 */
    double c_puct;         /* mcts.c_puct, 1e-6..100 (the config's range narrowed to the az spec's) */
    double fpu_reduction;  /* mcts.fpu_reduction, 0..2 */
    double margin_utility; /* mcts.margin_utility, 0..1e6 (> 0 needs the margin head; checked by the agent) */
    int solver;            /* mcts.solver, 0/1 */
    char root[8];          /* mcts.root: "puct" or "gumbel" */
    int gumbel_k;          /* mcts.gumbel_k, 1..64 (used when root is gumbel) */
    double gumbel_c_visit; /* mcts.gumbel_c_visit, 0..1e6 */
    double gumbel_c_scale; /* mcts.gumbel_c_scale, 1e-12..1e6 (likewise) */
} nn_search;

/* NN_OK, or NN_EINVAL with "FIELD = VALUE is out of range (RANGE)" (or not finite) in err. */
int nn_search_check(const nn_search *s, char *err);

/* Metadata read from a file. */
typedef struct {
    char rules[NN_META_LEN];
    char encoding[NN_META_LEN];
    char kind[16];             /* "export" or "checkpoint" */
    int format_version;
    unsigned long crc32;       /* the CRC-32 the file was verified by (of its bytes after the 512-byte
                                  header, nn/h5seal.h; zlib's crc32); 0 for a file from before checksums */
    long long bytes;           /* the file's size in bytes (0 for a file from before checksums) */
    int have_search;           /* 1 when the file has a /search record, then in `search` */
    nn_search search;
} nn_file_info;

/* Writes the export of net to path (via a temporary file + rename). rules/encoding: strings stored as the root
 * attributes (non-NULL, < NN_META_LEN bytes). NN_OK, NN_EINVAL, NN_EIO. */
int nn_export_save(const char *path, const nn_net *net, const char *rules, const char *encoding, char *err);
/* The same with the search record `search` as /search (NULL: none). NN_EINVAL when it fails nn_search_check. */
int nn_export_save_search(const char *path, const nn_net *net, const char *rules, const char *encoding,
                          const nn_search *search, char *err);

/* Loads the net of an export or checkpoint file. expect_rules: when non-NULL the file's rules attribute must
 * equal it (NN_EMISMATCH otherwise, the message shows both). *out receives a new net (caller frees);
 * info (may be NULL) receives the metadata. NN_OK, NN_EIO (cannot open), NN_EFORMAT, NN_EMISMATCH,
 * NN_ENOMEM. */
int nn_load(const char *path, const char *expect_rules, nn_net **out, nn_file_info *info, char *err);

/* The caller's check of what nn_upgrade read, before it seals it: nn/ knows no games, so whether the rules
 * attribute names a game, the encoding attribute is that game's and the net's shape fits it is the
 * caller's to say (the checks every load for play makes). 0 when the file is fit; otherwise nonzero with
 * a message in err (NN_ERRLEN) naming path and the attribute at fault. net and info are borrowed. */
typedef int (*nn_upgrade_check)(const char *path, const nn_net *net, const nn_file_info *info, void *ctx,
                                char *err);

/* Converts in place a file written before the checksum (no user block), or one with the checksum in the old
 * layout (HDF5's earliest format: metadata without checksums, variable-length strings), into the current
 * form: reads it with the full validation of nn_ckpt_load (for a file without the checksum, the one path that
 * parses an unverified file, for a file the user vouches for), asks check (NULL: none) with ctx whether its
 * contents fit, and writes it again (same net, optimiser state, /train items and /search record; via
 * a temporary file + rename). A file already in the current form is left alone (and not checked). *upgraded: 1 when
 * rewritten, 0 otherwise. NN_OK, NN_EIO, NN_EFORMAT (not a sowzero file, a damaged one, or one check
 * refused: the message names the file and what is wrong, and the file is left as it was), NN_ENOMEM. */
int nn_upgrade(const char *path, nn_upgrade_check check, void *ctx, int *upgraded, char *err);

/* ---- the trainer's state in a checkpoint ---- */

/* A small named bag of int64 scalars and byte blobs saved under /train. Names: 1..47 characters of
 * [A-Za-z0-9_.-]. Putting a name again replaces its value (a scalar and a blob may not share a name). */
typedef struct nn_ckpt nn_ckpt;

nn_ckpt *nn_ckpt_create(void);
void nn_ckpt_free(nn_ckpt *c);
/* NN_OK, NN_EINVAL (bad name, or the name holds the other type), NN_ENOMEM. The blob is copied. */
int nn_ckpt_put_i64(nn_ckpt *c, const char *name, int64_t v);
int nn_ckpt_put_blob(nn_ckpt *c, const char *name, const void *data, size_t n);
/* NN_OK, or NN_EINVAL when the name is absent or of the other type. The blob pointer stays owned by c
 * (valid until c is changed or freed); a zero-length blob gives a non-NULL pointer and *n = 0. */
int nn_ckpt_get_i64(const nn_ckpt *c, const char *name, int64_t *v);
int nn_ckpt_get_blob(const nn_ckpt *c, const char *name, const void **data, size_t *n);
/* Items in insertion order (after nn_ckpt_load: sorted by name), for listing: name of item i, or NULL past the end. */
const char *nn_ckpt_name(const nn_ckpt *c, int i);

/* Writes a checkpoint: the export of net plus opt (n_params must equal nn_param_count(net)) and st (may be
 * NULL for none). Via a temporary file + rename. NN_OK, NN_EINVAL, NN_EIO. */
int nn_ckpt_save(const char *path, const nn_net *net, const nn_optim *opt, const nn_ckpt *st,
                 const char *rules, const char *encoding, char *err);
/* The same with the search record `search` (NULL: none), as nn_export_save_search. */
int nn_ckpt_save_search(const char *path, const nn_net *net, const nn_optim *opt, const nn_ckpt *st,
                        const char *rules, const char *encoding, const nn_search *search, char *err);

/* Loads a checkpoint: new net, a new optimiser with its stored config, state and step, and the /train items
 * in a new nn_ckpt (each out pointer may be NULL to skip it; whatever is returned the caller frees).
 * expect_rules and info as for nn_load. An export (no /optimizer) gives NN_EFORMAT when opt is requested.
 * On error nothing is returned (all out pointers set to NULL). */
int nn_ckpt_load(const char *path, const char *expect_rules, nn_net **net, nn_optim **opt, nn_ckpt **st,
                 nn_file_info *info, char *err);

#endif
