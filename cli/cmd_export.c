/* sowzero export — writes the export (weights + metadata, DESIGN.md §3.2) of a checkpoint. */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "nn/h5io.h"
#include "nn/net.h"

static void help(void)
{
    puts("usage: sowzero export CHECKPOINT OUT.h5 [--json]\n"
         "Writes the network of CHECKPOINT (or of another export) as an export file: weights and metadata\n"
         "only, the file a user loads with h5py (see the README). Written to OUT.h5.tmp, then renamed; the\n"
         "written file is read back and verified before the command reports it.\n"
         "  --json   print {\"file\",\"source\",\"source_kind\",\"rules\",\"encoding\",\"parameters\",\"bytes\",\n"
         "           \"crc32\",\"source_crc32\",\"layers\":[{\"name\",\"W\":[out,in],\"b\":[out],\"residual\"}]}\n"
         "           (crc32: 8 hex digits, CRC-32 of the file's bytes after its 512-byte header, the checksum\n"
         "           sowzero verifies: zlib.crc32(open(f,'rb').read()[512:]) in Python)\n"
         "Exit status: 0, 1 runtime failure (writing OUT.h5, memory), 2 bad input (usage, a missing, damaged or\n"
         "unreadable CHECKPOINT, OUT.h5 the same file as CHECKPOINT, a directory, or in no directory).");
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
    return cli_print_json(o);
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int ch, json = 0;
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
        return cli_usage_error("export");
    }
    if (argc - optind != 2) {
        cli_error("export", "expected CHECKPOINT and OUT.h5");
        return cli_usage_error("export");
    }
    const char *in = argv[optind], *out = argv[optind + 1];
    /* Exporting onto the checkpoint itself would replace it by a weights-only file: the optimiser and
     * training state, and with them --resume, would be gone. */
    struct stat in_st, out_st;
    if (stat(in, &in_st) == 0 && stat(out, &out_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino) {
        cli_error("export", "OUT.h5 '%s' is CHECKPOINT itself: give another file name", out);
        return 2;
    }
    /* Where OUT.h5 cannot be written at all, say so before any work (bad input, not a runtime failure). */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", out);
    struct stat dir_st;
    if (stat(out, &out_st) == 0 && !S_ISREG(out_st.st_mode)) {
        cli_error("export", "OUT.h5 '%s' exists and is not a regular file (a directory?)", out);
        return 2;
    }
    if (stat(dirname(dir), &dir_st) != 0 || !S_ISDIR(dir_st.st_mode)) {
        cli_error("export", "OUT.h5 '%s': its directory does not exist", out);
        return 2;
    }
    char err[NN_ERRLEN];
    nn_file_info info, written;
    nn_net *net, *back = NULL;
    int lrc = nn_load(in, NULL, &net, &info, err);
    if (lrc != NN_OK) { /* a missing, damaged or foreign file is bad input; only memory is a runtime failure */
        cli_error("export", "CHECKPOINT: %s", err);
        return lrc == NN_ENOMEM ? 1 : 2;
    }
    int rc = nn_export_save(out, net, info.rules, info.encoding, err);
    if (rc != NN_OK)
        cli_error("export", "OUT.h5: %s", err);
    else if ((rc = nn_load(out, info.rules, &back, &written, err)) != NN_OK)
        cli_error("export", "OUT.h5: the file written does not read back: %s", err);
    else if (json)
        rc = print_json(out, in, &info, &written, net) ? NN_EIO : NN_OK;
    else
        printf("wrote %s: %zu parameters, rules %s, encoding %s, %lld bytes, crc32 %08lx\n", out,
               nn_param_count(net), written.rules, written.encoding, written.bytes, written.crc32);
    nn_net_free(back);
    nn_net_free(net);
    return rc == NN_OK ? 0 : 1;
}
