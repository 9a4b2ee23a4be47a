/* h5util.h — small checked HDF5 helpers for nn/h5io.c (internal to nn/). Every reader validates class,
 * rank and size before reading, so a damaged or foreign file yields an error code, never a crash. All
 * return 0 on success and -1 on failure (with a message in err, NN_ERRLEN bytes) unless noted. */
#ifndef SOWZERO_NN_H5UTIL_H
#define SOWZERO_NN_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* Switches off HDF5's automatic error printing for this thread's default stack (library code never
 * prints). */
void h5u_quiet(void);

/* Attributes on loc (a file or group), all scalars. Strings are fixed-length NUL-terminated UTF-8 (h5py
 * reads them as bytes); integers are int64, reals double. */
int h5u_put_str(hid_t loc, const char *name, const char *v, char *err);
int h5u_put_i64(hid_t loc, const char *name, int64_t v, char *err);
int h5u_put_f64(hid_t loc, const char *name, double v, char *err);

/* Readers accept a scalar string, fixed-length or (files written before fixed-length) variable-length, and
 * a scalar of a standard little-endian integer or IEEE float type.
 * Return 1 when found and read, 0 when the attribute does not exist, -1 on a damaged/mistyped one.
 * h5u_get_str truncation (value longer than n-1 bytes) is an error. */
int h5u_get_str(hid_t loc, const char *name, char *out, size_t n, char *err);
int h5u_get_i64(hid_t loc, const char *name, int64_t *v, char *err);
int h5u_get_f64(hid_t loc, const char *name, double *v, char *err);

/* Creates group loc/name without modification times (as every object written: the same contents give the
 * same file bytes). The group, or -1. */
hid_t h5u_group(hid_t loc, const char *name);

/* Datasets. Floats are stored float32, chunked as one chunk with a Fletcher-32 checksum so damaged data
 * is detected on read. rows = 0 writes a 1-D dataset of `cols` elements; otherwise rows × cols. */
int h5u_write_f32(hid_t loc, const char *name, const float *data, size_t rows, size_t cols, char *err);
/* Reads a float dataset whose shape must be exactly (rows × cols), or 1-D cols when rows = 0. */
int h5u_read_f32(hid_t loc, const char *name, float *data, size_t rows, size_t cols, char *err);
/* The shape of a dataset: rank (1 or 2 accepted) and dims; -1 when absent, of another type than exactly
 * H5T_IEEE_F32LE (what h5u_write_f32 writes), or another rank. */
int h5u_shape_f32(hid_t loc, const char *name, int *rank, size_t dims[2], char *err);

/* H5Dopen2 of loc/name, after checking its layout where the file's metadata has no checksums (nn/h5heap.h).
 * The dataset, or -1 with a message in err. */
hid_t h5u_open_ds(hid_t loc, const char *name, char *err);

/* Checks that the open dataset d (named name in messages) holds all its nbytes of data, laid out as sowzero
 * writes it: a non-empty array as one chunk of its own shape with its Fletcher-32 checksum applied, a scalar
 * stored whole unfiltered, an empty array unchunked. libhdf5 reads what is not stored as the fill value, so a
 * file whose chunk index lost the chunk would otherwise load as zeros. 0, or -1 with a message in err. */
int h5u_check_storage(hid_t d, const char *name, size_t nbytes, char *err);

/* After H5Dread of a chunked dataset d (as h5u_check_storage accepts it) into data (nbytes, elements of
 * elsize = 1 or 4 bytes in host order): checks data equals the one chunk's stored bytes, fetched raw by its
 * coordinates. libhdf5 reads a chunk its index does not find as the fill value, and an index damaged in
 * the key alone can list a chunk the read then misses. nbytes = 0 passes. 0, or -1 with a message in err. */
int h5u_check_read(hid_t d, const char *name, const void *data, size_t nbytes, size_t elsize, char *err);

/* An int64 scalar dataset, and a uint8 1-D dataset (byte blob, checksummed when non-empty). */
int h5u_write_i64(hid_t loc, const char *name, int64_t v, char *err);
int h5u_write_bytes(hid_t loc, const char *name, const void *data, size_t n, char *err);

#endif
