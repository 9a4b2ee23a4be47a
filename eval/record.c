/* record.c — PGN-like game records: writer and validating reader (format in record.h). */
#include "eval/record.h"
#include "env/fileio.h"
#include "env/errbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define set_err(err, ...) errbuf_set(err, RECORD_ERRLEN, __VA_ARGS__)

void record_game_clear(record_game *g)
{
    free(g->event);
    free(g->south);
    free(g->north);
    free(g->south_name);
    free(g->north_name);
    for (int i = 0; i < 2; i++) {
        free(g->seat_more[i]);
        free(g->name_more[i]);
    }
    free(g->date);
    free(g->termination);
    free(g->moves);
    game_free(g->game);
    memset(g, 0, sizeof *g);
}

int record_game_init_game(record_game *g, const game *gm, const game_pos *start, char *err)
{
    char gerr[GAME_ERRLEN];
    memset(g, 0, sizeof *g);
    game *own = game_create(game_spec(gm), gerr);
    if (!own) {
        set_err(err, "out of memory");
        return RECORD_ENOMEM;
    }
    g->result = RECORD_UNFINISHED;
    g->game = own;
    g->players = game_players(own);
    if (start)
        g->gstart = *start;
    else
        game_start(own, &g->gstart);
    g->gfinal = g->gstart;
    return RECORD_OK;
}

static char **seat_field(record_game *g, int q, int name)
{
    if (q == 0)
        return name ? &g->south_name : &g->south;
    if (q == 1)
        return name ? &g->north_name : &g->north;
    return name ? &g->name_more[q - 2] : &g->seat_more[q - 2];
}

const char *record_seat(const record_game *g, int q)
{
    return q >= 0 && q < (g->players ? g->players : 2) ? *seat_field((record_game *)g, q, 0) : NULL;
}

const char *record_player(const record_game *g, int q)
{
    if (q < 0 || q >= (g->players ? g->players : 2))
        return NULL;
    const char *n = *seat_field((record_game *)g, q, 1);
    return n ? n : *seat_field((record_game *)g, q, 0);
}

int record_set_seat(record_game *g, int q, const char *spec, const char *name)
{
    if (q < 0 || q >= (g->players ? g->players : 2))
        return RECORD_EINVAL;
    if (record_set(seat_field(g, q, 0), spec) || record_set(seat_field(g, q, 1), name))
        return RECORD_ENOMEM;
    return RECORD_OK;
}

int record_set(char **field, const char *s)
{
    char *c = NULL;
    if (s && !(c = strdup(s)))
        return RECORD_ENOMEM;
    free(*field);
    *field = c;
    return RECORD_OK;
}

int record_push(record_game *g, int move)
{
    if (g->n_moves == g->cap) {
        int cap = g->cap ? 2 * g->cap : 64;
        uint8_t *m = realloc(g->moves, (size_t)cap);
        if (!m)
            return RECORD_ENOMEM;
        g->moves = m;
        g->cap = cap;
    }
    g->moves[g->n_moves++] = (uint8_t)move;
    return RECORD_OK;
}

const char *record_result_token(int result)
{
    switch (result) {
    case RECORD_SOUTH_WINS: return "1-0";
    case RECORD_NORTH_WINS: return "0-1";
    case RECORD_DRAW: return "1/2-1/2";
    default: return "*";
    }
}

static int result_from_token(const char *t)
{
    for (int r = -1; r <= 2; r++)
        if (!strcmp(t, record_result_token(r)))
            return r;
    return -9;
}

/* A places token "P0-P1-P2[-P3]" (3-4 numbers 1..9): the count of places in places[], else 0. */
static int places_from_token(const char *t, int *places)
{
    int n = 0;
    for (;;) {
        if (*t < '1' || *t > '9' || n == GAME_MAX_PLAYERS)
            return 0;
        places[n++] = *t++ - '0';
        if (!*t)
            break;
        if (*t++ != '-')
            return 0;
    }
    return n >= 3 ? n : 0;
}

static int is_result_token(const char *t)
{
    int pl[GAME_MAX_PLAYERS];
    return result_from_token(t) >= -1 || places_from_token(t, pl);
}

/* Places per seat from values (env/game.h: higher is better): 1 + the seats strictly ahead. */
static void places_from_values(int np, const double *v, int *places)
{
    for (int q = 0; q < np; q++) {
        places[q] = 1;
        for (int r = 0; r < np; r++)
            places[q] += v[r] > v[q];
    }
}

static void places_from_result(int result, int *places)
{
    places[0] = result == RECORD_NORTH_WINS ? 2 : 1;
    places[1] = result == RECORD_SOUTH_WINS ? 2 : 1;
}

