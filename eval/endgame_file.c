/* endgame_file.c — tablebase files: writing, mapping, verifying and finding them (endgame.h). */
#include "eval/endgame.h"
#include "eval/endgame_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MAGIC "sowzero-tablebase 1\n"

static void set_errf(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_errf(char *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, KALAH_ERRLEN, fmt, ap);
    va_end(ap);
}

/* zlib's crc32 takes at most UINT_MAX bytes a call. */
static unsigned long crc_of(const void *data, size_t n)
{
    const unsigned char *p = data;
    unsigned long crc = crc32(0L, Z_NULL, 0);
    while (n) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, p, k);
        p += k;
        n -= k;
    }
    return crc;
}

/* Copies n bytes from src to dst and returns the CRC-32 of them, a piece at a time while it is in cache. */
static unsigned long copy_crc(int8_t *dst, const int8_t *src, size_t n)
{
    unsigned long crc = crc32(0L, Z_NULL, 0);
    for (size_t at = 0; at < n;) {
        const size_t k = n - at < ((size_t)1 << 18) ? n - at : (size_t)1 << 18;
        memcpy(dst + at, src + at, k);
        crc = crc32(crc, (const unsigned char *)dst + at, (uInt)k);
        at += k;
    }
    return crc;
}

/* The header text of db, whose values have the checksum crc, into buf (EG_FILE_HEADER bytes, NUL padded). */
static void header_of(const eg_db *db, unsigned long crc, char *buf)
{
    char rules[128];
    kalah_rules_format(&db->r, rules, sizeof rules);
    memset(buf, 0, EG_FILE_HEADER);
    int len = snprintf(buf, EG_FILE_HEADER, MAGIC "rules %s\nseeds %d\nentries %zu\ncrc32 %08lx\n", rules, db->n,
                       db->size, crc);
    snprintf(buf + len, (size_t)(EG_FILE_HEADER - len), "header-crc32 %08lx\n", crc_of(buf, (size_t)len));
}

static int write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int eg_save(const eg_db *db, const char *path, char *err)
{
    char tmp[PATH_MAX], header[EG_FILE_HEADER];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp) {
        set_errf(err, "%s: path too long", path);
        return -1;
    }
    header_of(db, crc_of(db->val, db->size), header);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        set_errf(err, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    int bad = write_all(fd, header, sizeof header) || write_all(fd, db->val, db->size) || fsync(fd);
    int saved = errno;
    if (close(fd) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (bad || rename(tmp, path) != 0) {
        if (!bad)
            saved = errno;
        unlink(tmp);
        set_errf(err, "writing %s: %s", path, strerror(saved));
        return -1;
    }
    return 0;
}

eg_db *eg_build_file(const kalah_rules *r, int max_seeds, int threads, uint64_t memory, const char *path,
                     char *err)
{
    char tmp[PATH_MAX], rerr[KALAH_ERRLEN];
    if (eg_check_request(r, &max_seeds, rerr) != 0) {
        set_errf(err, "%s", rerr);
        return NULL;
    }
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp) {
        set_errf(err, "%s: path too long", path);
        return NULL;
    }
    eg_db *db = eg_alloc_tables(r, max_seeds, rerr);
    if (!db) {
        set_errf(err, "%s", rerr);
        return NULL;
    }
    if (!memory)
        memory = eg_memory_budget();
    const int layered = db->size > memory;
    if (layered && eg_layered_fits(db, memory, rerr) != 0) { /* before the file: nothing to clean up */
        set_errf(err, "%s: %s", path, rerr);
        eg_free(db);
        return NULL;
    }
    const size_t len = EG_FILE_HEADER + db->size;
    int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        set_errf(err, "%s: %s", tmp, strerror(errno));
        eg_free(db);
        return NULL;
    }
    /* Blocks reserved before mapping: a write into a hole that the disk cannot fill would be a SIGBUS
     * during the build, not an error here. */
    int rc = posix_fallocate(fd, 0, (off_t)len);
    const char *what = rc ? "reserving the file's blocks" : NULL;
    void *map = MAP_FAILED;
    unsigned long crc = 0;
    if (!what && (map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        rc = errno;
        what = "mapping it";
    }
    if (!what) {
        db->map = map;
        db->map_len = len;
        db->val = (int8_t *)map + EG_FILE_HEADER;
        if (layered ? eg_build_layered(db, threads, fd, EG_FILE_HEADER, memory, &crc, rerr) != 0
                    : eg_build_values(db, threads) != 0) {
            rc = 0;
            what = layered ? rerr : "building: out of memory";
        }
    }
    if (!what) {
        header_of(db, layered ? crc : crc_of(db->val, db->size), map);
        if (msync(map, len, MS_SYNC) != 0 || fsync(fd) != 0) {
            rc = errno;
            what = "writing it";
        }
    }
    if (close(fd) != 0 && !what) {
        rc = errno;
        what = "closing it";
    }
    if (!what && rename(tmp, path) != 0) {
        rc = errno;
        what = "renaming it";
    }
    if (what) {
        unlink(tmp);
        if (rc)
            set_errf(err, "%s: %s: %s", path, what, strerror(rc));
        else
            set_errf(err, "%s: %s", path, what);
        eg_free(db);
        return NULL;
    }
    return db;
}

