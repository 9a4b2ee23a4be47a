/* sowzero solve — the exact value of a position under perfect play and every move reaching it, for every
 * two-player game with a margin, by the game's exact solver (docs/design.md §3.5, §4; eval/game_search.h:
 * Kalah's MTD(f) alpha-beta with its endgame database, the game interface's solver for the others). */
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "env/game.h"
#include "cli/output_path.h"
#include "cli/solve_book.h"
#include "eval/endgame.h"
#include "eval/game_search.h"

#define CMD "solve"

/* What a solve found, as `solve` prints it. */
typedef struct {
    int value;              /* final margin for the player to move */
    unsigned best_mask;     /* every optimal relative pit */
    int side, pits;         /* side to move (letters a.. or A..), pits per side */
    uint64_t nodes;
    double seconds;
    const char *rules, *position;
    int over;               /* the position was already finished */
    int endgame;            /* the endgame database's seeds (0: none) */
    double endgame_seconds; /* the JSON key endgame_seconds; < 0 (a solver with no database): left out */
    const char *tablebase;  /* the tablebase file mapped or written, NULL if none */
    int tablebase_built;    /* it was built by this solve (and written when tablebase is set) */
    int have_moves;         /* --moves: move_value holds every legal move's exact value */
    int move_value[GAME_MAX_MOVES]; /* GS_NO_VALUE for an illegal move */
} solve_report;

/* Prints the report (one cJSON object with json, else text lines). Returns the exit status. */
static int solve_print(const solve_report *r, int json)
{
    const char *who = r->side ? "North" : "South";
    char best[3 * GAME_MAX_MOVES + 1] = "";
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
                if (r->move_value[k] != GS_NO_VALUE) {
                    char l[2] = {kalah_move_letter(r->side, k), 0};
                    cJSON_AddNumberToObject(mv, l, r->move_value[k]);
                }
        }
        cJSON_AddNumberToObject(o, "nodes", (double)r->nodes);
        cJSON_AddNumberToObject(o, "seconds", r->seconds);
        cJSON_AddStringToObject(o, "rules", r->rules);
        cJSON_AddStringToObject(o, "position", r->position);
        cJSON_AddBoolToObject(o, "over", r->over);
        /* a solve without a database (another game, --endgame 0): 0 s, 0 seeds, no file */
        cJSON_AddNumberToObject(o, "endgame_seconds", r->endgame_seconds >= 0 ? r->endgame_seconds : 0);
        cJSON_AddNumberToObject(o, "endgame_seeds", r->endgame_seconds >= 0 ? r->endgame : 0);
        if (r->tablebase)
            cJSON_AddStringToObject(o, "tablebase", r->tablebase);
        else
            cJSON_AddNullToObject(o, "tablebase");
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
        int any = 0;
        for (int k = 0; k < r->pits; k++)
            if (r->move_value[k] != GS_NO_VALUE) {
                printf(" %c %+d", kalah_move_letter(r->side, k), r->move_value[k]);
                any = 1;
            }
        printf("%s\n", any ? "" : " none (the game is over)");
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

/* A database built by solve is written for the next one when it has at least this many entries (below,
 * building it takes about as long as mapping it). */
#define SAVE_ENTRIES (1u << 24)
#define DEFAULT_MAX_ENTRIES (1ull << 28)

/* The default database: none for a position with at most DEFAULT_MIN_SEEDS seeds in its pits (its search
 * takes seconds at most, less than building one); else as many seeds as p has in its pits, at most the
 * largest N whose C(N + 2 pits, 2 pits) entries stay within DEFAULT_MAX_ENTRIES (6 pits: 20) and half the
 * memory a database may take (eg_memory_budget: a container's limit can be lower). */
#define DEFAULT_MIN_SEEDS 30
static int default_endgame_seeds(const game *g, const game_pos *p)
{
    const int in_pits = game_seeds_in_pits(g, p), cells = game_players(g) * game_moves(g);
    int best = 0;
    if (in_pits <= DEFAULT_MIN_SEEDS)
        return 0;
    for (int n = 1; n <= in_pits && n <= 127; n++) {
        double c = 1; /* C(n + cells, cells) */
        for (int i = 1; i <= cells; i++)
            c = c * (double)(n + i) / (double)i;
        if (c > (double)DEFAULT_MAX_ENTRIES || c > (double)eg_memory_budget() / 2)
            break;
        best = n;
    }
    return best;
}

