/* fuzz_kalah_pos.c — Kalah position strings and moves (kalah_pos_parse, kalah_move_parse). Input lines:
 * rules spec (the default when it does not parse), position, move. Properties: a parsed position prints and
 * parses back to itself; a parsed move is a pit of the board; every legal sowing keeps the seed total. */
#include "fuzz/fuzz_util.h"

#include "env/kalah.h"

static void moves(const kalah_rules *r, const kalah_pos *p, const char *mv)
{
    for (int allow = 0; allow < 2; allow++)
        for (int side = 0; side < 2; side++) {
            int k = kalah_move_parse(r, side, mv, allow);
            FZ_CHECK(k == KALAH_EINVAL || k == KALAH_EILLEGAL || (k >= 0 && k < r->pits), "move '%s' -> %d", mv, k);
            if (k >= 0 && side == p->side) {
                kalah_pos q = *p;
                int rc = kalah_play(r, &q, k, NULL);
                FZ_CHECK(rc == KALAH_OK || rc == KALAH_EILLEGAL || rc == KALAH_EOVER, "play -> %d", rc);
                FZ_CHECK(kalah_total(r, &q) == kalah_total(r, p), "sowing changed the seed total");
            }
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    const char *f[FZ_FIELDS];
    char *buf = fz_fields(data, n, f);
    char err[KALAH_ERRLEN], text[128];
    kalah_rules r;
    if (kalah_rules_parse(f[0], &r, err) != KALAH_OK)
        r = kalah_rules_default();
    kalah_pos p, q;
    int pits;
    if (kalah_pos_parse(f[1], &r, &p, &pits, err) == KALAH_OK) {
        FZ_CHECK(pits == r.pits, "pits %d for rules with %d", pits, r.pits);
        kalah_pos_format(&r, &p, text, sizeof text);
        FZ_CHECK(kalah_pos_parse(text, &r, &q, &pits, err) == KALAH_OK, "'%s' does not parse back: %s", text, err);
        FZ_CHECK(!memcmp(p.cell, q.cell, sizeof p.cell) && p.side == q.side && p.over == q.over, "'%s' changed",
                 text);
        moves(&r, &p, f[2]);
        unsigned legal = kalah_legal(&r, &p);
        for (int k = 0; k < r.pits; k++) {
            q = p;
            int rc = kalah_play(&r, &q, k, NULL);
            FZ_CHECK((rc == KALAH_OK) == ((legal >> k) & 1), "pit %d: play %d, legal mask %x", k, rc, legal);
            FZ_CHECK(kalah_total(&r, &q) == kalah_total(&r, &p), "sowing pit %d changed the seed total", k);
        }
    }
    /* Without rules: any board size the string implies. */
    if (kalah_pos_parse(f[1], NULL, &p, &pits, err) == KALAH_OK)
        FZ_CHECK(pits >= 1 && pits <= KALAH_MAX_PITS, "pits %d", pits);
    free(buf);
    return 0;
}
