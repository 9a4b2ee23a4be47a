/* test_vecenv_gym.c — Gymnasium steps of the batched stepper (env/vecenv.h, "Gymnasium steps"): every
 * output row against the scalar rules (kalah_sow, kalah_encode, kalah_legal, kalah_winner) with next-step
 * restarts (the uint8 observations against the position's counts and, scaled, kalah_encode's floats; steps
 * asking for float rows only, uint8 rows only, both or none; the mask rows packed (every kernel's own), 8
 * or 13 bytes apart (written after the kernel), their bytes past the pits 0), every kernel
 * against the scalar kernel byte for byte (the sampler's draws included), padding boards standing still, and
 * the move check (int64 and byte actions). */
#include "test_util.h"

#include "env/kalah.h"
#include "env/vecenv.h"

#include "vecenv_rule_sets.h"
/* and one more: a single seed per pit, so that boards standing still (padding) hold pits of 1 (a capture
 * must not fire on them) */
static const char *extra_rules = "kalah:pits=6,seeds=1,capture=always";
#define B 128  /* two blocks of 64 */
#define N 100  /* boards taking part: the second block is partly padding */
#define MAX_STRIDE 13 /* the widest mask row stride tried */

static uint64_t trng(uint64_t *s) /* the test's own stream (SplitMix64) */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

typedef struct {
    float *obs;
    uint8_t *obs8;
    uint8_t *mask, *ended, *sample;
    int8_t *to_play;
    float *rewards;
    vecenv_gym_out out;
} rows;

static void rows_init(rows *w, int m)
{
    w->obs = calloc((size_t)B * (size_t)(2 * m + 2), sizeof(float));
    w->obs8 = calloc((size_t)B * (size_t)(2 * m + 2), 1);
    w->mask = calloc((size_t)B * MAX_STRIDE, 1);
    w->ended = calloc(B, 1);
    w->sample = calloc(B, 1);
    w->to_play = calloc(B, 1);
    w->rewards = calloc(2 * B, sizeof(float));
    w->out = (vecenv_gym_out){.obs = w->obs, .mask = w->mask, .to_play = w->to_play, .rewards = w->rewards,
                              .ended = w->ended, .sample = w->sample, .obs8 = w->obs8};
}

static void rows_free(rows *w)
{
    free(w->obs);
    free(w->obs8);
    free(w->mask);
    free(w->ended);
    free(w->sample);
    free(w->to_play);
    free(w->rewards);
}

static void rows_equal(const rows *a, const rows *b, int m, const char *what, int step)
{
    const size_t d = 2 * (size_t)m + 2;
    const int diff[7] = {memcmp(a->obs, b->obs, B * d * sizeof(float)), memcmp(a->mask, b->mask, B * MAX_STRIDE),
                         memcmp(a->ended, b->ended, B), memcmp(a->sample, b->sample, B),
                         memcmp(a->to_play, b->to_play, B), memcmp(a->rewards, b->rewards, 2 * B * sizeof(float)),
                         memcmp(a->obs8, b->obs8, B * d)};
    static const char *names[7] = {"obs", "mask", "ended", "sample", "to_play", "rewards", "obs8"};
    for (int f = 0; f < 7; f++)
        if (diff[f])
            fail_msg("%s step %d: %s differs from the scalar kernel's", what, step, names[f]);
}

static const char *label(vecenv_kernel k, const char *rules)
{
    static char buf[160];
    snprintf(buf, sizeof buf, "%s %s", vecenv_kernel_name(k), rules);
    return buf;
}

/* Board i's rows against the reference position p; over: its game ended with this step; obs / obs8:
 * whether the step wrote those rows. */
