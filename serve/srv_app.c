/* srv_app.c — sessions and the JSON API of `sowzero serve` (see srv_app.h and README.md). */
#define _GNU_SOURCE
#include "serve/srv_app.h"

#include <ctype.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "env/errbuf.h"
#include "serve/srv_player.h"
#include "serve/srv_record.h"
#include "serve/srv_solve.h"

#define set_err(err, ...) errbuf_set(err, SRV_ERRLEN, __VA_ARGS__)
#define SRV_MAX_AGENTS 32
#define SRV_MAX_GAMES 16
#define SRV_ID_LEN 32

static const char *const default_games[] = {"kalah",            "kalah:pits=4,seeds=3", "congklak", "oware",
                                            "basico:players=2", "basico:players=3",     "basico:players=4"};

typedef struct {
    char name[33];
    char spec[1100];     /* the bounded spec (srv_spec_bound) */
    unsigned games; /* bit g: offered for games[g] */
} app_agent;

typedef struct session {
    char id[SRV_ID_LEN + 1];
    pthread_mutex_t lock;
    int refs, dead;      /* table lock */
    time_t last;         /* table lock */
    srv_rules rules;
    int game;            /* index into app->games */
    int agent;           /* index into app->agents */
    int human;           /* the page's seat */
    uint64_t seed;
    srv_pos start, pos;
    srv_player *seat[SRV_MAX_PLAYERS]; /* NULL for the human's seat */
    uint8_t *moves;
    int n_moves;
} session;

struct srv_app {
    srv_limits lim;
    int n_agents, n_games;
    app_agent agents[SRV_MAX_AGENTS];
    srv_rules game_rules[SRV_MAX_GAMES]; /* owned */
    pthread_mutex_t mu;  /* the table */
    session **tab;       /* max_sessions slots */
    int live;
    uint64_t next_seed;
};

srv_limits srv_limits_default(void)
{
    srv_limits l = {256, 1800, 65536, 2000, 20000, 2000, 20, 3000000};
    return l;
}

/* ---- sessions ---- */

static void session_free(session *s)
{
    if (!s)
        return;
    for (int q = 0; q < SRV_MAX_PLAYERS; q++)
        srv_player_free(s->seat[q]);
    pthread_mutex_destroy(&s->lock);
    free(s->moves);
    free(s);
}

/* Finds and locks the session; NULL when unknown. */
static session *session_acquire(srv_app *app, const char *id)
{
    session *s = NULL;
    pthread_mutex_lock(&app->mu);
    for (int i = 0; i < app->lim.max_sessions; i++)
        if (app->tab[i] && !strcmp(app->tab[i]->id, id)) {
            s = app->tab[i];
            s->refs++;
            s->last = time(NULL);
            break;
        }
    pthread_mutex_unlock(&app->mu);
    if (s)
        pthread_mutex_lock(&s->lock);
    return s;
}

static void session_release(srv_app *app, session *s)
{
    pthread_mutex_unlock(&s->lock);
    pthread_mutex_lock(&app->mu);
    int gone = --s->refs == 0 && s->dead;
    s->last = time(NULL);
    pthread_mutex_unlock(&app->mu);
    if (gone)
        session_free(s);
}

/* Puts s in a free slot, dropping idle sessions first when the table is full. 0, or -1 when full. */
static int session_insert(srv_app *app, session *s)
{
    session *drop[64];
    int n_drop = 0, rc = -1;
    time_t now = time(NULL);
    pthread_mutex_lock(&app->mu);
    if (app->live >= app->lim.max_sessions)
        for (int i = 0; i < app->lim.max_sessions && n_drop < 64; i++) {
            session *t = app->tab[i];
            if (t && t->refs == 0 && now - t->last >= app->lim.idle_s) {
                drop[n_drop++] = t;
                app->tab[i] = NULL;
                app->live--;
            }
        }
    for (int i = 0; i < app->lim.max_sessions; i++)
        if (!app->tab[i]) {
            app->tab[i] = s;
            s->last = now;
            app->live++;
            rc = 0;
            break;
        }
    pthread_mutex_unlock(&app->mu);
    for (int i = 0; i < n_drop; i++)
        session_free(drop[i]);
    return rc;
}

/* Removes a session the caller holds (it is freed by the last release). */
static void session_close(srv_app *app, session *s)
{
    pthread_mutex_lock(&app->mu);
    for (int i = 0; i < app->lim.max_sessions; i++)
        if (app->tab[i] == s) {
            app->tab[i] = NULL;
            app->live--;
        }
    s->dead = 1;
    pthread_mutex_unlock(&app->mu);
}

