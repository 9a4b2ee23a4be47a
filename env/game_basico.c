/* game_basico.c — Mancala básico (env/basico.h, docs/design.md §1.2) as a game kind of the game interface.
 *
 * game_pos layout: cell[0..31] is basico_pos.cell; to_move, over as there; extra[0] = active (bit per
 * player still in the circuit), extra[1] = n_left, extra[2..5] = left[], extra[6..9] = resigned[],
 * extra[10..13] = place[] (basico.h). ply counts sowings (resignations are not plies). Values are
 * 2·basico_rank_score − 1 per player (first +1, last −1). */
#include "env/basico.h"
#include "env/errbuf.h"
#include "env/game.h"

#include <string.h>

#define set_err(err, ...) errbuf_set(err, GAME_ERRLEN, __VA_ARGS__)

_Static_assert(BASICO_CELLS <= GAME_MAX_CELLS && BASICO_MAX_PITS <= GAME_MAX_MOVES &&
                   BASICO_MAX_PLAYERS <= GAME_MAX_PLAYERS && 2 + 3 * BASICO_MAX_PLAYERS <= GAME_EXTRA,
               "básico fits game_pos");
_Static_assert(sizeof(basico_rules) <= GAME_RULES_MAX, "basico_rules fits a game");
_Static_assert((int)BASICO_OK == (int)GAME_OK && (int)BASICO_EINVAL == (int)GAME_EINVAL &&
                   (int)BASICO_EILLEGAL == (int)GAME_EILLEGAL && (int)BASICO_EOVER == (int)GAME_EOVER,
               "the codes are the interface's");

enum {
    X_ACTIVE = 0,
    X_NLEFT = 1,
    X_LEFT = 2,
    X_RESIGNED = 2 + BASICO_MAX_PLAYERS,
    X_PLACE = 2 + 2 * BASICO_MAX_PLAYERS
};

static void to_basico(const game_pos *g, basico_pos *b)
{
    memcpy(b->cell, g->cell, BASICO_CELLS);
    b->to_move = g->to_move;
    b->over = g->over;
    b->active = g->extra[X_ACTIVE];
    b->n_left = g->extra[X_NLEFT];
    memcpy(b->left, g->extra + X_LEFT, BASICO_MAX_PLAYERS);
    memcpy(b->resigned, g->extra + X_RESIGNED, BASICO_MAX_PLAYERS);
    memcpy(b->place, g->extra + X_PLACE, BASICO_MAX_PLAYERS);
}

static void from_basico(const basico_pos *b, uint16_t ply, game_pos *g)
{
    memset(g, 0, sizeof *g);
    memcpy(g->cell, b->cell, BASICO_CELLS);
    g->to_move = b->to_move;
    g->over = b->over;
    g->ply = ply;
    g->extra[X_ACTIVE] = b->active;
    g->extra[X_NLEFT] = b->n_left;
    memcpy(g->extra + X_LEFT, b->left, BASICO_MAX_PLAYERS);
    memcpy(g->extra + X_RESIGNED, b->resigned, BASICO_MAX_PLAYERS);
    memcpy(g->extra + X_PLACE, b->place, BASICO_MAX_PLAYERS);
}

static int b_rules_parse(const char *spec, void *r, char *err) { return basico_rules_parse(spec, r, err); }
static void b_rules_format(const void *r, char *buf, size_t n) { basico_rules_format(r, buf, n); }
static int b_players(const void *r) { return ((const basico_rules *)r)->players; }
static int b_moves(const void *r) { return ((const basico_rules *)r)->pits; }
static int b_seeds(const void *r) { const basico_rules *b = r; return b->players * b->pits * b->seeds; }

static void b_start(const void *r, game_pos *out)
{
    basico_pos b;
    basico_start(r, &b);
    from_basico(&b, 0, out);
}

static unsigned b_legal(const void *r, const game_pos *p)
{
    basico_pos b;
    to_basico(p, &b);
    return basico_legal(r, &b);
}

static int b_apply(const void *r, game_pos *p, int move, game_step *ev)
{
    basico_pos b;
    basico_step st;
    to_basico(p, &b);
    int rc = basico_play(r, &b, move, &st);
    if (rc != BASICO_OK)
        return rc;
    from_basico(&b, (uint16_t)(p->ply + 1), p);
    if (ev)
        *ev = (game_step){.extra_turn = st.extra_turn, .finished = st.finished, .over = st.over, .last = st.last};
    return GAME_OK;
}

static int b_resign(const void *r, game_pos *p)
{
    basico_pos b;
    to_basico(p, &b);
    int rc = basico_resign(r, &b);
    if (rc == BASICO_OK)
        from_basico(&b, p->ply, p);
    return rc;
}

static void b_values(const void *r, const game_pos *p, double *v)
{
    basico_pos b;
    to_basico(p, &b);
    for (int q = 0; q < b_players(r); q++)
        v[q] = 2.0 * basico_rank_score(r, &b, q) - 1.0;
}

static void b_estimate(const void *r, const game_pos *p, double *v)
{
    basico_pos b;
    to_basico(p, &b);
    basico_estimate(r, &b, v);
    for (int q = 0; q < b_players(r); q++)
        v[q] = 2.0 * v[q] - 1.0;
}

