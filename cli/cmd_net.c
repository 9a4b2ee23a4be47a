/* sowzero net — the network's policy and value for one position (DESIGN.md §4): Kalah nets, and Mancala
 * básico nets (one value per player). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_basico.h"
#include "cli/commands.h"
#include "nn/h5io.h"
#include "nn/net.h"

static void help(void)
{
    puts("usage: sowzero net --net PATH [--position POS] [--rules SPEC] [--json]\n"
         "       sowzero net --upgrade PATH [--json]\n"
         "Evaluates one position with a network file (an export or a checkpoint): the policy over the\n"
         "mover's pits in a.. order (illegal moves get 0) and the value (expected result for the mover).\n"
         "A Mancala basico net also gives one value per player (its rank score mapped to [-1, 1]).\n"
         "  --net PATH       the network file\n"
         "  --position POS   the position string (default: the start position; basico: env/basico.h)\n"
         "  --rules SPEC     rules; must be the ones the net was trained for (default: the net's own)\n"
         "  --json           print {\"policy\":[...],\"value\":v} (basico adds \"values\": one per player,\n"
         "                   player 0 first)\n"
         "  --upgrade PATH   rewrite a net file from before sowzero checksummed its files (which are\n"
         "                   refused) with the checksum, keeping everything in it; only for a file you\n"
         "                   trust: it is the one read that is not verified first. --json: {\"file\",\"upgraded\"}\n"
         "Exit status: 0, 1 runtime failure, 2 bad input (usage, a missing, damaged or mismatched net file,\n"
         "a bad or finished position).");
}

/* The exit status for a failed load: a file that is missing, damaged or not a net is bad input (2); only
 * running out of memory is a runtime failure (1). */
static int load_status(int nn_rc) { return nn_rc == NN_ENOMEM ? 1 : 2; }

/* Loads the net and checks that it fits rules r (rules string, encoding, input and policy sizes). When
 * have_rules is 0, r receives the net's own rules. Prints errors; returns NULL on failure (*status: the
 * exit status, 2 for everything but memory). */
static nn_net *load_for(const char *path, kalah_rules *r, int have_rules, int *status)
{
    char err[NN_ERRLEN], kerr[KALAH_ERRLEN], a[128], b[128];
    nn_file_info info;
    nn_net *net = NULL;
    int lrc = nn_load(path, NULL, &net, &info, err);
    *status = load_status(lrc);
    if (lrc != NN_OK) {
        cli_error("net", "--net: %s", err);
        return NULL;
    }
    kalah_rules fr;
    const nn_config *c = nn_net_config(net);
    if (kalah_rules_parse(info.rules, &fr, kerr) != KALAH_OK)
        cli_error("net", "--net %s: its rules '%s' are not Kalah rules: %s", path, info.rules, kerr);
    else if (have_rules && strcmp(kalah_rules_format(&fr, a, sizeof a), kalah_rules_format(r, b, sizeof b)))
        cli_error("net", "--rules: the net was trained for '%s', not '%s'", a, b);
    else if (strcmp(info.encoding, KALAH_ENCODING_NAME))
        cli_error("net", "--net %s: input encoding '%s', this build encodes '%s'", path, info.encoding,
                  KALAH_ENCODING_NAME);
    else if (c->input_dim != kalah_encode_dim(&fr) || c->n_policy != fr.pits)
        cli_error("net", "--net %s: net takes %d inputs and %d moves, rules need %d and %d", path, c->input_dim,
                  c->n_policy, kalah_encode_dim(&fr), fr.pits);
    else if (c->n_value != 1)
        cli_error("net", "--net %s: net has %d value outputs (n_value); a Kalah net has 1", path, c->n_value);
    else {
        *r = fr;
        return net;
    }
    nn_net_free(net);
    return NULL;
}