const char *srv_app_game(const srv_app *app, int i)
{
    return i >= 0 && i < app->n_games ? srv_rules_spec(&app->game_rules[i]) : NULL;
}

size_t srv_app_max_body(const srv_app *app) { return app->lim.max_body; }

int srv_app_sessions(srv_app *app)
{
    pthread_mutex_lock(&app->mu);
    int n = app->live;
    pthread_mutex_unlock(&app->mu);
    return n;
}

/* ---- creation ---- */

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 32)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
            return 0;
    return 1;
}

srv_app *srv_app_create(const srv_limits *lim, uint64_t seed, int n, const char *const *names, const char *const *specs,
                        int n_games, const char *const *games, char *err)
{
    if (n < 1 || n > SRV_MAX_AGENTS) {
        set_err(err, "give 1..%d agents (NAME=SPEC), got %d", SRV_MAX_AGENTS, n);
        return NULL;
    }
    if (!games) {
        games = default_games;
        n_games = (int)(sizeof default_games / sizeof *default_games);
    }
    if (n_games < 1 || n_games > SRV_MAX_GAMES) {
        set_err(err, "give 1..%d games, got %d", SRV_MAX_GAMES, n_games);
        return NULL;
    }
    if (lim->max_sessions < 1 || lim->idle_s < 1 || lim->max_body < 64 || lim->max_ms < 1 || lim->max_sims < 1 ||
        lim->max_plies < 1 || lim->solve_seeds < 0) {
        set_err(err, "server limits out of range");
        return NULL;
    }
    srv_app *app = calloc(1, sizeof *app);
    if (!app || !(app->tab = calloc((size_t)lim->max_sessions, sizeof *app->tab))) {
        free(app);
        set_err(err, "out of memory");
        return NULL;
    }
    app->lim = *lim;
    pthread_mutex_init(&app->mu, NULL);
    for (int g = 0; g < n_games; g++) {
        if (srv_rules_parse(games[g], &app->game_rules[g], err) != SRV_OK)
            goto fail;
        app->n_games = g + 1;
        for (int h = 0; h < g; h++)
            if (!strcmp(srv_rules_spec(&app->game_rules[h]), srv_rules_spec(&app->game_rules[g]))) {
                set_err(err, "game '%s' is given twice", games[g]);
                goto fail;
            }
    }
    app->n_agents = n;
    for (int i = 0; i < n; i++) {
        app_agent *a = &app->agents[i];
        if (!name_ok(names[i])) {
            set_err(err, "agent name '%s': use 1..32 letters, digits, '_', '.' or '-'", names[i]);
            goto fail;
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(names[j], names[i])) {
                set_err(err, "agent name '%s' is given twice", names[i]);
                goto fail;
            }
        snprintf(a->name, sizeof a->name, "%s", names[i]);
        char e[SRV_ERRLEN];
        if (srv_spec_bound(specs[i], lim->max_ms, lim->max_sims, a->spec, sizeof a->spec, e) != SRV_OK) {
            set_err(err, "agent %s: %s", names[i], e);
            goto fail;
        }
        char first[SRV_ERRLEN] = "";
        for (int g = 0; g < n_games; g++) {
            srv_player *pl = srv_player_create(a->spec, &app->game_rules[g], e);
            if (pl)
                a->games |= 1u << g;
            else if (!first[0])
                snprintf(first, sizeof first, "%s", e);
            srv_player_free(pl);
        }
        if (!a->games) {
            set_err(err, "agent %s=%s fits none of the games: %s", names[i], specs[i], first);
            goto fail;
        }
    }
    if (!seed && getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = (uint64_t)time(NULL);
    app->next_seed = seed;
    return app;
fail:
    srv_app_free(app);
    return NULL;
}

void srv_app_free(srv_app *app)
{
    if (!app)
        return;
    for (int i = 0; app->tab && i < app->lim.max_sessions; i++)
        session_free(app->tab[i]);
    for (int g = 0; g < app->n_games; g++)
        srv_rules_free(&app->game_rules[g]);
    free(app->tab);
    pthread_mutex_destroy(&app->mu);
    free(app);
}

/* ---- responses ---- */

typedef struct {
    int status;
    cJSON *json;   /* the body, or NULL when text is */
    char *text;    /* a text/plain body (records) */
} reply;

static reply error_reply(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static reply error_reply(int status, const char *fmt, ...)
{
    char msg[SRV_ERRLEN + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    reply r = {status, cJSON_CreateObject(), NULL};
    if (r.json) {
        cJSON_AddStringToObject(r.json, "error", msg);
        cJSON_AddNumberToObject(r.json, "status", status);
    }
    return r;
}

static reply ok_reply(cJSON *o)
{
    reply r = {200, o, NULL};
    return r;
}

static const char *turn_name(const session *s)
{
    if (srv_over(&s->rules, &s->pos))
        return "over";
    return srv_to_move(&s->rules, &s->pos) == s->human ? "human" : "agent";
}

/* The whole state of a session (see README.md). */
static cJSON *state_json(srv_app *app, const session *s)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "session", s->id);
    cJSON_AddItemToObject(o, "layout", srv_layout_json(&s->rules));
    cJSON *ag = cJSON_AddObjectToObject(o, "agent");
    cJSON_AddStringToObject(ag, "name", app->agents[s->agent].name);
    cJSON_AddStringToObject(ag, "spec", app->agents[s->agent].spec);
    cJSON_AddNumberToObject(o, "human", s->human);
    cJSON *seats = cJSON_AddArrayToObject(o, "seats");
    for (int q = 0; q < s->rules.players; q++)
        cJSON_AddItemToArray(seats, cJSON_CreateString(q == s->human ? "human" : app->agents[s->agent].name));
    char buf[GAME_POS_STR];
    cJSON_AddStringToObject(o, "start", srv_pos_format(&s->rules, &s->start, buf, sizeof buf));
    cJSON *mv = cJSON_AddArrayToObject(o, "moves"), *movers = cJSON_AddArrayToObject(o, "movers");
    srv_pos p = s->start;
    for (int i = 0; i < s->n_moves; i++) {
        cJSON_AddItemToArray(mv, cJSON_CreateString(srv_move_text(&s->rules, &p, s->moves[i], buf)));
        cJSON_AddItemToArray(movers, cJSON_CreateNumber(srv_to_move(&s->rules, &p)));
        srv_play(&s->rules, &p, s->moves[i], NULL);
    }
    cJSON_AddItemToObject(o, "board", srv_board_json(&s->rules, &s->pos));
    cJSON_AddStringToObject(o, "turn", turn_name(s));
    return o;
}

/* Plays move k in the session (the caller has checked whose turn it is); appends the event to events. */
static reply session_play(srv_app *app, session *s, int k, cJSON *events)
{
    if (s->n_moves >= app->lim.max_plies)
        return error_reply(409, "the game has reached the server's limit of %d moves", app->lim.max_plies);
    srv_pos before = s->pos;
    srv_event ev;
    int rc = srv_play(&s->rules, &s->pos, k, &ev);
    if (rc != SRV_OK)
        return error_reply(422, "move %d is not legal here", k);
    s->moves[s->n_moves++] = (uint8_t)k;
    for (int q = 0; q < SRV_MAX_PLAYERS; q++)
        if (s->seat[q])
            srv_player_notify(s->seat[q], &before, k);
    cJSON *e = srv_event_json(&ev);
    cJSON_AddItemToObject(e, "board", srv_board_json(&s->rules, &s->pos));
    cJSON_AddItemToArray(events, e);
    reply r = {200, NULL, NULL};
    return r;
}

/* Any seat's agent instance (for hints and analysis: they are all built from the same spec). */
static srv_player *some_player(session *s)
{
    for (int q = 0; q < SRV_MAX_PLAYERS; q++)
        if (s->seat[q])
            return s->seat[q];
    return NULL;
}

/* Rebuilds pos from the moves and restarts every agent's game (after undo). */
static void session_rewind(session *s, int n_moves)
{
    s->n_moves = n_moves;
    s->pos = s->start;
    for (int q = 0; q < SRV_MAX_PLAYERS; q++)
        if (s->seat[q])
            srv_player_new_game(s->seat[q], &s->start, s->seed);
    for (int i = 0; i < n_moves; i++) {
        srv_pos before = s->pos;
        srv_play(&s->rules, &s->pos, s->moves[i], NULL);
        for (int q = 0; q < SRV_MAX_PLAYERS; q++)
            if (s->seat[q])
                srv_player_notify(s->seat[q], &before, s->moves[i]);
    }
}

/* ---- request fields ---- */

static const char *get_string(cJSON *req, const char *key, int required, reply *err)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);
    if (!v) {
        if (required)
            *err = error_reply(400, "field '%s' is missing", key);
        return NULL;
    }
    if (!cJSON_IsString(v) || !v->valuestring) {
        *err = error_reply(400, "field '%s' must be a string", key);
        return NULL;
    }
    return v->valuestring;
}