static void check_rows(const kalah_rules *r, const rows *w, int i, const kalah_pos *p, int over, int sampled,
                       int obs, int obs8, const char *what, int step)
{
    const int m = r->pits, d = 2 * m + 2;
    float want[2 * KALAH_MAX_PITS + 2];
    kalah_encode(r, p, want);
    if (obs && memcmp(w->obs + (size_t)i * (size_t)d, want, (size_t)d * sizeof(float)))
        fail_msg("%s step %d board %d: obs is not kalah_encode", what, step, i);
    /* the counts in kalah_encode's order (kalah.h), straight from the absolute cells */
    const int own = p->side ? m + 1 : 0, opp = p->side ? 0 : m + 1;
    const float scale = 1.0f / (float)r->seeds;
    for (int k = 0; obs8 && k < d; k++) {
        const int c = k < m ? own + k : k < 2 * m ? opp + k - m : k == 2 * m ? own + m : opp + m;
        const uint8_t got = w->obs8[(size_t)i * (size_t)d + (size_t)k];
        const float f = got * scale;
        if (got != p->cell[c] || memcmp(&f, &want[k], sizeof f))
            fail_msg("%s step %d board %d: obs8[%d] = %d, want %d (kalah_encode %a)", what, step, i, k, got,
                     p->cell[c], want[k]);
    }
    const unsigned legal = p->over ? 0 : kalah_legal(r, p);
    const size_t stride = w->out.mask_stride ? w->out.mask_stride : (size_t)m;
    for (int k = 0; k < (int)stride; k++)
        if (w->mask[(size_t)i * stride + (size_t)k] != (legal >> k & 1))
            fail_msg("%s step %d board %d: mask byte %d (stride %zu)", what, step, i, k, stride);
    assert_int_equal(w->to_play[i], p->side);
    assert_int_equal(w->ended[i], over);
    const float south = over ? (float)kalah_winner(r, p) : 0.0f, north = over ? (float)-kalah_winner(r, p) : 0.0f;
    if (memcmp(&w->rewards[2 * i], &south, sizeof south) || memcmp(&w->rewards[2 * i + 1], &north, sizeof north))
        fail_msg("%s step %d board %d: rewards %g %g, want %g %g", what, step, i, w->rewards[2 * i],
                 w->rewards[2 * i + 1], south, north);
    if (sampled && (legal ? !(legal >> w->sample[i] & 1) : w->sample[i] != 0))
        fail_msg("%s step %d board %d: sample %d not legal", what, step, i, w->sample[i]);
}

static void check_board(const kalah_rules *r, vecenv *v, int i, const kalah_pos *want, const char *what, int step)
{
    kalah_pos got;
    vecenv_get(v, i, &got);
    char a[64], b[64];
    if (memcmp(want->cell, got.cell, KALAH_CELLS) || want->side != got.side || want->over != got.over ||
        want->sows != got.sows)
        fail_msg("%s step %d board %d: want %s, got %s", what, step, i, kalah_pos_format(r, want, a, sizeof a),
                 kalah_pos_format(r, &got, b, sizeof b));
}