static void help(void)
{
    puts("usage: sowzero solve [--rules SPEC] [--position POS] [--tt-mb N] [--endgame N] [--no-save]\n"
         "                     [--threads N] [--smp MODE] [--sows N] [--moves] [--[no-]progress] [--json]\n"
         "       sowzero solve --fair-book K [--within W] --out FILE [--rules SPEC] [--position POS] [...]\n"
         "Searches to the end of the game with the game's exact solver (Kalah: MTD(f) null-window alpha-beta\n"
         "with a transposition table and an endgame database; the other two-player games with a margin:\n"
         "the game interface's alpha-beta, eval/game_search.h) and prints the final margin under perfect\n"
         "play for the player to move (own store - opponent's store) and every move that achieves it. A\n"
         "position that is already over prints its final margin and no moves (best = []).\n"
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
         "                   268 M entries on any board, or more where a bigger tablebase file of the board\n"
         "                   is there: the largest up to the seeds it has, e.g. one of 24 seeds, 1.25 GB,\n"
         "                   from `sowzero tablebase build --seeds 24`). A tablebase\n"
         "                   file with at least N seeds is loaded when one is found (sowzero tablebase\n"
         "                   --help: $SOWZERO_TABLEBASE, else $XDG_CACHE_HOME/sowzero, else ~/.cache/sowzero);\n"
         "                   otherwise it is built, and a\n"
         "                   build of 16 M entries or more is written there for the next solve\n"
         "  --no-save        never write the tablebase file this solve builds\n"
         "  --moves          also the exact value of every legal move (each child solved in turn, on\n"
         "                   the same table and with every --threads), as \"moves\" {letter: value} with\n"
         "                   --json\n"
         "  --threads N      Kalah: threads for building the endgame database and for the search (on the\n"
         "                   shared table, --smp: the same value and best moves, node counts vary from run\n"
         "                   to run; default: every core); the other games' solver runs on one thread and\n"
         "                   refuses N > 1\n"
         "  --smp MODE       how the search threads share the work: abdada (the default: every thread\n"
         "                   defers a move whose position another thread is searching now; Weill 1996) or\n"
         "                   lazy (Lazy SMP: helpers search other move orders and meet through the table);\n"
         "                   the same value and best moves either way (docs/tablebase.md compares them)\n"
         "  --sows N         sowings already played before POS (only matters with max_sows; default 0)\n"
         "  --progress       show the phase and the time spent on stderr, and the positions searched so far\n"
         "                   (Kalah: with the bounds its MTD(f) probes have proven on the value, e.g.\n"
         "                   \"value >= +6\", then \"value +8..+8\"; with --moves then the move being solved\n"
         "                   and the bounds on its value, \"move d, value <= -2\"), the default when stderr is\n"
         "                   a terminal: a long solve is not silent for minutes; --no-progress: never\n"
         "  --fair-book K    write an opening book (docs/records.md, \"Opening books\") of every distinct\n"
         "                   unfinished position reached by 1..K sowings (1..5; an extra turn's sowing counts)\n"
         "                   from POS whose exact value is within -W..+W seeds, as move lists (the first\n"
         "                   shortest one to each), the exact final margin for South after '#'; every\n"
         "                   position solved on one table (--tt-mb, --threads, --endgame as for one solve)\n"
         "                   only as far as the band asks (its exact value inside, else only the side).\n"
         "                   --json: {\"out\",\"rules\",\"sows\",\"within\",\"positions\",\"kept\",\"nodes\",\"seconds\"}\n"
         "  --within W       the fair band of --fair-book, 0..255 seeds (default 2)\n"
         "  --out FILE       the book --fair-book writes (a temporary file renamed at the end)\n"
         "  --json           print {\"value\",\"best\":[letters],\"nodes\",\"seconds\",\"rules\",\"position\",\n"
         "                   \"over\",\"endgame_seconds\",\"endgame_seeds\",\"tablebase\"} (seconds: the search, with\n"
         "                   --moves the children's solves too; endgame_seconds: building or mapping the\n"
         "                   database; tablebase: its file or null)\n"
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
    int counting;    /* the solver reports the positions it searched (gs_solver_set_progress) */
    uint64_t nodes;  /* so far (relaxed atomics: written by the solving thread) */
    int bounded;     /* the solver has reported bounds (gs_solver_set_bounds): lo, hi (relaxed atomics) */
    int lo, hi;
    int move;        /* --moves: the move slot whose value lo, hi bound (−1: the position's); relaxed */
    uint64_t base;   /* --moves: the positions of the position's own solve, before the moves' counts */
    int side;        /* the position's mover, for the move's letter */
} progress;

static void draw(const progress *g)
{
    static const char *const what[2] = {"building or mapping the endgame database", "searching"};
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    fprintf(stderr, "\rsolve: %s... %ld s", what[g->phase], (long)(now.tv_sec - g->t0.tv_sec));
    if ((g->counting || __atomic_load_n(&g->bounded, __ATOMIC_RELAXED)) && g->phase == 1)
        fprintf(stderr, ", %.1f M nodes", 1e-6 * (double)__atomic_load_n(&g->nodes, __ATOMIC_RELAXED));
    if (__atomic_load_n(&g->bounded, __ATOMIC_RELAXED) && g->phase == 1) {
        int lo = __atomic_load_n(&g->lo, __ATOMIC_RELAXED), hi = __atomic_load_n(&g->hi, __ATOMIC_RELAXED);
        int move = __atomic_load_n(&g->move, __ATOMIC_RELAXED);
        if (move >= 0)
            fprintf(stderr, ", move %c", kalah_move_letter(g->side, move));
        if (lo != INT_MIN && hi != INT_MAX)
            fprintf(stderr, ", value %+d..%+d", lo, hi);
        else if (lo != INT_MIN)
            fprintf(stderr, ", value >= %+d", lo);
        else if (hi != INT_MAX)
            fprintf(stderr, ", value <= %+d", hi);
    }
    fprintf(stderr, " ");
    fflush(stderr);
}

/* gs_progress_fn: the count the drawing thread shows. */
static void count_nodes(void *ctx, uint64_t nodes)
{
    progress *g = ctx;
    __atomic_store_n(&g->nodes, nodes, __ATOMIC_RELAXED);
}

/* gs_bounds_fn: the bounds on the value the drawing thread shows (the MTD(f) probes so far). */
static void bounds(void *ctx, int move, int lo, int hi, uint64_t nodes)
{
    progress *g = ctx;
    __atomic_store_n(&g->move, move, __ATOMIC_RELAXED);
    nodes += move >= 0 ? g->base : 0;
    __atomic_store_n(&g->lo, lo, __ATOMIC_RELAXED);
    __atomic_store_n(&g->hi, hi, __ATOMIC_RELAXED);
    __atomic_store_n(&g->nodes, nodes, __ATOMIC_RELAXED);
    __atomic_store_n(&g->bounded, 1, __ATOMIC_RELAXED);
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
    const int was = g->phase;
    g->phase = phase;
    if (g->show && phase < 2)
        draw(g);
    else if (g->show && was < 2) /* erased once, wider than the longest line draw writes */
        fprintf(stderr, "\r%110s\r", "");
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
                                         {"smp", required_argument, 0, 'S'},
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
    gs_smp smp = GS_SMP_ABDADA;
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
        case 'S':
            if (strcmp(optarg, "lazy") && strcmp(optarg, "abdada")) {
                cli_error(CMD, "--smp '%s': expected lazy or abdada", optarg);
                return 2;
            }
            smp = strcmp(optarg, "lazy") ? GS_SMP_ABDADA : GS_SMP_LAZY;
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
    /* The game: --rules, else Kalah with the pits and seeds the position implies. */
    char spec[256];
    if (rules_spec) {
        snprintf(spec, sizeof spec, "%s", rules_spec);
    } else {
        kalah_rules kr;
        kalah_pos kp;
        if (!cli_setup(CMD, NULL, pos_text, &kr, &kp))
            return 2;
        kalah_rules_format(&kr, spec, sizeof spec);
    }
    char err[GAME_ERRLEN], pbuf[GAME_POS_STR];
    game *g = game_create(spec, err);
    if (!g) {
        cli_error(CMD, "--rules '%s': %s", spec, err);
        return 2;
    }
    game_pos p;
    int rc = 2;
    gs_solver *s = NULL;
    progress pg = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .show = show, .phase = -1, .move = -1};
    pthread_t th;
    int drawing = 0;
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
        cli_error(CMD, "--sows %ld: with max_sows=%d the game ended at sowing %d, yet the position is not finished",
                  sows, props.ply_limit, props.ply_limit);
        goto out;
    }
    p.ply = (uint16_t)sows;
    /* The endgame database is the solver's (Kalah's): by default where it has one, refused by its reason
     * where asked for and it has none. */
    const int has_db = gs_endgame_available(g, err) == GAME_OK;
    if (endgame > 0 && !has_db) {
        cli_error(CMD, "--endgame: %s", err);
        goto out;
    }
    const int endgame_default = endgame < 0;
    if (endgame_default) /* as many seeds as the position has, within 2^28 entries (or a larger file's) */
        endgame = has_db ? default_endgame_seeds(g, &p) : 0;
    if (!(s = gs_solver_create(g, (size_t)tt_mb, err))) {
        cli_error(CMD, "%s", err);
        rc = 1;
        goto out;
    }
    /* every core by default where the solver is parallel; a solver of one thread refuses more, by name */
    if (gs_solver_set_threads(s, (int)threads, err) != GAME_OK) {
        if (threads_given) {
            cli_error(CMD, "--threads %ld: %s", threads, err);
            goto out;
        }
        threads = 1;
        gs_solver_set_threads(s, 1, err);
    }
    if (gs_solver_set_smp(s, smp, err) != GAME_OK) {
        cli_error(CMD, "--smp: %s", err);
        rc = 1;
        goto out;
    }
    clock_gettime(CLOCK_MONOTONIC, &pg.t0);
    pg.side = p.to_move;
    pg.counting = !has_db; /* the generic solver counts its positions as it goes */
    if (pg.counting)
        gs_solver_set_progress(s, 1u << 20, count_nodes, &pg);
    drawing = show && pthread_create(&th, NULL, progress_main, &pg) == 0;
    pg.show = drawing;
    gs_endgame eg = {.seeds = (int)endgame, .save_bytes = save ? SAVE_ENTRIES : 0,
                     .up_to = endgame_default ? game_seeds_in_pits(g, &p) : 0};
    if (endgame > 0) {
        progress_phase(&pg, 0);
        int erc = gs_solver_use_endgame(s, &eg, err);
        if (erc != GAME_OK) {
            progress_phase(&pg, 2);
            if (endgame_default)
                cli_error(CMD, "endgame database: %s", err);
            else
                cli_error(CMD, "--endgame %ld: %s", endgame, err);
            rc = erc == GAME_EINVAL ? 2 : 1;
            goto out;
        }
        if (eg.save_err[0]) /* the solve goes on without the file */
            cli_error(CMD, "could not keep the tablebase: %s", eg.save_err);
    }
    if (book_sows) { /* cli/solve_book.h: every position of 1..K sowings on this table */
        progress_phase(&pg, 2);
        if (p.over) {
            cli_error(CMD, "--fair-book: the position is already over");
            goto out;
        }
        char *line = cli_command_line(argc, argv);
        solve_book_args ba = {(int)book_sows, within < 0 ? 2 : (int)within, out_path, line ? line : "sowzero solve"};
        rc = cli_solve_book(CMD, g, &p, s, &ba, show, json);
        free(line);
        goto out;
    }
    progress_phase(&pg, 1);
    if (drawing)
        gs_solver_set_bounds(s, bounds, &pg);
    gs_solution res;
    int src = gs_solver_run(s, &p, 0, &res, err);
    __atomic_store_n(&pg.bounded, 0, __ATOMIC_RELAXED); /* --moves: each move's bounds from its first probe */
    pg.base = res.nodes; /* written before the moves' solve reports (on this thread) */
    int move_value[GAME_MAX_MOVES];
    uint64_t move_nodes = 0;
    if (src == GAME_OK && moves) { /* each child solved exactly on the same table */
        struct timespec m0, m1;
        clock_gettime(CLOCK_MONOTONIC, &m0);
        src = gs_solver_moves(s, &p, move_value, &move_nodes, err);
        clock_gettime(CLOCK_MONOTONIC, &m1);
        res.nodes += move_nodes;
        res.seconds += (double)(m1.tv_sec - m0.tv_sec) + 1e-9 * (double)(m1.tv_nsec - m0.tv_nsec);
    }
    progress_phase(&pg, 2);
    if (src != GAME_OK && src != GAME_EOVER) {
        cli_error(CMD, "%s", err);
        rc = 1;
        goto out;
    }
    game_pos_format(g, &p, pbuf, sizeof pbuf);
    solve_report rep = {.value = res.value, .best_mask = res.best_mask, .side = p.to_move, .pits = game_moves(g),
                        .nodes = res.nodes, .seconds = res.seconds, .rules = game_spec(g), .position = pbuf,
                        .over = src == GAME_EOVER, .endgame = eg.covered, .endgame_seconds = has_db ? eg.seconds : -1,
                        .tablebase = eg.path[0] ? eg.path : NULL, .tablebase_built = eg.built,
                        .have_moves = moves}; /* a finished position: none */
    for (int k = 0; k < GAME_MAX_MOVES; k++)
        rep.move_value[k] = moves && src == GAME_OK ? move_value[k] : GS_NO_VALUE;
    rc = solve_print(&rep, json);
out:
    if (drawing) {
        progress_phase(&pg, 2);
        pthread_join(th, NULL);
    }
    gs_solver_free(s);
    game_free(g);
    return rc;
}
