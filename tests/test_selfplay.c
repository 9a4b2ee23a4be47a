/* test_selfplay.c — self-play workers, batching across games, samples against the game records,
 * determinism, the replay buffer (window, uniform sampling, save/restore, threads), game records and
 * `sowzero bench selfplay`. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <math.h>
#include <pthread.h>
#include <cjson/cJSON.h>
#include "env/kalah.h"
#include "nn/net.h"
#include "selfplay/selfplay.h"

static nn_net *tiny_net(const kalah_rules *r, uint64_t seed)
{
    nn_config c = nn_config_default(kalah_encode_dim(r), r->pits);
    c.n_hidden = 1;
    c.hidden[0] = 32;
    nn_net *net = nn_net_create(&c, seed, NULL);
    assert_non_null(net);
    return net;
}

static mcts_config fast_search(int sims)
{
    mcts_config c = mcts_config_default();
    c.sims = sims;
    c.temp_moves = 6;
    return c;
}

/* Runs self-play and returns the records text (caller frees) and the buffer. */
static char *play(const kalah_rules *r, const selfplay_config *sc, const mcts_config *mc,
                  const mcts_eval_factory *ef, replay_buffer *rb, uint64_t seed, selfplay_stats *st)
{
    char *text = NULL, err[MCTS_ERRLEN];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    int rc = selfplay_run(r, sc, mc, ef, rb, seed, f, st, err);
    fclose(f);
    if (rc != MCTS_OK)
        fail_msg("selfplay_run: %s", err);
    return text;
}

/* ---- determinism ---- */

static void test_same_seed_identical_games(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 6;
    mcts_config mc = fast_search(24);
    mcts_eval_factory ef = mcts_eval_factory_rollout(1);
    char *text[3];
    void *blob[3];
    size_t n[3];
    uint64_t seeds[3] = {42, 42, 43};
    for (int i = 0; i < 3; i++) {
        replay_buffer *rb = replay_create(kalah_encode_dim(&r), r.pits, 1, 10000, NULL);
        selfplay_stats st;
        text[i] = play(&r, &sc, &mc, &ef, rb, seeds[i], &st);
        assert_int_equal(st.games, 6);
        assert_int_equal(replay_save(rb, &blob[i], &n[i]), MCTS_OK);
        replay_free(rb);
    }
    assert_string_equal(text[0], text[1]);
    assert_int_equal(n[0], n[1]);
    assert_memory_equal(blob[0], blob[1], n[0]);
    assert_true(strcmp(text[0], text[2]) != 0); /* another seed, other games */
    for (int i = 0; i < 3; i++)
        free(text[i]), free(blob[i]);
}

/* ---- samples against the records ---- */

/* Next game of a records text: fills the move letters (up to max) and returns the count, or −1 at the end. */
static int next_game(char **cursor, char *moves, int max, char *result, size_t rn)
{
    char *s = strstr(*cursor, "[Result \"");
    if (!s)
        return -1;
    s += 9;
    size_t k = strcspn(s, "\"");
    snprintf(result, rn, "%.*s", (int)k, s);
    s = strstr(s, "\n\n") + 2;
    int n = 0;
    while (*s && *s != '\n') {
        size_t len = strcspn(s, " \n");
        if (len == 1 && ((*s >= 'a' && *s <= 'g') || (*s >= 'A' && *s <= 'G')) && n < max)
            moves[n++] = *s;
        s += len;
        while (*s == ' ')
            s++;
    }
    *cursor = s;
    return n;
}

static void test_samples_match_records(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    nn_net *net = tiny_net(&r, 7);
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 5;
    sc.games = 8;
    mcts_config mc = fast_search(32);
    mcts_eval_factory ef = mcts_eval_factory_net(net);
    int dim = kalah_encode_dim(&r), m = r.pits;
    replay_buffer *rb = replay_create(dim, m, 1, 100000, NULL);
    selfplay_stats st;
    char *text = play(&r, &sc, &mc, &ef, rb, 5, &st);
    assert_int_equal(st.games, 8);
    assert_int_equal(st.south_wins + st.north_wins + st.draws, 8);
    assert_int_equal(replay_total(rb), st.samples);
    assert_true(st.avg_batch > 1.0 && st.avg_batch <= 5.0);
    assert_true(st.evals > 0 && st.forward_seconds > 0 && st.forward_share > 0 && st.forward_share <= 1);
    char moves[2000], result[16], *cur = text;
    size_t idx = 0;
    int games = 0;
    float x[32], pi[8], z, margin, want_x[32];
    uint8_t legal[8];
    for (int n; (n = next_game(&cur, moves, 2000, result, sizeof result)) >= 0; games++) {
        kalah_pos p;
        kalah_start(&r, &p);
        kalah_pos end = p;
        for (int i = 0; i < n; i++)
            kalah_sow(&r, &end, moves[i] - (moves[i] >= 'a' ? 'a' : 'A'), NULL);
        assert_true(end.over);
        int w = kalah_winner(&r, &end);
        assert_string_equal(result, w > 0 ? "1-0" : w < 0 ? "0-1" : "1/2-1/2");
        for (int i = 0; i < n; i++, idx++) {
            assert_int_equal(replay_get(rb, idx, x, legal, pi, &z, &margin), MCTS_OK);
            kalah_encode(&r, &p, want_x);
            assert_memory_equal(x, want_x, (size_t)dim * sizeof(float));
            unsigned lm = kalah_legal(&r, &p);
            double sum = 0;
            for (int k = 0; k < m; k++) {
                assert_int_equal(legal[k], (int)(lm >> k & 1u));
                if (!legal[k])
                    assert_true(pi[k] == 0.0f);
                sum += pi[k];
            }
            assert_float_equal(sum, 1.0, 1e-5);
            int mover_w = p.side == KALAH_SOUTH ? w : -w;
            assert_float_equal(z, (float)mover_w, 0);
            int mover_margin = p.side == KALAH_SOUTH ? kalah_margin(&r, &end) : -kalah_margin(&r, &end);
            assert_float_equal(margin, mover_margin / 48.0f, 1e-6);
            int k = moves[i] - (p.side == KALAH_SOUTH ? 'a' : 'A');
            assert_true(lm >> k & 1u);
            if (i >= mc.temp_moves)
                assert_true(pi[k] == 1.0f); /* after the temperature plies: one-hot on the move played */
            kalah_sow(&r, &p, k, NULL);
        }
    }
    assert_int_equal(games, 8);
    assert_int_equal(idx, st.samples);
    free(text);
    replay_free(rb);
    nn_net_free(net);
}

