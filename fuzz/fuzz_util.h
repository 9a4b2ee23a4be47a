/* fuzz_util.h — what the libFuzzer targets share: the input as NUL-terminated text fields, the input as a
 * file (memfd) for parsers that read files, and a check that aborts (a finding) with a message. */
#ifndef SOWZERO_FUZZ_UTIL_H
#define SOWZERO_FUZZ_UTIL_H

#define _GNU_SOURCE /* memfd_create */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FZ_FIELDS 4

/* Splits data at '\n' into up to FZ_FIELDS NUL-terminated fields (the last takes the rest, newlines and
 * NULs included as given: a NUL ends that field early, as it would for a C caller). Returns a malloc'd
 * block owning the fields (free it); missing fields are "". */
static inline char *fz_fields(const uint8_t *data, size_t n, const char *field[FZ_FIELDS])
{
    char *buf = malloc(n + 1);
    if (!buf)
        abort();
    memcpy(buf, data, n);
    buf[n] = 0;
    int k = 0;
    field[k++] = buf;
    for (size_t i = 0; i < n && k < FZ_FIELDS; i++)
        if (buf[i] == '\n') {
            buf[i] = 0;
            field[k++] = buf + i + 1;
        }
    while (k < FZ_FIELDS)
        field[k++] = "";
    return buf;
}

/* Writes data to an anonymous memory file; returns its fd and its path (/proc/self/fd/N) in path. */
static inline int fz_memfile(const uint8_t *data, size_t n, char *path, size_t path_n)
{
    int fd = memfd_create("sowzero-fuzz", MFD_CLOEXEC);
    if (fd < 0) {
        perror("memfd_create");
        abort();
    }
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, data + done, n - done);
        if (w <= 0) {
            perror("write");
            abort();
        }
        done += (size_t)w;
    }
    snprintf(path, path_n, "/proc/self/fd/%d", fd);
    return fd;
}

/* Whether the input asks for an alpha-beta table over 64 MiB anywhere (a "tt_mb" followed, after at most 8
 * other bytes, by a number over 64 or of more than 3 digits). ab:tt_mb=N allocates N MiB (up to 4096, as
 * documented and unit-tested); libFuzzer's memory limit would report such an input as a finding, so the
 * targets whose input reaches agent specs skip it. Scans the raw bytes, NULs included. */
static inline int fz_big_table(const uint8_t *data, size_t n)
{
    for (size_t i = 0; i + 5 <= n; i++) {
        if (memcmp(data + i, "tt_mb", 5))
            continue;
        size_t j = i + 5, skipped = 0;
        while (j < n && (data[j] < '0' || data[j] > '9') && skipped++ < 8)
            j++;
        size_t digits = 0;
        long v = 0;
        while (j < n && data[j] >= '0' && data[j] <= '9' && digits < 4) {
            v = 10 * v + (data[j++] - '0');
            digits++;
        }
        if (digits > 3 || v > 64)
            return 1;
    }
    return 0;
}

/* A property the code under test must keep: report it and abort, which libFuzzer records as a crash. */
#define FZ_CHECK(cond, ...)                                                                                      \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "fuzz check failed: %s: ", #cond);                                                 \
            fprintf(stderr, __VA_ARGS__);                                                                      \
            fputc('\n', stderr);                                                                               \
            abort();                                                                                           \
        }                                                                                                      \
    } while (0)

#endif
