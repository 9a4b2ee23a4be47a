/* game.c — the registry of game kinds and the rules-instance wrapper of the game interface (game.h). The
 * defaults for the optional entries live here, written once for every game. */
#include "env/game.h"
#include "env/errbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define set_err(err, ...) errbuf_set(err, GAME_ERRLEN, __VA_ARGS__)

static const game_kind *const builtin[] = {
#define GAME_KIND(k) &k,
#include "env/games.def"
#undef GAME_KIND
};
#define N_BUILTIN ((int)(sizeof builtin / sizeof builtin[0]))

/* The registry: the built-in kinds, then those added by game_kind_register. */
static const game_kind *kinds[N_BUILTIN + GAME_MAX_REGISTERED] = {
#define GAME_KIND(k) &k,
#include "env/games.def"
#undef GAME_KIND
};
static int n_kinds = N_BUILTIN;
#define N_KINDS n_kinds

struct game {
    const game_kind *kind;
    int players, moves, seeds, encode_dim, value_dim;
    char spec[GAME_SPEC_MAX];
    const game_endgame_db *db; /* game_set_endgame: borrowed */
    _Alignas(16) unsigned char rules[GAME_RULES_MAX];
};

int game_kind_count(void) { return N_KINDS; }

int game_kind_register(const game_kind *k, char *err)
{
    const char *missing = !k                        ? "the kind"
                          : !k->name || !*k->name   ? "name"
                          : !k->summary             ? "summary"
                          : !k->rule_keys           ? "rule_keys"
                          : !k->examples || !k->examples[0] ? "examples"
                          : !k->rules_parse         ? "rules_parse"
                          : !k->rules_format        ? "rules_format"
                          : !k->players             ? "players"
                          : !k->moves               ? "moves"
                          : !k->seeds               ? "seeds"
                          : !k->start               ? "start"
                          : !k->legal               ? "legal"
                          : !k->apply               ? "apply"
                          : !k->values              ? "values"
                          : !k->board_seeds         ? "board_seeds"
                          : !k->encode_dim          ? "encode_dim"
                          : !k->encode              ? "encode"
                          : !k->encoding_name       ? "encoding_name"
                          : !k->value_dim           ? "value_dim"
                          : !k->pos_parse           ? "pos_parse"
                          : !k->pos_format          ? "pos_format"
                                                    : NULL;
    if (missing) {
        set_err(err, "game kind '%s': the required entry %s is missing (env/game.h)",
                k && k->name ? k->name : "?", missing);
        return GAME_EINVAL;
    }
    if (k->rules_size > GAME_RULES_MAX || strchr(k->name, ':') || strchr(k->name, ',')) {
        set_err(err, "game kind '%s': %s", k->name,
                k->rules_size > GAME_RULES_MAX ? "rules struct larger than GAME_RULES_MAX"
                                               : "a name holds no ':' or ','");
        return GAME_EINVAL;
    }
    for (int i = 0; i < N_KINDS; i++)
        if (!strcmp(kinds[i]->name, k->name)) {
            set_err(err, "game kind '%s': a game of that name is already registered", k->name);
            return GAME_EINVAL;
        }
    if (n_kinds == N_BUILTIN + GAME_MAX_REGISTERED) {
        set_err(err, "game kind '%s': the registry is full (GAME_MAX_REGISTERED = %d)", k->name,
                GAME_MAX_REGISTERED);
        return GAME_EINVAL;
    }
    kinds[n_kinds++] = k;
    return GAME_OK;
}
const game_kind *game_kind_at(int i) { return i >= 0 && i < N_KINDS ? kinds[i] : NULL; }

const char *game_seat_name(const game *g, int seat, char *buf, size_t n)
{
    if (g->kind->seat_names && seat >= 0 && seat < g->players)
        snprintf(buf, n, "%s", g->kind->seat_names[seat]);
    else
        snprintf(buf, n, "player %d", seat);
    return buf;
}

