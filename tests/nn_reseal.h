/* nn_reseal.h — for the tests that edit a net file with libhdf5 directly (to make it wrong in one exact way):
 * recomputes the file's sowzero checksum header (nn/h5seal.h) so that the loader gets past the checksum
 * and meets the edit. Written from the format's description, independently of nn/h5seal.c. */
#ifndef SOWZERO_TESTS_NN_RESEAL_H
#define SOWZERO_TESTS_NN_RESEAL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Returns 0, or -1 when the file cannot be read or written or is shorter than its user block. */
static inline int tu_reseal(const char *path)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    unsigned char *buf = n > 512 ? malloc((size_t)n) : NULL;
    int rc = -1;
    if (buf && fseek(f, 0, SEEK_SET) == 0 && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        unsigned long crc = crc32(0L, buf + 512, (uInt)(n - 512));
        char head[512];
        memset(head, 0, sizeof head);
        snprintf(head, sizeof head, "sowzero-net-file 1\nsize %ld\ncrc32 %08lx\n", n, crc);
        if (fseek(f, 0, SEEK_SET) == 0 && fwrite(head, 1, sizeof head, f) == sizeof head)
            rc = 0;
    }
    free(buf);
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

#endif
