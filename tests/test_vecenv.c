/* test_vecenv.c — the batched stepper (env/vecenv.h) against the scalar rules (kalah_sow, kalah_legal,
 * kalah_encode), and its kernels against each other, bit for bit.
 * ctest-labels below: the `sowzero bench env` test runs the binary's worker threads. */
// ctest-labels: threads
#include "test_util.h"

#include <cjson/cJSON.h>

#include "env/kalah.h"
#include "env/vecenv.h"

#include "vecenv_rule_sets.h"

static uint64_t trng(uint64_t *s) /* the test's own stream (SplitMix64), independent of vecenv's */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int random_legal(uint64_t *s, unsigned legal)
{
    int k = (int)(trng(s) % (uint64_t)__builtin_popcount(legal));
    while (k--)
        legal &= legal - 1;
    return __builtin_ctz(legal);
}

static kalah_rules rules_of(const char *spec)
{
    kalah_rules r;
    char err[KALAH_ERRLEN];
    if (kalah_rules_parse(spec, &r, err) != KALAH_OK)
        fail_msg("rules %s: %s", spec, err);
    return r;
}

static vecenv *make(const kalah_rules *r, int batch, vecenv_kernel k, int auto_reset, uint64_t seed)
{
    vecenv *v = NULL;
    char err[KALAH_ERRLEN] = "";
    if (vecenv_create(r, batch, k, auto_reset, seed, &v, err) != KALAH_OK)
        fail_msg("vecenv_create(%s): %s", vecenv_kernel_name(k), err);
    return v;
}

/* A random reachable position: 0..max_plies random sowings from the start (it may be finished). */
static void random_reachable(const kalah_rules *r, uint64_t *s, int max_plies, kalah_pos *p)
{
    kalah_start(r, p);
    int plies = (int)(trng(s) % (uint64_t)(max_plies + 1));
    for (int i = 0; i < plies && !p->over; i++)
        kalah_sow(r, p, random_legal(s, kalah_legal(r, p)), NULL);
}

static void assert_same_pos(const kalah_rules *r, const kalah_pos *want, const kalah_pos *got, const char *what,
                            int lane, long step)
{
    char a[64], b[64];
    if (memcmp(want->cell, got->cell, KALAH_CELLS) || want->side != got->side || want->over != got->over ||
        want->sows != got->sows)
        fail_msg("%s lane %d step %ld: want %s over=%d sows=%d, got %s over=%d sows=%d", what, lane, step,
                 kalah_pos_format(r, want, a, sizeof a), want->over, want->sows,
                 kalah_pos_format(r, got, b, sizeof b), got->over, got->sows);
}

enum { F_MOVE, F_EXTRA, F_CAPT, F_ENDED, F_SS, F_SN, N_FIELDS };
typedef struct {
    uint8_t *f[N_FIELDS];
    vecenv_out out;
} outbuf;

static void outbuf_init(outbuf *o, int batch)
{
    for (int i = 0; i < N_FIELDS; i++)
        o->f[i] = malloc((size_t)batch);
    o->out = (vecenv_out){o->f[F_MOVE], o->f[F_EXTRA], o->f[F_CAPT], o->f[F_ENDED], o->f[F_SS], o->f[F_SN]};
}

static void outbuf_free(outbuf *o)
{
    for (int i = 0; i < N_FIELDS; i++)
        free(o->f[i]);
}

/* Runs `steps` steps of kernel k on B boards of every rule set, half of the steps with moves the test picks
 * (vecenv_step), half random (vecenv_step_random), from random reachable positions; checks every sowing
 * against kalah_sow on a mirror board (move legal, extra turn, capture, end, stores, the whole position,
 * seed total; observations and legal masks every 50 steps) and, for a SIMD kernel, every output byte and
 * board against the scalar kernel run beside it. Then checks the fast path (vecenv_run_random) and the
 * statistics. Returns the sowings checked. */
