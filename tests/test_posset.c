/* test_posset.c — Kalah's position sets through eval/gposset.h: the sampler (no duplicates, no finished
 * positions, the phase quotas, determinism), Kalah sets solved by gps_solve (eval/gposset.h:
 * Kalah's alpha-beta behind gs_solver_moves) against a plain minimax written here, ab_solve_moves against
 * full-window alpha-beta, one endgame database shared by
 * several searches and threads, the writer (the format exactly, parsed back with cJSON; the temporary file
 * and its rename) and the `positions` command. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <cjson/cJSON.h>
#include <unistd.h>

#include "eval/alphabeta.h"
#include "env/game_twoside.h" /* gt_to_kalah */
#include "eval/gposset.h"

static void rules_or_fail(const char *spec, kalah_rules *r)
{
    char err[KALAH_ERRLEN];
    if (kalah_rules_parse(spec, r, err) != KALAH_OK)
        fail_msg("rules '%s': %s", spec, err);
}

/* ---- the oracle: plain minimax to the end of the game, an extra turn keeps the sign; memoised on the
 * whole board (stores included) and the side to move, nothing else assumed ---- */

#define MEMO_SLOTS (1u << 18)

typedef struct {
    uint8_t cell[KALAH_CELLS];
    uint8_t side, used;
    int16_t value;
} memo_slot;

static memo_slot *memo;
static kalah_rules memo_rules;

static memo_slot *memo_find(const kalah_pos *p)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < KALAH_CELLS; i++)
        h = (h ^ p->cell[i]) * 1099511628211ULL;
    h = (h ^ p->side) * 1099511628211ULL;
    for (uint32_t i = 0; i < 64; i++) {
        memo_slot *m = &memo[(h + i) & (MEMO_SLOTS - 1)];
        if (!m->used || (m->side == p->side && !memcmp(m->cell, p->cell, KALAH_CELLS)))
            return m;
    }
    return NULL; /* crowded: just search */
}

static int minimax(const kalah_rules *r, const kalah_pos *p)
{
    int m = r->pits, sd = (int)p->cell[m] - (int)p->cell[2 * m + 1];
    if (p->side)
        sd = -sd;
    if (p->over)
        return sd;
    if (!memo || memcmp(&memo_rules, r, sizeof *r)) {
        free(memo);
        memo = calloc(MEMO_SLOTS, sizeof *memo);
        memo_rules = *r;
    }
    memo_slot *ms = memo_find(p);
    if (ms && ms->used)
        return ms->value;
    int best = -1000;
    unsigned legal = kalah_legal(r, p);
    for (int k = 0; k < m; k++)
        if (legal >> k & 1) {
            kalah_pos c = *p;
            kalah_sow(r, &c, k, NULL);
            int v = minimax(r, &c);
            v = c.side == p->side ? v : -v;
            if (v > best)
                best = v;
        }
    ms = memo_find(p); /* the recursion may have filled the slot found before */
    if (ms && !ms->used) {
        memcpy(ms->cell, p->cell, KALAH_CELLS);
        ms->side = p->side;
        ms->used = 1;
        ms->value = (int16_t)best;
    }
    return best;
}

static int minimax_after(const kalah_rules *r, const kalah_pos *p, int k)
{
    kalah_pos c = *p;
    kalah_sow(r, &c, k, NULL);
    int v = minimax(r, &c);
    return c.side == p->side ? v : -v;
}

/* ---- sampling ---- */

static gps_set *gsample(const game *g, size_t count, size_t early, int max_seeds, uint64_t seed)
{
    char err[PS_ERRLEN];
    gps_set *s = gps_create(g, err);
    if (!s)
        fail_msg("gps_create: %s", err);
    ps_sample_opts o = {.count = count, .early = early, .seed = seed, .max_seeds = max_seeds};
    if (gps_sample(s, &o, err) != PS_OK)
        fail_msg("gps_sample %s: %s", game_spec(g), err);
    return s;
}

