/* h5load.c — reading export and checkpoint files with full validation (h5io.h). */
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

#define MAX_LAYERS (NN_MAX_HIDDEN + 3)

/* Opens path for reading after verifying its checksum (nn/h5seal.h): libhdf5 only ever parses bytes that
 * are exactly the ones sowzero wrote. HDF5 opens the verified file through /proc/self/fd/N, the very inode
 * checked (a rename over path meanwhile cannot swap it). A file without the checksum (written before it)
 * is refused with advice unless allow_legacy (nn_upgrade: the user vouches for it). On success the caller
 * closes both with close_file. */
static int open_file(const char *path, int allow_legacy, hid_t *f, int *fd, nn_file_info *info, char *err)
{
    h5u_quiet();
    if (!path)
        return nn_fail(err, NN_EINVAL, "no file name");
    /* O_NONBLOCK: a FIFO given as the file must not block the open; h5s_verify refuses it. */
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0)
        return nn_fail(err, NN_EIO, "cannot open %s: %s", path, strerror(errno));
    info->crc32 = 0;
    info->bytes = 0;
    int v = h5s_verify(*fd, path, &info->crc32, &info->bytes, err);
    if (v == H5S_LEGACY && !allow_legacy)
        nn_fail(err, NN_EFORMAT,
                "%s has no sowzero checksum (written before sowzero checked its files); if you trust it, convert "
                "it with `sowzero net --upgrade %s`", path, path);
    if (v < 0 || (v == H5S_LEGACY && !allow_legacy)) {
        close(*fd);
        return NN_EFORMAT;
    }
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", *fd);
    *f = H5Fopen(proc, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*f < 0) {
        close(*fd);
        return nn_fail(err, NN_EFORMAT, "%s: cannot open as HDF5 (damaged file)", path);
    }
    return NN_OK;
}

static void close_file(hid_t f, int fd)
{
    H5Fclose(f);
    close(fd);
}

/* A required attribute: NN_EFORMAT naming it when absent or damaged. */
static int need(int r, const char *path, const char *what, const char *msg, char *err)
{
    if (r == 1)
        return NN_OK;
    if (r == 0)
        return nn_fail(err, NN_EFORMAT, "%s: missing %s", path, what);
    return nn_fail(err, NN_EFORMAT, "%s: %s", path, msg);
}