/* The básico form: the file's rules are "basico:..." (rules_spec, when given, must say the same). */
static int net_basico(const char *path, const char *rules_spec, const char *pos_text, int json)
{
    char err[NN_ERRLEN], berr[KALAH_ERRLEN], a[128], b[128];
    nn_file_info info;
    nn_net *net = NULL;
    int lrc = nn_load(path, NULL, &net, &info, err);
    if (lrc != NN_OK) {
        cli_error("net", "--net: %s", err);
        return load_status(lrc);
    }
    basico_rules fr, r;
    const nn_config *c = nn_net_config(net);
    int rc = 2;
    if (basico_rules_parse(info.rules, &fr, berr) != BASICO_OK)
        cli_error("net", "--net %s: its rules '%s' are not basico rules: %s", path, info.rules, berr);
    else if (rules_spec && !cli_basico_rules("net", rules_spec, &r))
        rc = 2;
    else if (rules_spec && strcmp(basico_rules_format(&fr, a, sizeof a), basico_rules_format(&r, b, sizeof b)))
        cli_error("net", "--rules: the net was trained for '%s', not '%s'", a, b);
    else if (strcmp(info.encoding, BASICO_ENCODING_NAME))
        cli_error("net", "--net %s: input encoding '%s', this build encodes '%s'", path, info.encoding,
                  BASICO_ENCODING_NAME);
    else if (c->input_dim != basico_encode_dim(&fr) || c->n_policy != fr.pits || c->n_value != fr.players)
        cli_error("net", "--net %s: net takes %d inputs, %d moves, %d values; rules need %d, %d, %d", path,
                  c->input_dim, c->n_policy, c->n_value, basico_encode_dim(&fr), fr.pits, fr.players);
    else
        rc = 0;
    if (rc) {
        nn_net_free(net);
        return rc;
    }
    basico_pos p;
    if (!pos_text) {
        basico_start(&fr, &p);
    } else if (basico_pos_parse(pos_text, &fr, &p, berr) != BASICO_OK) {
        cli_error("net", "--position '%s': %s", pos_text, berr);
        nn_net_free(net);
        return 2;
    }
    unsigned legal = basico_legal(&fr, &p);
    if (!legal) {
        cli_error("net", "--position: the game is over, there is no move to evaluate");
        nn_net_free(net);
        return 2;
    }
    float x[BASICO_MAX_PLAYERS * (BASICO_MAX_PITS + 2)], policy[BASICO_MAX_PITS], rel[BASICO_MAX_PLAYERS];
    float value[BASICO_MAX_PLAYERS];
    uint8_t mask[BASICO_MAX_PITS];
    basico_encode(&fr, &p, x);
    for (int k = 0; k < fr.pits; k++)
        mask[k] = (legal >> k) & 1;
    nn_workspace *ws = nn_workspace_create(net, 1);
    int frc = ws ? nn_forward(net, ws, x, mask, 1, policy, rel) : NN_ENOMEM;
    nn_workspace_free(ws);
    nn_net_free(net);
    if (frc != NN_OK) {
        cli_error("net", "forward pass failed (%d)", frc);
        return 1;
    }
    for (int j = 0; j < fr.players; j++) /* outputs are mover first (basico_encode) */
        value[(p.to_move + j) % fr.players] = rel[j];
    if (json) {
        cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, "policy");
        for (int k = 0; k < fr.pits; k++)
            cJSON_AddItemToArray(arr, cJSON_CreateNumber(policy[k]));
        cJSON_AddNumberToObject(o, "value", value[p.to_move]);
        cJSON *vals = cJSON_AddArrayToObject(o, "values");
        for (int q = 0; q < fr.players; q++)
            cJSON_AddItemToArray(vals, cJSON_CreateNumber(value[q]));
        cJSON_AddNumberToObject(o, "mover", p.to_move);
        return cli_print_json(o);
    }
    printf("policy (player %d)", p.to_move);
    for (int k = 0; k < fr.pits; k++)
        printf(" %c:%.4f", 'a' + k, policy[k]);
    printf("\nvalue %.4f\nvalues", value[p.to_move]);
    for (int q = 0; q < fr.players; q++)
        printf(" %d:%.4f", q, value[q]);
    printf("\n");
    return 0;
}

/* The rules recorded in the file, without checking anything else ("" when it cannot be read). */
static void file_rules(const char *path, char *out, size_t n)
{
    nn_file_info info;
    nn_net *net = NULL;
    char err[NN_ERRLEN];
    out[0] = 0;
    if (nn_load(path, NULL, &net, &info, err) == NN_OK)
        snprintf(out, n, "%s", info.rules);
    nn_net_free(net);
}

static int net_upgrade(const char *path, int json)
{
    char err[NN_ERRLEN];
    int upgraded = 0;
    if (access(path, R_OK) != 0) {
        cli_error("net", "--upgrade: cannot open %s: %s", path, strerror(errno));
        return 2;
    }
    int rc = nn_upgrade(path, &upgraded, err);
    if (rc != NN_OK) {
        cli_error("net", "--upgrade: %s", err);
        return rc == NN_EFORMAT ? 2 : 1;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", path);
        cJSON_AddBoolToObject(o, "upgraded", upgraded);
        return cli_print_json(o);
    }
    printf(upgraded ? "%s: rewritten with a checksum\n" : "%s: already has a valid checksum, left as it is\n", path);
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
    char frules[NN_META_LEN];
    file_rules(path, frules, sizeof frules);
    if (!strncmp(frules, "basico", 6))
        return net_basico(path, rules_spec, pos_text, json);
    kalah_rules r;
    if (rules_spec && !cli_rules("net", rules_spec, &r))
        return 2;
    int status;
    nn_net *net = load_for(path, &r, rules_spec != NULL, &status);
    if (!net)
        return status;
    kalah_pos p;
    if (!cli_position("net", pos_text, &r, &p)) {
        nn_net_free(net);
        return 2;
    }
    unsigned legal = kalah_legal(&r, &p);
    if (!legal) {
        cli_error("net", "--position: the game is over, there is no move to evaluate");
        nn_net_free(net);
        return 2;
    }
    float x[2 * KALAH_MAX_PITS + 2], policy[KALAH_MAX_PITS], value;
    uint8_t mask[KALAH_MAX_PITS];
    kalah_encode(&r, &p, x);
    for (int k = 0; k < r.pits; k++)
        mask[k] = (legal >> k) & 1;
    nn_workspace *ws = nn_workspace_create(net, 1);
    int rc = ws ? nn_forward(net, ws, x, mask, 1, policy, &value) : NN_ENOMEM;
    nn_workspace_free(ws);
    nn_net_free(net);
    if (rc != NN_OK) {
        cli_error("net", "forward pass failed (%d)", rc);
        return 1;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, "policy");
        for (int k = 0; k < r.pits; k++)
            cJSON_AddItemToArray(arr, cJSON_CreateNumber(policy[k]));
        cJSON_AddNumberToObject(o, "value", value);
        return cli_print_json(o);
    }
    printf("policy");
    for (int k = 0; k < r.pits; k++)
        printf(" %c:%.4f", kalah_move_letter(p.side, k), policy[k]);
    printf("\nvalue %.4f\n", value);
    return 0;
}
