/* cmd_tablebase.h — where `tablebase build` and `solve` write a tablebase file by default. */
#ifndef SOWZERO_CLI_CMD_TABLEBASE_H
#define SOWZERO_CLI_CMD_TABLEBASE_H

#include <stddef.h>
#include "env/kalah.h"

/* The standard path of the file of rules r with `seeds` seeds in the tablebase folder (eg_cache_dir),
 * into path (n bytes); create_dir: make the folder first. 0, or -1 after printing an error. */
int cli_tablebase_default_path(const kalah_rules *r, int seeds, char *path, size_t n, int create_dir);

#endif