/* Root attributes into info and cfg; *have_nv tells whether the (optional) n_value attribute was there. */
static int read_meta(hid_t f, const char *path, nn_file_info *info, nn_config *cfg, int *have_nv, char *err)
{
    char msg[NN_ERRLEN] = "", fmt[64];
    int64_t ver, res, in, np, nv = 1;
    int rc = need(h5u_get_str(f, "format", fmt, sizeof fmt, msg), path, "root attribute 'format'", msg, err);
    if (rc)
        return rc;
    if (strcmp(fmt, NN_FORMAT_NAME))
        return nn_fail(err, NN_EFORMAT, "%s: format is '%s', not '%s'", path, fmt, NN_FORMAT_NAME);
    if ((rc = need(h5u_get_i64(f, "format_version", &ver, msg), path, "attribute 'format_version'", msg, err)))
        return rc;
    if (ver != NN_FORMAT_VERSION)
        return nn_fail(err, NN_EFORMAT, "%s: format_version %lld is not supported (this build reads %d)", path,
                       (long long)ver, NN_FORMAT_VERSION);
    info->format_version = (int)ver;
    if ((rc = need(h5u_get_str(f, "kind", info->kind, sizeof info->kind, msg), path, "attribute 'kind'", msg, err)) ||
        (rc = need(h5u_get_str(f, "rules", info->rules, sizeof info->rules, msg), path, "attribute 'rules'", msg,
                   err)) ||
        (rc = need(h5u_get_str(f, "encoding", info->encoding, sizeof info->encoding, msg), path,
                   "attribute 'encoding'", msg, err)) ||
        (rc = need(h5u_get_str(f, "activation", cfg->activation, sizeof cfg->activation, msg), path,
                   "attribute 'activation'", msg, err)) ||
        (rc = need(h5u_get_i64(f, "residual", &res, msg), path, "attribute 'residual'", msg, err)) ||
        (rc = need(h5u_get_i64(f, "input_dim", &in, msg), path, "attribute 'input_dim'", msg, err)) ||
        (rc = need(h5u_get_i64(f, "n_policy", &np, msg), path, "attribute 'n_policy'", msg, err)))
        return rc;
    if (res < 0 || res > 1 || in < 1 || in > 65536 || np < 1 || np > 65536)
        return nn_fail(err, NN_EFORMAT, "%s: residual/input_dim/n_policy attributes out of range", path);
    /* n_value came with multi-player value heads; files written before it have one value output. */
    int r = h5u_get_i64(f, "n_value", &nv, msg);
    if (r < 0)
        return nn_fail(err, NN_EFORMAT, "%s: %s", path, msg);
    *have_nv = r == 1;
    if (nv < 1 || nv > NN_MAX_VALUE)
        return nn_fail(err, NN_EFORMAT, "%s: attribute n_value = %lld out of range 1..%d", path, (long long)nv,
                       NN_MAX_VALUE);
    cfg->residual = (int)res;
    cfg->input_dim = (int)in;
    cfg->n_policy = (int)np;
    cfg->n_value = (int)nv;
    /* One-hot input features (net.h) came later: a file without them has none. */
    int64_t oi = 0, ol = 0;
    double os = 0;
    const int ri = h5u_get_i64(f, "onehot_inputs", &oi, msg);
    if (ri < 0)
        return nn_fail(err, NN_EFORMAT, "%s: %s", path, msg);
    if (ri == 1) {
        if ((rc = need(h5u_get_i64(f, "onehot_levels", &ol, msg), path, "attribute 'onehot_levels'", msg, err)) ||
            (rc = need(h5u_get_f64(f, "onehot_scale", &os, msg), path, "attribute 'onehot_scale'", msg, err)))
            return rc;
        if (oi < 0 || oi > in || ol < 2 || ol > NN_MAX_ONEHOT_LEVELS || !(os > 0 && os <= 1e6))
            return nn_fail(err, NN_EFORMAT, "%s: onehot_inputs/onehot_levels/onehot_scale attributes out of range",
                           path);
        cfg->onehot_inputs = (int)oi;
        cfg->onehot_levels = oi ? (int)ol : 0;
        cfg->onehot_scale = oi ? (float)os : 0.0f;
    }
    return NN_OK;
}

/* The layer list: names in sorted order must be 00_hidden.. then policy, value, [margin]. Fills the config's
 * hidden widths and margin flag, checking every shape against its neighbours; the value layer must have
 * cfg->n_value rows (from read_meta), else the file contradicts itself (NN_EFORMAT). */