static void test_sampler_quotas_no_duplicates(void **state)
{
    (void)state;
    game *g = tu_game("kalah:pits=4,seeds=3");
    gps_set *s = gsample(g, 200, 40, 0, 5);
    assert_int_equal(gps_count(s), 200);
    size_t phase[PS_PHASES] = {0}, openings = 0, games = 0;
    for (size_t i = 0; i < gps_count(s); i++) {
        const gps_entry *e = gps_get(s, i);
        assert_false(e->pos.over);
        assert_true(game_legal(g, &e->pos) != 0);
        assert_int_equal(game_board_seeds(g, &e->pos), 24);
        assert_true(e->pos.ply >= 0);
        assert_false(e->solved);
        phase[gps_phase(g, game_seeds_in_pits(g, &e->pos))]++;
        openings += !strncmp(e->source, "opening:", 8);
        games += !strncmp(e->source, "game:", 5);
        for (size_t k = 0; k < i; k++) {
            const gps_entry *f = gps_get(s, k);
            if (f->pos.to_move == e->pos.to_move && !memcmp(f->pos.cell, e->pos.cell, KALAH_CELLS))
                fail_msg("entries %zu and %zu are the same position", k, i);
        }
    }
    assert_int_equal(phase[0], 40);
    assert_int_equal(phase[1], 80);
    assert_int_equal(phase[2], 80);
    assert_true(openings > 10 && games > 10);
    assert_int_equal(openings + games, 200);

    /* The same options give the same set; another seed another one. */
    gps_set *t = gsample(g, 200, 40, 0, 5), *u = gsample(g, 200, 40, 0, 6);
    int differ = 0;
    for (size_t i = 0; i < 200; i++) {
        assert_memory_equal(&gps_get(s, i)->pos, &gps_get(t, i)->pos, sizeof(game_pos));
        assert_string_equal(gps_get(s, i)->source, gps_get(t, i)->source);
        differ |= memcmp(gps_get(s, i)->pos.cell, gps_get(u, i)->pos.cell, KALAH_CELLS) != 0;
    }
    assert_true(differ);
    gps_free(s);
    gps_free(t);
    gps_free(u);
    game_free(g);
}

static void test_phases(void **state)
{
    (void)state;
    game *g = tu_game("kalah");
    int hi, lo;
    assert_int_equal(gps_phase(g, 48), 0);
    assert_int_equal(gps_phase(g, 33), 0);
    assert_int_equal(gps_phase(g, 32), 1);
    assert_int_equal(gps_phase(g, 17), 1);
    assert_int_equal(gps_phase(g, 16), 2);
    assert_int_equal(gps_phase(g, 0), 2);
    gps_phase_range(g, 0, &hi, &lo);
    assert_true(hi == 48 && lo == 33);
    gps_phase_range(g, 1, &hi, &lo);
    assert_true(hi == 32 && lo == 17);
    gps_phase_range(g, 2, &hi, &lo);
    assert_true(hi == 16 && lo == 0);
    assert_string_equal(ps_phase_name(0), "opening");
    assert_string_equal(ps_phase_name(2), "endgame");
    game_free(g);
}