static int id_ok(const char *id)
{
    if (strlen(id) != SRV_ID_LEN)
        return 0;
    for (int i = 0; i < SRV_ID_LEN; i++)
        if (!isxdigit((unsigned char)id[i]) || isupper((unsigned char)id[i]))
            return 0;
    return 1;
}

/* The session named by id (a query parameter or the body's "session"), acquired; NULL with *err set. */
static session *find_session(srv_app *app, const char *id, reply *err)
{
    if (!id) {
        *err = error_reply(400, "field 'session' is missing");
        return NULL;
    }
    if (!id_ok(id)) {
        *err = error_reply(400, "session '%.40s' is not a session id (32 lower-case hex digits)", id);
        return NULL;
    }
    session *s = session_acquire(app, id);
    if (!s)
        *err = error_reply(404, "unknown session '%s' (it may have expired)", id);
    return s;
}

/* ---- endpoints ---- */

static reply api_info(srv_app *app)
{
    cJSON *o = cJSON_CreateObject(), *games = cJSON_AddArrayToObject(o, "games"),
          *agents = cJSON_AddArrayToObject(o, "agents");
    for (int g = 0; g < app->n_games; g++)
        cJSON_AddItemToArray(games, srv_layout_json(&app->game_rules[g]));
    for (int i = 0; i < app->n_agents; i++) {
        cJSON *a = cJSON_CreateObject(), *gl;
        cJSON_AddStringToObject(a, "name", app->agents[i].name);
        cJSON_AddStringToObject(a, "spec", app->agents[i].spec);
        gl = cJSON_AddArrayToObject(a, "games");
        for (int g = 0; g < app->n_games; g++)
            if (app->agents[i].games & (1u << g))
                cJSON_AddItemToArray(gl, cJSON_CreateString(srv_rules_spec(&app->game_rules[g])));
        cJSON_AddItemToArray(agents, a);
    }
    cJSON *l = cJSON_AddObjectToObject(o, "limits");
    cJSON_AddNumberToObject(l, "max_sessions", app->lim.max_sessions);
    cJSON_AddNumberToObject(l, "idle_s", app->lim.idle_s);
    cJSON_AddNumberToObject(l, "max_body", (double)app->lim.max_body);
    cJSON_AddNumberToObject(l, "max_plies", app->lim.max_plies);
    cJSON_AddNumberToObject(l, "solve_seeds", app->lim.solve_seeds);
    return ok_reply(o);
}

