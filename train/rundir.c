#include "train/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *what, const char *path)
{
    if (err && errlen)
        snprintf(err, errlen, "%s '%s': %s", what, path, strerror(errno));
    return -1;
}

int train_mkdirs(const char *dir, char *err, size_t errlen)
{
    char tmp[4096];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return fail(err, errlen, "cannot create directory", dir);
    }
    memcpy(tmp, dir, len + 1);
    /* Every prefix ending before a '/' is a parent; create them in order. */
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return fail(err, errlen, "cannot create directory", tmp);
        *p = '/';
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return fail(err, errlen, "cannot create directory", tmp);
    struct stat st;
    if (stat(tmp, &st) != 0)
        return fail(err, errlen, "cannot stat", tmp);
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return fail(err, errlen, "cannot use", tmp);
    }
    return 0;
}

char *train_default_run_dir(char *buf, size_t n, const char *parent, const char *name, time_t t)
{
    struct tm tm;
    char stamp[32];
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    int w = snprintf(buf, n, "%s/%s-%s", parent, name, stamp);
    return w < 0 || (size_t)w >= n ? NULL : buf;
}

char *train_checkpoint_path(char *buf, size_t n, const char *run_dir, int64_t iteration)
{
    int w = snprintf(buf, n, "%s/checkpoints/iter-%06" PRId64 ".h5", run_dir, iteration);
    return w < 0 || (size_t)w >= n ? NULL : buf;
}

char *train_join(char *buf, size_t n, const char *a, const char *b)
{
    int w = snprintf(buf, n, "%s/%s", a, b);
    return w < 0 || (size_t)w >= n ? NULL : buf;
}

int train_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Iteration number of a file named exactly "iter-<digits>.h5", or -1. */
static int64_t checkpoint_iteration(const char *name)
{
    if (strncmp(name, "iter-", 5) != 0)
        return -1;
    const char *p = name + 5;
    int64_t v = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*p++ - '0');
        digits++;
    }
    return digits && strcmp(p, ".h5") == 0 ? v : -1;
}

/* Sorted (ascending) iterations of the checkpoints in run_dir; *count gets their number. Caller frees. */
static int list_checkpoints(const char *run_dir, int64_t **out, int *count, char *err, size_t errlen)
{
    char dir[4096];
    *out = NULL;
    *count = 0;
    if (!train_join(dir, sizeof dir, run_dir, "checkpoints")) {
        errno = ENAMETOOLONG;
        return fail(err, errlen, "cannot read", run_dir);
    }
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        return fail(err, errlen, "cannot read", dir);
    }
    int64_t *v = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int64_t it = checkpoint_iteration(e->d_name);
        if (it < 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            int64_t *nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) {
                free(v);
                closedir(d);
                errno = ENOMEM;
                return fail(err, errlen, "cannot list", dir);
            }
            v = nv;
        }
        v[n++] = it;
    }
    closedir(d);
    /* Insertion sort: a run keeps a handful of checkpoints. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    *out = v;
    *count = n;
    return 0;
}

int train_find_latest_checkpoint(const char *run_dir, char *path, size_t n, int64_t *iteration, char *err,
                                 size_t errlen)
{
    int64_t *v;
    int count;
    if (list_checkpoints(run_dir, &v, &count, err, errlen) != 0)
        return -1;
    if (count == 0) {
        free(v);
        return 0;
    }
    int64_t it = v[count - 1];
    free(v);
    if (!train_checkpoint_path(path, n, run_dir, it)) {
        errno = ENAMETOOLONG;
        return fail(err, errlen, "cannot name a checkpoint in", run_dir);
    }
    *iteration = it;
    return 1;
}

int train_prune_checkpoints(const char *run_dir, int keep, char *err, size_t errlen)
{
    int64_t *v;
    int count, deleted = 0;
    if (keep < 1)
        keep = 1;
    if (list_checkpoints(run_dir, &v, &count, err, errlen) != 0)
        return -1;
    for (int i = 0; i + keep < count; i++) {
        char path[4096];
        if (!train_checkpoint_path(path, sizeof path, run_dir, v[i]))
            continue;
        if (unlink(path) != 0) {
            free(v);
            return fail(err, errlen, "cannot delete", path);
        }
        deleted++;
    }
    free(v);
    return deleted;
}

int train_list_checkpoints(const char *run_dir, int64_t **iterations, int *count, char *err, size_t errlen)
{
    return list_checkpoints(run_dir, iterations, count, err, errlen);
}

char *train_create_default_run_dir(char *buf, size_t n, const char *parent, const char *name, time_t t, char *err,
                                   size_t errlen)
{
    char base[4096];
    if (!train_default_run_dir(base, sizeof base, parent, name, t)) {
        errno = ENAMETOOLONG;
        fail(err, errlen, "cannot name a run directory in", parent);
        return NULL;
    }
    if (train_mkdirs(parent, err, errlen) != 0)
        return NULL;
    /* mkdir is atomic: of two runs started in the same second, one gets the name, the other "-2". */
    for (int k = 1; k < 1000; k++) {
        int w = k == 1 ? snprintf(buf, n, "%s", base) : snprintf(buf, n, "%s-%d", base, k);
        if (w < 0 || (size_t)w >= n) {
            errno = ENAMETOOLONG;
            fail(err, errlen, "cannot name a run directory in", parent);
            return NULL;
        }
        if (mkdir(buf, 0777) == 0)
            return buf;
        if (errno != EEXIST) {
            fail(err, errlen, "cannot create directory", buf);
            return NULL;
        }
    }
    errno = EEXIST;
    fail(err, errlen, "cannot create a new run directory beside", base);
    return NULL;
}