static void test_sampler_errors(void **state)
{
    (void)state;
    game *g = tu_game("kalah:pits=2,seeds=1");
    char err[PS_ERRLEN];
    gps_set *s = gps_create(g, err);
    /* Kalah(2,1) has only a handful of positions: the quota cannot be met, and the message says where. */
    ps_sample_opts o = {.count = 30, .early = 10, .seed = 1};
    assert_int_equal(gps_sample(s, &o, err), PS_EFAIL);
    assert_non_null(strstr(err, "seeds in the pits"));
    gps_free(s);
    s = gps_create(g, err);
    o.early = 31;
    assert_int_equal(gps_sample(s, &o, err), PS_EINVAL);
    gps_free(s);
    /* a phase wholly above max_seeds hands its share on: Kalah(6,4) under 10 seeds fills the late phase only */
    game *k64 = tu_game("kalah");
    s = gsample(k64, 6, 2, 10, 3);
    assert_int_equal(gps_count(s), 6);
    for (size_t i = 0; i < gps_count(s); i++)
        assert_true(game_seeds_in_pits(k64, &gps_get(s, i)->pos) <= 10);
    gps_free(s);
    game_free(k64);
    /* a finished position and a repeated one are not added */
    s = gps_create(g, err);
    game_pos p;
    game_start(g, &p);
    assert_int_equal(gps_add(s, &p, "x"), 1);
    assert_int_equal(gps_add(s, &p, "y"), 0);
    p.to_move = 1;
    assert_int_equal(gps_add(s, &p, "y"), 1);
    game_pos q = tu_game_pos(g, "0,0,2,0,0,2 S");
    assert_true(q.over);
    assert_int_equal(gps_add(s, &q, "z"), 0);
    assert_int_equal(gps_count(s), 2);
    gps_free(s);
    game_free(g);
}

/* ---- solving ---- */

/* Every move's value against the plain minimax on Kalah(3,3) (every phase), on 1 and 2 threads, with and
 * without an endgame database. */
static void test_solve_against_minimax(void **state)
{
    (void)state;
    const char *specs[] = {"kalah:pits=3,seeds=3", "kalah:pits=3,seeds=3,capture=always,end=mover-empty",
                           "kalah:pits=3,seeds=2,capture=none"};
    char err[PS_ERRLEN];
    for (int v = 0; v < 3; v++)
        for (int threads = 1; threads <= 2; threads++) {
            game *g = tu_game(specs[v]);
            gps_set *s = gps_create(g, err);
            assert_non_null(s);
            ps_sample_opts so = {.count = 30, .early = 6, .seed = 11 + (uint64_t)threads};
            assert_int_equal(gps_sample(s, &so, err), PS_OK);
            gps_solve_opts o = {.threads = threads, .tt_mb = 8, .endgame = threads == 2 ? 6 : 0};
            ps_solve_stats st;
            if (gps_solve(s, &o, &st, err) != PS_OK)
                fail_msg("gps_solve: %s", err);
            assert_int_equal(st.threads, threads);
            kalah_rules r;
            rules_or_fail(specs[v], &r);
            for (size_t i = 0; i < gps_count(s); i++) {
                const gps_entry *e = gps_get(s, i);
                assert_true(e->solved);
                char text[GAME_POS_STR];
                kalah_pos p;
                assert_int_equal(kalah_pos_parse(game_pos_format(g, &e->pos, text, sizeof text), &r, &p, NULL, err),
                                 KALAH_OK);
                unsigned legal = kalah_legal(&r, &p);
                for (int k = 0; k < GAME_MAX_MOVES; k++) {
                    if (!(legal >> k & 1)) {
                        assert_int_equal(e->values[k], GPS_NO_VALUE);
                        continue;
                    }
                    int want = minimax_after(&r, &p, k);
                    if (e->values[k] != want)
                        fail_msg("%s %s move %d: solved %d, minimax %d", specs[v], text, k, e->values[k], want);
                }
            }
            gps_free(s);
            game_free(g);
        }
}

/* ab_solve_moves against ab_root_values(depth 0) (full windows, no MTD(f)) with a fresh table each, on
 * mid and late Kalah(6,3) and Kalah(5,4) positions; the shared table carries over between positions. */
