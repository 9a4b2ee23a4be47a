/* game_oware.c — Oware, Abapa rules (env/oware.h, docs/design.md §1.4) as a game kind of the game interface
 * (env/game.h). game_pos layout: env/game_twoside.h (the store cells hold the captured seeds). */
#include "env/game_twoside.h"
#include "env/oware.h"

_Static_assert(sizeof(oware_rules) <= GAME_RULES_MAX, "oware_rules fits a game");

static int o_rules_parse(const char *spec, void *r, char *err) { return oware_rules_parse(spec, r, err); }
static void o_rules_format(const void *r, char *buf, size_t n) { oware_rules_format(r, buf, n); }
static int o_players(const void *r) { (void)r; return 2; }
static int o_moves(const void *r) { return ((const oware_rules *)r)->pits; }
static int o_seeds(const void *r) { const oware_rules *o = r; return 2 * o->pits * o->seeds; }

static void o_start(const void *r, game_pos *out)
{
    kalah_pos k;
    oware_start(r, &k);
    gt_from_kalah(&k, out);
}

static unsigned o_legal(const void *r, const game_pos *p)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    return oware_legal(r, &k);
}

static int o_apply(const void *r, game_pos *p, int move, game_step *ev)
{
    kalah_pos k;
    oware_step st;
    gt_to_kalah(p, &k);
    int rc = oware_play(r, &k, move, ev ? &st : NULL); /* the solver passes no ev: skip filling st */
    if (rc != KALAH_OK)
        return rc;
    gt_update_from_kalah(&k, p);
    if (ev)
        *ev = (game_step){.captured = st.captured, .over = st.over, .last = st.last};
    return GAME_OK;
}

static int o_score(const void *r, const game_pos *p, int player) { return gt_score(o_moves(r), p, player); }
static void o_solve_props(const void *r, game_solve_props *out)
{
    gt_solve_props(o_moves(r), ((const oware_rules *)r)->max_sows, 0, out); /* the majority end reads captures */
    out->flags |= GAME_SOLVE_CAN_REPEAT; /* sowing round the board without a capture can repeat a position */
}

static int o_margin(const void *r, const game_pos *p) { return gt_margin(o_moves(r), p); }
static void o_values(const void *r, const game_pos *p, double *v) { gt_values(o_margin(r, p), v); }
static void o_estimate(const void *r, const game_pos *p, double *v) { gt_estimate(o_margin(r, p), o_seeds(r), v); }

static int o_board_seeds(const void *r, const game_pos *p)
{
    int t = 0;
    for (int i = 0; i < 2 * o_moves(r) + 2; i++)
        t += p->cell[i];
    return t;
}

static int o_encode_dim(const void *r) { return oware_encode_dim(r); }
static int o_value_dim(const void *r) { (void)r; return 1; }

static void o_encode(const void *r, const game_pos *p, float *out)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    oware_encode(r, &k, out);
}

static int o_pos_parse(const void *r, const char *s, game_pos *out, char *err)
{
    kalah_pos k;
    if (oware_pos_parse(s, r, &k, err) != KALAH_OK)
        return GAME_EINVAL;
    gt_from_kalah(&k, out);
    return GAME_OK;
}

static void o_pos_format(const void *r, const game_pos *p, char *buf, size_t n)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    oware_pos_format(r, &k, buf, n);
}

static int o_move_parse(const void *r, const game_pos *p, const char *s, char *err)
{
    return gt_move_parse(o_moves(r), p, s, err);
}

static void o_move_format(const void *r, const game_pos *p, int move, char *buf, size_t n)
{
    (void)r;
    gt_move_format(p, move, buf, n);
}

static const char *const o_keys[] = {"pits", "seeds", "grand_slam", "max_sows", NULL};

static const char *const o_examples[] = {
    "oware", "oware:pits=4,seeds=3,grand_slam=capture", "oware:pits=2,seeds=1,max_sows=20",
    "oware:pits=6,seeds=8,max_sows=120", "oware:pits=3,seeds=2,grand_slam=capture,max_sows=30", NULL};

/* Stores only hold captures; laps pass the emptied pit; captures run backwards over 2s and 3s (docs/design.md
 * §1.4). */
static void o_layout(const void *r, game_layout *out)
{
    const oware_rules *o = r;
    *out = (game_layout){.rows = 2, .pits = o->pits, .seeds_per_pit = o->seeds,
                         .flags = GAME_SOW_SKIPS_STORES | GAME_SOW_SKIPS_ORIGIN | GAME_CAPTURE_BACKWARD |
                                  GAME_END_UNSHOWN | GAME_ENCODE_SEED_COUNTS};
}

const game_kind game_kind_oware = {
    .name = "oware",
    .summary = "Oware (Abapa): captures of 2 or 3, must feed, grand slam rule (docs/design.md §1.4)",
    .rules_size = sizeof(oware_rules),
    .examples = o_examples,
    .rule_keys = o_keys,
    .rules_parse = o_rules_parse,
    .rules_format = o_rules_format,
    .players = o_players,
    .moves = o_moves,
    .seeds = o_seeds,
    .start = o_start,
    .legal = o_legal,
    .apply = o_apply,
    .values = o_values,
    .margin = o_margin,
    .board_seeds = o_board_seeds,
    .encode_dim = o_encode_dim,
    .encode = o_encode,
    .encoding_name = OWARE_ENCODING_NAME,
    .value_dim = o_value_dim,
    .pos_parse = o_pos_parse,
    .pos_format = o_pos_format,
    .move_parse = o_move_parse,
    .move_format = o_move_format,
    .estimate = o_estimate,
    .score = o_score,
    .solve_props = o_solve_props,
    .seat_names = gt_seat_names,
    .layout = o_layout,
};
