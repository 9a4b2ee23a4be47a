/* tt.c — transposition table storage and replacement (see tt.h). */
#include "eval/tt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int tt_init(tt_table *t, size_t mb)
{
    size_t bytes = mb << 20, n = 1;
    while (n * 2 * sizeof(tt_bucket) <= bytes)
        n *= 2;
    /* 64-byte alignment keeps each bucket in one cache line. */
    /* 2 MiB alignment and transparent huge pages: with 4 KiB pages nearly every probe of a big table would
     * also miss the TLB. */
    size_t align = n * sizeof(tt_bucket) >= (2u << 20) ? (2u << 20) : 64;
    t->b = aligned_alloc(align, n * sizeof(tt_bucket));
    if (!t->b)
        return -1;
#ifdef MADV_HUGEPAGE
    if (align > 64)
        madvise(t->b, n * sizeof(tt_bucket), MADV_HUGEPAGE);
#endif
    t->mask = n - 1;
    t->gen = 0;
    tt_clear(t);
    return 0;
}

void tt_destroy(tt_table *t)
{
    free(t->b);
    t->b = NULL;
}

void tt_clear(tt_table *t)
{
    memset(t->b, 0, tt_bytes(t));
    t->gen = 0;
}

/* Replacement value: entries of older searches go first, then shallow ones, then cheap ones. For an exact
 * solve every entry has the same depth, so the work spent (the subtree's size) decides, which keeps the
 * expensive entries near the root. */
static int keep_score(const tt_table *t, const tt_entry *e)
{
    int exact = e->work & TT_EXACT;
    return (e->gen == t->gen ? 512 : 0) + (exact ? TT_DEPTH_EXACT : e->depth) + (e->work & 0x7f);
}

static void write_slot(tt_bucket *b, int i, const tt_entry *e)
{
    uint64_t d = tt_pack(e);
    __atomic_store_n(&b->e[i].data, d, __ATOMIC_RELAXED);
    __atomic_store_n(&b->e[i].key, e->check ^ d, __ATOMIC_RELAXED);
}

void tt_store(tt_table *t, tt_key k, int depth, int exact, int alpha, int beta, int v, int move, uint64_t nodes)
{
    tt_bucket *b = &t->b[k.index & t->mask];
    tt_entry slots[4], *e = NULL;
    int at = -1;
    for (int i = 0; i < 4; i++)
        if (tt_read_slot(b, i, &slots[i]) == k.check && at < 0) {
            at = i;
            e = &slots[i];
        }
    int lo = v >= beta ? v : -TT_INF, hi = v <= alpha ? v : TT_INF;
    if (v > alpha && v < beta)
        lo = hi = v;
    if (e) {
        int e_exact = (e->work & TT_EXACT) != 0;
        if (e_exact && !exact) {
            if (e->move == TT_NO_MOVE) {
                e->move = (uint8_t)move;
                write_slot(b, at, e);
            }
            return; /* game values are worth more than one depth's values */
        }
        if (e_exact == exact && (exact || e->depth == depth)) {
            /* Both results hold (exact ones for every depth from the larger on), so intersect them.
             * Conflicting bounds would mean a bug or a hash collision; then the new result wins. */
            int nlo = lo > e->lower ? lo : e->lower, nhi = hi < e->upper ? hi : e->upper;
            if (nlo <= nhi) {
                lo = nlo;
                hi = nhi;
                if (exact && e->depth > depth)
                    depth = e->depth;
            }
        }
        if (move == TT_NO_MOVE)
            move = e->move;
    } else {
        at = 0;
        int best = keep_score(t, &slots[0]);
        for (int i = 0; i < 4; i++) {
            if (!slots[i].check) {
                at = i;
                break;
            }
            int s = keep_score(t, &slots[i]);
            if (s < best) {
                best = s;
                at = i;
            }
        }
        e = &slots[at];
    }
    e->check = k.check;
    e->lower = (int16_t)lo;
    e->upper = (int16_t)hi;
    e->depth = (uint8_t)depth;
    e->move = (uint8_t)move;
    int w = nodes ? 64 - __builtin_clzll(nodes) : 0;
    e->work = (uint8_t)(w | (exact ? TT_EXACT : 0));
    e->gen = t->gen;
    write_slot(b, at, e);
}
