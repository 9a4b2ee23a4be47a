/* h5heap.c — checks a variable-length string attribute's global-heap reference before libhdf5 follows it
 * (h5heap.h). The layouts parsed here are those of the HDF5 file format specification, version 0/1
 * superblock and version 1 object headers: the form of every file sowzero wrote before its strings became
 * fixed-length. */
#define _GNU_SOURCE
#include "nn/h5heap.h"
#include "nn/net_internal.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_CHUNKS 64      /* object header chunks followed (one header holds a dozen attributes) */
#define MAX_HEAP (1 << 20) /* the largest heap collection read */

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Reads n bytes at off into buf: 0, or -1 when the file is shorter. */
static int get(int fd, uint64_t size, uint64_t off, void *buf, size_t n)
{
    if (off > size || n > size - off)
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

/* The heap object (collection at file offset coll, index idx) exists, as libhdf5 would parse the
 * collection, with exactly len bytes. */
static int heap_object_ok(int fd, uint64_t size, uint64_t coll, uint32_t idx, uint32_t len)
{
    unsigned char h[16];
    if (idx == 0 || get(fd, size, coll, h, sizeof h) || memcmp(h, "GCOL", 4) || h[4] != 1)
        return 0;
    uint64_t cs = le(h + 8, 8);
    if (cs < 4096 || cs > MAX_HEAP)
        return 0;
    unsigned char *c = malloc(cs);
    int ok = 0, found = 0;
    uint64_t found_len = 0;
    if (c && !get(fd, size, coll, c, cs)) {
        ok = 1;
        /* As libhdf5's reader: objects (index, references, reserved, size, data padded to 8) until the
         * collection ends; index 0 is the free space, whose size counts its header. */
        for (uint64_t p = 16; ok && p < cs;) {
            if (cs - p < 16)
                break;
            uint32_t i = (uint32_t)le(c + p, 2);
            uint64_t sz = le(c + p + 8, 8);
            uint64_t need = i ? 16 + pad8(sz) : sz;
            if (sz > cs || need < 16 || need > cs - p)
                ok = 0;
            else if (i == idx) {
                found = 1;
                found_len = sz;
            }
            p += need;
        }
    }
    free(c);
    return ok && found && found_len == len;
}

/* Checks the attribute message at m (size n) if it is named name: *seen counts the matches. 0, or -1 when a
 * match's heap reference is bad. */
static int check_attr(int fd, uint64_t size, uint64_t base, const unsigned char *m, uint64_t n, const char *name,
                      int *seen)
{
    if (n < 8)
        return -1;
    int v = m[0];
    uint64_t nsz = le(m + 2, 2), dtsz = le(m + 4, 2), dssz = le(m + 6, 2), at = v == 3 ? 9 : 8;
    if (v < 1 || v > 3)
        return -1;
    if (nsz != strlen(name) + 1 || at + nsz > n || memcmp(m + at, name, nsz))
        return 0;
    ++*seen;
    uint64_t raw = v == 1 ? at + pad8(nsz) + pad8(dtsz) + pad8(dssz) : at + nsz + dtsz + dssz;
    if (raw > n || n - raw < 16)
        return -1;
    uint32_t len = (uint32_t)le(m + raw, 4), idx = (uint32_t)le(m + raw + 12, 4);
    uint64_t addr = le(m + raw + 4, 8);
    if (addr > size || base > size - addr)
        return -1;
    return heap_object_ok(fd, size, base + addr, idx, len) ? 0 : -1;
}

/* A message callback: 0 to go on, -1 when the message is bad. */
typedef int (*msg_fn)(int fd, uint64_t size, uint64_t base, unsigned type, const unsigned char *d, uint64_t n,
                      void *ctx);

/* Opens the file of loc again, finds the superblock (version 0 or 1, 8-byte addresses) and walks the version
 * 1 object header at addr (-1: loc's own) calling fn on each message. 0, or -1 when the file is laid out
 * otherwise or a message is bad. */
static int walk_header(hid_t loc, const char *obj, msg_fn fn, void *ctx)
{
    char path[64];
    H5O_info_t oi;
    ssize_t pn = H5Fget_name(loc, path, sizeof path);
    if (pn <= 0 || pn >= (ssize_t)sizeof path ||
        (obj ? H5Oget_info_by_name2(loc, obj, &oi, H5O_INFO_BASIC, H5P_DEFAULT) : H5Oget_info2(loc, &oi, H5O_INFO_BASIC)) < 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    uint64_t size = (uint64_t)st.st_size, base = 0, sb = 0;
    unsigned char b[40];
    int ok = 0;
    /* The superblock: at 0 or at a power of two from 512 on, after a user block. */
    for (sb = 0; sb < size; sb = sb ? sb * 2 : 512)
        if (!get(fd, size, sb, b, sizeof b) && !memcmp(b, "\211HDF\r\n\032\n", 8))
            break;
    /* Addresses count from the superblock: libhdf5 takes its position as the base address whatever the
     * recorded one says (a file whose user block was cut off). */
    if (sb < size && (b[8] == 0 || b[8] == 1) && b[13] == 8 && b[14] == 8) {
        base = sb;
        ok = 1;
    }
    /* The version 1 object header: its first chunk follows a 16-byte prefix; continuation messages (type
     * 0x10) add chunks. Messages: type, size, flags, 3 reserved, data. */
    uint64_t chunk[MAX_CHUNKS][2];
    int n_chunks = 0;
    unsigned char pre[16];
    if (ok && (oi.addr > size || base > size - oi.addr || get(fd, size, base + oi.addr, pre, sizeof pre) ||
               pre[0] != 1))
        ok = 0;
    if (ok) {
        chunk[0][0] = base + oi.addr + 16;
        chunk[0][1] = le(pre + 8, 4);
        n_chunks = 1;
    }
    for (int c = 0; ok && c < n_chunks; c++) {
        uint64_t len = chunk[c][1];
        unsigned char *m = len <= MAX_HEAP ? malloc(len ? len : 1) : NULL;
        if (!m || get(fd, size, chunk[c][0], m, len))
            ok = 0;
        for (uint64_t p = 0; ok && p + 8 <= len;) {
            unsigned type = (unsigned)le(m + p, 2);
            uint64_t msz = le(m + p + 2, 2);
            if (msz > len - p - 8) {
                ok = 0;
                break;
            }
            const unsigned char *d = m + p + 8;
            if (type == 0x10) {
                if (msz < 16 || n_chunks == MAX_CHUNKS)
                    ok = 0;
                else {
                    chunk[n_chunks][0] = base + le(d, 8);
                    chunk[n_chunks++][1] = le(d + 8, 8);
                }
            } else if (fn(fd, size, base, type, d, msz, ctx))
                ok = 0;
            p += 8 + msz;
        }
        free(m);
    }
    close(fd);
    return ok ? 0 : -1;
}

typedef struct {
    const char *name;
    int seen;
} attr_ctx;

static int attr_msg(int fd, uint64_t size, uint64_t base, unsigned type, const unsigned char *d, uint64_t n, void *ctx)
{
    attr_ctx *a = ctx;
    return type == 0x0c ? check_attr(fd, size, base, d, n, a->name, &a->seen) : 0;
}

int h5h_vlen_attr_ok(hid_t loc, const char *name, char *err)
{
    attr_ctx a = {name, 0};
    if (walk_header(loc, NULL, attr_msg, &a) || a.seen != 1)
        return nn_fail(err, -1, "attribute '%s' is a variable-length string whose heap reference does not check out "
                       "(damaged or crafted file)", name);
    return 0;
}

/* The layout message (type 8, version 3): a chunked layout's dimensions (rank + 1 of them, 4 bytes each,
 * after the rank byte and the 8-byte index address) must all be non-zero: libhdf5 divides by them. */
static int layout_msg(int fd, uint64_t size, uint64_t base, unsigned type, const unsigned char *d, uint64_t n,
                      void *ctx)
{
    (void)fd, (void)size, (void)base;
    if (type != 0x08)
        return 0;
    ++*(int *)ctx;
    if (n < 2 || d[0] != 3)
        return -1;
    if (d[1] != 2)
        return d[1] <= 1 ? 0 : -1;
    int dims = n >= 3 ? d[2] : 0;
    if (dims < 2 || dims > 3 || n < 11 + 4 * (uint64_t)dims)
        return -1;
    for (int i = 0; i < dims; i++)
        if (le(d + 11 + 4 * i, 4) == 0)
            return -1;
    return 0;
}

int h5h_old_dataset_ok(hid_t loc, const char *name, char *err)
{
    int seen = 0;
    if (walk_header(loc, name, layout_msg, &seen) || seen != 1)
        return nn_fail(err, -1, "dataset '%s' has a damaged storage layout", name);
    return 0;
}

/* The minimal size of the datatype message at d (n bytes) as libhdf5 decodes it without looking at n: the
 * classes sowzero's files hold (fixed-point 12, floating-point 20, string 8, variable-length 8 + its base
 * type, itself fixed-point or string); 0 for any other class or a base type that does not fit. */
static uint64_t dtype_need(const unsigned char *d, uint64_t n, int depth)
{
    if (n < 8)
        return 0;
    switch (d[0] & 0x0f) {
    case 0: return 12;
    case 1: return 20;
    case 3: return 8;
    case 9: {
        uint64_t base = depth ? 0 : dtype_need(d + 8, n - 8, 1);
        return base && (d[8] & 0x0f) != 9 ? 8 + base : 0;
    }
    default: return 0;
    }
}

/* The bounds libhdf5 1.10.8's attribute decoding (H5O_attr_decode, under every attribute call) takes
 * for granted: the name NUL-terminated within its length, the datatype and dataspace within theirs, and
 * the value (the dataspace's points times the type's size) within the message. A message that breaks one
 * would be decoded from bytes past it (read past the header chunk, into freed memory). *(int *)ctx counts
 * the attribute messages. */
static int attr_bounds_msg(int fd, uint64_t size, uint64_t base, unsigned type, const unsigned char *m, uint64_t n,
                           void *ctx)
{
    (void)fd, (void)size, (void)base;
    if (type != 0x0c)
        return 0;
    ++*(int *)ctx;
    if (n < 8)
        return -1;
    int v = m[0];
    uint64_t nsz = le(m + 2, 2), dtsz = le(m + 4, 2), dssz = le(m + 6, 2), at = v == 3 ? 9 : 8;
    /* version 2 and 3 flag shared datatypes and dataspaces (stored elsewhere): sowzero never wrote any */
    if (v < 1 || v > 3 || (v > 1 && (m[1] & 3)) || nsz < 1 || at + nsz > n || !memchr(m + at, 0, nsz))
        return -1;
    uint64_t dt = at + (v == 1 ? pad8(nsz) : nsz), ds = dt + (v == 1 ? pad8(dtsz) : dtsz),
             raw = ds + (v == 1 ? pad8(dssz) : dssz);
    if (raw > n)
        return -1;
    uint64_t need = dtype_need(m + dt, dtsz, 0), tsize = le(m + dt + 4, 4);
    if (!need || need > dtsz || tsize < 1 || tsize > n)
        return -1;
    /* The dataspace: version 1 (version, rank, flags, 5 reserved) or 2 (version, rank, flags, type), then
     * rank 8-byte sizes and, with flag bit 0, as many maxima. */
    const unsigned char *s = m + ds;
    if (dssz < 4 || (s[0] != 1 && s[0] != 2) || s[1] > 32 || (s[2] & ~1u))
        return -1;
    uint64_t rank = s[1], hdr = s[0] == 1 ? 8 : 4, points = s[0] == 2 && s[3] == 2 ? 0 : 1;
    if (hdr + rank * 8 * (1 + (s[2] & 1u)) > dssz)
        return -1;
    for (uint64_t i = 0; i < rank && points; i++) {
        uint64_t dim = le(s + hdr + 8 * i, 8);
        if (dim > n)
            return -1;
        points *= dim;
        if (points > n)
            return -1;
    }
    return points * tsize > n - raw ? -1 : 0;
}

int h5h_old_attrs_ok(hid_t loc, char *err)
{
    int seen = 0;
    if (walk_header(loc, NULL, attr_bounds_msg, &seen)) {
        char obj[64] = "";
        if (H5Iget_name(loc, obj, sizeof obj) <= 0)
            snprintf(obj, sizeof obj, "?");
        return nn_fail(err, -1, "the attributes of '%s' do not decode within their object header (damaged or "
                       "crafted file)", obj);
    }
    return 0;
}

int h5h_old_layout(hid_t f)
{
    char path[64];
    unsigned char b[16];
    ssize_t pn = H5Fget_name(f, path, sizeof path);
    int fd = pn > 0 && pn < (ssize_t)sizeof path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    int old = -1;
    if (fd >= 0 && fstat(fd, &st) == 0)
        for (uint64_t sb = 0; sb < (uint64_t)st.st_size; sb = sb ? sb * 2 : 512)
            if (!get(fd, (uint64_t)st.st_size, sb, b, sizeof b) && !memcmp(b, "\211HDF\r\n\032\n", 8)) {
                old = b[8] < 2;
                break;
            }
    if (fd >= 0)
        close(fd);
    return old;
}
