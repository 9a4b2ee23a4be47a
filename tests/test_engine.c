/* test_engine.c — outside engines end to end (docs/protocol.md): `engine:` agents written in Python
 * (tests/engines/kgp_engine.py: one plays correctly, the others send illegal moves, garbage, nothing, or
 * exit mid-game) in a 20-game match and a tournament with sowzero's agents, with the forfeits in the results
 * and the records; `sowzero engine` answering the specification's freeplay exchange and bad lines;
 * `sowzero kgp connect` playing a whole game on a minimal KGP server (tests/engines/kgp_server.py); sowzero
 * itself as an engine of another game through the extension. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "env/game.h"
#include "eval/engine_proto.h" /* kgp_now_ms */
#include "test_util.h"

#define ENGINE SOWZERO_SOURCE_DIR "/tests/engines/kgp_engine.py"
#define SERVER SOWZERO_SOURCE_DIR "/tests/engines/kgp_server.py"

/* The agent spec of the test engine with `args` (e.g. "--fault illegal --after 1") and ms. */
static const char *engine_spec(const char *args, int ms)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "engine:cmd='%s %s %s',ms=%d", SOWZERO_PYTHON3, ENGINE, args, ms);
    return buf[k];
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

/* 20 games: the correct engine against one that answers an empty pit at its second position. Every game is
 * lost by the bad engine's forfeit, written as [Termination] in its record; the records read back. */
static void test_match_illegal_moves_forfeit(void **state)
{
    (void)state;
    const char *pgn = tu_tmp_path("engine-illegal.pgn");
    unlink(pgn); /* --pgn appends */
    char *out;
    int rc = tu_run(&out, 0, "match \"%s\" \"%s\" --games 20 --threads 2 --pgn '%s' --json", engine_spec("", 5000),
                    engine_spec("--fault illegal --after 1", 5000), pgn);
    assert_int_equal(rc, 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal((int)num(j, "wins"), 20);
    const cJSON *ag = cJSON_GetObjectItemCaseSensitive(j, "agents");
    assert_int_equal((int)num(cJSON_GetArrayItem(ag, 0), "forfeits"), 0);
    assert_int_equal((int)num(cJSON_GetArrayItem(ag, 1), "forfeits"), 20);
    cJSON_Delete(j);
    free(out);
    char *rec = slurp(pgn);
    assert_int_equal(count(rec, "[Termination \"forfeit by "), 20);
    assert_int_equal(count(rec, "sent the illegal move"), 20);
    free(rec);
    rc = tu_run(&out, 1, "elo '%s'", pgn); /* the records (forfeits, unfinished boards) read back */
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "20 games from 1 file"));
    free(out);
}

/* 20 games of the correct engine against sowzero's greedy: no forfeit, every game played out; the same
 * again gives the same games (both sides are deterministic). */