static long check_kernel(vecenv_kernel k, int batch, long steps)
{
    long checked = 0;
    for (int rs = 0; rs < N_RULES; rs++) {
        const kalah_rules r = rules_of(rule_sets[rs]);
        const int auto_reset = rs % 3 != 2; /* every third rule set keeps finished boards */
        const uint64_t seed = 1000 + (uint64_t)rs;
        vecenv *v = make(&r, batch, k, auto_reset, seed);
        vecenv *ref = k == VECENV_SCALAR ? NULL : make(&r, batch, VECENV_SCALAR, auto_reset, seed);
        kalah_pos *mirror = malloc((size_t)batch * sizeof *mirror);
        int *total = malloc((size_t)batch * sizeof *total);
        uint8_t *moves = malloc((size_t)batch), *legal = malloc((size_t)batch);
        float *obs = malloc((size_t)batch * (size_t)kalah_encode_dim(&r) * sizeof *obs);
        outbuf o, oref;
        outbuf_init(&o, batch);
        outbuf_init(&oref, batch);
        uint64_t ts = 77 + (uint64_t)rs;
        kalah_pos start;
        kalah_start(&r, &start);

        for (int i = 0; i < batch; i++) {
            kalah_pos p;
            do
                random_reachable(&r, &ts, 60, &p);
            while (p.over && auto_reset);
            assert_int_equal(vecenv_set(v, i, &p), KALAH_OK);
            if (ref)
                assert_int_equal(vecenv_set(ref, i, &p), KALAH_OK);
            mirror[i] = p;
            total[i] = kalah_total(&r, &p);
        }
        uint64_t games = 0, south = 0, north = 0, sows = 0;
        for (long s = 0; s < steps; s++) {
            const int chosen = s % 2 == 0;
            if (chosen) {
                vecenv_legal(v, legal);
                for (int i = 0; i < batch; i++)
                    moves[i] = legal[i] ? (uint8_t)random_legal(&ts, legal[i]) : (uint8_t)(trng(&ts) & 0xFF);
                assert_int_equal(vecenv_step(v, moves, &o.out, NULL), KALAH_OK);
                if (ref)
                    assert_int_equal(vecenv_step(ref, moves, &oref.out, NULL), KALAH_OK);
            } else {
                vecenv_step_random(v, &o.out);
                if (ref)
                    vecenv_step_random(ref, &oref.out);
            }
            for (int f = 0; ref && f < N_FIELDS; f++)
                if (memcmp(o.f[f], oref.f[f], (size_t)batch))
                    fail_msg("%s %s step %ld: output %d differs from the scalar kernel", vecenv_kernel_name(k),
                             rule_sets[rs], s, f);
            for (int i = 0; i < batch; i++) {
                kalah_pos *m = &mirror[i], got;
                if (m->over) {
                    assert_int_equal(o.f[F_MOVE][i], 255);
                    assert_int_equal(o.f[F_ENDED][i], 0);
                } else {
                    const int mv = o.f[F_MOVE][i];
                    if (mv >= r.pits || !(kalah_legal(&r, m) & (1u << mv)))
                        fail_msg("%s %s lane %d step %ld: illegal move %d", vecenv_kernel_name(k), rule_sets[rs],
                                 i, s, mv);
                    if (chosen)
                        assert_int_equal(mv, moves[i]);
                    kalah_step info;
                    kalah_sow(&r, m, mv, &info);
                    sows++;
                    assert_int_equal(o.f[F_EXTRA][i], info.extra_turn);
                    assert_int_equal(o.f[F_CAPT][i], info.captured);
                    assert_int_equal(o.f[F_ENDED][i], info.over);
                    if (info.over) {
                        games++;
                        south += kalah_winner(&r, m) > 0;
                        north += kalah_winner(&r, m) < 0;
                    }
                    checked++;
                }
                assert_int_equal(o.f[F_SS][i], m->cell[r.pits]);
                assert_int_equal(o.f[F_SN][i], m->cell[2 * r.pits + 1]);
                if (m->over && auto_reset)
                    *m = start;
                vecenv_get(v, i, &got);
                assert_same_pos(&r, m, &got, rule_sets[rs], i, s);
                assert_int_equal(kalah_total(&r, &got), total[i]); /* seed conservation */
                if (ref) {
                    kalah_pos want;
                    vecenv_get(ref, i, &want);
                    assert_same_pos(&r, &want, &got, "vs scalar", i, s);
                }
            }
            if (s % 50 == 49) { /* observations and masks of positions reached by stepping */
                const int d = kalah_encode_dim(&r);
                float want[2 * KALAH_MAX_PITS + 2];
                vecenv_observe(v, obs);
                vecenv_legal(v, legal);
                for (int i = 0; i < batch; i++) {
                    kalah_encode(&r, &mirror[i], want);
                    assert_memory_equal(obs + (size_t)i * (size_t)d, want, (size_t)d * sizeof(float));
                    assert_int_equal(legal[i], kalah_legal(&r, &mirror[i]));
                }
            }
        }
        vecenv_stats st;
        vecenv_stats_get(v, &st);
        assert_int_equal(st.sows, sows);
        assert_int_equal(st.games, games);
        assert_int_equal(st.south_wins, south);
        assert_int_equal(st.north_wins, north);
        assert_int_equal(st.draws, games - south - north);

        /* the fast path: same boards and statistics as step by step, and as the scalar kernel */
        if (ref) {
            vecenv_run_random(v, 37);
            for (int s = 0; s < 37; s++)
                vecenv_step_random(ref, NULL);
            vecenv_stats a, b;
            vecenv_stats_get(v, &a);
            vecenv_stats_get(ref, &b);
            assert_memory_equal(&a, &b, sizeof a);
            for (int i = 0; i < batch; i++) {
                kalah_pos x, y;
                vecenv_get(v, i, &x);
                vecenv_get(ref, i, &y);
                assert_same_pos(&r, &y, &x, "run_random vs scalar", i, 37);
            }
        }
        outbuf_free(&o);
        outbuf_free(&oref);
        free(moves);
        free(legal);
        free(obs);
        free(total);
        free(mirror);
        vecenv_free(ref);
        vecenv_free(v);
    }
    return checked;
}