char *game_kind_names(char *buf, size_t n)
{
    if (!n)
        return buf;
    buf[0] = 0;
    for (int i = 0; i < N_KINDS; i++) {
        if (i)
            strncat(buf, ", ", n - strlen(buf) - 1);
        strncat(buf, kinds[i]->name, n - strlen(buf) - 1);
    }
    return buf;
}

const game_kind *game_kind_find(const char *spec)
{
    if (!spec)
        return NULL;
    size_t n = strcspn(spec, ":");
    for (int i = 0; i < N_KINDS; i++)
        if (strlen(kinds[i]->name) == n && !strncmp(kinds[i]->name, spec, n))
            return kinds[i];
    return NULL;
}

game *game_create(const char *spec, char *err)
{
    const game_kind *k = game_kind_find(spec);
    if (!k) {
        char names[96];
        game_kind_names(names, sizeof names);
        size_t n = spec ? strcspn(spec, ":") : 0;
        set_err(err, "unknown game '%.*s' in rules '%s' (known: %s)", (int)n, spec ? spec : "", spec ? spec : "",
                names);
        return NULL;
    }
    if (k->rules_size > GAME_RULES_MAX) { /* a kind written wrong; caught by the conformance suite */
        set_err(err, "game %s: rules struct of %zu bytes exceeds GAME_RULES_MAX", k->name, k->rules_size);
        return NULL;
    }
    game *g = calloc(1, sizeof *g);
    if (!g) {
        set_err(err, "out of memory");
        return NULL;
    }
    g->kind = k;
    if (k->rules_parse(spec, g->rules, err) != GAME_OK) {
        free(g);
        return NULL;
    }
    k->rules_format(g->rules, g->spec, sizeof g->spec);
    g->players = k->players(g->rules);
    g->moves = k->moves(g->rules);
    g->seeds = k->seeds(g->rules);
    g->encode_dim = k->encode_dim(g->rules);
    g->value_dim = k->value_dim(g->rules);
    return g;
}

void game_free(game *g) { free(g); }

const game_kind *game_get_kind(const game *g) { return g->kind; }
const char *game_name(const game *g) { return g->kind->name; }
const char *game_spec(const game *g) { return g->spec; }
const void *game_rules(const game *g) { return g->rules; }
int game_players(const game *g) { return g->players; }
int game_moves(const game *g) { return g->moves; }
int game_seeds(const game *g) { return g->seeds; }
int game_encode_dim(const game *g) { return g->encode_dim; }
int game_value_dim(const game *g) { return g->value_dim; }
const char *game_encoding_name(const game *g) { return g->kind->encoding_name; }
int game_has_margin(const game *g) { return g->kind->margin != NULL; }

int game_layout_of(const game *g, game_layout *out)
{
    memset(out, 0, sizeof *out);
    if (!g->kind->layout)
        return 0;
    g->kind->layout(g->rules, out);
    return 1;
}

int game_encode_form(const game *g, float *scale, int *high)
{
    if (g->kind->encode_form)
        return g->kind->encode_form(g->rules, scale, high);
    game_layout lay;
    if (!game_layout_of(g, &lay) || !(lay.flags & GAME_ENCODE_SEED_COUNTS) || lay.seeds_per_pit <= 0)
        return -1;
    /* No move adds seeds, so one element (a cell's count) holds at most all of them. */
    game_pos start;
    game_start(g, &start);
    const int all = game_board_seeds(g, &start);
    for (int j = 0; j < g->encode_dim; j++) {
        scale[j] = 1.0f / (float)lay.seeds_per_pit;
        high[j] = all;
    }
    return 0;
}