static void test_solve_moves_against_full_window(void **state)
{
    (void)state;
    const char *specs[] = {"kalah:pits=6,seeds=3", "kalah:pits=5,seeds=4,capture=always"};
    for (int v = 0; v < 2; v++) {
        game *g = tu_game(specs[v]);
        gps_set *s = gsample(g, 12, 0, 0, 3);
        const kalah_rules *r = game_rules(g);
        char err[KALAH_ERRLEN];
        ab_search *shared = ab_create(r, 16, err);
        assert_non_null(shared);
        for (size_t i = 0; i < gps_count(s); i++) {
            kalah_pos p;
            memset(&p, 0, sizeof p);
            gt_to_kalah(&gps_get(s, i)->pos, &p);
            int got[KALAH_MAX_PITS], want[KALAH_MAX_PITS];
            uint64_t nodes = 0;
            assert_int_equal(ab_solve_moves(shared, &p, got, &nodes), AB_OK);
            assert_true(nodes > 0);
            ab_search *fresh = ab_create(r, 16, err);
            assert_int_equal(ab_root_values(fresh, &p, 0, want, NULL), AB_OK);
            ab_free(fresh);
            assert_memory_equal(got, want, sizeof got);
        }
        ab_free(shared);
        gps_free(s);
        game_free(g);
    }
    /* a finished position */
    kalah_rules r = kalah_rules_default();
    kalah_pos p;
    char err[KALAH_ERRLEN];
    assert_int_equal(kalah_pos_parse("0,0,0,0,0,0,30,0,0,0,0,0,0,18 S", &r, &p, NULL, err), KALAH_OK);
    ab_search *a = ab_create(&r, 1, err);
    int vals[KALAH_MAX_PITS];
    assert_int_equal(ab_solve_moves(a, &p, vals, NULL), AB_EOVER);
    for (int k = 0; k < KALAH_MAX_PITS; k++)
        assert_int_equal(vals[k], AB_NO_VALUE);
    ab_free(a);
}

static void test_share_endgame(void **state)
{
    (void)state;
    kalah_rules r, other;
    rules_or_fail("kalah:pits=4,seeds=3", &r);
    rules_or_fail("kalah:pits=4,seeds=3,capture=always", &other);
    char err[KALAH_ERRLEN];
    ab_search *owner = ab_create(&r, 4, err), *b = ab_create(&r, 4, err), *c = ab_create(&other, 4, err);
    assert_int_equal(ab_set_endgame(owner, 12, err), AB_OK);
    assert_int_equal(ab_share_endgame(b, owner, err), AB_OK);
    assert_int_equal(ab_share_endgame(c, owner, err), AB_EINVAL);
    assert_non_null(strstr(err, "rules"));
    /* The borrower uses the database: a position with 12 seeds in the pits costs it one node. */
    kalah_pos p;
    assert_int_equal(kalah_pos_parse("2,0,3,1,6,0,2,4,0,6 N", &r, &p, NULL, err), KALAH_OK);
    ab_limits lim = {.exact = 1};
    ab_result x, y;
    ab_search *plain = ab_create(&r, 4, err);
    assert_int_equal(ab_think(b, &p, &lim, &x), AB_OK);
    assert_int_equal(ab_think(plain, &p, &lim, &y), AB_OK);
    assert_int_equal(x.value, y.value);
    assert_int_equal(x.best_mask, y.best_mask);
    assert_true(x.nodes < y.nodes);
    ab_free(b); /* frees nothing of the owner's */
    assert_int_equal(ab_think(owner, &p, &lim, &x), AB_OK);
    assert_int_equal(x.value, y.value);
    ab_free(plain);
    ab_free(c);
    ab_free(owner);
}

/* ---- writing ---- */

static const char *const HEADER_KEYS[] = {"format", "format_version", "rules", "count", "command", "commit", "seed"};
static const char *const ENTRY_KEYS[] = {"position", "to_move", "seeds_in_pits", "ply", "source", "value", "best",
                                         "moves"};

static void keys_exactly(const cJSON *o, const char *const *keys, int n)
{
    int i = 0;
    for (const cJSON *c = o->child; c; c = c->next, i++) {
        assert_true(i < n);
        assert_string_equal(c->string, keys[i]);
    }
    assert_int_equal(i, n);
}

static char *tmp_path(const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", SOWZERO_TMP, name);
    return buf;
}

