/* posset.c — the position set: storage with duplicate detection, sampling and the writer (posset.h). */
#include "eval/posset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/errbuf.h"
#include "eval/agent.h"
#include "eval/alphabeta.h"
#include "selfplay/rng.h"

#define set_err(err, ...) errbuf_set(err, PS_ERRLEN, __VA_ARGS__)

struct ps_set {
    kalah_rules r;
    ps_entry *e;
    size_t n, cap;
    uint32_t *slot;          /* open-addressing table of entry index + 1 (0 = empty), hashed by board+side */
    size_t slots;            /* a power of two, kept above twice n */
};

ps_set *ps_create(const kalah_rules *r, char *err)
{
    char kerr[KALAH_ERRLEN];
    if (!r || kalah_rules_check(r, kerr) != KALAH_OK) {
        set_err(err, "rules: %s", r ? kerr : "missing");
        return NULL;
    }
    ps_set *s = calloc(1, sizeof *s);
    if (!s) {
        set_err(err, "out of memory");
        return NULL;
    }
    s->r = *r;
    return s;
}

void ps_free(ps_set *s)
{
    if (!s)
        return;
    free(s->e);
    free(s->slot);
    free(s);
}

const kalah_rules *ps_rules(const ps_set *s) { return &s->r; }
size_t ps_count(const ps_set *s) { return s->n; }
ps_entry *ps_get(ps_set *s, size_t i) { return i < s->n ? &s->e[i] : NULL; }

static uint64_t pos_hash(const kalah_pos *p)
{
    uint64_t lo, hi;
    memcpy(&lo, p->cell, 8);
    memcpy(&hi, p->cell + 8, 8);
    uint64_t x = (lo ^ (hi * 0x9e3779b97f4a7c15ULL) ^ p->side) * 0xff51afd7ed558ccdULL;
    return x ^ x >> 29;
}

static int same(const kalah_pos *a, const kalah_pos *b)
{
    return a->side == b->side && !memcmp(a->cell, b->cell, KALAH_CELLS);
}

/* The slot holding p, or the empty slot where it would go. */
static size_t find_slot(const ps_set *s, const kalah_pos *p)
{
    size_t i = (size_t)pos_hash(p) & (s->slots - 1);
    while (s->slot[i] && !same(&s->e[s->slot[i] - 1].pos, p))
        i = (i + 1) & (s->slots - 1);
    return i;
}

static int grow(ps_set *s)
{
    if (s->n + 1 > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        ps_entry *e = realloc(s->e, cap * sizeof *e);
        if (!e)
            return PS_ENOMEM;
        s->e = e;
        s->cap = cap;
    }
    if (2 * (s->n + 1) > s->slots) {
        size_t slots = s->slots ? 2 * s->slots : 1024;
        uint32_t *slot = calloc(slots, sizeof *slot);
        if (!slot)
            return PS_ENOMEM;
        free(s->slot);
        s->slot = slot;
        s->slots = slots;
        for (size_t k = 0; k < s->n; k++)
            s->slot[find_slot(s, &s->e[k].pos)] = (uint32_t)(k + 1);
    }
    return PS_OK;
}

int ps_add(ps_set *s, const kalah_pos *p, int ply, const char *source)
{
    if (p->over || !kalah_legal(&s->r, p))
        return 0;
    if (s->n && s->slot[find_slot(s, p)])
        return 0;
    if (s->n >= UINT32_MAX - 1 || grow(s) != PS_OK)
        return PS_ENOMEM;
    ps_entry *e = &s->e[s->n];
    memset(e, 0, sizeof *e);
    e->pos = *p;
    e->ply = ply;
    snprintf(e->source, sizeof e->source, "%s", source);
    for (int k = 0; k < KALAH_MAX_PITS; k++)
        e->values[k] = AB_NO_VALUE;
    s->slot[find_slot(s, p)] = (uint32_t)(s->n + 1);
    s->n++;
    return 1;
}

int ps_seeds_in_pits(const kalah_rules *r, const kalah_pos *p)
{
    return kalah_total(r, p) - p->cell[kalah_store(r, 0)] - p->cell[kalah_store(r, 1)];
}

int ps_phase(const kalah_rules *r, int seeds_in_pits)
{
    const int total = 2 * r->pits * r->seeds;
    return 3 * seeds_in_pits > 2 * total ? 0 : 3 * seeds_in_pits > total ? 1 : 2;
}

