/* test_nn_h5.c — nets in HDF5 files (nn/h5io.h): export and checkpoint round trips (identical outputs,
 * identical continued training), the trainer's items, refusal of missing / foreign / truncated / corrupt
 * files and of format, version, shape and rules mismatches; vector value heads (n_value = 3) round trip,
 * files from before the n_value attribute load as n_value = 1, a value layer contradicting n_value is
 * refused; and `sowzero export` / `sowzero net` against the README's numpy + h5py snippet
 * (tests/nn_export_check.py) to 1e-5, which also reproduces a vector value head. */
#define _GNU_SOURCE /* memmem */
#include "tests/test_util.h"

#include <cjson/cJSON.h>
#include <hdf5.h>
#include <math.h>
#include <unistd.h>
#include "nn/h5io.h"
#include "nn/net.h"
#include "nn/optim.h"
#include "tests/nn_reseal.h"

#define RULES "kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0"
#define ENC "kalah-mover-v1"

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/nn_h5_%s", SOWZERO_TMP, name);
}

static nn_net *make_net_v(int residual, int n_value, uint64_t seed)
{
    nn_config c = nn_config_default(14, 6);
    c.hidden[0] = c.hidden[1] = 48;
    c.hidden[2] = 32;
    c.residual = residual;
    c.n_value = n_value;
    char err[NN_ERRLEN];
    nn_net *n = nn_net_create(&c, seed, err);
    if (!n)
        fail_msg("%s", err);
    return n;
}

static void inputs(float *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = (float)((i * 7919) % 13) / 4.0f;
}

static nn_net *make_net(int residual, uint64_t seed) { return make_net_v(residual, 1, seed); }

/* All outputs of a forward pass on a fixed batch, for bitwise comparisons (val: 5 × n_value). */
static void outputs(const nn_net *net, float *pol, float *val, float *mg)
{
    float x[5 * 14];
    inputs(x, 5 * 14);
    nn_workspace *ws = nn_workspace_create(net, 5);
    nn_outputs o = {pol, NULL, val, mg};
    assert_int_equal(nn_forward_ex(net, ws, x, NULL, 5, &o), NN_OK);
    nn_workspace_free(ws);
}

static void test_export_roundtrip(void **state)
{
    (void)state;
    char path[512], tmp[600], err[NN_ERRLEN];
    tmp_path(path, sizeof path, "export.h5");
    /* Cases 2 and 3: a vector value head (n_value = 3). */
    for (int variant = 0; variant < 4; variant++) {
        int residual = variant & 1, V = variant < 2 ? 1 : 3;
        nn_net *a = make_net_v(residual, V, 3 + (uint64_t)variant / 2), *b = NULL;
        /* a file under the old temporary name is someone's: a save leaves it alone */
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        tu_write_text(tmp, "precious");
        assert_int_equal(nn_export_save(path, a, RULES, ENC, err), NN_OK);
        assert_int_equal(tu_temp_files(path), 0); /* renamed away */
        char *kept = tu_read_text(tmp);
        assert_string_equal(kept, "precious");
        free(kept);
        unlink(tmp);
        nn_file_info info;
        assert_int_equal(nn_load(path, RULES, &b, &info, err), NN_OK);
        assert_string_equal(info.rules, RULES);
        assert_string_equal(info.encoding, ENC);
        assert_string_equal(info.kind, "export");
        assert_int_equal(info.format_version, NN_FORMAT_VERSION);
        assert_memory_equal(nn_net_config(a), nn_net_config(b), sizeof(nn_config));
        assert_memory_equal(nn_params(a), nn_params(b), nn_param_count(a) * sizeof(float));
        assert_int_equal(nn_net_config(b)->n_value, V);
        nn_layer L;
        assert_int_equal(nn_layer_get(b, 4, &L), NN_OK);
        assert_int_equal(L.out, V);
        /* The file holds the value layer with its real shape and the n_value attribute. */
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        assert_true(f >= 0);
        hid_t d = H5Dopen2(f, "layers/04_value/W", H5P_DEFAULT), sp = H5Dget_space(d);
        hsize_t dims[2];
        assert_int_equal(H5Sget_simple_extent_ndims(sp), 2);
        H5Sget_simple_extent_dims(sp, dims, NULL);
        assert_true(dims[0] == (hsize_t)V && dims[1] == 32);
        H5Sclose(sp), H5Dclose(d);
        long long nv = 0;
        hid_t at = H5Aopen(f, "n_value", H5P_DEFAULT);
        assert_true(at >= 0);
        assert_true(H5Aread(at, H5T_NATIVE_LLONG, &nv) >= 0);
        assert_int_equal(nv, V);
        H5Aclose(at), H5Fclose(f);
        float p1[30], v1[15] = {0}, m1[5], p2[30], v2[15] = {0}, m2[5];
        outputs(a, p1, v1, m1);
        outputs(b, p2, v2, m2);
        assert_memory_equal(p1, p2, sizeof p1);
        assert_memory_equal(v1, v2, sizeof v1);
        assert_memory_equal(m1, m2, sizeof m1);
        nn_net_free(a);
        nn_net_free(b);
    }
}