/* Reads "<key> <value>\n" at *at into value (n bytes); advances *at. 0, or -1 when the line is not so. */
static int header_line(const char **at, const char *key, char *value, size_t n)
{
    size_t k = strlen(key);
    const char *p = *at;
    if (strncmp(p, key, k) != 0 || p[k] != ' ')
        return -1;
    p += k + 1;
    const char *nl = strchr(p, '\n');
    if (!nl || nl == p || (size_t)(nl - p) >= n)
        return -1;
    memcpy(value, p, (size_t)(nl - p));
    value[nl - p] = 0;
    *at = nl + 1;
    return 0;
}

static int parse_hex8(const char *s, unsigned long *out)
{
    if (strlen(s) != 8 || strspn(s, "0123456789abcdef") != 8)
        return -1;
    *out = strtoul(s, NULL, 16);
    return 0;
}

static int parse_count(const char *s, unsigned long long *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 19)
        return -1;
    *out = strtoull(s, NULL, 10);
    return 0;
}

eg_db *eg_open(const char *path, char *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        set_errf(err, "tablebase %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < EG_FILE_HEADER) {
        set_errf(err, "tablebase %s: %s", path,
                 S_ISDIR(st.st_mode) ? "is a directory" : "not a tablebase file (too short)");
        close(fd);
        return NULL;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        set_errf(err, "tablebase %s: cannot map it: %s", path, strerror(errno));
        return NULL;
    }
    char head[EG_FILE_HEADER + 1];
    memcpy(head, map, EG_FILE_HEADER);
    head[EG_FILE_HEADER] = 0;
    const char *at = head;
    char rules_text[160], seeds_text[16], entries_text[32], crc_text[16], hcrc_text[16];
    const char *what = NULL;
    kalah_rules r;
    unsigned long long seeds = 0, entries = 0;
    unsigned long crc = 0, hcrc = 0;
    char rerr[KALAH_ERRLEN];
    if (strncmp(head, MAGIC, strlen(MAGIC)) != 0)
        what = "not a sowzero tablebase file";
    else if ((at += strlen(MAGIC), header_line(&at, "rules", rules_text, sizeof rules_text)) ||
             kalah_rules_parse(rules_text, &r, rerr) != KALAH_OK)
        what = "header: bad rules line";
    else if (header_line(&at, "seeds", seeds_text, sizeof seeds_text) || parse_count(seeds_text, &seeds) ||
             seeds < 1 || seeds > 127)
        what = "header: bad seeds line";
    else if (header_line(&at, "entries", entries_text, sizeof entries_text) ||
             parse_count(entries_text, &entries))
        what = "header: bad entries line";
    else if (header_line(&at, "crc32", crc_text, sizeof crc_text) || parse_hex8(crc_text, &crc))
        what = "header: bad crc32 line";
    else {
        size_t len = (size_t)(at - head);
        if (header_line(&at, "header-crc32", hcrc_text, sizeof hcrc_text) || parse_hex8(hcrc_text, &hcrc))
            what = "header: bad header-crc32 line";
        else if (hcrc != crc_of(head, len))
            what = "header checksum mismatch (damaged)";
        else
            for (const char *q = at; q < head + EG_FILE_HEADER; q++)
                if (*q) {
                    what = "header: bytes after the last line";
                    break;
                }
    }
    eg_db *db = NULL;
    int n = (int)seeds;
    char hbuf[KALAH_ERRLEN + 16];
    if (!what && eg_check_request(&r, &n, rerr) != 0) { /* a sow limit, a bad seed count */
        snprintf(hbuf, sizeof hbuf, "header: %s", rerr);
        what = hbuf;
    } else if (!what && n != (int)seeds)
        what = "header: the seeds exceed the rules' total";
    if (!what && !(db = eg_alloc_tables(&r, n, rerr)))
        what = rerr;
    if (!what && db->size != entries)
        what = "header: the entries do not match the seeds and pits";
    if (!what && (unsigned long long)st.st_size != EG_FILE_HEADER + entries)
        what = (unsigned long long)st.st_size < EG_FILE_HEADER + entries ? "truncated" : "longer than its header says";
    /* The values are copied from the page cache into memory of large pages (eg_alloc_values): a solve
     * probes them at random, and the mapping's 4 KiB pages cost a TLB miss on nearly every probe. Where
     * that memory is not to be had (or the file is bigger than eg_memory_budget: the copy would push the
     * page cache and the search out), the mapping itself serves. The checksum is taken of the copy, one
     * cache-sized piece after another, so the file is read once. */
    int8_t *copy = !what && db->size <= eg_memory_budget() ? eg_alloc_values(db->size) : NULL;
    if (!what && (copy ? copy_crc(copy, (const int8_t *)map + EG_FILE_HEADER, db->size)
                       : crc_of((const char *)map + EG_FILE_HEADER, db->size)) != crc)
        what = "checksum mismatch (damaged): delete it and build it again with sowzero tablebase build";
    if (what) {
        free(copy);
        set_errf(err, "tablebase %s: %s", path, what);
        eg_free(db);
        munmap(map, (size_t)st.st_size);
        return NULL;
    }
    if (copy) {
        munmap(map, (size_t)st.st_size);
        db->val = copy;
        return db;
    }
    db->map = map;
    db->map_len = (size_t)st.st_size;
    db->val = (int8_t *)map + EG_FILE_HEADER;
    return db;
}

