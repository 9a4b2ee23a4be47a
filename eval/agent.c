/* agent.c — spec parsing and dispatch of Kalah's own agents (ab, solver: agent_search.c). Specs in agent.h. */
#include "eval/agent_impl.h"
#include "env/errbuf.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/search_ranges.h"

#define set_err(err, ...) errbuf_set(err, AGENT_ERRLEN, __VA_ARGS__)

/* ---- small shared helpers ---- */

uint64_t agent_splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t agent_mix(uint64_t a, uint64_t b)
{
    uint64_t s = a ^ (b * 0xd1b54a32d192ed03ULL);
    return agent_splitmix(&s);
}

unsigned agent_below(agent *a, unsigned n)
{
    /* Multiply-shift (Lemire 2019); the bias of skipping rejection is below 2^-32 for n <= 7 pits. */
    return (unsigned)(((agent_splitmix(&a->rng) >> 32) * (uint64_t)n) >> 32);
}

int agent_same_pos(const kalah_rules *r, const kalah_pos *x, const kalah_pos *y)
{
    return x->side == y->side && x->over == y->over && x->sows == y->sows &&
           !memcmp(x->cell, y->cell, (size_t)(2 * r->pits + 2));
}

const char *agent_arg_str(agent_args *a, const char *key)
{
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->key[i], key)) {
            a->used[i] = 1;
            return a->val[i];
        }
    return NULL;
}

