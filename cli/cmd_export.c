/* sowzero export — writes the export (weights + metadata, docs/design.md §3.2) of a checkpoint. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/output_path.h"
#include "cli/net_search.h"
#include "nn/h5io.h"
#include "nn/net.h"
#include "train/config.h"
#include "train/train.h"

static void help(void)
{
    puts("usage: sowzero export CHECKPOINT OUT.h5 [--config FILE.ini] [--json]\n"
         "Writes the network of CHECKPOINT (or of another export) as an export file: weights and metadata\n"
         "only, the file a user loads with h5py (see the README). Written to a new OUT.h5.PID.N.tmp, then\n"
         "renamed (a file already there under any name is never overwritten but OUT.h5 itself); the\n"
         "written file is read back and verified before the command reports it. The weights are copied\n"
         "exactly (float32 in, float32 out). The source's search record (the search settings it was trained\n"
         "with, the az agent's defaults for the net: nn/h5io.h /search) goes along.\n"
         "  --config FILE.ini  record the search settings of this training config instead (eval.sims,\n"
         "           eval.batch, mcts.c_puct, fpu_reduction, margin_utility, solver, root, gumbel_*; as\n"
         "           `sowzero train` records them); its rules must be the net's. For a net trained before\n"
         "           nets carried the record: its run's config.ini\n"
         "  --json   print {\"file\",\"source\",\"source_kind\",\"rules\",\"encoding\",\"parameters\",\"bytes\",\n"
         "           \"crc32\",\"source_crc32\",\"layers\":[{\"name\",\"W\":[out,in],\"b\":[out],\"residual\"}],\n"
         "           \"onehot\":{\"inputs\",\"levels\",\"scale\"} (the first layer's one-hot input features,\n"
         "           nn/net.h) or null, \"search\":{the record's fields, as `sowzero net --json`} or null}\n"
         "           (crc32: 8 hex digits, CRC-32 of the file's bytes after its 512-byte header, the checksum\n"
         "           sowzero verifies: zlib.crc32(open(f,'rb').read()[512:]) in Python)\n"
         "Exit status: 0, 1 runtime failure (writing OUT.h5, memory), 2 bad input (usage, a missing, damaged or\n"
         "unreadable CHECKPOINT, OUT.h5 the same file as CHECKPOINT, a directory, or in no directory, a bad\n"
         "--config, one for other rules, or one with mcts.margin_utility > 0 for a net without a margin head).");
}

/* The export just written, as --json reports it: the file read back (verified), its shapes and checksums. */
static int print_json(const char *out, const char *in, const nn_file_info *src, const nn_file_info *dst,
                      const nn_net *net)
{
    char hex[16];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", out);
    cJSON_AddStringToObject(o, "source", in);
    cJSON_AddStringToObject(o, "source_kind", src->kind);
    cJSON_AddStringToObject(o, "rules", dst->rules);
    cJSON_AddStringToObject(o, "encoding", dst->encoding);
    cJSON_AddNumberToObject(o, "parameters", (double)nn_param_count(net));
    cJSON_AddNumberToObject(o, "bytes", (double)dst->bytes);
    snprintf(hex, sizeof hex, "%08lx", dst->crc32);
    cJSON_AddStringToObject(o, "crc32", hex);
    snprintf(hex, sizeof hex, "%08lx", src->crc32);
    cJSON_AddStringToObject(o, "source_crc32", hex);
    cJSON *layers = cJSON_AddArrayToObject(o, "layers");
    for (int i = 0; i < nn_layer_count(net); i++) {
        nn_layer L;
        if (nn_layer_get(net, i, &L) != NN_OK)
            break;
        cJSON *l = cJSON_CreateObject();
        cJSON_AddStringToObject(l, "name", L.name);
        int w[2] = {L.out, L.in};
        cJSON_AddItemToObject(l, "W", cJSON_CreateIntArray(w, 2));
        cJSON_AddItemToObject(l, "b", cJSON_CreateIntArray(&L.out, 1));
        cJSON_AddBoolToObject(l, "residual", L.residual);
        cJSON_AddItemToArray(layers, l);
    }
    const nn_config *c = nn_net_config(net);
    if (c->onehot_inputs) { /* the first layer's one-hot input features (nn/net.h) */
        cJSON *oh = cJSON_AddObjectToObject(o, "onehot");
        cJSON_AddNumberToObject(oh, "inputs", c->onehot_inputs);
        cJSON_AddNumberToObject(oh, "levels", c->onehot_levels);
        cJSON_AddNumberToObject(oh, "scale", c->onehot_scale);
    } else {
        cJSON_AddNullToObject(o, "onehot");
    }
    cJSON_AddItemToObject(o, "search", ns_json(dst->have_search ? &dst->search : NULL));
    return cli_print_json(o);
}