static reply api_new(srv_app *app, cJSON *req)
{
    reply err = {0};
    const char *game = get_string(req, "game", 0, &err), *agent_name = get_string(req, "agent", 1, &err);
    if (err.status)
        return err;
    srv_rules parsed;
    char e[SRV_ERRLEN], canon[GAME_SPEC_MAX];
    if (srv_rules_parse(game ? game : "kalah", &parsed, e) != SRV_OK)
        return error_reply(422, "game: %s", e);
    snprintf(canon, sizeof canon, "%s", srv_rules_spec(&parsed));
    srv_rules_free(&parsed);
    int g = -1, a = -1;
    for (int i = 0; i < app->n_games; i++)
        if (!strcmp(srv_rules_spec(&app->game_rules[i]), canon))
            g = i;
    if (g < 0)
        return error_reply(422, "game '%s' is not served here (see /api/info)", game);
    srv_rules rules = app->game_rules[g]; /* borrowed: the app owns its games */
    for (int i = 0; i < app->n_agents; i++)
        if (!strcmp(app->agents[i].name, agent_name))
            a = i;
    if (a < 0)
        return error_reply(422, "unknown agent '%s' (see /api/info)", agent_name);
    if (!(app->agents[a].games & (1u << g)))
        return error_reply(422, "agent '%s' does not play %s", agent_name, canon);
    int players = rules.players, human;
    pthread_mutex_lock(&app->mu);
    uint64_t seed = app->next_seed = app->next_seed * 6364136223846793005ULL + 1442695040888963407ULL;
    pthread_mutex_unlock(&app->mu);
    cJSON *side = cJSON_GetObjectItemCaseSensitive(req, "side"), *sd = cJSON_GetObjectItemCaseSensitive(req, "seed");
    if (sd) {
        if (!cJSON_IsNumber(sd) || sd->valuedouble < 0 || sd->valuedouble > 9007199254740991.0 ||
            sd->valuedouble != (double)(uint64_t)sd->valuedouble)
            return error_reply(400, "field 'seed' must be a whole number in 0..9007199254740991 (2^53 - 1, the "
                                    "largest a JSON number holds exactly)");
        seed = (uint64_t)sd->valuedouble;
    }
    if (!side || (cJSON_IsString(side) && !strcmp(side->valuestring, "first")))
        human = 0;
    else if (cJSON_IsString(side) && !strcmp(side->valuestring, "second"))
        human = 1;
    else if (cJSON_IsString(side) && !strcmp(side->valuestring, "random"))
        human = (int)((seed >> 33) % (uint64_t)players);
    else if (cJSON_IsNumber(side) && side->valuedouble >= 0 && side->valuedouble < players &&
             side->valuedouble == (int)side->valuedouble)
        human = (int)side->valuedouble;
    else
        return error_reply(400, "field 'side' must be \"first\", \"second\", \"random\" or a seat 0..%d", players - 1);
    session *s = calloc(1, sizeof *s);
    if (!s || !(s->moves = malloc((size_t)app->lim.max_plies))) {
        free(s);
        return error_reply(503, "out of memory");
    }
    pthread_mutex_init(&s->lock, NULL);
    s->rules = rules;
    s->game = g;
    s->agent = a;
    s->human = human;
    s->seed = seed;
    srv_start(&rules, &s->start);
    const char *start = get_string(req, "start", 0, &err);
    if (err.status) {
        session_free(s);
        return err;
    }
    if (start && srv_pos_parse(&rules, start, &s->start, e) != SRV_OK) {
        session_free(s);
        return error_reply(422, "start: %s", e);
    }
    s->pos = s->start;
    for (int q = 0; q < players; q++) {
        if (q == human)
            continue;
        if (!(s->seat[q] = srv_player_create(app->agents[a].spec, &rules, e))) {
            session_free(s);
            return error_reply(500, "agent '%s': %s", agent_name, e);
        }
        srv_player_new_game(s->seat[q], &s->start, seed);
    }
    uint8_t raw[SRV_ID_LEN / 2];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        session_free(s);
        return error_reply(500, "no random bytes for a session id");
    }
    for (int i = 0; i < SRV_ID_LEN / 2; i++)
        snprintf(s->id + 2 * i, 3, "%02x", raw[i]);
    if (session_insert(app, s) != 0) {
        session_free(s);
        return error_reply(503, "the server has no room for another game (%d live, none idle for %d s)",
                           app->lim.max_sessions, app->lim.idle_s);
    }
    pthread_mutex_lock(&s->lock); /* not yet visible to anyone holding its id, but keep the rule */
    cJSON *o = state_json(app, s);
    pthread_mutex_unlock(&s->lock);
    return ok_reply(o);
}