static void require(vecenv_kernel k)
{
    if (!vecenv_kernel_supported(k)) {
        print_message("this CPU lacks %s: skipped\n", vecenv_kernel_name(k));
        skip();
    }
}

/* >= 10^6 sowings per kernel: 9 rule sets x 256 boards x 700 steps, minus finished boards. Under
 * ThreadSanitizer (whose pass runs this file for the bench's threads, below) a tenth: these tests are
 * single-threaded, and TSan slows them some 20 times. */
#if defined(__SANITIZE_THREAD__)
#define CHECK_STEPS 70
#define MIN_CHECKED 100000
#else
#define CHECK_STEPS 700
#define MIN_CHECKED 1000000
#endif

static void test_scalar_matches_kalah_sow(void **state)
{
    (void)state;
    long n = check_kernel(VECENV_SCALAR, 256, CHECK_STEPS);
    print_message("scalar: %ld sowings checked\n", n);
    assert_true(n >= MIN_CHECKED);
}

static void test_avx2_matches_scalar_and_kalah_sow(void **state)
{
    (void)state;
    require(VECENV_AVX2);
    long n = check_kernel(VECENV_AVX2, 256, CHECK_STEPS);
    print_message("avx2: %ld sowings checked\n", n);
    assert_true(n >= MIN_CHECKED);
}

static void test_avx512_matches_scalar_and_kalah_sow(void **state)
{
    (void)state;
    require(VECENV_AVX512);
    long n = check_kernel(VECENV_AVX512, 256, CHECK_STEPS);
    print_message("avx512: %ld sowings checked\n", n);
    assert_true(n >= MIN_CHECKED);
}

/* pits=1, seeds=1: South's only move lands in its store, which empties South's row: the game ends 1-1
 * after one sowing, every time. With auto-reset each board is back at the start; without, it stays. */