int train_lock(const char *run_dir, long *holder, char *err, size_t errlen)
{
    char path[4096];
    *holder = 0;
    if (!train_join(path, sizeof path, run_dir, "lock")) {
        errno = ENAMETOOLONG;
        return fail(err, errlen, "cannot lock", run_dir);
    }
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return fail(err, errlen, "cannot open", path);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (e == EWOULDBLOCK) {
            char pid[32] = "";
            ssize_t got = pread(fd, pid, sizeof pid - 1, 0);
            pid[got > 0 ? got : 0] = 0;
            *holder = strtol(pid, NULL, 10);
            if (*holder <= 0)
                *holder = -1;   /* locked, the pid not written yet */
            close(fd);
            return -2;
        }
        close(fd);
        errno = e;
        return fail(err, errlen, "cannot lock", path);
    }
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
        int e = errno;
        close(fd);
        errno = e;
        return fail(err, errlen, "cannot write", path);
    }
    return fd;
}

void train_unlock(int fd)
{
    if (fd >= 0)
        close(fd);
}

/* Removes the files named "*.tmp" in dir; returns how many, -1 on error. */
static int remove_tmp_in(const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : fail(err, errlen, "cannot read", dir);
    int removed = 0, rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".tmp") != 0)
            continue;
        char path[4096];
        if (!train_join(path, sizeof path, dir, e->d_name))
            continue;
        if (unlink(path) == 0)
            removed++;
        else if (errno != ENOENT) {
            rc = fail(err, errlen, "cannot delete", path);
            break;
        }
    }
    closedir(d);
    return rc ? rc : removed;
}

int train_remove_tmp(const char *run_dir, char *err, size_t errlen)
{
    char ck[4096];
    int a = remove_tmp_in(run_dir, err, errlen);
    if (a < 0)
        return -1;
    if (!train_join(ck, sizeof ck, run_dir, "checkpoints"))
        return a;
    int b = remove_tmp_in(ck, err, errlen);
    return b < 0 ? -1 : a + b;
}

static int is_tmp_name(const char *name)
{
    size_t len = strlen(name);
    return len > 4 && strcmp(name + len - 4, ".tmp") == 0;
}

/* 1 when name is what a run being started leaves behind before its config.ini: the lock, *.tmp. */
static int starting_leftover(const char *name)
{
    return strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, "lock") == 0 || is_tmp_name(name);
}