/* A net with one-hot input features (nn/net.h) round trips with its onehot_* attributes and the first
 * layer's real width; a net without them writes none (files as before). */
static void test_onehot_roundtrip(void **state)
{
    (void)state;
    char path[512], err[NN_ERRLEN];
    tmp_path(path, sizeof path, "onehot.h5");
    nn_config c = nn_config_default(14, 6);
    c.hidden[0] = c.hidden[1] = 48;
    c.hidden[2] = 32;
    c.onehot_inputs = 12;
    c.onehot_levels = 16;
    c.onehot_scale = 4.0f;
    nn_net *a = nn_net_create(&c, 9, err), *b = NULL;
    assert_non_null(a);
    assert_int_equal(nn_export_save(path, a, RULES, ENC, err), NN_OK);
    nn_file_info info;
    assert_int_equal(nn_load(path, RULES, &b, &info, err), NN_OK);
    assert_memory_equal(nn_net_config(a), nn_net_config(b), sizeof(nn_config));
    assert_memory_equal(nn_params(a), nn_params(b), nn_param_count(a) * sizeof(float));
    float p1[30], v1[5], m1[5], p2[30], v2[5], m2[5];
    outputs(a, p1, v1, m1);
    outputs(b, p2, v2, m2);
    assert_memory_equal(p1, p2, sizeof p1);
    assert_memory_equal(v1, v2, sizeof v1);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t d = H5Dopen2(f, "layers/00_hidden/W", H5P_DEFAULT), sp = H5Dget_space(d);
    hsize_t dims[2];
    H5Sget_simple_extent_dims(sp, dims, NULL);
    assert_true(dims[0] == 48 && dims[1] == 14 + 12 * 16);
    H5Sclose(sp), H5Dclose(d);
    assert_true(H5Aexists(f, "onehot_inputs") > 0 && H5Aexists(f, "onehot_levels") > 0 &&
                H5Aexists(f, "onehot_scale") > 0);
    H5Fclose(f);
    nn_net_free(a);
    nn_net_free(b);
    a = make_net(0, 3);
    assert_int_equal(nn_export_save(path, a, RULES, ENC, err), NN_OK);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_true(H5Aexists(f, "onehot_inputs") == 0);
    H5Fclose(f);
    nn_net_free(a);
    unlink(path);
}

/* Train two steps, checkpoint, then two more steps both in memory and from the reloaded checkpoint: the
 * parameters and optimiser state must be bitwise equal. Both optimisers and a non-constant schedule. */
static void continued_training(nn_opt_kind kind, int V)
{
    char path[512], err[NN_ERRLEN];
    tmp_path(path, sizeof path, "ckpt.h5");
    nn_net *net = make_net_v(1, V, 5);
    nn_optim_config oc = nn_optim_config_default();
    oc.kind = kind;
    oc.sched.kind = NN_LR_COSINE;
    oc.sched.total_steps = 10;
    oc.sched.lr = 0.01;
    nn_optim *opt = nn_optim_create(&oc, nn_param_count(net), err);
    enum { B = 8 };
    float x[B * 14], pi[B * 6], z[B * 3], m[B];
    inputs(x, B * 14);
    for (int i = 0; i < B * 6; i++)
        pi[i] = (i % 6 == (i / 6) % 6) ? 1.0f : 0.0f;
    for (int i = 0; i < B * V; i++)
        z[i] = (float)(i % 3 - 1);
    for (int r = 0; r < B; r++)
        m[r] = 0.05f * r;
    nn_batch b = {B, x, NULL, pi, z, m};
    nn_loss_weights w = nn_loss_weights_default();
    nn_workspace *ws = nn_workspace_create_train(net, B);
    float *g = malloc(nn_param_count(net) * sizeof(float));
    for (int s = 0; s < 2; s++) {
        nn_train_grad(net, ws, &b, &w, g, NULL);
        nn_optim_step(opt, nn_params(net), g);
    }
    nn_ckpt *st = nn_ckpt_create();
    const unsigned char rng[5] = {1, 2, 3, 250, 0};
    assert_int_equal(nn_ckpt_put_i64(st, "step", 2), NN_OK);
    assert_int_equal(nn_ckpt_put_i64(st, "replay_position", -12345678901LL), NN_OK);
    assert_int_equal(nn_ckpt_put_blob(st, "rng", rng, sizeof rng), NN_OK);
    assert_int_equal(nn_ckpt_put_blob(st, "empty", NULL, 0), NN_OK);
    assert_int_equal(nn_ckpt_save(path, net, opt, st, RULES, ENC, err), NN_OK);

    nn_net *net2;
    nn_optim *opt2;
    nn_ckpt *st2;
    nn_file_info info;
    if (nn_ckpt_load(path, RULES, &net2, &opt2, &st2, &info, err) != NN_OK)
        fail_msg("%s", err);
    assert_string_equal(info.kind, "checkpoint");
    assert_int_equal(nn_optim_steps(opt2), 2);
    assert_int_equal(nn_optim_get_config(opt2)->kind, kind);
    assert_memory_equal(nn_optim_get_config(opt2), nn_optim_get_config(opt), sizeof(nn_optim_config));
    int64_t v;
    const void *data;
    size_t n;
    assert_int_equal(nn_ckpt_get_i64(st2, "replay_position", &v), NN_OK);
    assert_true(v == -12345678901LL);
    assert_int_equal(nn_ckpt_get_i64(st2, "step", &v), NN_OK);
    assert_int_equal(v, 2);
    assert_int_equal(nn_ckpt_get_blob(st2, "rng", &data, &n), NN_OK);
    assert_int_equal(n, sizeof rng);
    assert_memory_equal(data, rng, sizeof rng);
    assert_int_equal(nn_ckpt_get_blob(st2, "empty", &data, &n), NN_OK);
    assert_int_equal(n, 0);
    assert_int_equal(nn_ckpt_get_blob(st2, "step", &data, &n), NN_EINVAL); /* a scalar, not a blob */

    for (int s = 0; s < 2; s++) {
        nn_train_grad(net, ws, &b, &w, g, NULL);
        nn_optim_step(opt, nn_params(net), g);
        nn_train_grad(net2, ws, &b, &w, g, NULL);
        nn_optim_step(opt2, nn_params(net2), g);
    }
    assert_memory_equal(nn_params(net), nn_params(net2), nn_param_count(net) * sizeof(float));
    for (int i = 0; i < nn_optim_state_count(opt); i++)
        assert_memory_equal(nn_optim_state(opt, i, NULL), nn_optim_state(opt2, i, NULL),
                            nn_param_count(net) * sizeof(float));
    free(g);
    nn_workspace_free(ws);
    nn_ckpt_free(st), nn_ckpt_free(st2);
    nn_optim_free(opt), nn_optim_free(opt2);
    nn_net_free(net), nn_net_free(net2);
}

