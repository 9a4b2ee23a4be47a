/* test_cli_outputs.c — the output files of the game commands: `match` and `tournament --pgn` append each
 * game's record as it ends, so SIGTERM, SIGINT and SIGKILL leave what the file held plus every finished game
 * (and the first two stop gracefully: the partial table, exit 143 / 130); an output path that is one of the
 * command's inputs, or cannot be written, is refused (exit 2) before any work; --anchor takes finite ratings
 * only; `elo` on players that no chain of games connects is bad input (2); `play --pgn` for every game. */
// ctest-labels: threads
#include "tests/test_util.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "eval/record.h"

/* The whole file (malloc'd, NUL-terminated; *len its size), or NULL when it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0)
        if ((n += got) + 1 >= cap)
            buf = realloc(buf, cap *= 2);
    fclose(f);
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* Copies src to dst (fails the test when it cannot). */
static void copy_file(const char *src, const char *dst)
{
    size_t len = 0;
    char *b = slurp(src, &len);
    assert_non_null(b);
    FILE *f = fopen(dst, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(b);
}

/* Asserts that path still holds exactly `want` (len bytes). */
static void assert_unchanged(const char *path, const char *want, size_t len)
{
    size_t n;
    char *b = slurp(path, &n);
    assert_non_null(b);
    if (n != len || memcmp(b, want, len))
        fail_msg("%s was changed (%zu bytes, were %zu)", path, n, len);
    free(b);
}

/* Starts `sowzero argv...` with stdout and stderr into out_path; returns its pid. */
static pid_t spawn(const char *out_path, char *const argv[])
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *o = freopen(out_path, "w", stdout);
        if (!o || dup2(fileno(stdout), 2) < 0)
            _exit(127);
        execv(SOWZERO_BIN, argv);
        _exit(127);
    }
    return pid;
}

/* Waits (up to 60 s) until path holds at least `records` records ("[Event" lines). */
static void wait_records(const char *path, int records)
{
    for (int i = 0; i < 6000; i++) {
        char *t = slurp(path, NULL);
        int n = t ? count(t, "[Event ") : 0;
        free(t);
        if (n >= records)
            return;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fail_msg("%s: fewer than %d records after 60 s", path, records);
}

/* Reads every record of path: the count, each one finished and valid (record_read_file replays it). */
static int read_all(const char *path, int *finished)
{
    record_game *games;
    int n;
    char err[RECORD_ERRLEN];
    if (record_read_file(path, &games, &n, err) != RECORD_OK)
        fail_msg("%s does not read back: %s", path, err);
    *finished = 0;
    for (int i = 0; i < n; i++)
        *finished += games[i].result != RECORD_UNFINISHED;
    record_games_free(games, n);
    return n;
}

/* A match writing --pgn to a file with earlier records is stopped by `sig` after a few games: the earlier
 * records stay, every finished game follows them whole, and `elo` reads the file. SIGTERM and SIGINT stop
 * gracefully (the finished games' table, exit 128 + sig), SIGKILL at once. */
static void interrupt_match(int sig, const char *name)
{
    char pgn[512], log[512];
    snprintf(pgn, sizeof pgn, "%s/outputs_%s.pgn", SOWZERO_TMP, name);
    snprintf(log, sizeof log, "%s/outputs_%s.log", SOWZERO_TMP, name);
    unlink(pgn);
    char *out;
    assert_int_equal(tu_run(&out, 1, "match random greedy --games 2 --threads 1 --pgn '%s'", pgn), 0);
    free(out);
    size_t old_len = 0;
    char *old = slurp(pgn, &old_len);
    assert_non_null(old);
    assert_int_equal(count(old, "[Event "), 2);
    char *argv[] = {"sowzero", "match", "mcts:sims=3000", "greedy", "--games", "400", "--threads", "2",
                    "--pgn", pgn, "--json", NULL};
    pid_t pid = spawn(log, argv);
    wait_records(pgn, 2 + 3);
    assert_int_equal(kill(pid, sig), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    char *text = slurp(pgn, NULL);
    assert_non_null(text);
    if (memcmp(text, old, old_len))
        fail_msg("%s: the records it held before are not kept", name);
    int finished, n = read_all(pgn, &finished);
    assert_true(n >= 5 && n < 402);
    assert_int_equal(finished, n); /* no partial or abandoned game is written */
    assert_int_equal(count(text, "[Event "), n);
    free(text);
    char *report = slurp(log, NULL);
    assert_non_null(report);
    if (sig == SIGKILL) {
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    } else {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 128 + sig)
            fail_msg("match after %s: status %d, not an exit with %d:\n%s", name, status, 128 + sig, report);
        const char *json = strchr(report, '{');
        cJSON *o = json ? cJSON_Parse(json) : NULL;
        if (!o)
            fail_msg("no JSON after %s:\n%s", name, report);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "stopped")));
        assert_int_equal(cJSON_GetObjectItem(o, "planned")->valueint, 400);
        int games = cJSON_GetObjectItem(o, "games")->valueint;
        assert_int_equal(games, n - 2); /* the table counts exactly the games in the file */
        assert_int_equal(cJSON_GetObjectItem(o, "wins")->valueint + cJSON_GetObjectItem(o, "draws")->valueint +
                             cJSON_GetObjectItem(o, "losses")->valueint, games);
        cJSON_Delete(o);
        assert_non_null(strstr(report, "stopped after"));
    }
    free(report);
    assert_int_equal(tu_run(&out, 1, "elo '%s'", pgn), 0);
    assert_non_null(strstr(out, "mcts:sims=3000"));
    free(out);
    free(old);
}