/* --config: the search record of the training config at path, whose rules must be net_rules. Prints the
 * error and returns -1 when the config does not load or is for other rules. */
static int config_record(const char *path, const char *net_rules, nn_search *out)
{
    static cfg_config c; /* large: off the stack */
    char err[CFG_ERRLEN], spec[GAME_SPEC_MAX];
    cfg_defaults(&c);
    if (cfg_load(&c, path, err) || cfg_finish(&c, err)) {
        cli_error("export", "--config: %s", err);
        return -1;
    }
    if (strcmp(cfg_rules_spec(&c, spec, sizeof spec), net_rules)) {
        cli_error("export", "--config %s is for rules '%s', the net's are '%s'", path, spec, net_rules);
        return -1;
    }
    train_search_record(&c, out);
    return 0;
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'},
                                         {"config", required_argument, 0, 'c'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int ch, json = 0;
    const char *config = NULL;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch == 'h') {
            help();
            return 0;
        }
        if (ch == 'j') {
            json = 1;
            continue;
        }
        if (ch == 'c') {
            config = optarg;
            continue;
        }
        return cli_usage_error("export");
    }
    if (argc - optind != 2) {
        cli_error("export", "expected CHECKPOINT and OUT.h5");
        return cli_usage_error("export");
    }
    const char *in = argv[optind], *out = argv[optind + 1];
    /* Exporting onto the checkpoint itself would replace it by a weights-only file: the optimiser and
     * training state, and with them --resume, would be gone. Where OUT.h5 cannot be written at all, say so
     * before any work (bad input, not a runtime failure). */
    const cli_input inputs[2] = {{"CHECKPOINT", in}, {"the --config file", config}};
    if (!cli_output_check("export", "OUT.h5", out, CLI_OUT_REPLACE, inputs, 2))
        return 2;
    char err[NN_ERRLEN];
    nn_file_info info, written;
    nn_net *net, *back = NULL;
    int lrc = nn_load(in, NULL, &net, &info, err);
    if (lrc != NN_OK) { /* a missing, damaged or foreign file is bad input; only memory is a runtime failure */
        cli_error("export", "CHECKPOINT: %s", err);
        return lrc == NN_ENOMEM ? 1 : 2;
    }
    nn_search record;
    const nn_search *search = info.have_search ? &info.search : NULL;
    if (config && config_record(config, info.rules, &record)) {
        nn_net_free(net);
        return 2;
    }
    if (config)
        search = &record;
    /* A record the az agent refuses (selfplay/evaluator.c) would make the file unusable without a margin=0 key
     * on every spec: refuse to write it, as train refuses the config for such a net (train/config.c). */
    if (config && record.margin_utility > 0 && !nn_net_config(net)->margin_head) {
        cli_error("export", "--config %s: mcts.margin_utility = %g needs a net with a margin head, and %s has none "
                  "(set mcts.margin_utility = 0 for this net)", config, record.margin_utility, in);
        nn_net_free(net);
        return 2;
    }
    int rc = nn_export_save_search(out, net, info.rules, info.encoding, search, err);
    if (rc != NN_OK)
        cli_error("export", "OUT.h5: %s", err);
    else if ((rc = nn_load(out, info.rules, &back, &written, err)) != NN_OK)
        cli_error("export", "OUT.h5: the file written does not read back: %s", err);
    else if (json)
        rc = print_json(out, in, &info, &written, net) ? NN_EIO : NN_OK;
    else
    {
        char keys[256];
        printf("wrote %s: %zu parameters, rules %s, encoding %s, %lld bytes, crc32 %08lx\n%s%s\n", out,
               nn_param_count(net), written.rules, written.encoding, written.bytes, written.crc32,
               written.have_search ? "search record: " : "no search record (the az agent's built-in defaults)",
               written.have_search ? ns_keys(&written.search, keys, sizeof keys) : "");
    }
    nn_net_free(back);
    nn_net_free(net);
    return rc == NN_OK ? 0 : 1;
}
