/* test_srv.c — the server's library (serve/) without HTTP: move events against the engines,
 * spec bounds, records of both games, the solver's per-move values against ab_root_values, the API's
 * game flow (undo, turns, limits) and its bodies' UTF-8. The HTTP side is tests/serve_api.py and tests/serve_browser.py. */
#include "test_util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <iconv.h>

#include "eval/alphabeta.h"
#include "eval/game_search.h"
#include "serve/srv_app.h"
#include "serve/srv_game.h"
#include "serve/srv_player.h"
#include "serve/srv_record.h"
#include "serve/srv_solve.h"

static srv_rules rules_of(const char *spec)
{
    srv_rules r;
    char err[SRV_ERRLEN];
    if (srv_rules_parse(spec, &r, err) != SRV_OK)
        fail_msg("%s", err);
    return r;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A uniformly drawn legal slot of the player to move at p (p unfinished). */
static int random_move(const srv_rules *r, const srv_pos *p, uint64_t *seed)
{
    unsigned legal = srv_legal(r, p);
    int pick = (int)(rng_next(seed) % (uint64_t)__builtin_popcount(legal));
    for (int k = 0;; k++)
        if (legal & (1u << k) && pick-- == 0)
            return k;
}

/* Kalah(6,4): c from the start ends in the store (docs/design.md §1.1): drops d, e, f, store; an extra turn. */
static void test_kalah_events(void **state)
{
    (void)state;
    srv_rules r = rules_of("kalah");
    srv_pos p;
    srv_event ev;
    srv_start(&r, &p);
    assert_int_equal(srv_play(&r, &p, 2, &ev), SRV_OK);
    assert_int_equal(ev.origin, 2);
    assert_int_equal(ev.path_len, 4);
    int want[] = {3, 4, 5, 6};
    for (int i = 0; i < 4; i++)
        assert_int_equal(ev.path[i], want[i]);
    assert_true(ev.extra_turn);
    assert_string_equal(ev.letter, "c");
    /* A capture that also ends the game: a's seed lands in the empty b, opposite E (index 11) holds 4. */
    char err[SRV_ERRLEN];
    assert_int_equal(srv_pos_parse(&r, "1,0,0,0,0,0,23,4,4,4,4,4,4,0 S", &p, err), SRV_OK);
    assert_int_equal(srv_play(&r, &p, 0, &ev), SRV_OK);
    assert_int_equal(ev.captured, 5);
    assert_int_equal(ev.n_capture, 2);
    assert_int_equal(ev.capture[0], 1);
    assert_int_equal(ev.capture[1], 11);
    assert_true(ev.over);
    assert_int_equal(ev.path_len, 1);
    assert_int_equal(p.cell[6], 28);
    assert_int_equal(p.cell[13], 20);
    /* North's letters are upper case; an empty pit and the opponent's pit are refused. */
    srv_start(&r, &p);
    srv_play(&r, &p, 0, NULL);
    char text[8];
    assert_string_equal(srv_move_text(&r, &p, 0, text), "A");
    assert_int_equal(srv_move_parse(&r, &p, "a", err), SRV_EINVAL);
    assert_int_equal(srv_move_parse(&r, &p, "B", err), 1);
    assert_int_equal(srv_play(&r, &p, 7, NULL), SRV_EILLEGAL);
    srv_rules_free(&r);
    /* A game the page cannot draw does not exist; an unknown one is named. */
    assert_int_equal(srv_rules_parse("chess", &r, err), SRV_EINVAL);
    assert_non_null(strstr(err, "chess"));
}

/* Congklak (docs/design.md §1.3): a relay picks up the pit where a run ends when it held seeds. From
 * 1,1,0,... South sows a: the seed lands in b, which held one, so both are picked up and sown on into c
 * and d (empty: the turn ends there, a capture if the opposite pit holds seeds). */
static void test_congklak_relay(void **state)
{
    (void)state;
    srv_rules r = rules_of("congklak:pits=3,seeds=2");
    srv_pos p;
    srv_event ev;
    char err[SRV_ERRLEN];
    assert_int_equal(srv_pos_parse(&r, "1,1,0,0,2,2,2,4 S", &p, err), SRV_OK);
    assert_int_equal(srv_play(&r, &p, 0, &ev), SRV_OK);
    assert_int_equal(ev.relays, 1);
    assert_int_equal(ev.n_pickups, 1);
    assert_int_equal(ev.pickup_cell[0], 1);
    assert_int_equal(ev.pickup_at[0], 1);
    assert_int_equal(ev.path_len, 3);
    assert_int_equal(ev.path[0], 1);
    assert_int_equal(ev.path[1], 2);
    assert_int_equal(ev.path[2], 3);
    srv_rules_free(&r);
}

/* Random games of many rule sets: every move's seed-by-seed path, with the capture and the end sweep,
 * rebuilds the engine's board (srv_play drops the path when it does not: path_len 0). */
static void test_paths_rebuild_the_engine(void **state)
{
    (void)state;
    const char *specs[] = {"kalah", "kalah:pits=4,seeds=3", "kalah:capture=always", "kalah:capture=none",
                           "kalah:end=mover-empty", "kalah:pits=6,seeds=12", "kalah:pits=7,seeds=18",
                           "kalah:pits=1,seeds=1", "basico:players=2", "basico:players=3", "basico:players=4",
                           "basico:players=4,pits=4,seeds=3", "basico:players=2,pits=7,full_ranking=0",
                           "congklak", "congklak:pits=5,seeds=3,capture=always", "congklak:capture=none",
                           "oware", "oware:grand_slam=capture", "oware:pits=4,seeds=3"};
    uint64_t seed = 19;
    long moves = 0, laps = 0;
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
        srv_rules r = rules_of(specs[s]);
        for (int g = 0; g < 60; g++) {
            srv_pos p;
            srv_start(&r, &p);
            for (int ply = 0; ply < 3000 && !srv_over(&r, &p); ply++) {
                int k = random_move(&r, &p, &seed);
                int origin = p.to_move * (r.pits + 1) + k, sown = p.cell[origin];
                srv_event ev;
                assert_int_equal(srv_play(&r, &p, k, &ev), SRV_OK);
                /* Congklak's path also holds the relayed seeds: one pick-up per relay of the engine. */
                if ((r.lay.flags & GAME_SOW_RELAY) ? ev.path_len < sown || ev.n_pickups != ev.relays : ev.path_len != sown)
                    fail_msg("%s: a move of %d seeds from %d got a path of %d (%d pick-ups, %d relays)", specs[s],
                             sown, origin, ev.path_len, ev.n_pickups, ev.relays);
                if (ev.captured && !ev.n_capture && !((r.lay.flags & GAME_CAPTURE_BACKWARD) && ev.over))
                    fail_msg("%s: a capture of %d without its cells", specs[s], ev.captured);
                for (int i = 0; i < ev.path_len; i++)
                    if (ev.path[i] == origin)
                        laps++;
                moves++;
            }
            assert_true(srv_over(&r, &p));
        }
        srv_rules_free(&r);
    }
    assert_true(moves > 10000);
    assert_true(laps > 0); /* full laps (the origin receiving a seed) were exercised */
}

