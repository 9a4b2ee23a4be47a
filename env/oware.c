/* oware.c — Oware, Abapa rules (docs/design.md §1.4; end order of tests/vectors/oware-moves.txt). */
#include "env/oware.h"
#include "env/errbuf.h"
#include "env/rules_spec.h"
#include "env/twoside.h"

#include <string.h>

#define set_err(err, ...) errbuf_set(err, KALAH_ERRLEN, __VA_ARGS__)

oware_rules oware_rules_default(void)
{
    return (oware_rules){.pits = 6, .seeds = 4, .grand_slam = OWARE_GRAND_SLAM_NOCAPTURE, .max_sows = 300};
}

int oware_rules_check(const oware_rules *r, char *err)
{
    if (r->pits < 2 || r->pits > OWARE_MAX_PITS) {
        set_err(err, "pits=%d is out of range 2..%d", r->pits, OWARE_MAX_PITS);
        return KALAH_EINVAL;
    }
    if (r->seeds < 1 || r->seeds > OWARE_MAX_SEEDS) {
        set_err(err, "seeds=%d is out of range 1..%d", r->seeds, OWARE_MAX_SEEDS);
        return KALAH_EINVAL;
    }
    if ((unsigned)r->grand_slam > OWARE_GRAND_SLAM_CAPTURE) {
        set_err(err, "grand_slam: unknown rule %d", (int)r->grand_slam);
        return KALAH_EINVAL;
    }
    if (r->max_sows < 0 || r->max_sows > 65535) {
        set_err(err, "max_sows=%d is out of range 0..65535", r->max_sows);
        return KALAH_EINVAL;
    }
    return KALAH_OK;
}

