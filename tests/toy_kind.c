/* toy_kind.c — "toysow", a test's own sowing game registered at run time (game_kind_register): two
 * players, m pits each and a store, Kalah's board and sowing without captures or extra turns; it ends when
 * the player to move has no seeds, each row then going to its own store; the larger store wins. Small
 * enough to check by hand. Linked into test_game_register, and built alone as a module that the Python
 * suite loads beside the extension, whose game_kind_register it calls (python/tests/test_registered_kind.py).
 * It calls no sowzero function but game_kind_find and game_kind_register, which the module resolves
 * against the loaded extension. */
#include "tests/toy_kind.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int pits, seeds;
} toy_rules;

static int toy_rules_parse(const char *spec, void *out, char *err)
{
    toy_rules *r = out;
    r->pits = 3;
    r->seeds = 2;
    const char *s = strchr(spec, ':');
    while (s && *s && *++s) { /* s is at ':' or ',' before each key, at the NUL after the last */
        int v, used = 0;
        if (sscanf(s, "pits=%d%n", &v, &used) == 1 && used && v >= 2 && v <= 6)
            r->pits = v;
        else if (sscanf(s, "seeds=%d%n", &v, &used) == 1 && used && v >= 1 && v <= 4)
            r->seeds = v;
        else {
            snprintf(err, GAME_ERRLEN, "toysow: bad key or value at '%s'", s);
            return GAME_EINVAL;
        }
        s += used;
        if (*s && *s != ',') {
            snprintf(err, GAME_ERRLEN, "toysow: bad key or value at '%s'", s);
            return GAME_EINVAL;
        }
    }
    return GAME_OK;
}

static void toy_rules_format(const void *r, char *buf, size_t n)
{
    const toy_rules *t = r;
    snprintf(buf, n, "toysow:pits=%d,seeds=%d", t->pits, t->seeds);
}

static int toy_players(const void *r) { (void)r; return 2; }
static int toy_moves(const void *r) { return ((const toy_rules *)r)->pits; }
static int toy_seeds(const void *r) { const toy_rules *t = r; return 2 * t->pits * t->seeds; }
static int toy_store(const toy_rules *t, int q) { return q * (t->pits + 1) + t->pits; }

static void toy_start(const void *r, game_pos *out)
{
    const toy_rules *t = r;
    memset(out, 0, sizeof *out);
    for (int q = 0; q < 2; q++)
        for (int k = 0; k < t->pits; k++)
            out->cell[q * (t->pits + 1) + k] = (uint8_t)t->seeds;
}

static unsigned toy_legal(const void *r, const game_pos *p)
{
    const toy_rules *t = r;
    unsigned m = 0;
    for (int k = 0; !p->over && k < t->pits; k++)
        if (p->cell[p->to_move * (t->pits + 1) + k])
            m |= 1u << k;
    return m;
}

static int toy_apply(const void *r, game_pos *p, int move, game_step *ev)
{
    const toy_rules *t = r;
    if (p->over)
        return GAME_EOVER;
    if (move < 0 || move >= t->pits || !(toy_legal(r, p) & (1u << move)))
        return GAME_EILLEGAL;
    const int cells = 2 * (t->pits + 1), me = p->to_move;
    int i = me * (t->pits + 1) + move, hand = p->cell[i];
    p->cell[i] = 0;
    while (hand) {
        i = (i + 1) % cells;
        if (i == toy_store(t, !me))
            continue;
        p->cell[i]++;
        hand--;
    }
    if (ev)
        *ev = (game_step){.last = (uint8_t)i};
    p->to_move = (uint8_t)!me;
    p->ply++;
    if (!toy_legal(r, p)) {
        for (int q = 0; q < 2; q++)
            for (int k = 0; k < t->pits; k++) {
                p->cell[toy_store(t, q)] += p->cell[q * (t->pits + 1) + k];
                p->cell[q * (t->pits + 1) + k] = 0;
            }
        p->over = 1;
        if (ev)
            ev->over = 1;
    }
    return GAME_OK;
}

static int toy_margin(const void *r, const game_pos *p)
{
    return p->cell[toy_store(r, 0)] - p->cell[toy_store(r, 1)];
}

static void toy_values(const void *r, const game_pos *p, double *v)
{
    int d = toy_margin(r, p);
    v[0] = p->over ? (d > 0) - (d < 0) : 0;
    v[1] = -v[0];
}

static int toy_board_seeds(const void *r, const game_pos *p)
{
    int n = 0;
    for (int i = 0; i < 2 * (((const toy_rules *)r)->pits + 1); i++)
        n += p->cell[i];
    return n;
}