void ps_phase_range(const kalah_rules *r, int phase, int *hi, int *lo)
{
    const int total = 2 * r->pits * r->seeds;
    *hi = phase == 0 ? total : phase == 1 ? 2 * total / 3 : total / 3;
    *lo = phase == 0 ? 2 * total / 3 + 1 : phase == 1 ? total / 3 + 1 : 0;
}

char *ps_phase_label(const kalah_rules *r, int phase, char *buf, size_t n)
{
    int hi, lo;
    ps_phase_range(r, phase, &hi, &lo);
    snprintf(buf, n, "%d-%d", hi, lo);
    return buf;
}

const char *ps_phase_name(int phase)
{
    static const char *const names[PS_PHASES] = {"opening", "middlegame", "endgame"};
    return phase >= 0 && phase < PS_PHASES ? names[phase] : "?";
}

/* ---- sampling ---- */

#define GAME_MAX_PLIES 2000 /* a cap far above any Kalah game of these boards (each sowing is progress) */
#define PICK_TRIES 4

typedef struct {
    ps_set *s;
    const ps_sample_opts *o;
    mcts_rng rng;
    size_t want[PS_PHASES], have[PS_PHASES];
    agent *agents[8];
    int n_agents;
    kalah_pos *game;          /* positions of the current game, by ply */
    int *game_ply;
} sampler;

static int needs(const sampler *sp, int phase) { return sp->have[phase] < sp->want[phase]; }

/* Adds p to the set when its phase still needs positions; 1 added, 0 not, PS_ENOMEM. */
static int offer(sampler *sp, const kalah_pos *p, int ply, const char *source)
{
    const int seeds = ps_seeds_in_pits(&sp->s->r, p), ph = ps_phase(&sp->s->r, seeds);
    if (!needs(sp, ph) || (sp->o->max_seeds > 0 && seeds > sp->o->max_seeds))
        return 0;
    int rc = ps_add(sp->s, p, ply, source);
    if (rc == 1)
        sp->have[ph]++;
    return rc;
}

static int random_move(sampler *sp, const kalah_pos *p)
{
    unsigned legal = kalah_legal(&sp->s->r, p);
    int j = (int)mcts_rng_below(&sp->rng, (uint32_t)__builtin_popcount(legal));
    while (j--)
        legal &= legal - 1;
    return __builtin_ctz(legal);
}

static int draw_opening(sampler *sp)
{
    const kalah_rules *r = &sp->s->r;
    const int k = 1 + (int)mcts_rng_below(&sp->rng, (uint32_t)(6 * r->pits));
    kalah_pos p;
    kalah_start(r, &p);
    for (int i = 0; i < k; i++) {
        if (p.over)
            return 0;
        kalah_sow(r, &p, random_move(sp, &p), NULL);
    }
    char src[32];
    snprintf(src, sizeof src, "opening:%d", k);
    return offer(sp, &p, k, src);
}

static int draw_game(sampler *sp, char *err)
{
    const kalah_rules *r = &sp->s->r;
    agent *a[2] = {sp->agents[mcts_rng_below(&sp->rng, (uint32_t)sp->n_agents)],
                   sp->agents[mcts_rng_below(&sp->rng, (uint32_t)sp->n_agents)]};
    const int opening = (int)mcts_rng_below(&sp->rng, 4);
    const uint64_t game_seed = mcts_rng_next(&sp->rng);
    kalah_pos p;
    kalah_start(r, &p);
    int n = 0;
    while (!p.over && n < GAME_MAX_PLIES) {
        if (n == opening) {
            agent_new_game(a[0], &p, game_seed);
            if (a[1] != a[0])
                agent_new_game(a[1], &p, game_seed);
        }
        sp->game[n] = p;
        sp->game_ply[n] = n;
        n++;
        int mv;
        if (n <= opening) {
            mv = random_move(sp, &p);
        } else if (agent_choose(a[p.side], &p, &mv) != AGENT_OK) {
            set_err(err, "agent '%s': %s", agent_spec(a[p.side]), agent_error(a[p.side]));
            return PS_EFAIL;
        } else {
            agent_notify(a[0], &p, mv);
            if (a[1] != a[0])
                agent_notify(a[1], &p, mv);
        }
        kalah_sow(r, &p, mv, NULL);
    }
    char src[PS_SOURCE_MAX];
    snprintf(src, sizeof src, "game:%s-vs-%s", agent_spec(a[0]), agent_spec(a[1]));
    int idx[GAME_MAX_PLIES];
    for (int ph = 0; ph < PS_PHASES; ph++) {
        if (!needs(sp, ph))
            continue;
        int m = 0;
        for (int i = 0; i < n; i++) {
            const int seeds = ps_seeds_in_pits(r, &sp->game[i]);
            if (ps_phase(r, seeds) == ph && (sp->o->max_seeds <= 0 || seeds <= sp->o->max_seeds))
                idx[m++] = i;
        }
        for (int t = 0; t < PICK_TRIES && m > 0; t++) {
            int i = idx[mcts_rng_below(&sp->rng, (uint32_t)m)];
            int rc = offer(sp, &sp->game[i], sp->game_ply[i], src);
            if (rc < 0)
                return rc;
            if (rc == 1)
                break;
        }
    }
    return PS_OK;
}

