/* sowzero perft — leaf counts per depth, the move generator's checksum (docs/design.md §4). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "cli/commands.h"
#include "env/game.h"

static void help(void)
{
    puts("usage: sowzero perft DEPTH [--rules SPEC] [--position POS] [--json]\n"
         "Counts the positions reached at exactly 1..DEPTH plies (one ply = one sowing; an extra turn is\n"
         "its own ply; a finished game contributes nothing deeper).\n"
         "  --rules SPEC     rules, e.g. kalah:pits=4,seeds=3,capture=always or basico:players=3,pits=4\n"
         "                   (default: kalah)\n"
         "  --position POS   start from this position string (default: the start position)\n"
         "  --json           print {\"rules\",\"position\",\"nodes\":[n1..nD]}");
}

int cmd_perft(int argc, char **argv)
{
    static const struct option opts[] = {{"rules", required_argument, 0, 'r'},
                                         {"position", required_argument, 0, 'p'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *rules_spec = NULL, *pos_text = NULL;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rules_spec = optarg; break;
        case 'p': pos_text = optarg; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error("perft");
        }
    }
    if (optind != argc - 1) {
        cli_error("perft", "expected exactly one DEPTH argument");
        return cli_usage_error("perft");
    }
    long depth;
    if (!cli_long("perft", "DEPTH", argv[optind], 1, 64, &depth))
        return 2;
    uint64_t *nodes = calloc((size_t)depth, sizeof *nodes);
    if (!nodes) {
        cli_error("perft", "out of memory");
        return 1;
    }
    char rbuf[GAME_SPEC_MAX], pbuf[GAME_POS_STR], err[GAME_ERRLEN];
    game *g = cli_game_create("perft", rules_spec ? rules_spec : "kalah");
    game_pos gp;
    if (!g) {
        free(nodes);
        return 2;
    }
    if (!pos_text)
        game_start(g, &gp);
    else if (game_pos_parse(g, pos_text, &gp, err) != GAME_OK) {
        cli_error("perft", "--position '%s': %s", pos_text, err);
        game_free(g);
        free(nodes);
        return 2;
    }
    game_perft(g, &gp, (int)depth, nodes);
    snprintf(rbuf, sizeof rbuf, "%s", game_spec(g));
    game_pos_format(g, &gp, pbuf, sizeof pbuf);
    game_free(g);
    int rc = 0;
    if (json) {
        cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, "nodes");
        cJSON_AddStringToObject(o, "rules", rbuf);
        cJSON_AddStringToObject(o, "position", pbuf);
        for (long d = 0; d < depth; d++)
            cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)nodes[d]));
        rc = cli_print_json(o);
    } else {
        printf("rules %s\nposition %s\n", rbuf, pbuf);
        for (long d = 0; d < depth; d++)
            printf("depth %ld: %" PRIu64 "\n", d + 1, nodes[d]);
    }
    free(nodes);
    return rc;
}
