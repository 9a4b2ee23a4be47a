/* basico_agent.c — Mancala básico agents: spec parsing and the six kinds (contract in basico_agent.h). */
#include "eval/basico_agent.h"
#include "env/errbuf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "eval/agent_impl.h"     /* agent_args and its key=value helpers, SplitMix64 */
#include "eval/basico_search.h"
#include "nn/h5io.h"
#include "selfplay/mcts_mp.h"

#define set_err(err, ...) errbuf_set(err, AGENT_ERRLEN, __VA_ARGS__)

typedef enum { K_RANDOM, K_GREEDY, K_MAXN, K_PARANOID, K_MCTS, K_AZ } kind_id;

struct basico_agent {
    kind_id kind;
    const char *kind_name;
    char *spec;
    basico_rules rules;
    uint64_t seed;      /* from the spec */
    uint64_t game_seed; /* mix of the spec seed and the current game's seed */
    uint64_t rng;       /* random: SplitMix64 state of this game */
    int depth;          /* maxn, paranoid */
    mcts_config cfg;    /* mcts, az */
    int raw;            /* az with sims=0 */
    mcts_mp_eval *ev;   /* mcts, az */
    nn_net *net;        /* az: owned */
    char err[AGENT_ERRLEN];
};

/* In kind_id order. */
static const agent_kind_desc kinds[] = {
    {"random", "seed"},
    {"greedy", "seed"},
    {"maxn", "depth, seed"},
    {"paranoid", "depth, seed"},
    {"mcts", "sims, rollouts, c_puct, solver, seed"},
    {"az", "net, sims, c_puct, fpu, batch, seed"},
};
#define KIND_LIST "random, greedy, maxn, paranoid, mcts, az"

/* ---- the kinds' constructors ---- */

/* sims (min_sims..), c_puct, and the evaluation settings: no noise, no temperature, one leaf at a time. */
static int tree_config(basico_agent *a, agent_args *args, long long default_sims, long long min_sims, char *err)
{
    a->cfg = mcts_config_default();
    long long sims = default_sims;
    double c_puct = a->cfg.c_puct;
    if (agent_arg_long(args, "sims", min_sims, 10000000, &sims, err) ||
        agent_arg_double(args, "c_puct", 1e-6, 1e6, &c_puct, err))
        return -1;
    a->cfg.sims = sims ? (int)sims : 1;
    a->raw = sims == 0;
    a->cfg.c_puct = c_puct;
    a->cfg.dirichlet_eps = 0;
    a->cfg.temp_moves = 0;
    a->cfg.leaves_per_game = 1;
    return 0;
}

static int check_cfg(basico_agent *a, char *err)
{
    char merr[MCTS_ERRLEN];
    if (mcts_config_check(&a->cfg, merr) != MCTS_OK) {
        set_err(err, "agent '%s': %s", a->spec, merr);
        return -1;
    }
    return 0;
}

static int init_mcts(basico_agent *a, agent_args *args, char *err)
{
    long long rollouts = 1, solver;
    if (tree_config(a, args, 800, 1, err))
        return -1;
    solver = a->cfg.solver;
    if (agent_arg_long(args, "rollouts", 1, 100000, &rollouts, err) ||
        agent_arg_long(args, "solver", 0, 1, &solver, err))
        return -1;
    a->cfg.solver = (int)solver;
    if (check_cfg(a, err))
        return -1;
    char merr[MCTS_ERRLEN];
    if (!(a->ev = mcts_mp_eval_rollout_create(&a->rules, (int)rollouts, 1, a->seed, merr))) {
        set_err(err, "agent '%s': %s", a->spec, merr);
        return -1;
    }
    return 0;
}