static void test_auto_reset(void **state)
{
    (void)state;
    const kalah_rules r = rules_of("kalah:pits=1,seeds=1");
    for (int k = VECENV_SCALAR; k <= VECENV_AVX512; k++) {
        if (!vecenv_kernel_supported((vecenv_kernel)k))
            continue;
        for (int auto_reset = 0; auto_reset < 2; auto_reset++) {
            vecenv *v = make(&r, 128, (vecenv_kernel)k, auto_reset, 5);
            outbuf o;
            outbuf_init(&o, 128);
            for (int s = 0; s < 3; s++) {
                vecenv_step_random(v, &o.out);
                const int moved = auto_reset || s == 0;
                for (int i = 0; i < 128; i++) {
                    assert_int_equal(o.f[F_MOVE][i], moved ? 0 : 255);
                    assert_int_equal(o.f[F_ENDED][i], moved);
                    assert_int_equal(o.f[F_EXTRA][i], 0);
                    assert_int_equal(o.f[F_SS][i], 1);
                    assert_int_equal(o.f[F_SN][i], 1);
                    kalah_pos p;
                    vecenv_get(v, i, &p);
                    const char *want = auto_reset ? "1,0,1,0 S" : "0,1,0,1 S";
                    char buf[64];
                    assert_string_equal(kalah_pos_format(&r, &p, buf, sizeof buf), want);
                    assert_int_equal(p.over, !auto_reset);
                    assert_int_equal(p.sows, auto_reset ? 0 : 1);
                }
            }
            vecenv_stats st;
            vecenv_stats_get(v, &st);
            assert_int_equal(st.games, auto_reset ? 3 * 128 : 128);
            assert_int_equal(st.draws, st.games);
            assert_int_equal(st.sows, st.games);
            vecenv_stats_clear(v);
            vecenv_stats_get(v, &st);
            assert_int_equal(st.games + st.sows, 0);
            outbuf_free(&o);
            vecenv_free(v);
        }
    }
}

/* Observations and legal masks equal kalah_encode / kalah_legal on random positions of both sides to
 * move, finished ones included. */
static void test_observe_and_legal(void **state)
{
    (void)state;
    for (int rs = 0; rs < N_RULES; rs++) {
        const kalah_rules r = rules_of(rule_sets[rs]);
        const int B = 128, d = kalah_encode_dim(&r);
        vecenv *v = make(&r, B, VECENV_AUTO, 0, 9);
        uint64_t ts = 500 + (uint64_t)rs;
        kalah_pos *pos = malloc((size_t)B * sizeof *pos);
        for (int i = 0; i < B; i++) {
            random_reachable(&r, &ts, 80, &pos[i]);
            assert_int_equal(vecenv_set(v, i, &pos[i]), KALAH_OK);
        }
        float *obs = malloc((size_t)B * (size_t)d * sizeof *obs), want[2 * KALAH_MAX_PITS + 2];
        uint8_t legal[128];
        vecenv_observe(v, obs);
        vecenv_legal(v, legal);
        int finished = 0;
        for (int i = 0; i < B; i++) {
            kalah_encode(&r, &pos[i], want);
            assert_memory_equal(obs + (size_t)i * (size_t)d, want, (size_t)d * sizeof(float));
            assert_int_equal(legal[i], kalah_legal(&r, &pos[i]));
            kalah_pos got;
            vecenv_get(v, i, &got);
            assert_same_pos(&r, &pos[i], &got, "set/get", i, 0);
            finished += pos[i].over;
        }
        if (rs == 1) /* pits=1 games are short: some positions must be finished */
            assert_true(finished > 0);
        free(obs);
        free(pos);
        vecenv_free(v);
    }
}

