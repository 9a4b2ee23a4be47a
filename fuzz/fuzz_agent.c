/* fuzz_agent.c — agent specs (agent_create for Kalah, basico_agent_create for básico). Input: one spec.
 * Property: a spec is either an agent or an error with a message. A spec asking for more than 64 MiB of
 * transposition table (ab:tt_mb up to 4096, documented and tested by the unit tests) is skipped, since the
 * fuzzer's own memory limit would report the allocation it asks for. */
#include "fuzz/fuzz_util.h"

#include <ctype.h>

#include "env/basico.h"
#include "env/kalah.h"
#include "eval/agent.h"
#include "eval/basico_agent.h"

static int big_table(const char *s)
{
    for (const char *p = s; (p = strstr(p, "tt_mb")); p++) {
        const char *v = p + 5;
        while (*v && !isdigit((unsigned char)*v) && *v != ',')
            v++;
        if (strtol(v, NULL, 10) > 64 || strlen(v) > 3)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    const char *f[FZ_FIELDS];
    char *buf = fz_fields(data, n, f);
    if (!big_table(f[0])) {
        char err[AGENT_ERRLEN] = "";
        kalah_rules r = kalah_rules_default();
        agent *a = agent_create(f[0], &r, err);
        FZ_CHECK(a || err[0], "no agent and no message for '%s'", f[0]);
        if (a) {
            FZ_CHECK(agent_kind(a) && agent_spec(a), "agent without kind or spec");
            agent_free(a);
        }
        basico_rules b = basico_rules_default();
        err[0] = 0;
        basico_agent *ba = basico_agent_create(f[0], &b, err);
        FZ_CHECK(ba || err[0], "no basico agent and no message for '%s'", f[0]);
        basico_agent_free(ba);
    }
    free(buf);
    return 0;
}