/* selfplay.opening_plies: every game starts from its record's [Start] position (k random sowings in),
 * the samples are exactly the decisions from there (their positions replayed from the start tag), the
 * openings differ between games, the same seed repeats them, and the key's range is checked. */
static void test_random_openings(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 8;
    sc.opening_plies = 10;
    mcts_config mc = fast_search(24);
    mcts_eval_factory ef = mcts_eval_factory_rollout(1);
    int dim = kalah_encode_dim(&r);
    replay_buffer *rb = replay_create(dim, r.pits, 1, 100000, NULL), *rb2 = replay_create(dim, r.pits, 1, 100000, NULL);
    selfplay_stats st, st2;
    char *text = play(&r, &sc, &mc, &ef, rb, 11, &st), *text2 = play(&r, &sc, &mc, &ef, rb2, 11, &st2);
    assert_string_equal(text, text2);
    assert_int_equal(st.samples, st2.samples);
    kalah_pos start;
    kalah_start(&r, &start);
    char moves[2000], result[16], *cur = text;
    size_t idx = 0;
    int games = 0, moved = 0, distinct = 0;
    char seen[8][80];
    float x[32], pi[8], z, margin, want_x[32];
    uint8_t legal[8];
    for (;;) {
        char *tag = strstr(cur, "[Start \"");
        if (!tag)
            break;
        tag += 8;
        char pos[80];
        snprintf(pos, sizeof pos, "%.*s", (int)strcspn(tag, "\""), tag);
        int n = next_game(&cur, moves, 2000, result, sizeof result);
        assert_true(n >= 1);
        kalah_pos p;
        char err[KALAH_ERRLEN];
        assert_int_equal(kalah_pos_parse(pos, &r, &p, NULL, err), KALAH_OK);
        assert_false(p.over);
        moved += memcmp(&p, &start, sizeof p) != 0;
        int fresh = 1;
        for (int i = 0; i < distinct; i++)
            fresh &= strcmp(seen[i], pos) != 0;
        if (fresh && distinct < 8)
            snprintf(seen[distinct++], sizeof seen[0], "%s", pos);
        for (int i = 0; i < n; i++, idx++) {
            assert_int_equal(replay_get(rb, idx, x, legal, pi, &z, &margin), MCTS_OK);
            kalah_encode(&r, &p, want_x);
            assert_memory_equal(x, want_x, (size_t)dim * sizeof(float));
            kalah_sow(&r, &p, moves[i] - (p.side == KALAH_SOUTH ? 'a' : 'A'), NULL);
        }
        assert_true(p.over);
        games++;
    }
    assert_int_equal(games, 8);
    assert_int_equal(idx, st.samples);
    assert_true(moved >= 5 && distinct >= 5); /* k = 0 has probability 1/11 per game */
    sc.opening_plies = 101;
    char err[MCTS_ERRLEN];
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.opening_plies"));
    free(text), free(text2);
    replay_free(rb), replay_free(rb2);
}

/* selfplay.opening_sims: a decision with at least opening_seeds seeds in the pits is searched with
 * opening_sims simulations. Every unfinished position has one seed or more in its pits, none has 255: those
 * thresholds must give exactly the games of a plain run at opening_sims / at mcts.sims. */
static void test_opening_sims(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    int dim = kalah_encode_dim(&r);
    mcts_eval_factory ef = mcts_eval_factory_rollout(1);
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 6;
    sc.opening_plies = 6;
    struct {
        int sims, opening_sims, opening_seeds;
    } runs[] = {{48, 0, 33}, {16, 48, 1}, {16, 0, 33}, {16, 48, 255}, {16, 48, 33}};
    char *text[5];
    void *blob[5];
    size_t n[5];
    selfplay_stats st[5];
    for (int i = 0; i < 5; i++) {
        mcts_config mc = fast_search(runs[i].sims);
        sc.opening_sims = runs[i].opening_sims;
        sc.opening_seeds = runs[i].opening_seeds;
        replay_buffer *rb = replay_create(dim, r.pits, 1, 100000, NULL);
        text[i] = play(&r, &sc, &mc, &ef, rb, 5, &st[i]);
        assert_int_equal(replay_save(rb, &blob[i], &n[i]), MCTS_OK);
        replay_free(rb);
    }
    for (int i = 0; i < 4; i += 2) { /* run 1 is run 0, run 3 is run 2, bit for bit */
        assert_string_equal(text[i], text[i + 1]);
        assert_int_equal(n[i], n[i + 1]);
        assert_memory_equal(blob[i], blob[i + 1], n[i]);
        assert_int_equal(st[i].simulations, st[i + 1].simulations);
    }
    /* the threshold 33 gives the deeper search to some decisions only */
    assert_true(strcmp(text[4], text[0]) != 0 && strcmp(text[4], text[2]) != 0);
    double per[5];
    for (int i = 0; i < 5; i++)
        per[i] = (double)st[i].simulations / (double)st[i].samples;
    assert_true(per[4] > per[2] * 1.1 && per[4] < per[0] * 0.9);
    char err[MCTS_ERRLEN];
    sc.opening_seeds = 0;
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.opening_seeds"));
    sc.opening_seeds = 33;
    sc.opening_sims = -1;
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.opening_sims"));
    for (int i = 0; i < 5; i++)
        free(text[i]), free(blob[i]);
}

/* selfplay.pi_temperature: the targets are the visit shares raised to 1/T and renormalised; the games (moves
 * drawn by mcts_choose, not from the target) are the same. With T = 0.5 each target is the square of the
 * T = 1 target renormalised (an independent computation from the plain shares N / ΣN). */
