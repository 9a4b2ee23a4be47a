/* h5seal.c — the net file checksum (h5seal.h). */
#define _GNU_SOURCE /* memmem */
#include "nn/h5seal.h"
#include "nn/net_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MAGIC "sowzero-net-file 1\n"
#define CHUNK (1u << 20) /* crc32() calls on memory */
#define READ_CHUNK (64u << 10) /* reads: under malloc's mmap threshold, so a load costs no mmap/munmap */

static const unsigned char hdf5_signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/* The header for a file of n bytes whose tail has CRC crc. */
static void header(unsigned char out[H5S_BLOCK], size_t n, unsigned long crc)
{
    memset(out, 0, H5S_BLOCK);
    snprintf((char *)out, H5S_BLOCK, MAGIC "size %zu\ncrc32 %08lx\n", n, crc & 0xffffffffUL);
}

static unsigned long crc_mem(const unsigned char *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (n) {
        uInt k = n > CHUNK ? CHUNK : (uInt)n;
        c = crc32(c, p, k);
        p += k;
        n -= k;
    }
    return c;
}

void h5s_seal(unsigned char *img, size_t n)
{
    header(img, n, crc_mem(img + H5S_BLOCK, n - H5S_BLOCK));
}

/* Reads exactly n bytes at off (short only at end of file: returns what was read), -1 on error. */
static ssize_t read_at(int fd, unsigned char *buf, size_t n, off_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, off + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int h5s_verify(int fd, const char *path, unsigned long *crc, long long *size, char *err)
{
    struct stat st;
    unsigned char head[H5S_BLOCK], want[H5S_BLOCK];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return nn_fail(err, -1, "%s is not a regular file", path);
    ssize_t h = read_at(fd, head, sizeof head, 0);
    if (h < 0)
        return nn_fail(err, -1, "cannot read %s: %s", path, strerror(errno));
    if (h >= 8 && !memcmp(head, hdf5_signature, 8))
        return H5S_LEGACY;
    if ((size_t)h < strlen(MAGIC) || memcmp(head, MAGIC, strlen(MAGIC)))
        return nn_fail(err, -1, "%s is not a sowzero net file (neither a sowzero checksum header nor HDF5)", path);
    if ((size_t)h < sizeof head)
        return nn_fail(err, -1, "%s: truncated (%zd bytes, shorter than its header)", path, h);
    unsigned char *buf = malloc(READ_CHUNK);
    if (!buf)
        return nn_fail(err, -1, "%s: out of memory verifying the checksum", path);
    uLong c = crc32(0L, Z_NULL, 0);
    off_t off = H5S_BLOCK;
    ssize_t r;
    while ((r = read_at(fd, buf, READ_CHUNK, off)) > 0) {
        c = crc32(c, buf, (uInt)r);
        off += r;
    }
    int e = errno;
    free(buf);
    if (r < 0)
        return nn_fail(err, -1, "cannot read %s: %s", path, strerror(e));
    header(want, (size_t)off, c);
    if (memcmp(head, want, sizeof want)) {
        /* Say which: the size (truncated or extended) or the contents. */
        char size_line[64];
        snprintf(size_line, sizeof size_line, "\nsize %lld\n", (long long)off);
        if (!memmem(head, sizeof head, size_line, strlen(size_line)))
            return nn_fail(err, -1, "%s: truncated, extended or damaged header (the file has %lld bytes, not the size "
                           "its header records)", path, (long long)off);
        return nn_fail(err, -1, "%s: checksum mismatch (the file is damaged)", path);
    }
    if (crc)
        *crc = c & 0xffffffffUL;
    if (size)
        *size = (long long)off;
    return H5S_SEALED;
}
