/* test_mpi_wire.c — the learner/worker message layouts (train/mpi_wire.h): sizes against the documented
 * layout, exact round trips of samples and nets, and refusal of bad messages (nothing added or changed). */
#include <math.h>

#include "test_util.h"
#include "nn/net.h"
#include "selfplay/mcts_status.h"
#include "train/mpi_wire.h"

enum { DIM = 14, PITS = 6, NV = 1 };

/* n samples whose every value is distinct and known: sample i, field offset j -> i * 100 + j (+ 0.25). */
static replay_buffer *filled(int n)
{
    replay_buffer *rb = replay_create(DIM, PITS, NV, 100, NULL);
    assert_non_null(rb);
    for (int i = 0; i < n; i++) {
        float x[DIM], pi[PITS], z[NV] = {(i % 3) - 1.0f};
        uint8_t legal[PITS];
        for (int j = 0; j < DIM; j++)
            x[j] = (float)(i * 100 + j) + 0.25f;
        for (int j = 0; j < PITS; j++) {
            legal[j] = (uint8_t)((i + j) % 2);
            pi[j] = legal[j] ? 1.0f / 3 : 0;
        }
        replay_sample s = {.x = x, .legal = legal, .pi = pi, .z = z, .margin = -0.125f * (float)i};
        assert_int_equal(replay_add(rb, &s, 1), MCTS_OK);
    }
    return rb;
}

static void test_sizes(void **state)
{
    (void)state;
    /* 14 floats x + 6 bytes legal + 6 floats pi + 1 float z + 1 float margin */
    assert_int_equal(mpiw_sample_bytes(DIM, PITS, NV), 56 + 6 + 24 + 4 + 4);
    assert_int_equal(mpiw_samples_size(DIM, PITS, NV, 10), 48 + 940);
    assert_int_equal(mpiw_net_size(1000), 32 + 4000);
}

static void test_samples_round_trip(void **state)
{
    (void)state;
    replay_buffer *a = filled(5), *b = replay_create(DIM, PITS, NV, 100, NULL);
    unsigned char buf[2048];
    size_t len;
    char err[MPIW_ERRLEN];
    assert_int_equal(mpiw_pack_samples(a, 1, 3, 2, 7, buf, sizeof buf, &len, err), MPIW_OK);
    assert_int_equal(len, mpiw_samples_size(DIM, PITS, NV, 3));
    mpiw_samples_head h;
    assert_int_equal(mpiw_read_samples_head(buf, len, &h, err), MPIW_OK);
    assert_int_equal(h.net_iteration, 7);
    assert_int_equal(h.n, 3);
    assert_int_equal(h.games, 2);
    assert_int_equal(h.dim, DIM);
    assert_int_equal(h.pits, PITS);
    assert_int_equal(h.n_value, NV);
    assert_int_equal(mpiw_unpack_samples(buf, len, b, err), MPIW_OK);
    assert_int_equal(replay_size(b), 3);
    for (int i = 0; i < 3; i++) {
        float xa[DIM], xb[DIM], pa[PITS], pb[PITS], za, zb, ma, mb;
        uint8_t la[PITS], lb[PITS];
        replay_get(a, (size_t)i + 1, xa, la, pa, &za, &ma);
        replay_get(b, (size_t)i, xb, lb, pb, &zb, &mb);
        assert_memory_equal(xa, xb, sizeof xa);
        assert_memory_equal(la, lb, sizeof la);
        assert_memory_equal(pa, pb, sizeof pa);
        assert_true(za == zb && ma == mb);
        assert_true(xb[0] == (float)((i + 1) * 100) + 0.25f); /* the values themselves, not only equal copies */
    }
    /* out of range or too small a buffer */
    assert_int_equal(mpiw_pack_samples(a, 3, 3, 0, 7, buf, sizeof buf, &len, err), MPIW_EINVAL);
    assert_int_equal(mpiw_pack_samples(a, 0, 5, 0, 7, buf, 100, &len, err), MPIW_EINVAL);
    replay_free(a);
    replay_free(b);
}