static int read_layout(hid_t lg, const char *path, nn_config *cfg, int have_nv, char *err)
{
    H5G_info_t gi;
    if (H5Gget_info(lg, &gi) < 0)
        return nn_fail(err, NN_EFORMAT, "%s: cannot read /layers (damaged file)", path);
    if (gi.nlinks < 3 || gi.nlinks > MAX_LAYERS)
        return nn_fail(err, NN_EFORMAT, "%s: /layers holds %llu entries, expected 3..%d", path,
                       (unsigned long long)gi.nlinks, MAX_LAYERS);
    int n = (int)gi.nlinks, nh = 0, width = nn_input_width(cfg);
    cfg->margin_head = 0;
    for (int i = 0; i < n; i++) {
        char name[NN_NAMELEN], msg[NN_ERRLEN] = "", want[NN_NAMELEN];
        ssize_t len = H5Lget_name_by_idx(lg, ".", H5_INDEX_NAME, H5_ITER_INC, (hsize_t)i, name, sizeof name,
                                         H5P_DEFAULT);
        if (len < 0 || len >= (ssize_t)sizeof name)
            return nn_fail(err, NN_EFORMAT, "%s: bad entry %d under /layers", path, i);
        const char *kind = strlen(name) > 3 ? name + 3 : "";
        int is_hidden = !strcmp(kind, "hidden");
        /* Heads come after the hidden layers: policy, value, then optionally margin. */
        const char *head_order[3] = {"policy", "value", "margin"};
        int head_i = i - nh;
        if (is_hidden && head_i == 0 && nh < NN_MAX_HIDDEN)
            nh++;
        else if (nh == 0 || head_i > 2 || strcmp(kind, head_order[head_i]))
            return nn_fail(err, NN_EFORMAT, "%s: unexpected layer '/layers/%s' at position %d", path, name, i);
        snprintf(want, sizeof want, "%02d_%s", i, kind);
        if (strcmp(name, want))
            return nn_fail(err, NN_EFORMAT, "%s: layer '%s' should be named '%s'", path, name, want);
        hid_t g = H5Gopen2(lg, name, H5P_DEFAULT);
        if (g < 0)
            return nn_fail(err, NN_EFORMAT, "%s: cannot open /layers/%s", path, name);
        int rw, rb;
        size_t dw[2], db[2];
        int bad = h5u_shape_f32(g, "W", &rw, dw, msg) || h5u_shape_f32(g, "b", &rb, db, msg);
        H5Gclose(g);
        if (bad)
            return nn_fail(err, NN_EFORMAT, "%s: /layers/%s: %s", path, name, msg);
        size_t out = is_hidden ? dw[0] : (size_t)(head_i == 0 ? cfg->n_policy : head_i == 1 ? cfg->n_value : 1);
        if (!is_hidden && head_i == 1 && rw == 2 && rb == 1 && (dw[0] != out || db[0] != out))
            return nn_fail(err, NN_EFORMAT,
                           "%s: /layers/%s has W %zux%zu and b %zu, but the file's n_value is %d%s", path, name,
                           dw[0], dw[1], db[0], cfg->n_value,
                           have_nv ? "" : " (no n_value attribute: a file from before vector values)");
        if (rw != 2 || rb != 1 || dw[1] != (size_t)width || dw[0] != out || db[0] != dw[0] || dw[0] < 1 ||
            dw[0] > 65536)
            return nn_fail(err, NN_EMISMATCH,
                           "%s: /layers/%s has W %zux%zu and b %zu; expected W %zux%d and b of the same rows", path,
                           name, dw[0], rw == 2 ? dw[1] : 0, db[0], out, width);
        if (is_hidden) {
            cfg->hidden[nh - 1] = (int)dw[0];
            width = (int)dw[0];
        } else if (head_i == 2)
            cfg->margin_head = 1;
    }
    if (n - nh < 2)
        return nn_fail(err, NN_EFORMAT, "%s: /layers lacks the policy and value heads", path);
    cfg->n_hidden = nh;
    return NN_OK;
}

static int read_weights(hid_t lg, const char *path, nn_net *net, char *err)
{
    for (int i = 0; i < nn_layer_count(net); i++) {
        nn_layer L;
        char msg[NN_ERRLEN] = "";
        nn_layer_get(net, i, &L);
        hid_t g = H5Gopen2(lg, L.name, H5P_DEFAULT);
        int bad = g < 0 || h5u_read_f32(g, "W", net->params + L.w_offset, (size_t)L.out, (size_t)L.in, msg) ||
                  h5u_read_f32(g, "b", net->params + L.b_offset, 0, (size_t)L.out, msg);
        if (g >= 0)
            H5Gclose(g);
        if (bad)
            return nn_fail(err, NN_EFORMAT, "%s: /layers/%s: %s", path, L.name, msg[0] ? msg : "cannot open");
    }
    nn_params_changed(net);
    for (size_t i = 0; i < net->n_params; i++)
        if (!isfinite(net->params[i]))
            return nn_fail(err, NN_EFORMAT, "%s: parameter %zu is not finite", path, i);
    return NN_OK;
}

/* The root's entries are exactly those a file of its kind has: a renamed /search would otherwise read as a
 * file without the record, a renamed /optimizer as an export. */
