/* sowzero solve — the exact value of a position under perfect play and every move reaching it
 * (docs/design.md §3.5, §4; eval/alphabeta.h). */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "env/game.h"
#include "cli/cmd_tablebase.h"
#include "cli/output_path.h"
#include "cli/solve_book.h"
#include "eval/alphabeta.h"
#include "eval/endgame.h"
#include "eval/game_search.h"

#define CMD "solve"

/* What a solve found, as `solve` prints it (Kalah's path and the generic one). */
typedef struct {
    int value;              /* final margin for the player to move */
    unsigned best_mask;     /* every optimal relative pit */
    int side, pits;         /* side to move (letters a.. or A..), pits per side */
    uint64_t nodes;
    double seconds;
    const char *rules, *position;
    int over;               /* the position was already finished */
    int endgame;            /* Kalah: the endgame database's seeds (0: none) */
    double endgame_seconds; /* Kalah's JSON key endgame_seconds; < 0: the key is left out */
    const char *tablebase;  /* Kalah: the tablebase file mapped or written, NULL if none */
    int tablebase_built;    /* it was built by this solve (and written when tablebase is set) */
    int have_moves;         /* --moves: move_value holds every legal move's exact value */
    int move_value[KALAH_MAX_PITS]; /* AB_NO_VALUE for an illegal move */
} solve_report;

/* Prints the report (one cJSON object with json, else text lines). Returns the exit status. */
static int solve_print(const solve_report *r, int json)
{
    const char *who = r->side ? "North" : "South";
    char best[3 * KALAH_MAX_PITS + 1] = "";
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "value", r->value);
        cJSON *arr = cJSON_AddArrayToObject(o, "best");
        for (int k = 0; k < r->pits; k++)
            if (r->best_mask >> k & 1) {
                char l[2] = {kalah_move_letter(r->side, k), 0};
                cJSON_AddItemToArray(arr, cJSON_CreateString(l));
            }
        if (r->have_moves) {
            cJSON *mv = cJSON_AddObjectToObject(o, "moves");
            for (int k = 0; k < r->pits; k++)
                if (r->move_value[k] != AB_NO_VALUE) {
                    char l[2] = {kalah_move_letter(r->side, k), 0};
                    cJSON_AddNumberToObject(mv, l, r->move_value[k]);
                }
        }
        cJSON_AddNumberToObject(o, "nodes", (double)r->nodes);
        cJSON_AddNumberToObject(o, "seconds", r->seconds);
        cJSON_AddStringToObject(o, "rules", r->rules);
        cJSON_AddStringToObject(o, "position", r->position);
        cJSON_AddBoolToObject(o, "over", r->over);
        if (r->endgame_seconds >= 0) {
            cJSON_AddNumberToObject(o, "endgame_seconds", r->endgame_seconds);
            cJSON_AddNumberToObject(o, "endgame_seeds", r->endgame);
            if (r->tablebase)
                cJSON_AddStringToObject(o, "tablebase", r->tablebase);
            else
                cJSON_AddNullToObject(o, "tablebase");
        }
        return cli_print_json(o);
    }
    for (int k = 0; k < r->pits; k++)
        if (r->best_mask >> k & 1) {
            size_t n = strlen(best);
            snprintf(best + n, sizeof best - n, "%s%c", n ? " " : "", kalah_move_letter(r->side, k));
        }
    printf("rules %s\nposition %s\n", r->rules, r->position);
    if (r->over)
        printf("the game is over: final margin %+d for %s\n", r->value, who);
    else
        printf("value %+d for %s (final margin under perfect play)\nbest %s\n", r->value, who, best);
    if (r->have_moves) {
        printf("moves");
        for (int k = 0; k < r->pits; k++)
            if (r->move_value[k] != AB_NO_VALUE)
                printf(" %c %+d", kalah_move_letter(r->side, k), r->move_value[k]);
        printf("\n");
    }
    printf("nodes %llu\nseconds %.3f\n", (unsigned long long)r->nodes, r->seconds);
    if (r->endgame && r->tablebase_built)
        printf("endgame database (%d seeds) built in %.3f s%s%s\n", r->endgame, r->endgame_seconds,
               r->tablebase ? ", written to " : "", r->tablebase ? r->tablebase : "");
    else if (r->endgame)
        printf("endgame database (%d seeds) mapped from %s in %.3f s\n", r->endgame, r->tablebase,
               r->endgame_seconds);
    return 0;
}