int train_dir_blank(const char *dir, char *what, size_t n)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 1;   /* creating it fails with the reason */
        if (what && n)
            snprintf(what, n, "cannot read '%s': %s", dir, strerror(errno));
        return -1;
    }
    int blank = 1;
    struct dirent *e;
    while (blank && (e = readdir(d)) != NULL) {
        if (starting_leftover(e->d_name))
            continue;
        if (strcmp(e->d_name, "checkpoints") == 0) {
            char sub[4096];
            if (train_join(sub, sizeof sub, dir, e->d_name)) {
                DIR *c = opendir(sub);
                if (c) {
                    struct dirent *ce;
                    while (blank && (ce = readdir(c)) != NULL)
                        if (!starting_leftover(ce->d_name) || strcmp(ce->d_name, "lock") == 0) {
                            blank = 0;
                            if (what && n)
                                snprintf(what, n, "checkpoints/%s", ce->d_name);
                        }
                    closedir(c);
                    continue;
                }
            }
        }
        blank = 0;
        if (what && n)
            snprintf(what, n, "%s", e->d_name);
    }
    closedir(d);
    return blank;
}

int train_count_set_aside(const char *run_dir, char *err, size_t errlen)
{
    char dir[4096];
    if (!train_join(dir, sizeof dir, run_dir, "checkpoints")) {
        errno = ENAMETOOLONG;
        return fail(err, errlen, "cannot read", run_dir);
    }
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : fail(err, errlen, "cannot read", dir);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *dot = strstr(e->d_name, ".h5.");
        if (strncmp(e->d_name, "iter-", 5) == 0 && dot && !is_tmp_name(e->d_name))
            count++;
    }
    closedir(d);
    return count;
}

/* Moves the entries of from (all but the lock, *.tmp, "checkpoints" and "restart-*") into to; in
 * checkpoints/ only what is no longer a checkpoint's name. Returns how many, -1 on error (err filled). */
static int move_entries(const char *from, const char *to, int top, char *err, size_t errlen)
{
    DIR *d = opendir(from);
    if (!d)
        return errno == ENOENT ? 0 : fail(err, errlen, "cannot read", from);
    int moved = 0, rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (starting_leftover(name) || (top && (strcmp(name, "checkpoints") == 0 || strncmp(name, "restart-", 8) == 0)) ||
            (!top && checkpoint_iteration(name) >= 0))
            continue;
        char a[4096], b[4096];
        if (!train_join(a, sizeof a, from, name) || !train_join(b, sizeof b, to, name))
            continue;
        if (rename(a, b) != 0) {
            rc = fail(err, errlen, "cannot move aside", a);
            break;
        }
        moved++;
    }
    closedir(d);
    return rc ? rc : moved;
}

int train_move_aside(const char *run_dir, char *sub, size_t n, char *err, size_t errlen)
{
    for (int k = 1; k < 1000; k++) {
        char name[32];
        snprintf(name, sizeof name, "restart-%d", k);
        if (!train_join(sub, n, run_dir, name)) {
            errno = ENAMETOOLONG;
            return fail(err, errlen, "cannot name a directory in", run_dir);
        }
        if (mkdir(sub, 0777) == 0) {
            char from[4096], to[4096];
            int a = move_entries(run_dir, sub, 1, err, errlen);
            if (a < 0)
                return -1;
            if (!train_join(from, sizeof from, run_dir, "checkpoints") ||
                !train_join(to, sizeof to, sub, "checkpoints")) {
                errno = ENAMETOOLONG;
                return fail(err, errlen, "cannot name a directory in", sub);
            }
            int b = 0;
            if (train_count_set_aside(run_dir, err, errlen) > 0) {
                if (mkdir(to, 0777) != 0)
                    return fail(err, errlen, "cannot create directory", to);
                b = move_entries(from, to, 0, err, errlen);
            }
            return b < 0 ? -1 : a + b;
        }
        if (errno != EEXIST)
            return fail(err, errlen, "cannot create directory", sub);
    }
    errno = EEXIST;
    return fail(err, errlen, "cannot create a restart-N directory in", run_dir);
}
