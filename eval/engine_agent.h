/* engine_agent.h — the `engine:` agent kind: an outside program that speaks the engine protocol
 * (docs/protocol.md: KGP 1.x freeplay, plus sowzero's extension for every game) on its stdin/stdout, played
 * through eval/game_agent.h wherever an agent is (match, tournament, play).
 *
 * Spec:  engine:cmd=COMMAND[,ms=1000][,cwd=DIR][,start_ms=5000][,proto=kgp|sowzero]
 *   cmd       run as `/bin/sh -c COMMAND` (so PATH, arguments and redirections work as in a shell). A value
 *             holding ',' or a quote is written in double quotes with \" and \\ escaped, or in single
 *             quotes taken literally: engine:cmd="python3 e.py --x 1,2",ms=200 or engine:cmd='a "b"',ms=50
 *   ms        time per move in milliseconds (1..3600000): the engine's last `move` when the time is up
 *             (the engine is then sent `stop`), or its move at `yield`
 *   cwd       the engine's working directory (must exist when the agent is created)
 *   start_ms  time for the handshake (kgp 1 0 0 → mode freeplay) of a freshly started engine
 *   proto     kgp: positions as KGP `state <board>` (Kalah only, the default there: any KGP engine plays);
 *             sowzero: `sowzero go "POSITION"` in the game's notation (every game; the default for games
 *             other than Kalah: `sowzero engine` speaks it)
 *   seed      accepted and ignored (the engine has its own randomness)
 *
 * Forfeits: an engine that answers with an illegal or out-of-range move, a line that is not a KGP command
 * (or an unexpected command, or `error`), no move within ms, or that exits or closes its output loses that
 * game: game_agent_choose returns AGENT_EFORFEIT with the reason in the error text, and the driver ends the
 * game there (eval/game_match.h). The process is then killed (its process group, SIGKILL) and reaped, and a
 * fresh one is started for the next move asked. Nothing an engine does can block sowzero past ms (+ start_ms
 * for a start): every wait is a poll() with a deadline, writes never raise SIGPIPE (a socketpair with
 * MSG_NOSIGNAL), exits are reaped with waitpid.
 *
 * Threads: one instance per thread, as every agent; the engine is started lazily at its first move, and its
 * descriptors are close-on-exec so engines of other threads never inherit them. Library code: no printing.
 */
#ifndef SOWZERO_ENGINE_AGENT_H
#define SOWZERO_ENGINE_AGENT_H

#include <stdint.h>

#include "env/game.h"

typedef struct engine_agent engine_agent;

/* 1 when spec names the engine kind ("engine" or "engine:..."). */
int engine_spec_is_engine(const char *spec);

/* Parses spec (see above) for game g (borrowed). NULL with a message naming the key or value in err
 * (AGENT_ERRLEN bytes). Starts nothing yet. */
engine_agent *engine_agent_create(const char *spec, const game *g, char *err);

/* Sends `goodbye`, waits up to 200 ms for the engine to exit, then kills and reaps it. NULL allowed. */
void engine_agent_free(engine_agent *e);

/* A new game: nothing is sent (KGP positions carry everything); a dead engine is restarted at the next move. */
void engine_agent_new_game(engine_agent *e);

/* The engine's move at p (unfinished): AGENT_OK with a legal slot in *move_out, AGENT_EFORFEIT (the reason in
 * engine_agent_error) or AGENT_EFAIL (p is not something the protocol can send: a KGP board of another game). */
int engine_agent_choose(engine_agent *e, const game_pos *p, int *move_out);

const char *engine_agent_error(const engine_agent *e);

/* A match's time control (eval/game_match.h) for every later choose, in place of the spec's ms: the move
 * the engine has sent when soft_ms have passed since the position was sent counts (it is then sent `stop`);
 * an engine with no move by then is waited for until hard_ms (>= soft_ms), its first move then counting
 * at once; none by hard_ms is a forfeit on time (engine_agent_timed_out). soft_ms <= 0: the spec's ms for
 * both, as before any call. */
void engine_agent_set_time(engine_agent *e, int64_t soft_ms, int64_t hard_ms);

/* 1 when the last choose's AGENT_EFORFEIT was for sending no move in its time. */
int engine_agent_timed_out(const engine_agent *e);

/* Milliseconds the last choose spent starting the engine and its handshake (0 when it was running): not
 * the engine's thinking, so a match's clock does not charge it. */
double engine_agent_start_ms(const engine_agent *e);

/* "engine:cmd=...,ms=..." with the engine's self-reported name (KGP `set info:name`) once it sent one (owned
 * by e; the text, once named, stays the same for e's life). */
const char *engine_agent_describe(const engine_agent *e);

#endif