static void test_checkpoint_adam(void **state)
{
    (void)state;
    continued_training(NN_OPT_ADAM, 1);
    continued_training(NN_OPT_ADAM, 3);
}

static void test_checkpoint_sgd(void **state)
{
    (void)state;
    continued_training(NN_OPT_SGD, 1);
}

static void test_ckpt_items(void **state)
{
    (void)state;
    nn_ckpt *c = nn_ckpt_create();
    assert_int_equal(nn_ckpt_put_i64(c, "a", 1), NN_OK);
    assert_int_equal(nn_ckpt_put_i64(c, "a", 2), NN_OK); /* replaces */
    assert_int_equal(nn_ckpt_put_blob(c, "a", "x", 1), NN_EINVAL);
    assert_int_equal(nn_ckpt_put_i64(c, "bad/name", 1), NN_EINVAL);
    assert_int_equal(nn_ckpt_put_i64(c, "", 1), NN_EINVAL);
    assert_int_equal(nn_ckpt_put_blob(c, "b", "xy", 2), NN_OK);
    assert_int_equal(nn_ckpt_put_blob(c, "b", "z", 1), NN_OK);
    const void *d;
    size_t n;
    int64_t v;
    assert_int_equal(nn_ckpt_get_blob(c, "b", &d, &n), NN_OK);
    assert_int_equal(n, 1);
    assert_int_equal(((const char *)d)[0], 'z');
    assert_int_equal(nn_ckpt_get_i64(c, "a", &v), NN_OK);
    assert_int_equal(v, 2);
    assert_int_equal(nn_ckpt_get_i64(c, "missing", &v), NN_EINVAL);
    assert_string_equal(nn_ckpt_name(c, 0), "a");
    assert_string_equal(nn_ckpt_name(c, 1), "b");
    assert_null(nn_ckpt_name(c, 2));
    nn_ckpt_free(c);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static unsigned char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(*n);
    assert_int_equal(fread(buf, 1, *n, f), *n);
    fclose(f);
    return buf;
}

/* Loading must fail with `code` and a message containing `needle`, returning no net. */
static void expect_fail(const char *path, const char *rules, int code, const char *needle)
{
    char err[NN_ERRLEN] = "";
    nn_net *net = (nn_net *)1;
    int rc = nn_load(path, rules, &net, NULL, err);
    if (rc != code || !strstr(err, needle))
        fail_msg("%s: got %d '%s', wanted %d with '%s'", path, rc, err, code, needle);
    assert_null(net);
}