static void test_spec_bound(void **state)
{
    (void)state;
    char out[256], err[SRV_ERRLEN];
    assert_int_equal(srv_spec_bound("ab", 500, 1000, out, sizeof out, err), SRV_OK);
    assert_string_equal(out, "ab:ms=500");
    assert_int_equal(srv_spec_bound("ab:depth=3", 500, 1000, out, sizeof out, err), SRV_OK);
    assert_string_equal(out, "ab:depth=3,ms=500");
    assert_int_equal(srv_spec_bound("ab:ms=100", 500, 1000, out, sizeof out, err), SRV_OK);
    assert_string_equal(out, "ab:ms=100");
    assert_int_equal(srv_spec_bound("ab:ms=900", 500, 1000, out, sizeof out, err), SRV_EINVAL);
    assert_non_null(strstr(err, "ms=900"));
    assert_int_equal(srv_spec_bound("mcts:sims=1001", 500, 1000, out, sizeof out, err), SRV_EINVAL);
    assert_int_equal(srv_spec_bound("mcts:sims=1000", 500, 1000, out, sizeof out, err), SRV_OK);
    assert_int_equal(srv_spec_bound("maxn:depth=9", 500, 1000, out, sizeof out, err), SRV_EINVAL);
    assert_int_equal(srv_spec_bound("greedy,seed=3", 500, 1000, out, sizeof out, err), SRV_OK);
    assert_string_equal(out, "greedy,seed=3");
    /* The bounded ab really is built and plays. */
    srv_rules r = rules_of("kalah");
    srv_pos p;
    srv_start(&r, &p);
    assert_int_equal(srv_spec_bound("ab:depth=4", 500, 1000, out, sizeof out, err), SRV_OK);
    srv_player *pl = srv_player_create(out, &r, err);
    assert_non_null(pl);
    int k;
    assert_int_equal(srv_player_choose(pl, &p, &k, err), SRV_OK);
    cJSON *v = srv_player_view(pl);
    assert_string_equal(cJSON_GetObjectItem(v, "kind")->valuestring, "ab");
    assert_int_equal(cJSON_GetObjectItem(v, "depth")->valueint, 4);
    cJSON_Delete(v);
    srv_player_free(pl);
    srv_rules_free(&r);
    srv_rules b = rules_of("basico:players=3");
    assert_null(srv_player_create("ab", &b, err)); /* two players only */
    srv_rules_free(&b);
    assert_int_equal(srv_spec_bound("solve", 500, 1000, out, sizeof out, err), SRV_OK);
    assert_string_equal(out, "solve:nodes=5000000");
    assert_int_equal(srv_spec_bound("solve:nodes=99000000", 500, 1000, out, sizeof out, err), SRV_EINVAL);
    assert_int_equal(srv_spec_bound("solver:tt_mb=64", 500, 1000, out, sizeof out, err), SRV_EINVAL);
    assert_non_null(strstr(err, "no bound"));
}