static void test_errors(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    vecenv *v = (vecenv *)&r;
    char err[KALAH_ERRLEN] = "";
    static const int bad_batches[] = {0, -64, 63, 65, 100};
    for (size_t i = 0; i < sizeof bad_batches / sizeof bad_batches[0]; i++) {
        assert_int_equal(vecenv_create(&r, bad_batches[i], VECENV_AUTO, 1, 1, &v, err), KALAH_EINVAL);
        assert_null(v);
        assert_non_null(strstr(err, "batch"));
    }
    r.pits = 8;
    assert_int_equal(vecenv_create(&r, 64, VECENV_AUTO, 1, 1, &v, err), KALAH_EINVAL);
    assert_non_null(strstr(err, "pits"));
    r = kalah_rules_default();
    assert_int_equal(vecenv_create(&r, 64, (vecenv_kernel)9, 1, 1, &v, err), KALAH_EINVAL);
    for (int k = VECENV_AVX2; k <= VECENV_AVX512; k++)
        if (!vecenv_kernel_supported((vecenv_kernel)k)) {
            assert_int_equal(vecenv_create(&r, 64, (vecenv_kernel)k, 1, 1, &v, err), KALAH_EINVAL);
            assert_non_null(strstr(err, vecenv_kernel_name((vecenv_kernel)k)));
        }

    v = make(&r, 64, VECENV_AUTO, 1, 1);
    assert_int_not_equal(vecenv_kernel_used(v), VECENV_AUTO);
    assert_int_equal(vecenv_batch(v), 64);
    assert_int_equal(vecenv_rules(v)->pits, 6);
    kalah_pos p, start;
    kalah_start(&r, &start);
    assert_int_equal(vecenv_set(v, 64, &start), KALAH_EINVAL);
    assert_int_equal(vecenv_set(v, -1, &start), KALAH_EINVAL);
    p = start;
    p.cell[14] = 1; /* beyond the board */
    assert_int_equal(vecenv_set(v, 0, &p), KALAH_EINVAL);
    p = start;
    p.cell[0] = 250; /* 294 seeds */
    assert_int_equal(vecenv_set(v, 0, &p), KALAH_EINVAL);
    assert_int_equal(kalah_pos_parse("0,0,0,0,0,0,24,4,4,4,4,4,4,0 S", NULL, &p, NULL, NULL), KALAH_OK);
    assert_int_equal(vecenv_set(v, 0, &p), KALAH_EINVAL); /* mover has no seeds, yet not finished */
    assert_int_equal(kalah_pos_parse("0,0,0,0,0,0,24,4,4,4,4,4,4,0 S", &r, &p, NULL, NULL), KALAH_OK);
    assert_true(p.over);
    assert_int_equal(vecenv_set(v, 0, &p), KALAH_EOVER); /* auto-reset would never move it */
    p.over = 0;
    p.cell[13] = 0;
    p.cell[0] = 24;
    p.over = 1; /* finished but not swept */
    assert_int_equal(vecenv_set(v, 0, &p), KALAH_EINVAL);

    /* an illegal move changes nothing and names the board */
    uint8_t moves[64];
    memset(moves, 2, sizeof moves);
    assert_int_equal(kalah_pos_parse("4,4,0,4,4,4,4,4,4,4,4,4,4,0 S", NULL, &p, NULL, NULL), KALAH_OK);
    assert_int_equal(vecenv_set(v, 17, &p), KALAH_OK);
    int bad = -1;
    assert_int_equal(vecenv_step(v, moves, NULL, &bad), KALAH_EILLEGAL);
    assert_int_equal(bad, 17);
    moves[17] = 6; /* out of range */
    assert_int_equal(vecenv_step(v, moves, NULL, &bad), KALAH_EILLEGAL);
    kalah_pos got;
    vecenv_get(v, 17, &got);
    assert_same_pos(&r, &p, &got, "after illegal", 17, 0);
    vecenv_get(v, 3, &got);
    assert_same_pos(&r, &start, &got, "after illegal", 3, 0);
    moves[17] = 0;
    assert_int_equal(vecenv_step(v, moves, NULL, &bad), KALAH_OK);
    vecenv_stats st;
    vecenv_stats_get(v, &st);
    assert_int_equal(st.sows, 64);
    vecenv_free(v);
    vecenv_free(NULL);
}

static void test_kernel_names(void **state)
{
    (void)state;
    for (int k = VECENV_AUTO; k <= VECENV_AVX512; k++) {
        vecenv_kernel back;
        assert_int_equal(vecenv_kernel_parse(vecenv_kernel_name((vecenv_kernel)k), &back), KALAH_OK);
        assert_int_equal(back, k);
    }
    vecenv_kernel back;
    assert_int_equal(vecenv_kernel_parse("sse2", &back), KALAH_EINVAL);
    assert_string_equal(vecenv_kernel_name((vecenv_kernel)7), "?");
    assert_true(vecenv_kernel_supported(vecenv_kernel_best()));
    assert_int_not_equal(vecenv_kernel_best(), VECENV_AUTO);
    if (vecenv_kernel_supported(VECENV_AVX512))
        assert_int_equal(vecenv_kernel_best(), VECENV_AVX512);
}