/* The generic solve's progress line on stderr, "solve: searching... T s, N nodes", drawn by the solver's
 * own thread through gs_solver_set_progress every GS_PROGRESS_EVERY positions (a few times a second at
 * this solver's 2-4 M positions/s), so that a solve of minutes shows it is alive and how far it got. */
#define GS_PROGRESS_EVERY (1u << 20)

typedef struct {
    struct timespec t0;
} gs_progress;

static void gs_progress_draw(void *ctx, uint64_t nodes)
{
    const gs_progress *g = ctx;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    fprintf(stderr, "\rsolve: searching... %ld s, %.1f M nodes ", (long)(now.tv_sec - g->t0.tv_sec), 1e-6 * (double)nodes);
    fflush(stderr);
}

/* Every registered two-player game with a margin other than Kalah (whose fast path is below): the one
 * exact solver of the game interface (eval/game_search.h, gs_solver), after `sows` plies already played
 * (they count towards the kind's ply limit, max_sows); `show`: the progress line. Returns the exit
 * status: 2 for a bad spec or position, rules the solver cannot solve (gs_solvable: not two players, no
 * margin, Oware with max_sows=0), or --sows past the limit; 1 when the solve fails. */
static int solve_game(const char *spec, const char *pos_text, long tt_mb, long sows, int show, int json)
{
    char err[GAME_ERRLEN], pbuf[GAME_POS_STR];
    game *g = game_create(spec, err);
    if (!g) {
        cli_error(CMD, "--rules '%s': %s", spec, err);
        return 2;
    }
    game_pos p;
    int rc = 2;
    gs_solver *s = NULL;
    if (!pos_text)
        game_start(g, &p);
    else if (game_pos_parse(g, pos_text, &p, err) != GAME_OK) {
        cli_error(CMD, "--position '%s': %s", pos_text, err);
        goto out;
    }
    if (gs_solvable(g, err) != GAME_OK) { /* err names the rules */
        cli_error(CMD, "--rules: %s", err);
        goto out;
    }
    game_solve_props props;
    game_solve_properties(g, &props);
    if (props.ply_limit > 0 && sows >= props.ply_limit && !p.over) {
        cli_error(CMD, "--sows %ld: with max_sows=%d the game ended at ply %d, yet the position is not finished",
                  sows, props.ply_limit, props.ply_limit);
        goto out;
    }
    p.ply = (uint16_t)sows;
    rc = 1;
    if (!(s = gs_solver_create(g, (size_t)tt_mb, err))) {
        cli_error(CMD, "%s", err);
        goto out;
    }
    gs_progress prog;
    clock_gettime(CLOCK_MONOTONIC, &prog.t0);
    if (show) {
        gs_solver_set_progress(s, GS_PROGRESS_EVERY, gs_progress_draw, &prog);
        gs_progress_draw(&prog, 0);
    }
    gs_solution res;
    int src = gs_solver_run(s, &p, 0, &res, err);
    if (show)
        fprintf(stderr, "\r%60s\r", "");
    if (src != GAME_OK && src != GAME_EOVER) {
        cli_error(CMD, "%s", err);
        goto out;
    }
    game_pos_format(g, &p, pbuf, sizeof pbuf);
    solve_report rep = {.value = res.value, .best_mask = res.best_mask, .side = p.to_move, .pits = game_moves(g),
                        .nodes = res.nodes, .seconds = res.seconds, .rules = game_spec(g), .position = pbuf,
                        .over = src == GAME_EOVER, .endgame_seconds = -1};
    rc = solve_print(&rep, json);
out:
    gs_solver_free(s);
    game_free(g);
    return rc;
}