char *record_result_text(const record_game *g, char *buf, size_t n)
{
    int np = g->players ? g->players : 2;
    if (np == 2 || g->result != RECORD_RANKED) {
        snprintf(buf, n, "%s", record_result_token(g->result));
        return buf;
    }
    size_t at = 0;
    buf[0] = 0;
    for (int q = 0; q < np && at < n; q++)
        at += (size_t)snprintf(buf + at, n - at, "%s%d", q ? "-" : "", g->places[q]);
    return buf;
}

/* A forfeit's result (record.h, "Forfeits") for a game of np seats whose moves left it unfinished. */
static void forfeit_result(record_game *g, int np)
{
    int loser = g->forfeit - 1;
    for (int q = 0; q < np; q++)
        g->places[q] = q == loser ? np : 1;
    g->result = np > 2 ? RECORD_RANKED : loser ? RECORD_SOUTH_WINS : RECORD_NORTH_WINS;
}

/* Replays the moves of g->game from gstart: gfinal, places, result and the two-player scores. */
static int finish_game(record_game *g, char *err)
{
    const game *gm = g->game;
    int np = game_players(gm);
    if (g->result_only && g->n_moves == 0) {
        g->gfinal = g->gstart;
        if (np == 2)
            places_from_result(g->result, g->places);
        return RECORD_OK;
    }
    g->result_only = 0;
    int adj_result = g->result, adj_s = g->store_south, adj_n = g->store_north;
    game_pos p = g->gstart;
    for (int i = 0; i < g->n_moves; i++) {
        char mv[8];
        game_move_format(gm, &p, g->moves[i], mv, sizeof mv);
        if (game_apply(gm, &p, g->moves[i], NULL) != GAME_OK) {
            set_err(err, "move %d '%s' is not legal (%s)", i + 1, mv,
                    p.over ? "the game is already over" : "the pit is empty or off the board");
            return RECORD_EINVAL;
        }
    }
    g->gfinal = p;
    memset(g->places, 0, sizeof g->places);
    double v[GAME_MAX_PLAYERS];
    if (p.over) {
        game_values(gm, &p, v);
        places_from_values(np, v, g->places);
    }
    if ((g->forfeit || g->adjudicated) && p.over) {
        set_err(err, "%s, but the moves end the game", g->forfeit ? "a forfeit" : "an adjudication");
        return RECORD_EINVAL;
    }
    if (g->adjudicated) { /* the result and scores of perfect play from here, as the caller set them */
        if (np != 2 || adj_result < RECORD_NORTH_WINS || adj_result > RECORD_SOUTH_WINS) {
            set_err(err, "an adjudication needs two players and a decisive or drawn result");
            return RECORD_EINVAL;
        }
        g->result = adj_result;
        g->store_south = adj_s;
        g->store_north = adj_n;
        places_from_result(g->result, g->places);
        return RECORD_OK;
    }
    if (g->forfeit) {
        int a = 0, b = 0;
        forfeit_result(g, np);
        if (np == 2 && game_score(gm, &p, 0, &a) && game_score(gm, &p, 1, &b)) {
            g->store_south = a;
            g->store_north = b;
        }
        return RECORD_OK;
    }
    if (np == 2) {
        g->result = !p.over ? RECORD_UNFINISHED : (v[0] > v[1]) - (v[0] < v[1]);
        int a = 0, b = 0;
        game_score(gm, &p, 0, &a);
        game_score(gm, &p, 1, &b);
        g->store_south = a;
        g->store_north = b;
    } else {
        g->result = p.over ? RECORD_RANKED : RECORD_UNFINISHED;
    }
    return RECORD_OK;
}

int record_game_finish(record_game *g, char *err)
{
    if (!g->game) {
        set_err(err, "a record with no game (record_game_init_game sets one up)");
        return RECORD_EINVAL;
    }
    return finish_game(g, err);
}

static int put_tag(FILE *f, const char *name, const char *value)
{
    if (fprintf(f, "[%s \"", name) < 0)
        return -1;
    for (const char *s = value; *s; s++) {
        if ((*s == '"' || *s == '\\') && fputc('\\', f) == EOF)
            return -1;
        if (fputc(*s, f) == EOF)
            return -1;
    }
    return fputs("\"]\n", f) == EOF ? -1 : 0;
}

/* Writes the move text from the start (moves wrapped at 79 columns, then the result token). */
static int put_moves(FILE *f, record_game *g)
{
    game_pos gp = g->gstart;
    int col = 0;
    for (int i = 0; i <= g->n_moves; i++) {
        char tok[16];
        if (i < g->n_moves) {
            game_move_format(g->game, &gp, g->moves[i], tok, sizeof tok);
            game_apply(g->game, &gp, g->moves[i], NULL);
        } else {
            record_result_text(g, tok, sizeof tok);
        }
        int len = (int)strlen(tok);
        if (col && col + 1 + len > 79) {
            if (fputc('\n', f) == EOF)
                return -1;
            col = 0;
        }
        if (fprintf(f, "%s%s", col ? " " : "", tok) < 0)
            return -1;
        col += (col ? 1 : 0) + len;
    }
    return fputs("\n\n", f) == EOF ? -1 : 0;
}

