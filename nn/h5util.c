/* h5util.c — checked HDF5 attribute and dataset helpers (h5util.h). */
#include "nn/h5util.h"
#include "nn/h5heap.h"
#include "nn/net_internal.h"

#include <stdlib.h>
#include <string.h>

void h5u_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

static int fail(char *err, const char *fmt, const char *name)
{
    nn_fail(err, -1, fmt, name);
    return -1;
}

/* ---- attributes ---- */

static int put_attr(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *v, char *err)
{
    int rc = -1;
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = sp < 0 ? -1 : H5Acreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0 && H5Awrite(a, mtype, v) >= 0)
        rc = 0;
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    return rc ? fail(err, "cannot write attribute '%s'", name) : 0;
}

int h5u_put_str(hid_t loc, const char *name, const char *v, char *err)
{
    /* Fixed-length: a variable-length string lives in the global heap, and libhdf5 (1.10) follows a heap
     * reference from the file without checking it, so a crafted file could crash the reader. */
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0 || H5Tset_size(t, strlen(v) + 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
        H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        if (t >= 0)
            H5Tclose(t);
        return fail(err, "cannot make string type for '%s'", name);
    }
    int rc = put_attr(loc, name, t, t, v, err);
    H5Tclose(t);
    return rc;
}

int h5u_put_i64(hid_t loc, const char *name, int64_t v, char *err)
{
    return put_attr(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v, err);
}

int h5u_put_f64(hid_t loc, const char *name, double v, char *err)
{
    return put_attr(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v, err);
}

/* Opens attribute `name`, a scalar of the given type class; returns the attribute and its file type (*type),
 * 0 when absent, -1 when damaged or mistyped.
 * libhdf5 1.10.8 decodes an object header's attribute messages without checking their lengths against the
 * message: in a file of the old layout (object headers without checksums) edited and resealed, a lookup
 * read past the message (memcpy of the value, strdup of an unterminated name, once into freed memory).
 * That decoding is behind every way to reach an attribute: H5Aexists stops decoding at the name it finds,
 * whereas H5Aiterate2 (listing the names, then H5Aopen_by_name) decodes every message of the header and,
 * on a failed decode, frees a half-built table and crashes (SIGSEGV in H5A__close). On the old-layout
 * export fixture with one bit flipped per byte (41,848 variants), libhdf5 read out of bounds under
 * H5Aexists in 31 and under H5Aiterate2 in 143, 55 of them crashing a normal build. So an old-layout
 * header's attribute messages are checked first (h5h_old_attrs_ok); a file in the current layout has
 * checksummed headers, refused by libhdf5 before any decoding when edited. */
static hid_t open_attr(hid_t loc, const char *name, H5T_class_t want, H5T_class_t also, hid_t *type, char *err)
{
    if (h5h_old_layout(loc) == 1 && h5h_old_attrs_ok(loc, err))
        return -1;
    htri_t ex = H5Aexists(loc, name);
    if (ex == 0)
        return 0;
    if (ex < 0)
        return fail(err, "cannot read attribute '%s' (damaged file)", name);
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0)
        return fail(err, "cannot open attribute '%s' (damaged file)", name);
    hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    H5T_class_t cls = t < 0 ? H5T_NO_CLASS : H5Tget_class(t);
    H5S_class_t sc = sp < 0 ? H5S_NO_CLASS : H5Sget_simple_extent_type(sp);
    hssize_t np = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    if (sp >= 0)
        H5Sclose(sp);
    if ((cls != want && cls != also) || sc != H5S_SCALAR || np != 1) {
        if (t >= 0)
            H5Tclose(t);
        H5Aclose(a);
        return fail(err, "attribute '%s' has the wrong type or shape (a scalar is due)", name);
    }
    *type = t;
    return a;
}

/* The longest string attribute read: every sowzero string (a rules spec, a name) is far shorter. */
#define MAX_STR 4096

