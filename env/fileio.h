/* fileio.h — opening an input file: fopen(path, "r") succeeds on a directory on Linux and the first read
 * then fails, which a reader can only report as "read error"; sz_fopen_input refuses it at the open with
 * errno EISDIR, so that every reader's "cannot open: %s" says "Is a directory". */
#ifndef SOWZERO_ENV_FILEIO_H
#define SOWZERO_ENV_FILEIO_H

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

/* fopen(path, "r") for a file to read as text; NULL with errno set (EISDIR for a directory) on failure.
 * The caller owns the stream. */
static inline FILE *sz_fopen_input(const char *path)
{
    FILE *f = fopen(path, "r");
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
    return f;
}

#endif
