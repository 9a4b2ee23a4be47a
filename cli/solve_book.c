/* solve_book.c — `solve --fair-book K` (contract in solve_book.h). */
#include "cli/solve_book.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

#define MAX_SOWS 5

typedef struct {
    game_pos p;
    uint8_t path[MAX_SOWS];
    int n;         /* sowings from the root */
    int value;     /* final margin for player 0: exact when kept, else a bound beyond the window */
    int kept;      /* the exact value is within -W..+W */
} node;

/* The same position for the solver: everything but the ply, which counts only under a ply limit. */
static int same(const game_pos *a, const game_pos *b, int ply_counts)
{
    game_pos x = *a, y = *b;
    if (!ply_counts)
        x.ply = y.ply = 0;
    return !memcmp(&x, &y, sizeof x);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The positions of 1..K sowings, level by level (a level's order: its parents' order, then the slot), each
 * kept at its first (so shallowest) path. *out owns them. -1 when out of memory. */
static int enumerate(const game *g, const game_pos *root, int k, node **out, int *n_out)
{
    game_solve_props props;
    game_solve_properties(g, &props);
    const int ply_counts = props.ply_limit > 0;
    int n = 0, cap = 64, lo = 0, hi = 0; /* the previous level: v[lo..hi) */
    node *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return -1;
    for (int depth = 1; depth <= k; depth++) {
        int n_parents = depth == 1 ? 1 : hi - lo;
        for (int i = 0; i < n_parents; i++) {
            node par = depth == 1 ? (node){.p = *root, .n = 0} : v[lo + i]; /* a copy: v may move below */
            for (unsigned legal = game_legal(g, &par.p); legal; legal &= legal - 1) {
                const int m = __builtin_ctz(legal);
                node c = par;
                if (game_apply(g, &c.p, m, NULL) != GAME_OK) {
                    free(v);
                    return -1;
                }
                c.path[c.n++] = (uint8_t)m;
                if (c.p.over)
                    continue;
                int dup = same(&c.p, root, ply_counts);
                for (int j = 0; j < n && !dup; j++)
                    dup = same(&v[j].p, &c.p, ply_counts);
                if (dup)
                    continue;
                if (n == cap) {
                    node *nv = realloc(v, (size_t)(cap *= 2) * sizeof *nv);
                    if (!nv) {
                        free(v);
                        return -1;
                    }
                    v = nv;
                }
                v[n++] = c;
            }
        }
        lo = depth == 1 ? 0 : hi;
        hi = n;
    }
    *out = v;
    *n_out = n;
    return 0;
}

/* The path of a node in the game's move notation ("c f A"). */
static void path_text(const game *g, const game_pos *root, const node *x, char *buf, size_t len)
{
    game_pos p = *root;
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < x->n && at < len; i++) {
        char mv[16];
        game_move_format(g, &p, x->path[i], mv, sizeof mv);
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", mv);
        game_apply(g, &p, x->path[i], NULL);
    }
}

int cli_solve_book(const char *cmd, const game *g, const game_pos *root, gs_solver *s, const solve_book_args *a,
                   int show, int json)
{
    node *v;
    int n;
    if (a->sows < 1 || a->sows > MAX_SOWS || enumerate(g, root, a->sows, &v, &n)) {
        cli_error(cmd, "--fair-book %d: out of memory, or not in 1..%d", a->sows, MAX_SOWS);
        return 1;
    }
    double t0 = now();
    uint64_t nodes = 0;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        /* only the value within ±W matters (the window is the same for either player to move): a position
         * far from even is settled by one probe at the window's edge */
        int value, where;
        uint64_t nd = 0;
        char err[GAME_ERRLEN];
        int rc = gs_solver_window(s, &v[i].p, -a->within, a->within, &value, &where, &nd, err);
        if (rc != GAME_OK) {
            if (show)
                fprintf(stderr, "\n");
            cli_error(cmd, "--fair-book: the solve of position %d failed: %s", i + 1, err);
            free(v);
            return 1;
        }
        nodes += nd;
        v[i].kept = where == 0;
        v[i].value = v[i].p.to_move == 0 ? value : -value;
        kept += v[i].kept;
        if (show) {
            fprintf(stderr, "\rsolve --fair-book: %d of %d positions solved, %d within +-%d, %.0f s ", i + 1, n, kept,
                    a->within, now() - t0);
            fflush(stderr);
        }
    }
    if (show)
        fprintf(stderr, "\n");
    double seconds = now() - t0;

    char tmp[4200], start[GAME_POS_STR], moves[8 * MAX_SOWS + 8];
    const char *rules = game_spec(g);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", a->out, (long)getpid());
    game_pos_format(g, root, start, sizeof start);
    FILE *f = fopen(tmp, "w");
    int bad = !f;
    if (f) {
        fprintf(f, "# sowzero fair-openings book: every position reached by 1..%d sowings (an extra turn's sowing "
                   "counts) from\n# %s under %s whose exact value under perfect play\n"
                   "# (sowzero's solver) is within -%d..+%d seeds: %d of the %d distinct unfinished positions "
                   "there,\n# each at its first shortest move sequence (pits in a.. order).\n"
                   "# Generated by: %s\n"
                   "# Format: docs/records.md \"Opening books\" (one opening a line: moves from the start); the "
                   "number after\n# '#' is the exact final margin for South (South's store - North's) under "
                   "perfect play from there.\n",
                a->sows, start, rules, a->within, a->within, kept, n, a->command);
        for (int i = 0; i < n; i++) {
            if (!v[i].kept)
                continue;
            path_text(g, root, &v[i], moves, sizeof moves);
            fprintf(f, "%-8s # %+d\n", moves, v[i].value);
        }
        bad = ferror(f) != 0;
        bad |= fclose(f) != 0;
    }
    if (bad || rename(tmp, a->out)) {
        cli_error(cmd, "--out %s: could not write the book: %s", a->out, strerror(errno));
        unlink(tmp);
        free(v);
        return 1;
    }
    free(v);
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "out", a->out);
        cJSON_AddStringToObject(o, "rules", rules);
        cJSON_AddNumberToObject(o, "sows", a->sows);
        cJSON_AddNumberToObject(o, "within", a->within);
        cJSON_AddNumberToObject(o, "positions", n);
        cJSON_AddNumberToObject(o, "kept", kept);
        cJSON_AddNumberToObject(o, "nodes", (double)nodes);
        cJSON_AddNumberToObject(o, "seconds", seconds);
        return cli_print_json(o);
    }
    printf("%s: %d of the %d positions after 1..%d sowings are within -%d..+%d (solved in %.1f s, %llu nodes)\n",
           a->out, kept, n, a->sows, a->within, a->within, seconds, (unsigned long long)nodes);
    return 0;
}
