/* sowzero net — the network's policy and value for one position (docs/design.md §4): Kalah nets, and Mancala
 * básico nets (one value per player). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "cli/commands.h"
#include "cli/net_search.h"
#include "env/errbuf.h"
#include "nn/h5io.h"
#include "nn/net.h"
#include "selfplay/mcts_mp.h"

static void help(void)
{
    puts("usage: sowzero net --net PATH [--position POS] [--rules SPEC] [--json]\n"
         "       sowzero net --upgrade PATH [--json]\n"
         "Evaluates one position with a network file (an export or a checkpoint): the policy over the\n"
         "mover's pits in a.. order (illegal moves get 0) and the value (expected result for the mover).\n"
         "Also one value per player (basico: its rank score mapped to [-1, 1]; two-player games: the mover's\n"
         "value and its negation).\n"
         "  --net PATH       the network file\n"
         "  --position POS   the position in the game's notation (default: the start position)\n"
         "  --rules SPEC     rules; must be the ones the net was trained for (default: the net's own)\n"
         "  --json           print {\"policy\":[...],\"value\":v,\"values\":[one per player, player 0 first],\n"
         "                   \"mover\":seat,\"search\":{...} or null}\n"
         "Also shown: the search settings the net was trained with (its search record, nn/h5io.h /search:\n"
         "sims, batch, c_puct, fpu_reduction, margin_utility, solver, root, gumbel_*), which the az agent plays\n"
         "with unless its spec gives a key; a net without the record (older files) shows none.\n"
         "  --upgrade PATH   rewrite a net file from before sowzero checksummed its files (which are\n"
         "                   refused) with the checksum, or one in the older HDF5 layout, in the current\n"
         "                   form, keeping everything in it. The file is validated as every load for play\n"
         "                   does (its rules a known game's, its encoding and net shape that game's) and\n"
         "                   refused (exit 2, naming the attribute) otherwise; a file without the checksum\n"
         "                   only for a file you trust: it is the one read that is not verified first.\n"
         "                   --json: {\"file\",\"upgraded\"}\n"
         "Exit status: 0, 1 runtime failure, 2 bad input (usage, a missing, damaged or mismatched net file,\n"
         "a bad or finished position).");
}

/* The exit status for a failed load: a file that is missing, damaged or not a net is bad input (2); only
 * running out of memory is a runtime failure (1). */
static int load_status(int nn_rc) { return nn_rc == NN_ENOMEM ? 1 : 2; }

/* The search record line of the text output. */
static void print_search(const nn_file_info *info)
{
    char keys[256];
    if (info->have_search)
        printf("search %s (the search the net was trained with: the az agent's defaults for it)\n",
               ns_keys(&info->search, keys, sizeof keys));
    else
        printf("search none recorded (the az agent uses its built-in defaults)\n");
}

/* The game a loaded net file is for, checked as every load for play checks it: its rules attribute parses
 * as a known game's rules, its encoding attribute is that game's input encoding, and the net's input_dim,
 * n_policy and n_value fit the game. The game (caller frees), or NULL with a message naming path and the
 * attribute in err (NN_ERRLEN). */
static game *file_game(const char *path, const nn_net *net, const nn_file_info *info, char *err)
{
    char gerr[GAME_ERRLEN > MCTS_ERRLEN ? GAME_ERRLEN : MCTS_ERRLEN];
    game *g = game_create(info->rules, gerr);
    if (!g)
        errbuf_set(err, NN_ERRLEN, "%s: attribute 'rules' = '%s' is not a known game's rules: %s", path,
                 info->rules, gerr);
    else if (strcmp(info->encoding, game_encoding_name(g)))
        errbuf_set(err, NN_ERRLEN, "%s: attribute 'encoding' = '%s', but its rules' game encodes '%s'", path,
                 info->encoding, game_encoding_name(g));
    else if (mcts_mp_net_check(net, g, gerr) != MCTS_OK)
        errbuf_set(err, NN_ERRLEN, "%s: %s (attributes input_dim, n_policy, n_value)", path, gerr);
    else
        return g;
    game_free(g);
    return NULL;
}

