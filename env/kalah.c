/* kalah.c — rules, packed board and O(1) sowing (docs/design.md §1.1, §3.1). */
#include "env/kalah.h"
#include "env/errbuf.h"
#include "env/rules_spec.h"

#include <emmintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Precomputed sowing masks, for every board size m = 1..7 and side:
 *   cycle[m][s]          0xFF at the 2m+1 indices the mover sows into (all but the opponent's store);
 *   rem[m][s][k][r]      1 at the r cycle positions that follow the mover's relative pit k;
 *   last[m][s][k][r]     the index where the last seed falls when n % (2m+1) == r (r = 0: the origin);
 *   row[m][s]            0xFF at side s's pits (for empty-row tests).
 * A sowing of n seeds is then: origin = 0; board += (n / L) & cycle; board += rem[n % L]. */
typedef struct {
    _Alignas(16) uint8_t cycle[2][KALAH_CELLS];
    _Alignas(16) uint8_t row[2][KALAH_CELLS];
    _Alignas(16) uint8_t rem[2][KALAH_MAX_PITS][2 * KALAH_MAX_PITS + 1][KALAH_CELLS];
    uint8_t last[2][KALAH_MAX_PITS][2 * KALAH_MAX_PITS + 1];
    uint8_t quot[256], mod[256]; /* n / L and n % L, so the hot path never divides */
} sow_tables;

static sow_tables tables[KALAH_MAX_PITS + 1];


__attribute__((constructor)) static void build_tables(void)
{
    for (int m = 1; m <= KALAH_MAX_PITS; m++) {
        sow_tables *t = &tables[m];
        int L = 2 * m + 1;
        for (int n = 0; n < 256; n++) {
            t->quot[n] = (uint8_t)(n / L);
            t->mod[n] = (uint8_t)(n % L);
        }
        for (int s = 0; s < 2; s++) {
            int skip = s ? m : 2 * m + 1; /* the opponent's store */
            for (int i = 0; i < 2 * m + 2; i++) {
                t->cycle[s][i] = i == skip ? 0 : 0xFF;
                int lo = s ? m + 1 : 0;
                t->row[s][i] = (i >= lo && i < lo + m) ? 0xFF : 0;
            }
            for (int k = 0; k < m; k++) {
                int origin = s ? m + 1 + k : k;
                for (int r = 0; r < L; r++) {
                    int pos = origin;
                    for (int j = 0; j < r; j++) {
                        do
                            pos = (pos + 1) % (2 * m + 2);
                        while (pos == skip);
                        t->rem[s][k][r][pos] = 1;
                    }
                    t->last[s][k][r] = (uint8_t)pos;
                }
            }
        }
    }
}

kalah_rules kalah_rules_default(void)
{
    return (kalah_rules){.pits = 6, .seeds = 4, .capture = KALAH_CAPTURE_OPPOSITE,
                         .end = KALAH_END_EITHER_EMPTY, .max_sows = 0};
}

#define set_err(err, ...) errbuf_set(err, KALAH_ERRLEN, __VA_ARGS__)

int kalah_rules_check(const kalah_rules *r, char *err)
{
    if (r->pits < 1 || r->pits > KALAH_MAX_PITS) {
        set_err(err, "pits=%d is out of range 1..%d", r->pits, KALAH_MAX_PITS);
        return KALAH_EINVAL;
    }
    if (r->seeds < 1 || r->seeds > 18) {
        set_err(err, "seeds=%d is out of range 1..18", r->seeds);
        return KALAH_EINVAL;
    }
    if (2 * r->pits * r->seeds > 255) {
        set_err(err, "pits=%d, seeds=%d: 2*pits*seeds = %d exceeds 255 seeds (one byte per pit)", r->pits,
                r->seeds, 2 * r->pits * r->seeds);
        return KALAH_EINVAL;
    }
    if ((unsigned)r->capture > KALAH_CAPTURE_NONE) {
        set_err(err, "capture: unknown rule %d", (int)r->capture);
        return KALAH_EINVAL;
    }
    if ((unsigned)r->end > KALAH_END_MOVER_EMPTY) {
        set_err(err, "end: unknown rule %d", (int)r->end);
        return KALAH_EINVAL;
    }
    if (r->max_sows < 0 || r->max_sows > 65535) {
        set_err(err, "max_sows=%d is out of range 0..65535", r->max_sows);
        return KALAH_EINVAL;
    }
    return KALAH_OK;
}

static const char *const capture_names[] = {"opposite", "always", "none"};
static const char *const end_names[] = {"either-empty", "mover-empty"};

int kalah_capture_parse(const char *s, kalah_capture *out)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, capture_names[i])) {
            *out = (kalah_capture)i;
            return KALAH_OK;
        }
    return KALAH_EINVAL;
}

