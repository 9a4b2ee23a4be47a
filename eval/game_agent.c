/* game_agent.c — the agents of every game: spec parsing and the eight kinds (contract in game_agent.h). */
#include "eval/game_agent.h"
#include "env/errbuf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/agent_impl.h"     /* agent_args and its key=value helpers, SplitMix64 */
#include "eval/br_agent.h"
#include "eval/engine_agent.h"
#include "eval/game_agent_impl.h"
#include "eval/game_search.h"
#include "nn/h5io.h"
#include "nn/search_ranges.h"
#include "selfplay/mcts_mp.h"

#define set_err(err, ...) errbuf_set(err, AGENT_ERRLEN, __VA_ARGS__)

typedef enum { K_RANDOM, K_GREEDY, K_MAXN, K_PARANOID, K_AB, K_SOLVE, K_MCTS, K_AZ, K_SPECIAL, K_ENGINE, K_BR } kind_id;

struct game_agent {
    kind_id kind;
    const char *kind_name;
    char *spec;
    const game *g;      /* borrowed */
    uint64_t seed;      /* from the spec */
    uint64_t game_seed; /* mix of the spec seed and the current game's seed */
    uint64_t rng;       /* random: SplitMix64 state of this game */
    int depth;          /* maxn, paranoid, ab */
    long long nodes;    /* solve: node budget */
    mcts_config cfg;    /* mcts, az */
    int raw;            /* az with sims=0 */
    ga_tree *tree;      /* mcts, az (game_agent_tree.c) */
    agent_search_info si; /* mcts, az: game_agent_search_settings */
    nn_net *net;        /* az: owned */
    const ga_special *sp; /* K_SPECIAL: the kind's own agent set (game_agent_impl.h), and */
    void *x;              /* its agent, owned */
    engine_agent *eng;  /* K_ENGINE: an outside engine (eval/engine_agent.h), owned */
    br_agent *br;       /* K_BR: a best response to a fixed agent (eval/br_agent.h), owned */
    char *desc;         /* az: game_agent_describe (owned); NULL: the spec */
    int64_t soft_ms;    /* game_agent_set_time (generic mcts and az); 0: none */
    const int *abort;   /* game_agent_set_abort; NULL: none */
    double last_ms;     /* the last choose's time, an engine's start excluded */
    game_agent_stats stats; /* of the last choose (generic kinds) */
    char err[AGENT_ERRLEN];
};

/* In kind_id order. */
static const agent_kind_desc kinds[] = {
    {"random", "seed"},
    {"greedy", "seed"},
    {"maxn", "depth, seed"},
    {"paranoid", "depth, seed"},
    {"ab", "depth, seed"},
    {"solve", "nodes, seed"},
    {"mcts", "sims, rollouts, c_puct, solver, root, gumbel_k, gumbel_c_visit, gumbel_c_scale, seed"},
    {"az", "net, sims, c_puct, fpu, batch, root, gumbel_k, gumbel_c_visit, gumbel_c_scale, margin, solver, tb, tbroot, "
           "seed"},
};
#define KIND_LIST "random, greedy, maxn, paranoid, ab, solve, mcts, az, br"

/* ---- the kinds' constructors ---- */

/* sims (min_sims..), c_puct, the root keys (agent_root_args), and the evaluation settings: no noise, no
 * temperature, one leaf at a time. */
static int tree_config(game_agent *a, agent_args *args, long long default_sims, long long min_sims, char *err)
{
    long long sims = default_sims; /* c_puct's default: a->cfg's (built in, or the net's search record) */
    double c_puct = a->cfg.c_puct;
    if (agent_arg_long(args, "sims", min_sims, SEARCH_SIMS_MAX, &sims, err) ||
        agent_arg_double(args, "c_puct", SEARCH_C_PUCT_MIN, SEARCH_C_PUCT_MAX, &c_puct, err) || agent_root_args(args, &a->cfg, err))
        return -1;
    a->cfg.sims = sims ? (int)sims : 1;
    a->raw = sims == 0;
    a->cfg.c_puct = c_puct;
    a->cfg.dirichlet_eps = 0;
    a->cfg.temp_moves = 0;
    a->cfg.leaves_per_game = 1;
    return 0;
}

