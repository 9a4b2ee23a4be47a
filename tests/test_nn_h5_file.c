/* test_nn_h5_file.c — the integrity of net files on disk (nn/h5io.h): a save that runs out of space
 * (RLIMIT_FSIZE, the way a full disk fails a write) is an NN_EIO that leaves the previous file loadable and
 * unchanged, no PATH.tmp behind and the process able to exit cleanly (it used to segfault in H5F__close_cb at
 * exit); every single-byte flip of a real checkpoint is refused with a message naming the file, or, where
 * the byte is outside what the checksum covers, loads identical weights — never a crash, a hang or other
 * numbers; files without the sowzero checksum are refused with a message saying how to upgrade them, and
 * nn_upgrade makes them loadable with the same weights, `net --upgrade` only once their metadata fits a game. */
#define _GNU_SOURCE
#include "tests/test_util.h"

#include <hdf5.h>
#include <signal.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nn/h5io.h"
#include "nn/net.h"
#include "nn/optim.h"
#include "tests/nn_reseal.h"

#define RULES "kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0"
#define ENC "kalah-mover-v1"

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/nn_h5f_%s", SOWZERO_TMP, name);
}

static nn_net *make_net(uint64_t seed, int h)
{
    nn_config c = nn_config_default(14, 6);
    c.hidden[0] = c.hidden[1] = h;
    c.hidden[2] = h / 2;
    char err[NN_ERRLEN];
    nn_net *n = nn_net_create(&c, seed, err);
    if (!n)
        fail_msg("%s", err);
    return n;
}

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(*n ? *n : 1);
    assert_int_equal(fread(buf, 1, *n, f), *n);
    fclose(f);
    return buf;
}

