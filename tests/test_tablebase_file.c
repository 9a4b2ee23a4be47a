/* test_tablebase_file.c — tablebase files (eval/endgame.h): a written file maps back to the very values
 * built, serves every seeds= of its board, is found by eg_find and tb_acquire instead of a build, and a
 * damaged, truncated, extended or foreign file is refused naming the file; a build on disk writes the same
 * file as one in memory; the `tablebase` command and
 * `solve` with a file give the same values as without one. */
#include "tests/test_util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "env/kalah.h"
#include "env/game.h"
#include "eval/endgame.h"
#include "eval/game_search.h"
#include "eval/tbase.h"

static kalah_rules rules_of(const char *spec)
{
    kalah_rules r;
    char err[KALAH_ERRLEN];
    if (kalah_rules_parse(spec, &r, err) != KALAH_OK)
        fail_msg("%s: %s", spec, err);
    return r;
}

/* A fresh folder SOWZERO_TMP/name, set as $SOWZERO_TABLEBASE. */
static const char *fresh_dir(const char *name)
{
    const char *dir = tu_tmp_path(name);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    setenv("SOWZERO_TABLEBASE", dir, 1);
    return dir;
}

static void copy_file(const char *from, const char *to)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    assert_int_equal(system(cmd), 0);
}

/* XORs byte `at` of path (negative: from the end) with x. */
static void flip(const char *path, long at, int x)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, at, at < 0 ? SEEK_END : SEEK_SET);
    int c = fgetc(f);
    fseek(f, at, at < 0 ? SEEK_END : SEEK_SET);
    fputc(c ^ x, f);
    fclose(f);
}

static void test_round_trip(void **state)
{
    (void)state;
    const char *dir = fresh_dir("tb-round");
    kalah_rules r = rules_of("kalah:pits=4,seeds=3");
    char err[KALAH_ERRLEN], path[1024], found[1024], name[192];
    eg_db *built = eg_create(&r, 16, 2, err);
    assert_non_null(built);
    snprintf(path, sizeof path, "%s/%s", dir, eg_file_name(&r, 16, name, sizeof name));
    assert_int_equal(eg_save(built, path, err), 0);
    eg_db *mapped = eg_open(path, err);
    if (!mapped)
        fail_msg("%s", err);
    assert_int_equal(eg_max_seeds(mapped), 16);
    assert_int_equal(eg_bytes(mapped), eg_bytes(built));
    assert_memory_equal(eg_values(mapped), eg_values(built), eg_bytes(built));
    /* The values do not depend on the seeds per pit at the start: one file serves seeds=2 and seeds=4. */
    kalah_rules two = rules_of("kalah:pits=4,seeds=2"), four = rules_of("kalah:pits=4,seeds=4");
    kalah_rules other_capture = rules_of("kalah:pits=4,seeds=3,capture=always");
    assert_true(eg_serves(mapped, &two) && eg_serves(mapped, &four));
    assert_false(eg_serves(mapped, &other_capture));
    int status;
    /* eg_find: the smallest file with enough seeds; none when the request needs more. */
    eg_db *f = eg_find(&four, 12, found, sizeof found, &status, err);
    assert_int_equal(status, EG_FILE_OK);
    assert_string_equal(found, path);
    eg_free(f);
    assert_null(eg_find(&four, 17, NULL, 0, &status, err));
    assert_int_equal(status, EG_FILE_NONE);
    assert_null(eg_find(&other_capture, 8, NULL, 0, &status, err));
    assert_int_equal(status, EG_FILE_NONE);
    /* eg_largest_file: the most seeds of a file up to a limit (a solve's default takes a bigger file) */
    assert_int_equal(eg_largest_file(&four, 24), 16);
    assert_int_equal(eg_largest_file(&four, 15), 0);
    assert_int_equal(eg_largest_file(&other_capture, 24), 0);
    char gerr[GAME_ERRLEN];
    game *g = game_create("kalah:pits=4,seeds=4", gerr);
    gs_solver *solver = g ? gs_solver_create(g, 1, gerr) : NULL;
    assert_non_null(solver);
    gs_endgame want = {.seeds = 10, .up_to = 24};
    assert_int_equal(gs_solver_use_endgame(solver, &want, gerr), GAME_OK);
    assert_int_equal(want.covered, 16);
    assert_string_equal(want.path, path);
    gs_endgame exact = {.seeds = 10};
    assert_int_equal(gs_solver_use_endgame(solver, &exact, gerr), GAME_OK);
    assert_int_equal(exact.covered, 16); /* the smallest file with enough seeds: the same one */
    gs_solver_free(solver);
    game_free(g);
    /* tb_acquire maps the file (no build: 0 s) and gets its 16 seeds for a request of 10. */
    double secs = -1;
    tb_ref *t = tb_acquire(&two, 10, 1, &secs, err);
    assert_non_null(t);
    assert_true(secs == 0);
    assert_int_equal(tb_seeds(t), 16);
    tb_release(t);
    eg_free(mapped);
    eg_free(built);
}