static void test_match_sigterm(void **state)
{
    (void)state;
    interrupt_match(SIGTERM, "term");
    const char *cmds[2] = {"match", "tournament"}; /* the statuses are documented */
    for (int i = 0; i < 2; i++) {
        char *out;
        assert_int_equal(tu_run(&out, 0, "%s --help", cmds[i]), 0);
        assert_non_null(strstr(out, "130 (SIGINT) or 143"));
        free(out);
    }
}

static void test_match_sigint(void **state)
{
    (void)state;
    interrupt_match(SIGINT, "int");
}

static void test_match_sigkill(void **state)
{
    (void)state;
    interrupt_match(SIGKILL, "kill");
}

/* --pgn after text that does not end in a blank line (a record cut short of its last newline, or a
 * hand-edited file): the records appended still start on their own, and the whole file reads. */
static void test_pgn_appends_after_any_text(void **state)
{
    (void)state;
    const char *pgn = tu_tmp_path("outputs_tail.pgn");
    const char *tails[] = {"", "\n", "\n\n"};
    for (int i = 0; i < 3; i++) {
        unlink(pgn);
        char *out;
        assert_int_equal(tu_run(&out, 1, "match random greedy --games 2 --threads 1 --pgn '%s'", pgn), 0);
        free(out);
        size_t len = 0;
        char *text = slurp(pgn, &len);
        while (len && text[len - 1] == '\n')
            text[--len] = 0;
        char *cut = malloc(len + 3);
        snprintf(cut, len + 3, "%s%s", text, tails[i]);
        tu_write_text(pgn, cut);
        assert_int_equal(tu_run(&out, 1, "match random greedy --games 2 --threads 1 --seed 2 --pgn '%s'", pgn), 0);
        free(out);
        int finished;
        assert_int_equal(read_all(pgn, &finished), 4);
        assert_int_equal(finished, 4);
        char *now = slurp(pgn, NULL);
        assert_memory_equal(now, cut, strlen(cut)); /* what was there is kept as it was */
        free(now);
        free(cut);
        free(text);
    }
}

/* A tournament stopped by SIGINT prints the table of the games played (marked) and exits 130; the file holds
 * every finished game. */