static int make_agents(sampler *sp, char *err)
{
    static const char *const specs[] = {"random", "greedy", "ab:depth=2,seed=1", "ab:depth=4,seed=1",
                                        "ab:depth=6,seed=1", "mcts:sims=100"};
    char aerr[AGENT_ERRLEN], spec[AGENT_SPEC_MAX];
    for (size_t i = 0; i <= sizeof specs / sizeof specs[0]; i++) {
        if (i == sizeof specs / sizeof specs[0]) {
            if (!sp->o->net)
                break;
            if (snprintf(spec, sizeof spec, "az:net=%s,sims=100", sp->o->net) >= (int)sizeof spec) {
                set_err(err, "--net: path too long");
                return PS_EINVAL;
            }
        } else {
            snprintf(spec, sizeof spec, "%s", specs[i]);
        }
        agent *a = agent_create(spec, &sp->s->r, aerr);
        if (!a) {
            set_err(err, "%s", aerr);
            return PS_EINVAL;
        }
        sp->agents[sp->n_agents++] = a;
    }
    return PS_OK;
}

int ps_sample(ps_set *s, const ps_sample_opts *o, char *err)
{
    if (!s || !o || o->count < 1 || o->early > o->count || s->n) {
        set_err(err, "sampling: need an empty set, count >= 1 and early <= count");
        return PS_EINVAL;
    }
    if (o->max_sows_left) {
        set_err(err, "--max-sows-left: Kalah's sampler does not cap the sowings left (rules of other games only)");
        return PS_EINVAL;
    }
    sampler sp = {.s = s, .o = o};
    mcts_rng_seed(&sp.rng, o->seed);
    const size_t rest = o->count - o->early;
    sp.want[0] = o->early;
    sp.want[1] = rest - rest / 2;
    sp.want[2] = rest / 2;
    for (int ph = 0; ph + 1 < PS_PHASES; ph++) { /* a phase above max_seeds hands its quota on (as gposset.c) */
        int hi, lo;
        ps_phase_range(&s->r, ph, &hi, &lo);
        if (o->max_seeds > 0 && lo > o->max_seeds) {
            sp.want[ph + 1] += sp.want[ph];
            sp.want[ph] = 0;
        }
    }
    sp.game = malloc(GAME_MAX_PLIES * sizeof *sp.game);
    sp.game_ply = malloc(GAME_MAX_PLIES * sizeof *sp.game_ply);
    int rc = sp.game && sp.game_ply ? make_agents(&sp, err) : PS_ENOMEM;
    const size_t draws = 1000 + 200 * o->count;
    for (size_t d = 0; rc >= 0 && d < draws && (needs(&sp, 0) || needs(&sp, 1) || needs(&sp, 2)); d++)
        rc = mcts_rng_below(&sp.rng, 4) == 0 ? draw_opening(&sp) : draw_game(&sp, err);
    if (rc == PS_ENOMEM)
        set_err(err, "out of memory");
    for (int ph = 0; rc >= 0 && ph < PS_PHASES; ph++)
        if (needs(&sp, ph)) {
            char lab[16];
            set_err(err, "after %zu draws only %zu of the %zu positions wanted with %s seeds in the pits were "
                    "found (too few distinct positions of this board in that phase? lower --count or "
                    "--min-early)", draws, sp.have[ph], sp.want[ph], ps_phase_label(&s->r, ph, lab, sizeof lab));
            rc = PS_EFAIL;
        }
    for (int i = 0; i < sp.n_agents; i++)
        agent_free(sp.agents[i]);
    free(sp.game);
    free(sp.game_ply);
    return rc < 0 ? rc : PS_OK;
}
