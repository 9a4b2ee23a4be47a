/* game_kalah.c — Kalah (env/kalah.h, docs/design.md §1.1) as a game kind of the game interface (env/game.h).
 *
 * game_pos layout: cell[0..15] is kalah_pos.cell (South pits 0..m-1, South store m, North pits m+1..2m,
 * North store 2m+1), to_move the side (0 South, 1 North), ply kalah_pos.sows; extra[] unused. Kalah's fast
 * paths plug in through the kind's hooks (playouts: the SIMD stepper; greedy) and the adapters of its
 * alpha-beta, solver and endgame database (eval/game_agent_kalah.c, game_search_kalah.c, tbase.h). */
#include "env/errbuf.h"
#include "env/game.h"
#include "env/game_twoside.h"
#include "env/kalah.h"
#include "env/vecenv_playouts.h"

#include <limits.h>
#include <string.h>

#define set_err(err, ...) errbuf_set(err, GAME_ERRLEN, __VA_ARGS__)

_Static_assert(sizeof(kalah_rules) <= GAME_RULES_MAX, "kalah_rules fits a game");
_Static_assert((int)KALAH_OK == (int)GAME_OK && (int)KALAH_EINVAL == (int)GAME_EINVAL &&
                   (int)KALAH_EILLEGAL == (int)GAME_EILLEGAL && (int)KALAH_EOVER == (int)GAME_EOVER,
               "the codes are the interface's");

static int k_rules_parse(const char *spec, void *r, char *err) { return kalah_rules_parse(spec, r, err); }
static void k_rules_format(const void *r, char *buf, size_t n) { kalah_rules_format(r, buf, n); }
static int k_players(const void *r) { (void)r; return 2; }
static int k_moves(const void *r) { return ((const kalah_rules *)r)->pits; }
static int k_seeds(const void *r) { const kalah_rules *k = r; return 2 * k->pits * k->seeds; }

static void k_start(const void *r, game_pos *out)
{
    kalah_pos k;
    kalah_start(r, &k);
    gt_from_kalah(&k, out);
}

static unsigned k_legal(const void *r, const game_pos *p)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    return kalah_legal(r, &k);
}

static int k_apply(const void *r, game_pos *p, int move, game_step *ev)
{
    kalah_pos k;
    kalah_step st;
    gt_to_kalah(p, &k);
    int rc = kalah_play(r, &k, move, ev ? &st : NULL); /* the solver passes no ev: skip filling st */
    if (rc != KALAH_OK)
        return rc;
    gt_update_from_kalah(&k, p);
    if (ev)
        *ev = (game_step){.extra_turn = st.extra_turn, .captured = st.captured, .over = st.over, .last = st.last};
    return GAME_OK;
}

static int k_margin(const void *r, const game_pos *p)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    return kalah_margin(r, &k);
}

static void k_solve_props(const void *r, game_solve_props *out)
{
    gt_solve_props(k_moves(r), ((const kalah_rules *)r)->max_sows, 1, out); /* sowing never reads a store */
}

static int k_score(const void *r, const game_pos *p, int player)
{
    return p->cell[kalah_store(r, player)];
}

static void k_values(const void *r, const game_pos *p, double *v)
{
    int m = k_margin(r, p);
    v[0] = (m > 0) - (m < 0);
    v[1] = -v[0];
}

/* A game stopped unfinished (self-play's max_moves) is scored as if it ended there: each side sweeps its own
 * pits into its store, the end rule of docs/design.md §1.1. */
static void k_stopped(const void *r, const game_pos *p, double *v)
{
    const int m = ((const kalah_rules *)r)->pits;
    int d = 0;
    for (int i = 0; i <= m; i++)
        d += p->cell[i] - p->cell[m + 1 + i];
    v[0] = (d > 0) - (d < 0);
    v[1] = -v[0];
}

/* The store difference (docs/design.md §3.5), scaled into (-1, 1) so that a finished game outranks it. */
static void k_estimate(const void *r, const game_pos *p, double *v)
{
    v[0] = k_margin(r, p) / (double)(k_seeds(r) + 1);
    v[1] = -v[0];
}

static int k_board_seeds(const void *r, const game_pos *p)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    return kalah_total(r, &k);
}

static int k_encode_dim(const void *r) { return kalah_encode_dim(r); }
static int k_value_dim(const void *r) { (void)r; return 1; }

static void k_encode(const void *r, const game_pos *p, float *out)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    kalah_encode(r, &k, out);
}

static int k_pos_parse(const void *r, const char *s, game_pos *out, char *err)
{
    kalah_pos k;
    int pits;
    int rc = kalah_pos_parse(s, r, &k, &pits, err);
    if (rc != KALAH_OK)
        return GAME_EINVAL;
    gt_from_kalah(&k, out);
    return GAME_OK;
}

