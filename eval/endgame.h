/* endgame.h — endgame database for the alpha-beta solver (eval/alphabeta; shared through eval/tbase.h).
 *
 * Play from a Kalah position depends only on the pits and the side to move (alphabeta's tt.h explains
 * why), so the final margin is (own store − opponent's store) + F(pits) with F seen from the mover. The
 * database holds F exactly for every arrangement of at most `max_seeds` seeds in the 2·pits pits, the
 * mover's row first: F is the margin the mover makes on the seeds still in play under perfect play.
 *
 * Index: an arrangement c[0..2m-1] with sum <= N is the strictly increasing sequence
 * s_i = c_0 + ... + c_i + i (i < 2m) in 0..N+2m-1, ranked in the combinatorial number system
 * (Knuth, TAOCP 7.2.1.3): rank = sum_i C(s_i, i+1). So the table has C(N+2m, 2m) one-byte entries
 * (Kalah(6,·): N = 20 → 226 M, N = 24 → 1.25 G) and a lookup is 2m additions of table binomials.
 *
 * Built by memoised recursion: a move never raises the number of seeds in the pits, and a move that keeps
 * it only carries seeds forward within a row, so the recursion always ends. Valid for every rule set with
 * max_sows = 0 (with a sow limit the value depends on the sow count).
 */
#ifndef SOWZERO_EVAL_ENDGAME_H
#define SOWZERO_EVAL_ENDGAME_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

#include "env/kalah.h"

typedef struct eg_db eg_db;

/* Builds the database of rules r for up to max_seeds (1..127) seeds in the pits (capped at the total) in
 * memory. threads: build threads (1 or more; fewer are used if some cannot start). Takes time
 * proportional to its size, C(max_seeds + 2 pits, 2 pits) bytes. Returns NULL with a message in err
 * (KALAH_ERRLEN bytes, may be NULL) when the rules have max_sows > 0, max_seeds is out of range, the
 * table is bigger than eg_memory_budget (eg_build_file builds those), or memory runs out. */
eg_db *eg_create(const kalah_rules *r, int max_seeds, int threads, char *err);

/* The largest database built or opened: 1 TiB (ranks are size_t, files are mapped whole). */
#define EG_MAX_BYTES (1ULL << 40)

/* Entries (= bytes) of the database of a board with `pits` pits per side up to max_seeds seeds:
 * C(max_seeds + 2 pits, 2 pits); UINT64_MAX when that overflows. */
uint64_t eg_entries(int pits, int max_seeds);

/* The most bytes a database may take in memory: three quarters of the machine's physical memory, or of
 * this process's cgroup memory limit when that is lower (cgroup v2 memory.max, v1
 * memory.limit_in_bytes; 16 GiB where neither can be read). eg_create refuses bigger ones, eg_build_file
 * builds them layer by layer and eg_open serves them from the file's mapping instead of copying them. */
size_t eg_memory_budget(void);
void eg_free(eg_db *db);

int eg_max_seeds(const eg_db *db);
/* The rules the database was built for (owned by db). */
const kalah_rules *eg_rules(const eg_db *db);
size_t eg_bytes(const eg_db *db);
/* The values, one byte per arrangement rank (eg_bytes of them); owned by db. */
const int8_t *eg_values(const eg_db *db);

/* 1 when db holds the values for positions of rules r: the values depend only on the pits per side, the
 * capture and end rules (not on the seeds per pit at the start), and need max_sows = 0. */
int eg_serves(const eg_db *db, const kalah_rules *r);

/* F of a position that is not finished and has at most eg_max_seeds seeds in its pits: the final margin
 * under perfect play minus the current store difference, both for p->side. */
int eg_value(const eg_db *db, const kalah_pos *p);

/* The entry eg_value reads for p (the same preconditions): a search prefetches it for every child the
 * database covers, then reads F = *eg_value_at(db, p) once the memory has arrived. */
const int8_t *eg_value_at(const eg_db *db, const kalah_pos *p);

/* ---- tablebase files (endgame_file.c) ----
 *
 * A database written once and loaded by every later process (mapped, verified, then copied into memory of
 * large pages, eg_alloc_values), so that `solve`, `move`, the solver and az tb=N agents skip the build. The file: a 4096-byte text header padded with NUL bytes,
 *
 *     sowzero-tablebase 1
 *     rules <the builder's rules spec>
 *     seeds <N: every arrangement of at most N seeds in the pits>
 *     entries <C(N + 2 pits, 2 pits)>
 *     crc32 <CRC-32 of the values, 8 lower-case hex digits>
 *     header-crc32 <CRC-32 of the header text before this line>
 *
 * then the values (one signed byte each, by rank as above) from offset 4096, so they map page-aligned.
 * CRC-32 is zlib's (ISO 3309). Every field is checked on open and the whole file is read once to verify
 * the checksum (about 0.1 s per 226 MB), so a damaged or truncated file is refused, never probed.
 */