int game_encode_count_inputs(const game *g, float *counts_per_unit)
{
    game_layout lay;
    if (!game_layout_of(g, &lay) || lay.rows * lay.pits > g->encode_dim)
        return 0;
    float *scale = malloc((size_t)g->encode_dim * sizeof *scale);
    int *high = malloc((size_t)g->encode_dim * sizeof *high), n = lay.rows * lay.pits;
    if (!scale || !high || game_encode_form(g, scale, high) != 0 || !(scale[0] > 0))
        n = 0;
    for (int j = 1; j < n; j++)
        if (scale[j] != scale[0])
            n = 0;
    /* A layout of seed counts divides by seeds_per_pit: that integer is the unit exactly (1 / (1 / 7.0f) is
     * not 7 in float). Another form's unit is the reciprocal of its scale. */
    if (n)
        *counts_per_unit = !g->kind->encode_form && lay.flags & GAME_ENCODE_SEED_COUNTS ? (float)lay.seeds_per_pit
                                                                                       : 1.0f / scale[0];
    free(scale);
    free(high);
    return n;
}

int game_in_play(const game *g, const game_pos *p, int seat)
{
    return g->kind->in_play ? g->kind->in_play(g->rules, p, seat) : 1;
}

void game_start(const game *g, game_pos *out) { g->kind->start(g->rules, out); }
unsigned game_legal(const game *g, const game_pos *p) { return g->kind->legal(g->rules, p); }

int game_apply(const game *g, game_pos *p, int move, game_step *ev)
{
    return g->kind->apply(g->rules, p, move, ev);
}

void game_apply_batch(const game *g, game_pos *pos, const int *moves, int n, game_step *ev)
{
    if (g->kind->apply_batch) {
        g->kind->apply_batch(g->rules, pos, moves, n, ev);
        return;
    }
    for (int i = 0; i < n; i++)
        g->kind->apply(g->rules, &pos[i], moves[i], ev ? &ev[i] : NULL);
}

int game_resign(const game *g, game_pos *p)
{
    if (!g->kind->resign)
        return GAME_EINVAL;
    return g->kind->resign(g->rules, p);
}

void game_values(const game *g, const game_pos *p, double *v)
{
    for (int i = 0; i < g->players; i++)
        v[i] = 0.0;
    if (p->over)
        g->kind->values(g->rules, p, v);
}

int game_score(const game *g, const game_pos *p, int player, int *out)
{
    if (!g->kind->score)
        return 0;
    *out = g->kind->score(g->rules, p, player);
    return 1;
}

int game_margin(const game *g, const game_pos *p) { return g->kind->margin ? g->kind->margin(g->rules, p) : 0; }
int game_board_seeds(const game *g, const game_pos *p) { return g->kind->board_seeds(g->rules, p); }

int game_seeds_in_pits(const game *g, const game_pos *p)
{
    int seeds = game_board_seeds(g, p), s;
    for (int q = 0; q < g->players && game_score(g, p, q, &s); q++)
        seeds -= s;
    return seeds;
}

void game_estimate(const game *g, const game_pos *p, double *v)
{
    if (p->over || !g->kind->estimate)
        game_values(g, p, v);
    else
        g->kind->estimate(g->rules, p, v);
}

void game_stopped_values(const game *g, const game_pos *p, double *v)
{
    if (!p->over && g->kind->stopped)
        g->kind->stopped(g->rules, p, v);
    else
        game_estimate(g, p, v);
}

/* The mover's best estimate at the end of its turn from p (its move), following extra turns `depth` deep. */
static double turn_best(const game *g, const game_pos *p, int mover, int depth)
{
    double v[GAME_MAX_PLAYERS];
    if (p->over || p->to_move != mover || depth == 0) {
        game_estimate(g, p, v);
        return v[mover];
    }
    double best = -2.0;
    for (unsigned legal = game_legal(g, p); legal; legal &= legal - 1) {
        game_pos q = *p;
        game_apply(g, &q, __builtin_ctz(legal), NULL);
        double x = turn_best(g, &q, mover, depth - 1);
        if (x > best)
            best = x;
    }
    return best;
}