/* Different seeds give different playouts; the same seed the same (re-seeding restarts the stream). */
static void test_seeds(void **state)
{
    (void)state;
    const kalah_rules r = kalah_rules_default();
    vecenv *a = make(&r, 64, VECENV_AUTO, 1, 1), *b = make(&r, 64, VECENV_AUTO, 1, 2);
    vecenv_run_random(a, 500);
    vecenv_run_random(b, 500);
    vecenv_stats sa, sb;
    vecenv_stats_get(a, &sa);
    vecenv_stats_get(b, &sb);
    assert_int_equal(sa.sows, 64 * 500);
    assert_true(sa.games != sb.games || sa.south_wins != sb.south_wins);
    vecenv_seed(b, 1);
    vecenv_reset(b);
    vecenv_stats_clear(b);
    vecenv_run_random(b, 500);
    vecenv_stats_get(b, &sb);
    assert_memory_equal(&sa, &sb, sizeof sa);
    vecenv_free(a);
    vecenv_free(b);
}

static double json_num(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(x))
        fail_msg("bench env JSON: no number '%s'", key);
    return x->valuedouble;
}

/* The CLI: JSON keys, the same games for the same steps and seed on every kernel, usage errors. */
static void test_bench_env_cli(void **state)
{
    (void)state;
    double games = -1;
    for (int k = VECENV_SCALAR; k <= VECENV_AVX512; k++) {
        if (!vecenv_kernel_supported((vecenv_kernel)k))
            continue;
        char *out = NULL;
        int rc = tu_run(&out, 0, "bench env --threads 2 --steps 300 --batch 128 --kernel %s --json",
                        vecenv_kernel_name((vecenv_kernel)k));
        assert_int_equal(rc, 0);
        cJSON *j = cJSON_Parse(out);
        assert_non_null(j);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "kernel")->valuestring,
                            vecenv_kernel_name((vecenv_kernel)k));
        assert_int_equal((int)json_num(j, "threads"), 2);
        assert_true(json_num(j, "sows") == 2.0 * 128 * 300);
        assert_true(json_num(j, "games_per_s") > 0 && json_num(j, "sows_per_s") > 0);
        const double g = json_num(j, "games"), swr = json_num(j, "south_win_rate");
        assert_true(g > 1000 && swr > 0.3 && swr < 0.7);
        assert_true(json_num(j, "sows_per_game") > 30 && json_num(j, "sows_per_game") < 60);
        if (games >= 0)
            assert_true(g == games);
        games = g;
        cJSON_Delete(j);
        free(out);
    }
    char *out = NULL;
    assert_int_equal(tu_run(&out, 1, "bench env --seconds 0.2 --rules kalah:pits=4,seeds=3"), 0);
    assert_non_null(strstr(out, "games/s"));
    free(out);
    static const char *bad[] = {"--threads 0", "--kernel sse9", "--seconds -1", "--rules kalah:pits=9",
                                "--batch 100"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        out = NULL;
        assert_int_equal(tu_run(&out, 1, "bench env %s", bad[i]), 2);
        assert_non_null(strstr(out, "sowzero bench"));
        free(out);
    }
    out = NULL;
    assert_int_equal(tu_run(&out, 0, "bench env --help"), 0);
    assert_non_null(strstr(out, "--kernel"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_names),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_auto_reset),
        cmocka_unit_test(test_observe_and_legal),
        cmocka_unit_test(test_seeds),
        cmocka_unit_test(test_scalar_matches_kalah_sow),
        cmocka_unit_test(test_avx2_matches_scalar_and_kalah_sow),
        cmocka_unit_test(test_avx512_matches_scalar_and_kalah_sow),
        cmocka_unit_test(test_bench_env_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