int agent_arg_long(agent_args *a, const char *key, long long lo, long long hi, long long *out, char *err)
{
    const char *v = agent_arg_str(a, key);
    if (!v)
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        set_err(err, "agent '%s': %s=%s is not a whole number in %lld..%lld", a->spec, key, v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

int agent_arg_double(agent_args *a, const char *key, double lo, double hi, double *out, char *err)
{
    const char *v = agent_arg_str(a, key);
    if (!v)
        return 0;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo && x <= hi)) {
        set_err(err, "agent '%s': %s=%s is not a number in %g..%g", a->spec, key, v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* ---- dispatch ---- */

static const agent_kind_desc kinds[] = {
    {"ab", "depth, nodes, ms, tt_mb, seed"},
    {"solver", "tt_mb, endgame, seed"},
};
static int (*const kind_init[])(agent *a, agent_args *args, char *err) = {
    agent_init_ab, agent_init_solver};
_Static_assert(sizeof kinds / sizeof kinds[0] == sizeof kind_init / sizeof kind_init[0], "one init per kind");

static int key_allowed(const char *keys, const char *key)
{
    size_t n = strlen(key);
    for (const char *s = keys; *s;) {
        size_t len = strcspn(s, ",");
        if (len == n && !strncmp(s, key, n))
            return 1;
        s += len;
        while (*s == ',' || *s == ' ')
            s++;
    }
    return 0;
}

int agent_spec_split(const char *spec, char *buf, const agent_kind_desc *kinds_, int n_kinds, const char *unknown_text,
                     const char *const *rules_keys, agent_args *args, char *err)
{
    memset(args, 0, sizeof *args);
    args->spec = spec;
    char *colon = buf + strcspn(buf, ":,");
    const char sep = *colon;
    if (*colon)
        *colon = 0;
    else
        colon = NULL;
    int kd = -1;
    for (int i = 0; i < n_kinds; i++)
        if (!strcmp(buf, kinds_[i].name))
            kd = i;
    if (kd < 0) {
        set_err(err, "agent '%s': unknown kind '%s' %s", spec, buf, unknown_text);
        return -1;
    }
    args->kind = kinds_[kd].name;
    if (!colon)
        return kd;
    if (!colon[1]) {
        set_err(err, "agent '%s': nothing after '%c' (expected key=value,...)", spec, sep);
        return -1;
    }
    /* As rules specs: strtok_r would skip an empty pair silently, hiding a typo such as a lost key. */
    const char *kvs = colon + 1;
    if (kvs[0] == ',' || kvs[strlen(kvs) - 1] == ',' || strstr(kvs, ",,")) {
        set_err(err, "agent '%s': empty key=value pair (a leading, trailing or doubled comma)", spec);
        return -1;
    }
    char *save = NULL;
    for (char *kv = strtok_r(colon + 1, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq || eq == kv || !eq[1]) {
            set_err(err, "agent '%s': '%s' is not key=value", spec, kv);
            return -1;
        }
        *eq = 0;
        for (int i = 0; rules_keys[i]; i++)
            if (!strcmp(kv, rules_keys[i])) {
                set_err(err, "agent '%s': '%s' is a rules key, not an agent key (give the rules with --rules)", spec,
                        kv);
                return -1;
            }
        if (!key_allowed(kinds_[kd].keys, kv)) {
            set_err(err, "agent '%s': unknown key '%s' for %s (keys: %s)", spec, kv, kinds_[kd].name, kinds_[kd].keys);
            return -1;
        }
        for (int i = 0; i < args->n; i++)
            if (!strcmp(args->key[i], kv)) {
                set_err(err, "agent '%s': key '%s' given twice", spec, kv);
                return -1;
            }
        if (args->n == AGENT_MAX_KEYS) {
            set_err(err, "agent '%s': too many keys", spec);
            return -1;
        }
        args->key[args->n] = kv;
        args->val[args->n++] = eq + 1;
    }
    return kd;
}

/* A new agent of kind `kind` named spec (copied) under rules r; NULL with "out of memory" in err. */
static agent *new_agent(const char *spec, const char *kind, const kalah_rules *r, char *err)
{
    agent *a = calloc(1, sizeof *a);
    if (!a || !(a->spec = strdup(spec))) {
        free(a);
        set_err(err, "out of memory");
        return NULL;
    }
    a->kind = kind;
    a->rules = *r;
    return a;
}

/* The end of every constructor: a starts its first game from the rules' start position. */
static agent *start_agent(agent *a)
{
    kalah_pos start;
    kalah_start(&a->rules, &start);
    agent_new_game(a, &start, 0);
    return a;
}

agent *agent_create(const char *spec, const kalah_rules *r, char *err)
{
    char kerr[KALAH_ERRLEN];
    if (!spec || !*spec) {
        set_err(err, "empty agent spec (ab:..., solver)");
        return NULL;
    }
    if (strlen(spec) >= AGENT_SPEC_MAX) {
        set_err(err, "agent spec longer than %d characters", AGENT_SPEC_MAX - 1);
        return NULL;
    }
    if (kalah_rules_check(r, kerr) != KALAH_OK) {
        set_err(err, "agent '%s': bad rules: %s", spec, kerr);
        return NULL;
    }
    char buf[AGENT_SPEC_MAX];
    strcpy(buf, spec);
    agent_args args;
    static const char *const rules_keys[] = {"pits", "seeds", "capture", "end", "max_sows", NULL};
    int kd = agent_spec_split(spec, buf, kinds, (int)(sizeof kinds / sizeof kinds[0]), "(ab, solver; every game's random, greedy, mcts, az, maxn, paranoid, solve, br)",
                              rules_keys, &args, err);
    if (kd < 0)
        return NULL;
    agent *a = new_agent(spec, kinds[kd].name, r, err);
    if (!a)
        return NULL;
    long long seed = 0;
    if (agent_arg_long(&args, "seed", 0, LLONG_MAX, &seed, err)) {
        agent_free(a);
        return NULL;
    }
    a->seed = (uint64_t)seed;
    if (kind_init[kd](a, &args, err)) {
        agent_free(a);
        return NULL;
    }
    for (int i = 0; i < args.n; i++)
        if (!args.used[i]) { /* a key the kind lists but its constructor ignored: a bug here, not the user's */
            set_err(err, "agent '%s': key '%s' is not used by %s", spec, args.key[i], kinds[kd].name);
            agent_free(a);
            return NULL;
        }
    return start_agent(a);
}

/* Whether x lies in [lo, hi] (NaN does not). */
static int within(double x, double lo, double hi) { return x >= lo && x <= hi; }

int agent_search_config(const agent_search_info *s, const char *name, mcts_config *cfg, int *raw, char *err)
{
    const char *bad = !within(s->sims, 0, SEARCH_SIMS_MAX)                                   ? "sims"
                      : !within(s->c_puct, SEARCH_C_PUCT_MIN, SEARCH_C_PUCT_MAX)            ? "c_puct"
                      : !within(s->fpu_reduction, 0, SEARCH_FPU_MAX)                        ? "fpu"
                      : !within(s->batch, 1, SEARCH_BATCH_MAX)                              ? "batch"
                      : !within(s->margin_utility, 0, SEARCH_MARGIN_MAX)                    ? "margin"
                      : !within(s->solver, 0, 1)                                            ? "solver"
                      : !within(s->gumbel_k, 1, SEARCH_GUMBEL_K_MAX)                        ? "gumbel_k"
                      : !within(s->gumbel_c_visit, 0, SEARCH_GUMBEL_C_VISIT_MAX)            ? "gumbel_c_visit"
                      : !within(s->gumbel_c_scale, SEARCH_GUMBEL_C_SCALE_MIN, SEARCH_GUMBEL_C_SCALE_MAX) ? "gumbel_c_scale"
                      : !within(s->tb, 0, 127)                                              ? "tb"
                                                                                             : NULL;
    if (bad) {
        set_err(err, "agent '%s': %s is out of its range (nn/search_ranges.h)", name, bad);
        return -1;
    }
    *cfg = mcts_config_default();
    *raw = s->sims == 0;
    cfg->sims = s->sims ? s->sims : 1;
    cfg->c_puct = s->c_puct;
    cfg->fpu_reduction = s->fpu_reduction;
    cfg->leaves_per_game = s->batch;
    cfg->margin_utility = s->margin_utility;
    cfg->solver = s->solver;
    cfg->root = s->gumbel ? MCTS_ROOT_GUMBEL : MCTS_ROOT_PUCT;
    cfg->gumbel_k = s->gumbel_k;
    cfg->gumbel_c_visit = s->gumbel_c_visit;
    cfg->gumbel_c_scale = s->gumbel_c_scale;
    cfg->gumbel_scale = 0; /* an agent's Gumbel root draws no noise (agent_root_args) */
    cfg->dirichlet_eps = 0;
    cfg->temp_moves = 0;
    char merr[MCTS_ERRLEN];
    if (mcts_config_check(cfg, merr) != MCTS_OK) {
        set_err(err, "agent '%s': %s", name, merr);
        return -1;
    }
    return 0;
}

void agent_free(agent *a)
{
    if (!a)
        return;
    if (a->ops && a->ops->destroy)
        a->ops->destroy(a);
    free(a->spec);
    free(a->desc);
    free(a);
}

const char *agent_spec(const agent *a) { return a->spec; }
const char *agent_describe(const agent *a) { return a->desc ? a->desc : a->spec; }

/* az's keys of the settings a net's search record holds, in AGENT_FROM_* bit order (the gumbel bit has three). */
static const struct {
    const char *key;
    unsigned bit;
} record_keys[] = {{"sims", AGENT_FROM_SIMS},          {"c_puct", AGENT_FROM_C_PUCT},
                   {"fpu", AGENT_FROM_FPU},            {"batch", AGENT_FROM_BATCH},
                   {"margin", AGENT_FROM_MARGIN},      {"solver", AGENT_FROM_SOLVER},
                   {"root", AGENT_FROM_ROOT},          {"gumbel_k", AGENT_FROM_GUMBEL},
                   {"gumbel_c_visit", AGENT_FROM_GUMBEL}, {"gumbel_c_scale", AGENT_FROM_GUMBEL}};
#define N_RECORD_KEYS (int)(sizeof record_keys / sizeof record_keys[0])

int agent_root_args(agent_args *args, mcts_config *cfg, char *err)
{
    const char *root = agent_arg_str(args, "root");
    if (root && strcmp(root, "puct") && strcmp(root, "gumbel")) {
        set_err(err, "agent '%s': root must be puct or gumbel, got '%s'", args->spec, root);
        return -1;
    }
    if (root)
        cfg->root = !strcmp(root, "gumbel") ? MCTS_ROOT_GUMBEL : MCTS_ROOT_PUCT;
    cfg->gumbel_scale = 0;
    long long k = cfg->gumbel_k;
    if (agent_arg_long(args, "gumbel_k", 1, SEARCH_GUMBEL_K_MAX, &k, err) ||
        agent_arg_double(args, "gumbel_c_visit", 0, SEARCH_GUMBEL_C_VISIT_MAX, &cfg->gumbel_c_visit, err) ||
        agent_arg_double(args, "gumbel_c_scale", SEARCH_GUMBEL_C_SCALE_MIN, SEARCH_GUMBEL_C_SCALE_MAX,
                         &cfg->gumbel_c_scale, err))
        return -1;
    cfg->gumbel_k = (int)k;
    return 0;
}

unsigned agent_from_net(const agent_args *args, unsigned keys, int gumbel)
{
    unsigned from = keys;
    if (!gumbel)
        from &= ~(unsigned)AGENT_FROM_GUMBEL;
    for (int i = 0; i < N_RECORD_KEYS; i++)
        for (int j = 0; j < args->n; j++)
            if (!strcmp(args->key[j], record_keys[i].key))
                from &= ~record_keys[i].bit;
    return from;
}

char *agent_az_describe(const char *path, const agent_search_info *si, unsigned keys, uint64_t seed)
{
    char buf[AGENT_SPEC_MAX + 512];
    size_t n = sizeof buf, w = 0;
#define ADD(...) (w += (size_t)snprintf(buf + w, w < n ? n - w : 0, __VA_ARGS__), w = w < n ? w : n - 1)
    ADD("az:net=%s,sims=%d,c_puct=%g,fpu=%g,batch=%d", path, si->sims, si->c_puct, si->fpu_reduction, si->batch);
    if (keys & AGENT_FROM_MARGIN)
        ADD(",margin=%g,solver=%d", si->margin_utility, si->solver);
    if (keys & AGENT_FROM_ROOT)
        ADD(",root=%s", si->gumbel ? "gumbel" : "puct");
    if (si->gumbel)
        ADD(",gumbel_k=%d,gumbel_c_visit=%g,gumbel_c_scale=%g", si->gumbel_k, si->gumbel_c_visit, si->gumbel_c_scale);
    if (si->tb > 0)
        ADD(",tb=%d,tbroot=%d", si->tb, si->tbroot);
    if (seed)
        ADD(",seed=%llu", (unsigned long long)seed);
    if (!si->net_record)
        ADD(" (the net records no search settings: built-in defaults)");
    else if (!si->from_net)
        ADD(" (every key given: the net's search record unused)");
    else {
        ADD(" (from the net's search record:");
        const char *sep = " ";
        for (int i = 0; i < N_RECORD_KEYS; i++)
            /* the three gumbel keys share one bit: named once, as gumbel_* */
            if (si->from_net & record_keys[i].bit &&
                (record_keys[i].bit != AGENT_FROM_GUMBEL || !strcmp(record_keys[i].key, "gumbel_k"))) {
                ADD("%s%s", sep, record_keys[i].bit == AGENT_FROM_GUMBEL ? "gumbel_*" : record_keys[i].key);
                sep = ", ";
            }
        ADD(")");
    }
#undef ADD
    return strdup(buf);
}
const char *agent_kind(const agent *a) { return a->kind; }
const char *agent_error(const agent *a) { return a->err; }
void agent_set_detail(agent *a, int detail) { a->detail = detail != 0; }

void agent_new_game(agent *a, const kalah_pos *start, uint64_t game_seed)
{
    a->game_seed = agent_mix(a->seed, game_seed);
    a->rng = a->game_seed;
    if (a->ops->new_game)
        a->ops->new_game(a, start);
}

void agent_notify(agent *a, const kalah_pos *before, int move)
{
    if (a->ops->notify)
        a->ops->notify(a, before, move);
}

void agent_last_stats(const agent *a, game_agent_stats *out) { *out = a->stats; }

void agent_set_time(agent *a, int64_t ms) { a->time_ms = ms > 0 ? ms : 0; }

void agent_set_abort(agent *a, const int *flag) { a->abort = flag; }

int agent_choose(agent *a, const kalah_pos *p, int *move_out)
{
    a->err[0] = 0;
    memset(&a->stats, 0, sizeof a->stats);
    if (p->over || !kalah_legal(&a->rules, p)) {
        set_err(a->err, "the game is over");
        return AGENT_EOVER;
    }
    int rc = a->ops->choose(a, p, move_out);
    /* A search the flag cut short returns what it had (ab: its last completed depth); that is not the
     * agent's move. */
    if (agent_aborted(a) && rc != AGENT_ENOMEM) {
        set_err(a->err, "stopped");
        rc = AGENT_ESTOPPED;
    }
    if (rc == AGENT_OK && (*move_out < 0 || *move_out >= a->rules.pits ||
                           !(kalah_legal(&a->rules, p) & (1u << *move_out)))) {
        set_err(a->err, "agent '%s' chose an illegal move (%d)", a->spec, *move_out);
        return AGENT_EFAIL;
    }
    if (rc == AGENT_OK) {
        a->stats.valid = 1;
    } else {
        memset(&a->stats, 0, sizeof a->stats);
    }
    return rc;
}

/* One value of the spec at *s (unquoted up to ',' or the end; "..." with \" \\; '...' literal) into a new
 * string; *s moves past it. NULL on a syntax error (message in err) or out of memory. */
char *agent_spec_value(const char *spec, const char **s, const char *key, char *err)
{
    const char *p = *s;
    size_t n = strlen(p);
    char *out = malloc(n + 1), *w = out;
    if (!out) {
        set_err(err, "out of memory");
        return NULL;
    }
    if (*p == '"' || *p == '\'') {
        char q = *p++;
        for (; *p && *p != q; p++) {
            if (q == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
                p++;
            *w++ = *p;
        }
        if (*p != q) {
            set_err(err, "agent '%s': the value of %s opens a %c quote that is not closed", spec, key, q);
            free(out);
            return NULL;
        }
        p++;
        if (*p && *p != ',') {
            set_err(err, "agent '%s': the quoted value of %s is followed by '%c', not ',' or the end", spec, key, *p);
            free(out);
            return NULL;
        }
    } else {
        for (; *p && *p != ','; p++) {
            if (*p == '"' || *p == '\'') {
                set_err(err, "agent '%s': a quote inside the value of %s: quote the whole value", spec, key);
                free(out);
                return NULL;
            }
            *w++ = *p;
        }
    }
    *w = 0;
    *s = p;
    return out;
}

int agent_spec_next(const char *spec, const char **s, char *key, size_t n, const char *keys_text, char **value,
                    char *err)
{
    const char *p = *s;
    if (!*p)
        return 0;
    const char *eq = strchr(p, '=');
    size_t kl = eq ? (size_t)(eq - p) : 0;
    if (!eq || kl == 0 || kl >= n || memchr(p, ',', kl)) {
        set_err(err, "agent '%s': expected key=value at '%.*s' (keys: %s)", spec, (int)strcspn(p, ","), p, keys_text);
        return -1;
    }
    memcpy(key, p, kl);
    key[kl] = 0;
    p = eq + 1;
    if (!(*value = agent_spec_value(spec, &p, key, err)))
        return -1;
    *s = *p == ',' ? p + 1 : p;
    return 1;
}