unsigned game_greedy(const game *g, const game_pos *p)
{
    if (p->over)
        return 0;
    if (g->kind->greedy)
        return g->kind->greedy(g->rules, p);
    unsigned ties = 0;
    double best = -3.0;
    for (unsigned legal = game_legal(g, p); legal; legal &= legal - 1) {
        int k = __builtin_ctz(legal);
        game_pos q = *p;
        game_apply(g, &q, k, NULL);
        double x = turn_best(g, &q, p->to_move, 4);
        if (x > best + 1e-12) {
            best = x;
            ties = 0;
        }
        if (x >= best - 1e-12)
            ties |= 1u << k;
    }
    return ties;
}

int game_decided(const game *g, const game_pos *p, int player, double *v)
{
    if (p->over) {
        double all[GAME_MAX_PLAYERS];
        game_values(g, p, all);
        *v = all[player];
        return 1;
    }
    return g->kind->decided ? g->kind->decided(g->rules, p, player, v) : 0;
}

void game_solve_properties(const game *g, game_solve_props *out)
{
    *out = (game_solve_props){.flags = 0, .score_cell = {-1, -1}, .ply_limit = -1};
    if (g->kind->solve_props)
        g->kind->solve_props(g->rules, out);
}

void game_set_endgame(game *g, const game_endgame_db *db) { g->db = db; }

int game_endgame(const game *g, const game_pos *p, int *margin)
{
    if (g->db && !p->over && game_seeds_in_pits(g, p) <= g->db->max_seeds && g->db->probe(g->db, p, margin))
        return 1;
    return g->kind->endgame ? g->kind->endgame(g->rules, p, margin) : 0;
}

int game_endgame_seeds(const game *g)
{
    return g->db ? g->db->max_seeds : g->kind->endgame ? GAME_ENDGAME_ALL : 0;
}

void game_encode(const game *g, const game_pos *p, float *out) { g->kind->encode(g->rules, p, out); }

int game_pos_parse(const game *g, const char *s, game_pos *out, char *err)
{
    if (!s) {
        set_err(err, "no position given");
        return GAME_EINVAL;
    }
    return g->kind->pos_parse(g->rules, s, out, err);
}

char *game_pos_format(const game *g, const game_pos *p, char *buf, size_t n)
{
    if (n)
        buf[0] = 0;
    g->kind->pos_format(g->rules, p, buf, n);
    return buf;
}

int game_move_parse(const game *g, const game_pos *p, const char *s, char *err)
{
    if (g->kind->move_parse)
        return g->kind->move_parse(g->rules, p, s, err);
    if (!s || !s[0] || s[1] || s[0] < 'a' || s[0] >= 'a' + g->moves) {
        set_err(err, "'%s' is not a move of this board (pits a..%c)", s ? s : "", 'a' + g->moves - 1);
        return GAME_EINVAL;
    }
    return s[0] - 'a';
}

char *game_move_format(const game *g, const game_pos *p, int move, char *buf, size_t n)
{
    if (g->kind->move_format)
        g->kind->move_format(g->rules, p, move, buf, n);
    else if (n >= 2) {
        buf[0] = (char)('a' + move);
        buf[1] = 0;
    }
    return buf;
}

/* The last ply is counted from the legal mask without playing it (bulk counting: most of perft's work). */
static void perft_rec(const game *g, const game_pos *p, int ply, int depth, uint64_t *nodes)
{
    unsigned legal = game_legal(g, p);
    nodes[ply] += (uint64_t)__builtin_popcount(legal);
    if (ply + 1 == depth)
        return;
    for (; legal; legal &= legal - 1) {
        game_pos q = *p;
        game_apply(g, &q, __builtin_ctz(legal), NULL);
        if (!q.over)
            perft_rec(g, &q, ply + 1, depth, nodes);
    }
}

void game_perft(const game *g, const game_pos *p, int depth, uint64_t *nodes)
{
    memset(nodes, 0, (size_t)(depth > 0 ? depth : 0) * sizeof *nodes);
    if (depth > 0 && !p->over)
        perft_rec(g, p, 0, depth, nodes);
}
