/* fuzz_net_file.c — the checkpoint / net loader (nn_load, nn_ckpt_load, nn/h5io.h) on the input written to
 * a memory file: once as given (the checksum refuses nearly every mutation there), and once with its
 * checksum header recomputed (nn/h5seal.h), so that every mutation reaches libhdf5 and the validation in
 * front of it, as a crafted file would. Property: a file is refused with a message naming it, or loads a net
 * whose every parameter is finite, with a valid search record if it has one — never a crash, a hang or a
 * leak. Seeded with real export and checkpoint files in both HDF5 layouts, and crafted ones
 * (fuzz/corpus/fuzz_net_file/). */
#include "fuzz/fuzz_util.h"

#include <math.h>

#include "nn/h5io.h"
#include "nn/h5seal.h"
#include "nn/net.h"
#include "nn/optim.h"

static void load(const uint8_t *data, size_t n)
{
    char path[64], err[NN_ERRLEN] = "";
    int fd = fz_memfile(data, n, path, sizeof path);
    nn_net *net = NULL;
    nn_optim *opt = NULL;
    nn_ckpt *st = NULL;
    nn_file_info info;
    int rc = nn_load(path, NULL, &net, &info, err);
    FZ_CHECK(rc == NN_OK || strstr(err, path), "refused without naming the file: %s", err);
    if (rc == NN_OK) {
        float *w = nn_params(net);
        for (size_t i = 0; i < nn_param_count(net); i++)
            FZ_CHECK(isfinite(w[i]), "parameter %zu is %g", i, w[i]);
        FZ_CHECK(!info.have_search || nn_search_check(&info.search, err) == NN_OK, "search record: %s", err);
        nn_net_free(net);
        net = NULL;
        rc = nn_ckpt_load(path, NULL, &net, &opt, &st, NULL, err);
        FZ_CHECK(rc == NN_OK || strstr(err, path), "refused without naming the file: %s", err);
        nn_net_free(net);
        nn_optim_free(opt);
        nn_ckpt_free(st);
    }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    load(data, n);
    if (n > H5S_BLOCK) {
        unsigned char *img = malloc(n);
        if (!img)
            abort();
        memcpy(img, data, n);
        h5s_seal(img, n);
        load(img, n);
        free(img);
    }
    return 0;
}
