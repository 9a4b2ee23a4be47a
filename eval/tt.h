/* tt.h — the alpha-beta transposition table (internal to eval/alphabeta).
 *
 * What is stored. A Kalah position's value splits into the store difference plus a part that depends only
 * on the pits and the side to move: play never reads the stores, captures and sowings only add to them,
 * and the end sweep moves pit seeds. So value = (own store − opponent's store) + F(pits, side[, sows]),
 * for exact values and for the depth-limited search alike (its horizon value is the store difference,
 * F = 0 there). The table keeps bounds on F, keyed by the pits and the side to move (and the sow count
 * when rules.max_sows > 0, since the game's end then depends on it), so positions that differ only in how
 * the captured seeds are split between the stores share one entry.
 *
 * Layout: 64-byte buckets of 4 entries of 16 bytes. A 128-bit hash of the key gives the bucket index (one
 * 64-bit half) and a 64-bit check stored in the entry (the other half); a false match needs both to
 * collide, about 4/2^64 per probe.
 *
 * Each entry holds a lower and an upper bound on F (both, so that the null-window probes of MTD(f) keep
 * what earlier probes learned), the remaining depth of the search that found them, whether they are
 * exact game values (the subtree reached no horizon), the best move, a log2 of the work spent (for
 * replacement) and the search generation. When bounds hold (tt_usable):
 *   - a solve (depth TT_DEPTH_EXACT) uses exact entries only;
 *   - a depth-limited search of remaining depth d uses non-exact entries of depth d exactly, and exact
 *     entries found with depth <= d (their tree ended within that depth, so a deeper search sees the same
 *     tree). So a depth-limited value is always the fixed-depth minimax value, whatever the table holds.
 *
 * Concurrency: several threads may probe and store at once (the parallel solve, alphabeta.h). A slot is
 * two 64-bit words, the entry's data and its check XOR the data, each read and written whole with relaxed
 * atomics and no lock (Hyatt and Mann's lockless hashing, 2002): a slot torn by two writers fails the
 * check and reads as a miss, so a probe returns an entry some thread really stored. An entry is copied
 * out on probe, never used in place.
 */
#ifndef SOWZERO_EVAL_TT_H
#define SOWZERO_EVAL_TT_H

#include <stddef.h>
#include <stdint.h>

#define TT_DEPTH_EXACT 255
#define TT_NO_MOVE 255
#define TT_EXACT 0x80
#define TT_INF 32767 /* bound meaning "no bound": F never leaves -255..255 */

typedef struct {
    uint64_t check;  /* the hash's second half; 0 = empty slot */
    int16_t lower;   /* lower bound on F (-TT_INF: none) */
    int16_t upper;   /* upper bound on F (TT_INF: none) */
    uint8_t depth;   /* remaining depth of the search that stored it; TT_DEPTH_EXACT = a solve */
    uint8_t move;    /* best or refuting relative pit, TT_NO_MOVE if none */
    uint8_t work;    /* bits 0-6: floor(log2(nodes of the search that stored it)) + 1, for replacement;
                      * bit 7 (TT_EXACT): the bounds are on the game's exact value */
    uint8_t gen;     /* search generation that last wrote it */
} tt_entry;

/* A stored entry: data packs lower, upper, depth, move, work, gen; key = check ^ data (0, 0: empty). */
typedef struct {
    uint64_t key, data;
} tt_slot;

typedef struct {
    tt_slot e[4];
} tt_bucket;

typedef struct {
    tt_bucket *b;
    uint64_t mask;   /* buckets - 1 (a power of two) */
    uint8_t gen;
} tt_table;

/* A position's table key: the hash halves. */
typedef struct {
    uint64_t index, check;
} tt_key;

/* Allocates a table of the largest power-of-two bucket count that fits in mb MiB (mb >= 1). Returns 0 or
 * -1 when out of memory. The memory is zeroed (all slots empty). */