/* Each corruption is refused with a message, and the buffer gains nothing. */
static void test_samples_refused(void **state)
{
    (void)state;
    replay_buffer *a = filled(4), *b = replay_create(DIM, PITS, NV, 100, NULL);
    replay_buffer *other = replay_create(DIM + 2, PITS + 1, NV, 100, NULL);
    unsigned char good[2048], bad[2048];
    size_t len;
    char err[MPIW_ERRLEN];
    assert_int_equal(mpiw_pack_samples(a, 0, 4, 1, 3, good, sizeof good, &len, err), MPIW_OK);
    size_t rec = mpiw_sample_bytes(DIM, PITS, NV);
    const float nan = NAN;
    struct {
        size_t at;          /* byte to overwrite, or SIZE_MAX: shorten the message by one byte */
        const void *with;
        size_t n;
        const char *want;   /* a word of the message */
    } cases[] = {
        {0, "XXXX", 4, "magic"},
        {8, "\x01\x02\x03\x04", 4, "marker"},       /* the other byte order */
        {SIZE_MAX, NULL, 0, "header says"},
        {48 + 2 * rec + DIM * 4 + 1, "\x02", 1, "legal"},                          /* legal flag 2 */
        {48 + 3 * rec + DIM * 4 + PITS + 4, &nan, 4, "non-finite"},               /* a NaN pi */
        {36, "\xff\xff\x00\x00", 4, "header says"},                                /* 65535 samples */
        {32, "\x63\x00\x00\x00", 4, "out of range"},                               /* 99 values */
        {28, "\x41\x00\x00\x00", 4, "out of range"},                               /* 65 pits */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(bad, good, len);
        size_t blen = len;
        if (cases[c].at == SIZE_MAX)
            blen--;
        else
            memcpy(bad + cases[c].at, cases[c].with, cases[c].n);
        err[0] = 0;
        if (mpiw_unpack_samples(bad, blen, b, err) != MPIW_EINVAL)
            fail_msg("case %zu was accepted", c);
        if (!strstr(err, cases[c].want))
            fail_msg("case %zu: '%s' does not say '%s'", c, err, cases[c].want);
        assert_int_equal(replay_size(b), 0);
    }
    assert_int_equal(mpiw_unpack_samples(good, len, other, err), MPIW_EINVAL);
    assert_non_null(strstr(err, "same config"));
    assert_int_equal(replay_size(other), 0);
    assert_int_equal(mpiw_unpack_samples(good, len, b, err), MPIW_OK); /* the intact message still reads */
    assert_int_equal(replay_size(b), 4);
    replay_free(a);
    replay_free(b);
    replay_free(other);
}

static void test_net_round_trip(void **state)
{
    (void)state;
    nn_config c = nn_config_default(DIM, PITS);
    char err[MPIW_ERRLEN + NN_ERRLEN];
    nn_net *a = nn_net_create(&c, 1, err), *b = nn_net_create(&c, 2, err);
    assert_non_null(a);
    assert_non_null(b);
    size_t np = nn_param_count(a), len = mpiw_net_size(np);
    unsigned char *buf = malloc(len);
    assert_non_null(buf);
    mpiw_pack_net(a, 42, buf);
    int64_t it = -1;
    assert_memory_not_equal(nn_params_const(a), nn_params_const(b), np * 4);
    assert_int_equal(mpiw_unpack_net(buf, len, b, &it, err), MPIW_OK);
    assert_int_equal(it, 42);
    assert_memory_equal(nn_params_const(a), nn_params_const(b), np * 4);

    /* a net of another shape, a truncated message, another magic: refused, the net unchanged */
    nn_config c2 = nn_config_default(DIM, PITS);
    c2.hidden[0] += 1;
    nn_net *d = nn_net_create(&c2, 3, err);
    assert_non_null(d);
    float first = nn_params_const(d)[0];
    assert_int_equal(mpiw_unpack_net(buf, len, d, &it, err), MPIW_EINVAL);
    assert_non_null(strstr(err, "parameters"));
    assert_true(nn_params_const(d)[0] == first);
    assert_int_equal(mpiw_unpack_net(buf, len - 4, b, &it, err), MPIW_EINVAL);
    assert_int_equal(mpiw_unpack_net(buf, 10, b, &it, err), MPIW_EINVAL);
    buf[0] ^= 1;
    assert_int_equal(mpiw_unpack_net(buf, len, b, &it, err), MPIW_EINVAL);
    assert_non_null(strstr(err, "magic"));
    free(buf);
    nn_net_free(a);
    nn_net_free(b);
    nn_net_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_samples_round_trip),
        cmocka_unit_test(test_samples_refused),
        cmocka_unit_test(test_net_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