static void run_kernel(vecenv_kernel k)
{
    for (int rs = 0; rs <= N_RULES; rs++) {
        const char *spec = rs < N_RULES ? rule_sets[rs] : extra_rules;
        kalah_rules r;
        char err[KALAH_ERRLEN];
        assert_int_equal(kalah_rules_parse(spec, &r, err), KALAH_OK);
        vecenv *v = NULL, *ref = NULL;
        assert_int_equal(vecenv_create(&r, B, k, 0, 42, &v, err), KALAH_OK);
        assert_int_equal(vecenv_create(&r, B, VECENV_SCALAR, 0, 42, &ref, err), KALAH_OK);
        rows a, b;
        rows_init(&a, r.pits);
        rows_init(&b, r.pits);
        a.out.kept = 1; /* the kernel under test rewrites only the rewards that change (zeros hold) */
        kalah_pos pos[B], start;
        kalah_start(&r, &start);
        for (int i = 0; i < B; i++)
            pos[i] = start;
        /* a padding board in mid-game: it must stand still */
        kalah_sow(&r, &pos[N + 3], 0, NULL);
        assert_int_equal(vecenv_set(v, N + 3, &pos[N + 3]), KALAH_OK);
        assert_int_equal(vecenv_set(ref, N + 3, &pos[N + 3]), KALAH_OK);
        assert_int_equal(vecenv_gym_observe(v, N, &a.out), KALAH_OK);
        assert_int_equal(vecenv_gym_observe(ref, N, &b.out), KALAH_OK);
        rows_equal(&a, &b, r.pits, label(k, spec), -1);
        uint64_t ts = 77 + (uint64_t)rs;
        int64_t act[B];
        uint8_t mv[B], mv_ref[B];
        long ended = 0;
        int drawn = 1; /* the sample rows hold a draw for the boards as they are */
        for (int step = 0; step < 300; step++) {
            for (int i = 0; i < N; i++) { /* the drawn sample, or the test's own legal move */
                act[i] = a.sample[i];
                if ((step % 2 || !drawn) && !pos[i].over) {
                    const unsigned legal = kalah_legal(&r, &pos[i]);
                    do
                        act[i] = (int64_t)(trng(&ts) % (uint64_t)r.pits);
                    while (!(legal >> act[i] & 1));
                } else if (pos[i].over) {
                    act[i] = (int64_t)(trng(&ts) % 1000) - 500; /* anything: the board restarts */
                }
            }
            int bad = -1;
            if (vecenv_gym_moves(v, act, N, mv, &bad) != KALAH_OK)
                fail_msg("%s %s step %d: board %d rejected", vecenv_kernel_name(k), spec, step, bad);
            assert_int_equal(vecenv_gym_moves(ref, act, N, mv_ref, &bad), KALAH_OK);
            /* the same actions as bytes: the same moves for every board that sows */
            uint8_t act8[N], mv8[B];
            for (int i = 0; i < N; i++)
                act8[i] = (uint8_t)act[i];
            if (vecenv_gym_moves8(v, act8, N, mv8, &bad) != KALAH_OK)
                fail_msg("%s %s step %d: board %d rejected as a byte", vecenv_kernel_name(k), spec, step, bad);
            for (int i = 0; i < B; i++)
                if (i >= N || !pos[i].over)
                    assert_int_equal(mv8[i], mv[i]);
            for (int i = N; i < B; i++)
                assert_int_equal(mv[i], 0);
            const int sampled = step % 3 != 0; /* some steps draw no sample */
            const int kind = step % 5; /* float rows, uint8 rows, both, or none */
            const int obs = kind != 2 && kind != 4, obs8 = kind != 1 && kind != 4;
            static const size_t strides[3] = {8, 0, 13};
            /* the same mask stride for both; between steps the rows of the whole buffer are compared, so
             * a change of stride needs them cleared on both sides */
            const size_t stride = strides[step / 5 % 3];
            if (stride != a.out.mask_stride) {
                memset(a.mask, 0, B * MAX_STRIDE);
                memset(b.mask, 0, B * MAX_STRIDE);
            }
            a.out.mask_stride = b.out.mask_stride = stride;
            vecenv_gym_out oa = a.out, ob = b.out;
            if (!sampled)
                oa.sample = ob.sample = NULL;
            if (!obs)
                oa.obs = ob.obs = NULL;
            if (!obs8)
                oa.obs8 = ob.obs8 = NULL;
            assert_int_equal(vecenv_gym_step(v, mv, N, &oa), KALAH_OK);
            assert_int_equal(vecenv_gym_step(ref, mv_ref, N, &ob), KALAH_OK);
            rows_equal(&a, &b, r.pits, label(k, spec), step);
            drawn = sampled;
            for (int i = 0; i < B; i++) {
                int over = 0;
                if (i < N && pos[i].over) {
                    pos[i] = start;
                } else if (i < N) {
                    kalah_sow(&r, &pos[i], (int)act[i], NULL);
                    over = pos[i].over;
                    ended += over;
                }
                check_rows(&r, &a, i, &pos[i], over, sampled && i < N, obs, obs8, spec, step);
                check_board(&r, v, i, &pos[i], spec, step);
            }
        }
        if (r.pits <= 4)
            assert_true(ended > N); /* short games: restarts happened */
        vecenv_stats st;
        vecenv_stats_get(v, &st);
        assert_int_equal(st.games, ended);
        rows_free(&a);
        rows_free(&b);
        vecenv_free(v);
        vecenv_free(ref);
    }
}

static void test_kernels(void **state)
{
    (void)state;
    for (int k = VECENV_SCALAR; k <= VECENV_AVX512; k++) {
        if (!vecenv_kernel_supported((vecenv_kernel)k)) {
            print_message("this CPU lacks %s: skipped\n", vecenv_kernel_name((vecenv_kernel)k));
            continue;
        }
        run_kernel((vecenv_kernel)k);
    }
}

/* The move checks' boards: board 70 with pit a empty (South to move), board 5 finished. */
static vecenv *moves_fixture(const kalah_rules *r, vecenv_kernel k)
{
    char err[KALAH_ERRLEN];
    vecenv *v = NULL;
    assert_int_equal(vecenv_create(r, B, k, 0, 1, &v, err), KALAH_OK);
    kalah_pos p;
    assert_int_equal(kalah_pos_parse("0,5,5,4,4,4,2,4,4,4,4,4,4,0 S", r, &p, NULL, err), KALAH_OK);
    assert_int_equal(vecenv_set(v, 70, &p), KALAH_OK);
    assert_int_equal(kalah_pos_parse("0,0,0,0,0,0,20,0,0,0,0,0,0,28 S", r, &p, NULL, err), KALAH_OK);
    assert_int_equal(vecenv_set(v, 5, &p), KALAH_OK); /* finished */
    return v;
}

typedef int (*moves_fn)(const vecenv *v, const void *act, int n, uint8_t *mv, int *bad);
static int moves64(const vecenv *v, const void *act, int n, uint8_t *mv, int *bad)
{
    return vecenv_gym_moves(v, act, n, mv, bad);
}
static int moves8(const vecenv *v, const void *act, int n, uint8_t *mv, int *bad)
{
    return vecenv_gym_moves8(v, act, n, mv, bad);
}

