/* congklak.c — relay sowing (docs/design.md §1.3) on Kalah's board. */
#include "env/congklak.h"
#include "env/errbuf.h"
#include "env/twoside.h"

#include <string.h>

#define set_err(err, ...) errbuf_set(err, KALAH_ERRLEN, __VA_ARGS__)

congklak_rules congklak_rules_default(void)
{
    return (congklak_rules){.pits = 7, .seeds = 7, .capture = KALAH_CAPTURE_OPPOSITE,
                            .end = KALAH_END_EITHER_EMPTY, .max_sows = 0};
}

int congklak_rules_check(const congklak_rules *r, char *err) { return kalah_rules_check(r, err); }

int congklak_rules_parse(const char *spec, congklak_rules *out, char *err)
{
    congklak_rules d = congklak_rules_default();
    return kalah_rules_parse_as("congklak", &d, spec, out, err);
}

char *congklak_rules_format(const congklak_rules *r, char *buf, size_t n)
{
    return kalah_rules_format_as("congklak", r, buf, n);
}

int congklak_play(const congklak_rules *r, kalah_pos *p, int k, congklak_step *info)
{
    if (p->over)
        return KALAH_EOVER;
    if (k < 0 || k >= r->pits || !(kalah_legal(r, p) & (1u << k)))
        return KALAH_EILLEGAL;
    const int m = r->pits, s = p->side, ncell = 2 * m + 2;
    const int store = s ? 2 * m + 1 : m, skip = s ? m : 2 * m + 1, own_lo = s ? m + 1 : 0;
    uint8_t cell[KALAH_CELLS];
    memcpy(cell, p->cell, sizeof cell);
    int in_pits = 0;
    for (int i = 0; i < ncell; i++)
        if (i != m && i != 2 * m + 1)
            in_pits += cell[i];
    const int bound = (2 * m + 1) * (in_pits + 1);

    int pos = own_lo + k, n = cell[pos], sown = 0, relays = 0, captured = 0, extra = 0;
    cell[pos] = 0;
    for (;;) {
        sown += n;
        if (sown > bound)
            return CONGKLAK_ELOOP;
        while (n--) {
            do
                pos = pos + 1 == ncell ? 0 : pos + 1;
            while (pos == skip);
            cell[pos]++;
        }
        if (pos == store) {
            extra = 1;
            break;
        }
        if (cell[pos] > 1) { /* it held seeds before the seed landed: relay */
            n = cell[pos];
            cell[pos] = 0;
            relays++;
            continue;
        }
        if (pos >= own_lo && pos < own_lo + m && r->capture != KALAH_CAPTURE_NONE) {
            int opp = 2 * m - pos;
            if (cell[opp]) {
                captured = cell[opp] + 1;
                cell[opp] = 0;
                cell[pos] = 0;
            } else if (r->capture == KALAH_CAPTURE_ALWAYS) {
                captured = 1;
                cell[pos] = 0;
            }
            cell[store] = (uint8_t)(cell[store] + captured);
        }
        break;
    }
    const int next = extra ? s : !s;
    int over = r->end == KALAH_END_EITHER_EMPTY ? !twoside_row_seeds(cell, m, 0) || !twoside_row_seeds(cell, m, 1)
                                                : !twoside_row_seeds(cell, m, next);
    if (!over && r->max_sows && p->sows + 1 >= r->max_sows)
        over = 1;
    if (over)
        twoside_sweep(cell, m);
    memcpy(p->cell, cell, sizeof cell);
    p->side = (uint8_t)next;
    p->over = (uint8_t)over;
    p->sows++;
    if (info) {
        info->extra_turn = (uint8_t)(extra && !over);
        info->captured = (uint8_t)captured;
        info->over = (uint8_t)over;
        info->last = (uint8_t)pos;
        info->relays = (uint16_t)relays;
        info->seeds_sown = (uint16_t)sown;
    }
    return KALAH_OK;
}