/* The lines of a written Kalah set, checked field by field against the set and the format of posset.h. */
static void check_file(gps_set *s, const char *path, const ps_header *h)
{
    const game *g = gps_game(s);
    const kalah_rules *r = game_rules(g);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096], rules[128];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strchr(line, '\n'));
    cJSON *o = cJSON_Parse(line);
    assert_non_null(o);
    keys_exactly(o, HEADER_KEYS, 7);
    assert_string_equal(cJSON_GetObjectItem(o, "format")->valuestring, "sowzero-positions");
    assert_int_equal(cJSON_GetObjectItem(o, "format_version")->valueint, 1);
    assert_string_equal(cJSON_GetObjectItem(o, "rules")->valuestring, kalah_rules_format(r, rules, sizeof rules));
    assert_int_equal(cJSON_GetObjectItem(o, "count")->valueint, (int)gps_count(s));
    assert_string_equal(cJSON_GetObjectItem(o, "command")->valuestring, h->command);
    assert_string_equal(cJSON_GetObjectItem(o, "commit")->valuestring, h->commit);
    assert_true(cJSON_GetObjectItem(o, "seed")->valuedouble == (double)h->seed);
    cJSON_Delete(o);
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        assert_true(n < gps_count(s));
        const gps_entry *e = gps_get(s, n++);
        o = cJSON_Parse(line);
        assert_non_null(o);
        keys_exactly(o, ENTRY_KEYS, 8);
        char err[KALAH_ERRLEN], pos[80];
        kalah_pos p;
        assert_int_equal(kalah_pos_parse(cJSON_GetObjectItem(o, "position")->valuestring, r, &p, NULL, err), KALAH_OK);
        assert_memory_equal(p.cell, e->pos.cell, KALAH_CELLS);
        assert_int_equal(p.side, e->pos.to_move);
        assert_string_equal(cJSON_GetObjectItem(o, "position")->valuestring, kalah_pos_format(r, &p, pos, sizeof pos));
        assert_string_equal(cJSON_GetObjectItem(o, "to_move")->valuestring, p.side ? "N" : "S");
        assert_int_equal(cJSON_GetObjectItem(o, "seeds_in_pits")->valueint, game_seeds_in_pits(g, &e->pos));
        assert_int_equal(cJSON_GetObjectItem(o, "ply")->valueint, e->pos.ply);
        assert_string_equal(cJSON_GetObjectItem(o, "source")->valuestring, e->source);
        /* moves: every legal letter in order, with the solved value; value the max; best every argmax */
        const cJSON *moves = cJSON_GetObjectItem(o, "moves"), *c = moves->child;
        int best = -1000;
        char bestl[KALAH_MAX_PITS + 1] = "";
        unsigned legal = kalah_legal(r, &p);
        for (int k = 0; k < r->pits; k++) {
            if (!(legal >> k & 1))
                continue;
            char l[2] = {kalah_move_letter(p.side, k), 0};
            assert_non_null(c);
            assert_string_equal(c->string, l);
            assert_true(cJSON_IsNumber(c));
            assert_int_equal(c->valueint, e->values[k]);
            if (e->values[k] > best) {
                best = e->values[k];
                bestl[0] = 0;
            }
            if (e->values[k] == best)
                strcat(bestl, l);
            c = c->next;
        }
        assert_null(c);
        assert_int_equal(cJSON_GetObjectItem(o, "value")->valueint, best);
        char got[KALAH_MAX_PITS + 1] = "";
        const cJSON *b;
        cJSON_ArrayForEach(b, cJSON_GetObjectItem(o, "best")) strcat(got, b->valuestring);
        assert_string_equal(got, bestl);
        cJSON_Delete(o);
    }
    assert_int_equal(n, gps_count(s));
    fclose(f);
}

static void gsolve_or_fail(gps_set *s, int threads, int endgame)
{
    char err[PS_ERRLEN];
    gps_solve_opts o = {.threads = threads, .tt_mb = 8, .endgame = endgame};
    if (gps_solve(s, &o, NULL, err) != PS_OK)
        fail_msg("gps_solve: %s", err);
}