/* act names pit a of board 70 (empty): refused while board 70 takes part, not when n = 70; n outside
 * 1..B refused. */
static void check_board70_and_n(const vecenv *v, const void *act, moves_fn f)
{
    uint8_t mv[B];
    int bad = -1;
    assert_int_equal(f(v, act, 100, mv, &bad), KALAH_EILLEGAL);
    assert_int_equal(bad, 70);
    assert_int_equal(f(v, act, 70, mv, &bad), KALAH_OK); /* board 70 not taking part */
    assert_int_equal(f(v, act, 0, mv, &bad), KALAH_EINVAL);
    assert_int_equal(f(v, act, B + 1, mv, &bad), KALAH_EINVAL);
}

/* The int64 move check: out of range, negative, wide (256 + a legal pit must not wrap), empty pits;
 * finished boards accept anything; a bad n. */
static void check_moves64(const vecenv *v)
{
    int64_t act[B];
    uint8_t mv[B];
    const int64_t bad_values[] = {6, -1, 256 + 2, INT64_MIN, 1LL << 40};
    for (int t = 0; t < 5; t++)
        for (int at = 0; at < 2; at++) {
            const int where = at ? 99 : 64;
            for (int i = 0; i < B; i++)
                act[i] = 2;
            act[5] = bad_values[t]; /* finished: ignored */
            act[where] = bad_values[t];
            int bad = -1;
            assert_int_equal(vecenv_gym_moves(v, act, 100, mv, &bad), KALAH_EILLEGAL);
            assert_int_equal(bad, where);
            act[where] = 2;
            assert_int_equal(vecenv_gym_moves(v, act, 100, mv, &bad), KALAH_OK);
            assert_int_equal(mv[99], 2);
        }
    act[70] = 0; /* pit a of board 70 is empty */
    check_board70_and_n(v, act, moves64);
}

/* The byte move check: out of range (6, 8, 255), empty pits, finished boards accepting anything, the
 * caller's array read only up to board n (the last block partly), and a bad n. */
static void check_moves8(const vecenv *v)
{
    uint8_t *act = malloc(100); /* exactly n = 100 bytes: ASan catches a read past them */
    uint8_t mv[B];
    const uint8_t bad_values[] = {6, 8, 255};
    for (int t = 0; t < 3; t++)
        for (int at = 0; at < 2; at++) {
            const int where = at ? 99 : 64;
            memset(act, 3, 100);
            act[5] = bad_values[t]; /* finished: ignored */
            act[where] = bad_values[t];
            int bad = -1;
            assert_int_equal(vecenv_gym_moves8(v, act, 100, mv, &bad), KALAH_EILLEGAL);
            assert_int_equal(bad, where);
            act[where] = 5;
            assert_int_equal(vecenv_gym_moves8(v, act, 100, mv, &bad), KALAH_OK);
            assert_int_equal(mv[where], 5);
            assert_int_equal(mv[at ? 64 : 99], 3);
            for (int i = 100; i < B; i++)
                assert_int_equal(mv[i], 0);
        }
    act[70] = 0;
    check_board70_and_n(v, act, moves8);
    free(act);
}

/* The move checks (int64 and byte actions) on every kernel; a step with a bad n and an auto-resetting
 * vecenv refused. */
static void test_moves_check(void **state)
{
    (void)state;
    kalah_rules r;
    char err[KALAH_ERRLEN];
    assert_int_equal(kalah_rules_parse("kalah", &r, err), KALAH_OK);
    for (int k = VECENV_SCALAR; k <= VECENV_AVX512; k++) {
        if (!vecenv_kernel_supported((vecenv_kernel)k))
            continue;
        vecenv *v = moves_fixture(&r, (vecenv_kernel)k);
        check_moves64(v);
        check_moves8(v);
        uint8_t mv[B] = {0};
        vecenv_gym_out none = {0};
        assert_int_equal(vecenv_gym_step(v, mv, B + 1, &none), KALAH_EINVAL);
        const vecenv_gym_out narrow = {.mask_stride = 5}; /* rows of 5 bytes for 6 pits */
        assert_int_equal(vecenv_gym_step(v, mv, B, &narrow), KALAH_EINVAL);
        assert_int_equal(vecenv_gym_observe(v, B, &narrow), KALAH_EINVAL);
        vecenv_free(v);
        assert_int_equal(vecenv_create(&r, 64, (vecenv_kernel)k, 1, 1, &v, err), KALAH_OK);
        assert_int_equal(vecenv_gym_observe(v, 64, &none), KALAH_EINVAL); /* auto-resetting: refused */
        vecenv_free(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moves_check),
        cmocka_unit_test(test_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
