/* basico.c — Mancala básico for 2–4 players (docs/design.md §1.2; notation in basico.h). A secondary game:
 * sowing walks the circuit of players still in play, which changes as players leave, so it is a plain
 * loop over at most 28 positions rather than Kalah's precomputed masks. */
#include "env/basico.h"
#include "env/errbuf.h"
#include "env/rules_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define set_err(err, ...) errbuf_set(err, KALAH_ERRLEN, __VA_ARGS__)

basico_rules basico_rules_default(void) { return (basico_rules){.players = 3, .pits = 6, .seeds = 4, .full_ranking = 1}; }

int basico_rules_check(const basico_rules *r, char *err)
{
    if (r->players < 2 || r->players > BASICO_MAX_PLAYERS) {
        set_err(err, "players=%d is out of range 2..4", r->players);
        return BASICO_EINVAL;
    }
    int ok = r->pits == 6 || (r->pits == 7 && r->players == 2) || (r->pits == 4 && r->players >= 3);
    if (!ok) {
        set_err(err, "pits=%d is not allowed with players=%d (6; 7 with 2 players; 4 with 3-4 players)", r->pits,
                r->players);
        return BASICO_EINVAL;
    }
    if (r->seeds != 3 && r->seeds != 4) {
        set_err(err, "seeds=%d: basico is played with 3 or 4 stones per pit", r->seeds);
        return BASICO_EINVAL;
    }
    if (r->full_ranking != 0 && r->full_ranking != 1) {
        set_err(err, "full_ranking=%d must be 0 or 1", r->full_ranking);
        return BASICO_EINVAL;
    }
    return BASICO_OK;
}

/* The rules keys in spec order (env/rules_spec.h). The wide ranges are deliberate: basico_rules_check then
 * says what básico allows (players 2..4, the pits per player count, 3 or 4 seeds). */