static int check_cfg(game_agent *a, char *err)
{
    char merr[MCTS_ERRLEN];
    if (mcts_config_check(&a->cfg, merr) != MCTS_OK) {
        set_err(err, "agent '%s': %s", a->spec, merr);
        return -1;
    }
    return 0;
}

static int init_mcts(game_agent *a, agent_args *args, char *err)
{
    long long rollouts = 1, solver;
    a->cfg = mcts_config_default();
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
    mcts_mp_eval *ev = mcts_mp_eval_rollout_create(a->g, (int)rollouts, 1, a->seed, merr);
    if (!ev) {
        set_err(err, "agent '%s': %s", a->spec, merr);
        return -1;
    }
    a->si = (agent_search_info){.sims = a->cfg.sims, .c_puct = a->cfg.c_puct, .fpu_reduction = a->cfg.fpu_reduction,
                                .batch = 1, .solver = a->cfg.solver, .gumbel = a->cfg.root == MCTS_ROOT_GUMBEL,
                                .gumbel_k = a->cfg.gumbel_k, .gumbel_c_visit = a->cfg.gumbel_c_visit,
                                .gumbel_c_scale = a->cfg.gumbel_c_scale};
    return (a->tree = ga_tree_create(a->g, &a->cfg, 0, ev, 0, 0, a->seed, a->spec, err)) ? 0 : -1;
}

/* The az keys g's facts allow: margin= and solver= (the margin utility and its score proofs) where the game
 * has two players and a margin to weigh. */
static unsigned az_keys(const game *g)
{
    const int utility = game_players(g) == 2 && game_has_margin(g);
    return AGENT_FROM_SIMS | AGENT_FROM_C_PUCT | AGENT_FROM_FPU | AGENT_FROM_BATCH | AGENT_FROM_ROOT |
           AGENT_FROM_GUMBEL | (utility ? AGENT_FROM_MARGIN | AGENT_FROM_SOLVER : 0u);
}