static void test_bad_files(void **state)
{
    (void)state;
    char good[512], bad[512], err[NN_ERRLEN];
    tmp_path(good, sizeof good, "good.h5");
    tmp_path(bad, sizeof bad, "bad.h5");
    nn_net *net = make_net(0, 9);
    assert_int_equal(nn_export_save(good, net, RULES, ENC, err), NN_OK);
    size_t n;
    unsigned char *bytes = read_file(good, &n);

    expect_fail("/nonexistent/dir/net.h5", NULL, NN_EIO, "cannot open");
    write_file(bad, "this is not hdf5 at all, just text\n", 35);
    expect_fail(bad, NULL, NN_EFORMAT, "not a sowzero net file");
    write_file(bad, bytes, n / 2);
    expect_fail(bad, NULL, NN_EFORMAT, "truncated");
    expect_fail("/dev/null", NULL, NN_EFORMAT, "not a regular file");
    write_file(bad, bytes, 100);
    expect_fail(bad, NULL, NN_EFORMAT, bad);

    /* Flip one bit inside the first hidden layer's weights: the file's checksum catches it, and behind it
     * (the file resealed) the dataset's Fletcher-32. */
    const float *w = nn_params(net);
    unsigned char *hit = memmem(bytes, n, w, 16 * sizeof(float));
    assert_non_null(hit);
    hit[5] ^= 0x10;
    write_file(bad, bytes, n);
    expect_fail(bad, NULL, NN_EFORMAT, "checksum mismatch");
    assert_int_equal(tu_reseal(bad), 0);
    expect_fail(bad, NULL, NN_EFORMAT, "00_hidden");
    hit[5] ^= 0x10;

    /* Rules the caller did not ask for. */
    expect_fail(good, "kalah:pits=4,seeds=3,capture=opposite,end=either-empty,max_sows=0", NN_EMISMATCH,
                "kalah:pits=6");

    /* Edited copies: wrong format name, wrong version, a wrong shape, a missing head, missing attribute. */
    struct {
        const char *what;
        int code;
        const char *needle;
    } cases[] = {{"format", NN_EFORMAT, "format is 'other'"},
                 {"version", NN_EFORMAT, "format_version 99"},
                 {"shape", NN_EMISMATCH, "01_hidden"},
                 {"head", NN_EFORMAT, "policy and value"},
                 {"attr", NN_EFORMAT, "missing attribute 'encoding'"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_file(bad, bytes, n);
        hid_t f = H5Fopen(bad, H5F_ACC_RDWR, H5P_DEFAULT);
        assert_true(f >= 0);
        hid_t sp = H5Screate(H5S_SCALAR);
        const char *s = cases[i].what;
        if (!strcmp(s, "format")) {
            H5Adelete(f, "format");
            hid_t t = H5Tcopy(H5T_C_S1);
            H5Tset_size(t, 6);
            hid_t a = H5Acreate2(f, "format", t, sp, H5P_DEFAULT, H5P_DEFAULT);
            H5Awrite(a, t, "other");
            H5Aclose(a);
            H5Tclose(t);
        } else if (!strcmp(s, "version")) {
            H5Adelete(f, "format_version");
            int v = 99;
            hid_t a = H5Acreate2(f, "format_version", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
            H5Awrite(a, H5T_NATIVE_INT, &v);
            H5Aclose(a);
        } else if (!strcmp(s, "shape")) {
            H5Ldelete(f, "layers/01_hidden/W", H5P_DEFAULT);
            hsize_t d[2] = {48, 47};
            hid_t ds = H5Screate_simple(2, d, NULL);
            hid_t dd = H5Dcreate2(f, "layers/01_hidden/W", H5T_IEEE_F32LE, ds, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            H5Dclose(dd);
            H5Sclose(ds);
        } else if (!strcmp(s, "head")) {
            H5Ldelete(f, "layers/04_value", H5P_DEFAULT);
            H5Ldelete(f, "layers/05_margin", H5P_DEFAULT);
        } else
            H5Adelete(f, "encoding");
        H5Sclose(sp);
        H5Fclose(f);
        expect_fail(bad, NULL, NN_EFORMAT, "damaged"); /* the size or the checksum */
        assert_int_equal(tu_reseal(bad), 0);
        expect_fail(bad, NULL, cases[i].code, cases[i].needle);
    }

    /* An export is not a checkpoint. */
    nn_optim *opt = (nn_optim *)1;
    assert_int_equal(nn_ckpt_load(good, NULL, NULL, &opt, NULL, NULL, err), NN_EFORMAT);
    assert_null(opt);
    assert_non_null(strstr(err, "not a checkpoint"));

    /* A failed save leaves nothing behind. */
    assert_int_equal(nn_export_save("/nonexistent/dir/x.h5", net, RULES, ENC, err), NN_EIO);
    free(bytes);
    nn_net_free(net);
}

/* Replaces (or, with v < 0, deletes) the root attribute n_value of an existing file. */
/* Replaces the root int64 attribute `name` of the file at path by v, or only deletes it when v < 0 (it
 * must exist), and reseals the file. */
static void set_i64_attr(const char *path, const char *name, long long v)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_true(H5Adelete(f, name) >= 0);
    if (v >= 0) {
        hid_t sp = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(f, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        assert_true(a >= 0);
        H5Awrite(a, H5T_NATIVE_LLONG, &v);
        H5Aclose(a);
        H5Sclose(sp);
    }
    assert_true(H5Fclose(f) >= 0);
    assert_int_equal(tu_reseal(path), 0);
}

static void set_n_value(const char *path, long long v) { set_i64_attr(path, "n_value", v); }

/* Files from before the n_value attribute (the same layout without it) load as n_value = 1 with identical
 * weights, export and checkpoint alike; a value layer that contradicts n_value (stated or implied) and an
 * n_value out of range are NN_EFORMAT naming the problem. */
static void test_value_head_compat(void **state)
{
    (void)state;
    char path[512], err[NN_ERRLEN];
    tmp_path(path, sizeof path, "old.h5");
    nn_net *one = make_net(0, 12), *three = make_net_v(0, 3, 13), *b = NULL;

    assert_int_equal(nn_export_save(path, one, RULES, ENC, err), NN_OK);
    set_n_value(path, -1);
    if (nn_load(path, RULES, &b, NULL, err) != NN_OK)
        fail_msg("an export without n_value: %s", err);
    assert_int_equal(nn_net_config(b)->n_value, 1);
    assert_memory_equal(nn_net_config(one), nn_net_config(b), sizeof(nn_config));
    assert_memory_equal(nn_params(one), nn_params(b), nn_param_count(one) * sizeof(float));
    nn_net_free(b);

    nn_optim_config oc = nn_optim_config_default();
    nn_optim *opt = nn_optim_create(&oc, nn_param_count(one), err), *opt2 = NULL;
    assert_int_equal(nn_ckpt_save(path, one, opt, NULL, RULES, ENC, err), NN_OK);
    set_n_value(path, -1);
    if (nn_ckpt_load(path, RULES, &b, &opt2, NULL, NULL, err) != NN_OK)
        fail_msg("a checkpoint without n_value: %s", err);
    assert_int_equal(nn_net_config(b)->n_value, 1);
    assert_memory_equal(nn_params(one), nn_params(b), nn_param_count(one) * sizeof(float));
    nn_net_free(b), nn_optim_free(opt), nn_optim_free(opt2);

    /* Three value rows but no attribute (implied 1), or an attribute saying 2 or 1: the file contradicts
     * itself. */
    const long long wrong[3] = {-1, 2, 1};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(nn_export_save(path, three, RULES, ENC, err), NN_OK);
        set_n_value(path, wrong[i]);
        expect_fail(path, NULL, NN_EFORMAT, "04_value has W 3x32 and b 3");
        expect_fail(path, NULL, NN_EFORMAT, wrong[i] < 0 ? "no n_value attribute" : "n_value is");
    }
    /* One value row where n_value says 3. */
    assert_int_equal(nn_export_save(path, one, RULES, ENC, err), NN_OK);
    set_n_value(path, 3);
    expect_fail(path, NULL, NN_EFORMAT, "n_value is 3");
    /* Out of range. */
    const long long range[2] = {0, NN_MAX_VALUE + 1};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(nn_export_save(path, three, RULES, ENC, err), NN_OK);
        set_n_value(path, range[i]);
        expect_fail(path, NULL, NN_EFORMAT, "n_value");
        expect_fail(path, NULL, NN_EFORMAT, "out of range");
    }
    nn_net_free(one), nn_net_free(three);
}

/* Runs tests/nn_export_check.py on a net file and a position; returns its stdout (caller frees). */
static char *run_snippet(const char *net_path, const char *pos)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/nn_export_check.py' '%s' '%s'", SOWZERO_PYTHON3, SOWZERO_SOURCE_DIR,
             net_path, pos);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char *b = calloc(1, 65536);
    size_t got = fread(b, 1, 65535, p);
    assert_int_equal(pclose(p), 0);
    assert_true(got > 0);
    return b;
}