/* The seat tag of seat q among np ("South"/"North" for two players, else "Seat<q>"), name tag with name. */
static void seat_tag(int np, int q, int name, char *buf, size_t n)
{
    if (np == 2)
        snprintf(buf, n, "%s%s", q ? "North" : "South", name ? "Name" : "");
    else
        snprintf(buf, n, "Seat%d%s", q & 7, name ? "Name" : "");
}

/* The tags every record starts with: Event, Date (when set), Round (when >= 1). 0 or -1. */
static int put_head(FILE *f, const record_game *g)
{
    char buf[24];
    int bad = put_tag(f, "Event", g->event ? g->event : "?");
    if (g->date)
        bad |= put_tag(f, "Date", g->date);
    if (g->round > 0) {
        snprintf(buf, sizeof buf, "%d", g->round);
        bad |= put_tag(f, "Round", buf);
    }
    return bad;
}

/* The record of a finished (record_game_finish) game (record.h). */
static int write_game(FILE *f, record_game *g, char *err)
{
    char buf[GAME_POS_STR], tag[24];
    const game *gm = g->game;
    int np = game_players(gm), bad = 0, score[2];
    bad |= put_head(f, g);
    for (int q = 0; q < np; q++) {
        seat_tag(np, q, 0, tag, sizeof tag);
        bad |= put_tag(f, tag, record_seat(g, q));
    }
    for (int q = 0; q < np; q++)
        if (*seat_field(g, q, 1)) {
            seat_tag(np, q, 1, tag, sizeof tag);
            bad |= put_tag(f, tag, *seat_field(g, q, 1));
        }
    bad |= put_tag(f, "Rules", game_spec(gm));
    bad |= put_tag(f, "Start", game_pos_format(gm, &g->gstart, buf, sizeof buf));
    if (g->opening > 0) {
        snprintf(buf, sizeof buf, "%d", g->opening);
        bad |= put_tag(f, "Opening", buf);
    }
    bad |= put_tag(f, "Result", record_result_text(g, buf, sizeof buf));
    if (g->termination)
        bad |= put_tag(f, "Termination", g->termination);
    if (np == 2 && g->adjudicated) {
        snprintf(buf, sizeof buf, "%d-%d", g->store_south, g->store_north);
        bad |= put_tag(f, "Score", buf);
    } else if (np == 2 && !g->result_only && game_score(gm, &g->gfinal, 0, &score[0]) &&
               game_score(gm, &g->gfinal, 1, &score[1])) {
        snprintf(buf, sizeof buf, "%d-%d", score[0], score[1]);
        bad |= put_tag(f, "Score", buf);
    }
    if (bad || fputc('\n', f) == EOF || put_moves(f, g)) {
        set_err(err, "write failed: %s", strerror(errno));
        return RECORD_EIO;
    }
    return RECORD_OK;
}

int record_write(FILE *f, record_game *g, char *err)
{
    if (!g->game) {
        set_err(err, "a record with no game (record_game_init_game sets one up)");
        return RECORD_EINVAL;
    }
    for (int q = 0; q < g->players; q++)
        if (!record_seat(g, q)) {
            set_err(err, "a record needs every seat's spec (seat %d has none)", q);
            return RECORD_EINVAL;
        }
    if (g->opening < 0 || g->opening > g->n_moves) {
        set_err(err, "opening length %d is not within the %d moves", g->opening, g->n_moves);
        return RECORD_EINVAL;
    }
    int rc = record_game_finish(g, err);
    return rc ? rc : write_game(f, g, err);
}

/* ---- reading ---- */

struct record_reader {
    FILE *f;
    int own;          /* close f on free */
    char *name;
    char *line;       /* getline buffer */
    size_t cap;
    int lineno;
};

record_reader *record_reader_from_stream(FILE *f, const char *name, char *err)
{
    record_reader *rd = calloc(1, sizeof *rd);
    if (!rd || !(rd->name = strdup(name ? name : "(stream)"))) {
        free(rd);
        set_err(err, "out of memory");
        return NULL;
    }
    rd->f = f;
    return rd;
}