static int init_az(game_agent *a, agent_args *args, char *err)
{
    const char *path = agent_arg_str(args, "net");
    if (!path) {
        set_err(err, "agent '%s': az needs net=PATH.h5", a->spec);
        return -1;
    }
    /* The net first: its search record supplies the defaults of sims, c_puct, fpu, batch and the root keys
     * (eval/agent.h). */
    char nerr[NN_ERRLEN], merr[MCTS_ERRLEN];
    nn_file_info info;
    if (nn_load(path, game_spec(a->g), &a->net, &info, nerr) != NN_OK) {
        set_err(err, "agent '%s': net=%s: %s", a->spec, path, nerr);
        return -1;
    }
    if (strcmp(info.encoding, game_encoding_name(a->g))) {
        set_err(err, "agent '%s': net=%s uses input encoding '%s', not '%s'", a->spec, path, info.encoding,
                game_encoding_name(a->g));
        return -1;
    }
    if (mcts_mp_net_check(a->net, a->g, merr) != MCTS_OK) {
        set_err(err, "agent '%s': net=%s: %s", a->spec, path, merr);
        return -1;
    }
    const int utility = game_players(a->g) == 2 && game_has_margin(a->g);
    const unsigned keys = az_keys(a->g);
    long long sims = 200, batch = 1;
    a->cfg = mcts_config_default();
    if (info.have_search) {
        sims = info.search.sims;
        batch = info.search.batch;
        a->cfg.c_puct = info.search.c_puct;
        a->cfg.fpu_reduction = info.search.fpu_reduction;
        a->cfg.root = !strcmp(info.search.root, "gumbel") ? MCTS_ROOT_GUMBEL : MCTS_ROOT_PUCT;
        a->cfg.gumbel_k = info.search.gumbel_k;
        a->cfg.gumbel_c_visit = info.search.gumbel_c_visit;
        a->cfg.gumbel_c_scale = info.search.gumbel_c_scale;
        if (utility) {
            a->cfg.margin_utility = info.search.margin_utility;
            a->cfg.solver = info.search.solver;
        }
    }
    double fpu;
    long long tb = 0, tbroot = 1;
    if (tree_config(a, args, sims, 0, err))
        return -1;
    fpu = a->cfg.fpu_reduction;
    if (agent_arg_double(args, "fpu", 0, SEARCH_FPU_MAX, &fpu, err) ||
        agent_arg_long(args, "batch", 1, SEARCH_BATCH_MAX, &batch, err) || agent_arg_long(args, "tb", 0, 127, &tb, err) ||
        agent_arg_long(args, "tbroot", 0, 1, &tbroot, err))
        return -1;
    a->cfg.fpu_reduction = fpu;
    a->cfg.leaves_per_game = (int)batch;
    if (a->cfg.margin_utility > 0 && !nn_net_config(a->net)->margin_head)
        a->cfg.margin_utility = 0; /* the record's own mistake; a key given here is checked below */
    if (utility) {
        long long solver = a->cfg.solver;
        if (agent_arg_double(args, "margin", 0, SEARCH_MARGIN_MAX, &a->cfg.margin_utility, err) ||
            agent_arg_long(args, "solver", 0, 1, &solver, err))
            return -1;
        a->cfg.solver = (int)solver;
    }
    if (check_cfg(a, err))
        return -1;
    mcts_mp_eval *ev = mcts_mp_eval_net_create_utility(a->net, a->g, a->cfg.leaves_per_game, a->cfg.margin_utility,
                                                       merr);
    if (!ev) {
        set_err(err, "agent '%s': net=%s: %s", a->spec, path, merr);
        return -1;
    }
    if (!(a->tree = ga_tree_create(a->g, &a->cfg, a->raw, ev, (int)tb, (int)tbroot, a->seed, a->spec, err)))
        return -1;
    const int gumbel = a->cfg.root == MCTS_ROOT_GUMBEL;
    agent_search_info si = {.sims = a->raw ? 0 : a->cfg.sims, .c_puct = a->cfg.c_puct,
                            .fpu_reduction = a->cfg.fpu_reduction, .batch = a->cfg.leaves_per_game,
                            .gumbel = gumbel, .gumbel_k = a->cfg.gumbel_k, .gumbel_c_visit = a->cfg.gumbel_c_visit,
                            .gumbel_c_scale = a->cfg.gumbel_c_scale, .margin_utility = a->cfg.margin_utility,
                            .solver = a->cfg.solver, .net_record = info.have_search,
                            .from_net = info.have_search ? agent_from_net(args, keys, gumbel) : 0};
    int tb_root;
    si.tb = ga_tree_tb(a->tree, &tb_root);
    si.tbroot = tb_root;
    a->si = si;
    if (!(a->desc = agent_az_describe(path, &si, keys, a->seed))) {
        set_err(err, "out of memory");
        return -1;
    }
    return 0;
}

/* The kinds' own agent sets (game_agent_impl.h). */
static const ga_special *const specials[] = {&ga_special_kalah};

static const ga_special *special_for(const game *g)
{
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        if (specials[i]->kind == game_get_kind(g))
            return specials[i];
    return NULL;
}

/* Whether sp plays spec: every spec but one of a generic kind sp lacks (maxn, paranoid, solve for Kalah's);
 * an unknown kind too, so that its message lists sp's kinds. */
static int special_takes(const ga_special *sp, const char *spec)
{
    size_t n = strcspn(spec, ":,");
    for (const char *const *k = sp->kinds; *k; k++)
        if (strlen(*k) == n && !strncmp(spec, *k, n))
            return 1;
    for (kind_id k = K_RANDOM; k <= K_AZ; k++)
        if (strlen(kinds[k].name) == n && !strncmp(spec, kinds[k].name, n))
            return 0;
    return 1;
}