static void test_pi_temperature(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    int dim = kalah_encode_dim(&r), m = r.pits;
    mcts_eval_factory ef = mcts_eval_factory_rollout(1);
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 6;
    sc.pi_visits = 1;
    mcts_config mc = fast_search(32);
    const double temps[2] = {1.0, 0.5};
    char *text[2];
    replay_buffer *rb[2];
    for (int i = 0; i < 2; i++) {
        sc.pi_temperature = temps[i];
        rb[i] = replay_create(dim, m, 1, 100000, NULL);
        selfplay_stats st;
        text[i] = play(&r, &sc, &mc, &ef, rb[i], 7, &st);
    }
    assert_string_equal(text[0], text[1]);
    assert_int_equal(replay_size(rb[0]), replay_size(rb[1]));
    int sharper = 0;
    for (size_t i = 0; i < replay_size(rb[0]); i++) {
        float x[2][64], pi[2][KALAH_MAX_PITS], z[2], mg[2];
        uint8_t legal[2][KALAH_MAX_PITS];
        for (int k = 0; k < 2; k++)
            assert_int_equal(replay_get(rb[k], i, x[k], legal[k], pi[k], &z[k], &mg[k]), MCTS_OK);
        assert_memory_equal(x[0], x[1], (size_t)dim * sizeof(float));
        double sq = 0;
        for (int a = 0; a < m; a++)
            sq += (double)pi[0][a] * pi[0][a];
        for (int a = 0; a < m; a++) {
            double want = (double)pi[0][a] * pi[0][a] / sq;
            if (fabs(pi[1][a] - want) > 1e-5)
                fail_msg("sample %zu, pit %d: target %g at T = 0.5, %g from the T = 1 shares", i, a, pi[1][a], want);
            sharper |= fabs(pi[1][a] - pi[0][a]) > 1e-3;
        }
    }
    assert_true(sharper);
    char err[MCTS_ERRLEN];
    sc.pi_temperature = 0;
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.pi_temperature"));
    for (int i = 0; i < 2; i++)
        free(text[i]), replay_free(rb[i]);
}

/* One replay sample, for comparing two buffers' records. */
typedef struct {
    float x[64], pi[KALAH_MAX_PITS], z, margin;
    uint8_t legal[KALAH_MAX_PITS];
} sample_rec;

static sample_rec get_sample(replay_buffer *rb, size_t i)
{
    sample_rec s;
    memset(&s, 0, sizeof s);
    assert_int_equal(replay_get(rb, i, s.x, s.legal, s.pi, &s.z, &s.margin), MCTS_OK);
    return s;
}

/* Member by member: a struct's padding need not survive being returned. */
static int same_sample(const sample_rec *a, const sample_rec *b)
{
    return !memcmp(a->x, b->x, sizeof a->x) && !memcmp(a->pi, b->pi, sizeof a->pi) &&
           !memcmp(a->legal, b->legal, sizeof a->legal) && !memcmp(&a->z, &b->z, sizeof a->z) &&
           !memcmp(&a->margin, &b->margin, sizeof a->margin);
}

/* selfplay.surprise_weight (KataGo's policy surprise weighting, selfplay.h): the games are those of s = 0
 * (the copies are drawn from a stream of their own), and each decision is written floor(w) or floor(w) + 1
 * times, adjacent, with w = (1 − s) + s · n · KL / ΣKL over its game's n full decisions and
 * KL = Σ π ln(π · L): the divergence from the rollout evaluator's uniform prior over the L legal moves, computed here from the
 * written targets. The root noise (on here) must not enter the prior. A value-only decision (playout cap
 * randomization: π = 0) is written exactly once and left out of the weights. Over the run the copies add
 * up to about the weights' sum. */
static void check_surprise(double full_sims_prob)
{
    kalah_rules r = kalah_rules_default();
    int dim = kalah_encode_dim(&r), m = r.pits;
    mcts_eval_factory ef = mcts_eval_factory_rollout(1);
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 4;
    sc.games = 8;
    sc.pi_visits = 1;
    sc.full_sims_prob = full_sims_prob;
    sc.fast_sims = full_sims_prob < 1 ? 8 : 0;
    mcts_config mc = fast_search(32);
    assert_true(mc.dirichlet_eps > 0);
    char *text[2];
    replay_buffer *rb[2];
    for (int i = 0; i < 2; i++) {
        sc.surprise_weight = i ? 0.5 : 0.0;
        rb[i] = replay_create(dim, m, 1, 1000000, NULL);
        selfplay_stats st;
        text[i] = play(&r, &sc, &mc, &ef, rb[i], 9, &st);
        assert_int_equal(st.samples, replay_size(rb[0])); /* stats count decisions, not copies */
    }
    assert_string_equal(text[0], text[1]);
    char moves[2000], result[16], *cur = text[0];
    size_t j0 = 0, j1 = 0, n0 = replay_size(rb[0]), n1 = replay_size(rb[1]), copies_all = 0;
    double weights_all = 0;
    int games = 0, repeated = 0, dropped = 0, value_only = 0;
    for (int n; (n = next_game(&cur, moves, 2000, result, sizeof result)) >= 0; games++) {
        assert_true(n >= 1 && j0 + (size_t)n <= n0);
        double kl[2000], sum = 0;
        int full = 0;
        for (int i = 0; i < n; i++) {
            sample_rec a = get_sample(rb[0], j0 + (size_t)i);
            int legal = 0;
            double mass = 0;
            for (int k = 0; k < m; k++)
                legal += a.legal[k], mass += a.pi[k];
            kl[i] = 0;
            for (int k = 0; k < m; k++)
                if (a.pi[k] > 0)
                    kl[i] += a.pi[k] * log(a.pi[k] * legal);
            if (mass == 0) {
                kl[i] = -1; /* value-only */
                continue;
            }
            kl[i] = kl[i] > 0 ? kl[i] : 0;
            sum += kl[i];
            full++;
        }
        for (int i = 0; i < n; i++) {
            double w = kl[i] < 0 || !(sum > 0) ? 1.0 : 0.5 + 0.5 * full * kl[i] / sum;
            sample_rec a = get_sample(rb[0], j0 + (size_t)i);
            int c = 0;
            for (; j1 < n1; j1++, c++) {
                sample_rec b = get_sample(rb[1], j1);
                if (!same_sample(&a, &b))
                    break;
            }
            if (kl[i] < 0 ? c != 1 : c < (int)floor(w - 1e-4) || c > (int)floor(w + 1e-4) + 1)
                fail_msg("full_sims_prob %g, game %d, decision %d: %d copies for the weight %g (KL %g of %g)",
                         full_sims_prob, games, i, c, w, kl[i], sum);
            value_only += kl[i] < 0;
            repeated += c > 1;
            dropped += c == 0;
            copies_all += (size_t)c;
            weights_all += w;
        }
        j0 += (size_t)n;
    }
    assert_int_equal(games, 8);
    assert_int_equal(j0, n0);
    assert_int_equal(j1, n1);
    assert_true(repeated > 0 && dropped > 0);
    assert_true(full_sims_prob < 1 ? value_only > 0 : value_only == 0);
    if (fabs((double)copies_all - weights_all) > 5 * sqrt((double)n0) + 1)
        fail_msg("%zu copies for weights summing to %g over %zu decisions", copies_all, weights_all, n0);
    for (int i = 0; i < 2; i++)
        free(text[i]), replay_free(rb[i]);
}

