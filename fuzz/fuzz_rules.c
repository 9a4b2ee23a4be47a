/* fuzz_rules.c — rules specs (kalah_rules_parse, basico_rules_parse). Input: one spec. Properties: a spec
 * that parses passes its own check, and its canonical form parses back to the same rules. */
#include "fuzz/fuzz_util.h"

#include "env/basico.h"
#include "env/kalah.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    const char *f[FZ_FIELDS];
    char *buf = fz_fields(data, n, f);
    char err[KALAH_ERRLEN], canon[128], again[128];
    kalah_rules r, r2;
    if (kalah_rules_parse(f[0], &r, err) == KALAH_OK) {
        FZ_CHECK(kalah_rules_check(&r, err) == KALAH_OK, "'%s' parsed but fails its check: %s", f[0], err);
        kalah_rules_format(&r, canon, sizeof canon);
        FZ_CHECK(kalah_rules_parse(canon, &r2, err) == KALAH_OK, "canonical '%s' does not parse: %s", canon, err);
        kalah_rules_format(&r2, again, sizeof again);
        FZ_CHECK(!strcmp(canon, again), "'%s' -> '%s'", canon, again);
    }
    basico_rules b, b2;
    if (basico_rules_parse(f[0], &b, err) == BASICO_OK) {
        FZ_CHECK(basico_rules_check(&b, err) == BASICO_OK, "'%s' parsed but fails its check: %s", f[0], err);
        basico_rules_format(&b, canon, sizeof canon);
        FZ_CHECK(basico_rules_parse(canon, &b2, err) == BASICO_OK, "canonical '%s' does not parse: %s", canon, err);
        basico_rules_format(&b2, again, sizeof again);
        FZ_CHECK(!strcmp(canon, again), "'%s' -> '%s'", canon, again);
    }
    free(buf);
    return 0;
}