/* A one-hot net's file with a damaged onehot_* attribute is NN_EFORMAT naming it; without onehot_inputs
 * the first layer's width contradicts the file's input_dim (NN_EMISMATCH naming the layer). */
static void test_onehot_bad_attributes(void **state)
{
    (void)state;
    char path[512], err[NN_ERRLEN];
    tmp_path(path, sizeof path, "onehot_bad.h5");
    nn_config c = nn_config_default(14, 6);
    c.onehot_inputs = 12;
    c.onehot_levels = 8;
    c.onehot_scale = 4.0f;
    nn_net *net = nn_net_create(&c, 5, err);
    assert_non_null(net);
    static const struct {
        const char *attr;
        long long v;
        int code;
        const char *needle;
    } cases[] = {{"onehot_levels", -1, NN_EFORMAT, "missing attribute 'onehot_levels'"},
                 {"onehot_levels", 1, NN_EFORMAT, "onehot_levels/onehot_scale attributes out of range"},
                 {"onehot_inputs", 15, NN_EFORMAT, "out of range"},
                 {"onehot_inputs", -1, NN_EMISMATCH, "/layers/00_hidden has W 256x110"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(nn_export_save(path, net, RULES, ENC, err), NN_OK);
        set_i64_attr(path, cases[k].attr, cases[k].v);
        expect_fail(path, NULL, cases[k].code, cases[k].needle);
    }
    nn_net_free(net);
    unlink(path);
}

/* The README snippet (tests/nn_export_check.py, numpy + h5py) reproduces `sowzero net` to 1e-5, on an
 * export written by `sowzero export` from a checkpoint; plain and residual nets, both sides to move,
 * positions with illegal moves. */
static void test_python_matches_cli(void **state)
{
    (void)state;
    if (access(SOWZERO_BIN, X_OK) != 0)
        fail_msg("the sowzero binary %s is not built", SOWZERO_BIN);
    static const char *positions[] = {"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "0,5,5,5,0,4,2,4,4,0,6,5,5,3 N",
                                      "1,0,0,7,0,2,10,0,3,3,9,1,1,11 S", "0,0,0,0,0,1,20,2,0,0,1,0,0,24 N"};
    char ckpt[512], exp[512], err[NN_ERRLEN];
    tmp_path(ckpt, sizeof ckpt, "py_ckpt.h5");
    tmp_path(exp, sizeof exp, "py_export.h5");
    for (int variant = 0; variant < 3; variant++) { /* plain, residual, one-hot input features */
        const int residual = variant == 1;
        nn_config c = nn_config_default(14, 6);
        c.residual = residual;
        if (variant == 2) {
            c.onehot_inputs = 12;
            c.onehot_levels = 8;
            c.onehot_scale = 4.0f;
        }
        nn_net *net = nn_net_create(&c, 77 + (uint64_t)variant, err);
        /* Non-zero biases so the snippet's bias handling matters. */
        for (int i = 0; i < nn_layer_count(net); i++) {
            nn_layer L;
            nn_layer_get(net, i, &L);
            for (int k = 0; k < L.out; k++)
                nn_params(net)[L.b_offset + k] = 0.01f * (float)((k * 37 + i) % 11 - 5);
        }
        nn_optim_config oc = nn_optim_config_default();
        nn_optim *opt = nn_optim_create(&oc, nn_param_count(net), err);
        assert_int_equal(nn_ckpt_save(ckpt, net, opt, NULL, RULES, ENC, err), NN_OK);
        char *out;
        assert_int_equal(tu_run(&out, 1, "export '%s' '%s'", ckpt, exp), 0);
        free(out);
        for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++) {
            char *a, *b;
            assert_int_equal(tu_run(&a, 0, "net --net '%s' --position '%s' --json", exp, positions[i]), 0);
            b = run_snippet(exp, positions[i]);
            cJSON *ja = cJSON_Parse(a), *jb = cJSON_Parse(b);
            if (!ja || !jb)
                fail_msg("unparsable output: C '%s', python '%s'", a, b);
            cJSON *pa = cJSON_GetObjectItem(ja, "policy"), *pb = cJSON_GetObjectItem(jb, "policy");
            assert_int_equal(cJSON_GetArraySize(pa), 6);
            assert_int_equal(cJSON_GetArraySize(pb), 6);
            for (int k = 0; k < 6; k++) {
                double x = cJSON_GetArrayItem(pa, k)->valuedouble, y = cJSON_GetArrayItem(pb, k)->valuedouble;
                if (fabs(x - y) > 1e-5)
                    fail_msg("%s policy[%d]: sowzero net %.8f, numpy %.8f", positions[i], k, x, y);
            }
            double va = cJSON_GetObjectItem(ja, "value")->valuedouble;
            double vb = cJSON_GetObjectItem(jb, "value")->valuedouble;
            if (fabs(va - vb) > 1e-5)
                fail_msg("%s value: sowzero net %.8f, numpy %.8f", positions[i], va, vb);
            cJSON_Delete(ja), cJSON_Delete(jb);
            free(a), free(b);
        }
        nn_optim_free(opt);
        nn_net_free(net);
    }
}