/* Kalah sets as the writer of eval/gposset.h writes them: the format exactly, parsed back with cJSON. */
static void test_writer_format(void **state)
{
    (void)state;
    game *g = tu_game("kalah:pits=4,seeds=3");
    char err[PS_ERRLEN], *line;
    gps_set *s = gps_create(g, err);
    ps_sample_opts so = {.count = 60, .early = 12, .seed = 9};
    assert_int_equal(gps_sample(s, &so, err), PS_OK);
    ps_header h = {.command = "sowzero positions --solve 'a b'", .commit = "0123456789abcdef", .seed = 9};
    const char *path = tmp_path("writer.jsonl");
    unlink(path);
    /* Unsolved: nothing is written. */
    assert_int_equal(gps_write(s, &h, path, err), PS_EINVAL);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(gps_format_line(s, &h, 0, &line), PS_EINVAL);
    assert_null(line);
    gsolve_or_fail(s, 2, 10);
    assert_int_equal(gps_write(s, &h, path, err), PS_OK);
    check_file(s, path, &h);
    /* One line exactly as the format's example: the start of Kalah(4,3), whose move values come from a
     * fresh full-window search (ab_root_values, no MTD(f), no database). */
    const kalah_rules *r = game_rules(g);
    gps_set *one = gps_create(g, err);
    game_pos gp;
    game_start(g, &gp);
    assert_int_equal(gps_add(one, &gp, "opening:0"), 1);
    gsolve_or_fail(one, 1, 0);
    assert_int_equal(gps_format_line(one, &h, 0, &line), PS_OK);
    kalah_pos p;
    kalah_start(r, &p);
    int v[KALAH_MAX_PITS];
    ab_search *fw = ab_create(r, 16, err);
    assert_int_equal(ab_root_values(fw, &p, 0, v, NULL), AB_OK);
    ab_free(fw);
    char want[512];
    snprintf(want, sizeof want,
             "{\"position\":\"3,3,3,3,0,3,3,3,3,0 S\",\"to_move\":\"S\",\"seeds_in_pits\":24,\"ply\":0,"
             "\"source\":\"opening:0\",\"value\":%d,\"best\":[%s],\"moves\":{\"a\":%d,\"b\":%d,\"c\":%d,\"d\":%d}}",
             6, "\"b\"", v[0], v[1], v[2], v[3]);
    assert_int_equal(v[1], 6); /* Kalah(4,3) is +6 for South, reached by b only (tests/vectors/solved.txt) */
    assert_true(v[0] < 6 && v[2] < 6 && v[3] < 6);
    assert_string_equal(line, want);
    free(line);
    assert_int_equal(gps_format_line(one, &h, -1, &line), PS_OK);
    assert_string_equal(line, "{\"format\":\"sowzero-positions\",\"format_version\":1,\"rules\":\"kalah:pits=4,"
                              "seeds=3,capture=opposite,end=either-empty,max_sows=0\",\"count\":1,\"command\":"
                              "\"sowzero positions --solve 'a b'\",\"commit\":\"0123456789abcdef\",\"seed\":9}");
    free(line);
    assert_int_equal(gps_format_line(one, &h, 1, &line), PS_EINVAL);
    /* A file that cannot be created: an error naming it, nothing left behind. */
    assert_int_equal(gps_write(one, &h, "/nonexistent-dir/x.jsonl", err), PS_EIO);
    assert_non_null(strstr(err, "/nonexistent-dir/x.jsonl"));
    /* Rewriting replaces the old file whole, and no temporary file stays. */
    assert_int_equal(gps_write(one, &h, path, err), PS_OK);
    check_file(one, path, &h);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c 'writer.jsonl.tmp' || true", SOWZERO_TMP);
    FILE *pp = popen(cmd, "r");
    char buf[32] = "";
    assert_non_null(fgets(buf, sizeof buf, pp));
    pclose(pp);
    assert_int_equal(atoi(buf), 0);
    gps_free(one);
    gps_free(s);
    game_free(g);
}

