/* fuzz_config.c — INI configs (cfg_load then cfg_finish, train/config.h), the input given as the file.
 * Property: a config either loads or is an error with a message (naming file:line). A config whose eval
 * opponents ask for an ab table over 64 MiB is skipped (fz_big_table): cfg_finish builds every opponent
 * to check it, table included. */
#include "fuzz/fuzz_util.h"

#include "train/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char path[64], err[CFG_ERRLEN] = "";
    if (fz_big_table(data, n))
        return 0;
    int fd = fz_memfile(data, n, path, sizeof path);
    cfg_config *c = malloc(sizeof *c);
    if (!c)
        abort();
    cfg_defaults(c);
    int rc = cfg_load(c, path, err);
    if (rc == 0) {
        err[0] = 0;
        rc = cfg_finish(c, err);
    }
    FZ_CHECK(rc == 0 || err[0], "error %d without a message", rc);
    free(c);
    close(fd);
    return 0;
}