record_reader *record_reader_open(const char *path, char *err)
{
    if (!strcmp(path, "-"))
        return record_reader_from_stream(stdin, "(stdin)", err);
    FILE *f = sz_fopen_input(path);
    if (!f) {
        set_err(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    record_reader *rd = record_reader_from_stream(f, path, err);
    if (!rd)
        fclose(f);
    else
        rd->own = 1;
    return rd;
}

void record_reader_free(record_reader *rd)
{
    if (!rd)
        return;
    if (rd->own)
        fclose(rd->f);
    free(rd->name);
    free(rd->line);
    free(rd);
}

/* Next line with the newline stripped; NULL at EOF. */
static char *next_line(record_reader *rd)
{
    ssize_t n = getline(&rd->line, &rd->cap, rd->f);
    if (n < 0)
        return NULL;
    rd->lineno++;
    while (n > 0 && (rd->line[n - 1] == '\n' || rd->line[n - 1] == '\r'))
        rd->line[--n] = 0;
    return rd->line;
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return 0;
    return 1;
}

/* Parses `[Name "value"]` in place: *name and *value point into s (value unescaped). 0 or -1. */
static int parse_tag(char *s, char **name, char **value)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s++ != '[')
        return -1;
    *name = s;
    while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')
        s++;
    if (s == *name || (*s != ' ' && *s != '\t'))
        return -1;
    *s++ = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s++ != '"')
        return -1;
    *value = s;
    char *w = s;
    for (;; s++) {
        if (!*s)
            return -1;
        if (*s == '"')
            break;
        if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
            s++;
        *w++ = *s;
    }
    *w = 0;
    s++;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s++ != ']')
        return -1;
    return is_blank(s) ? 0 : -1;
}

enum { T_EVENT, T_ROUND, T_SOUTH, T_NORTH, T_SOUTHNAME, T_NORTHNAME, T_RULES, T_START, T_OPENING, T_RESULT,
       T_SCORE, T_DATE, T_TERMINATION, T_SEAT0, T_SEAT0NAME = T_SEAT0 + GAME_MAX_PLAYERS, T_COUNT = T_SEAT0NAME + GAME_MAX_PLAYERS };
static const char *const tag_names[T_COUNT] = {"Event", "Round", "South", "North", "SouthName", "NorthName",
                                               "Rules", "Start", "Opening", "Result", "Score", "Date", "Termination",
                                               "Seat0", "Seat1", "Seat2", "Seat3",
                                               "Seat0Name", "Seat1Name", "Seat2Name", "Seat3Name"};

typedef struct {
    char *value[T_COUNT];
    int line[T_COUNT];
    int *move_line;   /* line of each move token */
    int result_line;
    char result_tok[16];
} pending_game;

static void pending_free(pending_game *pg)
{
    for (int i = 0; i < T_COUNT; i++)
        free(pg->value[i]);
    free(pg->move_line);
}