static void k_pos_format(const void *r, const game_pos *p, char *buf, size_t n)
{
    kalah_pos k;
    gt_to_kalah(p, &k);
    kalah_pos_format(r, &k, buf, n);
}

static int k_move_parse(const void *r, const game_pos *p, const char *s, char *err)
{
    const kalah_rules *k = r;
    int m = kalah_move_parse(k, p->to_move, s, 0);
    if (m == KALAH_EILLEGAL)
        set_err(err, "move '%s' is a pit of %s, but %s is to move", s, p->to_move ? "South" : "North",
                p->to_move ? "North" : "South");
    else if (m < 0)
        set_err(err, "'%s' is not a move of this board (pits a..%c for South, A..%c for North)", s ? s : "",
                'a' + k->pits - 1, 'A' + k->pits - 1);
    return m;
}

static void k_move_format(const void *r, const game_pos *p, int move, char *buf, size_t n)
{
    (void)r;
    if (n >= 2) {
        buf[0] = kalah_move_letter(p->to_move, move);
        buf[1] = 0;
    }
}

/* The greedy baseline: the moves whose turn ends with the best store margin for the mover, every chain of
 * extra turns followed to its end (a turn that ends the game counts the sweep). A turn's chains can grow
 * exponentially, so past GREEDY_BUDGET sowings a chain is scored where it stands. */
#define GREEDY_BUDGET 200000L

static int turn_margin(const kalah_rules *r, const kalah_pos *p, int side, long *budget)
{
    if (p->over || p->side != side || *budget <= 0) {
        const int m = kalah_margin(r, p);
        return side ? -m : m;
    }
    int best = INT_MIN;
    for (unsigned legal = kalah_legal(r, p); legal; legal &= legal - 1) {
        kalah_pos q = *p;
        kalah_sow(r, &q, __builtin_ctz(legal), NULL);
        --*budget;
        const int v = turn_margin(r, &q, side, budget);
        if (v > best)
            best = v;
    }
    return best;
}

static unsigned k_greedy(const void *r, const game_pos *gp)
{
    kalah_pos p;
    gt_to_kalah(gp, &p);
    unsigned ties = 0;
    long budget = GREEDY_BUDGET;
    int best = INT_MIN;
    for (unsigned legal = kalah_legal(r, &p); legal; legal &= legal - 1) {
        const int k = __builtin_ctz(legal);
        kalah_pos q = p;
        kalah_sow(r, &q, k, NULL);
        budget--;
        const int v = turn_margin(r, &q, p.side, &budget);
        if (v > best) {
            best = v;
            ties = 0;
        }
        if (v == best)
            ties |= 1u << k;
    }
    return ties;
}

static const char *const k_keys[] = {"pits", "seeds", "capture", "end", "max_sows", NULL};

static const char *const k_examples[] = {
    "kalah", "kalah:pits=4,seeds=3", "kalah:pits=3,seeds=2,capture=always,end=mover-empty",
    "kalah:pits=6,seeds=4,capture=none,max_sows=40", "kalah:pits=1,seeds=1", "kalah:pits=7,seeds=18", NULL};

/* Sown counterclockwise past the opponent's store; the capture takes the pit opposite (docs/design.md
 * §1.1). */
static void k_layout(const void *r, game_layout *out)
{
    const kalah_rules *k = r;
    *out = (game_layout){.rows = 2, .pits = k->pits, .seeds_per_pit = k->seeds,
                         .flags = GAME_SOW_SKIPS_OPPONENT_STORES | GAME_CAPTURE_OPPOSITE | GAME_END_SWEEP |
                                  GAME_ENCODE_SEED_COUNTS};
}

const game_kind game_kind_kalah = {
    .name = "kalah",
    .summary = "Kalah: 2 players, stores, captures, extra turns (docs/design.md §1.1)",
    .rules_size = sizeof(kalah_rules),
    .examples = k_examples,
    .rule_keys = k_keys,
    .rules_parse = k_rules_parse,
    .rules_format = k_rules_format,
    .players = k_players,
    .moves = k_moves,
    .seeds = k_seeds,
    .start = k_start,
    .legal = k_legal,
    .apply = k_apply,
    .values = k_values,
    .margin = k_margin,
    .board_seeds = k_board_seeds,
    .encode_dim = k_encode_dim,
    .encode = k_encode,
    .encoding_name = KALAH_ENCODING_NAME,
    .value_dim = k_value_dim,
    .pos_parse = k_pos_parse,
    .pos_format = k_pos_format,
    .move_parse = k_move_parse,
    .move_format = k_move_format,
    .estimate = k_estimate,
    .greedy = k_greedy,
    .stopped = k_stopped,
    .score = k_score,
    .solve_props = k_solve_props,
    .seat_names = gt_seat_names,
    .layout = k_layout,
    .playouts = &kalah_playout_ops,
};