int kalah_end_parse(const char *s, kalah_end *out)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(s, end_names[i])) {
            *out = (kalah_end)i;
            return KALAH_OK;
        }
    return KALAH_EINVAL;
}

const char *kalah_capture_name(kalah_capture c) { return (unsigned)c <= 2 ? capture_names[c] : "?"; }
const char *kalah_end_name(kalah_end e) { return (unsigned)e <= 1 ? end_names[e] : "?"; }

/* The rules keys in spec order (env/rules_spec.h reads and writes them). */
static const rspec_key keys[] = {
    {"pits", 1, KALAH_MAX_PITS, NULL, 0},
    {"seeds", 1, 18, NULL, 0},
    {"capture", 0, KALAH_CAPTURE_NONE, capture_names, 0},
    {"end", 0, KALAH_END_MOVER_EMPTY, end_names, 0},
    {"max_sows", 0, 65535, NULL, 0},
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

int kalah_rules_parse_as(const char *game, const kalah_rules *defaults, const char *spec, kalah_rules *out,
                         char *err)
{
    int v[NKEYS] = {defaults->pits, defaults->seeds, (int)defaults->capture, (int)defaults->end,
                    defaults->max_sows};
    if (rspec_parse(spec, game, keys, NKEYS, v, err) != RSPEC_OK)
        return KALAH_EINVAL;
    kalah_rules r = {.pits = v[0], .seeds = v[1], .capture = (kalah_capture)v[2], .end = (kalah_end)v[3],
                     .max_sows = v[4]};
    if (kalah_rules_check(&r, err) != KALAH_OK)
        return KALAH_EINVAL;
    *out = r;
    return KALAH_OK;
}

int kalah_rules_parse(const char *spec, kalah_rules *out, char *err)
{
    kalah_rules d = kalah_rules_default();
    return kalah_rules_parse_as("kalah", &d, spec, out, err);
}

char *kalah_rules_format_as(const char *game, const kalah_rules *r, char *buf, size_t n)
{
    int v[NKEYS] = {r->pits, r->seeds, (int)r->capture, (int)r->end, r->max_sows};
    return rspec_format(game, keys, NKEYS, v, buf, n);
}

char *kalah_rules_format(const kalah_rules *r, char *buf, size_t n) { return kalah_rules_format_as("kalah", r, buf, n); }

void kalah_start(const kalah_rules *r, kalah_pos *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 2 * r->pits + 2 && i < KALAH_CELLS; i++)
        out->cell[i] = (i == r->pits || i == 2 * r->pits + 1) ? 0 : (uint8_t)r->seeds;
}

int kalah_total(const kalah_rules *r, const kalah_pos *p)
{
    int t = 0;
    for (int i = 0; i < 2 * r->pits + 2; i++)
        t += p->cell[i];
    return t;
}

static inline __m128i load_board(const kalah_pos *p) { return _mm_load_si128((const __m128i *)p->cell); }

/* Bit i set when board byte i is zero. */
static inline unsigned zero_bytes(__m128i b) { return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_setzero_si128())); }

unsigned kalah_legal(const kalah_rules *r, const kalah_pos *p)
{
    if (p->over)
        return 0;
    unsigned nonzero = ~zero_bytes(load_board(p));
    int base = p->side ? r->pits + 1 : 0;
    return (nonzero >> base) & ((1u << r->pits) - 1);
}

static inline int row_empty(const sow_tables *t, __m128i b, int s)
{
    __m128i rowmask = _mm_load_si128((const __m128i *)t->row[s]);
    return _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(b, rowmask), _mm_setzero_si128())) == 0xFFFF;
}

/* Each side's remaining pit seeds go to that side's own store. */
static void sweep(const kalah_rules *r, kalah_pos *p, int s)
{
    /* "& 15": the index is always < 16 (pits <= 7); the mask lets GCC's bounds analysis see it. */
    int base = s ? r->pits + 1 : 0, store = kalah_store(r, s) & (KALAH_CELLS - 1);
    for (int i = base; i < base + r->pits && i < KALAH_CELLS; i++) {
        p->cell[store] = (uint8_t)(p->cell[store] + p->cell[i]);
        p->cell[i] = 0;
    }
}