/* The file's rules name the game (rules_spec, when given, must say the same). */
static int net_game(const char *path, const char *rules_spec, const char *pos_text, int json)
{
    char err[NN_ERRLEN], gerr[GAME_ERRLEN];
    nn_file_info info;
    nn_net *net = NULL;
    game *want = NULL; /* --rules first: a bad spec is named before any file is read */
    if (rules_spec && !(want = cli_game_create("net", rules_spec)))
        return 2;
    int lrc = nn_load(path, NULL, &net, &info, err);
    if (lrc != NN_OK) {
        cli_error("net", "--net: %s", err);
        game_free(want);
        return load_status(lrc);
    }
    game *g = file_game(path, net, &info, err);
    int rc = 2;
    if (!g)
        cli_error("net", "--net %s", err);
    else if (want && strcmp(game_spec(g), game_spec(want)))
        cli_error("net", "--rules: the net was trained for '%s' (the rules in %s), not '%s'", game_spec(g), path,
                  game_spec(want));
    else
        rc = 0;
    game_free(want);
    game_pos p;
    if (!rc && !pos_text) {
        game_start(g, &p);
    } else if (!rc && game_pos_parse(g, pos_text, &p, gerr) != GAME_OK) {
        cli_error("net", "--position '%s': %s", pos_text, gerr);
        rc = 2;
    }
    unsigned legal = rc ? 0 : game_legal(g, &p);
    if (!rc && !legal) {
        cli_error("net", "--position: the game is over, there is no move to evaluate");
        rc = 2;
    }
    if (rc) {
        nn_net_free(net);
        game_free(g);
        return rc;
    }
    const int m = game_moves(g), np = game_players(g), nv = game_value_dim(g);
    float *x = malloc((size_t)game_encode_dim(g) * sizeof *x);
    float policy[GAME_MAX_MOVES], rel[GAME_MAX_PLAYERS], value[GAME_MAX_PLAYERS];
    uint8_t mask[GAME_MAX_MOVES];
    if (x)
        game_encode(g, &p, x);
    for (int k = 0; k < m; k++)
        mask[k] = (legal >> k) & 1;
    nn_workspace *ws = x ? nn_workspace_create(net, 1) : NULL; /* no x: NN_ENOMEM below */
    int frc = ws ? nn_forward(net, ws, x, mask, 1, policy, rel) : NN_ENOMEM;
    nn_workspace_free(ws);
    nn_net_free(net);
    free(x);
    if (frc != NN_OK) {
        cli_error("net", "forward pass failed (%d)", frc);
        game_free(g);
        return 1;
    }
    for (int j = 0; j < np; j++) /* outputs are mover first (game_encode); one output: the mover's */
        value[(p.to_move + j) % np] = nv == 1 ? (j ? -rel[0] : rel[0]) : rel[j];
    char mv[8];
    if (json) {
        cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, "policy");
        for (int k = 0; k < m; k++)
            cJSON_AddItemToArray(arr, cJSON_CreateNumber(policy[k]));
        cJSON_AddNumberToObject(o, "value", value[p.to_move]);
        cJSON *vals = cJSON_AddArrayToObject(o, "values");
        for (int q = 0; q < np; q++)
            cJSON_AddItemToArray(vals, cJSON_CreateNumber(value[q]));
        cJSON_AddNumberToObject(o, "mover", p.to_move);
        cJSON_AddItemToObject(o, "search", ns_json(info.have_search ? &info.search : NULL));
        game_free(g);
        return cli_print_json(o);
    }
    char who[24];
    printf("policy (%s)", game_seat_name(g, p.to_move, who, sizeof who));
    for (int k = 0; k < m; k++)
        printf(" %s:%.4f", game_move_format(g, &p, k, mv, sizeof mv), policy[k]);
    printf("\nvalue %.4f\nvalues", value[p.to_move]);
    for (int q = 0; q < np; q++) /* player numbers, or S/N for the two-row games */
        if (game_get_kind(g)->seat_names)
            printf(" %c:%.4f", game_seat_name(g, q, who, sizeof who)[0], value[q]);
        else
            printf(" %d:%.4f", q, value[q]);
    printf("\n");
    print_search(&info);
    game_free(g);
    return 0;
}

/* nn_upgrade's check: a file is sealed only when it could be played with. */
static int upgrade_check(const char *path, const nn_net *net, const nn_file_info *info, void *ctx, char *err)
{
    (void)ctx;
    game *g = file_game(path, net, info, err);
    game_free(g);
    return !g;
}

static int net_upgrade(const char *path, int json)
{
    char err[NN_ERRLEN];
    int upgraded = 0;
    if (access(path, R_OK) != 0) {
        cli_error("net", "--upgrade: cannot open %s: %s", path, strerror(errno));
        return 2;
    }
    int rc = nn_upgrade(path, upgrade_check, NULL, &upgraded, err);
    if (rc != NN_OK) {
        cli_error("net", "--upgrade: %s", err);
        return rc == NN_ENOMEM || rc == NN_EIO ? 1 : 2; /* a file that cannot be verified is bad input */
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", path);
        cJSON_AddBoolToObject(o, "upgraded", upgraded);
        return cli_print_json(o);
    }
    printf(upgraded ? "%s: rewritten with a checksum, in the current layout\n"
                    : "%s: already has a valid checksum and the current layout, left as it is\n",
           path);
    return 0;
}

int cmd_net(int argc, char **argv)
{
    static const struct option opts[] = {{"net", required_argument, 0, 'n'},
                                         {"position", required_argument, 0, 'p'},
                                         {"rules", required_argument, 0, 'r'},
                                         {"json", no_argument, 0, 'j'},
                                         {"upgrade", required_argument, 0, 'u'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *path = NULL, *pos_text = NULL, *rules_spec = NULL, *upgrade = NULL;
    int json = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'n': path = optarg; break;
        case 'p': pos_text = optarg; break;
        case 'r': rules_spec = optarg; break;
        case 'j': json = 1; break;
        case 'u': upgrade = optarg; break;
        case 'h': help(); return 0;
        default: return cli_usage_error("net");
        }
    }
    if (optind != argc) {
        cli_error("net", "unexpected argument '%s'", argv[optind]);
        return cli_usage_error("net");
    }
    if (upgrade && (path || pos_text || rules_spec)) {
        cli_error("net", "--upgrade takes no --net, --position or --rules");
        return cli_usage_error("net");
    }
    if (upgrade)
        return net_upgrade(upgrade, json);
    if (!path) {
        cli_error("net", "--net PATH is required");
        return cli_usage_error("net");
    }
    return net_game(path, rules_spec, pos_text, json);
}