static void test_tournament_sigint(void **state)
{
    (void)state;
    const char *pgn = tu_tmp_path("outputs_tour.pgn"), *log = tu_tmp_path("outputs_tour.log");
    unlink(pgn);
    char *argv[] = {"sowzero", "tournament", "--agent", "m=mcts:sims=3000", "--agent", "g=greedy", "--agent",
                    "r=random", "--games", "200", "--threads", "1", "--pgn", (char *)pgn, NULL};
    pid_t pid = spawn(log, argv);
    wait_records(pgn, 3);
    assert_int_equal(kill(pid, SIGINT), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    char *report = slurp(log, NULL);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 130)
        fail_msg("tournament after SIGINT: status %d:\n%s", status, report);
    int finished, n = read_all(pgn, &finished);
    assert_int_equal(finished, n);
    char want[64];
    snprintf(want, sizeof want, "stopped after %d games", n);
    if (!strstr(report, want) || !strstr(report, "STOPPED") || !strstr(report, "likelihood of superiority"))
        fail_msg("no '%s' and ratings of the games played in:\n%s", want, report);
    free(report);
}

/* Output paths that are one of the command's inputs are refused (2) and the input is left as it was: by
 * another spelling and through a symlink too. */
static void test_output_is_an_input(void **state)
{
    (void)state;
    const char *net = tu_tmp_path("outputs_net.h5"), *link = tu_tmp_path("outputs_net_link.h5");
    copy_file(SOWZERO_SOURCE_DIR "/nets/kalah-6-4.h5", net);
    size_t net_len = 0;
    char *net_bytes = slurp(net, &net_len);
    unlink(link);
    assert_int_equal(symlink(net, link), 0);
    char *out;
    const char *as[] = {net, link};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tu_run(&out, 1, "match az:net='%s',sims=0 random --games 2 --pgn '%s'", net, as[i]), 2);
        if (!strstr(out, "--pgn") || !strstr(out, "the net") || !strstr(out, "itself"))
            fail_msg("match: %s", out);
        free(out);
        assert_unchanged(net, net_bytes, net_len);
    }
    /* ./x is x */
    char dotted[600];
    snprintf(dotted, sizeof dotted, "%s/./outputs_net.h5", SOWZERO_TMP);
    assert_int_equal(tu_run(&out, 1, "tournament --agent a=az:net='%s',sims=0 --agent b=random --games 2 --csv '%s'",
                            net, dotted), 2);
    assert_non_null(strstr(out, "--csv"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "tournament --agent a=az:net='%s',sims=0 --agent b=random --games 2 --pgn '%s'",
                            net, link), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --solve --net '%s' --out '%s'", net, link), 2);
    assert_non_null(strstr(out, "--out"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "play az:net='%s',sims=0 --pgn '%s' </dev/null", net, net), 2);
    free(out);
    assert_unchanged(net, net_bytes, net_len);
    free(net_bytes);
    /* tournament: --pgn and --csv the same file */
    const char *both = tu_tmp_path("outputs_both.txt");
    assert_int_equal(tu_run(&out, 1, "tournament --agent random --agent greedy --games 2 --pgn '%s' --csv '%s'", both,
                            both), 2);
    free(out);
    /* ... spelt two ways, neither there yet (the records would be appended, then the table renamed over) */
    unlink(both);
    assert_int_equal(tu_run(&out, 1, "tournament --agent random --agent greedy --games 2 --pgn '%s' --csv "
                                     "'%s/./outputs_both.txt'", both, SOWZERO_TMP), 2);
    assert_non_null(strstr(out, "the same file"));
    free(out);
    /* elo --csv onto a record file it reads */
    const char *rec = tu_tmp_path("outputs_rec.pgn");
    unlink(rec);
    assert_int_equal(tu_run(&out, 1, "match random greedy --games 2 --threads 1 --pgn '%s'", rec), 0);
    free(out);
    size_t rec_len = 0;
    char *rec_bytes = slurp(rec, &rec_len);
    assert_int_equal(tu_run(&out, 1, "elo '%s' --csv '%s'", rec, rec), 2);
    assert_non_null(strstr(out, "the record file"));
    free(out);
    assert_unchanged(rec, rec_bytes, rec_len);
    free(rec_bytes);
    /* one record file given twice would count its games twice */
    assert_int_equal(tu_run(&out, 1, "elo '%s' '%s/./outputs_rec.pgn'", rec, SOWZERO_TMP), 2);
    assert_non_null(strstr(out, "the same record file"));
    free(out);
    /* export: OUT.h5 is CHECKPOINT through a symlink */
    assert_int_equal(tu_run(&out, 1, "export '%s' '%s'", net, link), 2);
    assert_non_null(strstr(out, "is CHECKPOINT itself"));
    free(out);
}