static void test_surprise_weighting(void **state)
{
    (void)state;
    check_surprise(1.0);
    check_surprise(0.5);
    selfplay_config sc = selfplay_config_default();
    char err[MCTS_ERRLEN];
    sc.surprise_weight = 1.5;
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "selfplay.surprise_weight"));
    sc.surprise_weight = -0.1;
    assert_int_equal(selfplay_config_check(&sc, err), MCTS_EINVAL);
}

/* ---- batching: one evaluator call carries the leaves of many games ---- */

typedef struct {
    mcts_eval base;
    mcts_eval *inner;
    int calls, max_n, over;
} counting_eval;

static int counting_evaluate(mcts_eval *e, const kalah_pos *pos, int n, float *prior, float *value)
{
    counting_eval *c = (counting_eval *)e;
    c->calls++;
    if (n > c->max_n)
        c->max_n = n;
    for (int i = 0; i < n; i++)
        c->over |= pos[i].over;
    int rc = c->inner->evaluate(c->inner, pos, n, prior, value);
    e->positions += (uint64_t)n;
    return rc;
}

static void counting_destroy(mcts_eval *e)
{
    mcts_eval_free(((counting_eval *)e)->inner);
}

typedef struct {
    counting_eval ev;
    int created, max_batch;
} counting_box;

static mcts_eval *counting_create(const mcts_eval_factory *f, const kalah_rules *r, int max_batch, uint64_t seed,
                                  char *err)
{
    counting_box *box = f->user;
    memset(&box->ev, 0, sizeof box->ev);
    box->ev.inner = mcts_eval_rollout_create(r, 1, max_batch, seed, err);
    box->ev.base = (mcts_eval){.evaluate = counting_evaluate, .destroy = counting_destroy, .rules = *r,
                               .max_batch = max_batch};
    box->created++;
    box->max_batch = max_batch;
    return &box->ev.base;
}

static void test_batches_span_games(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    counting_box box = {0};
    mcts_eval_factory ef = {.create = counting_create, .user = &box};
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 8;
    sc.games = 16;
    mcts_config mc = fast_search(16);
    selfplay_stats st;
    char *text = play(&r, &sc, &mc, &ef, NULL, 3, &st);
    free(text);
    assert_int_equal(box.created, 1);
    assert_int_equal(box.max_batch, 8);
    assert_int_equal(box.ev.max_n, 8);     /* full batches: one leaf from each of the 8 games */
    assert_int_equal((uint64_t)box.ev.calls, st.batches);
    assert_int_equal(box.ev.over, 0);      /* finished positions never reach the evaluator */
    assert_true(st.avg_batch > 4.0);
    assert_int_equal(st.games, 16);

    /* several leaves per game (virtual loss) fill larger batches */
    mc.leaves_per_game = 4;
    text = play(&r, &sc, &mc, &ef, NULL, 3, &st);
    free(text);
    assert_int_equal(box.max_batch, 32);
    assert_true(box.ev.max_n > 8 && box.ev.max_n <= 32);
    assert_int_equal(box.ev.over, 0);
}

/* ---- threads ---- */

static void test_threads(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    nn_net *net = tiny_net(&r, 9);
    selfplay_config sc = selfplay_config_default();
    sc.threads = 3;
    sc.games_per_thread = 3;
    sc.games = 10;
    mcts_config mc = fast_search(16);
    mcts_eval_factory ef = mcts_eval_factory_net(net);
    replay_buffer *rb = replay_create(kalah_encode_dim(&r), r.pits, 1, 100000, NULL);
    selfplay_stats st;
    char *text = play(&r, &sc, &mc, &ef, rb, 11, &st);
    assert_int_equal(st.games, 10);
    assert_int_equal(replay_total(rb), st.samples);
    int records = 0;
    for (char *s = text; (s = strstr(s, "[Event ")); s++)
        records++;
    assert_int_equal(records, 10);
    free(text);
    replay_free(rb);
    nn_net_free(net);
}

/* Two workers, a net evaluator: the same seed gives the same games, the same records text and the same
 * replay buffer, byte for byte, whatever the threads' timing (games dealt by index, samples handed over
 * worker by worker after the join). Four runs, so that a timing-dependent order shows. */
static void test_threads_deterministic(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    nn_net *net = tiny_net(&r, 5);
    selfplay_config sc = selfplay_config_default();
    sc.threads = 2;
    sc.games_per_thread = 2;
    sc.games = 41;
    mcts_config mc = fast_search(8);
    mcts_eval_factory ef = mcts_eval_factory_net(net);
    char *text[4];
    void *blob[4];
    size_t n[4];
    for (int i = 0; i < 4; i++) {
        replay_buffer *rb = replay_create(kalah_encode_dim(&r), r.pits, 1, 100000, NULL);
        selfplay_stats st;
        text[i] = play(&r, &sc, &mc, &ef, rb, 77, &st);
        assert_int_equal(st.games, 41);
        assert_int_equal(replay_save(rb, &blob[i], &n[i]), MCTS_OK);
        replay_free(rb);
    }
    for (int i = 1; i < 4; i++) {
        assert_string_equal(text[0], text[i]);
        assert_int_equal(n[0], n[i]);
        assert_memory_equal(blob[0], blob[i], n[0]);
    }
    for (int i = 0; i < 4; i++)
        free(text[i]), free(blob[i]);
    nn_net_free(net);
}