/* Written records read back to the same game, for both formats; a wrong result is refused. */
static void test_records(void **state)
{
    (void)state;
    const char *specs[] = {"kalah", "basico:players=3", "congklak", "oware"};
    uint64_t seed = 7;
    for (int s = 0; s < 4; s++) {
        srv_rules r = rules_of(specs[s]), r2;
        srv_pos p, start, start2;
        srv_start(&r, &start);
        p = start;
        uint8_t moves[3000];
        int n = 0;
        while (!srv_over(&r, &p) && n < 3000) {
            int k = random_move(&r, &p, &seed);
            srv_play(&r, &p, k, NULL);
            moves[n++] = (uint8_t)k;
        }
        const char *names[] = {"human", "random", "random"};
        char err[SRV_ERRLEN];
        char *text = srv_record_write(&r, &start, moves, n, names, err);
        assert_non_null(text);
        uint8_t *back;
        int n2;
        if (srv_record_read(text, &r2, &start2, &back, &n2, err) != SRV_OK)
            fail_msg("%s: %s\n%s", specs[s], err, text);
        assert_int_equal(n2, n);
        assert_memory_equal(back, moves, (size_t)n);
        assert_true(srv_pos_equal(&r, &start, &start2));
        assert_string_equal(srv_rules_spec(&r2), srv_rules_spec(&r));
        free(back);
        srv_rules_free(&r2);
        /* Corrupt the result tag: the reader replays and refuses. */
        char *res = strstr(text, "[Result \"");
        assert_non_null(res);
        res[9] = res[9] == '1' ? '2' : '1';
        assert_int_equal(srv_record_read(text, &r2, &start2, &back, &n2, err), SRV_EINVAL);
        free(text);
        srv_rules_free(&r);
    }
}