static int check_root(hid_t f, const char *path, const nn_file_info *info, char *err)
{
    int ckpt = !strcmp(info->kind, "checkpoint");
    if (!ckpt && strcmp(info->kind, "export"))
        return nn_fail(err, NN_EFORMAT, "%s: attribute kind = '%s' is neither export nor checkpoint", path,
                       info->kind);
    H5G_info_t gi;
    if (H5Gget_info(f, &gi) < 0 || gi.nlinks > 4)
        return nn_fail(err, NN_EFORMAT, "%s: cannot read the root group, or it has entries sowzero never writes",
                       path);
    int have_opt = 0, have_train = 0;
    for (hsize_t i = 0; i < gi.nlinks; i++) {
        char name[16];
        ssize_t len = H5Lget_name_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
        if (len < 0 || len >= (ssize_t)sizeof name ||
            (strcmp(name, "layers") && strcmp(name, "search") && strcmp(name, "optimizer") && strcmp(name, "train")))
            return nn_fail(err, NN_EFORMAT, "%s: unexpected entry /%s in the root group", path,
                           len < 0 || len >= (ssize_t)sizeof name ? "(unreadable)" : name);
        have_opt |= !strcmp(name, "optimizer");
        have_train |= !strcmp(name, "train");
    }
    if (have_opt != ckpt || have_train != ckpt)
        return nn_fail(err, NN_EFORMAT, "%s: a file of kind '%s' %s /optimizer and /train", path, info->kind,
                       ckpt ? "must have" : "must not have");
    return NN_OK;
}

/* Reads the net part of an open file. */
static int load_net(hid_t f, const char *path, const char *expect_rules, nn_net **out, nn_file_info *info,
                    char *err)
{
    nn_config cfg;
    memset(&cfg, 0, sizeof cfg);
    int have_nv = 0;
    int rc = read_meta(f, path, info, &cfg, &have_nv, err);
    if (rc)
        return rc;
    if ((rc = check_root(f, path, info, err)))
        return rc;
    if (expect_rules && strcmp(expect_rules, info->rules))
        return nn_fail(err, NN_EMISMATCH, "%s: net was trained for rules '%s', not '%s'", path, info->rules,
                       expect_rules);
    if (H5Lexists(f, "layers", H5P_DEFAULT) <= 0)
        return nn_fail(err, NN_EFORMAT, "%s: no /layers group", path);
    hid_t lg = H5Gopen2(f, "layers", H5P_DEFAULT);
    if (lg < 0)
        return nn_fail(err, NN_EFORMAT, "%s: cannot open /layers", path);
    rc = read_layout(lg, path, &cfg, have_nv, err);
    char msg[NN_ERRLEN] = "";
    nn_net *net = NULL;
    if (!rc && nn_config_check(&cfg, msg) != NN_OK)
        rc = nn_fail(err, NN_EFORMAT, "%s: %s", path, msg);
    if (!rc && !(net = nn_net_create(&cfg, 0, msg)))
        rc = nn_fail(err, NN_ENOMEM, "%s: %s", path, msg);
    if (!rc)
        rc = read_weights(lg, path, net, err);
    H5Gclose(lg);
    if (rc) {
        nn_net_free(net);
        return rc;
    }
    *out = net;
    return NN_OK;
}

/* ---- checkpoint parts ---- */