static reply with_events(srv_app *app, session *s, cJSON *events)
{
    cJSON *o = state_json(app, s);
    cJSON_AddItemToObject(o, "events", events);
    return ok_reply(o);
}

static reply api_move(srv_app *app, session *s, cJSON *req)
{
    reply err = {0};
    const char *mv = get_string(req, "move", 1, &err);
    if (err.status)
        return err;
    if (strcmp(turn_name(s), "human"))
        return error_reply(409, srv_over(&s->rules, &s->pos) ? "the game is over" : "it is the agent's turn");
    char e[SRV_ERRLEN];
    int k = srv_move_parse(&s->rules, &s->pos, mv, e);
    if (k < 0)
        return error_reply(422, "%s", e);
    cJSON *events = cJSON_CreateArray();
    reply r = session_play(app, s, k, events);
    if (r.status != 200) {
        cJSON_Delete(events);
        return r;
    }
    return with_events(app, s, events);
}

static reply api_agent(srv_app *app, session *s)
{
    if (strcmp(turn_name(s), "agent"))
        return error_reply(409, srv_over(&s->rules, &s->pos) ? "the game is over" : "it is the human's turn");
    srv_player *pl = s->seat[srv_to_move(&s->rules, &s->pos)];
    int k;
    char e[SRV_ERRLEN];
    if (srv_player_choose(pl, &s->pos, &k, e) != SRV_OK)
        return error_reply(500, "agent '%s' failed: %s", app->agents[s->agent].name, e);
    cJSON *events = cJSON_CreateArray();
    reply r = session_play(app, s, k, events);
    if (r.status != 200) {
        cJSON_Delete(events);
        return r;
    }
    cJSON *o = state_json(app, s);
    cJSON_AddItemToObject(o, "events", events);
    cJSON_AddItemToObject(o, "view", srv_player_view(pl));
    return ok_reply(o);
}