/* The solver's value of each move equals alpha-beta's exact root values (ab_root_values, depth 0). */
static void test_solver_values(void **state)
{
    (void)state;
    const char *specs[] = {"kalah:pits=3,seeds=3", "kalah:pits=4,seeds=2", "kalah:pits=4,seeds=3"};
    uint64_t seed = 3;
    int compared = 0;
    for (int s = 0; s < 3; s++) {
        srv_rules r = rules_of(specs[s]);
        for (int g = 0; g < 6; g++) {
            srv_pos p;
            srv_start(&r, &p);
            for (int ply = 0; !srv_over(&r, &p); ply++) {
                cJSON *o = srv_solve_moves(&r, &p, 24, 50000000);
                assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "solved")));
                ab_search *ab = ab_create((const kalah_rules *)game_rules(r.g), 4, NULL);
                int values[KALAH_MAX_PITS];
                kalah_pos kp;
                memset(&kp, 0, sizeof kp);
                memcpy(kp.cell, p.cell, KALAH_CELLS);
                kp.side = p.to_move;
                assert_int_equal(ab_root_values(ab, &kp, 0, values, NULL), AB_OK);
                ab_free(ab);
                cJSON *v = cJSON_GetObjectItem(o, "values");
                for (int k = 0; k < r.pits; k++) {
                    cJSON *x = cJSON_GetArrayItem(v, k);
                    if (values[k] == AB_NO_VALUE)
                        assert_true(cJSON_IsNull(x));
                    else
                        assert_int_equal(x->valueint, values[k]);
                    compared++;
                }
                cJSON_Delete(o);
                int k = random_move(&r, &p, &seed);
                srv_play(&r, &p, k, NULL);
            }
        }
        srv_rules_free(&r);
    }
    assert_true(compared > 100);
    /* Congklak and Oware: the best move's value is gs_solve's value of the position itself. */
    const char *others[] = {"congklak:pits=3,seeds=2", "oware:pits=3,seeds=2,max_sows=30"};
    for (int s = 0; s < 2; s++) {
        srv_rules r = rules_of(others[s]);
        srv_pos p;
        srv_start(&r, &p);
        for (int ply = 0; ply < 16 && !p.over; ply++) {
            cJSON *o = srv_solve_moves(&r, &p, 24, 50000000);
            assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "solved")));
            gs_solution sol;
            char err[GAME_ERRLEN];
            assert_int_equal(gs_solve(r.g, &p, 0, NULL, &sol, err), GAME_OK);
            int best = -1000;
            cJSON *x;
            cJSON_ArrayForEach(x, cJSON_GetObjectItem(o, "values")) if (cJSON_IsNumber(x) && x->valueint > best) best = x->valueint;
            assert_int_equal(best, sol.value);
            cJSON_Delete(o);
            int k = random_move(&r, &p, &seed);
            srv_play(&r, &p, k, NULL);
            compared++;
        }
        srv_rules_free(&r);
    }
    /* Too many seeds, básico, and a tiny budget: no values, with the reason. */
    srv_rules r = rules_of("kalah");
    srv_pos p;
    srv_start(&r, &p);
    cJSON *o = srv_solve_moves(&r, &p, 20, 1000);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "solved")));
    assert_non_null(strstr(cJSON_GetObjectItem(o, "reason")->valuestring, "48 seeds"));
    cJSON_Delete(o);
    o = srv_solve_moves(&r, &p, 48, 10);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "solved")));
    cJSON_Delete(o);
    srv_rules_free(&r);
    srv_rules b = rules_of("basico");
    srv_start(&b, &p);
    o = srv_solve_moves(&b, &p, 48, 1000);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "solved")));
    cJSON_Delete(o);
    srv_rules_free(&b);
}

/* Calls the app and returns the parsed JSON body; *status gets the HTTP status. */
static cJSON *call(srv_app *app, const char *method, const char *path, const char *session, const char *body,
                   int *status)
{
    char *out;
    size_t len;
    const char *type;
    *status = srv_app_handle(app, method, path, session, body, body ? strlen(body) : 0, "application/json", &out,
                             &len, &type);
    assert_non_null(out);
    cJSON *o = cJSON_Parse(out);
    free(out);
    return o;
}