/* A database built by solve is written for the next one when it has at least this many entries (below,
 * building it takes about as long as mapping it). */
#define SAVE_ENTRIES (1u << 24)
#define DEFAULT_MAX_ENTRIES (1ull << 28)

/* The default database: none for a position with at most DEFAULT_MIN_SEEDS seeds in its pits (its search
 * takes seconds at most, less than building one); else as many seeds as p has in its pits, at most the
 * largest N whose C(N + 2 pits, 2 pits) entries stay within DEFAULT_MAX_ENTRIES (6 pits: 20). */
#define DEFAULT_MIN_SEEDS 30
static int default_endgame_seeds(const kalah_rules *r, const kalah_pos *p)
{
    int in_pits = 0, cells = 2 * r->pits;
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < r->pits; k++)
            in_pits += p->cell[kalah_pit_index(r, side, k)];
    int best = 0;
    if (in_pits <= DEFAULT_MIN_SEEDS)
        return 0;
    for (int n = 1; n <= in_pits && n <= 127; n++) {
        double c = 1; /* C(n + cells, cells) */
        for (int i = 1; i <= cells; i++)
            c = c * (double)(n + i) / (double)i;
        if (c > (double)DEFAULT_MAX_ENTRIES)
            break;
        best = n;
    }
    return best;
}

static void help(void)
{
    puts("usage: sowzero solve [--rules SPEC] [--position POS] [--tt-mb N] [--endgame N] [--no-save]\n"
         "                     [--threads N] [--sows N] [--moves] [--[no-]progress] [--json]\n"
         "       sowzero solve --fair-book K [--within W] --out FILE [--rules SPEC] [--position POS] [...]\n"
         "Searches to the end of the game (MTD(f) null-window alpha-beta with a transposition table) and\n"
         "prints the final margin under perfect play for the player to move (own store - opponent's store)\n"
         "and every move that achieves it. A position that is already over prints its final margin and no\n"
         "moves (best = []).\n"
         "  --rules SPEC     rules, e.g. kalah:pits=4,seeds=3,capture=always (default: kalah, or the pits and\n"
         "                   seeds the position implies); every other two-player game (congklak:...,\n"
         "                   oware:...) by the exact solver of the game interface (eval/game_search.h: no\n"
         "                   --endgame; Oware needs max_sows > 0, its positions can repeat, and its solve\n"
         "                   grows fast with max_sows: even oware:pits=4,seeds=2 takes minutes at the default\n"
         "                   300 and seconds at max_sows=60)\n"
         "  --position POS   position string (default: the start position)\n"
         "  --tt-mb N        transposition table size in MiB, 1..65536 (default 256)\n"
         "  --endgame N      use an endgame tablebase of every arrangement of at most N seeds in the pits\n"
         "                   (0 = none; needs max_sows=0; default: none for a position with at most 30 seeds\n"
         "                   in its pits, else as many seeds as it has there, at most 20 on 6 pits (226 MB),\n"
         "                   268 M entries on any board). A tablebase\n"
         "                   file with at least N seeds is mapped when one is found (sowzero tablebase\n"
         "                   --help: $SOWZERO_TABLEBASE, else ~/.cache/sowzero); otherwise it is built, and a\n"
         "                   build of 16 M entries or more is written there for the next solve\n"
         "  --no-save        never write the tablebase file this solve builds\n"
         "  --moves          Kalah: also the exact value of every legal move (each child solved in turn, on\n"
         "                   the same table), as \"moves\" {letter: value} with --json\n"
         "  --threads N      Kalah: threads for building the endgame database and for the search (Lazy\n"
         "                   SMP on the shared table: the same value and best moves, node counts vary from\n"
         "                   run to run; default: every core); the other games' solver runs on one thread\n"
         "                   and refuses N > 1\n"
         "  --sows N         sowings already played before POS (only matters with max_sows; default 0)\n"
         "  --progress       show the phase and the time spent on stderr (the other games: the positions\n"
         "                   searched so far too), the default when stderr is a terminal: a long solve is\n"
         "                   not silent for minutes; --no-progress: never\n"
         "  --fair-book K    Kalah: write an opening book (docs/records.md, \"Opening books\") of every distinct\n"
         "                   unfinished position reached by 1..K sowings (1..5; an extra turn's sowing counts)\n"
         "                   from POS whose exact value is within -W..+W seeds, as move lists (the first\n"
         "                   shortest one to each), the exact final margin for South after '#'; every\n"
         "                   position solved on one table (--tt-mb, --threads, --endgame as for one solve).\n"
         "                   --json: {\"out\",\"rules\",\"sows\",\"within\",\"positions\",\"kept\",\"nodes\",\"seconds\"}\n"
         "  --within W       the fair band of --fair-book, 0..255 seeds (default 2)\n"
         "  --out FILE       the book --fair-book writes (a temporary file renamed at the end)\n"
         "  --json           print {\"value\",\"best\":[letters],\"nodes\",\"seconds\",\"rules\",\"position\",\n"
         "                   \"over\",\"endgame_seconds\",\"endgame_seeds\",\"tablebase\"} (seconds: the search;\n"
         "                   endgame_seconds: building or mapping the database; tablebase: its file or null)\n"
         "Kalah(6,4) from the start (+8): sowzero solve --threads 2 --tt-mb 2048 (the first time it also builds\n"
         "and writes the 20-seed tablebase, 226 MB).\n"
         "Exit status: 0, 1 runtime failure (memory, a failed search), 2 bad input (usage, rules, position,\n"
         "a game the solver cannot solve: more than two players, no margin, Oware with max_sows=0).");
}