static void write_all(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* A checkpoint with a replay-sized blob, so a save is well past the size limit set below. */
static int save_ckpt(const char *path, const nn_net *net, size_t blob_n, char *err)
{
    nn_optim_config oc = nn_optim_config_default();
    nn_optim *opt = nn_optim_create(&oc, nn_param_count(net), err);
    nn_ckpt *st = nn_ckpt_create();
    unsigned char *blob = malloc(blob_n);
    for (size_t i = 0; i < blob_n; i++)
        blob[i] = (unsigned char)(i * 2654435761u >> 13);
    int rc = nn_ckpt_put_i64(st, "step", 7) | nn_ckpt_put_blob(st, "replay", blob, blob_n);
    if (rc == NN_OK)
        rc = nn_ckpt_save(path, net, opt, st, RULES, ENC, err);
    free(blob);
    nn_ckpt_free(st);
    nn_optim_free(opt);
    return rc;
}

/* In a child limited to `limit` bytes per file (writes past it fail with EFBIG, SIGXFSZ ignored), overwrites
 * path with a bigger checkpoint (export: with an export of a bigger net). The child exits normally (atexit
 * handlers, HDF5's included) with 0 when the save was an NN_EIO naming the file and left no PATH.tmp. */
static void full_disk_save(const char *path, int export, rlim_t limit)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = {limit, limit};
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            exit(10);
        char err[NN_ERRLEN] = "";
        nn_net *big = make_net(5, 256);
        int rc = export ? nn_export_save(path, big, RULES, ENC, err) : save_ckpt(path, big, 1 << 20, err);
        nn_net_free(big);
        if (rc != NN_EIO || !strstr(err, path))
            exit(11);
        if (tu_temp_files(path))
            exit(12);
        exit(0); /* through exit(), so HDF5's own atexit clean-up runs and must not crash */
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status))
        fail_msg("the child saving on a full disk died of signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_disk_full(void **state)
{
    (void)state;
    char path[512], err[NN_ERRLEN];
    tmp_path(path, sizeof path, "full.h5");
    nn_net *net = make_net(3, 16), *back = NULL;
    for (int export = 0; export < 2; export++) {
        int rc = export ? nn_export_save(path, net, RULES, ENC, err) : save_ckpt(path, net, 4096, err);
        assert_int_equal(rc, NN_OK);
        size_t n0, n1;
        unsigned char *before = read_all(path, &n0);
        /* A limit below the new file's size, and one that cuts it near its end. */
        full_disk_save(path, export, 64 << 10);
        full_disk_save(path, export, export ? 240 << 10 : 1000 << 10);
        unsigned char *after = read_all(path, &n1);
        assert_int_equal(n0, n1);
        assert_memory_equal(before, after, n0);
        if (nn_load(path, RULES, &back, NULL, err) != NN_OK)
            fail_msg("the previous file no longer loads: %s", err);
        assert_memory_equal(nn_params(net), nn_params(back), nn_param_count(net) * sizeof(float));
        nn_net_free(back);
        free(before), free(after);
    }
    nn_net_free(net);
}

/* Loads path, as a checkpoint when blob_n > 0 (else as an export); returns the NN code. On success the
 * weights must equal net's and, for a checkpoint, the optimiser state and the items must be the ones
 * save_ckpt wrote. On failure the message must name the file. */
static int load_and_compare(const char *path, nn_net *net, size_t blob_n)
{
    char err[NN_ERRLEN] = "";
    nn_net *b = NULL;
    nn_optim *o = NULL;
    nn_ckpt *st = NULL;
    int rc = nn_ckpt_load(path, RULES, &b, blob_n ? &o : NULL, blob_n ? &st : NULL, NULL, err);
    if (rc != NN_OK) {
        if (!strstr(err, path))
            fail_msg("a refused file's message does not name it: %s", err);
        assert_null(b);
        return rc;
    }
    assert_int_equal(nn_param_count(b), nn_param_count(net));
    assert_memory_equal(nn_params(b), nn_params(net), nn_param_count(net) * sizeof(float));
    if (blob_n) {
        const void *d;
        size_t n;
        int64_t step;
        assert_int_equal(nn_ckpt_get_blob(st, "replay", &d, &n), NN_OK);
        assert_int_equal(n, blob_n);
        assert_int_equal(nn_ckpt_get_i64(st, "step", &step), NN_OK);
        assert_int_equal(step, 7);
        assert_int_equal(nn_optim_steps(o), 0);
    }
    nn_net_free(b), nn_optim_free(o), nn_ckpt_free(st);
    return rc;
}

/* Flips bytes of the file at path in place (pwrite, then the original back) and loads it after each: at
 * every offset from 0 in steps of `stride`, with x ^ 0xff and, at every 7th of those, x ^ 0x01 too. Returns
 * how many changed files loaded (all must be refused). */
static int flips_accepted(const char *path, const unsigned char *bytes, size_t n, size_t stride, nn_net *net,
                          size_t blob_n)
{
    int fd = open(path, O_RDWR), accepted = 0;
    assert_true(fd >= 0);
    for (size_t i = 0; i < n; i += stride)
        for (int k = 0; k < (i / stride % 7 ? 1 : 2); k++) {
            unsigned char b = bytes[i] ^ (k ? 0x01 : 0xff);
            assert_int_equal(pwrite(fd, &b, 1, (off_t)i), 1);
            int rc = load_and_compare(path, net, blob_n);
            accepted += rc == NN_OK;
            assert_int_equal(pwrite(fd, &bytes[i], 1, (off_t)i), 1);
        }
    close(fd);
    return accepted;
}

/* Every single-byte change (x ^ 0xff everywhere, x ^ 0x01 at every 7th offset) of a real export (what
 * best.h5 is), and of a checkpoint at every 5th offset, is refused with a message naming the file, as is
 * every truncation on a stride and an appended tail. (Nothing is left outside the checksum: the header is
 * compared whole, its NUL padding included.) After the flips the file, every byte put back, loads again. */
static void test_every_byte_flip(void **state)
{
    (void)state;
    char path[512], bad[512], err[NN_ERRLEN];
    tmp_path(path, sizeof path, "flip.h5");
    tmp_path(bad, sizeof bad, "flip_bad.h5");
    nn_net *net = make_net(9, 8);
    for (int ckpt = 0; ckpt < 2; ckpt++) {
        int rc = ckpt ? save_ckpt(path, net, 64, err) : nn_export_save(path, net, RULES, ENC, err);
        assert_int_equal(rc, NN_OK);
        size_t n;
        unsigned char *bytes = read_all(path, &n);
        write_all(bad, bytes, n);
        size_t blob_n = ckpt ? 64 : 0;
        assert_int_equal(flips_accepted(bad, bytes, n, ckpt ? 5 : 1, net, blob_n), 0);
        rc = load_and_compare(bad, net, blob_n);
        assert_int_equal(rc, NN_OK); /* every byte put back */
        for (size_t len = 0; len < n; len += 97) {
            write_all(bad, bytes, len);
            assert_int_equal(load_and_compare(bad, net, 0), NN_EFORMAT);
        }
        unsigned char *longer = calloc(n + 8, 1);
        memcpy(longer, bytes, n);
        write_all(bad, longer, n + 8);
        assert_int_equal(load_and_compare(bad, net, 0), NN_EFORMAT);
        free(longer), free(bytes);
    }
    nn_net_free(net);
}

/* Weights stored as another float type (big-endian float32, float64) or the blob as another integer type
 * are refused even with a valid checksum: libhdf5 would convert them silently into other numbers. */
static void test_exact_types(void **state)
{
    (void)state;
    char path[512], err[NN_ERRLEN];
    tmp_path(path, sizeof path, "types.h5");
    nn_net *net = make_net(4, 8);
    hid_t types[2] = {H5T_IEEE_F32BE, H5T_IEEE_F64LE};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(save_ckpt(path, net, 16, err), NN_OK);
        hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        assert_true(f >= 0);
        const char *ds = i < 2 ? "layers/00_hidden/b" : "train/replay";
        hsize_t dim = i < 2 ? 8 : 16;
        assert_true(H5Ldelete(f, ds, H5P_DEFAULT) >= 0);
        hid_t sp = H5Screate_simple(1, &dim, NULL);
        hid_t d = H5Dcreate2(f, ds, i < 2 ? types[i] : H5T_STD_I16LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        assert_true(d >= 0);
        double zero[16] = {0};
        assert_true(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zero) >= 0);
        H5Dclose(d), H5Sclose(sp), H5Fclose(f);
        assert_int_equal(tu_reseal(path), 0);
        nn_net *b = NULL;
        nn_ckpt *st = NULL;
        assert_int_equal(nn_ckpt_load(path, RULES, &b, NULL, &st, NULL, err), NN_EFORMAT);
        assert_non_null(strstr(err, i < 2 ? "float32" : "/train"));
        assert_null(b);
    }
    nn_net_free(net);
}