static void test_damage_refused(void **state)
{
    (void)state;
    const char *dir = fresh_dir("tb-damage");
    kalah_rules r = rules_of("kalah:pits=3,seeds=3");
    char err[KALAH_ERRLEN], good[1024], bad[1024];
    eg_db *db = eg_create(&r, 12, 1, err);
    assert_non_null(db);
    snprintf(good, sizeof good, "%s/good.sztb", dir);
    snprintf(bad, sizeof bad, "%s/bad.sztb", dir);
    assert_int_equal(eg_save(db, good, err), 0);
    struct {
        long at;
        int x;
        const char *says;
    } cases[] = {
        {EG_FILE_HEADER + 100, 0x01, "checksum mismatch"}, /* a value */
        {-1, 0x40, "checksum mismatch"},                   /* the last value */
        {30, 0x01, "header"},                              /* the rules line: seeds=3 -> seeds=2 */
        {0, 0x20, "not a sowzero tablebase"},              /* the magic */
        {EG_FILE_HEADER - 1, 0x01, "header"},              /* the padding */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        copy_file(good, bad);
        flip(bad, cases[i].at, cases[i].x);
        err[0] = 0;
        assert_null(eg_open(bad, err));
        if (!strstr(err, cases[i].says) || !strstr(err, bad))
            fail_msg("case %zu: '%s'", i, err);
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && truncate -s -1 '%s'", good, bad, bad);
    assert_int_equal(system(cmd), 0);
    assert_null(eg_open(bad, err));
    assert_non_null(strstr(err, "truncated"));
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && printf x >> '%s'", good, bad, bad);
    assert_int_equal(system(cmd), 0);
    assert_null(eg_open(bad, err));
    assert_non_null(strstr(err, "longer"));
    assert_null(eg_open(dir, err));
    assert_null(eg_open("/nonexistent/x.sztb", err));
    /* $SOWZERO_TABLEBASE naming one file: a file for another board, or a damaged one, is an error. */
    kalah_rules four_pits = rules_of("kalah:pits=4,seeds=3");
    int status;
    setenv("SOWZERO_TABLEBASE", good, 1);
    assert_null(eg_find(&four_pits, 8, NULL, 0, &status, err));
    assert_int_equal(status, EG_FILE_EBAD);
    assert_non_null(strstr(err, "holds kalah:pits=3"));
    assert_null(tb_acquire(&four_pits, 8, 1, NULL, err));
    flip(bad, EG_FILE_HEADER + 5, 1);
    setenv("SOWZERO_TABLEBASE", bad, 1);
    assert_null(eg_find(&r, 8, NULL, 0, &status, err));
    assert_int_equal(status, EG_FILE_EBAD);
    /* In the folder a damaged file under the standard name is refused too, not rebuilt over. */
    fresh_dir("tb-damage-dir");
    char name[192], path[1024];
    snprintf(path, sizeof path, "%s/%s", getenv("SOWZERO_TABLEBASE"), eg_file_name(&r, 12, name, sizeof name));
    copy_file(good, path);
    flip(path, EG_FILE_HEADER + 7, 2);
    assert_null(tb_acquire(&r, 10, 1, NULL, err));
    assert_non_null(strstr(err, "checksum mismatch"));
    eg_free(db);
}

/* The command line: build, info, list; solve with the file equals solve without a database. */
/* A build on disk (eg_build_file, the path for tables bigger than memory) writes the same file, byte for
 * byte, as a build in memory saved by eg_save; eg_entries counts its entries; a path it cannot write fails
 * naming it and leaves nothing behind. */
static void test_build_on_disk(void **state)
{
    (void)state;
    const char *dir = fresh_dir("tb-disk");
    kalah_rules r = rules_of("kalah:pits=4,seeds=3,capture=always");
    char err[KALAH_ERRLEN], a[1024], b[1024];
    snprintf(a, sizeof a, "%s/memory.sztb", dir);
    snprintf(b, sizeof b, "%s/disk.sztb", dir);
    eg_db *mem = eg_create(&r, 15, 2, err);
    assert_non_null(mem);
    assert_int_equal(eg_save(mem, a, err), 0);
    eg_db *disk = eg_build_file(&r, 15, 2, 0, b, err);
    if (!disk)
        fail_msg("%s", err);
    assert_int_equal(eg_bytes(disk), eg_bytes(mem));
    assert_int_equal((long long)eg_entries(4, 15), (long long)eg_bytes(mem)); /* C(23, 8) */
    assert_int_equal((long long)eg_entries(4, 15), 490314);
    assert_memory_equal(eg_values(disk), eg_values(mem), eg_bytes(mem));
    eg_free(disk);
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
    assert_int_equal(system(cmd), 0);
    eg_db *back = eg_open(b, err);
    assert_non_null(back);
    assert_memory_equal(eg_values(back), eg_values(mem), eg_bytes(mem));
    eg_free(back);
    assert_true(eg_entries(6, 32) > 20000000000ULL && eg_entries(6, 32) < 22000000000ULL);
    assert_true(eg_entries(6, 127) == UINT64_MAX || eg_entries(6, 127) > eg_entries(6, 120));
    /* Layer by layer, with memory for the largest layer (170,544 entries of 15 seeds) and a few blocks of
     * the 319,770 below: the same bytes on 1 and 2 threads; less than the largest layer is refused. */
    const uint64_t floor = eg_layered_floor(4, 15);
    assert_int_equal((long long)floor, 170544 + 65536);
    const uint64_t budgets[] = {floor, floor + 100000, eg_entries(4, 15) - 1};
    for (int i = 0; i < 3; i++) {
        for (int threads = 1; threads <= 2; threads++) {
            snprintf(b, sizeof b, "%s/layered-%d-%d.sztb", dir, i, threads);
            eg_db *lay = eg_build_file(&r, 15, threads, budgets[i], b, err);
            if (!lay)
                fail_msg("%s", err);
            assert_memory_equal(eg_values(lay), eg_values(mem), eg_bytes(mem));
            eg_free(lay);
            snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
            assert_int_equal(system(cmd), 0);
        }
    }
    eg_free(mem);
    snprintf(b, sizeof b, "%s/too-little.sztb", dir);
    assert_null(eg_build_file(&r, 15, 2, floor - 1, b, err));
    assert_non_null(strstr(err, "needs at least 0.2 MB"));
    assert_int_equal(access(b, F_OK), -1);
    snprintf(b, sizeof b, "%s/no-such-folder/disk.sztb", dir);
    assert_null(eg_build_file(&r, 15, 1, 0, b, err));
    assert_non_null(strstr(err, "no-such-folder/disk.sztb"));
    /* The command takes the same path with --on-disk and writes the same bytes. */
    snprintf(b, sizeof b, "%s/cli.sztb", dir);
    char *out = NULL;
    assert_int_equal(tu_run(&out, 1, "tablebase build --rules kalah:pits=4,seeds=3,capture=always --seeds 15 "
                                     "--threads 2 --on-disk --out '%s' --json", b), 0);
    assert_non_null(strstr(out, "\"on_disk\":true,\"method\":\"mapped\""));
    free(out);
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
    assert_int_equal(system(cmd), 0);
    /* --memory-mb below the table (6 pits, 12 seeds: 2.7 MB) builds it layer by layer, the same bytes as in
     * memory; below its largest layer (1.35 MB) it is refused as bad input, naming the least it takes. */
    snprintf(a, sizeof a, "%s/six-memory.sztb", dir);
    snprintf(b, sizeof b, "%s/six-layered.sztb", dir);
    assert_int_equal(tu_run(&out, 1, "tablebase build --seeds 12 --threads 2 --out '%s' --json", a), 0);
    assert_non_null(strstr(out, "\"on_disk\":false,\"method\":\"memory\""));
    free(out);
    assert_int_equal(tu_run(&out, 1, "tablebase build --seeds 12 --threads 2 --memory-mb 2 --out '%s' --json", b), 0);
    assert_non_null(strstr(out, "\"on_disk\":true,\"method\":\"layered\",\"memory_bytes\":2097152"));
    free(out);
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
    assert_int_equal(system(cmd), 0);
    snprintf(b, sizeof b, "%s/six-refused.sztb", dir);
    assert_int_equal(tu_run(&out, 1, "tablebase build --seeds 12 --memory-mb 1 --out '%s'", b), 2);
    assert_non_null(strstr(out, "--memory-mb 1: too little"));
    assert_non_null(strstr(out, "needs --memory-mb 2 or more"));
    free(out);
    assert_int_equal(access(b, F_OK), -1);
    /* A build stopped by SIGTERM leaves no temporary file (an on-disk one is as big as the table): the
     * signal is sent once the temporary file exists, while 22 seeds take minutes to build. */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && ('%s' tablebase build --seeds 22 --threads 2 --on-disk --out big.sztb 2>/dev/null & "
             "pid=$!; for i in $(seq 200); do ls big.sztb.*.tmp >/dev/null 2>&1 && break; sleep 0.05; done; "
             "kill -TERM $pid; wait $pid; test $? -eq 143) && ! ls big.sztb* >/dev/null 2>&1",
             dir, SOWZERO_BIN);
    assert_int_equal(system(cmd), 0);
}

static void test_cli(void **state)
{
    (void)state;
    const char *dir = fresh_dir("tb-cli");
    char *out = NULL, file[1024], theirs[1100];
    snprintf(file, sizeof file, "%s/k43.sztb", dir);
    /* a file beside the output under a temporary-looking name is not the build's: it stays as it was */
    snprintf(theirs, sizeof theirs, "%s.tmp", file);
    tu_write_text(theirs, "precious");
    assert_int_equal(tu_run(&out, 1, "tablebase build --rules kalah:pits=4,seeds=3 --seeds 14 --threads 2 "
                                     "--out '%s' --json", file), 0);
    assert_non_null(strstr(out, "\"seeds\":14"));
    free(out);
    out = tu_read_text(theirs);
    assert_string_equal(out, "precious");
    free(out);
    assert_int_equal(tu_temp_files(file), 0);
    assert_int_equal(tu_run(NULL, 1, "tablebase build --rules kalah:pits=4,seeds=3 --seeds 14 --out '%s'", file), 2);
    assert_int_equal(tu_run(&out, 1, "tablebase info '%s' --json", file), 0);
    assert_non_null(strstr(out, "\"entries\":319770"));
    free(out);
    assert_int_equal(tu_run(NULL, 1, "tablebase build --rules kalah:pits=4,seeds=3,max_sows=40 --seeds 8 "
                                     "--out '%s/x'", dir), 2);
    assert_int_equal(tu_run(NULL, 1, "tablebase build --seeds 8 --out '%s'", dir), 2); /* a directory */
    char fifo[1100], cmd[1200];
    snprintf(fifo, sizeof fifo, "%s/a-fifo", dir);
    snprintf(cmd, sizeof cmd, "mkfifo '%s'", fifo);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(tu_run(&out, 1, "tablebase build --seeds 8 --force --out '%s'", fifo), 2);
    assert_non_null(strstr(out, "not a regular file")); /* --force never replaces a device or a FIFO */
    free(out);
    struct stat st;
    assert_int_equal(stat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    /* a symbolic link to nothing is there too: refused, and left as it was */
    char link[1100];
    snprintf(link, sizeof link, "%s/dangling", dir);
    assert_int_equal(symlink("/nonexistent/sowzero-target", link), 0);
    assert_int_equal(tu_run(&out, 1, "tablebase build --seeds 8 --force --out '%s'", link), 2);
    assert_non_null(strstr(out, "a symbolic link to nothing"));
    free(out);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    unlink(fifo);
    /* another database's standard name: solves would find it for that one and refuse it */
    assert_int_equal(tu_run(&out, 1, "tablebase build --rules kalah:pits=3,seeds=3 --seeds 5 --out "
                                     "'%s/kalah-pits3-capture_opposite-end_either-empty-tb6.sztb'", dir), 2);
    assert_non_null(strstr(out, "the standard name of another database"));
    free(out);
    assert_int_equal(tu_run(NULL, 1, "tablebase frobnicate"), 2);
    assert_int_equal(tu_run(&out, 1, "tablebase build --rules kalah:seeds=6 --seeds 60 --out '%s/huge'", dir), 2);
    assert_non_null(strstr(out, "would exceed 1 TiB")); /* C(72, 12) entries: refused before anything */
    free(out);
    const char *pos = "3,3,3,3,0,3,3,3,3,0 S";
    char *plain = NULL, *with = NULL;
    assert_int_equal(tu_run(&plain, 0, "solve --rules kalah:pits=4,seeds=3 --position '%s' --endgame 0 --json",
                            pos), 0);
    setenv("SOWZERO_TABLEBASE", file, 1); /* a file by its own name: named explicitly */
    assert_int_equal(tu_run(&with, 0, "solve --rules kalah:pits=4,seeds=3 --position '%s' --endgame 12 --json",
                            pos), 0);
    assert_non_null(strstr(with, "k43.sztb"));
    assert_non_null(strstr(plain, "\"value\":6,"));
    assert_non_null(strstr(with, "\"value\":6,"));
    assert_non_null(strstr(plain, "\"best\":[\"b\"]"));
    assert_non_null(strstr(with, "\"best\":[\"b\"]"));
    free(plain);
    free(with);
    /* A damaged file is refused by solve (exit 2), and list says so. */
    flip(file, EG_FILE_HEADER + 11, 4);
    assert_int_equal(tu_run(&out, 1, "solve --rules kalah:pits=4,seeds=3 --endgame 12"), 2);
    assert_non_null(strstr(out, "checksum mismatch"));
    free(out);
    assert_int_equal(tu_run(NULL, 1, "tablebase list"), 2);
    /* So is it by the solver agent: a size the spec names at its creation, before any game; the default
     * size at its first move (the position caps it); either way exit 2, as for a bad spec. */
    assert_int_equal(tu_run(&out, 1, "move solver:endgame=12 --rules kalah:pits=4,seeds=3 --position '%s'", pos), 2);
    assert_non_null(strstr(out, "checksum mismatch"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "move solver --rules kalah:pits=4,seeds=3 --position '%s'", pos), 2);
    assert_non_null(strstr(out, "checksum mismatch"));
    free(out);
    assert_int_equal(tu_run(&out, 1, "match solver:endgame=12 random --rules kalah:pits=4,seeds=3 --games 2 "
                                     "--threads 1"), 2);
    assert_non_null(strstr(out, "checksum mismatch"));
    assert_null(strstr(out, "group 1")); /* refused with the spec, not in a game */
    free(out);
    assert_int_equal(tu_run(&out, 1, "match random solver --rules kalah:pits=4,seeds=3 --games 2 --threads 1"), 2);
    assert_non_null(strstr(out, "checksum mismatch"));
    free(out);
    /* A build killed outright leaves its temporary file: list names it while its process is gone, and
     * not while the process (here this one) may still be writing it. */
    const char *left = fresh_dir("tb-left");
    char gone[1100], mine[1100];
    snprintf(gone, sizeof gone, "%s/kalah-6-4.sztb.999999999.tmp", left);
    snprintf(mine, sizeof mine, "%s/kalah-6-5.sztb.%ld.tmp", left, (long)getpid());
    for (const char *f = gone; f; f = f == gone ? mine : NULL) {
        FILE *fp = fopen(f, "w");
        assert_non_null(fp);
        fclose(fp);
    }
    setenv("SOWZERO_TABLEBASE", left, 1);
    assert_int_equal(tu_run(&out, 1, "tablebase list --json"), 0);
    assert_non_null(strstr(out, "\"leftovers\":[\""));
    assert_non_null(strstr(out, "kalah-6-4.sztb.999999999.tmp"));
    assert_null(strstr(out, "kalah-6-5.sztb."));
    free(out);
    assert_int_equal(tu_run(&out, 1, "tablebase list"), 0);
    assert_non_null(strstr(out, "did not finish"));
    free(out);
    unsetenv("SOWZERO_TABLEBASE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_damage_refused),
        cmocka_unit_test(test_build_on_disk),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
