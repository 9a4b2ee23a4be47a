/* h5heap.h — the guard in front of libhdf5's reading of a variable-length string attribute (internal to
 * nn/). Such a string lives in the file's global heap, and libhdf5 (1.10) follows the attribute's heap
 * reference (length, collection address, object index) without checking it: a damaged or crafted index
 * reads past its heap table and crashes. Files sowzero writes now hold fixed-length strings; files written
 * before hold variable-length ones, and are checked with this first. The same parse of their (unchecksummed)
 * object headers checks their attribute messages' bounds and their datasets' storage layouts, which
 * libhdf5 decodes unchecked too. */
#ifndef SOWZERO_NN_H5HEAP_H
#define SOWZERO_NN_H5HEAP_H

#include <hdf5.h>

/* loc: an object (file or group) of a file libhdf5 opened by a path that can be opened again (nn/h5load.c
 * opens /proc/self/fd/N). Parses the file's superblock (version 0 or 1) and loc's object header (version
 * 1, with its continuation chunks), finds the one attribute message named name and checks that its heap
 * reference names an existing object of the collection, parsed as libhdf5 parses it, of exactly the
 * reference's length. 0, or -1 with a message in err (NN_ERRLEN) when it does not check out, or the file
 * is laid out otherwise (a newer superblock or object header, two attributes of that name). */
int h5h_vlen_attr_ok(hid_t loc, const char *name, char *err);

/* For a file in that old layout (HDF5's earliest format, whose metadata carries no checksums): checks the
 * storage layout message of dataset name under loc before libhdf5 opens it (it divides by the chunk
 * dimensions while opening). 0, or -1 with a message in err. */
int h5h_old_dataset_ok(hid_t loc, const char *name, char *err);

/* For a file in that old layout: checks every attribute message of loc's object header against the bounds
 * libhdf5 1.10.8 decodes it with and does not check (the name NUL-terminated within its length; the
 * datatype, one sowzero writes, and the dataspace within theirs; the value within the message). libhdf5
 * decodes these messages for every attribute call (H5Aexists, H5Aiterate2, H5Aopen_by_name alike), so a
 * message that breaks them is read past its end; call this first. 0, or -1 with a message naming loc in err
 * (NN_ERRLEN). */
int h5h_old_attrs_ok(hid_t loc, char *err);

/* 1 when the file of f (any object in it) has a version 0 or 1 superblock (the old layout), 0 when a newer
 * one, -1 when it cannot tell. */
int h5h_old_layout(hid_t f);

#endif