int h5u_get_str(hid_t loc, const char *name, char *out, size_t n, char *err)
{
    hid_t t;
    hid_t a = open_attr(loc, name, H5T_STRING, H5T_STRING, &t, err);
    if (a <= 0)
        return (int)a;
    int rc = -1;
    H5T_cset_t cs = H5Tget_cset(t);
    htri_t var = H5Tis_variable_str(t);
    size_t sz = var == 0 ? H5Tget_size(t) : 0;
    hid_t mt = cs == H5T_CSET_ASCII || cs == H5T_CSET_UTF8 ? H5Tcopy(H5T_C_S1) : -1;
    /* Exactly a C string type (as h5u_put_str writes, or the variable-length one it wrote before): a
     * variable-length type also names a base type, which a damaged file can make another. */
    hid_t want = mt >= 0 ? H5Tcopy(H5T_C_S1) : -1;
    if (want < 0 || H5Tset_cset(want, cs) < 0 || H5Tset_strpad(want, H5Tget_strpad(t)) < 0 ||
        H5Tset_size(want, var > 0 ? H5T_VARIABLE : sz ? sz : 1) < 0 || H5Tequal(want, t) <= 0) {
        if (mt >= 0)
            H5Tclose(mt);
        mt = -1;
    }
    if (want >= 0)
        H5Tclose(want);
    /* HDF5 converts no character sets, so the memory type takes the file's (ASCII or UTF-8). */
    if (mt >= 0 && H5Tset_cset(mt, cs) < 0) {
        H5Tclose(mt);
        mt = -1;
    }
    if (mt >= 0 && var > 0) {
        /* Files written before fixed-length strings: the 16-byte heap reference (length, collection
         * address, index), checked against the heap before libhdf5 follows it. */
        char *s = NULL;
        if (h5h_vlen_attr_ok(loc, name, err)) {
            H5Tclose(mt);
            H5Tclose(t);
            H5Aclose(a);
            return -1;
        }
        if (H5Aget_storage_size(a) == 16 && H5Tset_size(mt, H5T_VARIABLE) >= 0 && H5Aread(a, mt, &s) >= 0 && s) {
            if (strlen(s) < n) {
                strcpy(out, s);
                rc = 1;
            }
            H5free_memory(s);
        }
    } else if (mt >= 0 && var == 0 && sz >= 1 && sz <= MAX_STR && H5Aget_storage_size(a) == sz) {
        char *buf = calloc(sz + 1, 1);
        if (buf && H5Tset_size(mt, sz) >= 0 && H5Tset_strpad(mt, H5T_STR_NULLPAD) >= 0 &&
            H5Aread(a, mt, buf) >= 0 && strlen(buf) < n) {
            strcpy(out, buf);
            rc = 1;
        }
        free(buf);
    }
    if (mt >= 0)
        H5Tclose(mt);
    H5Tclose(t);
    H5Aclose(a);
    return rc == 1 ? 1 : fail(err, "attribute '%s' is not a readable string of sensible length", name);
}

/* A number is read only from exactly the little-endian types sowzero writes (int64, double) or the other
 * standard integer and IEEE float types: any other bit layout would convert to another number. */
static int std_num_type(hid_t t)
{
    const hid_t ok[] = {H5T_STD_I8LE, H5T_STD_I16LE, H5T_STD_I32LE, H5T_STD_I64LE, H5T_STD_U8LE,
                        H5T_STD_U16LE, H5T_STD_U32LE, H5T_STD_U64LE, H5T_IEEE_F32LE, H5T_IEEE_F64LE};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (H5Tequal(t, ok[i]) > 0)
            return 1;
    return 0;
}

static int get_num(hid_t loc, const char *name, hid_t mtype, void *v, char *err)
{
    hid_t t;
    hid_t a = open_attr(loc, name, H5T_INTEGER, H5T_FLOAT, &t, err);
    if (a <= 0)
        return (int)a;
    int ok = std_num_type(t) && H5Aget_storage_size(a) == H5Tget_size(t);
    herr_t r = ok ? H5Aread(a, mtype, v) : -1;
    H5Tclose(t);
    H5Aclose(a);
    if (!ok)
        return fail(err, "attribute '%s' is not a little-endian integer or IEEE float", name);
    return r < 0 ? fail(err, "cannot read attribute '%s' (damaged file)", name) : 1;
}

int h5u_get_i64(hid_t loc, const char *name, int64_t *v, char *err)
{
    return get_num(loc, name, H5T_NATIVE_INT64, v, err);
}

int h5u_get_f64(hid_t loc, const char *name, double *v, char *err)
{
    return get_num(loc, name, H5T_NATIVE_DOUBLE, v, err);
}

hid_t h5u_group(hid_t loc, const char *name)
{
    hid_t pl = H5Pcreate(H5P_GROUP_CREATE);
    hid_t g = pl >= 0 && H5Pset_obj_track_times(pl, 0) >= 0 ? H5Gcreate2(loc, name, H5P_DEFAULT, pl, H5P_DEFAULT) : -1;
    if (pl >= 0)
        H5Pclose(pl);
    return g;
}

/* ---- datasets ---- */