#define EG_FILE_HEADER 4096
enum { EG_FILE_OK = SZ_OK, EG_FILE_NONE = 1, EG_FILE_EBAD = SZ_EFORMAT };

/* Writes db to path: to path.PID.tmp first, then renamed, so a crash never leaves a partial file under the
 * name. 0, or -1 with a message naming the path in err (KALAH_ERRLEN bytes, may be NULL). */
int eg_save(const eg_db *db, const char *path, char *err);

/* Builds the database of rules r for up to max_seeds seeds (as eg_create) straight into the tablebase
 * file at path, using at most `memory` bytes for the values (0: eg_memory_budget()). A table that fits is
 * built in a shared mapping of the file (its blocks reserved first), as fast as in memory. A bigger one is
 * built layer by layer (a layer = the arrangements of one seed count; they depend only on themselves and
 * the layers below): memory holds the layer being built and one block of the finished layers below, read
 * back from the file in order, so the table may be several times the memory as long as its largest layer
 * fits (6 pits: 3/8 of a 20-seed table, 1/3 of a 24-seed one). Databases bigger than memory were built so
 * for Awari (Romein and Bal 2003). Written to path.PID.tmp, synced, then renamed, as eg_save. Returns the
 * database (read-only use; eg_free unmaps it), or NULL with a message naming the path in err (KALAH_ERRLEN
 * bytes, may be NULL): bad rules or seeds, too little memory for the largest layer, no disk space, an
 * unwritable path. */
eg_db *eg_build_file(const kalah_rules *r, int max_seeds, int threads, uint64_t memory, const char *path,
                     char *err);

/* The least memory (bytes) eg_build_file needs to build a table of `pits` pits per side and up to
 * max_seeds seeds (1..127) that is bigger than that memory: its largest layer and one block of 64 Ki
 * entries of the layers below. */
uint64_t eg_layered_floor(int pits, int max_seeds);

/* Maps and verifies the tablebase file at path, then copies the values into memory of large pages
 * (eg_alloc_values) when they fit eg_memory_budget, else serves them from the mapping. NULL with a message
 * naming the file and what is wrong in err on a missing, unreadable, damaged or foreign file. The database
 * is read-only; eg_free frees or unmaps it. */
eg_db *eg_open(const char *path, char *err);

/* Where tablebase files live: $SOWZERO_TABLEBASE when it names a folder (when it names a file, that
 * file's folder), else $XDG_CACHE_HOME/sowzero, else $HOME/.cache/sowzero. Writes the folder into buf
 * (n bytes); -1 when no folder can be named (no HOME) or it does not fit. */
int eg_cache_dir(char *buf, size_t n);

/* The file name a database of rules r and N seeds gets in the folder: e.g.
 * "kalah-pits6-capture_opposite-end_either-empty-tb20.sztb". Returns buf. */
char *eg_file_name(const kalah_rules *r, int seeds, char *buf, size_t n);

/* The standard path of a database of rules r and N seeds: eg_cache_dir's folder (created with its parents
 * when create_dir) and eg_file_name. 0, or -1 with the reason in err (KALAH_ERRLEN, may be NULL). */
int eg_default_path(const kalah_rules *r, int seeds, char *path, size_t n, int create_dir, char *err);

/* Finds a tablebase file serving rules r with at least min_seeds seeds (capped at r's total):
 * $SOWZERO_TABLEBASE when it names a file (then only that file: one for other rules or too few seeds is
 * an error), else the smallest such file in eg_cache_dir. Returns the opened database with *status
 * EG_FILE_OK and its path in path_out (n bytes, may be NULL); NULL with EG_FILE_NONE when there is none;
 * NULL with EG_FILE_EBAD and a message naming the file in err when the file found is damaged or does not
 * fit. */
eg_db *eg_find(const kalah_rules *r, int min_seeds, char *path_out, size_t n, int *status, char *err);

/* The most seeds, at most max_seeds, of a tablebase file in eg_cache_dir's folder for rules r (by its
 * standard name; eg_find opens and checks it); 0 when there is none, or when $SOWZERO_TABLEBASE names one
 * file (eg_find then uses only that one). */
int eg_largest_file(const kalah_rules *r, int max_seeds);

#endif
