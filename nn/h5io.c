/* h5io.c — export and checkpoint files (layout in h5io.h). */
#include "nn/h5io.h"
#include "nn/h5search.h"
#include "nn/h5seal.h"
#include "nn/h5util.h"
#include "nn/net_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the trainer's bag of items ---- */

#define CKPT_NAMELEN 48

typedef struct {
    char name[CKPT_NAMELEN];
    int is_blob;
    int64_t v;
    unsigned char *data;
    size_t n;
} ckpt_item;

struct nn_ckpt {
    ckpt_item *items;
    int n, cap;
};

nn_ckpt *nn_ckpt_create(void) { return calloc(1, sizeof(nn_ckpt)); }

void nn_ckpt_free(nn_ckpt *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++)
        free(c->items[i].data);
    free(c->items);
    free(c);
}

static int name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n >= CKPT_NAMELEN)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '.' || ch == '-'))
            return 0;
    }
    /* "." and ".." are not valid HDF5 link names. */
    return strcmp(s, ".") && strcmp(s, "..");
}

static ckpt_item *find(const nn_ckpt *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->items[i].name, name))
            return &c->items[i];
    return NULL;
}

/* The item for name with the given type, creating it if absent; NULL on a type clash or no memory. */
static ckpt_item *slot(nn_ckpt *c, const char *name, int is_blob, int *code)
{
    *code = NN_EINVAL;
    if (!c || !name_ok(name))
        return NULL;
    ckpt_item *it = find(c, name);
    if (it)
        return it->is_blob == is_blob ? it : NULL;
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        ckpt_item *p = realloc(c->items, (size_t)cap * sizeof *p);
        if (!p) {
            *code = NN_ENOMEM;
            return NULL;
        }
        c->items = p;
        c->cap = cap;
    }
    it = &c->items[c->n++];
    memset(it, 0, sizeof *it);
    strcpy(it->name, name);
    it->is_blob = is_blob;
    return it;
}

int nn_ckpt_put_i64(nn_ckpt *c, const char *name, int64_t v)
{
    int code;
    ckpt_item *it = slot(c, name, 0, &code);
    if (!it)
        return code;
    it->v = v;
    return NN_OK;
}

int nn_ckpt_put_blob(nn_ckpt *c, const char *name, const void *data, size_t n)
{
    if (n && !data)
        return NN_EINVAL;
    /* Copy first so a failed allocation leaves the old value in place. */
    unsigned char *copy = malloc(n ? n : 1);
    if (!copy)
        return NN_ENOMEM;
    if (n)
        memcpy(copy, data, n);
    int code;
    ckpt_item *it = slot(c, name, 1, &code);
    if (!it) {
        free(copy);
        return code;
    }
    free(it->data);
    it->data = copy;
    it->n = n;
    return NN_OK;
}

int nn_ckpt_get_i64(const nn_ckpt *c, const char *name, int64_t *v)
{
    const ckpt_item *it = c && name ? find(c, name) : NULL;
    if (!it || it->is_blob)
        return NN_EINVAL;
    *v = it->v;
    return NN_OK;
}

int nn_ckpt_get_blob(const nn_ckpt *c, const char *name, const void **data, size_t *n)
{
    const ckpt_item *it = c && name ? find(c, name) : NULL;
    if (!it || !it->is_blob)
        return NN_EINVAL;
    *data = it->data;
    *n = it->n;
    return NN_OK;
}

const char *nn_ckpt_name(const nn_ckpt *c, int i) { return c && i >= 0 && i < c->n ? c->items[i].name : NULL; }

/* ---- writing ---- */