/* A new agent of kind `kind` named spec (copied) for g; NULL with "out of memory" in err. */
static game_agent *new_agent(const char *spec, kind_id kind, const char *kind_name, const game *g, char *err)
{
    game_agent *a = calloc(1, sizeof *a);
    if (!a || !(a->spec = strdup(spec))) {
        free(a);
        set_err(err, "out of memory");
        return NULL;
    }
    a->kind = kind;
    a->kind_name = kind_name;
    a->g = g;
    return a;
}

/* The end of every constructor: frees a after a failure (bad), else starts its first game. */
static game_agent *finish_agent(game_agent *a, int bad)
{
    if (bad) {
        game_agent_free(a);
        return NULL;
    }
    game_pos start;
    game_start(a->g, &start);
    game_agent_new_game(a, &start, 0);
    return a;
}

/* A kind's own agent (sp: every kind it knows is that agent, with its specs, defaults and tables, so a game
 * of that kind through this interface plays exactly the moves of its agents; an unknown kind gets its
 * message). */
static game_agent *create_special(const ga_special *sp, const char *spec, const game *g, char *err)
{
    game_agent *a = new_agent(spec, K_SPECIAL, NULL, g, err);
    if (!a)
        return NULL;
    a->sp = sp;
    if (!(a->x = sp->create(spec, g, err))) {
        game_agent_free(a);
        return NULL;
    }
    a->kind_name = sp->kind_name(a->x);
    return a;
}