static void test_max_moves_and_errors(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    char err[MCTS_ERRLEN];
    selfplay_config sc = selfplay_config_default();
    sc.games_per_thread = 2;
    sc.games = 3;
    sc.max_moves = 5;
    mcts_config mc = fast_search(8);
    mcts_eval_factory ef = mcts_eval_factory_rollout(1);
    replay_buffer *rb = replay_create(kalah_encode_dim(&r), r.pits, 1, 1000, NULL);
    selfplay_stats st;
    char *text = play(&r, &sc, &mc, &ef, rb, 1, &st);
    assert_int_equal(st.samples, 15);
    assert_non_null(strstr(text, "[Result \"*\"]"));
    /* scored by the sweep: each side's pits to its own store */
    float z, margin;
    assert_int_equal(replay_get(rb, 0, NULL, NULL, NULL, &z, &margin), MCTS_OK);
    assert_true(z == -1 || z == 0 || z == 1);
    assert_true((z > 0) == (margin > 0) && (z < 0) == (margin < 0));
    free(text);

    /* configuration errors name the field */
    const char *fields[] = {"threads", "games_per_thread", "games", "max_moves", "pi_visits"};
    for (int i = 0; i < 5; i++) {
        selfplay_config b = selfplay_config_default();
        switch (i) {
        case 0: b.threads = 0; break;
        case 1: b.games_per_thread = 0; break;
        case 2: b.games = 0; break;
        case 3: b.max_moves = 0; break;
        case 4: b.pi_visits = 3; break;
        }
        assert_int_equal(selfplay_config_check(&b, err), MCTS_EINVAL);
        if (!strstr(err, fields[i]))
            fail_msg("'%s' does not name %s", err, fields[i]);
        assert_int_equal(selfplay_run(&r, &b, &mc, &ef, rb, 1, NULL, NULL, err), MCTS_EINVAL);
    }
    /* a buffer of other dimensions, a net of other shapes */
    replay_buffer *small = replay_create(4, 2, 1, 10, NULL);
    assert_int_equal(selfplay_run(&r, &sc, &mc, &ef, small, 1, NULL, NULL, err), MCTS_EINVAL);
    replay_free(small);
    kalah_rules r4 = r;
    r4.pits = 4;
    nn_net *net = tiny_net(&r4, 1);
    mcts_eval_factory nf = mcts_eval_factory_net(net);
    assert_int_not_equal(selfplay_run(&r, &sc, &mc, &nf, NULL, 1, NULL, NULL, err), MCTS_OK);
    assert_non_null(strstr(err, "input_dim"));
    nn_net_free(net);
    /* a net with a vector value head (multi-player) is not a Kalah net */
    nn_config vc = nn_config_default(kalah_encode_dim(&r), r.pits);
    vc.n_hidden = 1;
    vc.hidden[0] = 8;
    vc.n_value = 3;
    net = nn_net_create(&vc, 1, NULL);
    assert_null(mcts_eval_net_create(net, &r, 4, err));
    assert_non_null(strstr(err, "n_value"));
    nf = mcts_eval_factory_net(net);
    assert_int_not_equal(selfplay_run(&r, &sc, &mc, &nf, NULL, 1, NULL, NULL, err), MCTS_OK);
    assert_non_null(strstr(err, "n_value"));
    nn_net_free(net);
    replay_free(rb);
}

/* ---- replay buffer ---- */

static void fill(replay_buffer *rb, int from, int to)
{
    float x[14], pi[6] = {0, 0, 0, 0, 0, 1};
    uint8_t legal[6] = {1, 1, 1, 1, 1, 1};
    for (int i = from; i < to; i++) {
        for (int k = 0; k < 14; k++)
            x[k] = (float)(i * 100 + k);
        float z = (float)i;
        replay_sample s = {x, legal, pi, &z, (float)-i};
        assert_int_equal(replay_add(rb, &s, 1), MCTS_OK);
    }
}

static void test_replay_window_and_sampling(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    assert_null(replay_create(14, 6, 1, 0, err));
    assert_non_null(strstr(err, "window"));
    replay_buffer *rb = replay_create(14, 6, 1, 4, NULL);
    float x[14], z, margin;
    mcts_rng g;
    mcts_rng_seed(&g, 1);
    assert_int_equal(replay_sample_batch(rb, &g, 1, x, NULL, x, &z, NULL), MCTS_EINVAL); /* empty */
    fill(rb, 0, 10);
    assert_int_equal(replay_size(rb), 4);
    assert_int_equal(replay_total(rb), 10);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(replay_get(rb, (size_t)i, x, NULL, NULL, &z, &margin), MCTS_OK);
        assert_float_equal(z, 6 + i, 0);
        assert_float_equal(margin, -(6 + i), 0);
        assert_float_equal(x[3], (6 + i) * 100 + 3, 0);
    }
    assert_int_equal(replay_get(rb, 4, x, NULL, NULL, &z, NULL), MCTS_EINVAL);
    /* uniform with replacement over what is held */
    int count[10] = {0}, B = 64;
    float bx[64 * 14], bpi[64 * 6], bz[64], bm[64];
    uint8_t bl[64 * 6];
    for (int rep = 0; rep < 500; rep++) {
        assert_int_equal(replay_sample_batch(rb, &g, B, bx, bl, bpi, bz, bm), MCTS_OK);
        for (int i = 0; i < B; i++) {
            int id = (int)bz[i];
            assert_true(id >= 6 && id <= 9);
            assert_float_equal(bx[i * 14 + 5], id * 100 + 5, 0);
            assert_float_equal(bm[i], -id, 0);
            assert_float_equal(bpi[i * 6 + 5], 1, 0);
            count[id]++;
        }
    }
    for (int id = 6; id <= 9; id++)
        assert_true(abs(count[id] - 8000) < 400); /* ~4.5 sigma */
    replay_clear(rb);
    assert_int_equal(replay_size(rb), 0);
    assert_int_equal(replay_total(rb), 10);
    replay_free(rb);
}

/* replay_drain: a buffer filled apart and drained into another holds what adding the same samples there
 * directly gives (oldest first, the window applied), and the source is left empty; other shapes refused. */