static int init_az(basico_agent *a, agent_args *args, char *err)
{
    const char *path = agent_arg_str(args, "net");
    if (!path) {
        set_err(err, "agent '%s': az needs net=PATH.h5", a->spec);
        return -1;
    }
    long long batch = 1;
    double fpu;
    if (tree_config(a, args, 200, 0, err))
        return -1;
    fpu = a->cfg.fpu_reduction;
    if (agent_arg_double(args, "fpu", 0, 2, &fpu, err) || agent_arg_long(args, "batch", 1, 64, &batch, err))
        return -1;
    a->cfg.fpu_reduction = fpu;
    a->cfg.leaves_per_game = (int)batch;
    if (check_cfg(a, err))
        return -1;
    char rules[128], nerr[NN_ERRLEN], merr[MCTS_ERRLEN];
    nn_file_info info;
    basico_rules_format(&a->rules, rules, sizeof rules);
    if (nn_load(path, rules, &a->net, &info, nerr) != NN_OK) {
        set_err(err, "agent '%s': net=%s: %s", a->spec, path, nerr);
        return -1;
    }
    if (strcmp(info.encoding, BASICO_ENCODING_NAME)) {
        set_err(err, "agent '%s': net=%s uses input encoding '%s', not '%s'", a->spec, path, info.encoding,
                BASICO_ENCODING_NAME);
        return -1;
    }
    const nn_config *nc = nn_net_config(a->net);
    if (nc->n_value != a->rules.players) {
        set_err(err, "agent '%s': net=%s has n_value %d (value outputs), the game has %d players", a->spec, path,
                nc->n_value, a->rules.players);
        return -1;
    }
    if (nc->input_dim != basico_encode_dim(&a->rules) || nc->n_policy != a->rules.pits) {
        set_err(err, "agent '%s': net=%s has input_dim %d and n_policy %d, the rules need %d and %d", a->spec, path,
                nc->input_dim, nc->n_policy, basico_encode_dim(&a->rules), a->rules.pits);
        return -1;
    }
    if (!(a->ev = mcts_mp_eval_net_create(a->net, &a->rules, a->cfg.leaves_per_game, merr))) {
        set_err(err, "agent '%s': net=%s: %s", a->spec, path, merr);
        return -1;
    }
    return 0;
}

basico_agent *basico_agent_create(const char *spec, const basico_rules *r, char *err)
{
    char rerr[KALAH_ERRLEN];
    if (!spec || !*spec) {
        set_err(err, "empty agent spec (" KIND_LIST ")");
        return NULL;
    }
    if (strlen(spec) >= AGENT_SPEC_MAX) {
        set_err(err, "agent spec longer than %d characters", AGENT_SPEC_MAX - 1);
        return NULL;
    }
    if (basico_rules_check(r, rerr) != BASICO_OK) {
        set_err(err, "agent '%s': bad rules: %s", spec, rerr);
        return NULL;
    }
    char buf[AGENT_SPEC_MAX];
    strcpy(buf, spec);
    agent_args args;
    static const char *const rules_keys[] = {"players", "pits", "seeds", "full_ranking", NULL};
    int kd = agent_spec_split(spec, buf, kinds, (int)(sizeof kinds / sizeof kinds[0]), "for basico (" KIND_LIST ")",
                              rules_keys, &args, err);
    if (kd < 0)
        return NULL;
    basico_agent *a = calloc(1, sizeof *a);
    if (!a || !(a->spec = strdup(spec))) {
        free(a);
        set_err(err, "out of memory");
        return NULL;
    }
    a->kind = (kind_id)kd;
    a->kind_name = kinds[kd].name;
    a->rules = *r;
    long long seed = 0, depth = 4;
    int bad = agent_arg_long(&args, "seed", 0, LLONG_MAX, &seed, err);
    a->seed = (uint64_t)seed;
    if (!bad) {
        switch ((kind_id)kd) {
        case K_MAXN:
        case K_PARANOID:
            bad = agent_arg_long(&args, "depth", 1, 12, &depth, err); /* ~4x time per ply: 12 is minutes a move */
            a->depth = (int)depth;
            break;
        case K_MCTS: bad = init_mcts(a, &args, err); break;
        case K_AZ: bad = init_az(a, &args, err); break;
        default: break;
        }
    }
    for (int i = 0; !bad && i < args.n; i++)
        if (!args.used[i]) { /* a listed key that its constructor ignored: a bug here, not the user's */
            set_err(err, "agent '%s': key '%s' is not used by %s", spec, args.key[i], kinds[kd].name);
            bad = 1;
        }
    if (bad) {
        basico_agent_free(a);
        return NULL;
    }
    basico_pos start;
    basico_start(r, &start);
    basico_agent_new_game(a, &start, 0);
    return a;
}

void basico_agent_free(basico_agent *a)
{
    if (!a)
        return;
    mcts_mp_eval_free(a->ev);
    nn_net_free(a->net);
    free(a->spec);
    free(a);
}