static int parse_whole(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* [Round]: a whole number into g->round. */
static int check_round(const char *nm, const pending_game *pg, record_game *g, char *err)
{
    long v;
    if (pg->value[T_ROUND]) {
        if (parse_whole(pg->value[T_ROUND], 0, 1000000000L, &v)) {
            set_err(err, "%s:%d: [Round \"%s\"] is not a whole number", nm, pg->line[T_ROUND], pg->value[T_ROUND]);
            return RECORD_EINVAL;
        }
        g->round = (int)v;
    }
    return RECORD_OK;
}

/* [Score "S-N"] against the replayed stores (a result-only game: against its result, and kept). */
static int check_score(const char *nm, const pending_game *pg, record_game *g, char *err)
{
    if (pg->value[T_SCORE]) {
        int a, b, used = 0;
        if (sscanf(pg->value[T_SCORE], "%d-%d%n", &a, &b, &used) != 2 || pg->value[T_SCORE][used]) {
            set_err(err, "%s:%d: [Score \"%s\"] is not SOUTH-NORTH", nm, pg->line[T_SCORE], pg->value[T_SCORE]);
            return RECORD_EINVAL;
        }
        if (g->result_only) {
            if ((a > b) - (a < b) != g->result) {
                set_err(err, "%s:%d: [Score \"%s\"] contradicts [Result \"%s\"]", nm, pg->line[T_SCORE],
                        pg->value[T_SCORE], pg->value[T_RESULT]);
                return RECORD_EINVAL;
            }
            g->store_south = a;
            g->store_north = b;
        } else if (a != g->store_south || b != g->store_north) {
            set_err(err, "%s:%d: [Score \"%s\"] but replaying the moves gives %d-%d", nm, pg->line[T_SCORE],
                    pg->value[T_SCORE], g->store_south, g->store_north);
            return RECORD_EINVAL;
        }
    }
    return RECORD_OK;
}

/* [Opening]: a whole number of the game's moves. */
static int check_opening(const char *nm, const pending_game *pg, record_game *g, char *err)
{
    long v;
    if (pg->value[T_OPENING]) {
        if (parse_whole(pg->value[T_OPENING], 0, g->n_moves, &v)) {
            set_err(err, "%s:%d: [Opening \"%s\"] is not a whole number of moves in 0..%d", nm, pg->line[T_OPENING],
                    pg->value[T_OPENING], g->n_moves);
            return RECORD_EINVAL;
        }
        g->opening = (int)v;
    }
    return RECORD_OK;
}

static int parse_result(const char *t, int np, int *places);

/* [Termination]: kept; "forfeit by SEAT..." and "time forfeit" set g->forfeit, "adjudication" g->adjudicated
 * (before the replay that gives the result). */
static int check_termination(const char *nm, const pending_game *pg, record_game *g, int np, char *err)
{
    const char *t = pg->value[T_TERMINATION];
    if (!t)
        return RECORD_OK;
    if (record_set(&g->termination, t)) {
        set_err(err, "out of memory");
        return RECORD_ENOMEM;
    }
    if (!strcmp(t, "adjudication")) {
        if (np != 2) {
            set_err(err, "%s:%d: [Termination \"adjudication\"] in a game of %d players (two-player games only)", nm,
                    pg->line[T_TERMINATION], np);
            return RECORD_EINVAL;
        }
        g->adjudicated = 1;
        return RECORD_OK;
    }
    if (!strcmp(t, "time forfeit")) { /* the seat the result puts last, alone, the others first */
        int places[GAME_MAX_PLAYERS], r = pg->value[T_RESULT] ? parse_result(pg->value[T_RESULT], np, places) : -9;
        int last = -1, n_last = 0, n_first = 0;
        for (int q = 0; r >= -1 && r != RECORD_UNFINISHED && r != RECORD_DRAW && q < np; q++) {
            n_first += places[q] == 1;
            if (places[q] == np) {
                last = q;
                n_last++;
            }
        }
        if (last < 0 || n_last != 1 || n_first != np - 1) {
            set_err(err, "%s:%d: [Termination \"time forfeit\"] needs a [Result] with one seat last and the others "
                    "first (got \"%s\")", nm, pg->line[T_TERMINATION], pg->value[T_RESULT] ? pg->value[T_RESULT] : "");
            return RECORD_EINVAL;
        }
        g->forfeit = last + 1;
        return RECORD_OK;
    }
    if (strncmp(t, "forfeit by ", 11))
        return RECORD_OK;
    for (int q = 0; q < np; q++) {
        char tag[24];
        seat_tag(np, q, 0, tag, sizeof tag);
        size_t n = strlen(tag);
        if (!strncmp(t + 11, tag, n) && (t[11 + n] == 0 || t[11 + n] == ':')) {
            g->forfeit = q + 1;
            return RECORD_OK;
        }
    }
    set_err(err, "%s:%d: [Termination \"%s\"]: 'forfeit by' names no seat of this game (%s)", nm,
            pg->line[T_TERMINATION], t, np == 2 ? "South or North" : "Seat0, Seat1, ...");
    return RECORD_EINVAL;
}

/* An adjudicated game, before its replay: its result and final scores from [Result] and [Score]
 * (record.h, "Forfeits"), which record_game_finish then keeps. */
static int adjudication_tags(const char *nm, const pending_game *pg, record_game *g, char *err)
{
    int places[GAME_MAX_PLAYERS], a, b, used = 0;
    if (!g->adjudicated)
        return RECORD_OK;
    int r = parse_result(pg->value[T_RESULT], 2, places);
    if (r < RECORD_NORTH_WINS || r > RECORD_SOUTH_WINS) {
        set_err(err, "%s:%d: [Termination \"adjudication\"] needs a decisive or drawn [Result], not \"%s\"", nm,
                pg->line[T_RESULT], pg->value[T_RESULT]);
        return RECORD_EINVAL;
    }
    if (!pg->value[T_SCORE] || sscanf(pg->value[T_SCORE], "%d-%d%n", &a, &b, &used) != 2 || pg->value[T_SCORE][used] ||
        (a > b) - (a < b) != r) {
        set_err(err, "%s:%d: [Termination \"adjudication\"] needs a [Score \"SOUTH-NORTH\"] that agrees with [Result "
                "\"%s\"]%s%s%s", nm, pg->line[T_TERMINATION], pg->value[T_RESULT], pg->value[T_SCORE] ? " (got \"" : "",
                pg->value[T_SCORE] ? pg->value[T_SCORE] : "", pg->value[T_SCORE] ? "\")" : "");
        return RECORD_EINVAL;
    }
    g->result = r;
    g->store_south = a;
    g->store_north = b;
    return RECORD_OK;
}

/* An adjudicated game, after its replay: the final scores can follow from where it stopped (each at least
 * its score there, the two adding up to the scores and the board's seeds there). */
static int adjudication_check(const char *nm, const pending_game *pg, const record_game *g, char *err)
{
    if (!g->adjudicated)
        return RECORD_OK;
    int s = 0, n = 0;
    game_score(g->game, &g->gfinal, 0, &s);
    game_score(g->game, &g->gfinal, 1, &n);
    const int board = game_board_seeds(g->game, &g->gfinal) - s - n; /* every seed there, the scores included */
    if (g->store_south < s || g->store_north < n || g->store_south + g->store_north != s + n + board) {
        set_err(err, "%s:%d: [Score \"%d-%d\"] cannot end an adjudicated game that stopped at %d-%d with %d seeds on "
                "the board", nm, pg->line[T_SCORE], g->store_south, g->store_north, s, n, board);
        return RECORD_EINVAL;
    }
    return RECORD_OK;
}

/* A forfeit or adjudication whose moves end the game (record_game_finish refused it). */
static int check_forfeit_end(const char *nm, const pending_game *pg, const record_game *g, int over, char *err)
{
    if ((g->forfeit || g->adjudicated) && over) {
        set_err(err, "%s:%d: [Termination \"%s\"] but the moves end the game", nm, pg->line[T_TERMINATION],
                pg->value[T_TERMINATION]);
        return RECORD_EINVAL;
    }
    return RECORD_OK;
}

/* Parses a result token of a game of np players: RECORD_* (RECORD_RANKED with places), or -9. */
static int parse_result(const char *t, int np, int *places)
{
    if (np == 2) {
        int r = result_from_token(t);
        if (r >= -1 && r != RECORD_UNFINISHED)
            places_from_result(r, places);
        return r;
    }
    if (!strcmp(t, "*"))
        return RECORD_UNFINISHED;
    if (places_from_token(t, places) != np)
        return -9;
    for (int q = 0; q < np; q++) { /* a ranking: each place is 1 + the seats strictly ahead */
        int ahead = 1;
        for (int r = 0; r < np; r++)
            ahead += places[r] < places[q];
        if (places[q] != ahead)
            return -9;
    }
    return RECORD_RANKED;
}

/* [Result] of a game of np players, whose moves (n_tokens of them) have been replayed into g: against the
 * result token and the replayed end; a result-only record takes its result (and places) from the tag. */
static int check_result(const char *nm, const pending_game *pg, record_game *g, int np, int n_tokens, char *err)
{
    int tag_places[GAME_MAX_PLAYERS], tok_places[GAME_MAX_PLAYERS];
    int tag_result = parse_result(pg->value[T_RESULT], np, tag_places);
    if (tag_result < -1) {
        set_err(err, "%s:%d: [Result \"%s\"] is not %s", nm, pg->line[T_RESULT], pg->value[T_RESULT],
                np == 2 ? "1-0, 0-1, 1/2-1/2 or *" : "the places per seat joined by '-' (e.g. 2-1-3) or *");
        return RECORD_EINVAL;
    }
    if (strcmp(pg->result_tok, pg->value[T_RESULT]) && (parse_result(pg->result_tok, np, tok_places) != tag_result ||
                                                        tag_result == RECORD_RANKED)) {
        set_err(err, "%s:%d: the moves end with '%s' but [Result] says \"%s\"", nm, pg->result_line, pg->result_tok,
                pg->value[T_RESULT]);
        return RECORD_EINVAL;
    }
    if (n_tokens == 0 && tag_result != RECORD_UNFINISHED && g->result == RECORD_UNFINISHED) {
        g->result_only = 1;
        g->result = tag_result;
        memcpy(g->places, tag_places, sizeof g->places);
    }
    if (tag_result != g->result || (tag_result == RECORD_RANKED && memcmp(tag_places, g->places, np * sizeof(int)))) {
        char got[16];
        set_err(err, "%s:%d: [Result \"%s\"] but replaying the moves gives %s", nm, pg->line[T_RESULT],
                pg->value[T_RESULT], g->result == RECORD_UNFINISHED ? "an unfinished game" :
                record_result_text(g, got, sizeof got));
        return RECORD_EINVAL;
    }
    return RECORD_OK;
}

/* The value of seat q's spec (name: its name) tag among np seats, and that tag's line; South/North stand
 * for Seat0/Seat1 in two-player games (Seat0/Seat1 are taken when a record gives both). */
static const char *seat_value(const pending_game *pg, int np, int q, int name, int *line)
{
    int t = (name ? T_SEAT0NAME : T_SEAT0) + q;
    if (np == 2 && !pg->value[t])
        t = name ? (q ? T_NORTHNAME : T_SOUTHNAME) : (q ? T_NORTH : T_SOUTH);
    *line = pg->line[t];
    return pg->value[t];
}

/* Validates a fully read game (tags and move tokens already collected) by replaying it through the game
 * interface; a record without [Rules] is Kalah's (record.h). */
static int validate_game(record_reader *rd, pending_game *pg, record_game *g, int first_line, char **tokens,
                         int n_tokens, char *err)
{
    const char *nm = rd->name;
    char gerr[GAME_ERRLEN], tag[24];
    game *gm = game_create(pg->value[T_RULES] ? pg->value[T_RULES] : "kalah", gerr);
    if (!gm) {
        set_err(err, "%s:%d: [Rules \"%s\"]: %s", nm, pg->line[T_RULES], pg->value[T_RULES], gerr);
        return RECORD_EINVAL;
    }
    int np = game_players(gm), line;
    for (int q = 0; q < np; q++)
        if (!seat_value(pg, np, q, 0, &line)) {
            seat_tag(np, q, 0, tag, sizeof tag);
            set_err(err, "%s:%d: the game has no [%s] tag", nm, first_line, tag);
            game_free(gm);
            return RECORD_EINVAL;
        }
    if (!pg->value[T_RESULT]) {
        set_err(err, "%s:%d: the game has no [Result] tag", nm, first_line);
        game_free(gm);
        return RECORD_EINVAL;
    }
    game_pos start;
    if (pg->value[T_START] && game_pos_parse(gm, pg->value[T_START], &start, gerr) != GAME_OK) {
        set_err(err, "%s:%d: [Start \"%s\"]: %s", nm, pg->line[T_START], pg->value[T_START], gerr);
        game_free(gm);
        return RECORD_EINVAL;
    }
    int rc = record_game_init_game(g, gm, pg->value[T_START] ? &start : NULL, err);
    game_free(gm);
    if (rc)
        return rc;
    gm = g->game;
    for (int q = 0; q < np; q++)
        if (record_set_seat(g, q, seat_value(pg, np, q, 0, &line), seat_value(pg, np, q, 1, &line))) {
            set_err(err, "out of memory");
            return RECORD_ENOMEM;
        }
    if (record_set(&g->event, pg->value[T_EVENT]) || record_set(&g->date, pg->value[T_DATE])) {
        set_err(err, "out of memory");
        return RECORD_ENOMEM;
    }
    g->line = first_line;
    if (check_round(nm, pg, g, err))
        return RECORD_EINVAL;
    rc = check_termination(nm, pg, g, np, err);
    if (rc)
        return rc;
    game_pos p = g->gstart;
    for (int i = 0; i < n_tokens; i++) {
        if (p.over) {
            set_err(err, "%s:%d: move %d '%s': the game is already over", nm, pg->move_line[i], i + 1, tokens[i]);
            return RECORD_EINVAL;
        }
        int k = game_move_parse(gm, &p, tokens[i], gerr);
        if (k < 0) {
            set_err(err, "%s:%d: move %d '%s': %s", nm, pg->move_line[i], i + 1, tokens[i], gerr);
            return RECORD_EINVAL;
        }
        if (game_apply(gm, &p, k, NULL) != GAME_OK) {
            set_err(err, "%s:%d: move %d '%s': not a legal move here (an empty pit, or one this rule forbids)", nm,
                    pg->move_line[i], i + 1, tokens[i]);
            return RECORD_EINVAL;
        }
        if (record_push(g, k)) {
            set_err(err, "out of memory");
            return RECORD_ENOMEM;
        }
    }
    if (adjudication_tags(nm, pg, g, err))
        return RECORD_EINVAL;
    finish_game(g, NULL);
    if (check_forfeit_end(nm, pg, g, p.over, err) || adjudication_check(nm, pg, g, err) ||
        check_result(nm, pg, g, np, n_tokens, err))
        return RECORD_EINVAL;
    int sc;
    if (pg->value[T_SCORE] && (np != 2 || !game_score(gm, &g->gfinal, 0, &sc))) {
        set_err(err, "%s:%d: [Score] in a game without a two-player score", nm, pg->line[T_SCORE]);
        return RECORD_EINVAL;
    }
    rc = check_score(nm, pg, g, err);
    return rc ? rc : check_opening(nm, pg, g, err);
}

int record_read(record_reader *rd, record_game *g, char *err)
{
    memset(g, 0, sizeof *g);
    pending_game pg;
    memset(&pg, 0, sizeof pg);
    char **tokens = NULL;
    int n_tokens = 0, cap_tokens = 0, rc = RECORD_EINVAL;
    const char *nm = rd->name;
    char *s;
    while ((s = next_line(rd)) && is_blank(s))
        ;
    if (!s) {
        if (ferror(rd->f)) {
            set_err(err, "%s: read error", nm);
            return RECORD_EIO;
        }
        return RECORD_EOF;
    }
    int first_line = rd->lineno;
    /* Tags, up to the first line that is not a tag. */
    for (; s && !is_blank(s); s = next_line(rd)) {
        const char *t = s;
        while (*t == ' ' || *t == '\t')
            t++;
        if (*t != '[') {
            if (rd->lineno == first_line) {
                set_err(err, "%s:%d: expected a tag line [Name \"value\"]", nm, rd->lineno);
                goto out;
            }
            break; /* move text right after the tags, without the blank line: accepted */
        }
        char *name, *value;
        if (parse_tag(s, &name, &value)) {
            set_err(err, "%s:%d: malformed tag line (expected [Name \"value\"])", nm, rd->lineno);
            goto out;
        }
        for (int i = 0; i < T_COUNT; i++)
            if (!strcmp(name, tag_names[i])) {
                if (pg.value[i]) {
                    set_err(err, "%s:%d: [%s] given twice (first on line %d)", nm, rd->lineno, name, pg.line[i]);
                    goto out;
                }
                if (!(pg.value[i] = strdup(value))) {
                    set_err(err, "out of memory");
                    rc = RECORD_ENOMEM;
                    goto out;
                }
                pg.line[i] = rd->lineno;
            }
    }
    /* Move text, up to a blank line or the end of the file; the last token is the result. */
    while (s && is_blank(s))
        s = next_line(rd);
    int last_line = rd->lineno;
    for (; s && !is_blank(s); s = next_line(rd)) {
        const char *t = s;
        while (*t == ' ' || *t == '\t')
            t++;
        if (*t == '[') {
            set_err(err, "%s:%d: a tag line inside the moves (is a blank line or a result missing before it?)", nm,
                    rd->lineno);
            goto out;
        }
        last_line = rd->lineno;
        char *save = NULL;
        for (char *tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            if (pg.result_tok[0]) {
                set_err(err, "%s:%d: '%s' after the result '%s'", nm, rd->lineno, tok, pg.result_tok);
                goto out;
            }
            if (is_result_token(tok)) {
                snprintf(pg.result_tok, sizeof pg.result_tok, "%s", tok);
                pg.result_line = rd->lineno;
                continue;
            }
            if (n_tokens == cap_tokens) {
                cap_tokens = cap_tokens ? 2 * cap_tokens : 64;
                char **nt = realloc(tokens, (size_t)cap_tokens * sizeof *nt);
                int *nl = realloc(pg.move_line, (size_t)cap_tokens * sizeof *nl);
                if (nt)
                    tokens = nt;
                if (nl)
                    pg.move_line = nl;
                if (!nt || !nl) {
                    set_err(err, "out of memory");
                    rc = RECORD_ENOMEM;
                    goto out;
                }
            }
            pg.move_line[n_tokens] = rd->lineno;
            if (!(tokens[n_tokens++] = strdup(tok))) {
                n_tokens--;
                set_err(err, "out of memory");
                rc = RECORD_ENOMEM;
                goto out;
            }
        }
    }
    if (!pg.result_tok[0]) {
        set_err(err, "%s:%d: the moves end without a result (1-0, 0-1, 1/2-1/2, places such as 2-1-3, or *)", nm,
                last_line);
        goto out;
    }
    rc = validate_game(rd, &pg, g, first_line, tokens, n_tokens, err);
out:
    for (int i = 0; i < n_tokens; i++)
        free(tokens[i]);
    free(tokens);
    pending_free(&pg);
    if (rc)
        record_game_clear(g);
    return rc;
}

void record_games_free(record_game *games, int n)
{
    for (int i = 0; i < n; i++)
        record_game_clear(&games[i]);
    free(games);
}

int record_read_file(const char *path, record_game **games, int *n, char *err)
{
    *games = NULL;
    *n = 0;
    record_reader *rd = record_reader_open(path, err);
    if (!rd)
        return RECORD_EIO;
    record_game *arr = NULL;
    int count = 0, cap = 0, rc;
    for (;;) {
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            record_game *na = realloc(arr, (size_t)cap * sizeof *na);
            if (!na) {
                set_err(err, "out of memory");
                rc = RECORD_ENOMEM;
                break;
            }
            arr = na;
        }
        rc = record_read(rd, &arr[count], err);
        if (rc)
            break;
        count++;
    }
    record_reader_free(rd);
    if (rc != RECORD_EOF) {
        record_games_free(arr, count);
        return rc;
    }
    *games = arr;
    *n = count;
    return RECORD_OK;
}

int record_read_text(const char *text, const char *name, record_game *g, char *err)
{
    memset(g, 0, sizeof *g);
    if (!*text)
        return RECORD_EOF;
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    record_reader *rd = f ? record_reader_from_stream(f, name, err) : NULL;
    if (!rd) {
        if (f)
            fclose(f);
        else
            set_err(err, "out of memory");
        return RECORD_ENOMEM;
    }
    int rc = record_read(rd, g, err);
    record_reader_free(rd);
    fclose(f);
    return rc;
}