static int load_optim(hid_t f, const char *path, size_t n_params, nn_optim **out, char *err)
{
    if (H5Lexists(f, "optimizer", H5P_DEFAULT) <= 0)
        return nn_fail(err, NN_EFORMAT, "%s: no /optimizer group (an export, not a checkpoint)", path);
    hid_t g = H5Gopen2(f, "optimizer", H5P_DEFAULT);
    if (g < 0)
        return nn_fail(err, NN_EFORMAT, "%s: cannot open /optimizer", path);
    nn_optim_config c = nn_optim_config_default();
    char kind[16], sched[16], msg[NN_ERRLEN] = "";
    int64_t step = 0;
    int rc = need(h5u_get_str(g, "kind", kind, sizeof kind, msg), path, "/optimizer kind", msg, err) ||
             need(h5u_get_str(g, "schedule", sched, sizeof sched, msg), path, "/optimizer schedule", msg, err) ||
             need(h5u_get_f64(g, "lr", &c.sched.lr, msg), path, "/optimizer lr", msg, err) ||
             need(h5u_get_f64(g, "momentum", &c.momentum, msg), path, "/optimizer momentum", msg, err) ||
             need(h5u_get_f64(g, "beta1", &c.beta1, msg), path, "/optimizer beta1", msg, err) ||
             need(h5u_get_f64(g, "beta2", &c.beta2, msg), path, "/optimizer beta2", msg, err) ||
             need(h5u_get_f64(g, "eps", &c.eps, msg), path, "/optimizer eps", msg, err) ||
             need(h5u_get_f64(g, "gamma", &c.sched.gamma, msg), path, "/optimizer gamma", msg, err) ||
             need(h5u_get_f64(g, "lr_min", &c.sched.lr_min, msg), path, "/optimizer lr_min", msg, err) ||
             need(h5u_get_i64(g, "step_size", &c.sched.step_size, msg), path, "/optimizer step_size", msg, err) ||
             need(h5u_get_i64(g, "total_steps", &c.sched.total_steps, msg), path, "/optimizer total_steps", msg,
                  err) ||
             need(h5u_get_i64(g, "step", &step, msg), path, "/optimizer step", msg, err);
    if (!rc && (nn_opt_kind_parse(kind, &c.kind) || nn_lr_kind_parse(sched, &c.sched.kind)))
        rc = nn_fail(err, NN_EFORMAT, "%s: unknown optimizer '%s' or schedule '%s'", path, kind, sched);
    nn_optim *o = NULL;
    if (!rc && !(o = nn_optim_create(&c, n_params, msg)))
        rc = nn_fail(err, NN_EFORMAT, "%s: /optimizer: %s", path, msg);
    for (int i = 0; !rc && i < nn_optim_state_count(o); i++) {
        const char *name;
        float *s = nn_optim_state(o, i, &name);
        if (h5u_read_f32(g, name, s, 0, n_params, msg))
            rc = nn_fail(err, NN_EFORMAT, "%s: /optimizer: %s", path, msg);
    }
    H5Gclose(g);
    if (rc) {
        nn_optim_free(o);
        return NN_EFORMAT;
    }
    nn_optim_set_steps(o, step);
    *out = o;
    return NN_OK;
}

