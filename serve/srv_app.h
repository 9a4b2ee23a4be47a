/* srv_app.h — the game server's logic, independent of HTTP: sessions and the JSON API of `sowzero serve`
 * (every endpoint, request and response is documented in README.md, "Play in a browser").
 *
 * A session is one game between the page's player (one seat) and a configured agent (every other seat,
 * one agent instance per seat, built from the agent's spec for the game's rules). Sessions are bounded in
 * number (max_sessions; when the table is full the ones idle longer than idle_s are dropped, else a new
 * game is refused with 503) and in length (max_plies moves). Every agent search is bounded
 * (srv_spec_bound, serve/srv_player.h), and so is the solver (solve_seeds, solve_nodes: serve/srv_solve.h).
 *
 * Threads: srv_app_handle may be called from many threads at once. A table lock guards the session table
 * and reference counts; each session has its own lock, held for the whole request, so one slow search
 * blocks only its own game.
 *
 * Status codes: 200 ok; 400 a malformed request (not JSON, not an object, a missing or mistyped field,
 * a bad session id); 404 unknown endpoint or session; 405 wrong method; 409 the request does not fit the
 * game's state (not your turn, game over, nothing to undo, move limit); 413 body too large; 415 a POST
 * whose Content-Type is not application/json; 422 a well-formed value that names nothing valid (unknown
 * game or agent, illegal move, bad position or record); 500 an agent failed; 503 no room for a session.
 * Every error body is {"error": message, "status": code}.
 */
#ifndef SOWZERO_SRV_APP_H
#define SOWZERO_SRV_APP_H

#include <stddef.h>
#include <stdint.h>

#include "serve/srv_game.h"

typedef struct {
    int max_sessions;     /* live sessions at most (default 256) */
    int idle_s;           /* a session idle this long may be dropped (default 1800 s) */
    size_t max_body;      /* request bodies above this many bytes get 413 (default 65536) */
    int max_ms;           /* bound of an ab agent's search, ms per move (default 2000) */
    int max_sims;         /* bound of mcts / az simulations per move (default 20000) */
    int max_plies;        /* moves per game (default 2000) */
    int solve_seeds;      /* the solver runs when at most this many seeds are in the pits (default 20) */
    uint64_t solve_nodes; /* node budget of one analysis' solver (default 3000000) */
} srv_limits;

srv_limits srv_limits_default(void);

typedef struct srv_app srv_app;

/* An app serving the agents NAME=SPEC (names[i], specs[i], n >= 1; names unique, 1..32 characters of
 * [A-Za-z0-9_.-]) for the games of games[0..n_games) (rules specs of the game interface, env/game.h;
 * NULL = the default list: kalah, kalah:pits=4,seeds=3, congklak, oware, basico:players=2, basico:players=3,
 * basico:players=4). Every spec is bounded
 * (srv_spec_bound) and tried on every game: an agent is offered for the games it can play (a Kalah-only kind
 * such as ab is not offered for básico); a spec that fits no game, a bad name, or a bad game is an error.
 * Games get their seeds (agents' randomness, the "random" side) from a generator started at seed; 0 = from
 * the system's random bytes. Session ids always come from the system's random bytes.
 * NULL with the message in err (SRV_ERRLEN). */
srv_app *srv_app_create(const srv_limits *lim, uint64_t seed, int n, const char *const *names, const char *const *specs,
                        int n_games, const char *const *games, char *err);
void srv_app_free(srv_app *app);

/* One API request: method ("GET", "POST", ...), path (starting with "/api/"), the session query parameter
 * (NULL when absent), the body (len bytes, NULL when none; need not be NUL-terminated) and its Content-Type
 * (NULL when absent). Returns the HTTP status; *out is a malloc'd body the caller frees (*out_len bytes) and
 * *out_type its Content-Type (static); the body is valid UTF-8 (request text it echoes that is not has
 * U+FFFD in place of each stray byte). Never fails to produce a body unless out of memory (then *out is
 * NULL and the status 500). */
int srv_app_handle(srv_app *app, const char *method, const char *path, const char *session_q, const char *body,
                   size_t len, const char *content_type, char **out, size_t *out_len, const char **out_type);

/* The body limit (lim.max_body) the HTTP layer reads up to. */
size_t srv_app_max_body(const srv_app *app);

/* The canonical rules spec of served game i (0..), or NULL past the last. */
const char *srv_app_game(const srv_app *app, int i);

/* Live sessions (for tests and the shutdown message). */
int srv_app_sessions(srv_app *app);

#endif
