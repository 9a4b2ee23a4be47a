/* sowzero tablebase — build, inspect and list the endgame tablebase files (eval/endgame.h) that the
 * solver, the solver agent and az tb=N map instead of building the database in every process. */
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/cmd_tablebase.h"
#include "eval/endgame.h"

#define CMD "tablebase"

static void help(void)
{
    puts("usage: sowzero tablebase build [--rules SPEC] --seeds N [--out FILE] [--threads N] [--force]\n"
         "                             [--on-disk] [--memory-mb N] [--[no-]progress] [--json]\n"
         "       sowzero tablebase info FILE [--json]\n"
         "       sowzero tablebase list [--json]\n"
         "The endgame tablebase of a Kalah board: the exact final margin of every position with at most N\n"
         "seeds in the pits (design.md, the solver). Built once and written to a file that every later\n"
         "process loads (verified) instead of building it again: `solve`, the `solver` agent, `az:...,tb=N`\n"
         "(match, tournament, accuracy, move, play, serve) and `positions --solve` look for a file of their\n"
         "board with at least the seeds they need, and use the smallest one found.\n"
         "Where files are looked for: $SOWZERO_TABLEBASE when it names a file (only that file) or a folder;\n"
         "else $XDG_CACHE_HOME/sowzero, else ~/.cache/sowzero. A damaged file, or one for another board, is\n"
         "refused with a message naming it (delete it and build it again).\n"
         "  build            build the database with --threads threads and write it (to --out, else into the\n"
         "                   folder above under its standard name); the values depend only on the pits per\n"
         "                   side and the capture and end rules, so one file serves every seeds= of a board\n"
         "  --rules SPEC     Kalah rules (default kalah: 6 pits); max_sows must be 0\n"
         "  --seeds N        every arrangement of at most N seeds in the pits, 1..127 (capped at the rules'\n"
         "                   total); C(N + 2 pits, 2 pits) bytes: 6 pits, N = 16: 30 MB, 20: 226 MB, 24: 1.25 GB\n"
         "  --out FILE       the file to write (default: the folder above, created if needed)\n"
         "  --threads N      build threads, 1..64 (default: every core)\n"
         "  --force          write over an existing file (otherwise an existing one is kept: exit 2)\n"
         "  --on-disk        build in the file itself rather than in memory and then write it; the default\n"
         "                   for a table bigger than the memory allowed (--memory-mb). A table that fits is\n"
         "                   built in a shared mapping of the file, as fast as in memory; a bigger one layer\n"
         "                   by layer (one seed count at a time, the finished layers read back in blocks), so\n"
         "                   it may be several times the memory if its largest layer fits (6 pits: 3/8 of a\n"
         "                   20-seed table); each block costs another pass over the layer (docs/tablebase.md).\n"
         "                   The disk needs the file's size free\n"
         "  --memory-mb N    memory the build may use for the values, MiB (default: three quarters of this\n"
         "                   machine's memory, or of its cgroup's limit when lower)\n"
         "  info FILE        verify FILE (every byte against its checksum) and print its header\n"
         "  list             every tablebase file in the folder above, verified, and the temporary files\n"
         "                   left by builds that did not finish (killed outright), to delete\n"
         "  --json           one JSON object\n"
         "Exit status: 0, 1 runtime failure (memory, disk), 2 bad input (usage, rules, a damaged file).");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The elapsed-time line on stderr while a build runs (the build has no finer progress to report). */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    double t0;
    const char *what;
} ticker;

static void *ticker_main(void *arg)
{
    ticker *t = arg;
    pthread_mutex_lock(&t->mu);
    while (!t->done) {
        fprintf(stderr, "\r%s: %s... %.0f s ", CMD, t->what, now_s() - t->t0);
        fflush(stderr);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&t->cv, &t->mu, &until);
    }
    fprintf(stderr, "\r%70s\r", "");
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

static cJSON *describe(const eg_db *db, const char *path)
{
    char rules[128];
    kalah_rules_format(eg_rules(db), rules, sizeof rules);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", path);
    cJSON_AddStringToObject(o, "rules", rules);
    cJSON_AddNumberToObject(o, "pits", eg_rules(db)->pits);
    cJSON_AddNumberToObject(o, "seeds", eg_max_seeds(db));
    cJSON_AddNumberToObject(o, "entries", (double)eg_bytes(db));
    cJSON_AddNumberToObject(o, "bytes", (double)(eg_bytes(db) + EG_FILE_HEADER));
    return o;
}