int tt_init(tt_table *t, size_t mb);
void tt_destroy(tt_table *t);
void tt_clear(tt_table *t);

/* Bytes allocated. */
static inline size_t tt_bytes(const tt_table *t) { return (size_t)(t->mask + 1) * sizeof(tt_bucket); }

/* Hash of a 16-byte board whose store bytes the caller has zeroed, the side to move and the sow count
 * (pass 0 when the rules have no sow limit). Mixer: the 64-bit finaliser of MurmurHash3 (Appleby), applied
 * to two differently salted combinations of the board's two words. */
static inline uint64_t tt_fmix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

static inline tt_key tt_make_key(uint64_t lo, uint64_t hi, unsigned side, unsigned sows)
{
    uint64_t extra = ((uint64_t)sows << 1 | side) + 1;
    uint64_t a = tt_fmix(lo ^ tt_fmix(hi + 0x9e3779b97f4a7c15ULL * extra));
    uint64_t b = tt_fmix(hi ^ tt_fmix(lo + 0xd6e8feb86659fd93ULL * extra) ^ 0x5851f42d4c957f2dULL);
    tt_key k = {a, b | 1}; /* check 0 marks an empty slot */
    return k;
}

static inline uint64_t tt_pack(const tt_entry *e)
{
    return (uint64_t)(uint16_t)e->lower | (uint64_t)(uint16_t)e->upper << 16 | (uint64_t)e->depth << 32 |
           (uint64_t)e->move << 40 | (uint64_t)e->work << 48 | (uint64_t)e->gen << 56;
}

static inline void tt_unpack(uint64_t check, uint64_t d, tt_entry *e)
{
    e->check = check;
    e->lower = (int16_t)(uint16_t)d;
    e->upper = (int16_t)(uint16_t)(d >> 16);
    e->depth = (uint8_t)(d >> 32);
    e->move = (uint8_t)(d >> 40);
    e->work = (uint8_t)(d >> 48);
    e->gen = (uint8_t)(d >> 56);
}

/* Reads slot i of bucket b into *e; returns its check (0 for an empty slot; a torn slot gives a check
 * that matches no key, with overwhelming probability). */
static inline uint64_t tt_read_slot(const tt_bucket *b, int i, tt_entry *e)
{
    uint64_t d = __atomic_load_n(&b->e[i].data, __ATOMIC_RELAXED);
    uint64_t c = __atomic_load_n(&b->e[i].key, __ATOMIC_RELAXED) ^ d;
    tt_unpack(c, d, e);
    return c;
}

/* Looks the key up; copies the entry into *buf and returns buf, or NULL when the key is not there. */
static inline const tt_entry *tt_probe(const tt_table *t, tt_key k, tt_entry *buf)
{
    const tt_bucket *b = &t->b[k.index & t->mask];
    for (int i = 0; i < 4; i++)
        if (tt_read_slot(b, i, buf) == k.check)
            return buf;
    return NULL;
}

static inline void tt_prefetch(const tt_table *t, tt_key k)
{
    __builtin_prefetch(&t->b[k.index & t->mask]);
}

/* Whether e's bounds hold for a search of remaining depth `depth` (see above). */
static inline int tt_usable(const tt_entry *e, int depth)
{
    if (e->work & TT_EXACT)
        return e->depth <= depth;
    return depth != TT_DEPTH_EXACT && e->depth == depth;
}

/* Records what a search of the given remaining depth found: the search returned v with window
 * (alpha, beta) in F units (fail-soft), best move `move` (TT_NO_MOVE if none), having visited `nodes`
 * positions; exact: its subtree reached no horizon. v <= alpha gives an upper bound, v >= beta a lower
 * bound, else both. Results that hold together are intersected; an exact entry is not replaced by a
 * depth-limited one of the same position. */
void tt_store(tt_table *t, tt_key k, int depth, int exact, int alpha, int beta, int v, int move, uint64_t nodes);

#endif
