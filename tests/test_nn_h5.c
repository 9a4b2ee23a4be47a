/* test_nn_h5.c — nets in HDF5 files (nn/h5io.h): export and checkpoint round trips (identical outputs,
 * identical continued training), the trainer's items, refusal of missing / foreign / truncated / corrupt
 * files and of format, version, shape and rules mismatches; and `sowzero export` / `sowzero net` against
 * the README's numpy + h5py snippet (tests/nn_export_check.py) to 1e-5. */
#define _GNU_SOURCE /* memmem */
#include "tests/test_util.h"

#include <cjson/cJSON.h>
#include <hdf5.h>
#include <math.h>
#include <unistd.h>
#include "nn/h5io.h"
#include "nn/net.h"
#include "nn/optim.h"

#define RULES "kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0"
#define ENC "kalah-mover-v1"

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/nn_h5_%s", SOWZERO_TMP, name);
}

static nn_net *make_net(int residual, uint64_t seed)
{
    nn_config c = nn_config_default(14, 6);
    c.hidden[0] = c.hidden[1] = 48;
    c.hidden[2] = 32;
    c.residual = residual;
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

/* All outputs of a forward pass on a fixed batch, for bitwise comparisons. */
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
    for (int residual = 0; residual < 2; residual++) {
        nn_net *a = make_net(residual, 3), *b = NULL;
        assert_int_equal(nn_export_save(path, a, RULES, ENC, err), NN_OK);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        assert_int_equal(access(tmp, F_OK), -1); /* renamed away */
        nn_file_info info;
        assert_int_equal(nn_load(path, RULES, &b, &info, err), NN_OK);
        assert_string_equal(info.rules, RULES);
        assert_string_equal(info.encoding, ENC);
        assert_string_equal(info.kind, "export");
        assert_int_equal(info.format_version, NN_FORMAT_VERSION);
        assert_memory_equal(nn_net_config(a), nn_net_config(b), sizeof(nn_config));
        assert_memory_equal(nn_params(a), nn_params(b), nn_param_count(a) * sizeof(float));
        float p1[30], v1[5], m1[5], p2[30], v2[5], m2[5];
        outputs(a, p1, v1, m1);
        outputs(b, p2, v2, m2);
        assert_memory_equal(p1, p2, sizeof p1);
        assert_memory_equal(v1, v2, sizeof v1);
        assert_memory_equal(m1, m2, sizeof m1);
        nn_net_free(a);
        nn_net_free(b);
    }
}

/* Train two steps, checkpoint, then two more steps both in memory and from the reloaded checkpoint: the
 * parameters and optimiser state must be bitwise equal. Both optimisers and a non-constant schedule. */
static void continued_training(nn_opt_kind kind)
{
    char path[512], err[NN_ERRLEN];
    tmp_path(path, sizeof path, "ckpt.h5");
    nn_net *net = make_net(1, 5);
    nn_optim_config oc = nn_optim_config_default();
    oc.kind = kind;
    oc.sched.kind = NN_LR_COSINE;
    oc.sched.total_steps = 10;
    oc.sched.lr = 0.01;
    nn_optim *opt = nn_optim_create(&oc, nn_param_count(net), err);
    enum { B = 8 };
    float x[B * 14], pi[B * 6], z[B], m[B];
    inputs(x, B * 14);
    for (int i = 0; i < B * 6; i++)
        pi[i] = (i % 6 == (i / 6) % 6) ? 1.0f : 0.0f;
    for (int r = 0; r < B; r++)
        z[r] = (float)(r % 3 - 1), m[r] = 0.05f * r;
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
    continued_training(NN_OPT_ADAM);
}

static void test_checkpoint_sgd(void **state)
{
    (void)state;
    continued_training(NN_OPT_SGD);
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
    expect_fail(bad, NULL, NN_EFORMAT, "not an HDF5 file");
    write_file(bad, bytes, n / 2);
    expect_fail(bad, NULL, NN_EFORMAT, "truncated");
    write_file(bad, bytes, 100);
    expect_fail(bad, NULL, NN_EFORMAT, bad);

    /* Flip one bit inside the first hidden layer's weights: the Fletcher-32 checksum catches it. */
    const float *w = nn_params(net);
    unsigned char *hit = memmem(bytes, n, w, 16 * sizeof(float));
    assert_non_null(hit);
    hit[5] ^= 0x10;
    write_file(bad, bytes, n);
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
    for (int residual = 0; residual < 2; residual++) {
        nn_config c = nn_config_default(14, 6);
        c.residual = residual;
        nn_net *net = nn_net_create(&c, 77 + residual, err);
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
            char *a, *b, cmd[2048];
            assert_int_equal(tu_run(&a, 0, "net --net '%s' --position '%s' --json", exp, positions[i]), 0);
            snprintf(cmd, sizeof cmd, "'%s' '%s/tests/nn_export_check.py' '%s' '%s'", SOWZERO_PYTHON3,
                     SOWZERO_SOURCE_DIR, exp, positions[i]);
            FILE *p = popen(cmd, "r");
            assert_non_null(p);
            b = calloc(1, 65536);
            size_t got = fread(b, 1, 65535, p);
            assert_int_equal(pclose(p), 0);
            assert_true(got > 0);
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

/* The CLI's own errors: rules the net was not trained for, a missing file, usage errors. */
static void test_cli_errors(void **state)
{
    (void)state;
    char exp[512], err[NN_ERRLEN], *out;
    tmp_path(exp, sizeof exp, "cli.h5");
    nn_net *net = make_net(0, 1);
    assert_int_equal(nn_export_save(exp, net, RULES, ENC, err), NN_OK);
    nn_net_free(net);
    assert_int_equal(tu_run(&out, 1, "net --net '%s' --rules kalah:pits=4", exp), 1);
    assert_non_null(strstr(out, "trained for"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "net --net /nonexistent.h5"), 1);
    assert_non_null(strstr(out, "cannot open"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "net --position '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'"), 2);
    assert_non_null(strstr(out, "--net"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "net --net '%s' --position '4,4,4 S'", exp), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "export only-one-arg"), 2);
    free(out);
    assert_int_equal(tu_run(&out, 0, "net --net '%s'", exp), 0);
    assert_non_null(strstr(out, "policy a:"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_roundtrip), cmocka_unit_test(test_checkpoint_adam),
        cmocka_unit_test(test_checkpoint_sgd),   cmocka_unit_test(test_ckpt_items),
        cmocka_unit_test(test_bad_files),        cmocka_unit_test(test_python_matches_cli),
        cmocka_unit_test(test_cli_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
