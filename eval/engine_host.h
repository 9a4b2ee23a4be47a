/* engine_host.h — the engine side of the engine protocol (docs/protocol.md): one agent, created once (its
 * net and tables loaded once), answering KGP 1.x freeplay requests (`state <board>`, Kalah boards of any
 * size) and sowzero's extension (`sowzero go|analyse|rules|agent|newgame`, every registered game) on a pair
 * of file descriptors. `sowzero engine` serves stdin/stdout or a TCP port with it, `sowzero kgp connect` a
 * KGP server.
 *
 * Every request is answered before the next line is read (the search runs on the calling thread): a `state`
 * or `sowzero go` gets a first move at once (the game's greedy choice), the agent's move when its search
 * ends (when it differs), then `yield`; a `stop` that arrives meanwhile is read after the yield and has
 * nothing left to stop. A line that does not parse, an unknown command or a bad argument gets an `error`
 * answer (referring to the line's id when it has one) and the session goes on.
 *
 * Library code: no printing except the protocol's own answers on out_fd.
 */
#ifndef SOWZERO_ENGINE_HOST_H
#define SOWZERO_ENGINE_HOST_H

#include "env/game.h"

typedef struct engine_host engine_host;

/* The agent `spec` (eval/game_agent.h) for the rules `rules` (env/game.h; NULL = "kalah"). For Kalah, KGP
 * boards of another pit count get their own instance of the same spec, made at their first request (an az
 * net fits one board size only: such boards then get an error answer). NULL with a message in err
 * (AGENT_ERRLEN bytes) when the rules or the spec do not parse. */
engine_host *engine_host_create(const char *spec, const char *rules, char *err);

void engine_host_free(engine_host *h); /* NULL allowed */

/* The rules instance (owned by h). */
const game *engine_host_game(const engine_host *h);

/* Serves one peer: reads lines from in_fd and answers on out_fd until the input ends or the peer says
 * `goodbye` (answered with nothing). 0, or -1 when out_fd failed (the peer is gone). */
int engine_host_serve(engine_host *h, int in_fd, int out_fd);

/* 1 when the last session ended because the peer's `kgp` line named a protocol major version other than
 * 1 (answered with an error and `goodbye`), else 0. */
int engine_host_refused_version(const engine_host *h);

#endif