/* The tablebase file a run maps is an input too: `positions --out` and `solve --fair-book --out` naming it
 * are refused (2) before the work, and the file is left as it was; a damaged one is bad input (2) in both. */
static void test_output_is_the_tablebase(void **state)
{
    (void)state;
    const char *dir = tu_tmp_path("outputs_tb");
    char cmd[1200], file[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(setenv("SOWZERO_TABLEBASE", dir, 1), 0);
    snprintf(file, sizeof file, "%s/kalah-pits4-capture_opposite-end_either-empty-tb12.sztb", dir); /* the default */
    char *out;
    assert_int_equal(tu_run(&out, 1, "tablebase build --rules kalah:pits=4,seeds=3 --seeds 12 --threads 1"), 0);
    free(out);
    size_t len = 0;
    char *bytes = slurp(file, &len);
    assert_non_null(bytes);
    assert_int_equal(tu_run(&out, 1, "positions --rules kalah:pits=4,seeds=3 --solve --count 6 --endgame 12 "
                                     "--out '%s'", file), 2);
    if (!strstr(out, "--out") || !strstr(out, "tablebase file"))
        fail_msg("positions: %s", out);
    assert_null(strstr(out, "positions of")); /* nothing sampled or written */
    free(out);
    assert_int_equal(tu_run(&out, 1, "solve --rules kalah:pits=4,seeds=3 --fair-book 1 --endgame 12 --out '%s'", file),
                     2);
    if (!strstr(out, "tablebase file"))
        fail_msg("solve: %s", out);
    free(out);
    /* under another name (a hard link): the file is still recognised */
    char link_path[1200];
    snprintf(link_path, sizeof link_path, "%s/book.txt", dir);
    unlink(link_path);
    assert_int_equal(link(file, link_path), 0);
    assert_int_equal(tu_run(&out, 1, "solve --rules kalah:pits=4,seeds=3 --fair-book 1 --endgame 12 --out '%s'",
                            link_path), 2);
    assert_non_null(strstr(out, "tablebase file"));
    free(out);
    unlink(link_path);
    /* not mapped by the run (--endgame 0), or not there yet under a tablebase's name: refused all the same */
    assert_int_equal(tu_run(&out, 1, "solve --rules kalah:pits=4,seeds=3 --fair-book 1 --endgame 0 --out '%s'", file),
                     2);
    assert_non_null(strstr(out, "tablebase file"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "positions --rules kalah:pits=4,seeds=3 --solve --count 6 --endgame 0 "
                                     "--out '%s/new-tb14.sztb'", dir), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "match random greedy --games 2 --threads 1 --pgn '%s'", file), 2);
    free(out);
    assert_unchanged(file, bytes, len);
    /* another output beside it is written, mapping the same file */
    assert_int_equal(tu_run(&out, 1, "positions --rules kalah:pits=4,seeds=3 --solve --count 6 --endgame 12 "
                                     "--out '%s/set.jsonl'", dir), 0);
    free(out);
    /* damaged: bad input for both commands, before the sampling */
    FILE *f = fopen(file, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)len / 2, SEEK_SET), 0);
    fputc(bytes[len / 2] ^ 0x5a, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(tu_run(&out, 1, "positions --rules kalah:pits=4,seeds=3 --solve --count 6 --endgame 12 "
                                     "--out '%s/set2.jsonl'", dir), 2);
    assert_non_null(strstr(out, "--endgame"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "solve --rules kalah:pits=4,seeds=3 --endgame 12"), 2);
    free(out);
    free(bytes);
    unsetenv("SOWZERO_TABLEBASE");
}