/* Creates and writes a dataset; chunked (one chunk) with a Fletcher-32 checksum when it is non-empty. */
static int write_ds(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *data, int rank,
                    const hsize_t *dims, char *err)
{
    int rc = -1;
    hsize_t total = 1;
    for (int i = 0; i < rank; i++)
        total *= dims[i];
    hid_t sp = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
    /* No modification times: the same net gives the same bytes. */
    if (sp < 0 || pl < 0 || H5Pset_obj_track_times(pl, 0) < 0)
        goto out;
    if (rank && total > 0 && (H5Pset_chunk(pl, rank, dims) < 0 || H5Pset_fletcher32(pl) < 0))
        goto out;
    hid_t d = H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    if (d < 0)
        goto out;
    if (total == 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0)
        rc = 0;
    H5Dclose(d);
out:
    if (pl >= 0)
        H5Pclose(pl);
    if (sp >= 0)
        H5Sclose(sp);
    return rc ? fail(err, "cannot write dataset '%s'", name) : 0;
}

int h5u_write_f32(hid_t loc, const char *name, const float *data, size_t rows, size_t cols, char *err)
{
    hsize_t d[2] = {rows, cols};
    return rows ? write_ds(loc, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, data, 2, d, err)
                : write_ds(loc, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, data, 1, d + 1, err);
}

int h5u_write_i64(hid_t loc, const char *name, int64_t v, char *err)
{
    return write_ds(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v, 0, NULL, err);
}

int h5u_write_bytes(hid_t loc, const char *name, const void *data, size_t n, char *err)
{
    hsize_t d = n;
    return write_ds(loc, name, H5T_STD_U8LE, H5T_NATIVE_UINT8, data, 1, &d, err);
}

hid_t h5u_open_ds(hid_t loc, const char *name, char *err)
{
    /* In the old layout nothing checksums a dataset's layout message, and libhdf5 divides by its chunk
     * dimensions while opening the dataset. */
    int old = h5h_old_layout(loc);
    if (old < 0 || (old && h5h_old_dataset_ok(loc, name, err)))
        return old < 0 ? fail(err, "cannot open dataset '%s' (damaged file)", name) : -1;
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    return d < 0 ? fail(err, "cannot open dataset '%s' (damaged file)", name) : d;
}

int h5u_shape_f32(hid_t loc, const char *name, int *rank, size_t dims[2], char *err)
{
    htri_t ex = H5Lexists(loc, name, H5P_DEFAULT);
    if (ex <= 0)
        return fail(err, "dataset '%s' is missing", name);
    hid_t d = h5u_open_ds(loc, name, err);
    if (d < 0)
        return -1;
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    /* Exactly IEEE float32 little-endian, as written: a class check alone would let a damaged or foreign
     * type (other size, byte order, mantissa layout) through libhdf5's conversion as other numbers. */
    int ok = t >= 0 && sp >= 0 && H5Tequal(t, H5T_IEEE_F32LE) > 0;
    int r = ok ? H5Sget_simple_extent_ndims(sp) : -1;
    hsize_t hd[2] = {0, 0};
    if (r == 1 || r == 2)
        H5Sget_simple_extent_dims(sp, hd, NULL);
    else
        ok = 0;
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    H5Dclose(d);
    if (!ok)
        return fail(err, "dataset '%s' is not a 1-D or 2-D float32 (IEEE little-endian) array", name);
    *rank = r;
    dims[0] = (size_t)hd[0];
    dims[1] = (size_t)hd[1];
    return 0;
}