static int write_net(hid_t f, const nn_net *net, const char *rules, const char *encoding, const char *kind,
                     char *err)
{
    const nn_config *c = &net->cfg;
    if (h5u_put_str(f, "format", NN_FORMAT_NAME, err) || h5u_put_i64(f, "format_version", NN_FORMAT_VERSION, err) ||
        h5u_put_str(f, "kind", kind, err) || h5u_put_str(f, "rules", rules, err) ||
        h5u_put_str(f, "encoding", encoding, err) || h5u_put_str(f, "activation", c->activation, err) ||
        h5u_put_i64(f, "residual", c->residual, err) || h5u_put_i64(f, "input_dim", c->input_dim, err) ||
        h5u_put_i64(f, "n_policy", c->n_policy, err) || h5u_put_i64(f, "n_value", c->n_value, err))
        return -1;
    if (c->onehot_inputs && /* only then: files of nets without them stay as they were */
        (h5u_put_i64(f, "onehot_inputs", c->onehot_inputs, err) ||
         h5u_put_i64(f, "onehot_levels", c->onehot_levels, err) ||
         h5u_put_f64(f, "onehot_scale", (double)c->onehot_scale, err)))
        return -1;
    hid_t g = h5u_group(f, "layers");
    if (g < 0)
        return nn_fail(err, -1, "cannot create group /layers");
    int rc = 0;
    for (int i = 0; i < nn_layer_count(net) && !rc; i++) {
        nn_layer L;
        nn_layer_get(net, i, &L);
        hid_t lg = h5u_group(g, L.name);
        if (lg < 0)
            rc = nn_fail(err, -1, "cannot create group /layers/%s", L.name);
        else {
            rc = h5u_write_f32(lg, "W", net->params + L.w_offset, (size_t)L.out, (size_t)L.in, err) ||
                 h5u_write_f32(lg, "b", net->params + L.b_offset, 0, (size_t)L.out, err);
            H5Gclose(lg);
        }
    }
    H5Gclose(g);
    return rc ? -1 : 0;
}

static int write_optim(hid_t f, const nn_optim *opt, char *err)
{
    const nn_optim_config *c = nn_optim_get_config(opt);
    hid_t g = h5u_group(f, "optimizer");
    if (g < 0)
        return nn_fail(err, -1, "cannot create group /optimizer");
    int rc = h5u_put_str(g, "kind", nn_opt_kind_name(c->kind), err) ||
             h5u_put_str(g, "schedule", nn_lr_kind_name(c->sched.kind), err) ||
             h5u_put_f64(g, "lr", c->sched.lr, err) || h5u_put_f64(g, "momentum", c->momentum, err) ||
             h5u_put_f64(g, "beta1", c->beta1, err) || h5u_put_f64(g, "beta2", c->beta2, err) ||
             h5u_put_f64(g, "eps", c->eps, err) || h5u_put_f64(g, "gamma", c->sched.gamma, err) ||
             h5u_put_f64(g, "lr_min", c->sched.lr_min, err) ||
             h5u_put_i64(g, "step_size", c->sched.step_size, err) ||
             h5u_put_i64(g, "total_steps", c->sched.total_steps, err) ||
             h5u_put_i64(g, "step", nn_optim_steps(opt), err);
    /* The state vectors are only read here; nn_optim_state takes a non-const optimiser to allow restores. */
    nn_optim *o = (nn_optim *)opt;
    for (int i = 0; i < nn_optim_state_count(o) && !rc; i++) {
        const char *name;
        const float *s = nn_optim_state(o, i, &name);
        rc = h5u_write_f32(g, name, s, 0, nn_optim_param_count(o), err);
    }
    H5Gclose(g);
    return rc ? -1 : 0;
}

static int write_train(hid_t f, const nn_ckpt *st, char *err)
{
    hid_t g = h5u_group(f, "train");
    if (g < 0)
        return nn_fail(err, -1, "cannot create group /train");
    int rc = 0;
    for (int i = 0; st && i < st->n && !rc; i++) {
        const ckpt_item *it = &st->items[i];
        rc = it->is_blob ? h5u_write_bytes(g, it->name, it->data, it->n, err) : h5u_write_i64(g, it->name, it->v, err);
    }
    H5Gclose(g);
    return rc ? -1 : 0;
}

/* Writes the n bytes of img to a new file tmp and makes them durable (fsync) before the caller's rename
 * publishes them; on any failure (ENOSPC, EFBIG, EIO, ...) tmp is removed and -1 returned with the reason. */