static reply api_undo(srv_app *app, session *s)
{
    /* Back to the human's turn before its last move: drop moves until a human move has been dropped. */
    srv_pos p = s->start;
    int last_human = -1;
    for (int i = 0; i < s->n_moves; i++) {
        if (srv_to_move(&s->rules, &p) == s->human)
            last_human = i;
        srv_play(&s->rules, &p, s->moves[i], NULL);
    }
    if (last_human < 0)
        return error_reply(409, "nothing to undo: no move of yours yet");
    session_rewind(s, last_human);
    return ok_reply(state_json(app, s));
}

static reply api_hint(srv_app *app, session *s, int analysis)
{
    if (srv_over(&s->rules, &s->pos))
        return error_reply(409, "the game is over");
    srv_player *pl = some_player(s);
    int k;
    char e[SRV_ERRLEN];
    if (srv_player_choose(pl, &s->pos, &k, e) != SRV_OK)
        return error_reply(500, "agent '%s' failed: %s", app->agents[s->agent].name, e);
    cJSON *o = cJSON_CreateObject();
    char l[8];
    cJSON_AddStringToObject(o, "session", s->id);
    cJSON_AddStringToObject(o, "move", srv_move_text(&s->rules, &s->pos, k, l));
    cJSON_AddStringToObject(o, "position", srv_pos_format(&s->rules, &s->pos, e, sizeof e));
    cJSON_AddItemToObject(o, "view", srv_player_view(pl));
    if (analysis)
        cJSON_AddItemToObject(o, "solver", srv_solve_moves(&s->rules, &s->pos, app->lim.solve_seeds,
                                                           app->lim.solve_nodes));
    return ok_reply(o);
}

static reply api_record(srv_app *app, session *s)
{
    char e[SRV_ERRLEN];
    const char *names[SRV_MAX_PLAYERS];
    for (int q = 0; q < s->rules.players; q++)
        names[q] = q == s->human ? "human" : app->agents[s->agent].spec;
    char *text = srv_record_write(&s->rules, &s->start, s->moves, s->n_moves, names, e);
    if (!text)
        return error_reply(500, "%s", e);
    reply r = {200, NULL, text};
    return r;
}

static reply api_replay(srv_app *app, cJSON *req)
{
    reply err = {0};
    const char *text = get_string(req, "record", 0, &err);
    if (err.status)
        return err;
    srv_rules rules;
    srv_pos start;
    uint8_t *moves = NULL;
    int n = 0;
    char e[SRV_ERRLEN];
    if (text) {
        if (srv_record_read(text, &rules, &start, &moves, &n, e) != SRV_OK)
            return error_reply(422, "record: %s", e);
    } else {
        const char *game = get_string(req, "game", 1, &err), *st = get_string(req, "start", 0, &err);
        cJSON *mv = cJSON_GetObjectItemCaseSensitive(req, "moves");
        if (err.status)
            return err;
        if (!cJSON_IsArray(mv))
            return error_reply(400, "field 'moves' must be an array of moves (or give 'record')");
        int cnt = cJSON_GetArraySize(mv);
        if (cnt > app->lim.max_plies)
            return error_reply(422, "%d moves is above the server's limit of %d", cnt, app->lim.max_plies);
        for (int i = 0; i < cnt; i++)
            if (!cJSON_IsString(cJSON_GetArrayItem(mv, i)))
                return error_reply(400, "moves[%d] must be a string", i);
        if (srv_rules_parse(game, &rules, e) != SRV_OK)
            return error_reply(422, "game: %s", e);
        srv_start(&rules, &start);
        reply bad = {0};
        if (st && srv_pos_parse(&rules, st, &start, e) != SRV_OK)
            bad = error_reply(422, "start: %s", e);
        else if (!(moves = malloc((size_t)cnt + 1)))
            bad = error_reply(500, "out of memory");
        srv_pos p = start;
        for (int i = 0; !bad.status && i < cnt; i++) {
            int k = srv_move_parse(&rules, &p, cJSON_GetArrayItem(mv, i)->valuestring, e);
            if (k < 0)
                bad = error_reply(422, "moves[%d]: %s", i, e);
            else {
                srv_play(&rules, &p, k, NULL);
                moves[n++] = (uint8_t)k;
            }
        }
        if (bad.status) {
            free(moves);
            srv_rules_free(&rules);
            return bad;
        }
    }
    cJSON *o = cJSON_CreateObject(), *steps;
    cJSON_AddItemToObject(o, "layout", srv_layout_json(&rules));
    cJSON_AddItemToObject(o, "start", srv_board_json(&rules, &start));
    steps = cJSON_AddArrayToObject(o, "steps");
    srv_pos p = start;
    for (int i = 0; i < n; i++) {
        srv_event ev;
        srv_play(&rules, &p, moves[i], &ev);
        cJSON *x = srv_event_json(&ev);
        cJSON_AddItemToObject(x, "board", srv_board_json(&rules, &p));
        cJSON_AddItemToArray(steps, x);
    }
    free(moves);
    srv_rules_free(&rules);
    return ok_reply(o);
}