int eg_cache_dir(char *buf, size_t n)
{
    const char *env = getenv("SOWZERO_TABLEBASE");
    struct stat st;
    if (env && *env) {
        if (stat(env, &st) == 0 && !S_ISDIR(st.st_mode)) {
            const char *slash = strrchr(env, '/');
            if (!slash)
                return snprintf(buf, n, ".") >= (int)n ? -1 : 0;
            return snprintf(buf, n, "%.*s", (int)(slash - env), env) >= (int)n ? -1 : 0;
        }
        return snprintf(buf, n, "%s", env) >= (int)n ? -1 : 0;
    }
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && *xdg == '/')
        return snprintf(buf, n, "%s/sowzero", xdg) >= (int)n ? -1 : 0;
    const char *home = getenv("HOME");
    if (!home || !*home)
        return -1;
    return snprintf(buf, n, "%s/.cache/sowzero", home) >= (int)n ? -1 : 0;
}

/* The value of "key=" in a formatted rules spec, up to the next ',' (into out, n bytes). */
static void spec_value(const char *spec, const char *key, char *out, size_t n)
{
    const char *p = strstr(spec, key);
    size_t len = 0;
    if (p) {
        p += strlen(key);
        len = strcspn(p, ",");
    }
    snprintf(out, n, "%.*s", (int)len, p ? p : "");
}

/* The name without "<seeds>.sztb": what every file of r's board shares. */
static void name_prefix(const kalah_rules *r, char *buf, size_t n)
{
    char spec[128], capture[32], end[32];
    kalah_rules_format(r, spec, sizeof spec);
    spec_value(spec, "capture=", capture, sizeof capture);
    spec_value(spec, "end=", end, sizeof end);
    snprintf(buf, n, "kalah-pits%d-capture_%s-end_%s-tb", r->pits, capture, end);
}

char *eg_file_name(const kalah_rules *r, int seeds, char *buf, size_t n)
{
    char prefix[128];
    name_prefix(r, prefix, sizeof prefix);
    snprintf(buf, n, "%s%d.sztb", prefix, seeds);
    return buf;
}

