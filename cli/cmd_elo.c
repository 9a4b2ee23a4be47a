/* sowzero elo — Bradley–Terry ratings from game-record files of every game (eval/record.h,
 * eval/elo.h); 3-4 player games count pairwise by places. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/elo_report.h"
#include "cli/output_path.h"
#include "eval/elo.h"
#include "eval/record.h"

static void help(void)
{
    puts("usage: sowzero elo FILE.pgn... [--anchor NAME[=ELO]] [--csv FILE] [--json]\n"
         "Ratings from game records (match/tournament --pgn, self-play, play): Bradley-Terry maximum\n"
         "likelihood over all finished games of all files together (draws = half a win each), with 95%\n"
         "intervals and the likelihood-of-superiority table. A player is named by its seat's name tag\n"
         "([SouthName]/[NorthName], [Seat2Name], ...) when the record has one, else by its spec ([South]/\n"
         "[North], [Seat0]..[Seat3]). Unfinished games (*) and games of\n"
         "a player against itself are skipped (and counted). A record with a result and no moves at all\n"
         "(result-only, as Ordo and BayesElo accept) counts as a game with that result; a record whose moves\n"
         "contradict its result, or any other malformed record, is an error naming its line.\n"
         "Every game's records are read (eval/record.h), mixed in one file or not. A game of 3-4 players\n"
         "counts as one game between every pair of its seats, decided by their places (the better place\n"
         "wins, an equal place is a draw), the usual pairwise reduction of a ranking; \"games\" counts\n"
         "these pairwise games and \"ranked\" the records they came from. Pairs of a player with itself\n"
         "are skipped (and counted as \"self\").\n"
         "Exit status 2 for bad input: a flag, a missing or malformed record file, records of fewer than two\n"
         "players, or players in pools that no chain of games connects (no common scale).\n"
         "  --anchor NAME[=ELO]  the player whose rating is fixed (default: the first player met, at 0); ELO\n"
         "                     a finite number in -1e6..1e6, 0 when not given (a name holding '=', such as\n"
         "                     ab:depth=8, is a player's whole name first)\n"
         "  --csv FILE         write name,elo,lo,hi,games,score to FILE (checked before the records are read;\n"
         "                     never one of the record files)\n"
         "  --json             print {\"ratings\":[{\"name\",\"elo\",\"lo\",\"hi\",\"games\",\"score\",\"perfect\"}],\n"
         "                     \"anchor\",\"anchor_elo\",\"prior\",\"los\",\"games\",\"ranked\",\"skipped\"}");
}

int cmd_elo(int argc, char **argv)
{
    static const struct option opts[] = {{"anchor", required_argument, 0, 'A'},
                                         {"csv", required_argument, 0, 'c'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *anchor = NULL, *csv = NULL;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'A': anchor = optarg; break;
        case 'c': csv = optarg; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error("elo");
        }
    }
    if (optind == argc) {
        cli_error("elo", "needs at least one record file");
        return cli_usage_error("elo");
    }
    /* one file named twice (or by two spellings, or a link) would count each of its games twice */
    for (int f = optind; f < argc; f++)
        for (int e = optind; e < f; e++)
            if (cli_same_output(argv[e], argv[f])) {
                cli_error("elo", "%s and %s are the same record file: give each file once", argv[e], argv[f]);
                return 2;
            }
    if (csv) { /* before reading: refused (exit 2) without any work, and never one of the record files */
        cli_input *in = calloc((size_t)(argc - optind), sizeof *in);
        char *what = malloc((size_t)(argc - optind) * 600);
        if (!in || !what) {
            free(in);
            free(what);
            cli_error("elo", "out of memory");
            return 1;
        }
        for (int f = optind; f < argc; f++) {
            char *w = what + (size_t)(f - optind) * 600;
            snprintf(w, 600, "the record file %.500s", argv[f]);
            in[f - optind] = (cli_input){w, argv[f]};
        }
        int ok = cli_output_check("elo", "--csv", csv, CLI_OUT_STREAM, in, argc - optind);
        free(in);
        free(what);
        if (!ok)
            return 2;
    }
    elo_pool *pool = elo_pool_create();
    if (!pool) {
        cli_error("elo", "out of memory");
        return 1;
    }
    int rc = 1, games = 0, unfinished = 0, selfplay = 0, ranked = 0, ranked_pairs = 0;
    char err[RECORD_ERRLEN];
    for (int f = optind; f < argc; f++) {
        record_reader *rd = record_reader_open(argv[f], err);
        if (!rd) {
            cli_error("elo", "%s", err);
            rc = 2; /* a missing or unreadable record file is bad input */
            goto out;
        }
        record_game g;
        int r;
        while ((r = record_read(rd, &g, err)) == RECORD_OK) {
            int np = g.players, added = 0;
            if (g.result == RECORD_UNFINISHED) {
                unfinished++;
                record_game_clear(&g);
                continue;
            }
            /* Two players: the result; more: every pair of seats by their places. */
            for (int q = 0; q < np; q++)
                for (int o = q + 1; o < np; o++) {
                    const char *s = record_player(&g, q), *n = record_player(&g, o);
                    if (!strcmp(s, n)) {
                        selfplay++;
                        continue;
                    }
                    int a = elo_pool_player(pool, s), b = elo_pool_player(pool, n);
                    if (a < 0 || b < 0) {
                        record_game_clear(&g);
                        record_reader_free(rd);
                        cli_error("elo", "out of memory");
                        goto out;
                    }
                    int pq = g.places[q], po = g.places[o];
                    elo_pool_add(pool, a, b, pq < po, pq == po, pq > po);
                    games++;
                    ranked_pairs += np > 2;
                    added = 1;
                }
            ranked += np > 2 && added;
            record_game_clear(&g);
        }
        record_reader_free(rd);
        if (r != RECORD_EOF) {
            cli_error("elo", "%s", err);
            rc = r == RECORD_ENOMEM ? 1 : 2; /* a malformed record is bad input */
            goto out;
        }
    }
    elo_options eo = {NULL, 0};
    char anchor_buf[1100], eerr[ELO_ERRLEN];
    if (anchor && elo_report_anchor(anchor, pool, anchor_buf, sizeof anchor_buf, &eo)) {
        cli_error("elo", "--anchor %s: expected NAME=ELO with ELO a finite number in %g..%g", anchor, -ELO_ANCHOR_MAX,
                  ELO_ANCHOR_MAX);
        rc = 2;
        goto out;
    }
    if (elo_pool_count(pool) < 2) {   /* no games, or games of one player only: bad input, not a failure */
        if (argc - optind == 1)
            cli_error("elo", "%s: the records hold %d player(s): ratings need games between at least 2",
                      argv[optind], elo_pool_count(pool));
        else
            cli_error("elo", "the records of the %d files hold %d player(s): ratings need games between at least 2",
                      argc - optind, elo_pool_count(pool));
        rc = 2;
        goto out;
    }
    elo_result *er;
    int erc = elo_fit(pool, &eo, &er, eerr);
    if (erc) {
        cli_error("elo", "%s%s", erc == ELO_EINVAL && anchor ? "--anchor: " : "", eerr);
        /* players no chain of games connects are a property of the records given: bad input */
        rc = (erc == ELO_EINVAL && anchor) || erc == ELO_EDISCONNECTED ? 2 : 1;
        goto out;
    }
    if (csv && elo_report_csv(er, csv)) {
        cli_error("elo", "--csv %s: cannot write", csv);
        elo_result_free(er);
        goto out;
    }
    if (json) {
        cJSON *o = elo_report_json(er);
        cJSON_AddNumberToObject(o, "games", games);
        cJSON_AddNumberToObject(o, "ranked", ranked);
        cJSON *sk = cJSON_AddObjectToObject(o, "skipped");
        cJSON_AddNumberToObject(sk, "unfinished", unfinished);
        cJSON_AddNumberToObject(sk, "self", selfplay);
        rc = cli_print_json(o);
    } else {
        printf("%d games from %d file%s", games, argc - optind, argc - optind > 1 ? "s" : "");
        if (ranked)
            printf(" (%d of them pairs from %d game%s of 3-4 players)", ranked_pairs, ranked, ranked > 1 ? "s" : "");
        if (unfinished || selfplay)
            printf(" (skipped: %d unfinished, %d of a player against itself)", unfinished, selfplay);
        printf("\n\n");
        elo_report_print(er, stdout);
        rc = 0;
    }
    elo_result_free(er);
out:
    elo_pool_free(pool);
    return rc;
}