/* A file written before the checksum (the same HDF5 file without the user block, as h5unjam leaves it) is
 * refused with the advice to upgrade; nn_upgrade rewrites it with everything in it, and a second upgrade
 * leaves it alone. */
static void test_legacy_upgrade(void **state)
{
    (void)state;
    char path[512], err[NN_ERRLEN] = "";
    tmp_path(path, sizeof path, "legacy.h5");
    nn_net *net = make_net(6, 8);
    for (int export = 0; export < 2; export++) {
        int rc = export ? nn_export_save(path, net, RULES, ENC, err) : save_ckpt(path, net, 32, err);
        assert_int_equal(rc, NN_OK);
        size_t n;
        unsigned char *bytes = read_all(path, &n);
        write_all(path, bytes + 512, n - 512);
        free(bytes);
        nn_net *b = NULL;
        assert_int_equal(nn_load(path, RULES, &b, NULL, err), NN_EFORMAT);
        assert_non_null(strstr(err, "no sowzero checksum"));
        assert_non_null(strstr(err, "--upgrade"));
        int up = -1;
        if (nn_upgrade(path, NULL, NULL, &up, err) != NN_OK)
            fail_msg("upgrade: %s", err);
        assert_int_equal(up, 1);
        if (export) {
            nn_file_info info;
            assert_int_equal(nn_load(path, RULES, &b, &info, err), NN_OK);
            assert_string_equal(info.kind, "export");
            assert_string_equal(info.encoding, ENC);
            assert_memory_equal(nn_params(b), nn_params(net), nn_param_count(net) * sizeof(float));
            nn_net_free(b);
        } else
            assert_int_equal(load_and_compare(path, net, 32), NN_OK);
        assert_int_equal(nn_upgrade(path, NULL, NULL, &up, err), NN_OK);
        assert_int_equal(up, 0);
    }
    nn_net_free(net);
}