static void test_app_flow(void **state)
{
    (void)state;
    const char *names[] = {"g", "r"}, *specs[] = {"greedy", "random"};
    char err[SRV_ERRLEN], body[256];
    srv_limits lim = srv_limits_default();
    lim.max_plies = 6;
    srv_app *app = srv_app_create(&lim, 1, 2, names, specs, 0, NULL, err);
    assert_non_null(app);
    int st;
    cJSON *o = call(app, "POST", "/api/new", NULL, "{\"agent\":\"g\",\"side\":\"first\"}", &st);
    assert_int_equal(st, 200);
    char id[40];
    snprintf(id, sizeof id, "%s", cJSON_GetObjectItem(o, "session")->valuestring);
    cJSON_Delete(o);
    /* c: an extra turn (still the human's turn), then a: the agent's turn. */
    snprintf(body, sizeof body, "{\"session\":\"%s\",\"move\":\"c\"}", id);
    o = call(app, "POST", "/api/move", NULL, body, &st);
    assert_int_equal(st, 200);
    assert_string_equal(cJSON_GetObjectItem(o, "turn")->valuestring, "human");
    cJSON_Delete(o);
    snprintf(body, sizeof body, "{\"session\":\"%s\",\"move\":\"a\"}", id);
    o = call(app, "POST", "/api/move", NULL, body, &st);
    assert_string_equal(cJSON_GetObjectItem(o, "turn")->valuestring, "agent");
    cJSON_Delete(o);
    snprintf(body, sizeof body, "{\"session\":\"%s\"}", id);
    o = call(app, "POST", "/api/agent", NULL, body, &st);
    assert_int_equal(st, 200);
    assert_non_null(cJSON_GetObjectItem(o, "view"));
    int n_moves = cJSON_GetArraySize(cJSON_GetObjectItem(o, "moves"));
    assert_true(n_moves >= 3);
    cJSON_Delete(o);
    /* Undo goes back to before the human's last move (a), dropping the agent's replies. */
    o = call(app, "POST", "/api/undo", NULL, body, &st);
    assert_int_equal(st, 200);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "moves")), 1);
    assert_string_equal(cJSON_GetObjectItem(o, "turn")->valuestring, "human");
    cJSON_Delete(o);
    o = call(app, "POST", "/api/undo", NULL, body, &st);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "moves")), 0);
    cJSON_Delete(o);
    o = call(app, "POST", "/api/undo", NULL, body, &st);
    assert_int_equal(st, 409);
    cJSON_Delete(o);
    /* The move limit (max_plies = 6) ends play with 409, not a crash. */
    int limited = 0;
    for (int i = 0; i < 20 && !limited; i++) {
        o = call(app, "GET", "/api/state", id, NULL, &st);
        const char *turn = cJSON_GetObjectItem(o, "turn")->valuestring;
        char mv[8];
        snprintf(mv, sizeof mv, "%s", cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "board"), "legal"), 0)
                                       ? cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "board"), "legal"), 0)->valuestring
                                       : "a");
        int human = !strcmp(turn, "human");
        cJSON_Delete(o);
        if (human)
            snprintf(body, sizeof body, "{\"session\":\"%s\",\"move\":\"%s\"}", id, mv);
        else
            snprintf(body, sizeof body, "{\"session\":\"%s\"}", id);
        o = call(app, "POST", human ? "/api/move" : "/api/agent", NULL, body, &st);
        limited = st == 409;
        assert_true(st == 200 || st == 409);
        cJSON_Delete(o);
    }
    assert_true(limited);
    /* Too large a body, and an unknown session. */
    char *out;
    size_t len;
    const char *type;
    st = srv_app_handle(app, "POST", "/api/new", NULL, NULL, lim.max_body + 1, "application/json", &out, &len, &type);
    assert_int_equal(st, 413);
    free(out);
    o = call(app, "GET", "/api/state", "0123456789abcdef0123456789abcdef", NULL, &st);
    assert_int_equal(st, 404);
    cJSON_Delete(o);
    assert_int_equal(srv_app_sessions(app), 1);
    srv_app_free(app);
    /* Bad configurations are refused with the reason. */
    const char *bad_names[] = {"a b"}, *ab[] = {"ab"}, *nope[] = {"nope"};
    assert_null(srv_app_create(&lim, 1, 1, bad_names, specs, 0, NULL, err));
    assert_non_null(strstr(err, "agent name"));
    assert_null(srv_app_create(&lim, 1, 1, names, nope, 0, NULL, err));
    const char *games[] = {"basico:players=3"};
    assert_null(srv_app_create(&lim, 1, 1, names, ab, 1, games, err));
    assert_non_null(strstr(err, "fits none"));
}