void kalah_sow(const kalah_rules *r, kalah_pos *p, int k, kalah_step *info)
{
    const int m = r->pits, s = p->side;
    const sow_tables *t = &tables[m];
    const int origin = s ? m + 1 + k : k;
    const int n = p->cell[origin];
    const int rem = t->mod[n];
    p->cell[origin] = 0;

    __m128i b = load_board(p);
    __m128i laps = _mm_and_si128(_mm_set1_epi8((char)t->quot[n]), _mm_load_si128((const __m128i *)t->cycle[s]));
    b = _mm_add_epi8(b, laps);
    b = _mm_add_epi8(b, _mm_load_si128((const __m128i *)t->rem[s][k][rem]));
    _mm_store_si128((__m128i *)p->cell, b);

    const int last = t->last[s][k][rem];
    const int store = s ? 2 * m + 1 : m;
    const int own_lo = s ? m + 1 : 0;
    int captured = 0;
    /* A count of 1 after the sowing means the pit was empty before the last seed landed: every lap adds
     * to every cycle position, so a full lap leaves at least 2 in any pit but the (emptied) origin. */
    if (r->capture != KALAH_CAPTURE_NONE && last >= own_lo && last < own_lo + m && p->cell[last] == 1) {
        int opp = 2 * m - last;
        if (p->cell[opp]) {
            captured = p->cell[opp] + 1;
            p->cell[opp] = 0;
            p->cell[last] = 0;
        } else if (r->capture == KALAH_CAPTURE_ALWAYS) {
            captured = 1;
            p->cell[last] = 0;
        }
        p->cell[store] = (uint8_t)(p->cell[store] + captured);
    }
    const int store_landing = last == store;
    const int next = store_landing ? s : !s;
    p->sows++;
    p->side = (uint8_t)next;

    int over = 0;
    b = load_board(p);
    if (r->end == KALAH_END_EITHER_EMPTY) {
        if (row_empty(t, b, 0) || row_empty(t, b, 1))
            over = 1;
    } else if (row_empty(t, b, next)) {
        over = 1;
    }
    if (!over && r->max_sows && p->sows >= r->max_sows)
        over = 1;
    if (over) {
        sweep(r, p, 0);
        sweep(r, p, 1);
        p->over = 1;
    }
    if (info) {
        info->extra_turn = (uint8_t)(store_landing && !over);
        info->captured = (uint8_t)captured;
        info->over = (uint8_t)over;
        info->last = (uint8_t)last;
    }
}

int kalah_play(const kalah_rules *r, kalah_pos *p, int k, kalah_step *info)
{
    if (p->over)
        return KALAH_EOVER;
    if (k < 0 || k >= r->pits || !(kalah_legal(r, p) & (1u << k)))
        return KALAH_EILLEGAL;
    kalah_sow(r, p, k, info);
    return KALAH_OK;
}

/* Marks (and sweeps) a parsed position that the rules say is already finished. */
static void settle(const kalah_rules *r, kalah_pos *p)
{
    const sow_tables *t = &tables[r->pits];
    __m128i b = load_board(p);
    int over = r->end == KALAH_END_EITHER_EMPTY ? (row_empty(t, b, 0) || row_empty(t, b, 1))
                                                : row_empty(t, b, p->side);
    if (over) {
        sweep(r, p, 0);
        sweep(r, p, 1);
        p->over = 1;
    }
}