game_agent *game_agent_create(const char *spec, const game *g, char *err)
{
    if (!spec || !*spec) {
        set_err(err, "empty agent spec (" KIND_LIST ")");
        return NULL;
    }
    if (strlen(spec) >= AGENT_SPEC_MAX) {
        set_err(err, "agent spec longer than %d characters", AGENT_SPEC_MAX - 1);
        return NULL;
    }
    if (!g) {
        set_err(err, "agent '%s': no game", spec);
        return NULL;
    }
    if (engine_spec_is_engine(spec)) { /* every game: the engine's own spec grammar (quoted cmd) */
        game_agent *a = new_agent(spec, K_ENGINE, "engine", g, err);
        if (!a)
            return NULL;
        if (!(a->eng = engine_agent_create(spec, g, err))) {
            game_agent_free(a);
            return NULL;
        }
        return a;
    }
    if (br_spec_is_br(spec)) { /* every game: a spec of specs (quoted sub-specs) */
        game_agent *a = new_agent(spec, K_BR, "br", g, err);
        if (!a)
            return NULL;
        if (!(a->br = br_agent_create(spec, g, err))) {
            game_agent_free(a);
            return NULL;
        }
        return finish_agent(a, 0);
    }
    const ga_special *sp = special_for(g);
    if (sp && special_takes(sp, spec))
        return create_special(sp, spec, g, err);
    char buf[AGENT_SPEC_MAX];
    strcpy(buf, spec);
    agent_args args;
    char unknown[96];
    snprintf(unknown, sizeof unknown, "for %s (" KIND_LIST ")", game_name(g));
    static const char *const no_keys[] = {NULL};
    const char *const *rule_keys = game_get_kind(g)->rule_keys ? game_get_kind(g)->rule_keys : no_keys;
    int kd = agent_spec_split(spec, buf, kinds, (int)(sizeof kinds / sizeof kinds[0]), unknown, rule_keys, &args,
                              err);
    if (kd < 0)
        return NULL;
    if ((kd == K_AB || kd == K_SOLVE) && game_players(g) != 2) {
        set_err(err, "agent '%s': %s is for two-player games; %s has %d players (use maxn or paranoid)", spec,
                kinds[kd].name, game_spec(g), game_players(g));
        return NULL;
    }
    if (kd == K_SOLVE && !game_has_margin(g)) {
        set_err(err, "agent '%s': solve needs a final margin, which %s has not", spec, game_name(g));
        return NULL;
    }
    char serr[GAME_ERRLEN];
    if (kd == K_SOLVE && gs_solvable(g, serr) != GAME_OK) { /* refused now, not at its first move */
        set_err(err, "agent '%s': %s", spec, serr);
        return NULL;
    }
    game_agent *a = new_agent(spec, (kind_id)kd, kinds[kd].name, g, err);
    if (!a)
        return NULL;
    long long seed = 0, depth = 4;
    a->nodes = 50000000;
    int bad = agent_arg_long(&args, "seed", 0, LLONG_MAX, &seed, err);
    a->seed = (uint64_t)seed;
    if (!bad) {
        switch ((kind_id)kd) {
        case K_MAXN:
        case K_PARANOID:
        case K_AB:
            bad = agent_arg_long(&args, "depth", 1, kd == K_AB ? 30 : 12, &depth, err); /* max^n: ~4x time per ply */
            a->depth = (int)depth;
            break;
        case K_SOLVE: bad = agent_arg_long(&args, "nodes", 1000, 10000000000LL, &a->nodes, err); break;
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
    return finish_agent(a, bad);
}

game_agent *game_agent_create_az(const game *g, const game_agent_az *az, char *err)
{
    if (!g || !az || !az->net || !az->name || !*az->name) {
        set_err(err, "game_agent_create_az: %s", !g ? "no game" : !az || !az->net ? "no net" : "no name");
        return NULL;
    }
    game_agent *a = new_agent(az->name, K_AZ, kinds[K_AZ].name, g, err);
    if (!a)
        return NULL;
    a->seed = az->seed;
    int bad = 0;
    char merr[MCTS_ERRLEN];
    mcts_mp_eval *ev = NULL;
    if ((az->search.margin_utility > 0 || az->search.solver) &&
               !(game_players(g) == 2 && game_has_margin(g))) {
        set_err(err, "agent '%s': margin and solver need two players and a margin; %s has not", az->name,
                game_spec(g));
        bad = 1;
    } else if (agent_search_config(&az->search, az->name, &a->cfg, &a->raw, err)) {
        bad = 1;
    } else if (mcts_mp_net_check(az->net, g, merr) != MCTS_OK ||
               !(ev = mcts_mp_eval_net_create_utility(az->net, g, a->cfg.leaves_per_game, a->cfg.margin_utility,
                                                      merr))) {
        set_err(err, "agent '%s': %s", az->name, merr);
        bad = 1;
    } else if (!(a->tree = ga_tree_create(g, &a->cfg, a->raw, ev, az->search.tb, az->search.tbroot != 0, az->seed,
                                          az->name, err))) {
        bad = 1;
    } else {
        a->si = az->search;
        a->si.net_record = 0;
        a->si.from_net = 0;
        int tb_root;
        a->si.tb = ga_tree_tb(a->tree, &tb_root);
        a->si.tbroot = tb_root;
        if (!(a->desc = agent_az_describe(az->name, &a->si, az_keys(g), az->seed))) {
            set_err(err, "out of memory");
            bad = 1;
        }
    }
    return finish_agent(a, bad);
}

void game_agent_free(game_agent *a)
{
    if (!a)
        return;
    ga_tree_free(a->tree);
    nn_net_free(a->net);
    if (a->x)
        a->sp->free(a->x);
    engine_agent_free(a->eng);
    br_agent_free(a->br);
    free(a->desc);
    free(a->spec);
    free(a);
}

const char *game_agent_spec(const game_agent *a) { return a->spec; }
const char *game_agent_describe(const game_agent *a)
{
    return a->x ? a->sp->describe(a->x) : a->eng ? engine_agent_describe(a->eng) : a->desc ? a->desc : a->spec;
}
const char *game_agent_kind(const game_agent *a) { return a->kind_name; }
const char *game_agent_error(const game_agent *a)
{
    return a->x ? a->sp->error(a->x) : a->eng ? engine_agent_error(a->eng) : a->err;
}

void *ga_special_instance(const game_agent *a, const ga_special *sp) { return a->sp == sp ? a->x : NULL; }

const char *game_agent_exact_spec(const game *g, int tt_mb, int endgame_seeds, char *buf, size_t n, char *err)
{
    char serr[GAME_ERRLEN];
    if (game_players(g) != 2 || !game_has_margin(g)) {
        set_err(err, "%s has no exact solver (it needs two players and a final margin)", game_spec(g));
        return NULL;
    }
    if (gs_solvable(g, serr) != GAME_OK) {
        set_err(err, "%s", serr);
        return NULL;
    }
    const ga_special *sp = special_for(g);
    if (sp)
        sp->exact_spec(g, tt_mb, endgame_seeds, buf, n);
    else
        snprintf(buf, n, "solve");
    return buf;
}

game_agent *game_agent_create_exact(const game *g, int tt_mb, int endgame_seeds, char *err)
{
    char spec[96];
    return game_agent_exact_spec(g, tt_mb, endgame_seeds, spec, sizeof spec, err) ? game_agent_create(spec, g, err)
                                                                                    : NULL;
}

int game_agent_is_exact(const game_agent *a)
{
    return a->kind == K_SOLVE || (a->x && a->sp->is_exact(a->x));
}

/* solve: the exact solution of p within the agent's node budget, as an AGENT_* code (message in a->err). */
static int solve(game_agent *a, const game_pos *p, gs_solution *sol)
{
    char serr[GAME_ERRLEN];
    int rc = gs_solve(a->g, p, (uint64_t)a->nodes, a->abort, sol, serr);
    if (rc == GS_EABORTED)
        return AGENT_ESTOPPED;
    if (rc != GAME_OK) {
        set_err(a->err, "%s", serr);
        return rc == GAME_ENOMEM ? AGENT_ENOMEM : AGENT_EFAIL;
    }
    return AGENT_OK;
}

int game_agent_exact_value(game_agent *a, const game_pos *p, int *seat0_margin)
{
    if (!game_agent_is_exact(a) || p->over)
        return AGENT_EINVAL;
    a->err[0] = 0;
    if (a->x) {
        int rc = a->sp->exact_value(a->x, p, seat0_margin);
        if (rc != AGENT_OK)
            set_err(a->err, "%s", a->sp->error(a->x));
        return rc;
    }
    gs_solution sol;
    int rc = solve(a, p, &sol);
    if (rc == AGENT_OK)
        *seat0_margin = p->to_move == 0 ? sol.value : -sol.value; /* sol.value: the mover's margin */
    return rc;
}

void game_agent_new_game(game_agent *a, const game_pos *start, uint64_t game_seed)
{
    if (a->x) {
        a->sp->new_game(a->x, start, game_seed);
        return;
    }
    if (a->eng)
        engine_agent_new_game(a->eng);
    if (a->br)
        br_agent_new_game(a->br, start, game_seed);
    a->game_seed = agent_mix(a->seed, game_seed);
    a->rng = a->game_seed;
    if (a->tree)
        ga_tree_new_game(a->tree, start, a->game_seed);
}

void game_agent_notify(game_agent *a, const game_pos *before, int move)
{
    if (a->x)
        a->sp->notify(a->x, before, move);
    if (a->tree)
        ga_tree_notify(a->tree, before, move);
}

void game_agent_last_stats(const game_agent *a, game_agent_stats *out)
{
    if (a->x)
        a->sp->stats(a->x, out);
    else
        *out = a->stats;
    if (out->valid)
        out->pos = a->stats.pos; /* the kind's own agents keep their position in their own form */
}

void game_agent_set_detail(game_agent *a, int detail)
{
    if (a->x) /* the generic kinds have nothing that costs extra */
        a->sp->set_detail(a->x, detail != 0);
}

int game_agent_search_settings(const game_agent *a, agent_search_info *out)
{
    if (!a->tree)
        return AGENT_EINVAL;
    *out = a->si;
    return AGENT_OK;
}

/* One of the slots in mask, uniformly (multiply-shift, Lemire 2019, as agent_below). `draw_for_one`: draw
 * even when there is one (random does, so its stream does not depend on how many moves were forced). */
static int pick_uniform(game_agent *a, unsigned mask, int draw_for_one)
{
    unsigned n = (unsigned)__builtin_popcount(mask);
    unsigned j = n == 1 && !draw_for_one ? 0 : (unsigned)(((agent_splitmix(&a->rng) >> 32) * (uint64_t)n) >> 32);
    for (int k = 0;; k++)
        if (mask & (1u << k) && j-- == 0)
            return k;
}

void game_agent_set_time(game_agent *a, int64_t soft_ms, int64_t hard_ms)
{
    a->soft_ms = soft_ms > 0 ? soft_ms : 0;
    if (a->x)
        a->sp->set_time(a->x, a->soft_ms);
    if (a->eng)
        engine_agent_set_time(a->eng, a->soft_ms, hard_ms);
}

void game_agent_set_abort(game_agent *a, const int *flag)
{
    a->abort = flag;
    if (a->x)
        a->sp->set_abort(a->x, flag);
    if (a->br)
        br_agent_set_abort(a->br, flag);
}

double game_agent_last_ms(const game_agent *a) { return a->last_ms; }

int game_agent_timed_out(const game_agent *a) { return a->eng && engine_agent_timed_out(a->eng); }

static double mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int choose_move(game_agent *a, const game_pos *p, int *move_out);

int game_agent_choose(game_agent *a, const game_pos *p, int *move_out)
{
    double t0 = mono_ms();
    int rc = choose_move(a, p, move_out);
    /* As agent_choose: a search the flag cut short, or one that ended before it looked, is no move. */
    if (a->abort && __atomic_load_n(a->abort, __ATOMIC_RELAXED) && rc != AGENT_ENOMEM)
        rc = AGENT_ESTOPPED;
    if (rc == AGENT_ESTOPPED && !a->x)
        set_err(a->err, "stopped");
    a->last_ms = mono_ms() - t0 - (a->eng ? engine_agent_start_ms(a->eng) : 0);
    return rc;
}

static int choose_move(game_agent *a, const game_pos *p, int *move_out)
{
    if (a->x) {
        int rc = a->sp->choose(a->x, p, move_out);
        a->stats.pos = *p;
        return rc;
    }
    if (a->eng)
        return engine_agent_choose(a->eng, p, move_out);
    a->err[0] = 0;
    memset(&a->stats, 0, sizeof a->stats);
    unsigned legal = game_legal(a->g, p);
    if (p->over || !legal) {
        set_err(a->err, "the game is over");
        return AGENT_EOVER;
    }
    int rc = AGENT_OK;
    switch (a->kind) {
    case K_RANDOM: *move_out = pick_uniform(a, legal, 1); break;
    case K_GREEDY: *move_out = pick_uniform(a, game_greedy(a->g, p), 0); break;
    case K_MAXN:
    case K_PARANOID:
    case K_AB: {
        gs_result res;
        int src = gs_search(a->g, p, a->kind == K_MAXN ? GS_MAXN : GS_PARANOID, a->depth, a->abort, &res);
        if (src == GS_EABORTED)
            return AGENT_ESTOPPED;
        if (src != GAME_OK) {
            set_err(a->err, "%s search failed", a->kind_name);
            return AGENT_EFAIL;
        }
        *move_out = res.move;
        break;
    }
    case K_SOLVE: {
        gs_solution sol;
        if ((rc = solve(a, p, &sol)) != AGENT_OK)
            return rc;
        *move_out = sol.move;
        break;
    }
    case K_MCTS:
    case K_AZ: rc = ga_tree_choose(a->tree, p, a->soft_ms, a->abort, move_out, &a->stats, a->err); break;
    case K_BR: rc = br_agent_choose(a->br, p, move_out, NULL, a->err); break;
    case K_SPECIAL:
    case K_ENGINE: break; /* handled above */
    }
    if (rc == AGENT_OK && (*move_out < 0 || *move_out >= game_moves(a->g) || !(legal & (1u << *move_out)))) {
        set_err(a->err, "agent '%s' chose an illegal move (%d)", a->spec, *move_out);
        return AGENT_EFAIL;
    }
    if (rc == AGENT_OK) {
        a->stats.valid = 1;
        a->stats.pos = *p;
    }
    return rc;
}