/* The progress line: "solve: PHASE... N s" on stderr, drawn at each change of phase and redrawn every
 * second by a thread while the (single-threaded, uninterruptible) search runs, so that a solve of minutes
 * shows it is alive. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int show;
    int phase; /* 0 building the endgame database, 1 searching, 2 done */
    struct timespec t0;
} progress;

static void draw(const progress *g)
{
    static const char *const what[2] = {"building the endgame database", "searching"};
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    fprintf(stderr, "\rsolve: %s... %ld s ", what[g->phase], (long)(now.tv_sec - g->t0.tv_sec));
    fflush(stderr);
}

static void *progress_main(void *arg)
{
    progress *g = arg;
    pthread_mutex_lock(&g->mu);
    while (g->phase < 2) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&g->cv, &g->mu, &until);
        if (g->phase >= 0 && g->phase < 2)
            draw(g);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

static void progress_phase(progress *g, int phase)
{
    pthread_mutex_lock(&g->mu);
    g->phase = phase;
    if (g->show && phase < 2)
        draw(g);
    else if (g->show)
        fprintf(stderr, "\r%60s\r", "");
    pthread_cond_signal(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

int cmd_solve(int argc, char **argv)
{
    static const struct option opts[] = {{"rules", required_argument, 0, 'r'},
                                         {"position", required_argument, 0, 'p'},
                                         {"tt-mb", required_argument, 0, 't'},
                                         {"endgame", required_argument, 0, 'e'},
                                         {"threads", required_argument, 0, 'T'},
                                         {"sows", required_argument, 0, 's'},
                                         {"json", no_argument, 0, 'j'},
                                         {"progress", no_argument, 0, 'P'},
                                         {"no-progress", no_argument, 0, 'Q'},
                                         {"no-save", no_argument, 0, 'N'},
                                         {"moves", no_argument, 0, 'M'},
                                         {"fair-book", required_argument, 0, 'F'},
                                         {"within", required_argument, 0, 'W'},
                                         {"out", required_argument, 0, 'O'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *rules_spec = NULL, *pos_text = NULL;
    long tt_mb = 256, endgame = -1, threads = sysconf(_SC_NPROCESSORS_ONLN), sows = 0, book_sows = 0, within = -1;
    const char *out_path = NULL;
    int json = 0, c, show = isatty(STDERR_FILENO), save = 1, threads_given = 0, moves = 0;
    threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rules_spec = optarg; break;
        case 'p': pos_text = optarg; break;
        case 't':
            if (!cli_long(CMD, "--tt-mb", optarg, 1, 65536, &tt_mb))
                return 2;
            break;
        case 'e':
            if (!cli_long(CMD, "--endgame", optarg, 0, 127, &endgame))
                return 2;
            break;
        case 'T':
            if (!cli_long(CMD, "--threads", optarg, 1, 64, &threads))
                return 2;
            threads_given = 1;
            break;
        case 's':
            if (!cli_long(CMD, "--sows", optarg, 0, 65535, &sows))
                return 2;
            break;
        case 'j': json = 1; break;
        case 'P': show = 1; break;
        case 'Q': show = 0; break;
        case 'N': save = 0; break;
        case 'M': moves = 1; break;
        case 'F':
            if (!cli_long(CMD, "--fair-book", optarg, 1, 5, &book_sows))
                return 2;
            break;
        case 'W':
            if (!cli_long(CMD, "--within", optarg, 0, 255, &within))
                return 2;
            break;
        case 'O': out_path = optarg; break;
        case 'h': help(); return 0;
        default: return cli_usage_error(CMD);
        }
    }
    if (optind != argc) {
        cli_error(CMD, "unexpected argument '%s'", argv[optind]);
        return cli_usage_error(CMD);
    }
    if (!book_sows && (out_path || within >= 0)) {
        cli_error(CMD, "%s: only with --fair-book K", out_path ? "--out" : "--within");
        return 2;
    }
    if (book_sows && (!out_path || moves)) {
        cli_error(CMD, "--fair-book: %s", moves ? "not with --moves" : "needs --out FILE (the book to write)");
        return 2;
    }
    if (book_sows && !cli_output_check(CMD, "--out", out_path, CLI_OUT_REPLACE, NULL, 0))
        return 2;
    const void *kind = rules_spec ? game_kind_find(rules_spec) : NULL;
    if (kind && kind != &game_kind_kalah) { /* every other game: the game interface's solver */
        if (book_sows) {
            cli_error(CMD, "--fair-book: Kalah only (its solver and endgame database)");
            return 2;
        }
        if (endgame > 0) {
            cli_error(CMD, "--endgame: only Kalah has an endgame database");
            return 2;
        }
        if (threads_given && threads != 1) { /* the generic solver has one thread */
            cli_error(CMD, "--threads %ld: the %s solver runs on one thread (only Kalah's solver is parallel)",
                      threads, ((const game_kind *)kind)->name);
            return 2;
        }
        return solve_game(rules_spec, pos_text, tt_mb, sows, show, json);
    }
    kalah_rules r;
    kalah_pos p;
    if (!cli_setup(CMD, rules_spec, pos_text, &r, &p))
        return 2;
    if (r.max_sows > 0 && sows >= r.max_sows && !p.over) {
        cli_error(CMD, "--sows %ld: with max_sows=%d the game ended at sowing %d, yet the position is not "
                       "finished", sows, r.max_sows, r.max_sows);
        return 2;
    }
    p.sows = (uint16_t)sows;
    if (endgame > 0 && r.max_sows > 0) {
        cli_error(CMD, "--endgame: not available with max_sows=%d (the value then depends on the sow count)",
                  r.max_sows);
        return 2;
    }
    if (endgame < 0) /* the default: as many seeds as the position has, within 2^28 entries */
        endgame = r.max_sows > 0 ? 0 : default_endgame_seeds(&r, &p);

    char err[KALAH_ERRLEN], tb_path[4096] = "";
    ab_search *s = ab_create(&r, (size_t)tt_mb, err);
    if (!s) {
        cli_error(CMD, "%s", err);
        return 1;
    }
    ab_set_threads(s, (int)threads);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    progress g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, show, -1, t0};
    pthread_t th;
    show = show && pthread_create(&th, NULL, progress_main, &g) == 0;
    eg_db *db = NULL;
    int file = EG_FILE_NONE, eg_rc = 0, built = 0, n_db = 0;
    if (endgame > 0) {
        db = eg_find(&r, (int)endgame, tb_path, sizeof tb_path, &file, err);
        if (file == EG_FILE_NONE) {
            progress_phase(&g, 0);
            built = 1;
            if ((db = eg_create(&r, (int)endgame, (int)threads, err)) && save && eg_bytes(db) >= SAVE_ENTRIES &&
                cli_tablebase_default_path(&r, eg_max_seeds(db), tb_path, sizeof tb_path, 1) == 0 &&
                eg_save(db, tb_path, err) != 0) {
                cli_error(CMD, "could not keep the tablebase: %s", err); /* the solve goes on without it */
                tb_path[0] = 0;
            } else if (!db || !save || eg_bytes(db) < SAVE_ENTRIES) {
                tb_path[0] = 0;
            }
        }
        eg_rc = !db || ab_borrow_endgame(s, db, err) != AB_OK;
        n_db = db ? eg_max_seeds(db) : 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double db_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (book_sows && !eg_rc) { /* cli/solve_book.h: every position of 1..K sowings on this table */
        char *line = cli_command_line(argc, argv);
        solve_book_args ba = {(int)book_sows, within < 0 ? 2 : (int)within, out_path, line ? line : "sowzero solve"};
        progress_phase(&g, 2);
        if (show)
            pthread_join(th, NULL);
        int brc = p.over ? 2 : cli_solve_book(CMD, &r, &p, s, &ba, show, json);
        if (p.over)
            cli_error(CMD, "--fair-book: the position is already over");
        free(line);
        ab_free(s);
        eg_free(db);
        return brc;
    }
    ab_limits lim = {.exact = 1};
    ab_result res;
    int rc = AB_OK;
    if (!eg_rc) {
        progress_phase(&g, 1);
        rc = ab_think(s, &p, &lim, &res);
    }
    int move_value[KALAH_MAX_PITS];
    for (int k = 0; k < KALAH_MAX_PITS; k++)
        move_value[k] = AB_NO_VALUE;
    if (!eg_rc && rc == AB_OK && moves) {
        /* Each child solved exactly; the best ones first come straight from the table. */
        unsigned legal = kalah_legal(&r, &p);
        for (int k = 0; k < r.pits && rc == AB_OK; k++) {
            if (!(legal >> k & 1))
                continue;
            kalah_pos ch = p;
            kalah_sow(&r, &ch, k, NULL);
            ab_result cres;
            int crc = ab_think(s, &ch, &lim, &cres);
            if (crc == AB_EOVER || crc == AB_OK) {
                move_value[k] = ch.side == p.side ? cres.value : -cres.value;
                res.nodes += cres.nodes;
                res.seconds += cres.seconds;
            } else
                rc = crc;
        }
    }
    progress_phase(&g, 2);
    if (show)
        pthread_join(th, NULL);
    ab_free(s);
    eg_free(db);
    if (eg_rc) {
        cli_error(CMD, "--endgame %ld: %s", endgame, err);
        return file == EG_FILE_EBAD ? 2 : 1;
    }
    if (rc != AB_OK && rc != AB_EOVER) {
        cli_error(CMD, "search failed (code %d)", rc);
        return 1;
    }

    char rbuf[128], pbuf[80];
    kalah_rules_format(&r, rbuf, sizeof rbuf);
    kalah_pos_format(&r, &p, pbuf, sizeof pbuf);
    solve_report rep = {.value = res.value, .best_mask = res.best_mask, .side = p.side, .pits = r.pits,
                        .nodes = res.nodes, .seconds = res.seconds, .rules = rbuf, .position = pbuf,
                        .over = rc == AB_EOVER, .endgame = n_db, .endgame_seconds = db_seconds,
                        .tablebase = tb_path[0] ? tb_path : NULL, .tablebase_built = built, .have_moves = moves};
    memcpy(rep.move_value, move_value, sizeof move_value);
    return solve_print(&rep, json);
}