/* A file written before the checksum as a file from an export with this metadata (its net's inputs and
 * moves, its rules and encoding attributes; c_puct: the search record's, 0 for none), and its bytes. */
static unsigned char *legacy_export(const char *path, int inputs, int moves, const char *rules, const char *enc,
                                    double c_puct, size_t *n)
{
    char err[NN_ERRLEN];
    nn_config c = nn_config_default(inputs, moves);
    nn_net *net = nn_net_create(&c, 5, err);
    assert_non_null(net);
    nn_search s = {.sims = 40, .batch = 1, .c_puct = 1.25, .fpu_reduction = 0.25, .root = "puct", .gumbel_k = 8,
                   .gumbel_c_visit = 50, .gumbel_c_scale = 1};
    if (nn_export_save_search(path, net, rules, enc, c_puct ? &s : NULL, err) != NN_OK)
        fail_msg("%s", err);
    nn_net_free(net);
    unsigned char *bytes = read_all(path, n);
    write_all(path, bytes + 512, *n - 512);
    free(bytes);
    if (c_puct && c_puct != s.c_puct) {   /* written behind the saver's range check */
        hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), g = H5Gopen2(f, "search", H5P_DEFAULT);
        assert_true(f >= 0 && g >= 0);
        hid_t a = H5Aopen(g, "c_puct", H5P_DEFAULT);
        assert_true(a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, &c_puct) >= 0);
        H5Aclose(a), H5Gclose(g), H5Fclose(f);
    }
    return read_all(path, n);
}

/* `net --upgrade` checks a file without the checksum as every load for play does before sealing it: rules
 * that are no known game's, an encoding that is not its game's, a net that does not fit its rules or a
 * search setting out of range is refused (exit 2) naming the file and the attribute, and the file is left
 * as it was; a file that passes becomes loadable. */
static void test_upgrade_checks_metadata(void **state)
{
    (void)state;
    static const struct {
        int inputs, moves;
        const char *rules, *enc;
        double c_puct;
        const char *want;
    } bad[] = {
        {14, 6, "nogame:pits=6", ENC, 0, "attribute 'rules'"},
        {14, 6, "kalah:pits=6,seeds=4,capture=sideways", ENC, 0, "attribute 'rules'"},
        {14, 6, "", ENC, 0, "attribute 'rules'"},
        {14, 6, RULES, "oware-mover-v1", 0, "attribute 'encoding'"},
        {14, 6, RULES, "", 0, "attribute 'encoding'"},
        {12, 5, RULES, ENC, 0, "input_dim 12, n_policy 5"},
        {14, 6, "kalah:pits=4,seeds=3,capture=opposite,end=either-empty,max_sows=0", ENC, 0, "input_dim 14"},
        {14, 6, RULES, ENC, 1.1e-308, "c_puct"},
    };
    char path[512];
    tmp_path(path, sizeof path, "upgrade_meta.h5");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t n, m;
        unsigned char *before = legacy_export(path, bad[i].inputs, bad[i].moves, bad[i].rules, bad[i].enc,
                                              bad[i].c_puct, &n);
        char *out;
        int rc = tu_run(&out, 1, "net --upgrade '%s'", path);
        if (rc != 2 || !strstr(out, path) || !strstr(out, bad[i].want))
            fail_msg("case %zu (rules '%s', encoding '%s'): exit %d, wanted 2 naming %s: %s", i, bad[i].rules,
                     bad[i].enc, rc, bad[i].want, out);
        free(out);
        unsigned char *after = read_all(path, &m);
        assert_int_equal(m, n);
        assert_memory_equal(after, before, n);
        free(before), free(after);
    }
    size_t n;
    free(legacy_export(path, 14, 6, RULES, ENC, 1.25, &n));
    char *out;
    if (tu_run(&out, 1, "net --upgrade '%s'", path) != 0)
        fail_msg("a sound file: %s", out);
    free(out);
    nn_net *b = NULL;
    char err[NN_ERRLEN];
    assert_int_equal(nn_load(path, RULES, &b, NULL, err), NN_OK);
    nn_net_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disk_full),
        cmocka_unit_test(test_every_byte_flip),
        cmocka_unit_test(test_exact_types),
        cmocka_unit_test(test_legacy_upgrade),
        cmocka_unit_test(test_upgrade_checks_metadata),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