int kalah_pos_parse(const char *s, const kalah_rules *r, kalah_pos *out, int *pits_out, char *err)
{
    kalah_pos p;
    memset(&p, 0, sizeof p);
    if (!s) {
        set_err(err, "no position");
        return KALAH_EINVAL;
    }
    const char *c = s;
    int count = 0;
    int values[KALAH_CELLS + 1];
    for (;;) {
        while (*c == ' ')
            c++;
        const char *f = c;
        while (*c && *c != ',' && *c != ' ')
            c++;
        if (c == f) {
            set_err(err, "field %d is empty", count + 1);
            return KALAH_EINVAL;
        }
        if (count >= KALAH_CELLS) {
            set_err(err, "too many counts (at most %d: 2*pits+2 with pits <= %d)", KALAH_CELLS, KALAH_MAX_PITS);
            return KALAH_EINVAL;
        }
        int len = (int)(c - f), neg = f[0] == '-', v = 0;
        for (int i = neg; i < len; i++) {
            if (f[i] < '0' || f[i] > '9' || v > 1000) {
                set_err(err, "field %d ('%.*s') is not a number", count + 1, len, f);
                return KALAH_EINVAL;
            }
            v = v * 10 + (f[i] - '0');
        }
        if (neg && len > 1) {
            set_err(err, "field %d is negative (%.*s)", count + 1, len, f);
            return KALAH_EINVAL;
        }
        if (neg) {
            set_err(err, "field %d ('-') is not a number", count + 1);
            return KALAH_EINVAL;
        }
        if (v > 255) {
            set_err(err, "field %d: %d seeds is more than a pit can hold (255)", count + 1, v);
            return KALAH_EINVAL;
        }
        values[count++] = v;
        while (*c == ' ' && c[1] == ' ')
            c++;
        if (*c == ',')
            c++;
        else
            break;
    }
    if (count < 4 || count % 2) {
        set_err(err, "%d counts: expected 2*pits+2 (an even number, 4..%d)", count, KALAH_CELLS);
        return KALAH_EINVAL;
    }
    int pits = count / 2 - 1;
    while (*c == ' ')
        c++;
    if ((c[0] != 'S' && c[0] != 'N') || c[1]) {
        set_err(err, "side to move must be S or N, got '%s'", c);
        return KALAH_EINVAL;
    }
    p.side = c[0] == 'N';
    int total = 0;
    for (int i = 0; i < count; i++) {
        p.cell[i] = (uint8_t)values[i];
        total += values[i];
    }
    if (total > 255) {
        set_err(err, "%d seeds in all: a board holds at most 255", total);
        return KALAH_EINVAL;
    }
    if (r) {
        if (pits != r->pits) {
            set_err(err, "the position has %d pits per side but the rules say pits=%d", pits, r->pits);
            return KALAH_EINVAL;
        }
        if (total != 2 * r->pits * r->seeds) {
            set_err(err, "the counts add up to %d seeds, the rules (pits=%d, seeds=%d) need %d", total,
                    r->pits, r->seeds, 2 * r->pits * r->seeds);
            return KALAH_EINVAL;
        }
        settle(r, &p);
    }
    *out = p;
    if (pits_out)
        *pits_out = pits;
    return KALAH_OK;
}

char *kalah_pos_format(const kalah_rules *r, const kalah_pos *p, char *buf, size_t n)
{
    size_t o = 0;
    for (int i = 0; i < 2 * r->pits + 2 && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, i ? ",%d" : "%d", p->cell[i]);
    if (o < n)
        snprintf(buf + o, n - o, " %c", p->side ? 'N' : 'S');
    return buf;
}

int kalah_move_parse(const kalah_rules *r, int side, const char *s, int allow_number)
{
    if (!s || !s[0] || s[1])
        return KALAH_EINVAL;
    int ch = s[0];
    if (ch >= 'a' && ch < 'a' + r->pits)
        return side == KALAH_SOUTH ? ch - 'a' : KALAH_EILLEGAL;
    if (ch >= 'A' && ch < 'A' + r->pits)
        return side == KALAH_NORTH ? ch - 'A' : KALAH_EILLEGAL;
    if (allow_number && ch >= '1' && ch < '1' + r->pits)
        return ch - '1';
    return KALAH_EINVAL;
}

static void perft_rec(const kalah_rules *r, const kalah_pos *p, int ply, int depth, uint64_t *nodes)
{
    unsigned legal = kalah_legal(r, p);
    nodes[ply] += (uint64_t)__builtin_popcount(legal);
    if (ply + 1 == depth)
        return;
    while (legal) {
        int k = __builtin_ctz(legal);
        legal &= legal - 1;
        kalah_pos c = *p;
        kalah_sow(r, &c, k, NULL);
        if (!c.over)
            perft_rec(r, &c, ply + 1, depth, nodes);
    }
}

void kalah_perft(const kalah_rules *r, const kalah_pos *p, int depth, uint64_t *nodes)
{
    memset(nodes, 0, (size_t)depth * sizeof *nodes);
    if (depth > 0 && !p->over)
        perft_rec(r, p, 0, depth, nodes);
}

void kalah_encode(const kalah_rules *r, const kalah_pos *p, float *out)
{
    const int m = r->pits, s = p->side;
    const float scale = 1.0f / (float)r->seeds;
    const int own = s ? m + 1 : 0, opp = s ? 0 : m + 1;
    for (int k = 0; k < m; k++) {
        out[k] = p->cell[own + k] * scale;
        out[m + k] = p->cell[opp + k] * scale;
    }
    out[2 * m] = p->cell[kalah_store(r, s)] * scale;
    out[2 * m + 1] = p->cell[kalah_store(r, !s)] * scale;
}
