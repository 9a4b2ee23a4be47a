/* game_playouts.c — batched random playouts of any game (env/game.h): the kind's own stepper
 * (game_kind.playouts) when it has one, else a scalar one over game_apply, which every kind has. */
#include <stdlib.h>
#include <string.h>

#include "env/errbuf.h"
#include "env/game.h"

/* game.c's stepper: one xorshift64 state per board (Marsaglia 2003, shifts 13, 7, 17; seeded with
 * SplitMix64 of seed + board, never zero), so a board's games do not depend on the batch around it. */
typedef struct {
    const game *g;
    int batch;
    game_pos *pos;
    uint64_t *rng;
    game_playout_stats st;
} scalar_stepper;

struct game_playouts {
    const game_playout_ops *ops; /* NULL: the scalar stepper */
    void *s;
};

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static scalar_stepper *scalar_create(const game *g, int batch, uint64_t seed)
{
    scalar_stepper *s = calloc(1, sizeof *s);
    if (!s || !(s->pos = malloc((size_t)batch * sizeof *s->pos)) || !(s->rng = malloc((size_t)batch * sizeof *s->rng))) {
        if (s)
            free(s->pos);
        free(s);
        return NULL;
    }
    s->g = g;
    s->batch = batch;
    for (int i = 0; i < batch; i++) {
        game_start(g, &s->pos[i]);
        s->rng[i] = splitmix64(seed + (uint64_t)i) | 1;
    }
    return s;
}

/* The scores of a finished game into the counts: the seats with the best value share the first place. */
static void count_end(const game *g, const game_pos *p, game_playout_stats *st)
{
    double v[GAME_MAX_PLAYERS], best = -2;
    const int np = game_players(g);
    int n_best = 0, who = 0;
    game_values(g, p, v);
    for (int q = 0; q < np; q++)
        best = v[q] > best ? v[q] : best;
    for (int q = 0; q < np; q++)
        if (v[q] == best)
            n_best++, who = q;
    st->games++;
    if (n_best == 1)
        st->first[who]++;
    else
        st->shared++;
}

/* Board by board: each board's moves depend only on its own state, so the order the boards are stepped in
 * changes no count, and one board's whole run keeps its position and generator in registers. */
static void scalar_run(scalar_stepper *s, long steps)
{
    const game *g = s->g;
    for (int i = 0; i < s->batch; i++) {
        game_pos p = s->pos[i];
        uint64_t x = s->rng[i], relays = 0;
        for (long t = 0; t < steps; t++) {
            unsigned legal = game_legal(g, &p);
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* multiply-shift on the top 32 bits: a uniform pick among the legal moves */
            int pick = (int)(((x >> 32) * (uint64_t)__builtin_popcount(legal)) >> 32);
            while (pick--)
                legal &= legal - 1;
            game_step ev;
            game_apply(g, &p, __builtin_ctz(legal), &ev);
            relays += ev.relays;
            if (p.over) {
                count_end(g, &p, &s->st);
                game_start(g, &p);
            }
        }
        s->pos[i] = p;
        s->rng[i] = x;
        s->st.relays += relays;
        s->st.sows += (uint64_t)steps;
    }
}

int game_playouts_batch_multiple(const game *g)
{
    const game_playout_ops *ops = game_get_kind(g)->playouts;
    return ops ? ops->batch_multiple : 1;
}

game_playouts *game_playouts_create(const game *g, int batch, const char *kernel, int mode, uint64_t seed,
                                    char *err)
{
    const game_playout_ops *ops = game_get_kind(g)->playouts;
    const int multiple = game_playouts_batch_multiple(g);
    if (batch < 1 || batch % multiple) {
        errbuf_set(err, GAME_ERRLEN, "batch %d: must be a positive multiple of %d", batch, multiple);
        return NULL;
    }
    if (mode < 0 || mode >= GAME_PLAYOUT_MODES) {
        errbuf_set(err, GAME_ERRLEN, "unknown playout mode %d", mode);
        return NULL;
    }
    game_playouts *p = calloc(1, sizeof *p);
    if (!p) {
        errbuf_set(err, GAME_ERRLEN, "out of memory");
        return NULL;
    }
    p->ops = ops;
    if (ops) {
        if (!(p->s = ops->create(game_rules(g), batch, kernel, mode, seed, err))) {
            free(p);
            return NULL;
        }
        return p;
    }
    if (strcmp(kernel, "auto") && strcmp(kernel, "scalar")) {
        errbuf_set(err, GAME_ERRLEN, "kernel %s: %s has only the scalar stepper of the game interface", kernel,
                   game_name(g));
        free(p);
        return NULL;
    }
    if (mode != GAME_PLAYOUT_RANDOM) {
        errbuf_set(err, GAME_ERRLEN, "%s has no batched Gymnasium step (only random playouts)", game_name(g));
        free(p);
        return NULL;
    }
    if (!(p->s = scalar_create(g, batch, seed))) {
        errbuf_set(err, GAME_ERRLEN, "out of memory");
        free(p);
        return NULL;
    }
    return p;
}

void game_playouts_run(game_playouts *p, long steps)
{
    if (p->ops)
        p->ops->run(p->s, steps);
    else
        scalar_run(p->s, steps);
}

void game_playouts_stats(const game_playouts *p, game_playout_stats *out)
{
    if (p->ops)
        p->ops->stats(p->s, out);
    else
        *out = ((const scalar_stepper *)p->s)->st;
}

const char *game_playouts_kernel(const game_playouts *p) { return p->ops ? p->ops->kernel(p->s) : "scalar"; }

void game_playouts_free(game_playouts *p)
{
    if (!p)
        return;
    if (p->ops) {
        p->ops->free(p->s);
    } else if (p->s) {
        scalar_stepper *s = p->s;
        free(s->pos);
        free(s->rng);
        free(s);
    }
    free(p);
}