static void test_replay_drain(void **state)
{
    (void)state;
    replay_buffer *dst = replay_create(14, 6, 1, 50, NULL), *src = replay_create(14, 6, 1, 40, NULL);
    replay_buffer *other = replay_create(15, 6, 1, 40, NULL);
    fill(dst, 0, 30);
    fill(src, 10, 73); /* wrapped: it keeps samples 33..72 */
    assert_int_equal(replay_drain(dst, src), MCTS_OK);
    assert_int_equal(replay_size(src), 0);
    replay_buffer *want = replay_create(14, 6, 1, 50, NULL);
    fill(want, 0, 30);
    fill(want, 33, 73);
    void *a, *b;
    size_t na, nb;
    assert_int_equal(replay_save(dst, &a, &na), MCTS_OK);
    assert_int_equal(replay_save(want, &b, &nb), MCTS_OK);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    free(a), free(b);
    assert_int_equal(replay_drain(dst, other), MCTS_EINVAL);
    assert_int_equal(replay_drain(dst, dst), MCTS_EINVAL);
    replay_free(dst), replay_free(src), replay_free(other), replay_free(want);
}

static void test_replay_save_restore(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    replay_buffer *a = replay_create(14, 6, 1, 50, NULL), *b = replay_create(14, 6, 1, 50, NULL);
    fill(a, 0, 73); /* wrapped around */
    void *blob;
    size_t n;
    assert_int_equal(replay_save(a, &blob, &n), MCTS_OK);
    assert_int_equal(replay_restore(b, blob, n, err), MCTS_OK);
    assert_int_equal(replay_size(b), 50);
    assert_int_equal(replay_total(b), 73);
    mcts_rng ga, gb;
    mcts_rng_seed(&ga, 9);
    mcts_rng_seed(&gb, 9);
    float xa[8 * 14], xb[8 * 14], pa[8 * 6], pb[8 * 6], za[8], zb[8], ma[8], mb[8];
    uint8_t la[8 * 6], lb[8 * 6];
    for (int rep = 0; rep < 20; rep++) {
        replay_sample_batch(a, &ga, 8, xa, la, pa, za, ma);
        replay_sample_batch(b, &gb, 8, xb, lb, pb, zb, mb);
        assert_memory_equal(xa, xb, sizeof xa);
        assert_memory_equal(la, lb, sizeof la);
        assert_memory_equal(pa, pb, sizeof pa);
        assert_memory_equal(za, zb, sizeof za);
        assert_memory_equal(ma, mb, sizeof ma);
    }
    /* adding after a restore continues the same ring */
    fill(a, 73, 80);
    fill(b, 73, 80);
    void *b1, *b2;
    size_t n1, n2;
    replay_save(a, &b1, &n1);
    replay_save(b, &b2, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1), free(b2);
    /* a smaller window keeps the newest */
    replay_buffer *c = replay_create(14, 6, 1, 10, NULL);
    assert_int_equal(replay_restore(c, blob, n, err), MCTS_OK);
    float z;
    replay_get(c, 0, NULL, NULL, NULL, &z, NULL);
    assert_float_equal(z, 63, 0);
    assert_int_equal(replay_total(c), 73);
    /* broken blobs are refused and leave the buffer alone */
    uint8_t *bad = malloc(n);
    memcpy(bad, blob, n);
    bad[0] = 'X';
    assert_int_equal(replay_restore(c, bad, n, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "magic"));
    assert_int_equal(replay_restore(c, blob, n - 3, err), MCTS_EINVAL);
    assert_int_equal(replay_restore(c, blob, 10, err), MCTS_EINVAL);
    replay_buffer *d = replay_create(10, 4, 1, 10, NULL);
    assert_int_equal(replay_restore(d, blob, n, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "dim"));
    assert_int_equal(replay_size(c), 10);
    replay_get(c, 0, NULL, NULL, NULL, &z, NULL);
    assert_float_equal(z, 63, 0);
    free(bad);
    free(blob);
    replay_free(a), replay_free(b), replay_free(c), replay_free(d);
}

/* A buffer of n_value = 3: z vectors round trip through add/get, sample_batch writes them batch × 3 beside
 * their own x, the blob (version 2) carries them, and mismatched n_value is refused everywhere. */
static void fill3(replay_buffer *rb, int from, int to)
{
    float x[14], pi[6] = {0, 0, 0, 0, 0, 1}, z[3];
    uint8_t legal[6] = {1, 1, 1, 1, 1, 1};
    for (int i = from; i < to; i++) {
        for (int k = 0; k < 14; k++)
            x[k] = (float)(i * 100 + k);
        for (int j = 0; j < 3; j++)
            z[j] = (float)(1000 * j + i);
        replay_sample s = {x, legal, pi, z, (float)-i};
        assert_int_equal(replay_add(rb, &s, 1), MCTS_OK);
    }
}