static void test_match_against_sowzero(void **state)
{
    (void)state;
    const char *pgn[2] = {tu_tmp_path("engine-greedy-1.pgn"), tu_tmp_path("engine-greedy-2.pgn")};
    for (int i = 0; i < 2; i++) {
        char *out;
        unlink(pgn[i]);
        /* one thread: the records are appended as games end, so only then in a fixed order */
        int rc = tu_run(&out, 0, "match \"%s\" greedy --games 20 --threads 1 --pgn '%s' --json",
                        engine_spec("", 5000), pgn[i]);
        assert_int_equal(rc, 0);
        cJSON *j = cJSON_Parse(out);
        assert_non_null(j);
        assert_int_equal((int)(num(j, "wins") + num(j, "draws") + num(j, "losses")), 20);
        const cJSON *ag = cJSON_GetObjectItemCaseSensitive(j, "agents");
        assert_int_equal((int)num(cJSON_GetArrayItem(ag, 0), "forfeits"), 0);
        assert_int_equal((int)num(cJSON_GetArrayItem(ag, 1), "forfeits"), 0);
        cJSON_Delete(j);
        free(out);
    }
    char *a = slurp(pgn[0]), *b = slurp(pgn[1]);
    assert_int_equal(count(a, "[Termination"), 0);
    assert_int_equal(count(a, "[Result \"*\"]"), 0);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

/* Four engines (correct, illegal, silent, exits mid-game) and two sowzero agents: every game a faulty engine
 * plays ends with exactly one forfeit — its own against a correct player; a correct player never forfeits. */
static void test_tournament(void **state)
{
    (void)state;
    const char *pgn = tu_tmp_path("engine-tournament.pgn");
    unlink(pgn);
    char *out;
    int rc = tu_run(&out, 0,
                    "tournament --agent \"good=%s\" --agent \"illegal=%s\" --agent \"silent=%s\" --agent \"dies=%s\" "
                    "--agent greedy --agent ab=ab:depth=2 --games 4 --threads 2 --pgn '%s' --json",
                    engine_spec("", 5000), engine_spec("--fault illegal", 5000),
                    engine_spec("--fault silent --after 1", 150), engine_spec("--fault crash --after 1", 5000), pgn);
    assert_int_equal(rc, 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    const cJSON *pairs = cJSON_GetObjectItemCaseSensitive(j, "pairs"), *p;
    assert_int_equal(cJSON_GetArraySize(pairs), 15);
    int total = 0;
    cJSON_ArrayForEach(p, pairs)
    {
        const char *a = cJSON_GetObjectItemCaseSensitive(p, "a")->valuestring;
        const char *b = cJSON_GetObjectItemCaseSensitive(p, "b")->valuestring;
        const cJSON *ff = cJSON_GetObjectItemCaseSensitive(p, "forfeits");
        int fa = cJSON_GetArrayItem(ff, 0)->valueint, fb = cJSON_GetArrayItem(ff, 1)->valueint;
        int bad_a = !strcmp(a, "illegal") || !strcmp(a, "silent") || !strcmp(a, "dies");
        int bad_b = !strcmp(b, "illegal") || !strcmp(b, "silent") || !strcmp(b, "dies");
        int wins = (int)num(p, "wins"), losses = (int)num(p, "losses");
        if (!bad_a)
            assert_int_equal(fa, 0);
        if (!bad_b)
            assert_int_equal(fb, 0);
        if (bad_a && bad_b) {
            assert_int_equal(fa + fb, 4);
            assert_int_equal(wins, fb);
            assert_int_equal(losses, fa);
        } else if (bad_a || bad_b) {
            assert_int_equal(bad_a ? fa : fb, 4);
            assert_int_equal(bad_a ? losses : wins, 4);
        }
        total += fa + fb;
    }
    assert_int_equal(total, 3 * 4 + 3 * 4 * 3); /* 3 faulty pairs + 3 faulty engines x 3 correct players */
    cJSON_Delete(j);
    free(out);
    char *rec = slurp(pgn);
    assert_int_equal(count(rec, "[Termination \"forfeit by "), total);
    assert_true(count(rec, "exited with status 3 in the middle of the game") > 0);
    assert_true(count(rec, "sent no move within ms=150 ms") > 0);
    assert_true(count(rec, "sent the illegal move") > 0);
    free(rec);
}

/* A malformed line forfeits; a bad spec is refused up front (exit 2, the key named). */
static void test_garbage_and_bad_specs(void **state)
{
    (void)state;
    const char *pgn = tu_tmp_path("engine-garbage.pgn");
    unlink(pgn);
    char *out;
    int rc = tu_run(&out, 0, "match \"%s\" random --games 2 --pgn '%s'", engine_spec("--fault garbage", 5000), pgn);
    assert_int_equal(rc, 0);
    free(out);
    char *rec = slurp(pgn);
    assert_int_equal(count(rec, "sent the malformed line 'this is not a command!'"), 2);
    free(rec);
    /* an engine that never answers the handshake: forfeits, quickly; one whose program cannot be found is
     * bad input, refused before any game */
    long long t0 = kgp_now_ms();
    unlink(pgn);
    rc = tu_run(&out, 0, "match \"engine:cmd='sleep 30',start_ms=200\" random --games 2 --threads 1 --pgn '%s' --json",
                pgn);
    assert_int_equal(rc, 0);
    assert_true(kgp_now_ms() - t0 < 10000);
    free(out);
    rec = slurp(pgn);
    assert_int_equal(count(rec, "[Termination \"forfeit by "), 2);
    assert_int_equal(count(rec, "no `mode freeplay` within start_ms=200 ms"), 2);
    free(rec);
    rc = tu_run(&out, 1, "match engine:cmd=no-such-engine-here random --games 2");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "not an executable file on PATH"));
    free(out);
    rc = tu_run(&out, 1, "match engine:cmd=/no/such/engine random --games 2");
    assert_int_equal(rc, 2);
    free(out);
    static const char *const bad[][2] = {
        {"engine", "engine needs cmd=COMMAND"},
        {"engine:cmd=x,speed=3", "unknown key 'speed'"},
        {"engine:cmd=x,ms=0", "ms=0 is not a whole number"},
        {"engine:cmd=x,cwd=/no/such/dir", "cwd=/no/such/dir is not a directory"},
        {"engine:cmd='x", "not closed"},
        {"engine:cmd=x,proto=uci", "proto=uci is not kgp or sowzero"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rc = tu_run(&out, 1, "match \"%s\" random --games 2", bad[i][0]);
        assert_int_equal(rc, 2);
        if (!strstr(out, bad[i][1]))
            fail_msg("%s: expected '%s' in: %s", bad[i][0], bad[i][1], out);
        free(out);
    }
    rc = tu_run(&out, 1, "match \"engine:cmd=x,proto=kgp\" random --rules oware --games 2");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "needs proto=sowzero"));
    free(out);
}