/* The snippet on a vector value head (n_value = 3, written by nn_export_save): it prints "value" as a list
 * that matches nn_forward's three outputs to 1e-5. The kalah-mover-v1 encoding of the two positions is
 * written out here (nn/ links no game): mover's pits, opponent's pits, mover's store, opponent's store,
 * each / 4 seeds. */
static void test_python_vector_value(void **state)
{
    (void)state;
    static const char *positions[2] = {"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "0,5,5,5,0,4,2,4,4,0,6,5,5,3 N"};
    static const float counts[2][14] = {{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0},
                                        {4, 4, 0, 6, 5, 5, 0, 5, 5, 5, 0, 4, 3, 2}};
    char exp[512], err[NN_ERRLEN];
    tmp_path(exp, sizeof exp, "py_vector.h5");
    nn_config c = nn_config_default(14, 6);
    c.residual = 1;
    c.n_value = 3;
    nn_net *net = nn_net_create(&c, 91, err);
    for (int i = 0; i < nn_layer_count(net); i++) {
        nn_layer L;
        nn_layer_get(net, i, &L);
        for (int k = 0; k < L.out; k++)
            nn_params(net)[L.b_offset + k] = 0.01f * (float)((k * 37 + i) % 11 - 5);
    }
    assert_int_equal(nn_export_save(exp, net, RULES, ENC, err), NN_OK);
    nn_workspace *ws = nn_workspace_create(net, 1);
    for (int i = 0; i < 2; i++) {
        float x[14], pol[6], val[3];
        uint8_t legal[6];
        for (int k = 0; k < 14; k++)
            x[k] = counts[i][k] * 0.25f;
        for (int k = 0; k < 6; k++)
            legal[k] = counts[i][k] > 0;
        assert_int_equal(nn_forward(net, ws, x, legal, 1, pol, val), NN_OK);
        char *b = run_snippet(exp, positions[i]);
        cJSON *jb = cJSON_Parse(b);
        if (!jb)
            fail_msg("unparsable python output '%s'", b);
        cJSON *pb = cJSON_GetObjectItem(jb, "policy"), *vb = cJSON_GetObjectItem(jb, "value");
        assert_int_equal(cJSON_GetArraySize(pb), 6);
        assert_true(cJSON_IsArray(vb));
        assert_int_equal(cJSON_GetArraySize(vb), 3);
        for (int k = 0; k < 6; k++)
            if (fabs(pol[k] - cJSON_GetArrayItem(pb, k)->valuedouble) > 1e-5)
                fail_msg("%s policy[%d]: nn_forward %.8f, numpy %.8f", positions[i], k, pol[k],
                         cJSON_GetArrayItem(pb, k)->valuedouble);
        for (int k = 0; k < 3; k++)
            if (fabs(val[k] - cJSON_GetArrayItem(vb, k)->valuedouble) > 1e-5)
                fail_msg("%s value[%d]: nn_forward %.8f, numpy %.8f", positions[i], k, val[k],
                         cJSON_GetArrayItem(vb, k)->valuedouble);
        cJSON_Delete(jb);
        free(b);
    }
    nn_workspace_free(ws);
    nn_net_free(net);
}

/* Runs `sowzero ARGS` (printf format; stderr merged), which must exit with status and, when needle is
 * non-NULL, print it. */
static void cli_expect(int status, const char *needle, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cli_expect(int status, const char *needle, const char *fmt, ...)
{
    char args[2048], *out;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    int rc = tu_run(&out, 1, "%s", args);
    if (rc != status || (needle && !strstr(out, needle)))
        fail_msg("sowzero %s: exit %d (wanted %d), output lacks '%s'?\n%s", args, rc, status, needle ? needle : "",
                 out);
    free(out);
}

/* The CLI's own errors: rules the net was not trained for, a missing file, usage errors. */
static void test_cli_errors(void **state)
{
    (void)state;
    char exp[512], err[NN_ERRLEN];
    tmp_path(exp, sizeof exp, "cli.h5");
    nn_net *net = make_net(0, 1);
    assert_int_equal(nn_export_save(exp, net, RULES, ENC, err), NN_OK);
    nn_net_free(net);
    /* Bad input, exit status 2: rules the net was not trained for, a missing file, a finished position. */
    cli_expect(2, "trained for", "net --net '%s' --rules kalah:pits=4", exp);
    /* Another game's --rules with a Kalah net: both rules and the file named (it once said "this command
     * plays Kalah only", which net is not). */
    char needle[700];
    snprintf(needle, sizeof needle, "the net was trained for 'kalah:pits=6,seeds=4,capture=opposite,"
             "end=either-empty,max_sows=0' (the rules in %s), not 'basico:players=3,", exp);
    cli_expect(2, needle, "net --net '%s' --rules basico", exp);
    cli_expect(2, "), not 'congklak:pits=6,", "net --net '%s' --rules congklak:pits=6", exp);
    cli_expect(2, "cannot open", "net --net /nonexistent.h5");
    cli_expect(2, "game is over", "net --net '%s' --position '0,0,0,0,0,0,24,0,0,0,0,0,0,24 S'", exp);
    cli_expect(2, "--net", "net --position '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'");
    cli_expect(2, NULL, "net --net '%s' --position '4,4,4 S'", exp);
    cli_expect(2, NULL, "export only-one-arg");
    cli_expect(0, "policy (South) a:", "net --net '%s'", exp);
    /* A net with several value outputs is not a Kalah net. */
    net = make_net_v(0, 3, 1);
    assert_int_equal(nn_export_save(exp, net, RULES, ENC, err), NN_OK);
    nn_net_free(net);
    cli_expect(2, "n_value", "net --net '%s'", exp);
    /* --upgrade: a file without the checksum (here: the user block cut off) is refused, then upgraded once;
     * with its metadata unfit for its rules (the 3 value outputs) it is not upgraded. */
    size_t n;
    unsigned char *bytes3 = read_file(exp, &n);
    write_file(exp, bytes3 + 512, n - 512);
    free(bytes3);
    cli_expect(2, "n_value 3", "net --upgrade '%s'", exp);
    net = make_net(0, 1);
    assert_int_equal(nn_export_save(exp, net, RULES, ENC, err), NN_OK);
    nn_net_free(net);
    unsigned char *bytes = read_file(exp, &n);
    write_file(exp, bytes + 512, n - 512);
    free(bytes);
    cli_expect(2, "--upgrade", "net --net '%s'", exp);
    cli_expect(0, "\"upgraded\":true", "net --upgrade '%s' --json", exp);
    cli_expect(0, "left as it is", "net --upgrade '%s'", exp);
    cli_expect(2, NULL, "net --upgrade /nonexistent.h5");
}

/* The CRC-32 of a file's bytes after its 512-byte header, as 8 hex digits (zlib, beside nn/h5seal.c). */
static void file_crc(const char *path, char hex[16], long long *bytes)
{
    size_t n;
    unsigned char *b = read_file(path, &n);
    assert_true(n > 512);
    snprintf(hex, 16, "%08lx", crc32(0L, b + 512, (uInt)(n - 512)));
    *bytes = (long long)n;
    free(b);
}

/* export --json: one object naming both files, the rules, every layer's shapes (from the config the net
 * was made with) and checksums that match the bytes on disk. */
static void test_export_json(void **state)
{
    (void)state;
    char src[512], out[512], err[NN_ERRLEN], *text;
    tmp_path(src, sizeof src, "json-src.h5");
    tmp_path(out, sizeof out, "json-out.h5");
    unlink(out);
    nn_net *net = make_net(1, 7);
    assert_int_equal(nn_export_save(src, net, RULES, ENC, err), NN_OK);
    const nn_config *c = nn_net_config(net);
    assert_int_equal(tu_run(&text, 0, "export '%s' '%s' --json", src, out), 0);
    cJSON *o = cJSON_Parse(text);
    if (!o)
        fail_msg("not one JSON object: %s", text);
    free(text);
    assert_string_equal(cJSON_GetObjectItem(o, "file")->valuestring, out);
    assert_string_equal(cJSON_GetObjectItem(o, "source")->valuestring, src);
    assert_string_equal(cJSON_GetObjectItem(o, "source_kind")->valuestring, "export");
    assert_string_equal(cJSON_GetObjectItem(o, "rules")->valuestring, RULES);
    assert_string_equal(cJSON_GetObjectItem(o, "encoding")->valuestring, ENC);
    assert_int_equal((long long)cJSON_GetObjectItem(o, "parameters")->valuedouble, (long long)nn_param_count(net));
    char hex[16];
    long long bytes;
    file_crc(out, hex, &bytes);
    assert_string_equal(cJSON_GetObjectItem(o, "crc32")->valuestring, hex);
    assert_int_equal((long long)cJSON_GetObjectItem(o, "bytes")->valuedouble, bytes);
    file_crc(src, hex, &bytes);
    assert_string_equal(cJSON_GetObjectItem(o, "source_crc32")->valuestring, hex);
    /* Layers: the hidden ones in order, then the heads; W is out x in. */
    cJSON *layers = cJSON_GetObjectItem(o, "layers");
    int want = c->n_hidden + 2 + (c->margin_head ? 1 : 0), in = c->input_dim;
    assert_int_equal(cJSON_GetArraySize(layers), want);
    for (int i = 0; i < want; i++) {
        cJSON *l = cJSON_GetArrayItem(layers, i), *w = cJSON_GetObjectItem(l, "W");
        int rows = i < c->n_hidden ? c->hidden[i] : i == c->n_hidden ? c->n_policy : i == c->n_hidden + 1 ? c->n_value : 1;
        int cols = i < c->n_hidden ? in : c->hidden[c->n_hidden - 1];
        const char *kind = i < c->n_hidden ? "hidden" : i == c->n_hidden ? "policy" : i == c->n_hidden + 1 ? "value" : "margin";
        char name[32];
        snprintf(name, sizeof name, "%02d_%s", i, kind);
        assert_string_equal(cJSON_GetObjectItem(l, "name")->valuestring, name);
        assert_int_equal((int)cJSON_GetArrayItem(w, 0)->valuedouble, rows);
        assert_int_equal((int)cJSON_GetArrayItem(w, 1)->valuedouble, cols);
        assert_int_equal((int)cJSON_GetArrayItem(cJSON_GetObjectItem(l, "b"), 0)->valuedouble, rows);
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(l, "residual")), i < c->n_hidden && rows == cols);
        if (i < c->n_hidden)
            in = rows;
    }
    cJSON_Delete(o);
    nn_net_free(net);
    /* A missing or damaged CHECKPOINT is bad input (2), and nothing is written. */
    unlink(out);
    assert_int_equal(tu_run(&text, 1, "export '%s/none.h5' '%s' --json", SOWZERO_TMP, out), 2);
    assert_non_null(strstr(text, "CHECKPOINT: cannot open"));
    free(text);
    assert_int_equal(access(out, F_OK), -1);
    /* So is an OUT.h5 that cannot be a file: a directory, or a path in no directory. */
    assert_int_equal(tu_run(&text, 1, "export '%s' '%s'", src, SOWZERO_TMP), 2);
    assert_non_null(strstr(text, "is not a regular file"));
    free(text);
    assert_int_equal(tu_run(&text, 1, "export '%s' '%s/no-dir/x.h5'", src, SOWZERO_TMP), 2);
    assert_non_null(strstr(text, "its directory does not exist"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_onehot_roundtrip), cmocka_unit_test(test_onehot_bad_attributes),
        cmocka_unit_test(test_export_roundtrip), cmocka_unit_test(test_checkpoint_adam),
        cmocka_unit_test(test_checkpoint_sgd),   cmocka_unit_test(test_ckpt_items),
        cmocka_unit_test(test_bad_files),        cmocka_unit_test(test_value_head_compat),
        cmocka_unit_test(test_export_json),
        cmocka_unit_test(test_python_matches_cli), cmocka_unit_test(test_python_vector_value),
        cmocka_unit_test(test_cli_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