/* ---- dispatch ---- */

/* What RFC 8259 forbids and cJSON lets through, or NULL: a raw control character in a string, the escape
 * \u0000 (a NUL inside a C string would cut the value short, and the rest would be ignored), a number with
 * a leading zero ("01") or a bare point ("1.", "1.e5"). The message (in buf[n]) names the byte. */
static const char *json_strict_problem(const char *body, size_t len, char *buf, size_t n)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)body[i];
        if (c == '"') {
            for (i++; i < len && body[i] != '"'; i++) {
                unsigned char d = (unsigned char)body[i];
                if (d < 0x20) {
                    snprintf(buf, n, "a raw control character (0x%02x) in a string at byte %zu: escape it", d, i);
                    return buf;
                }
                if (d == '\\' && i + 1 < len) {
                    if (body[i + 1] == 'u' && i + 5 < len && !strncmp(body + i + 2, "0000", 4)) {
                        snprintf(buf, n, "the escape \\u0000 (a NUL character) in a string at byte %zu", i);
                        return buf;
                    }
                    i++;
                }
            }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t at = i + (c == '-');
            if (at + 1 < len && body[at] == '0' && body[at + 1] >= '0' && body[at + 1] <= '9') {
                snprintf(buf, n, "a number with a leading zero at byte %zu", i);
                return buf;
            }
            while (at < len && body[at] >= '0' && body[at] <= '9')
                at++;
            if (at < len && body[at] == '.' && !(at + 1 < len && body[at + 1] >= '0' && body[at + 1] <= '9')) {
                snprintf(buf, n, "a number whose point has no digit after it at byte %zu", i);
                return buf;
            }
            while (at < len && ((body[at] >= '0' && body[at] <= '9') || strchr(".eE+-", body[at])))
                at++;
            i = at - 1;
        }
    }
    return NULL;
}