static int b_decided(const void *r, const game_pos *p, int player, double *v)
{
    if (!p->extra[X_PLACE + player])
        return 0;
    basico_pos b;
    to_basico(p, &b);
    *v = 2.0 * basico_rank_score(r, &b, player) - 1.0;
    return 1;
}

/* A game stopped by a ply cap is scored as if the first-finisher rule ended it there: the places already
 * given stay, the players still in play are ranked by fewest stones left in their pits, equal counts
 * sharing the best of their places (moved here from selfplay/basico_selfplay.c). */
static void b_stopped(const void *r, const game_pos *gp, double *out)
{
    const basico_rules *br = r;
    basico_pos b, *p = &b;
    to_basico(gp, &b);
    int finished = 0;
    for (int i = 0; i < p->n_left; i++)
        finished += !p->resigned[i];
    for (int q = 0; q < br->players; q++) {
        int place = p->place[q];
        if (!place) {
            int better = 0, mine = basico_pit_stones(br, p, q);
            for (int o = 0; o < br->players; o++)
                if (!p->place[o] && basico_pit_stones(br, p, o) < mine)
                    better++;
            place = finished + 1 + better;
        }
        out[q] = 2.0 * (double)(br->players - place) / (double)(br->players - 1) - 1.0;
    }
}

static unsigned b_greedy(const void *r, const game_pos *p)
{
    basico_pos b;
    to_basico(p, &b);
    int m = basico_greedy_move(r, &b);
    return m < 0 ? 0 : 1u << m;
}

static int b_board_seeds(const void *r, const game_pos *p)
{
    int t = 0;
    for (int i = 0; i < basico_cells(r); i++)
        t += p->cell[i];
    return t;
}

static int b_encode_dim(const void *r) { return basico_encode_dim(r); }
static int b_value_dim(const void *r) { return b_players(r); }

static void b_encode(const void *r, const game_pos *p, float *out)
{
    basico_pos b;
    to_basico(p, &b);
    basico_encode(r, &b, out);
}

static int b_pos_parse(const void *r, const char *s, game_pos *out, char *err)
{
    basico_pos b;
    if (basico_pos_parse(s, r, &b, err) != BASICO_OK)
        return GAME_EINVAL;
    from_basico(&b, 0, out);
    return GAME_OK;
}

static void b_pos_format(const void *r, const game_pos *p, char *buf, size_t n)
{
    basico_pos b;
    to_basico(p, &b);
    basico_pos_format(r, &b, buf, n);
}

static const char *const b_keys[] = {"players", "pits", "seeds", "full_ranking", NULL};

static const char *const b_examples[] = {
    "basico", "basico:players=2,pits=7", "basico:players=2,pits=6,seeds=3,full_ranking=0",
    "basico:players=4,pits=4,seeds=3", "basico:players=4,pits=6,seeds=4,full_ranking=0", NULL};

/* A ring of the players' rows, sown through every live row's pits and stores (docs/design.md §1.2). */
static void b_layout(const void *r, game_layout *out)
{
    const basico_rules *b = r;
    *out = (game_layout){.rows = b->players, .pits = b->pits, .seeds_per_pit = b->seeds,
                         .flags = GAME_SOW_SKIPS_LEFT_ROWS | GAME_DRAW_RING};
}

static int b_in_play(const void *r, const game_pos *p, int seat)
{
    (void)r;
    return p->extra[X_ACTIVE] >> seat & 1u;
}

/* basico_encode's rows: the pits' counts / seeds, the in-circuit flag, the rank score in steps of
 * 1 / (players - 1). */
static int b_encode_form(const void *r, float *scale, int *high)
{
    const basico_rules *b = r;
    const int w = b->pits + 2, d = basico_encode_dim(b), all = b_seeds(r);
    for (int j = 0; j < d; j++) {
        const int e = j % w;
        scale[j] = e < b->pits ? 1.0f / (float)b->seeds : e == b->pits ? 1.0f : 1.0f / (float)(b->players - 1);
        high[j] = e < b->pits ? all : e == b->pits ? 1 : b->players - 1;
    }
    return 0;
}

const game_kind game_kind_basico = {
    .name = "basico",
    .summary = "Mancala basico: 2-4 players, the race to empty one's pits (docs/design.md §1.2)",
    .rules_size = sizeof(basico_rules),
    .examples = b_examples,
    .rule_keys = b_keys,
    .rules_parse = b_rules_parse,
    .rules_format = b_rules_format,
    .players = b_players,
    .moves = b_moves,
    .seeds = b_seeds,
    .start = b_start,
    .legal = b_legal,
    .apply = b_apply,
    .values = b_values,
    .board_seeds = b_board_seeds,
    .encode_dim = b_encode_dim,
    .encode = b_encode,
    .encoding_name = BASICO_ENCODING_NAME,
    .value_dim = b_value_dim,
    .pos_parse = b_pos_parse,
    .pos_format = b_pos_format,
    .resign = b_resign,
    .estimate = b_estimate,
    .greedy = b_greedy,
    .decided = b_decided,
    .stopped = b_stopped,
    .layout = b_layout,
    .in_play = b_in_play,
    .encode_form = b_encode_form,
};