static int toy_encode_dim(const void *r) { return 2 * ((const toy_rules *)r)->pits + 2; }

/* The mover's pits, the other's pits, the mover's store, the other's: counts / seeds per pit. */
static void toy_encode(const void *r, const game_pos *p, float *out)
{
    const toy_rules *t = r;
    const int me = p->to_move, m = t->pits;
    for (int k = 0; k < m; k++) {
        out[k] = p->cell[me * (m + 1) + k] / (float)t->seeds;
        out[m + k] = p->cell[!me * (m + 1) + k] / (float)t->seeds;
    }
    out[2 * m] = p->cell[toy_store(t, me)] / (float)t->seeds;
    out[2 * m + 1] = p->cell[toy_store(t, !me)] / (float)t->seeds;
}

static int toy_value_dim(const void *r) { (void)r; return 1; }

/* "c0,c1,...,c(2m+1) S|N": every cell in index order, then the player to move (toy_pos_format's text). */
static int toy_pos_parse(const void *r, const char *s, game_pos *out, char *err)
{
    const toy_rules *t = r;
    const int cells = 2 * (t->pits + 1);
    memset(out, 0, sizeof *out);
    int total = 0;
    for (int i = 0; i < cells; i++) {
        int v, used = 0;
        if (sscanf(s, i ? ",%d%n" : "%d%n", &v, &used) != 1 || v < 0 || v > 255) {
            snprintf(err, GAME_ERRLEN, "toysow position: cell %d is missing or not 0..255 at '%s'", i, s);
            return GAME_EINVAL;
        }
        out->cell[i] = (uint8_t)v;
        total += v;
        s += used;
    }
    if ((s[0] != ' ' || (s[1] != 'S' && s[1] != 'N') || s[2]) || total != 2 * t->pits * t->seeds) {
        snprintf(err, GAME_ERRLEN, "toysow position: want %d cells summing to %d, then ' S' or ' N'", cells,
                 2 * t->pits * t->seeds);
        return GAME_EINVAL;
    }
    out->to_move = s[1] == 'N';
    if (!toy_legal(r, out)) { /* the mover has no seeds: the game ended with that move */
        snprintf(err, GAME_ERRLEN, "toysow position: the player to move has no seeds (a finished game)");
        return GAME_EINVAL;
    }
    return GAME_OK;
}

static void toy_pos_format(const void *r, const game_pos *p, char *buf, size_t n)
{
    size_t o = 0;
    for (int i = 0; i < 2 * (((const toy_rules *)r)->pits + 1) && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%d", i ? "," : "", p->cell[i]);
    if (o < n)
        snprintf(buf + o, n - o, " %c", p->to_move ? 'N' : 'S');
}

static void toy_layout(const void *r, game_layout *out)
{
    const toy_rules *t = r;
    *out = (game_layout){.rows = 2, .pits = t->pits, .seeds_per_pit = t->seeds,
                         .flags = GAME_SOW_SKIPS_OPPONENT_STORES | GAME_END_SWEEP | GAME_ENCODE_SEED_COUNTS};
}

static const char *const toy_keys[] = {"pits", "seeds", NULL};
static const char *const toy_examples[] = {"toysow", "toysow:pits=2,seeds=1", NULL};

const game_kind toy_kind = {
    .name = "toysow",
    .summary = "a test's own sowing game: Kalah's board without captures or extra turns",
    .rules_size = sizeof(toy_rules),
    .rule_keys = toy_keys,
    .examples = toy_examples,
    .rules_parse = toy_rules_parse,
    .rules_format = toy_rules_format,
    .players = toy_players,
    .moves = toy_moves,
    .seeds = toy_seeds,
    .start = toy_start,
    .legal = toy_legal,
    .apply = toy_apply,
    .values = toy_values,
    .margin = toy_margin,
    .board_seeds = toy_board_seeds,
    .encode_dim = toy_encode_dim,
    .encode = toy_encode,
    .encoding_name = "toysow-mover-v1",
    .value_dim = toy_value_dim,
    .pos_parse = toy_pos_parse,
    .pos_format = toy_pos_format,
    .layout = toy_layout,
};

/* The same game without a layout: it plays everywhere but has no board drawing and no uint8 form. */
static game_kind toy_plain;

int toy_kind_register(char *err)
{
    if (game_kind_find("toysow") == &toy_kind)
        return GAME_OK;
    toy_plain = toy_kind;
    toy_plain.name = "toysow-plain";
    toy_plain.layout = NULL;
    int rc = game_kind_register(&toy_kind, err);
    return rc != GAME_OK ? rc : game_kind_register(&toy_plain, err);
}