/* ---- the command ---- */

static void test_positions_cli(void **state)
{
    (void)state;
    char *out;
    const char *path = tmp_path("cli.jsonl");
    unlink(path);
    assert_int_equal(tu_run(&out, 0, "positions --help"), 0);
    assert_non_null(strstr(out, "format_version"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --out '%s'", path), 2);
    assert_non_null(strstr(out, "--solve"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --solve"), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --solve --out /nonexistent-dir/x.jsonl"), 2);
    assert_non_null(strstr(out, "cannot write in /nonexistent-dir"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --solve --out '%s' --count 0", path), 2);
    assert_non_null(strstr(out, "--count"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --solve --out '%s' --count 5 --min-early 6", path), 2);
    free(out);
    /* an endgame database asked for where the solver can have none: refused by the reason, before any work */
    assert_int_equal(tu_run(&out, 1, "positions --solve --out '%s' --rules kalah:pits=3,max_sows=20 --endgame 8", path),
                     2);
    assert_non_null(strstr(out, "--endgame 8"));
    assert_non_null(strstr(out, "max_sows=20"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --solve --out '%s' --rules oware:max_sows=40 --endgame 8", path), 2);
    assert_non_null(strstr(out, "no endgame database for oware"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --solve --out '%s' --rules kalah:pits=2,seeds=1 --count 30", path), 2);
    assert_non_null(strstr(out, "seeds in the pits"));
    free(out);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(tu_run(&out, 0, "positions --solve --out '%s' --rules kalah:pits=3,seeds=3 --count 40 --seed 4 "
                                     "--threads 2 --tt-mb 8 --endgame 8 --json", path), 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    assert_int_equal(cJSON_GetObjectItem(o, "count")->valueint, 40);
    assert_int_equal(cJSON_GetObjectItem(o, "threads")->valueint, 2);
    const cJSON *ph = cJSON_GetObjectItem(o, "phases");
    assert_int_equal(cJSON_GetArraySize(ph), 3);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(ph, 0), "seeds")->valuestring, "18-13");
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(ph, 0), "positions")->valueint, 8);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(ph, 1), "positions")->valueint, 16);
    cJSON_Delete(o);
    free(out);
    /* The file: header count and command, every line's values against the minimax. */
    kalah_rules r;
    rules_or_fail("kalah:pits=3,seeds=3", &r);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    assert_non_null(fgets(line, sizeof line, f));
    o = cJSON_Parse(line);
    assert_non_null(strstr(cJSON_GetObjectItem(o, "command")->valuestring, "sowzero positions --solve --out"));
    assert_int_equal(cJSON_GetObjectItem(o, "seed")->valueint, 4);
    cJSON_Delete(o);
    int lines = 0;
    while (fgets(line, sizeof line, f)) {
        o = cJSON_Parse(line);
        kalah_pos p;
        char err[KALAH_ERRLEN];
        assert_int_equal(kalah_pos_parse(cJSON_GetObjectItem(o, "position")->valuestring, &r, &p, NULL, err), KALAH_OK);
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(o, "moves"))
        {
            int k = kalah_move_parse(&r, p.side, m->string, 0);
            assert_true(k >= 0);
            assert_int_equal(m->valueint, minimax_after(&r, &p, k));
        }
        cJSON_Delete(o);
        lines++;
    }
    fclose(f);
    assert_int_equal(lines, 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phases),
        cmocka_unit_test(test_sampler_quotas_no_duplicates),
        cmocka_unit_test(test_sampler_errors),
        cmocka_unit_test(test_solve_against_minimax),
        cmocka_unit_test(test_solve_moves_against_full_window),
        cmocka_unit_test(test_share_endgame),
        cmocka_unit_test(test_writer_format),
        cmocka_unit_test(test_positions_cli),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(memo);
    return rc;
}
