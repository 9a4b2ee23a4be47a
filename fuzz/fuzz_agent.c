/* fuzz_agent.c — agent specs (game_agent_create for Kalah, with its own agent set, and for básico). Input: one spec.
 * Property: a spec is either an agent or an error with a message. A spec asking for an ab table over
 * 64 MiB is skipped (fz_big_table). */
#include "fuzz/fuzz_util.h"

#include "env/game.h"
#include "eval/game_agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    const char *f[FZ_FIELDS];
    char *buf = fz_fields(data, n, f);
    if (!fz_big_table(data, n)) {
        char err[AGENT_ERRLEN] = "";
        game *k = game_create("kalah", NULL);
        FZ_CHECK(k, "no kalah game");
        game_agent *a = game_agent_create(f[0], k, err);
        FZ_CHECK(a || err[0], "no agent and no message for '%s'", f[0]);
        if (a) {
            FZ_CHECK(game_agent_kind(a) && game_agent_spec(a), "agent without kind or spec");
            game_agent_free(a);
        }
        game_free(k);
        game *b = game_create("basico", NULL);
        FZ_CHECK(b, "no basico game");
        err[0] = 0;
        game_agent *ba = game_agent_create(f[0], b, err);
        FZ_CHECK(ba || err[0], "no basico agent and no message for '%s'", f[0]);
        game_agent_free(ba);
        game_free(b);
    }
    free(buf);
    return 0;
}