/* Whether t[0..n) is UTF-8 by glibc's iconv (an independent decoder: EILSEQ or EINVAL on any ill-formed
 * or cut sequence, surrogates and code points above U+10FFFF included). */
static int utf8_valid(const char *t, size_t n)
{
    iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
    assert_true(cd != (iconv_t)-1);
    char buf[4096], *in = (char *)t;
    size_t left = n;
    int ok = 1;
    while (ok && left) {
        char *o = buf;
        size_t room = sizeof buf;
        if (iconv(cd, &in, &left, &o, &room) == (size_t)-1 && errno != E2BIG)
            ok = 0;
    }
    iconv_close(cd);
    return ok;
}

/* Error bodies echo request text; stray bytes in it come back as U+FFFD, so every body is UTF-8 and JSON. */
static void test_bodies_are_utf8(void **state)
{
    (void)state;
    const char *names[] = {"g"}, *specs[] = {"greedy"};
    char err[SRV_ERRLEN];
    srv_limits lim = srv_limits_default();
    srv_app *app = srv_app_create(&lim, 1, 1, names, specs, 0, NULL, err);
    assert_non_null(app);
    /* The session echo is cut at 40 bytes: 39 + a two-byte character cut in half, and stray bytes,
     * overlong forms, a surrogate and a code point past U+10FFFF; then a move, a game and an agent. */
    char cut[64];
    snprintf(cut, sizeof cut, "%s\xc3\xa9zz", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    const struct {
        const char *method, *path, *session, *body;
        const char *echo; /* what the message must hold around the replaced bytes */
    } cases[] = {
        {"GET", "/api/state", "\xff\xfe", NULL, "session '\xef\xbf\xbd\xef\xbf\xbd'"},
        {"GET", "/api/state", cut, NULL, "aaa\xef\xbf\xbd'"},
        {"GET", "/api/state", "\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82", NULL, "session '"},
        {"GET", "/api/state", "\xe2\x82\xac\xc3\xa9", NULL, "session '\xe2\x82\xac\xc3\xa9'"},
        {"POST", "/api/new", NULL, "{\"agent\":\"g\",\"game\":\"k\xff\"}", "'k\xef\xbf\xbd'"},
        {"POST", "/api/new", NULL, "{\"agent\":\"\xfe\xfe\"}", NULL},
        {"POST", "/api/replay", NULL, "{\"game\":\"kalah\",\"moves\":[\"\xf8\"]}", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out;
        size_t len;
        const char *type;
        int st = srv_app_handle(app, cases[i].method, cases[i].path, cases[i].session, cases[i].body,
                                cases[i].body ? strlen(cases[i].body) : 0, "application/json", &out, &len, &type);
        assert_non_null(out);
        assert_true(st >= 400 && st < 500);
        assert_int_equal(len, strlen(out));
        if (!utf8_valid(out, len))
            fail_msg("case %zu: the body is not UTF-8: %s", i, out);
        cJSON *o = cJSON_Parse(out);
        assert_non_null(o);
        assert_int_equal(cJSON_GetObjectItem(o, "status")->valueint, st);
        const char *msg = cJSON_GetObjectItem(o, "error")->valuestring;
        if (cases[i].echo && !strstr(msg, cases[i].echo))
            fail_msg("case %zu: '%s' lacks '%s'", i, msg, cases[i].echo);
        cJSON_Delete(o);
        free(out);
    }
    srv_app_free(app);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kalah_events), cmocka_unit_test(test_congklak_relay),
        cmocka_unit_test(test_paths_rebuild_the_engine),
        cmocka_unit_test(test_spec_bound),   cmocka_unit_test(test_records),
        cmocka_unit_test(test_solver_values), cmocka_unit_test(test_app_flow),
        cmocka_unit_test(test_bodies_are_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