/* Output paths that cannot be written are bad flags (2), refused before any work. */
static void test_bad_output_paths(void **state)
{
    (void)state;
    char *out;
    const char *bad[] = {"/nonexistent/d/x", SOWZERO_TMP, "", "/proc/self/status", SOWZERO_TMP "/new-dir/"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(tu_run(&out, 1, "match random greedy --games 2 --pgn '%s'", bad[i]), 2);
        assert_non_null(strstr(out, "--pgn"));
        assert_null(strstr(out, "A overall")); /* no game played */
        free(out);
    }
    assert_int_equal(tu_run(&out, 1, "play greedy --pgn /nonexistent/x.pgn </dev/null"), 2);
    assert_null(strstr(out, "your move"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "play greedy --rules oware --pgn /nonexistent/x.pgn </dev/null"), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "tournament --agent random --agent greedy --games 2 --csv '%s'", SOWZERO_TMP), 2);
    assert_null(strstr(out, "round robin"));
    free(out);
    const char *rec = tu_tmp_path("outputs_rec2.pgn");
    unlink(rec);
    assert_int_equal(tu_run(&out, 1, "match random greedy --games 2 --threads 1 --pgn '%s'", rec), 0);
    free(out);
    assert_int_equal(tu_run(&out, 1, "elo '%s' --csv /nonexistent/x.csv", rec), 2);
    free(out);
    assert_int_equal(tu_run(&out, 1, "elo '%s' --csv '%s'", rec, SOWZERO_TMP), 2);
    free(out);
    /* positions --out DIRECTORY: refused at once, before the sampling and solving (which take minutes) */
    time_t t0 = time(NULL);
    assert_int_equal(tu_run(&out, 1, "positions --solve --out '%s'", SOWZERO_TMP), 2);
    assert_non_null(strstr(out, "directory"));
    free(out);
    assert_true(time(NULL) - t0 < 10);
    /* export NET '': refused, and no temporary file appears in the working directory */
    const char *dir = tu_tmp_path("outputs_cwd");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir '%s' && cd '%s' && '%s' export '%s/nets/kalah-6-4.h5' '' 2>/dev/null",
             dir, dir, dir, SOWZERO_BIN, SOWZERO_SOURCE_DIR);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    assert_int_equal(system(cmd), 0);
}

/* --anchor takes a finite rating in -1e6..1e6 only (nan, inf, 1e23 are refused naming the flag). */
static void test_anchor_finite(void **state)
{
    (void)state;
    const char *rec = tu_tmp_path("outputs_anchor.pgn");
    unlink(rec);
    char *out;
    assert_int_equal(tu_run(&out, 1, "match random greedy --games 4 --threads 1 --pgn '%s'", rec), 0);
    free(out);
    const char *bad[] = {"nan", "inf", "-inf", "1e23", "-1000001", "NAN"};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(tu_run(&out, 1, "elo '%s' --anchor greedy=%s", rec, bad[i]), 2);
        assert_non_null(strstr(out, "--anchor"));
        free(out);
        assert_int_equal(tu_run(&out, 1, "tournament --agent a=random --agent b=greedy --games 2 --anchor a=%s",
                                bad[i]), 2);
        assert_non_null(strstr(out, "--anchor"));
        assert_null(strstr(out, "round robin"));
        free(out);
    }
    assert_int_equal(tu_run(&out, 0, "elo '%s' --anchor random=1e6 --json", rec), 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    assert_true(cJSON_GetObjectItem(o, "anchor_elo")->valuedouble == 1e6);
    cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "ratings"), 0);
    assert_string_equal(cJSON_GetObjectItem(first, "name")->valuestring, "greedy"); /* the winner first */
    cJSON_Delete(o);
    free(out);
}