/* Opens path and checks that it serves r with at least want seeds. */
static eg_db *open_fitting(const char *path, const kalah_rules *r, int want, char *err)
{
    eg_db *db = eg_open(path, err);
    if (db && (!eg_serves(db, r) || db->n < want)) {
        char theirs[128], ours[128];
        kalah_rules_format(&db->r, theirs, sizeof theirs);
        kalah_rules_format(r, ours, sizeof ours);
        set_errf(err, "tablebase %s holds %s with %d seeds; needed: %s with %d", path, theirs, db->n, ours, want);
        eg_free(db);
        return NULL;
    }
    return db;
}

/* The seeds of the smallest (largest when `largest`) standard-named file of rules r in folder dir with
 * lo..hi seeds; 0 when none. Names only: opening it checks the file. */
static int scan_folder(const char *dir, const kalah_rules *r, int lo, int hi, int largest)
{
    char prefix[128];
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    name_prefix(r, prefix, sizeof prefix);
    const size_t plen = strlen(prefix);
    int best = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const char *name = e->d_name, *suffix = ".sztb";
        size_t len = strlen(name);
        if (len <= plen + strlen(suffix) || strncmp(name, prefix, plen) != 0 ||
            strcmp(name + len - strlen(suffix), suffix) != 0)
            continue;
        char *end;
        long seeds = strtol(name + plen, &end, 10);
        if (end != name + len - strlen(suffix) || seeds < lo || seeds > hi || seeds > 127)
            continue;
        if (!best || (largest ? seeds > best : seeds < best))
            best = (int)seeds;
    }
    closedir(d);
    return best;
}

/* $SOWZERO_TABLEBASE when it names a file (then the only one used), else NULL. */
static const char *named_file(void)
{
    const char *env = getenv("SOWZERO_TABLEBASE");
    struct stat st;
    return env && *env && stat(env, &st) == 0 && !S_ISDIR(st.st_mode) ? env : NULL;
}

int eg_largest_file(const kalah_rules *r, int max_seeds)
{
    if (r->max_sows > 0 || max_seeds < 1 || named_file())
        return 0;
    char dir[PATH_MAX - 64];
    return eg_cache_dir(dir, sizeof dir) == 0 ? scan_folder(dir, r, 1, max_seeds, 1) : 0;
}

eg_db *eg_find(const kalah_rules *r, int min_seeds, char *path_out, size_t n, int *status, char *err)
{
    int want = min_seeds;
    *status = EG_FILE_NONE;
    if (r->max_sows > 0 || eg_check_request(r, &want, NULL) != 0)
        return NULL;
    char path[PATH_MAX];
    const char *env = named_file();
    if (env) {
        eg_db *db = open_fitting(env, r, want, err);
        *status = db ? EG_FILE_OK : EG_FILE_EBAD;
        if (db && path_out)
            snprintf(path_out, n, "%s", env);
        return db;
    }
    char dir[PATH_MAX - 64];
    const int best = eg_cache_dir(dir, sizeof dir) == 0 ? scan_folder(dir, r, want, 127, 0) : 0;
    if (!best)
        return NULL;
    char name[192];
    snprintf(path, sizeof path, "%s/%s", dir, eg_file_name(r, best, name, sizeof name));
    eg_db *db = open_fitting(path, r, want, err);
    *status = db ? EG_FILE_OK : EG_FILE_EBAD;
    if (db && path_out)
        snprintf(path_out, n, "%s", path);
    return db;
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int eg_default_path(const kalah_rules *r, int seeds, char *path, size_t n, int create_dir, char *err)
{
    char dir[PATH_MAX - 300], name[192];
    if (eg_cache_dir(dir, sizeof dir) != 0) {
        if (err)
            snprintf(err, KALAH_ERRLEN, "no tablebase folder: set SOWZERO_TABLEBASE, XDG_CACHE_HOME or HOME");
        return -1;
    }
    if (create_dir && make_dirs(dir) != 0) {
        if (err)
            snprintf(err, KALAH_ERRLEN, "cannot create the tablebase folder %.900s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(path, n, "%s/%s", dir, eg_file_name(r, seeds, name, sizeof name));
    return 0;
}