static void test_replay_vector_z(void **state)
{
    (void)state;
    char err[MCTS_ERRLEN];
    assert_null(replay_create(14, 6, 0, 10, err));
    assert_non_null(strstr(err, "n_value"));
    assert_null(replay_create(14, 6, REPLAY_MAX_VALUE + 1, 10, err));
    assert_non_null(strstr(err, "n_value"));
    replay_buffer *rb = replay_create(14, 6, 3, 20, NULL);
    assert_non_null(rb);
    assert_int_equal(replay_n_value(rb), 3);
    float x[14], pi[6] = {1, 0, 0, 0, 0, 0};
    uint8_t legal[6] = {1, 1, 1, 1, 1, 1};
    replay_sample nz = {x, legal, pi, NULL, 0};
    assert_int_equal(replay_add(rb, &nz, 1), MCTS_EINVAL); /* z is required */
    fill3(rb, 0, 25);
    for (int i = 0; i < 20; i++) {
        float z[3], m;
        assert_int_equal(replay_get(rb, (size_t)i, x, NULL, NULL, z, &m), MCTS_OK);
        for (int j = 0; j < 3; j++)
            assert_float_equal(z[j], 1000 * j + 5 + i, 0);
        assert_float_equal(m, -(5 + i), 0);
    }
    enum { B = 32 };
    float bx[B * 14], bpi[B * 6], bz[B * 3], bm[B];
    uint8_t bl[B * 6];
    mcts_rng g;
    mcts_rng_seed(&g, 3);
    for (int rep = 0; rep < 20; rep++) {
        assert_int_equal(replay_sample_batch(rb, &g, B, bx, bl, bpi, bz, bm), MCTS_OK);
        for (int b = 0; b < B; b++) {
            int id = (int)bx[b * 14] / 100;
            assert_true(id >= 5 && id < 25);
            for (int j = 0; j < 3; j++)
                assert_float_equal(bz[b * 3 + j], 1000 * j + id, 0);
            assert_float_equal(bm[b], -id, 0);
        }
    }
    /* The blob: version 2 with n_value, restored bit for bit into another n_value = 3 buffer. */
    void *blob, *blob2;
    size_t n, n2;
    assert_int_equal(replay_save(rb, &blob, &n), MCTS_OK);
    uint32_t ver, nv;
    memcpy(&ver, (uint8_t *)blob + 4, 4);
    memcpy(&nv, (uint8_t *)blob + 20, 4);
    assert_int_equal(ver, 2);
    assert_int_equal(nv, 3);
    assert_int_equal(n, 48 + 20 * (14 * 4 + 6 + 6 * 4 + 3 * 4 + 4));
    replay_buffer *c = replay_create(14, 6, 3, 20, NULL), *one = replay_create(14, 6, 1, 20, NULL);
    assert_int_equal(replay_restore(c, blob, n, err), MCTS_OK);
    assert_int_equal(replay_save(c, &blob2, &n2), MCTS_OK);
    assert_int_equal(n, n2);
    assert_memory_equal(blob, blob2, n);
    assert_int_equal(replay_restore(one, blob, n, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "n_value"));
    /* Self-play fills Kalah samples (one value): it refuses a vector buffer. */
    kalah_rules r = kalah_rules_default();
    selfplay_config sc = selfplay_config_default();
    mcts_config mc = fast_search(8);
    mcts_eval_factory ef = mcts_eval_factory_rollout(1);
    replay_buffer *kb = replay_create(kalah_encode_dim(&r), r.pits, 3, 10, NULL);
    assert_int_equal(selfplay_run(&r, &sc, &mc, &ef, kb, 1, NULL, NULL, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "n_value"));
    free(blob), free(blob2);
    replay_free(rb), replay_free(c), replay_free(one), replay_free(kb);
}

/* A version-1 blob (from checkpoints written before vector values: no n_value field, one float z) restores
 * into an n_value = 1 buffer with every field in place; saving it again gives version 2. Built by hand
 * from the documented layout so the old format stays pinned. */
static void test_replay_v1_blob(void **state)
{
    (void)state;
    enum { DIM = 3, PITS = 2, COUNT = 5, REC = DIM * 4 + PITS + PITS * 4 + 4 + 4 };
    uint8_t blob[44 + COUNT * REC], *q = blob;
    uint32_t h32[4] = {1, 0x01020304u, DIM, PITS};
    uint64_t h64[3] = {8, COUNT, 11}; /* window 8, 5 held, 11 ever added */
    memcpy(q, "SZRB", 4), q += 4;
    memcpy(q, h32, sizeof h32), q += sizeof h32;
    memcpy(q, h64, sizeof h64), q += sizeof h64;
    for (int i = 0; i < COUNT; i++) {
        float x[DIM] = {(float)i, 0.5f, -1}, pi[PITS] = {0.25f, 0.75f}, z = (float)(i % 3 - 1), m = 0.1f * i;
        uint8_t lg[PITS] = {1, (uint8_t)(i & 1)};
        memcpy(q, x, sizeof x), q += sizeof x;
        memcpy(q, lg, sizeof lg), q += sizeof lg;
        memcpy(q, pi, sizeof pi), q += sizeof pi;
        memcpy(q, &z, 4), q += 4;
        memcpy(q, &m, 4), q += 4;
    }
    assert_int_equal((size_t)(q - blob), sizeof blob);
    char err[MCTS_ERRLEN];
    replay_buffer *rb = replay_create(DIM, PITS, 1, 4, NULL); /* a smaller window: the newest 4 are kept */
    if (replay_restore(rb, blob, sizeof blob, err) != MCTS_OK)
        fail_msg("version-1 blob: %s", err);
    assert_int_equal(replay_size(rb), 4);
    assert_int_equal(replay_total(rb), 11);
    for (int i = 1; i < COUNT; i++) {
        float x[DIM], pi[PITS], z, m;
        uint8_t lg[PITS];
        assert_int_equal(replay_get(rb, (size_t)i - 1, x, lg, pi, &z, &m), MCTS_OK);
        assert_float_equal(x[0], i, 0);
        assert_float_equal(x[2], -1, 0);
        assert_int_equal(lg[1], i & 1);
        assert_float_equal(pi[1], 0.75, 0);
        assert_float_equal(z, (i % 3 - 1), 0);
        assert_float_equal(m, (0.1f * i), 0);
    }
    void *v2;
    size_t n2;
    assert_int_equal(replay_save(rb, &v2, &n2), MCTS_OK);
    uint32_t ver;
    memcpy(&ver, (uint8_t *)v2 + 4, 4);
    assert_int_equal(ver, 2);
    assert_int_equal(n2, 48 + 4 * REC);
    free(v2);
    /* Only an n_value = 1 buffer takes it; damaged version-1 blobs are refused. */
    replay_buffer *three = replay_create(DIM, PITS, 3, 8, NULL);
    assert_int_equal(replay_restore(three, blob, sizeof blob, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "n_value"));
    assert_int_equal(replay_restore(rb, blob, sizeof blob - 1, err), MCTS_EINVAL);
    assert_int_equal(replay_restore(rb, blob, 40, err), MCTS_EINVAL);
    uint8_t bad[sizeof blob];
    memcpy(bad, blob, sizeof blob);
    bad[4] = 3; /* version 3 */
    assert_int_equal(replay_restore(rb, bad, sizeof bad, err), MCTS_EINVAL);
    assert_non_null(strstr(err, "version"));
    assert_int_equal(replay_size(rb), 4);
    replay_free(rb), replay_free(three);
}

typedef struct {
    replay_buffer *rb;
    int id;
} adder_arg;

