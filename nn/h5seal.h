/* h5seal.h — the checksum that guards every net file before libhdf5 parses it (internal to nn/).
 *
 * Why: libhdf5 trusts its input. A single flipped byte of a file's metadata can make it read out of bounds,
 * segfault or loop forever (offsets 2109, 2220, 18130, 115995 crashed, 2072 hung), and a flipped
 * byte in a datatype message can turn the float32 weights into other numbers that still "load". So a file is
 * verified byte for byte before any HDF5 call sees it.
 *
 * How: files are created with an HDF5 user block of H5S_BLOCK bytes (H5Pset_userblock; libhdf5, h5py and the
 * h5 tools skip it). After the image is complete, its first H5S_BLOCK bytes are set to the text
 *
 *     sowzero-net-file 1\n
 *     size <total file bytes, decimal>\n
 *     crc32 <8 lower-case hex digits>\n
 *
 * followed by NUL bytes up to H5S_BLOCK. The CRC is CRC-32 (ISO 3309 / ITU-T V.42, the polynomial of zlib's
 * crc32()) of bytes [H5S_BLOCK, size). Verification rebuilds the whole block from the file's actual size and
 * CRC and compares all H5S_BLOCK bytes, so every byte of the file is covered: a change anywhere, a truncation
 * or an appended tail is refused. CRC-32 detects every error burst up to 32 bits, so every single-byte
 * corruption, with certainty; a random multi-byte corruption passes with probability 2^-32 (and the weights
 * carry their own Fletcher-32 besides).
 *
 * A file that starts with the HDF5 signature instead has no user block: written before the checksum. It is
 * reported as such (H5S_LEGACY) so that the caller can refuse it with advice, or, where the user vouches for
 * it (nn_upgrade), read it anyway.
 */
#ifndef SOWZERO_NN_H5SEAL_H
#define SOWZERO_NN_H5SEAL_H

#include <stddef.h>

#define H5S_BLOCK 512 /* the user block: the smallest HDF5 allows */

enum { H5S_SEALED = 1, H5S_LEGACY = 0 };

/* Writes the header into img[0, H5S_BLOCK) of a complete file image of n bytes (n > H5S_BLOCK) whose user
 * block libhdf5 left for us. Cannot fail. */
void h5s_seal(unsigned char *img, size_t n);

/* Verifies the open regular file fd (read from offset 0 with pread; the file offset is not used) whose name
 * for messages is path. Returns H5S_SEALED when the header matches the contents, H5S_LEGACY when the file
 * starts with the HDF5 signature (no user block), or -1 with a message naming path in err (NN_ERRLEN): not a
 * sowzero net file, truncated / extended / corrupt (checksum mismatch), or a read error. When sealed and
 * crc / size are not NULL they receive the verified CRC-32 and the file's size in bytes. */
int h5s_verify(int fd, const char *path, unsigned long *crc, long long *size, char *err);

#endif