static void print_text(const eg_db *db, const char *path)
{
    char rules[128];
    kalah_rules_format(eg_rules(db), rules, sizeof rules);
    printf("%s\n  rules %s (serves every seeds= of this board)\n  seeds %d\n  entries %zu (%.1f MB), checksum "
           "verified\n", path, rules, eg_max_seeds(db), eg_bytes(db), 1e-6 * (double)eg_bytes(db));
}

int cmd_tablebase_build(int argc, char **argv);

/* A build ended by a signal whose default action ends the process (an interrupt, a closed terminal, a
 * file-size limit, ...) removes its temporary file (eg_save and eg_build_file write path.PID.tmp, then
 * rename it): an on-disk build's is as big as the table. */
static char interrupted_tmp[PATH_MAX + 32];
static const int ending_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1,
                                     SIGUSR2, SIGALRM, SIGXFSZ, SIGXCPU, SIGPIPE};
#define N_ENDING ((int)(sizeof ending_signals / sizeof ending_signals[0]))

static void remove_tmp_and_die(int sig)
{
    static const char said[] = "sowzero tablebase: build stopped by a signal (a file-size or CPU-time limit, an "
                               "interrupt, ...); its temporary file was removed\n";
    unlink(interrupted_tmp); /* async-signal-safe, as are write, signal and raise */
    if (write(STDERR_FILENO, said, sizeof said - 1) < 0) {
        /* nothing more can be done about stderr here */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static int cmd_info(const char *path, int json)
{
    char err[KALAH_ERRLEN];
    eg_db *db = eg_open(path, err);
    if (!db) {
        cli_error(CMD, "%s", err);
        return 2;
    }
    if (json)
        cli_print_json(describe(db, path));
    else
        print_text(db, path);
    eg_free(db);
    return 0;
}

/* Whether name is a build's temporary file (NAME.sztb.PID.tmp: eg_save, eg_build_file) whose process is
 * gone: a build killed outright (SIGKILL, the OOM killer, a crash) leaves one as big as its table. */
static int leftover_tmp(const char *name)
{
    const char *tail = strstr(name, ".sztb.");
    if (!tail)
        return 0;
    char *end;
    const long pid = strtol(tail + 6, &end, 10);
    return pid > 0 && !strcmp(end, ".tmp") && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static int cmd_list(int json)
{
    char dir[PATH_MAX - 300];
    if (eg_cache_dir(dir, sizeof dir) != 0) {
        cli_error(CMD, "no tablebase folder: set SOWZERO_TABLEBASE, XDG_CACHE_HOME or HOME");
        return 2;
    }
    cJSON *o = cJSON_CreateObject(), *files = cJSON_AddArrayToObject(o, "files"),
          *leftovers = cJSON_AddArrayToObject(o, "leftovers");
    cJSON_AddStringToObject(o, "folder", dir);
    DIR *d = opendir(dir);
    int bad = 0;
    if (!json)
        printf("folder %s%s\n", dir, d ? "" : " (not there yet: sowzero tablebase build creates it)");
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        char path[PATH_MAX], err[KALAH_ERRLEN];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (leftover_tmp(e->d_name)) {
            if (json)
                cJSON_AddItemToArray(leftovers, cJSON_CreateString(path));
            else
                printf("%s\n  left by a build that did not finish (its process is gone): delete it\n", path);
            continue;
        }
        if (len < 6 || strcmp(e->d_name + len - 5, ".sztb") != 0)
            continue;
        eg_db *db = eg_open(path, err);
        if (!db) {
            bad = 1;
            if (json) {
                cJSON *f = cJSON_CreateObject();
                cJSON_AddStringToObject(f, "file", path);
                cJSON_AddStringToObject(f, "error", err);
                cJSON_AddItemToArray(files, f);
            } else
                printf("%s\n  refused: %s\n", path, err);
            continue;
        }
        if (json)
            cJSON_AddItemToArray(files, describe(db, path));
        else
            print_text(db, path);
        eg_free(db);
    }
    if (d)
        closedir(d);
    if (json)
        cli_print_json(o);
    else
        cJSON_Delete(o);
    return bad ? 2 : 0;
}

int cmd_tablebase(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "build"))
        return cmd_tablebase_build(argc - 1, argv + 1);
    int json = 0;
    const char *what = argc >= 2 ? argv[1] : NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help();
            return 0;
        }
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (i >= 2 && argv[i][0] != '-' && !file)
            file = argv[i];
        else if (i >= 2) {
            cli_error(CMD, "unexpected argument '%s'", argv[i]);
            return cli_usage_error(CMD);
        }
    }
    if (what && !strcmp(what, "info")) {
        if (!file) {
            cli_error(CMD, "info: name the FILE to check");
            return cli_usage_error(CMD);
        }
        return cmd_info(file, json);
    }
    if (what && !strcmp(what, "list")) {
        if (file) {
            cli_error(CMD, "list: unexpected argument '%s'", file);
            return cli_usage_error(CMD);
        }
        return cmd_list(json);
    }
    cli_error(CMD, what ? "unknown subcommand '%s' (build, info or list)" : "name a subcommand: build, info or list",
              what);
    return cli_usage_error(CMD);
}