/* Records whose players form two pools no game connects: bad input (2), the message says so. */
static void test_elo_disconnected(void **state)
{
    (void)state;
    const char *a = tu_tmp_path("outputs_pool_a.pgn"), *b = tu_tmp_path("outputs_pool_b.pgn");
    unlink(a);
    unlink(b);
    char *out;
    assert_int_equal(tu_run(&out, 1, "match random greedy --games 2 --threads 1 --pgn '%s'", a), 0);
    free(out);
    assert_int_equal(tu_run(&out, 1, "match ab:depth=1 ab:depth=2 --games 2 --threads 1 --pgn '%s'", b), 0);
    free(out);
    assert_int_equal(tu_run(&out, 1, "elo '%s' '%s'", a, b), 2);
    assert_non_null(strstr(out, "sowzero elo:"));
    free(out);
    /* an empty record file: bad input, and the message names it */
    const char *empty = tu_tmp_path("outputs_empty.pgn");
    tu_write_text(empty, "");
    assert_int_equal(tu_run(&out, 1, "elo '%s'", empty), 2);
    assert_non_null(strstr(out, empty));
    free(out);
}

/* play --pgn works for every game: the record reads back and `elo` rates it. */
static void test_play_pgn_every_game(void **state)
{
    (void)state;
    const char *pgn = tu_tmp_path("outputs_play.pgn");
    unlink(pgn);
    char *out;
    const char *moves = tu_tmp_path("outputs_moves.txt"), *quit = tu_tmp_path("outputs_quit.txt"),
               *resign = tu_tmp_path("outputs_resign.txt");
    char text[512] = "";
    for (int i = 0; i < 48; i++) /* a..f over and over (an empty pit is refused and the next line read) */
        strcat(text, (const char *[]){"a\n", "b\n", "c\n", "d\n", "e\n", "f\n"}[i % 6]);
    tu_write_text(moves, text);
    tu_write_text(quit, "quit\n");
    tu_write_text(resign, "resign\n");
    assert_int_equal(tu_run(&out, 1, "play greedy --rules oware --pgn '%s' < /dev/null", pgn), 0);
    free(out);
    assert_int_equal(tu_run(&out, 1, "play greedy --rules oware --pgn '%s' < '%s'", pgn, moves), 0);
    free(out);
    assert_int_equal(tu_run(&out, 1, "play random --rules basico:players=3 --seat 1 --pgn '%s' < '%s'", pgn, quit), 0);
    free(out);
    record_game *games;
    int n;
    char err[RECORD_ERRLEN];
    if (record_read_file(pgn, &games, &n, err) != RECORD_OK)
        fail_msg("%s", err);
    assert_int_equal(n, 3);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(games[i].event, "sowzero play");
        assert_string_equal(record_seat(&games[i], i < 2 ? 0 : 1), "human");
    }
    assert_int_equal(games[0].result, RECORD_UNFINISHED); /* end of input at once */
    assert_int_equal(games[0].n_moves, 0);
    assert_true(games[1].n_moves > 0);
    assert_int_equal(games[2].players, 3);
    assert_string_equal(game_get_kind(games[2].game)->name, "basico");
    record_games_free(games, n);
    assert_int_equal(tu_run(&out, 1, "elo '%s'", pgn), 0);
    free(out);
    /* a resignation: the record stops before it, unfinished, and says so */
    const char *res = tu_tmp_path("outputs_resign.pgn");
    unlink(res);
    assert_int_equal(tu_run(&out, 1, "play random --rules basico:players=3 --pgn '%s' < '%s'", res, resign), 0);
    assert_non_null(strstr(out, "resignation"));
    free(out);
    if (record_read_file(res, &games, &n, err) != RECORD_OK)
        fail_msg("%s", err);
    assert_int_equal(n, 1);
    assert_int_equal(games[0].result, RECORD_UNFINISHED);
    record_games_free(games, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_sigterm),
        cmocka_unit_test(test_match_sigint),
        cmocka_unit_test(test_match_sigkill),
        cmocka_unit_test(test_tournament_sigint),
        cmocka_unit_test(test_pgn_appends_after_any_text),
        cmocka_unit_test(test_output_is_an_input),
        cmocka_unit_test(test_bad_output_paths),
        cmocka_unit_test(test_output_is_the_tablebase),
        cmocka_unit_test(test_anchor_finite),
        cmocka_unit_test(test_elo_disconnected),
        cmocka_unit_test(test_play_pgn_every_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
