/* game_congklak.c — Congklak (env/congklak.h, docs/design.md §1.3) as a game kind of the game interface
 * (env/game.h). game_pos layout: env/game_twoside.h. The move's event reports `relays` (pick-ups by
 * relay, saturated at 255 by game_step's byte; congklak_step has the full count). */
#include "env/congklak.h"
#include "env/game_twoside.h"

_Static_assert(sizeof(congklak_rules) <= GAME_RULES_MAX, "congklak_rules fits a game");

static int c_rules_parse(const char *spec, void *r, char *err) { return congklak_rules_parse(spec, r, err); }
static void c_rules_format(const void *r, char *buf, size_t n) { congklak_rules_format(r, buf, n); }
static int c_players(const void *r) { (void)r; return 2; }
static int c_moves(const void *r) { return ((const congklak_rules *)r)->pits; }
static int c_seeds(const void *r) { const congklak_rules *c = r; return 2 * c->pits * c->seeds; }
static int c_pits(const void *r) { return ((const congklak_rules *)r)->pits; }

static void c_start(const void *r, game_pos *out)
{
    kalah_pos k;
    congklak_start(r, &k);
    gt_from_kalah(&k, out);
}

static unsigned c_legal(const void *r, const game_pos *p)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    return congklak_legal(r, &k);
}

static int c_apply(const void *r, game_pos *p, int move, game_step *ev)
{
    kalah_pos k;
    congklak_step st;
    gt_to_kalah(p, &k);
    int rc = congklak_play(r, &k, move, ev ? &st : NULL); /* the solver passes no ev: skip filling st */
    if (rc != KALAH_OK)
        return rc == CONGKLAK_ELOOP ? GAME_EINVAL : rc;
    gt_update_from_kalah(&k, p);
    if (ev)
        *ev = (game_step){.extra_turn = st.extra_turn, .captured = st.captured,
                          .relays = (uint8_t)(st.relays > 255 ? 255 : st.relays), .over = st.over, .last = st.last};
    return GAME_OK;
}

static int c_score(const void *r, const game_pos *p, int player) { return gt_score(c_pits(r), p, player); }
static void c_solve_props(const void *r, game_solve_props *out)
{
    gt_solve_props(c_pits(r), ((const congklak_rules *)r)->max_sows, 1, out); /* relays never read a store */
}

static int c_margin(const void *r, const game_pos *p) { return gt_margin(c_pits(r), p); }
static void c_values(const void *r, const game_pos *p, double *v) { gt_values(c_margin(r, p), v); }
static void c_estimate(const void *r, const game_pos *p, double *v) { gt_estimate(c_margin(r, p), c_seeds(r), v); }

static int c_board_seeds(const void *r, const game_pos *p)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    return kalah_total(r, &k);
}

static int c_encode_dim(const void *r) { return congklak_encode_dim(r); }
static int c_value_dim(const void *r) { (void)r; return 1; }

static void c_encode(const void *r, const game_pos *p, float *out)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    congklak_encode(r, &k, out);
}

static int c_pos_parse(const void *r, const char *s, game_pos *out, char *err)
{
    kalah_pos k;
    if (congklak_pos_parse(s, r, &k, err) != KALAH_OK)
        return GAME_EINVAL;
    gt_from_kalah(&k, out);
    return GAME_OK;
}

static void c_pos_format(const void *r, const game_pos *p, char *buf, size_t n)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    congklak_pos_format(r, &k, buf, n);
}

static int c_move_parse(const void *r, const game_pos *p, const char *s, char *err)
{
    return gt_move_parse(c_pits(r), p, s, err);
}

static void c_move_format(const void *r, const game_pos *p, int move, char *buf, size_t n)
{
    (void)r;
    gt_move_format(p, move, buf, n);
}

static const char *const c_keys[] = {"pits", "seeds", "capture", "end", "max_sows", NULL};

static const char *const c_examples[] = {
    "congklak", "congklak:pits=4,seeds=3", "congklak:pits=3,seeds=2,capture=always,end=mover-empty",
    "congklak:pits=5,seeds=5,capture=none,max_sows=40", "congklak:pits=1,seeds=1", "congklak:pits=7,seeds=18",
    NULL};

/* Kalah's board with relay sowing (docs/design.md §1.3). */
static void c_layout(const void *r, game_layout *out)
{
    const congklak_rules *k = r;
    *out = (game_layout){.rows = 2, .pits = k->pits, .seeds_per_pit = k->seeds,
                         .flags = GAME_SOW_SKIPS_OPPONENT_STORES | GAME_SOW_RELAY | GAME_CAPTURE_OPPOSITE |
                                  GAME_END_SWEEP | GAME_ENCODE_SEED_COUNTS};
}

const game_kind game_kind_congklak = {
    .name = "congklak",
    .summary = "Congklak: Kalah's board with relay sowing (docs/design.md §1.3)",
    .rules_size = sizeof(congklak_rules),
    .examples = c_examples,
    .rule_keys = c_keys,
    .rules_parse = c_rules_parse,
    .rules_format = c_rules_format,
    .players = c_players,
    .moves = c_moves,
    .seeds = c_seeds,
    .start = c_start,
    .legal = c_legal,
    .apply = c_apply,
    .values = c_values,
    .margin = c_margin,
    .board_seeds = c_board_seeds,
    .encode_dim = c_encode_dim,
    .encode = c_encode,
    .encoding_name = CONGKLAK_ENCODING_NAME,
    .value_dim = c_value_dim,
    .pos_parse = c_pos_parse,
    .pos_format = c_pos_format,
    .move_parse = c_move_parse,
    .move_format = c_move_format,
    .estimate = c_estimate,
    .score = c_score,
    .solve_props = c_solve_props,
    .seat_names = gt_seat_names,
    .layout = c_layout,
};