/* Creates dir and its parents (mode 0755); 0, or -1 with errno. */
int cli_tablebase_default_path(const kalah_rules *r, int seeds, char *path, size_t n, int create_dir)
{
    char err[KALAH_ERRLEN];
    if (eg_default_path(r, seeds, path, n, create_dir, err) != 0) {
        cli_error(CMD, "%s", err);
        return -1;
    }
    return 0;
}

int cmd_tablebase_build(int argc, char **argv)
{
    static const struct option opts[] = {{"rules", required_argument, 0, 'r'},
                                         {"seeds", required_argument, 0, 's'},
                                         {"out", required_argument, 0, 'o'},
                                         {"threads", required_argument, 0, 'T'},
                                         {"force", no_argument, 0, 'f'},
                                         {"on-disk", no_argument, 0, 'D'},
                                         {"memory-mb", required_argument, 0, 'M'},
                                         {"json", no_argument, 0, 'j'},
                                         {"progress", no_argument, 0, 'P'},
                                         {"no-progress", no_argument, 0, 'Q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *rules_spec = NULL, *out = NULL;
    long seeds = 0, threads = sysconf(_SC_NPROCESSORS_ONLN), memory_mb = 0;
    int json = 0, force = 0, on_disk = 0, show = isatty(STDERR_FILENO), c;
    if (threads < 1 || threads > 64)
        threads = threads < 1 ? 1 : 64;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rules_spec = optarg; break;
        case 's':
            if (!cli_long(CMD, "--seeds", optarg, 1, 127, &seeds))
                return 2;
            break;
        case 'o': out = optarg; break;
        case 'T':
            if (!cli_long(CMD, "--threads", optarg, 1, 64, &threads))
                return 2;
            break;
        case 'f': force = 1; break;
        case 'D': on_disk = 1; break;
        case 'M':
            if (!cli_long(CMD, "--memory-mb", optarg, 1, 1L << 30, &memory_mb))
                return 2;
            break;
        case 'j': json = 1; break;
        case 'P': show = 1; break;
        case 'Q': show = 0; break;
        case 'h': help(); return 0;
        default: return cli_usage_error(CMD);
        }
    }
    if (optind != argc) {
        cli_error(CMD, "build: unexpected argument '%s'", argv[optind]);
        return cli_usage_error(CMD);
    }
    if (!seeds) {
        cli_error(CMD, "build: --seeds N is required (1..127: every arrangement of at most N seeds in the pits)");
        return cli_usage_error(CMD);
    }
    kalah_rules r;
    kalah_pos p;
    if (!cli_setup(CMD, rules_spec, NULL, &r, &p))
        return 2;
    if (r.max_sows > 0) {
        cli_error(CMD, "--rules: max_sows=%d: no tablebase with a sow limit (the value then depends on the sow "
                  "count)", r.max_sows);
        return 2;
    }
    int n = (int)seeds < 2 * r.pits * r.seeds ? (int)seeds : 2 * r.pits * r.seeds;
    char path[PATH_MAX];
    if (out) {
        if (!*out) {
            cli_error(CMD, "--out: empty path");
            return 2;
        }
        snprintf(path, sizeof path, "%s", out);
        /* A standard name is how solves find a file: under another database's name this one would be
         * found for that database and refused there instead of that one being built. */
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        char own[192];
        eg_file_name(&r, n, own, sizeof own);
        const char *tb = strstr(base, "-tb");
        if (tb && !strncmp(base, "kalah-", 6) && strlen(base) > 5 && !strcmp(base + strlen(base) - 5, ".sztb") &&
            strcmp(base, own)) {
            cli_error(CMD, "--out %s: the standard name of another database (this one's is %s); name it so, or "
                      "give a name that is not kalah-...-tbN.sztb", path, own);
            return 2;
        }
    } else if (cli_tablebase_default_path(&r, n, path, sizeof path, 1) != 0)
        return 2;
    struct stat st;
    /* a dangling symbolic link counts as there: the renamed file would replace it */
    if (stat(path, &st) == 0 || (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))) {
        if (!S_ISREG(st.st_mode)) { /* a device or a FIFO would be replaced by the renamed file */
            cli_error(CMD, "--out %s: %s", path,
                      S_ISDIR(st.st_mode)   ? "is a directory"
                      : S_ISLNK(st.st_mode) ? "a symbolic link to nothing"
                                            : "not a regular file");
            return 2;
        }
        if (!force) {
            cli_error(CMD, "%s exists (check it with: sowzero tablebase info %s; --force builds it again)", path,
                      path);
            return 2;
        }
    }
    /* The output folder must be writable before minutes of building. */
    /* The probe is the build's own temporary name (PATH.PID.tmp, eval/endgame_file.c), created only when
     * no file has it: another file beside PATH is never opened, let alone truncated. */
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    int probe = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (probe < 0) {
        cli_error(CMD, "%s: cannot write there: %s: %s", path, tmp, strerror(errno));
        return 2;
    }
    close(probe);
    unlink(tmp);

    char err[KALAH_ERRLEN];
    if (eg_entries(r.pits, n) > EG_MAX_BYTES) {
        cli_error(CMD, "--seeds %d: the table of %d pits would exceed 1 TiB; use fewer seeds", n, r.pits);
        return 2;
    }
    const uint64_t memory = memory_mb ? (uint64_t)memory_mb << 20 : eg_memory_budget();
    on_disk = on_disk || eg_entries(r.pits, n) > memory || eg_entries(r.pits, n) > eg_memory_budget();
    if (memory_mb && eg_entries(r.pits, n) > memory && memory < eg_layered_floor(r.pits, n)) {
        cli_error(CMD, "--memory-mb %ld: too little to build %d seeds of %d pits (a table of %.1f MB) layer by "
                  "layer, which needs --memory-mb %llu or more (its largest layer and a block of the others)",
                  memory_mb, n, r.pits, 1e-6 * (double)eg_entries(r.pits, n),
                  (unsigned long long)((eg_layered_floor(r.pits, n) + (1 << 20) - 1) >> 20));
        return 2;
    }
    snprintf(interrupted_tmp, sizeof interrupted_tmp, "%s.%ld.tmp", path, (long)getpid());
    for (int i = 0; i < N_ENDING; i++)
        signal(ending_signals[i], remove_tmp_and_die);
    ticker t = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, now_s(),
                on_disk ? "building the database on disk" : "building the database"};
    pthread_t th;
    show = show && pthread_create(&th, NULL, ticker_main, &t) == 0;
    double t0 = now_s(), build_s, write_s = 0;
    eg_db *db;
    int saved = 0;
    if (on_disk) { /* written as it is built: the write time is inside the build's */
        db = eg_build_file(&r, n, (int)threads, memory, path, err);
        build_s = now_s() - t0;
    } else {
        db = eg_create(&r, n, (int)threads, err);
        build_s = now_s() - t0;
        if (db) {
            t.what = "writing the file";
            t0 = now_s();
        }
        saved = db ? eg_save(db, path, err) : -1;
        write_s = now_s() - t0;
    }
    for (int i = 0; i < N_ENDING; i++)
        signal(ending_signals[i], SIG_DFL);
    if (show) {
        pthread_mutex_lock(&t.mu);
        t.done = 1;
        pthread_cond_signal(&t.cv);
        pthread_mutex_unlock(&t.mu);
        pthread_join(th, NULL);
    }
    if (!db || saved != 0) {
        cli_error(CMD, "%s", err);
        eg_free(db);
        return 1;
    }
    if (json) {
        cJSON *o = describe(db, path);
        cJSON_AddNumberToObject(o, "threads", (double)threads);
        cJSON_AddBoolToObject(o, "on_disk", on_disk);
        /* memory: built in memory, then written; mapped: in a shared mapping of the file; layered: a layer
         * at a time (the table bigger than the memory allowed, eg_build_file) */
        cJSON_AddStringToObject(o, "method", !on_disk ? "memory" : eg_bytes(db) > memory ? "layered" : "mapped");
        cJSON_AddNumberToObject(o, "memory_bytes", (double)memory);
        cJSON_AddNumberToObject(o, "build_seconds", build_s);
        cJSON_AddNumberToObject(o, "write_seconds", write_s);
        cli_print_json(o);
    } else {
        print_text(db, path);
        if (on_disk)
            printf("  built on disk in %.1f s on %ld %s\n", build_s, threads, cli_threads(threads));
        else
            printf("  built in %.1f s on %ld %s, written in %.1f s\n", build_s, threads, cli_threads(threads), write_s);
    }
    eg_free(db);
    return 0;
}