/* One /train item: an int64 scalar or a 1-D uint8 blob. */
static int load_item(hid_t g, const char *name, nn_ckpt *st)
{
    char emsg[NN_ERRLEN];
    hid_t d = h5u_open_ds(g, name, emsg);
    if (d < 0)
        return -1;
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    int rank = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
    int rc = -1;
    /* Exactly the types h5u_write_i64 / h5u_write_bytes write. */
    if (t >= 0 && H5Tget_class(t) == H5T_INTEGER) {
        if (rank == 0 && H5Tequal(t, H5T_STD_I64LE) > 0) {
            int64_t v;
            char msg[NN_ERRLEN];
            if (!h5u_check_storage(d, name, sizeof v, msg) && H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0)
                rc = nn_ckpt_put_i64(st, name, v) ? -1 : 0;
        } else if (rank == 1 && H5Tequal(t, H5T_STD_U8LE) > 0) {
            hsize_t n;
            H5Sget_simple_extent_dims(sp, &n, NULL);
            char msg[NN_ERRLEN];
            unsigned char *buf = h5u_check_storage(d, name, (size_t)n, msg) ? NULL : malloc(n ? n : 1);
            if (buf && (n == 0 || (H5Dread(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 &&
                                   !h5u_check_read(d, name, buf, (size_t)n, 1, msg))))
                rc = nn_ckpt_put_blob(st, name, buf, n) ? -1 : 0;
            free(buf);
        }
    }
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    H5Dclose(d);
    return rc;
}

static int load_train(hid_t f, const char *path, nn_ckpt **out, char *err)
{
    if (H5Lexists(f, "train", H5P_DEFAULT) <= 0)
        return nn_fail(err, NN_EFORMAT, "%s: no /train group (an export, not a checkpoint)", path);
    hid_t g = H5Gopen2(f, "train", H5P_DEFAULT);
    H5G_info_t gi;
    if (g < 0 || H5Gget_info(g, &gi) < 0) {
        if (g >= 0)
            H5Gclose(g);
        return nn_fail(err, NN_EFORMAT, "%s: cannot read /train", path);
    }
    nn_ckpt *st = nn_ckpt_create();
    int rc = st ? NN_OK : nn_fail(err, NN_ENOMEM, "out of memory");
    /* Creation order is not tracked, so items come back sorted by name. */
    for (hsize_t i = 0; !rc && i < gi.nlinks; i++) {
        char name[64];
        ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
        if (len < 0 || len >= (ssize_t)sizeof name || load_item(g, name, st))
            rc = nn_fail(err, NN_EFORMAT, "%s: /train entry %llu is damaged or not an int64/byte array", path,
                         (unsigned long long)i);
    }
    H5Gclose(g);
    if (rc) {
        nn_ckpt_free(st);
        return rc;
    }
    *out = st;
    return NN_OK;
}

/* nn_ckpt_load, reading a file without the checksum too when allow_legacy. */
static int load_all(const char *path, int allow_legacy, const char *expect_rules, nn_net **net, nn_optim **opt,
                    nn_ckpt **st, nn_file_info *info, char *err)
{
    nn_file_info tmp;
    nn_net *n = NULL;
    nn_optim *o = NULL;
    nn_ckpt *s = NULL;
    hid_t f = -1;
    int fd = -1;
    if (net)
        *net = NULL;
    if (opt)
        *opt = NULL;
    if (st)
        *st = NULL;
    if (!info)
        info = &tmp;
    info->have_search = 0;
    int rc = open_file(path, allow_legacy, &f, &fd, info, err);
    if (rc)
        return rc;
    rc = load_net(f, path, expect_rules, &n, info, err);
    if (!rc)
        rc = h5r_read(f, path, info, err);
    if (!rc && opt)
        rc = load_optim(f, path, n->n_params, &o, err);
    if (!rc && st)
        rc = load_train(f, path, &s, err);
    close_file(f, fd);
    if (rc || !net)
        nn_net_free(n);
    if (rc) {
        nn_optim_free(o);
        nn_ckpt_free(s);
        return rc;
    }
    if (net)
        *net = n;
    if (opt)
        *opt = o;
    if (st)
        *st = s;
    return NN_OK;
}

int nn_ckpt_load(const char *path, const char *expect_rules, nn_net **net, nn_optim **opt, nn_ckpt **st,
                 nn_file_info *info, char *err)
{
    return load_all(path, 0, expect_rules, net, opt, st, info, err);
}

int nn_load(const char *path, const char *expect_rules, nn_net **out, nn_file_info *info, char *err)
{
    if (!out)
        return nn_fail(err, NN_EINVAL, "nn_load: out is NULL");
    return load_all(path, 0, expect_rules, out, NULL, NULL, info, err);
}

int nn_upgrade(const char *path, nn_upgrade_check check, void *ctx, int *upgraded, char *err)
{
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
    if (fd < 0)
        return path ? nn_fail(err, NN_EIO, "cannot open %s: %s", path, strerror(errno))
                    : nn_fail(err, NN_EINVAL, "no file name");
    int v = h5s_verify(fd, path, NULL, NULL, err);
    /* A sealed file in the old layout (superblock version 0 or 1: metadata without checksums, strings in
     * the global heap) is rewritten too, in the current one. */
    unsigned char sb[9] = {0};
    int old_layout = v == H5S_SEALED && pread(fd, sb, sizeof sb, H5S_BLOCK) == (ssize_t)sizeof sb && sb[8] < 2;
    close(fd);
    if (v < 0)
        return NN_EFORMAT;
    *upgraded = v == H5S_LEGACY || old_layout;
    if (!*upgraded)
        return NN_OK;
    nn_file_info info;
    nn_net *net = NULL;
    nn_optim *opt = NULL;
    nn_ckpt *st = NULL;
    int rc = load_all(path, 1, NULL, &net, NULL, NULL, &info, err);
    int ckpt = rc == NN_OK && !strcmp(info.kind, "checkpoint");
    const nn_search *search = info.have_search ? &info.search : NULL;
    if (ckpt) {
        nn_net_free(net);
        rc = load_all(path, 1, NULL, &net, &opt, &st, &info, err);
    }
    if (rc == NN_OK && check && check(path, net, &info, ctx, err))
        rc = NN_EFORMAT;
    if (rc == NN_OK)
        rc = ckpt ? nn_ckpt_save_search(path, net, opt, st, info.rules, info.encoding, search, err)
                  : nn_export_save_search(path, net, info.rules, info.encoding, search, err);
    nn_net_free(net);
    nn_optim_free(opt);
    nn_ckpt_free(st);
    if (rc != NN_OK)
        *upgraded = 0;
    return rc;
}
