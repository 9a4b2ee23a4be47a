/* srv_player.c — agent seats of the served games (eval/game_agent.h for every game). */
#include "serve/srv_player.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/errbuf.h"
#include "eval/agent.h"
#include "eval/game_agent.h"

#define set_err(err, ...) errbuf_set(err, SRV_ERRLEN, __VA_ARGS__)

/* Every game plays through eval/game_agent.h, whose agents report what their searches saw
 * (game_agent_last_stats). */
struct srv_player {
    int pits;
    game_agent *b;
};

static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;

/* Value of key=... in the spec's key list (after the kind), or NULL; *len gets its length. */
static const char *spec_value(const char *spec, const char *key, size_t *len)
{
    size_t kl = strlen(key);
    for (const char *s = strpbrk(spec, ":,"); s; s = strpbrk(s + 1, ":,"))
        if (!strncmp(s + 1, key, kl) && s[1 + kl] == '=') {
            const char *v = s + 2 + kl;
            *len = strcspn(v, ",");
            return v;
        }
    return NULL;
}

/* The whole number of key in spec, -1 when absent, -2 when not a plain number. */
static long long spec_number(const char *spec, const char *key)
{
    size_t len;
    const char *v = spec_value(spec, key, &len);
    if (!v)
        return -1;
    long long x = 0;
    if (!len || len > 15)
        return -2;
    for (size_t i = 0; i < len; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -2;
        x = x * 10 + (v[i] - '0');
    }
    return x;
}

int srv_spec_bound(const char *spec, int max_ms, int max_sims, char *out, size_t n, char *err)
{
    size_t kind_len = strcspn(spec, ":,");
    if (strlen(spec) + 32 > n) {
        set_err(err, "agent spec '%.40s...' is too long", spec);
        return SRV_EINVAL;
    }
    snprintf(out, n, "%s", spec);
    if (kind_len == 2 && !strncmp(spec, "ab", 2)) {
        long long ms = spec_number(spec, "ms");
        if (ms > max_ms) {
            set_err(err, "agent '%s': ms=%lld is above the server's bound of %d ms per move", spec, ms, max_ms);
            return SRV_EINVAL;
        }
        if (ms == -1)
            snprintf(out, n, "%s%sms=%d", spec, spec[kind_len] == ':' ? "," : ":", max_ms);
    } else if ((kind_len == 4 && !strncmp(spec, "mcts", 4)) || (kind_len == 2 && !strncmp(spec, "az", 2))) {
        long long sims = spec_number(spec, "sims");
        if (sims > max_sims) {
            set_err(err, "agent '%s': sims=%lld is above the server's bound of %d simulations per move", spec,
                    sims, max_sims);
            return SRV_EINVAL;
        }
    } else if ((kind_len == 4 && !strncmp(spec, "maxn", 4)) || (kind_len == 8 && !strncmp(spec, "paranoid", 8))) {
        if (spec_number(spec, "depth") > 8) {
            set_err(err, "agent '%s': depth above 8 plies is above the server's bound", spec);
            return SRV_EINVAL;
        }
    } else if (kind_len == 5 && !strncmp(spec, "solve", 5)) {
        long long nodes = spec_number(spec, "nodes");
        if (nodes > SRV_SOLVE_AGENT_NODES) {
            set_err(err, "agent '%s': nodes=%lld is above the server's bound of %d", spec, nodes, SRV_SOLVE_AGENT_NODES);
            return SRV_EINVAL;
        }
        if (nodes == -1)
            snprintf(out, n, "%s%snodes=%d", spec, spec[kind_len] == ':' ? "," : ":", SRV_SOLVE_AGENT_NODES);
    } else if (kind_len == 6 && !strncmp(spec, "solver", 6)) {
        set_err(err, "agent '%s': the Kalah solver agent has no bound on its time or memory (the opening of "
                "Kalah(6,4) takes minutes); the page's Analyse shows exact values within --solve-seeds", spec);
        return SRV_EINVAL;
    }
    return SRV_OK;
}

srv_player *srv_player_create(const char *spec, const srv_rules *r, char *err)
{
    srv_player *pl = calloc(1, sizeof *pl);
    if (!pl) {
        set_err(err, "out of memory");
        return NULL;
    }
    pl->pits = r->pits;
    char e[AGENT_ERRLEN];
    pthread_mutex_lock(&create_lock);
    pl->b = game_agent_create(spec, r->g, e);
    pthread_mutex_unlock(&create_lock);
    if (!pl->b) {
        set_err(err, "%s", e);
        free(pl);
        return NULL;
    }
    return pl;
}

void srv_player_free(srv_player *pl)
{
    if (!pl)
        return;
    game_agent_free(pl->b);
    free(pl);
}

void srv_player_new_game(srv_player *pl, const srv_pos *start, uint64_t seed)
{
    game_agent_new_game(pl->b, start, seed);
}

void srv_player_notify(srv_player *pl, const srv_pos *before, int move) { game_agent_notify(pl->b, before, move); }

int srv_player_choose(srv_player *pl, const srv_pos *p, int *move, char *err)
{
    int rc = game_agent_choose(pl->b, p, move);
    if (rc == AGENT_OK)
        return SRV_OK;
    if (rc == AGENT_EOVER) {
        set_err(err, "the game is over");
        return SRV_EOVER;
    }
    set_err(err, "%s", game_agent_error(pl->b));
    return SRV_EFAIL;
}

static cJSON *float_array(const float *x, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(x[i]));
    return a;
}

cJSON *srv_player_view(const srv_player *pl)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    game_agent_stats st;
    int pits = pl->pits;
    game_agent_last_stats(pl->b, &st);
    cJSON_AddStringToObject(o, "kind", game_agent_kind(pl->b));
    cJSON_AddStringToObject(o, "spec", game_agent_spec(pl->b));
    int ok = st.valid;
    if (ok && st.have_prior)
        cJSON_AddItemToObject(o, "prior", float_array(st.prior, pits));
    else
        cJSON_AddNullToObject(o, "prior");
    if (ok && st.have_visits) {
        cJSON *v = cJSON_AddArrayToObject(o, "visits");
        for (int i = 0; i < pits; i++)
            cJSON_AddItemToArray(v, cJSON_CreateNumber(st.visits[i]));
        cJSON_AddItemToObject(o, "q", float_array(st.q, pits));
    } else {
        cJSON_AddNullToObject(o, "visits");
        cJSON_AddNullToObject(o, "q");
    }
    if (ok && st.have_value) {
        cJSON_AddNumberToObject(o, "value", st.value);
        cJSON_AddStringToObject(o, "value_kind", st.have_visits || st.have_prior ? "expected result" : "seed margin");
    } else {
        cJSON_AddNullToObject(o, "value");
        cJSON_AddNullToObject(o, "value_kind");
    }
    cJSON_AddNumberToObject(o, "depth", ok ? st.depth : 0);
    cJSON_AddNumberToObject(o, "nodes", ok ? (double)st.nodes : 0);
    return o;
}