static void *adder(void *p)
{
    adder_arg *a = p;
    float x[14] = {0}, pi[6] = {1, 0, 0, 0, 0, 0};
    uint8_t legal[6] = {1, 0, 0, 0, 0, 0};
    mcts_rng g;
    mcts_rng_seed(&g, (uint64_t)a->id);
    float bx[4 * 14], bpi[4 * 6], bz[4];
    for (int i = 0; i < 500; i++) {
        x[0] = (float)a->id;
        static const float win = 1, loss = -1;
        replay_sample s[2] = {{x, legal, pi, &win, 0}, {x, legal, pi, &loss, 0}};
        replay_add(a->rb, s, 2);
        replay_sample_batch(a->rb, &g, 4, bx, NULL, bpi, bz, NULL);
    }
    return NULL;
}

static void test_replay_threads(void **state)
{
    (void)state;
    replay_buffer *rb = replay_create(14, 6, 1, 700, NULL);
    pthread_t th[4];
    adder_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (adder_arg){rb, i};
        pthread_create(&th[i], NULL, adder, &args[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(replay_total(rb), 4000);
    assert_int_equal(replay_size(rb), 700);
    /* pairs were added atomically: the sum of z over the whole (even-sized, pair-aligned) window is 0 */
    double sum = 0;
    for (size_t i = 0; i < 700; i++) {
        float z;
        replay_get(rb, i, NULL, NULL, NULL, &z, NULL);
        sum += z;
    }
    assert_float_equal(sum, 0, 0);
    replay_free(rb);
}

/* ---- game records ---- */

static void test_record_writer(void **state)
{
    (void)state;
    kalah_rules r = kalah_rules_default();
    kalah_pos p;
    assert_int_equal(kalah_pos_parse("0,0,0,0,2,1,22,1,0,0,0,0,0,22 S", &r, &p, NULL, NULL), KALAH_OK);
    uint8_t moves[3] = {5, 4, 5};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(selfplay_record_write(f, &r, &p, moves, 3, "test", "a", "b"), MCTS_OK);
    assert_int_equal(selfplay_record_write(f, &r, &p, moves, 1, "test", "a", "b"), MCTS_OK);
    uint8_t bad[2] = {5, 0};
    assert_int_equal(selfplay_record_write(f, &r, &p, bad, 2, "test", "a", "b"), MCTS_EINVAL);
    assert_int_equal(selfplay_record_write(f, &r, &p, moves, 3, "te\"st", "a", "b"), MCTS_EINVAL);
    fclose(f);
    const char *want =
        "[Event \"test\"]\n[South \"a\"]\n[North \"b\"]\n"
        "[Rules \"kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0\"]\n"
        "[Start \"0,0,0,0,2,1,22,1,0,0,0,0,0,22 S\"]\n[Result \"1-0\"]\n[Score \"25-23\"]\n\nf e f 1-0\n\n"
        "[Event \"test\"]\n[South \"a\"]\n[North \"b\"]\n"
        "[Rules \"kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0\"]\n"
        "[Start \"0,0,0,0,2,1,22,1,0,0,0,0,0,22 S\"]\n[Result \"*\"]\n[Score \"23-22\"]\n\nf *\n\n";
    assert_string_equal(text, want);
    free(text);
}

/* ---- the benchmark command ---- */

static void test_bench_command(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = tu_run(&out, 0, "bench selfplay --sims 8 --games-per-thread 4 --games 4 --threads 2 --json");
    assert_int_equal(rc, 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    const char *keys[] = {"positions_per_s", "games_per_s", "avg_batch", "forward_share", "sims_per_s_per_core",
                          "search_us_per_sim", "net_us_per_sim", "simulations"};
    for (int i = 0; i < 8; i++) {
        cJSON *v = cJSON_GetObjectItem(o, keys[i]);
        if (!cJSON_IsNumber(v))
            fail_msg("missing key %s in %s", keys[i], out);
        assert_true(v->valuedouble >= 0);
    }
    assert_true(cJSON_GetObjectItem(o, "forward_share")->valuedouble <= 1);
    assert_int_equal(cJSON_GetObjectItem(o, "games")->valueint, 4);
    /* 8 new simulations per move (tree reuse adds none to the count), fewer only where the solver proved the
     * root; the two times per simulation add up to the workers' time */
    double sims = cJSON_GetObjectItem(o, "simulations")->valuedouble;
    double positions = cJSON_GetObjectItem(o, "positions")->valuedouble;
    assert_true(sims <= 8 * positions && sims >= 0.5 * 8 * positions);
    assert_true(cJSON_GetObjectItem(o, "net_us_per_sim")->valuedouble > 0);
    cJSON_Delete(o);
    free(out);
    rc = tu_run(&out, 1, "bench selfplay --threads 0");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--threads"));
    free(out);
    rc = tu_run(&out, 1, "bench selfplay --rules nosuch");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "nosuch"));
    free(out);
    /* any game: the game interface's self-play, with the same figures */
    rc = tu_run(&out, 0, "bench selfplay --rules oware --sims 8 --games-per-thread 2 --games 2 --json");
    assert_int_equal(rc, 0);
    o = cJSON_Parse(out);
    assert_non_null(o);
    assert_int_equal((int)cJSON_GetObjectItem(o, "games")->valuedouble, 2);
    assert_true(cJSON_GetObjectItem(o, "simulations")->valuedouble > 0);
    cJSON_Delete(o);
    free(out);
    rc = tu_run(&out, 0, "bench selfplay --help");
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "--sims"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_identical_games),
        cmocka_unit_test(test_samples_match_records),
        cmocka_unit_test(test_random_openings),
        cmocka_unit_test(test_opening_sims),
        cmocka_unit_test(test_pi_temperature),
        cmocka_unit_test(test_surprise_weighting),
        cmocka_unit_test(test_batches_span_games),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_threads_deterministic),
        cmocka_unit_test(test_max_moves_and_errors),
        cmocka_unit_test(test_replay_window_and_sampling),
        cmocka_unit_test(test_replay_save_restore),
        cmocka_unit_test(test_replay_drain),
        cmocka_unit_test(test_replay_vector_z),
        cmocka_unit_test(test_replay_v1_blob),
        cmocka_unit_test(test_replay_threads),
        cmocka_unit_test(test_record_writer),
        cmocka_unit_test(test_bench_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
