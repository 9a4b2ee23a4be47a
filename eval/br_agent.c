/* br_agent.c — an approximate best response by playouts (contract in br_agent.h). */
#include "eval/br_agent.h"
#include "env/errbuf.h"

#include <stdlib.h>
#include <string.h>

#include "eval/agent_impl.h"
#include "eval/game_agent.h"

#define set_err(err, ...) errbuf_set(err, AGENT_ERRLEN, __VA_ARGS__)

struct br_agent {
    const game *g;
    game_agent *target, *rollout;
    const int *abort;
};

int br_spec_is_br(const char *spec) { return spec && !strncmp(spec, "br", 2) && (spec[2] == ':' || spec[2] == 0); }

void br_agent_free(br_agent *b)
{
    if (!b)
        return;
    game_agent_free(b->target);
    game_agent_free(b->rollout);
    free(b);
}

br_agent *br_agent_create(const char *spec, const game *g, char *err)
{
    br_agent *b = calloc(1, sizeof *b);
    char *target = NULL, *rollout = NULL;
    if (!b) {
        set_err(err, "out of memory");
        return NULL;
    }
    b->g = g;
    const char *s = spec + 2;
    int bad = 0;
    if (*s == ':')
        s++;
    char key[16], *v;
    int more;
    while (!bad && (more = agent_spec_next(spec, &s, key, sizeof key, "target, rollout, seed", &v, err)) != 0) {
        if (more < 0) {
            bad = 1;
            break;
        }
        char **slot = !strcmp(key, "target") ? &target : !strcmp(key, "rollout") ? &rollout : NULL;
        if (slot && !*slot) {
            *slot = v;
            v = NULL;
        } else if (slot) {
            set_err(err, "agent '%s': %s is given twice", spec, key);
            bad = 1;
        } else if (strcmp(key, "seed")) {
            set_err(err, "agent '%s': unknown key '%s' for br (keys: target, rollout, seed)", spec, key);
            bad = 1;
        }
        free(v);
    }
    char sub[AGENT_ERRLEN];
    if (!bad && !target) {
        set_err(err, "agent '%s': br needs target=SPEC, the agent it answers (e.g. br:target=maxn:depth=3)", spec);
        bad = 1;
    }
    if (!bad && !(b->target = game_agent_create(target, g, sub))) {
        set_err(err, "agent '%s': target: %s", spec, sub);
        bad = 1;
    }
    if (!bad && !(b->rollout = game_agent_create(rollout ? rollout : "greedy", g, sub))) {
        set_err(err, "agent '%s': rollout: %s", spec, sub);
        bad = 1;
    }
    free(target);
    free(rollout);
    if (bad) {
        br_agent_free(b);
        return NULL;
    }
    return b;
}

void br_agent_new_game(br_agent *b, const game_pos *start, uint64_t game_seed)
{
    game_agent_new_game(b->target, start, game_seed);
    game_agent_new_game(b->rollout, start, game_seed ^ 0x9E3779B97F4A7C15ULL);
}

void br_agent_set_abort(br_agent *b, const int *flag)
{
    b->abort = flag;
    game_agent_set_abort(b->target, flag);
    game_agent_set_abort(b->rollout, flag);
}

/* What ranks two playouts of the same value: the final margin for seat in a two-player game with one (a
 * win by more, a loss by less), else 0. */
static double margin_of(const br_agent *b, const game_pos *end, int seat)
{
    if (game_players(b->g) != 2 || !game_has_margin(b->g))
        return 0;
    const int m = game_margin(b->g, end);
    return seat == 0 ? m : -m;
}

/* The final value for `seat` of the game after p's move k, the target in the other seats and the rollout
 * agent in seat's: AGENT_OK with *value, or a sub-agent's code with err. */
static int playout(br_agent *b, const game_pos *p, int k, int seat, double *value, double *margin, char *err)
{
    game_pos q = *p;
    game_apply(b->g, &q, k, NULL);
    for (int ply = 0; !q.over && ply < BR_MAX_PLIES; ply++) {
        if (b->abort && __atomic_load_n(b->abort, __ATOMIC_RELAXED))
            return AGENT_ESTOPPED;
        game_agent *a = q.to_move == seat ? b->rollout : b->target;
        int m, rc = game_agent_choose(a, &q, &m);
        if (rc != AGENT_OK) {
            set_err(err, "%s: %s", game_agent_spec(a), game_agent_error(a));
            return rc;
        }
        if (game_apply(b->g, &q, m, NULL) != GAME_OK) {
            set_err(err, "%s chose slot %d, not a legal move", game_agent_spec(a), m);
            return AGENT_EFAIL;
        }
    }
    double v[GAME_MAX_PLAYERS];
    game_stopped_values(b->g, &q, v);
    *value = v[seat];
    *margin = margin_of(b, &q, seat);
    return AGENT_OK;
}

int br_agent_choose(br_agent *b, const game_pos *p, int *move, double *value, char *err)
{
    const unsigned legal = game_legal(b->g, p);
    /* Ties (the same value and margin: common, values being win, draw or loss) go to the move the rollout
     * agent itself would play, then to the lower slot. */
    int own, rc = game_agent_choose(b->rollout, p, &own);
    if (rc != AGENT_OK) {
        set_err(err, "%s: %s", game_agent_spec(b->rollout), game_agent_error(b->rollout));
        return rc;
    }
    double best = -2, best_margin = 0;
    int best_k = -1;
    for (int k = 0; k < game_moves(b->g); k++) {
        if (!(legal >> k & 1u))
            continue;
        double v, m;
        if ((rc = playout(b, p, k, p->to_move, &v, &m, err)) != AGENT_OK)
            return rc;
        const int better = best_k < 0 || v > best || (v == best && (m > best_margin || (m == best_margin && k == own)));
        if (better)
            best = v, best_margin = m, best_k = k;
    }
    *move = best_k;
    if (value)
        *value = best;
    return AGENT_OK;
}
