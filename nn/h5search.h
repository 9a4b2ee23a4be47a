/* h5search.h — the /search record of a net file (nn_search, layout in nn/h5io.h; internal to nn/): the one
 * writer and the one reader, used by every save and load of nn/h5io.c and nn/h5load.c. */
#ifndef SOWZERO_NN_H5SEARCH_H
#define SOWZERO_NN_H5SEARCH_H

#include <hdf5.h>

#include "nn/h5io.h"

/* Writes s as the group /search of the open file f. 0, or -1 with a message in err (NN_ERRLEN). */
int h5r_write(hid_t f, const nn_search *s, char *err);

/* Reads /search of the open file f (named path in messages) into info->search and sets info->have_search
 * (0 when the file has none: NN_OK). NN_EFORMAT naming path and the field when the group is not a group, a
 * field is missing, of another type, not a whole number where one is due, or out of range. */
int h5r_read(hid_t f, const char *path, nn_file_info *info, char *err);

#endif