static const char *const grand_slam_names[] = {"nocapture", "capture"};
static const rspec_key keys[] = {
    {"pits", 2, OWARE_MAX_PITS, NULL, 0},
    {"seeds", 1, OWARE_MAX_SEEDS, NULL, 0},
    {"grand_slam", 0, OWARE_GRAND_SLAM_CAPTURE, grand_slam_names, 0},
    {"max_sows", 0, 65535, NULL, 0},
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

int oware_rules_parse(const char *spec, oware_rules *out, char *err)
{
    oware_rules d = oware_rules_default();
    int v[NKEYS] = {d.pits, d.seeds, (int)d.grand_slam, d.max_sows};
    if (rspec_parse(spec, "oware", keys, NKEYS, v, err) != RSPEC_OK)
        return KALAH_EINVAL;
    oware_rules r = {.pits = v[0], .seeds = v[1], .grand_slam = (oware_grand_slam)v[2], .max_sows = v[3]};
    if (oware_rules_check(&r, err) != KALAH_OK)
        return KALAH_EINVAL;
    *out = r;
    return KALAH_OK;
}

char *oware_rules_format(const oware_rules *r, char *buf, size_t n)
{
    int v[NKEYS] = {r->pits, r->seeds, (int)r->grand_slam, r->max_sows};
    return rspec_format("oware", keys, NKEYS, v, buf, n);
}

void oware_start(const oware_rules *r, kalah_pos *out)
{
    kalah_rules k = {.pits = r->pits, .seeds = r->seeds};
    kalah_start(&k, out);
}

/* Board index of circuit position c (0..2m-1: South's pits, then North's; the capture cells are not on
 * the circuit). */
static inline int board_index(int m, int c) { return c < m ? c : c + 1; }

unsigned oware_legal(const oware_rules *r, const kalah_pos *p)
{
    if (p->over)
        return 0;
    const int m = r->pits, lo = p->side ? m + 1 : 0;
    const int feed = twoside_row_seeds(p->cell, m, !p->side) == 0;
    unsigned legal = 0;
    for (int k = 0; k < m; k++) {
        int n = p->cell[lo + k];
        if (n && (!feed || n >= m - k)) /* pit k needs m - k seeds to reach the opponent's first pit */
            legal |= 1u << k;
    }
    return legal;
}

/* The end tests in their order (see oware.h); `plies_done` says whether max_sows applies (not for a
 * parsed position, which has no plies behind it). Sets p->over and sweeps where the rule says so. */
static void settle(const oware_rules *r, kalah_pos *p, int plies_done)
{
    const int m = r->pits;
    if (p->cell[m] >= oware_majority(r) || p->cell[2 * m + 1] >= oware_majority(r)) {
        p->over = 1;
        return;
    }
    if ((plies_done && r->max_sows && p->sows >= r->max_sows) || !oware_legal(r, p)) {
        twoside_sweep(p->cell, m); /* each player captures the seeds in its own pits */
        p->over = 1;
    }
}

int oware_play(const oware_rules *r, kalah_pos *p, int k, oware_step *info)
{
    if (p->over)
        return KALAH_EOVER;
    if (k < 0 || k >= r->pits || !(oware_legal(r, p) & (1u << k)))
        return KALAH_EILLEGAL;
    const int m = r->pits, s = p->side, L = 2 * m - 1; /* L: the pits a sowing can reach */
    const int origin_c = s ? m + k : k, opp_lo = s ? 0 : m;
    uint8_t *cell = p->cell;
    const int n = cell[board_index(m, origin_c)];
    cell[board_index(m, origin_c)] = 0;
    const int laps = n / L, rest = n % L;
    for (int j = 1; j <= L; j++) {
        int c = (origin_c + j) % (2 * m);
        cell[board_index(m, c)] = (uint8_t)(cell[board_index(m, c)] + laps + (j <= rest));
    }
    const int last_c = (origin_c + (rest ? rest : L)) % (2 * m);

    /* Walk back from the last pit while it is the opponent's and holds 2 or 3. */
    int take = 0, from = last_c;
    while (from >= opp_lo && from < opp_lo + m) {
        int n_here = cell[board_index(m, from)];
        if (n_here != 2 && n_here != 3)
            break;
        take += n_here;
        from--;
    }
    const int slam = take && take == twoside_row_seeds(cell, m, !s);
    int captured = 0;
    if (take && (!slam || r->grand_slam == OWARE_GRAND_SLAM_CAPTURE)) {
        for (int c = last_c; c > from; c--)
            cell[board_index(m, c)] = 0;
        captured = take;
        cell[s ? 2 * m + 1 : m] = (uint8_t)(cell[s ? 2 * m + 1 : m] + captured);
    }
    p->side = (uint8_t)!s;
    p->sows++;
    settle(r, p, 1);
    if (info) {
        info->captured = (uint8_t)captured;
        info->grand_slam = (uint8_t)slam;
        info->over = p->over;
        info->last = (uint8_t)board_index(m, last_c);
    }
    return KALAH_OK;
}

int oware_pos_parse(const char *s, const oware_rules *r, kalah_pos *out, char *err)
{
    kalah_pos p;
    int pits;
    if (kalah_pos_parse(s, NULL, &p, &pits, err) != KALAH_OK)
        return KALAH_EINVAL;
    if (pits != r->pits) {
        set_err(err, "the position has %d pits per side but the rules say pits=%d", pits, r->pits);
        return KALAH_EINVAL;
    }
    int total = 0;
    for (int i = 0; i < 2 * pits + 2; i++)
        total += p.cell[i];
    if (total != 2 * r->pits * r->seeds) {
        set_err(err, "the counts add up to %d seeds, the rules (pits=%d, seeds=%d) need %d", total, r->pits,
                r->seeds, 2 * r->pits * r->seeds);
        return KALAH_EINVAL;
    }
    settle(r, &p, 0);
    *out = p;
    return KALAH_OK;
}

int oware_move_parse(const oware_rules *r, int side, const char *s)
{
    kalah_rules k = {.pits = r->pits};
    return kalah_move_parse(&k, side, s, 0);
}

void oware_encode(const oware_rules *r, const kalah_pos *p, float *out)
{
    kalah_rules k = {.pits = r->pits, .seeds = r->seeds};
    kalah_encode(&k, p, out);
}