/* sowzero as an outside engine of another game (the extension's `sowzero go`) against sowzero's random. */
static void test_sowzero_engine_other_game(void **state)
{
    (void)state;
    char *out;
    int rc = tu_run(&out, 0, "match \"engine:cmd='\\\"%s\\\" engine greedy --rules oware',ms=5000\" random "
                    "--rules oware --games 4 --threads 1 --json", SOWZERO_BIN);
    assert_int_equal(rc, 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    const cJSON *ag = cJSON_GetObjectItemCaseSensitive(j, "agents");
    assert_int_equal((int)num(cJSON_GetArrayItem(ag, 0), "forfeits"), 0);
    assert_true(num(j, "wins") >= 3); /* greedy beats random at Oware */
    cJSON_Delete(j);
    free(out);
}

/* Runs `sowzero engine args` on the text in `in`; its output. */
static char *engine_session(const char *args, const char *in, int *rc)
{
    const char *path = tu_tmp_path("engine-session.in");
    tu_write_text(path, in);
    char *out;
    *rc = tu_run(&out, 0, "engine %s < '%s'", args, path);
    return out;
}

/* The freeplay example of the KGP specification (spec/021-freeplay.md) replayed: the engine answers the
 * handshake with `mode freeplay` and every state with legal moves referring to it, then `yield`. */
static void test_spec_exchange(void **state)
{
    (void)state;
    int rc;
    char *out = engine_session("ab:depth=6", "kgp 1 0 0\r\n2 init\r\n4 state <3,0,0,3,3,3,3,3,3>\r\n6@4 stop\r\n"
                                             "8 state <3,1,0,0,4,4,3,3,3>\r\n10@8 stop\r\ngoodbye\r\n", &rc);
    assert_int_equal(rc, 0);
    char *save, *lines[16] = {NULL};
    int n = 0;
    for (char *l = strtok_r(out, "\n", &save); l && n < 16; l = strtok_r(NULL, "\n", &save)) {
        size_t k = strlen(l);
        assert_true(k > 0 && l[k - 1] == '\r'); /* the spec's line end */
        l[k - 1] = 0;
        lines[n++] = l;
    }
    assert_true(n >= 5);
    assert_string_equal(lines[0], "mode freeplay");
    int i = 1, moves = 0, k;
    for (; i < n && !strncmp(lines[i], "@4 move ", 8); i++, moves++) {
        k = atoi(lines[i] + 8);
        assert_true(k >= 1 && k <= 3); /* every pit holds 3 */
    }
    assert_true(moves >= 1);
    assert_string_equal(lines[i++], "@4 yield");
    for (moves = 0; i < n && !strncmp(lines[i], "@8 move ", 8); i++, moves++) {
        k = atoi(lines[i] + 8);
        assert_true(k == 2 || k == 3); /* the mover's first pit is empty */
    }
    assert_true(moves >= 1);
    assert_string_equal(lines[i++], "@8 yield");
    assert_int_equal(i, n);
    free(out);
    /* ab:depth=6 is deterministic: the answers are those of `sowzero move` at the same position */
    out = engine_session("ab:depth=6", "8 state <3,1,0,0,4,4,3,3,3>\n", &rc);
    char *mv;
    assert_int_equal(tu_run(&mv, 0, "move ab:depth=6 --rules kalah:pits=3,seeds=3 --position \"0,4,4,1,3,3,3,0 S\" "
                               "--json"), 0);
    cJSON *j = cJSON_Parse(mv);
    assert_non_null(j);
    const char *letter = cJSON_GetObjectItemCaseSensitive(j, "move")->valuestring;
    char want[32];
    snprintf(want, sizeof want, "@8 move %d\r\n@8 yield", letter[0] - 'a' + 1);
    if (!strstr(out, want))
        fail_msg("expected '%s' in: %s", want, out);
    cJSON_Delete(j);
    free(mv);
    free(out);
}

/* Bad lines get an error answer (referring to the id when there is one) and the session goes on; an
 * unsupported version is refused with goodbye. */
static void test_protocol_errors(void **state)
{
    (void)state;
    int rc;
    char *out = engine_session("greedy", "kgp 1 0 0\nhello!!\n3 frobnicate\n5 state <3,0,0>\n7 state <9,1,2>\n"
                                         "9 state <3,0,0,1,1,1,1,1,2>\n11 sowzero go \"1,2,3\"\n13 sowzero dance\n"
                                         "15 state \"x\n\n17 ping\n19 sowzero rules\n21 state <3,0,3,0,0,0,1,1,1>\n"
                                         "23 state <6,0,0,4,4,4,4,4,4,4,4,4,4,4,4>\n",
                                &rc);
    assert_int_equal(rc, 0);
    static const char *const want[] = {
        "mode freeplay\r\n",
        "error \"malformed line: column 6: a command name is letters and digits\"\r\n",
        "@3 error \"unknown command 'frobnicate'",
        "@5 error \"a board of 3 pits has 9 numbers (n, two stores, 2n pits), not 3\"\r\n",
        "@7 error \"board of 9 pits a side: Kalah here has 1..7\"\r\n",
        "@9 error \"a board of 3 pits with 7 seeds",
        "@11 error \"position '1,2,3'",
        "@13 error \"unknown request 'sowzero dance'",
        "error \"malformed line: column 10: the string is not closed with '\\\"'\"\r\n",
        "@17 pong\r\n",
        "@19 sowzero rules \"kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0\"\r\n",
        "@21 error \"the game is over at this position",
        "@23 move ",
        "@23 yield\r\n",
    };
    const char *at = out;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *hit = strstr(at, want[i]);
        if (!hit)
            fail_msg("expected '%s' (in order) in:\n%s", want[i], out);
        at = hit + strlen(want[i]);
    }
    free(out);
    out = engine_session("greedy", "kgp 2 0 0\n4 state <6,0,0,4,4,4,4,4,4,4,4,4,4,4,4>\n", &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(out, "error \"protocol version not supported: this engine speaks KGP 1.x\"\r\ngoodbye\r\n");
    free(out);
    rc = tu_run(&out, 1, "engine nosuchagent");
    assert_int_equal(rc, 2);
    free(out);
}

/* The extension's analysis: a line per legal move and the best line with what the agent reports. */
static void test_analyse(void **state)
{
    (void)state;
    int rc;
    char *out = engine_session("solver", "1 sowzero analyse \"0,0,0,0,1,1,20,0,0,0,0,1,1,24 S\"\n", &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(count(out, "@1 sowzero info move "), 2);
    assert_non_null(strstr(out, "@1 sowzero info move 5 exact "));
    assert_non_null(strstr(out, "@1 sowzero best "));
    assert_non_null(strstr(out, " exact 1"));
    free(out);
}

/* `sowzero kgp connect` plays a whole game on the test's KGP server. */
static void test_kgp_client(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' '%s' --ms 5000", SOWZERO_PYTHON3, SERVER);
    FILE *srv = popen(cmd, "r");
    assert_non_null(srv);
    char line[4096];
    int port = 0;
    assert_non_null(fgets(line, sizeof line, srv));
    assert_int_equal(sscanf(line, "port %d", &port), 1);
    char *out;
    int rc = tu_run(&out, 1, "kgp connect 127.0.0.1:%d ab:depth=4", port);
    assert_int_equal(rc, 0);
    free(out);
    int south = -1, north = -1, moves = 0;
    while (fgets(line, sizeof line, srv)) {
        if (!strncmp(line, "moves ", 6))
            moves = count(line, " ");
        sscanf(line, "result South %d North %d", &south, &north);
        assert_null(strstr(line, "error"));
    }
    assert_int_equal(pclose(srv), 0);
    assert_int_equal(south + north, 48);
    assert_true(moves >= 10);
    /* a server of another major version: refused with an error and goodbye, and no game: exit 1 */
    snprintf(cmd, sizeof cmd, "'%s' '%s' --major 2", SOWZERO_PYTHON3, SERVER);
    srv = popen(cmd, "r");
    assert_non_null(srv);
    assert_non_null(fgets(line, sizeof line, srv));
    assert_int_equal(sscanf(line, "port %d", &port), 1);
    rc = tu_run(&out, 1, "kgp connect 127.0.0.1:%d greedy", port);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "another major version"));
    free(out);
    assert_non_null(fgets(line, sizeof line, srv));
    assert_string_equal(line, "refused\n");
    assert_int_equal(pclose(srv), 0);
    rc = tu_run(&out, 1, "kgp connect 127.0.0.1:1 greedy"); /* nothing listens there */
    assert_int_equal(rc, 1);
    free(out);
    rc = tu_run(&out, 1, "kgp connect nowhere greedy");
    assert_int_equal(rc, 2);
    free(out);
}

/* `sowzero engine --port`: two clients in turn, one that vanishes between them (tests/engines/port_check.py). */
static void test_port(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/engines/port_check.py' '%s' ab:depth=4", SOWZERO_PYTHON3,
             SOWZERO_SOURCE_DIR, SOWZERO_BIN);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_exchange),
        cmocka_unit_test(test_protocol_errors),
        cmocka_unit_test(test_analyse),
        cmocka_unit_test(test_kgp_client),
        cmocka_unit_test(test_port),
        cmocka_unit_test(test_match_illegal_moves_forfeit),
        cmocka_unit_test(test_match_against_sowzero),
        cmocka_unit_test(test_tournament),
        cmocka_unit_test(test_garbage_and_bad_specs),
        cmocka_unit_test(test_sowzero_engine_other_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