static reply dispatch(srv_app *app, const char *method, const char *path, const char *session_q, const char *body,
                      size_t len, const char *content_type)
{
    static const struct {
        const char *path, *method;
        int needs_session;
    } routes[] = {{"/api/info", "GET", 0},    {"/api/state", "GET", 1},  {"/api/record", "GET", 1},
                  {"/api/new", "POST", 0},    {"/api/move", "POST", 1},  {"/api/agent", "POST", 1},
                  {"/api/undo", "POST", 1},   {"/api/hint", "POST", 1},  {"/api/analysis", "POST", 1},
                  {"/api/replay", "POST", 0}, {"/api/close", "POST", 1}};
    int route = -1;
    for (size_t i = 0; i < sizeof routes / sizeof *routes; i++)
        if (!strcmp(path, routes[i].path))
            route = (int)i;
    if (route < 0)
        return error_reply(404, "unknown endpoint '%.80s'", path);
    if (strcmp(method, routes[route].method))
        return error_reply(405, "%s takes %s, not %.16s", path, routes[route].method, method);
    cJSON *req = NULL;
    if (!strcmp(method, "POST")) {
        if (!content_type || strncasecmp(content_type, "application/json", 16) ||
            (content_type[16] && content_type[16] != ';' && content_type[16] != ' '))
            return error_reply(415, "POST %s needs Content-Type: application/json (got %.60s)", path,
                               content_type ? content_type : "none");
        if (!body || !len)
            return error_reply(400, "the request body is empty: send a JSON object");
        if (memchr(body, 0, len))
            return error_reply(400, "the request body holds a NUL byte");
        char why[160];
        if (json_strict_problem(body, len, why, sizeof why))
            return error_reply(400, "the request body is not valid JSON: %s", why);
        const char *end = NULL;
        req = cJSON_ParseWithLengthOpts(body, len, &end, 0);
        /* One JSON value and nothing after it but white space. */
        size_t at = req && end ? (size_t)(end - body) : len;
        while (at < len && strchr(" \t\r\n", body[at]))
            at++;
        if (req && at < len) {
            cJSON_Delete(req);
            return error_reply(400, "the request body has text after its JSON value (byte %zu)", at);
        }
        if (!req)
            /* cJSON sets `end` at the error too; its global cJSON_GetErrorPtr is not thread-safe. */
            return error_reply(400, "the request body is not valid JSON (near byte %ld)", end ? (long)(end - body) : 0L);
        if (!cJSON_IsObject(req)) {
            cJSON_Delete(req);
            return error_reply(400, "the request body must be a JSON object");
        }
    } else if (len) {
        return error_reply(400, "GET %s takes no body", path);
    }
    reply r = {0};
    if (!routes[route].needs_session) {
        r = route == 0 ? api_info(app) : route == 3 ? api_new(app, req) : api_replay(app, req);
        cJSON_Delete(req);
        return r;
    }
    const char *id = session_q;
    if (req) {
        id = get_string(req, "session", 1, &r);
        if (r.status) {
            cJSON_Delete(req);
            return r;
        }
    }
    session *s = find_session(app, id, &r);
    if (!s) {
        cJSON_Delete(req);
        return r;
    }
    switch (route) {
    case 1: r = ok_reply(state_json(app, s)); break;
    case 2: r = api_record(app, s); break;
    case 4: r = api_move(app, s, req); break;
    case 5: r = api_agent(app, s); break;
    case 6: r = api_undo(app, s); break;
    case 7: r = api_hint(app, s, 0); break;
    case 8: r = api_hint(app, s, 1); break;
    default:
        session_close(app, s);
        r = ok_reply(cJSON_CreateObject());
        cJSON_AddBoolToObject(r.json, "closed", 1);
        break;
    }
    session_release(app, s);
    cJSON_Delete(req);
    return r;
}

/* Length of the well-formed UTF-8 sequence at s[0..n) (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF), or 0 when it is not one. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!len || len > n)
        return 0;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return len;
}

/* Replaces every byte that is not part of well-formed UTF-8 in the malloc'd text t (*len bytes) by U+FFFD.
 * Error messages echo request text (a session id, a move, a rules spec) that cJSON copies byte for byte;
 * this keeps every body valid UTF-8, so valid JSON (the bytes replaced are all inside strings: JSON's own
 * syntax is ASCII). Returns the text (t itself, or a new buffer with t freed), NULL when out of memory. */
static char *utf8_clean(char *t, size_t *len)
{
    const unsigned char *s = (const unsigned char *)t;
    size_t bad = 0;
    for (size_t i = 0, k; i < *len; i += k ? k : 1)
        bad += !(k = utf8_seq(s + i, *len - i));
    if (!bad)
        return t;
    char *o = malloc(*len + 2 * bad + 1);
    if (!o) {
        free(t);
        return NULL;
    }
    size_t m = 0;
    for (size_t i = 0, k; i < *len; i += k ? k : 1) {
        if ((k = utf8_seq(s + i, *len - i))) {
            memcpy(o + m, s + i, k);
            m += k;
        } else {
            memcpy(o + m, "\xef\xbf\xbd", 3);
            m += 3;
        }
    }
    o[m] = 0;
    free(t);
    *len = m;
    return o;
}

int srv_app_handle(srv_app *app, const char *method, const char *path, const char *session_q, const char *body,
                   size_t len, const char *content_type, char **out, size_t *out_len, const char **out_type)
{
    reply r;
    if (len > app->lim.max_body)
        r = error_reply(413, "the request body has %zu bytes; the limit is %zu", len, app->lim.max_body);
    else
        r = dispatch(app, method, path, session_q, body, len, content_type);
    *out = NULL;
    *out_len = 0;
    if (r.text) {
        *out = r.text;
        *out_type = "text/plain; charset=utf-8";
    } else {
        *out = r.json ? cJSON_PrintUnformatted(r.json) : NULL;
        *out_type = "application/json";
        cJSON_Delete(r.json);
    }
    if (!*out)
        return 500;
    *out_len = strlen(*out);
    if (!(*out = utf8_clean(*out, out_len)))
        return 500;
    return r.status;
}