static const rspec_key keys[] = {
    {"players", 0, 99, NULL, 0},
    {"pits", 0, 99, NULL, 0},
    {"seeds", 0, 99, NULL, 0},
    {"full_ranking", 0, 99, NULL, 1},
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

int basico_rules_parse(const char *spec, basico_rules *out, char *err)
{
    basico_rules d = basico_rules_default();
    int v[NKEYS] = {d.players, d.pits, d.seeds, d.full_ranking};
    if (rspec_parse(spec, "basico", keys, NKEYS, v, err) != RSPEC_OK)
        return BASICO_EINVAL;
    basico_rules r = {.players = v[0], .pits = v[1], .seeds = v[2], .full_ranking = v[3]};
    if (basico_rules_check(&r, err) != BASICO_OK)
        return BASICO_EINVAL;
    *out = r;
    return BASICO_OK;
}

char *basico_rules_format(const basico_rules *r, char *buf, size_t n)
{
    int v[NKEYS] = {r->players, r->pits, r->seeds, r->full_ranking};
    return rspec_format("basico", keys, NKEYS, v, buf, n);
}

void basico_start(const basico_rules *r, basico_pos *out)
{
    memset(out, 0, sizeof *out);
    for (int p = 0; p < r->players; p++)
        for (int k = 0; k < r->pits; k++)
            out->cell[p * (r->pits + 1) + k] = (uint8_t)r->seeds;
    out->active = (uint8_t)((1u << r->players) - 1);
}

/* A player's row of pits (at most 7 bytes) as one little-endian word, byte k = pit k, the rest 0. One
 * 8-byte load (a row starts at most at cell 21, so it stays inside cell[32]), then the bytes past the row
 * are masked off: a byte-wise copy would stall on store forwarding. */
static inline uint64_t row_word(const basico_rules *r, const basico_pos *p, int player)
{
    size_t off = (size_t)player * (size_t)(r->pits + 1);
    if (off > BASICO_CELLS - 8) /* never (at most 21); keeps the load provably inside cell[] */
        off = BASICO_CELLS - 8;
    uint64_t x;
    memcpy(&x, p->cell + off, 8);
    return x & ((1ULL << (8 * (r->pits & 7))) - 1);
}

unsigned basico_legal(const basico_rules *r, const basico_pos *p)
{
    if (p->over)
        return 0;
    /* SWAR: the top bit of each byte says "non-zero"; one multiply gathers those bits into the low byte
     * (byte k's bit lands on bit k). */
    uint64_t x = row_word(r, p, p->to_move);
    uint64_t y = (((x & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL) | x) & 0x8080808080808080ULL;
    return (unsigned)(((y >> 7) * 0x0102040810204080ULL) >> 56);
}

int basico_pit_stones(const basico_rules *r, const basico_pos *p, int player)
{
    int t = 0; /* byte loads: right after a sowing, a wide load would stall on the byte stores */
    for (int k = 0; k < r->pits && k < BASICO_MAX_PITS; k++)
        t += p->cell[(player * (r->pits + 1) + k) & (BASICO_CELLS - 1)];
    return t;
}

/* The next active player after `player`, counter-clockwise. */
static int next_active(const basico_rules *r, const basico_pos *p, int player)
{
    for (int i = 1; i <= r->players; i++) {
        int q = (player + i) % r->players;
        if (p->active & (1u << q))
            return q;
    }
    return player;
}

/* Gives the places that the departures so far decide, and ends the game when they decide all. */
static void settle_places(const basico_rules *r, basico_pos *p)
{
    int top = 1, bottom = r->players, first_finish = -1;
    memset(p->place, 0, sizeof p->place);
    for (int i = 0; i < p->n_left; i++) {
        if (p->resigned[i]) {
            p->place[p->left[i]] = (uint8_t)bottom--;
        } else {
            if (first_finish < 0)
                first_finish = p->left[i];
            p->place[p->left[i]] = (uint8_t)top++;
        }
    }
    int remaining = __builtin_popcount(p->active);
    if (remaining <= 1) {
        for (int q = 0; q < r->players && q < BASICO_MAX_PLAYERS; q++)
            if (p->active & (1u << q))
                p->place[q] = (uint8_t)top;
        p->over = 1;
    } else if (!r->full_ranking && first_finish >= 0) {
        /* First finisher won: the rest rank by fewest stones left in their pits, ties sharing a place. */
        for (int q = 0; q < r->players && q < BASICO_MAX_PLAYERS; q++) {
            if (!(p->active & (1u << q)))
                continue;
            int better = 0, mine = basico_pit_stones(r, p, q);
            for (int o = 0; o < r->players && o < BASICO_MAX_PLAYERS; o++)
                if ((p->active & (1u << o)) && basico_pit_stones(r, p, o) < mine)
                    better++;
            p->place[q] = (uint8_t)(2 + better);
        }
        p->over = 1;
    }
}

static void leave(const basico_rules *r, basico_pos *p, int player, int resigned)
{
    memset(p->cell + player * (r->pits + 1), 0, (size_t)r->pits + 1);
    p->active &= (uint8_t)~(1u << player);
    p->left[p->n_left] = (uint8_t)player;
    p->resigned[p->n_left] = (uint8_t)resigned;
    p->n_left++;
    settle_places(r, p);
}

int basico_play(const basico_rules *r, basico_pos *p, int k, basico_step *info)
{
    if (p->over)
        return BASICO_EOVER;
    if (k < 0 || k >= r->pits || !(basico_legal(r, p) & (1u << k)))
        return BASICO_EILLEGAL;
    const int mover = p->to_move, w = r->pits + 1, cells = basico_cells(r);
    const int origin = mover * w + k;
    int n = p->cell[origin];
    p->cell[origin] = 0;
    /* The circuit is every position of the players still in play, the origin included (docs/design.md §1.2):
     * whole laps first (rare), then the remainder one position at a time, skipping departed blocks. */
    const int len = (int)((0x4332322132212110ULL >> (4 * (p->active & 15))) & 15) * w, /* popcount */
               laps = n / len, rem = n % len;
    if (laps)
        for (int i = 0; i < cells && i < BASICO_CELLS; i++)
            if (p->active & (1u << (i / w)))
                p->cell[i] = (uint8_t)(p->cell[i] + laps);
    int blk = mover, off = k; /* the position blk·w + off; rem = 0: whole laps end on the origin */
    for (int j = 0; j < rem; j++) {
        if (++off == w) { /* past a store: the next player still in play */
            off = 0;
            do
                blk = blk + 1 == r->players ? 0 : blk + 1;
            while (!(p->active & (1u << blk)));
        }
        p->cell[(blk * w + off) & (BASICO_CELLS - 1)]++;
    }
    const int last = blk * w + off, in_store = off == r->pits;
    int finished = 0;
    if (basico_pit_stones(r, p, mover) == 0) {
        finished = 1;
        leave(r, p, mover, 0);
    }
    /* After the end too: like Kalah's side token, the player who would move next (always one in play). */
    p->to_move = (uint8_t)(in_store && !finished ? mover : next_active(r, p, mover));
    if (info) {
        info->extra_turn = (uint8_t)(in_store && !finished && !p->over);
        info->finished = (uint8_t)finished;
        info->over = p->over;
        info->last = (uint8_t)last;
    }
    return BASICO_OK;
}

int basico_resign(const basico_rules *r, basico_pos *p)
{
    if (p->over)
        return BASICO_EOVER;
    int mover = p->to_move;
    leave(r, p, mover, 1);
    p->to_move = (uint8_t)next_active(r, p, mover);
    return BASICO_OK;
}

double basico_rank_score(const basico_rules *r, const basico_pos *p, int player)
{
    return (double)(r->players - p->place[player]) / (double)(r->players - 1);
}

void basico_encode(const basico_rules *r, const basico_pos *p, float *out)
{
    const int w = r->pits + 2;
    const float inv = 1.0f / (float)r->seeds;
    for (int q = 0; q < r->players && q < BASICO_MAX_PLAYERS; q++) {
        const int pl = (p->to_move + q) % r->players;
        const uint8_t *row = p->cell + pl * (r->pits + 1);
        float *o = out + q * w;
        for (int k = 0; k < r->pits && k < BASICO_MAX_PITS; k++)
            o[k] = (float)row[k] * inv;
        o[r->pits] = (p->active >> pl & 1u) ? 1.0f : 0.0f;
        o[r->pits + 1] = p->place[pl] ? (float)basico_rank_score(r, p, pl) : 0.0f;
    }
}

char *basico_pos_format(const basico_rules *r, const basico_pos *p, char *buf, size_t n)
{
    size_t o = 0;
    const int w = r->pits + 1;
    for (int i = 0; i < basico_cells(r) && o < n; i++) {
        const char *sep = i ? "," : "";
        if (p->active & (1u << (i / w)))
            o += (size_t)snprintf(buf + o, n - o, "%s%d", sep, p->cell[i]);
        else
            o += (size_t)snprintf(buf + o, n - o, "%s-", sep);
    }
    if (o < n)
        o += (size_t)snprintf(buf + o, n - o, " %d", p->to_move);
    for (int i = 0; i < p->n_left && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%d%c", i ? "," : " ", p->left[i], p->resigned[i] ? 'r' : 'f');
    return buf;
}

int basico_pos_parse(const char *s, const basico_rules *r, basico_pos *out, char *err)
{
    basico_pos p;
    memset(&p, 0, sizeof p);
    char buf[256];
    if (!s || strlen(s) >= sizeof buf) {
        set_err(err, "no position, or too long");
        return BASICO_EINVAL;
    }
    strcpy(buf, s);
    char *save = NULL, *counts = strtok_r(buf, " ", &save), *mover = strtok_r(NULL, " ", &save),
         *leavers = strtok_r(NULL, " ", &save);
    if (!counts || !mover || strtok_r(NULL, " ", &save)) {
        set_err(err, "expected 'COUNTS MOVER [LEAVERS]'");
        return BASICO_EINVAL;
    }
    const int w = r->pits + 1, cells = basico_cells(r);
    p.active = (uint8_t)((1u << r->players) - 1);
    if (leavers) {
        char *s2 = NULL;
        for (char *t = strtok_r(leavers, ",", &s2); t; t = strtok_r(NULL, ",", &s2)) {
            if (strlen(t) != 2 || t[0] < '0' || t[0] >= '0' + r->players || (t[1] != 'f' && t[1] != 'r') ||
                !(p.active & (1u << (t[0] - '0'))) || p.n_left >= r->players - 1) {
                set_err(err, "leaver '%s' is not PLAYERf or PLAYERr for a distinct player 0..%d", t, r->players - 1);
                return BASICO_EINVAL;
            }
            p.left[p.n_left] = (uint8_t)(t[0] - '0');
            p.resigned[p.n_left++] = t[1] == 'r';
            p.active &= (uint8_t)~(1u << (t[0] - '0'));
        }
    }
    int count = 0, total = 0;
    char *s3 = NULL;
    for (char *t = strtok_r(counts, ",", &s3); t; t = strtok_r(NULL, ",", &s3), count++) {
        if (count >= cells) {
            set_err(err, "more than %d counts (players*(pits+1))", cells);
            return BASICO_EINVAL;
        }
        int gone = !(p.active & (1u << (count / w)));
        if (gone) {
            if (strcmp(t, "-")) {
                set_err(err, "field %d must be '-': player %d has left", count + 1, count / w);
                return BASICO_EINVAL;
            }
            continue;
        }
        char *end;
        errno = 0;
        long v = strtol(t, &end, 10);
        if (errno || end == t || *end || v < 0 || v > 255) {
            set_err(err, "field %d ('%s') is not a count 0..255", count + 1, t);
            return BASICO_EINVAL;
        }
        p.cell[count] = (uint8_t)v;
        total += (int)v;
    }
    if (count != cells) {
        set_err(err, "%d counts: players=%d, pits=%d need %d", count, r->players, r->pits, cells);
        return BASICO_EINVAL;
    }
    if (total > r->players * r->pits * r->seeds) {
        set_err(err, "%d stones is more than the game starts with (%d)", total, r->players * r->pits * r->seeds);
        return BASICO_EINVAL;
    }
    if (strlen(mover) != 1 || mover[0] < '0' || mover[0] >= '0' + r->players ||
        !(p.active & (1u << (mover[0] - '0')))) {
        set_err(err, "player to move '%s' is not a player still in play", mover);
        return BASICO_EINVAL;
    }
    p.to_move = (uint8_t)(mover[0] - '0');
    for (int q = 0; q < r->players && q < BASICO_MAX_PLAYERS; q++)
        if ((p.active & (1u << q)) && basico_pit_stones(r, &p, q) == 0) {
            set_err(err, "player %d has empty pits but is still in play (it would have finished)", q);
            return BASICO_EINVAL;
        }
    settle_places(r, &p);
    *out = p;
    return BASICO_OK;
}

static void perft_rec(const basico_rules *r, const basico_pos *p, int ply, int depth, uint64_t *nodes)
{
    unsigned legal = basico_legal(r, p);
    nodes[ply] += (uint64_t)__builtin_popcount(legal);
    if (ply + 1 == depth)
        return;
    while (legal) {
        int k = __builtin_ctz(legal);
        legal &= legal - 1;
        basico_pos c = *p;
        basico_play(r, &c, k, NULL);
        if (!c.over)
            perft_rec(r, &c, ply + 1, depth, nodes);
    }
}

void basico_perft(const basico_rules *r, const basico_pos *p, int depth, uint64_t *nodes)
{
    memset(nodes, 0, (size_t)depth * sizeof *nodes);
    if (depth > 0 && !p->over)
        perft_rec(r, p, 0, depth, nodes);
}

/* ---- the baselines' static knowledge (moved from eval/basico_search.c: the game interface's estimate
 * and greedy hooks need it in env) ---- */

void basico_estimate(const basico_rules *r, const basico_pos *p, double *out)
{
    const int n = r->players;
    if (p->over) {
        for (int q = 0; q < n && q < BASICO_MAX_PLAYERS; q++)
            out[q] = basico_rank_score(r, p, q);
        return;
    }
    int first_free = 1; /* top places already given to finishers */
    for (int i = 0; i < p->n_left; i++)
        first_free += !p->resigned[i];
    for (int q = 0; q < n && q < BASICO_MAX_PLAYERS; q++) {
        if (!(p->active & (1u << q))) {
            out[q] = basico_rank_score(r, p, q);
            continue;
        }
        /* Equal counts share the mean of the places they span, so the estimate sums to a constant
         * (with two players max^n then equals minimax). */
        int better = 0, equal = 0, mine = basico_pit_stones(r, p, q);
        for (int o = 0; o < n && o < BASICO_MAX_PLAYERS; o++)
            if (p->active & (1u << o)) {
                int theirs = basico_pit_stones(r, p, o);
                better += theirs < mine;
                equal += theirs == mine;
            }
        double place = first_free + better + (equal - 1) / 2.0;
        out[q] = (n - place) / (double)(n - 1);
    }
}

/* Fewest stones the mover can leave in its pits by the end of its turn from p (greedy on extra sowings). */
static int turn_leftover(const basico_rules *r, const basico_pos *p, int k, int budget)
{
    basico_pos c = *p;
    basico_step st;
    basico_play(r, &c, k, &st);
    if (st.finished)
        return 0;
    int mine = basico_pit_stones(r, &c, p->to_move);
    if (!st.extra_turn || budget == 0)
        return mine;
    unsigned legal = basico_legal(r, &c);
    while (legal) {
        int j = __builtin_ctz(legal), left;
        legal &= legal - 1;
        if ((left = turn_leftover(r, &c, j, budget - 1)) < mine)
            mine = left;
    }
    return mine;
}

int basico_greedy_move(const basico_rules *r, const basico_pos *p)
{
    unsigned legal = basico_legal(r, p);
    int best = -1, best_left = 1 << 30;
    while (legal) {
        int k = __builtin_ctz(legal), left;
        legal &= legal - 1;
        /* The budget bounds extra-sowing chains, which can be long with many stores to hit. */
        if ((left = turn_leftover(r, p, k, 6)) < best_left)
            best = k, best_left = left;
    }
    return best;
}