/* Creates a temporary file of its own beside path, "PATH.PID.N.tmp" (O_EXCL: never a file that is there,
 * such as a user's PATH.tmp or the input a command read; the ".tmp" end lets a resumed run remove one a
 * kill left), its name in tmp[n]. The descriptor, or -1 with msg. */
static int create_temp(const char *path, char *tmp, size_t n, char *msg)
{
    static unsigned counter;
    for (int tries = 0; tries < 100; tries++) {
        unsigned k = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        if (snprintf(tmp, n, "%s.%ld.%u.tmp", path, (long)getpid(), k) >= (int)n)
            return nn_fail(msg, -1, "the path %s is too long", path);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) {
            if (fd < 0)
                nn_fail(msg, -1, "cannot create %s: %s", tmp, strerror(errno));
            return fd;
        }
    }
    return nn_fail(msg, -1, "cannot create a temporary file beside %s: every name tried exists", path);
}

static int write_durably(const char *path, char *tmp, size_t tmp_len, const unsigned char *img, size_t n, char *msg)
{
    int fd = create_temp(path, tmp, tmp_len, msg);
    if (fd < 0)
        return -1;
    size_t done = 0;
    int e = 0;
    while (done < n && !e) {
        ssize_t w = write(fd, img + done, n - done);
        if (w > 0)
            done += (size_t)w;
        else if (w < 0 && errno != EINTR)
            e = errno;
        else if (w == 0)
            e = EIO;
    }
    if (!e && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (e) {
        unlink(tmp);
        return nn_fail(msg, -1, "cannot write %s (%zu of %zu bytes written): %s", tmp, done, n, strerror(e));
    }
    return 0;
}

/* libhdf5's own metadata checksum (Jenkins lookup3), exported by every libhdf5 since 1.8.7 but declared
 * only in its private headers. */
uint32_t H5_checksum_metadata(const void *data, size_t len, uint32_t initval);

/* H5Fget_file_image clears the superblock's status flags (the file is open for writing) in the copy it
 * hands out without updating the superblock checksum (libhdf5 1.10): recompute it, over the 44 bytes of a
 * version 2 or 3 superblock with 8-byte addresses before it. 0, or -1 when the image is not such a one. */
static int fix_superblock(unsigned char *sb, size_t n)
{
    if (n < 48 || (sb[8] != 2 && sb[8] != 3) || sb[9] != 8 || sb[10] != 8)
        return -1;
    uint32_t c = H5_checksum_metadata(sb, 44, 0);
    for (int i = 0; i < 4; i++)
        sb[44 + i] = (unsigned char)(c >> (8 * i));
    return 0;
}

/* Builds the whole file in memory with HDF5's core driver (no backing store), so that libhdf5 never writes
 * to the disk: a full disk can then only fail our own write() calls, which leave no HDF5 object open or
 * half-closed (it used to: a failed flush inside H5Fclose left the file open and HDF5 segfaulted in
 * H5F__close_cb at exit). The image gets its checksum header (nn/h5seal.h), goes to a new PATH.PID.N.tmp,
 * is fsync'ed and renamed over PATH: PATH always holds either the previous file or the new one, complete. */
static int save(const char *path, const nn_net *net, const nn_optim *opt, const nn_ckpt *st, const char *rules,
                const char *encoding, const nn_search *search, char *err)
{
    if (!path || !net || !rules || !encoding)
        return nn_fail(err, NN_EINVAL, "save: path, net, rules and encoding are required");
    char serr[NN_ERRLEN];
    if (search && nn_search_check(search, serr))
        return nn_fail(err, NN_EINVAL, "save: search record: %s", serr);
    if (strlen(rules) >= NN_META_LEN || strlen(encoding) >= NN_META_LEN)
        return nn_fail(err, NN_EINVAL, "save: rules/encoding strings must be shorter than %d bytes", NN_META_LEN);
    if (opt && nn_optim_param_count(opt) != net->n_params)
        return nn_fail(err, NN_EINVAL, "save: optimiser has %zu parameters, net %zu", nn_optim_param_count(opt),
                       net->n_params);
    h5u_quiet();
    size_t n = strlen(path) + 48;
    char *tmp = malloc(n);
    if (!tmp)
        return nn_fail(err, NN_ENOMEM, "out of memory");
    /* the in-memory image's name only: libhdf5's core driver without a backing store opens no file */
    snprintf(tmp, n, "%s.image", path);
    char msg[NN_ERRLEN] = "";
    unsigned char *img = NULL;
    ssize_t size = -1;
    int rc = -1;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fcpl = H5Pcreate(H5P_FILE_CREATE), f = -1;
    /* The 1.10 file format: its superblock, object headers (holding the attributes, links and each
     * dataset's one-chunk index) carry checksums libhdf5 verifies, so metadata edited behind the file's
     * own checksum is refused rather than parsed into other values. */
    if (fapl >= 0 && fcpl >= 0 && H5Pset_fapl_core(fapl, 1 << 20, 0) >= 0 &&
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110) >= 0 && H5Pset_userblock(fcpl, H5S_BLOCK) >= 0 &&
        H5Pset_obj_track_times(fcpl, 0) >= 0)
        f = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
    if (f < 0)
        nn_fail(msg, -1, "cannot create an HDF5 file in memory");
    else {
        rc = write_net(f, net, rules, encoding, opt ? "checkpoint" : "export", msg);
        if (!rc && search)
            rc = h5r_write(f, search, msg);
        if (!rc && opt)
            rc = write_optim(f, opt, msg) || write_train(f, st, msg);
        /* The image libhdf5 hands out starts at the superblock (its base address records the user block):
         * the user block is put in front of it here. */
        if (!rc && (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0 || (size = H5Fget_file_image(f, NULL, 0)) <= 0))
            rc = nn_fail(msg, -1, "cannot complete the file image");
        if (!rc && !(img = calloc(1, (size_t)size + H5S_BLOCK)))
            rc = nn_fail(msg, -1, "out of memory for a %zd-byte file image", size);
        if (!rc && (H5Fget_file_image(f, img + H5S_BLOCK, (size_t)size) != size ||
                    fix_superblock(img + H5S_BLOCK, (size_t)size)))
            rc = nn_fail(msg, -1, "cannot copy the file image");
        size += H5S_BLOCK;
        if (H5Fclose(f) < 0 && !rc)
            rc = nn_fail(msg, -1, "cannot close the file image");
    }
    if (fapl >= 0)
        H5Pclose(fapl);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (!rc) {
        h5s_seal(img, (size_t)size);
        rc = write_durably(path, tmp, n, img, (size_t)size, msg);
    }
    free(img);
    if (!rc && rename(tmp, path) != 0) {
        rc = nn_fail(msg, -1, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
    }
    if (rc)
        nn_fail(err, NN_EIO, "writing %s: %s", path, msg);
    free(tmp);
    return rc ? NN_EIO : NN_OK;
}

int nn_export_save(const char *path, const nn_net *net, const char *rules, const char *encoding, char *err)
{
    return save(path, net, NULL, NULL, rules, encoding, NULL, err);
}

int nn_export_save_search(const char *path, const nn_net *net, const char *rules, const char *encoding,
                          const nn_search *search, char *err)
{
    return save(path, net, NULL, NULL, rules, encoding, search, err);
}

int nn_ckpt_save_search(const char *path, const nn_net *net, const nn_optim *opt, const nn_ckpt *st,
                        const char *rules, const char *encoding, const nn_search *search, char *err)
{
    if (!opt)
        return nn_fail(err, NN_EINVAL, "checkpoint save: optimiser is required");
    return save(path, net, opt, st, rules, encoding, search, err);
}

int nn_ckpt_save(const char *path, const nn_net *net, const nn_optim *opt, const nn_ckpt *st, const char *rules,
                 const char *encoding, char *err)
{
    return nn_ckpt_save_search(path, net, opt, st, rules, encoding, NULL, err);
}
