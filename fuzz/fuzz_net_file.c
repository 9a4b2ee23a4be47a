/* fuzz_net_file.c — the checkpoint / net loader (nn_load, nn_ckpt_load, nn/h5io.h) on the input written to
 * a memory file. Property: a file is refused with a message naming it, or loads a net whose every parameter
 * is finite — never a crash, a hang or a leak. Seeded with real export and checkpoint files. */
#include "fuzz/fuzz_util.h"

#include <math.h>

#include "nn/h5io.h"
#include "nn/net.h"
#include "nn/optim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char path[64], err[NN_ERRLEN] = "";
    int fd = fz_memfile(data, n, path, sizeof path);
    nn_net *net = NULL;
    nn_optim *opt = NULL;
    nn_ckpt *st = NULL;
    int rc = nn_load(path, NULL, &net, NULL, err);
    FZ_CHECK(rc == NN_OK || strstr(err, path), "refused without naming the file: %s", err);
    if (rc == NN_OK) {
        float *w = nn_params(net);
        for (size_t i = 0; i < nn_param_count(net); i++)
            FZ_CHECK(isfinite(w[i]), "parameter %zu is %g", i, w[i]);
        nn_net_free(net);
        net = NULL;
        rc = nn_ckpt_load(path, NULL, &net, &opt, &st, NULL, err);
        FZ_CHECK(rc == NN_OK || strstr(err, path), "refused without naming the file: %s", err);
        nn_net_free(net);
        nn_optim_free(opt);
        nn_ckpt_free(st);
    }
    close(fd);
    return 0;
}
