/* sowzero bench search — alpha-beta speed and its functional signature (docs/design.md §4, §5).
 *
 * A fixed list of positions, each searched by iterative deepening to a fixed depth with one thread and a
 * fresh transposition table of a fixed size. The total node count is a function of the search code only
 * (the search is deterministic), so it is the search's signature: tests/test_alphabeta.c checks it, and it
 * changes only when the search itself changes (ordering, pruning, table, evaluation) — then record the new
 * value there. nodes/s is the speed figure. */
#include <getopt.h>
#include <stdio.h>

#include "cli/bench.h"
#include "cli/cli.h"
#include "eval/alphabeta.h"

#define CMD "bench search"
#define DEPTH 15
#define TT_MB 16

/* Kalah(6,4) positions from the start and from random games (plies 4 to 40), and a few of other rules. */
static const struct {
    const char *rules, *position;
} cases[] = {
    {"kalah", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"},
    {"kalah", "4,4,0,0,1,7,3,1,7,6,5,5,5,0 N"},
    {"kalah", "6,6,1,2,0,2,5,1,9,0,7,7,0,2 S"},
    {"kalah", "0,8,0,1,1,6,7,0,10,0,0,8,1,6 N"},
    {"kalah", "0,0,1,4,3,1,9,2,12,1,1,2,5,7 N"},
    {"kalah", "5,0,1,6,0,7,2,5,5,5,1,5,5,1 N"},
    {"kalah", "0,1,2,7,0,0,5,1,0,9,5,8,0,10 S"},
    {"kalah", "2,1,1,11,0,1,5,0,0,9,0,1,2,15 S"},
    {"kalah:capture=always", "4,4,4,0,5,1,2,1,1,7,6,6,6,1 N"},
    {"kalah:capture=always", "1,4,1,4,7,0,6,3,2,1,10,2,2,5 N"},
    {"kalah:pits=5,seeds=5,end=mover-empty", "5,5,5,5,5,0,5,5,5,5,5,0 S"},
    {"kalah:max_sows=30", "6,6,1,2,0,2,5,1,9,0,7,7,0,2 S"},
};

static void help(void)
{
    printf("usage: sowzero bench search [--json]\n"
           "Searches %zu fixed positions to depth %d (iterative deepening, one thread, a fresh %d MiB table each)\n"
           "and prints the total node count (the search's functional signature) and nodes/s.\n"
           "  --json   print {\"nodes\",\"nps\",\"seconds\",\"positions\",\"depth\",\"tt_mb\"}\n",
           sizeof cases / sizeof cases[0], DEPTH, TT_MB);
}

int bench_search(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error(CMD);
        }
    }
    if (optind != argc) {
        cli_error(CMD, "unexpected argument '%s'", argv[optind]);
        return cli_usage_error(CMD);
    }
    const int n = (int)(sizeof cases / sizeof cases[0]);
    unsigned long long nodes = 0;
    double seconds = 0;
    for (int i = 0; i < n; i++) {
        kalah_rules r;
        kalah_pos p;
        char err[KALAH_ERRLEN];
        if (kalah_rules_parse(cases[i].rules, &r, err) != KALAH_OK ||
            kalah_pos_parse(cases[i].position, &r, &p, NULL, err) != KALAH_OK) {
            cli_error(CMD, "built-in case %d: %s", i, err); /* a broken table: a programming error */
            return 1;
        }
        ab_search *s = ab_create(&r, TT_MB, err);
        if (!s) {
            cli_error(CMD, "%s", err);
            return 1;
        }
        ab_limits lim = {.depth = DEPTH};
        ab_result res;
        int rc = ab_think(s, &p, &lim, &res);
        ab_free(s);
        if (rc != AB_OK) {
            cli_error(CMD, "search of case %d failed (code %d)", i, rc);
            return 1;
        }
        nodes += res.nodes;
        seconds += res.seconds;
        if (!json)
            printf("%-40s %-32s value %+4d move %c nodes %llu\n", cases[i].rules, cases[i].position, res.value,
                   kalah_move_letter(p.side, res.move), (unsigned long long)res.nodes);
    }
    double nps = seconds > 0 ? (double)nodes / seconds : 0;
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "nodes", (double)nodes);
        cJSON_AddNumberToObject(o, "nps", nps);
        cJSON_AddNumberToObject(o, "seconds", seconds);
        cJSON_AddNumberToObject(o, "positions", n);
        cJSON_AddNumberToObject(o, "depth", DEPTH);
        cJSON_AddNumberToObject(o, "tt_mb", TT_MB);
        return cli_print_json(o);
    }
    printf("positions %d, depth %d, table %d MiB, one thread\nnodes %llu (signature)\nseconds %.3f\nnps %.0f\n", n,
           DEPTH, TT_MB, nodes, seconds, nps);
    return 0;
}
