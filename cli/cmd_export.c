/* sowzero export — writes the export (weights + metadata, DESIGN.md §3.2) of a checkpoint. */
#include <getopt.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "nn/h5io.h"
#include "nn/net.h"

static void help(void)
{
    puts("usage: sowzero export CHECKPOINT OUT.h5\n"
         "Writes the network of CHECKPOINT (or of another export) as an export file: weights and metadata\n"
         "only, the file a user loads with h5py (see the README). Written to OUT.h5.tmp, then renamed.");
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch == 'h') {
            help();
            return 0;
        }
        return cli_usage_error("export");
    }
    if (argc - optind != 2) {
        cli_error("export", "expected CHECKPOINT and OUT.h5");
        return cli_usage_error("export");
    }
    /* Exporting onto the checkpoint itself would replace it by a weights-only file: the optimiser and
     * training state, and with them --resume, would be gone. */
    struct stat in_st, out_st;
    if (stat(argv[optind], &in_st) == 0 && stat(argv[optind + 1], &out_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino) {
        cli_error("export", "OUT.h5 '%s' is CHECKPOINT itself: give another file name", argv[optind + 1]);
        return 2;
    }
    char err[NN_ERRLEN];
    nn_file_info info;
    nn_net *net;
    if (nn_load(argv[optind], NULL, &net, &info, err) != NN_OK) {
        cli_error("export", "CHECKPOINT: %s", err);
        return 1;
    }
    int rc = nn_export_save(argv[optind + 1], net, info.rules, info.encoding, err);
    if (rc != NN_OK)
        cli_error("export", "OUT.h5: %s", err);
    else
        printf("wrote %s: %zu parameters, rules %s, encoding %s\n", argv[optind + 1], nn_param_count(net),
               info.rules, info.encoding);
    nn_net_free(net);
    return rc == NN_OK ? 0 : 1;
}