int h5u_check_storage(hid_t d, const char *name, size_t nbytes, char *err)
{
    int ok = 0;
    hid_t pl = H5Dget_create_plist(d), sp = H5Dget_space(d);
    int rank = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
    hsize_t dims[H5S_MAX_RANK], cdims[H5S_MAX_RANK], off[H5S_MAX_RANK], n_chunks = 0;
    H5D_space_status_t st;
    if (pl < 0 || rank < 0 || H5Sget_simple_extent_dims(sp, dims, NULL) < 0 ||
        H5Dget_space_status(d, &st) < 0)
        goto out;
    H5D_layout_t lay = H5Pget_layout(pl);
    if (nbytes == 0) {
        ok = lay == H5D_CONTIGUOUS || lay == H5D_COMPACT;
    } else if (rank == 0) {
        /* A scalar (h5u_write_i64): unfiltered, stored whole. */
        ok = (lay == H5D_CONTIGUOUS || lay == H5D_COMPACT) && st == H5D_SPACE_STATUS_ALLOCATED &&
             H5Dget_storage_size(d) == nbytes && H5Pget_nfilters(pl) == 0;
    } else if (lay == H5D_CHUNKED && H5Pget_chunk(pl, rank, cdims) == rank && H5Pget_nfilters(pl) == 1) {
        /* An array (write_ds): one chunk the array's shape, with its Fletcher-32 checksum applied. */
        unsigned flags, mask = ~0u, cd[4];
        size_t ncd = 4;
        haddr_t addr;
        hsize_t csize = 0;
        /* The space status of a filtered dataset reads "partly allocated" (the stored bytes include the
         * checksum), so the one chunk's own record is what tells it is there. */
        ok = H5Pget_filter2(pl, 0, &flags, &ncd, cd, 0, NULL, NULL) == H5Z_FILTER_FLETCHER32 &&
             st != H5D_SPACE_STATUS_NOT_ALLOCATED && H5Dget_num_chunks(d, sp, &n_chunks) >= 0 && n_chunks == 1 &&
             H5Dget_chunk_info(d, sp, 0, off, &mask, &addr, &csize) >= 0 && mask == 0 &&
             csize == nbytes + 4 && H5Dget_storage_size(d) == nbytes + 4;
        for (int i = 0; ok && i < rank; i++)
            ok = cdims[i] == dims[i] && off[i] == 0;
        /* The lookup a read makes (by coordinates, through the chunk index's keys) must find that chunk. */
        haddr_t addr2 = HADDR_UNDEF;
        hsize_t csize2 = 0;
        mask = ~0u;
        ok = ok && H5Dget_chunk_info_by_coord(d, off, &mask, &addr2, &csize2) >= 0 && addr2 == addr &&
             csize2 == csize && mask == 0;
    }
out:
    if (pl >= 0)
        H5Pclose(pl);
    if (sp >= 0)
        H5Sclose(sp);
    return ok ? 0 : fail(err, "dataset '%s' is not stored whole (a lost chunk, or another layout than sowzero writes)", name);
}

int h5u_check_read(hid_t d, const char *name, const void *data, size_t nbytes, size_t elsize, char *err)
{
    hsize_t off[H5S_MAX_RANK] = {0}, csize = 0;
    unsigned mask = ~0u;
    uint32_t filters = ~0u;
    haddr_t addr = HADDR_UNDEF;
    int ok = 0;
    unsigned char *raw = NULL;
    if (nbytes == 0)
        return 0;
    if (H5Dget_chunk_info_by_coord(d, off, &mask, &addr, &csize) >= 0 && addr != HADDR_UNDEF &&
        csize == nbytes + 4 && (raw = malloc((size_t)csize)) &&
        H5Dread_chunk(d, H5P_DEFAULT, off, &filters, raw) >= 0 && filters == 0) {
        ok = 1;
        /* The stored bytes are little-endian elements; data holds them in host order. */
        const unsigned char *p = data;
        for (size_t i = 0; ok && i < nbytes; i += elsize) {
            uint32_t host = 0, le = 0;
            if (elsize == 4) {
                memcpy(&host, p + i, 4);
                le = (uint32_t)raw[i] | (uint32_t)raw[i + 1] << 8 | (uint32_t)raw[i + 2] << 16 |
                     (uint32_t)raw[i + 3] << 24;
            } else {
                host = p[i];
                le = raw[i];
            }
            ok = host == le;
        }
    }
    free(raw);
    return ok ? 0 : fail(err, "dataset '%s' read other values than its stored chunk holds (damaged chunk index)", name);
}

int h5u_read_f32(hid_t loc, const char *name, float *data, size_t rows, size_t cols, char *err)
{
    int rank;
    size_t dims[2];
    if (h5u_shape_f32(loc, name, &rank, dims, err) < 0)
        return -1;
    if (rows ? (rank != 2 || dims[0] != rows || dims[1] != cols) : (rank != 1 || dims[0] != cols)) {
        if (rows)
            nn_fail(err, -1, "dataset '%s' has shape %zux%zu, expected %zux%zu", name, dims[0],
                    rank == 2 ? dims[1] : 0, rows, cols);
        else
            nn_fail(err, -1, "dataset '%s' has %zu elements, expected %zu", name, dims[0], cols);
        return -1;
    }
    hid_t d = h5u_open_ds(loc, name, err);
    if (d < 0)
        return -1;
    if (h5u_check_storage(d, name, (rows ? rows : 1) * cols * sizeof(float), err)) {
        H5Dclose(d);
        return -1;
    }
    herr_t r = H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    int same = r < 0 || h5u_check_read(d, name, data, (rows ? rows : 1) * cols * sizeof(float), sizeof(float), err);
    H5Dclose(d);
    if (r < 0)
        return fail(err, "cannot read dataset '%s' (truncated or corrupt: checksum or I/O error)", name);
    return same ? -1 : 0;
}