const char *basico_agent_spec(const basico_agent *a) { return a->spec; }
const char *basico_agent_kind(const basico_agent *a) { return a->kind_name; }
const char *basico_agent_error(const basico_agent *a) { return a->err; }

void basico_agent_new_game(basico_agent *a, const basico_pos *start, uint64_t game_seed)
{
    (void)start;
    a->game_seed = agent_mix(a->seed, game_seed);
    a->rng = a->game_seed;
}

void basico_agent_notify(basico_agent *a, const basico_pos *before, int move)
{
    (void)a, (void)before, (void)move;
}

/* A hash of everything that makes a position (cells, mover, who has left and how). */
static uint64_t pos_hash(const basico_rules *r, const basico_pos *p)
{
    uint64_t h = 0x62617369636fULL;
    for (int i = 0; i < basico_cells(r) && i < BASICO_CELLS; i++)
        h = agent_mix(h, p->cell[i]);
    h = agent_mix(h, (uint64_t)p->to_move | (uint64_t)p->active << 8 | (uint64_t)p->n_left << 16);
    for (int i = 0; i < p->n_left && i < BASICO_MAX_PLAYERS; i++)
        h = agent_mix(h, (uint64_t)p->left[i] | (uint64_t)p->resigned[i] << 8);
    return h;
}

static int lowest_best(const float *x, unsigned legal, int pits)
{
    int best = -1;
    for (int k = 0; k < pits && k < BASICO_MAX_PITS; k++)
        if (legal & (1u << k) && (best < 0 || x[k] > x[best]))
            best = k;
    return best;
}

static int choose_tree(basico_agent *a, const basico_pos *p, int *move_out)
{
    char merr[MCTS_ERRLEN];
    if (a->raw) {
        float prior[BASICO_MAX_PITS], value[BASICO_MAX_PLAYERS];
        if (a->ev->evaluate(a->ev, p, 1, prior, value) != MCTS_OK) {
            set_err(a->err, "the net evaluation failed");
            return AGENT_EFAIL;
        }
        *move_out = lowest_best(prior, basico_legal(&a->rules, p), a->rules.pits);
        return AGENT_OK;
    }
    mcts_mp_result res;
    int rc = mcts_mp_search(&a->rules, p, &a->cfg, a->ev, agent_mix(a->game_seed, pos_hash(&a->rules, p)), &res, merr);
    if (rc != MCTS_OK) {
        set_err(a->err, "search failed: %s", merr);
        return rc == MCTS_ENOMEM ? AGENT_ENOMEM : AGENT_EFAIL;
    }
    *move_out = res.move;
    return AGENT_OK;
}

int basico_agent_choose(basico_agent *a, const basico_pos *p, int *move_out)
{
    a->err[0] = 0;
    unsigned legal = basico_legal(&a->rules, p);
    if (p->over || !legal) {
        set_err(a->err, "the game is over");
        return AGENT_EOVER;
    }
    int rc = AGENT_OK;
    switch (a->kind) {
    case K_RANDOM: {
        unsigned n = (unsigned)__builtin_popcount(legal);
        /* Multiply-shift (Lemire 2019), as agent_below. */
        unsigned j = (unsigned)(((agent_splitmix(&a->rng) >> 32) * (uint64_t)n) >> 32);
        for (int k = 0;; k++)
            if (legal & (1u << k) && j-- == 0) {
                *move_out = k;
                break;
            }
        break;
    }
    case K_GREEDY: *move_out = basico_greedy_move(&a->rules, p); break;
    case K_MAXN:
    case K_PARANOID: {
        bs_result res;
        if (bs_search(&a->rules, p, a->kind == K_MAXN ? BS_MAXN : BS_PARANOID, a->depth, &res) != BASICO_OK) {
            set_err(a->err, "%s search failed", a->kind_name);
            return AGENT_EFAIL;
        }
        *move_out = res.move;
        break;
    }
    case K_MCTS:
    case K_AZ: rc = choose_tree(a, p, move_out); break;
    }
    if (rc == AGENT_OK && (*move_out < 0 || *move_out >= a->rules.pits || !(legal & (1u << *move_out)))) {
        set_err(a->err, "agent '%s' chose an illegal move (%d)", a->spec, *move_out);
        return AGENT_EFAIL;
    }
    return rc;
}
