/* fuzz_basico_pos.c — Mancala básico position strings (basico_pos_parse) and moves (basico_play by pit, the
 * form moves take: básico has no move text of its own). Input lines: rules spec (the default when it does not
 * parse), position, then bytes each naming a pit to play in turn. Properties: a parsed position prints and
 * parses back to itself; basico_play accepts exactly the pits of basico_legal; stones never appear from
 * nowhere (the total only falls, as players leave with theirs). */
#include "fuzz/fuzz_util.h"

#include "env/basico.h"

static int total(const basico_rules *r, const basico_pos *p)
{
    int t = 0;
    for (int i = 0; i < basico_cells(r); i++)
        t += p->cell[i];
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    const char *f[FZ_FIELDS];
    char *buf = fz_fields(data, n, f);
    char err[KALAH_ERRLEN], text[256];
    basico_rules r;
    if (basico_rules_parse(f[0], &r, err) != BASICO_OK)
        r = basico_rules_default();
    basico_pos p, q;
    if (basico_pos_parse(f[1], &r, &p, err) == BASICO_OK) {
        basico_pos_format(&r, &p, text, sizeof text);
        FZ_CHECK(basico_pos_parse(text, &r, &q, err) == BASICO_OK, "'%s' does not parse back: %s", text, err);
        char again[256];
        basico_pos_format(&r, &q, again, sizeof again);
        FZ_CHECK(!strcmp(text, again), "'%s' -> '%s'", text, again);
        for (const char *m = f[2]; *m && !p.over; m++) {
            int k = (unsigned char)*m % (BASICO_MAX_PITS + 1);
            unsigned legal = basico_legal(&r, &p);
            int before = total(&r, &p);
            q = p;
            int rc = basico_play(&r, &q, k, NULL);
            FZ_CHECK((rc == BASICO_OK) == (k < r.pits && ((legal >> k) & 1)), "pit %d: play %d, legal %x", k, rc,
                     legal);
            if (rc == BASICO_OK) {
                FZ_CHECK(total(&r, &q) <= before, "stones appeared: %d -> %d", before, total(&r, &q));
                p = q;
            } else
                FZ_CHECK(!memcmp(&q, &p, sizeof p), "a refused move changed the position");
        }
    }
    free(buf);
    return 0;
}
