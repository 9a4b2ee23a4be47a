#!/usr/bin/python3
"""The JSON API of `sowzero serve`: 200 games played at once to the end (Kalah and basico against
random and greedy), each final board checked against /api/replay and a sample against `sowzero replay`;
more than 50 kinds of bad request, each answered with its 4xx and a JSON error; the session bounds (count,
idle expiry); a clean exit on SIGINT and SIGTERM.

usage: serve_api.py SOWZERO_BIN        exit 0 ok, 1 failure. Only 127.0.0.1 is contacted; loops are bounded.
"""
import http.client
import json
import random
import signal
import subprocess
import sys
import threading
import time

BIN = sys.argv[1]
JSON = {"Content-Type": "application/json"}
KALAH = "kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0"
BASICO = "basico:players=3,pits=6,seeds=4,full_ranking=1"


def fail(msg):
    raise AssertionError(msg)


class Server:
    def __init__(self, *args):
        self.p = subprocess.Popen([BIN, "serve", "--port", "0", "--json", *args], stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        if not line:
            fail(f"sowzero serve {' '.join(args)} did not start")
        self.port = json.loads(line)["port"]

    def conn(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def stop(self, sig=signal.SIGTERM):
        self.p.send_signal(sig)
        try:
            rc = self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("the server did not stop within 30 s")
        if rc != 0:
            fail(f"the server exited {rc} on signal {sig}")


def call(c, method, path, body=None, headers=None, raw=None):
    """One request; returns (status, parsed JSON or text)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    h = dict(JSON if body is not None and headers is None else headers or {})
    try:
        c.request(method, path, body=data, headers=h)
    except (BrokenPipeError, ConnectionResetError):
        pass   # a refused body: the server may answer (413) and close before the client has sent it all
    r = c.getresponse()
    text = r.read().decode()
    if r.getheader("Content-Type", "").startswith("application/json"):
        return r.status, json.loads(text)
    return r.status, text


def ok(c, method, path, body=None):
    st, out = call(c, method, path, body)
    if st != 200:
        fail(f"{method} {path} {body}: {st} {out}")
    return out


def play(c, sess, rng, limit=3000):
    """Plays the session to its end: random legal moves for the human, /api/agent for the agent."""
    st = ok(c, "GET", f"/api/state?session={sess}")
    for _ in range(limit):
        if st["turn"] == "over":
            return st
        if st["turn"] == "human":
            st = ok(c, "POST", "/api/move", {"session": sess, "move": rng.choice(st["board"]["legal"])})
        else:
            st = ok(c, "POST", "/api/agent", {"session": sess})
    fail(f"session {sess} did not end in {limit} requests")


def concurrent_games(srv):
    c = srv.conn()
    kinds = [(KALAH, "random"), (KALAH, "greedy"), (BASICO, "random"), (BASICO, "greedy"),
             ("congklak", "random"), ("oware", "greedy"), (KALAH, "ab"), ("basico:players=4", "random")]
    sessions = []
    for i in range(200):
        game, agent = kinds[i % len(kinds)]
        st = ok(c, "POST", "/api/new", {"game": game, "agent": agent, "side": ["first", "second", "random"][i % 3]})
        sessions.append((game, st["session"]))
    finals, errors = {}, []

    def worker(w):
        try:
            cw, rng = srv.conn(), random.Random(w)
            mine = sessions[w::20]
            states = {s: ok(cw, "GET", f"/api/state?session={s}") for _, s in mine}
            # interleave: one request per live game per round, so all 200 games are in play at once
            for _ in range(3000):
                live = [s for s in states if states[s]["turn"] != "over"]
                if not live:
                    break
                for s in live:
                    st = states[s]
                    if st["turn"] == "human":
                        states[s] = ok(cw, "POST", "/api/move", {"session": s, "move": rng.choice(st["board"]["legal"])})
                    else:
                        states[s] = ok(cw, "POST", "/api/agent", {"session": s})
            finals.update(states)
        except Exception as e:  # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    if errors or len(finals) != 200:
        fail(f"concurrent games: {len(finals)} finished, errors {errors[:3]}")
    # a new connection: the server closes one idle for 30 s (srv_http.c), as c was while the games ran slowly
    # (a TSan build on a loaded machine took 50 s)
    c.close()
    c = srv.conn()
    for i, (game, s) in enumerate(sessions):
        st = finals[s]
        if st["turn"] != "over" or not st["board"]["over"]:
            fail(f"game {s} is not over")
        rp = ok(c, "POST", "/api/replay", {"game": game, "moves": st["moves"]})
        if rp["steps"][-1]["board"] != st["board"]:
            fail(f"game {s}: /api/replay of its moves ends elsewhere")
        rec = ok(c, "GET", f"/api/record?session={s}")
        rr = ok(c, "POST", "/api/replay", {"record": rec})
        if rr["steps"][-1]["board"]["cells"] != st["board"]["cells"]:
            fail(f"game {s}: its downloaded record replays to another board")
        if i % 5 == 0:
            out = subprocess.run([BIN, "replay", "--rules", game, "--json", *st["moves"]], capture_output=True,
                                 text=True, timeout=60)
            pos = json.loads(out.stdout)["positions"][-1]
            if pos != st["board"]["position"]:
                fail(f"game {s}: sowzero replay gives {pos}, the server {st['board']['position']}")
    return len(sessions)


def bad_requests(srv):
    c = srv.conn()
    new = ok(c, "POST", "/api/new", {"game": KALAH, "agent": "greedy", "side": "first"})
    s = new["session"]
    agent_turn = ok(c, "POST", "/api/new", {"game": KALAH, "agent": "greedy", "side": "second"})["session"]
    ok(c, "POST", "/api/move", {"session": s, "move": "c"})        # an extra turn: c is empty now, South moves
    done = ok(c, "POST", "/api/new", {"game": "kalah:pits=4,seeds=3", "agent": "random", "side": "first"})["session"]
    play(c, done, random.Random(5))
    gone = ok(c, "POST", "/api/new", {"game": KALAH, "agent": "random"})["session"]
    ok(c, "POST", "/api/close", {"session": gone})
    b = ok(c, "POST", "/api/new", {"game": BASICO, "agent": "random", "side": "first"})["session"]
    unknown = "0123456789abcdef0123456789abcdef"
    rec = ok(c, "GET", f"/api/record?session={done}")
    bad_result = rec.replace('[Result "1-0"]', '[Result "0-1"]') if '"1-0"' in rec else rec.replace(
        '[Result "0-1"]', '[Result "1-0"]').replace('[Result "1/2-1/2"]', '[Result "1-0"]')
    cases = [
        # (what, method, path, json body or None, headers or None, raw body or None, status)
        ("unknown endpoint GET", "GET", "/api/nope", None, None, None, 404),
        ("unknown endpoint POST", "POST", "/api/nope", {}, None, None, 404),
        ("no page", "GET", "/nope.html", None, None, None, 404),
        ("POST to the page", "POST", "/", {}, None, None, 405),
        ("GET /api/new", "GET", "/api/new", None, None, None, 405),
        ("PUT /api/new", "PUT", "/api/new", {}, None, None, 405),
        ("DELETE /api/move", "DELETE", "/api/move", None, None, None, 405),
        ("POST /api/info", "POST", "/api/info", {}, None, None, 405),
        ("GET /api/move", "GET", "/api/move", None, None, None, 405),
        ("POST /api/state", "POST", "/api/state", {"session": s}, None, None, 405),
        ("no content type", "POST", "/api/new", None, {}, b'{"agent":"greedy"}', 415),
        ("text/plain", "POST", "/api/new", None, {"Content-Type": "text/plain"}, b'{"agent":"greedy"}', 415),
        ("application/jsonx", "POST", "/api/new", None, {"Content-Type": "application/jsonx"}, b'{}', 415),
        ("form", "POST", "/api/new", None, {"Content-Type": "application/x-www-form-urlencoded"}, b'a=1', 415),
        ("empty body", "POST", "/api/new", None, JSON, b'', 400),
        ("malformed JSON", "POST", "/api/new", None, JSON, b'{"agent":', 400),
        ("trailing garbage", "POST", "/api/new", None, JSON, b'{"agent":"greedy"} x', 400),
        ("JSON array", "POST", "/api/new", [], None, None, 400),
        ("JSON string", "POST", "/api/new", "x", None, None, 400),
        ("JSON number", "POST", "/api/new", 7, None, None, 400),
        ("NUL byte", "POST", "/api/new", None, JSON, b'{"agent":"greedy"}\x00', 400),
        ("deep nesting", "POST", "/api/new", None, JSON, b'[' * 5000 + b']' * 5000, 400),
        ("new: no agent", "POST", "/api/new", {"game": KALAH}, None, None, 400),
        ("new: agent a number", "POST", "/api/new", {"agent": 3}, None, None, 400),
        ("new: unknown agent", "POST", "/api/new", {"agent": "nobody"}, None, None, 422),
        ("new: unknown game", "POST", "/api/new", {"agent": "greedy", "game": "chess"}, None, None, 422),
        ("new: bad rules value", "POST", "/api/new", {"agent": "greedy", "game": "kalah:pits=99"}, None, None, 422),
        ("new: bad rules key", "POST", "/api/new", {"agent": "greedy", "game": "kalah:pots=6"}, None, None, 422),
        ("new: game not served", "POST", "/api/new", {"agent": "greedy", "game": "kalah:pits=5"}, None, None, 422),
        ("new: game a number", "POST", "/api/new", {"agent": "greedy", "game": 6}, None, None, 400),
        ("new: side unknown", "POST", "/api/new", {"agent": "greedy", "side": "middle"}, None, None, 400),
        ("new: seat out of range", "POST", "/api/new", {"agent": "greedy", "side": 5}, None, None, 400),
        ("new: seat not whole", "POST", "/api/new", {"agent": "greedy", "side": 0.5}, None, None, 400),
        ("new: negative seed", "POST", "/api/new", {"agent": "greedy", "seed": -1}, None, None, 400),
        ("new: seed a string", "POST", "/api/new", {"agent": "greedy", "seed": "x"}, None, None, 400),
        ("new: bad start", "POST", "/api/new", {"agent": "greedy", "start": "4,4 S"}, None, None, 422),
        ("new: start total", "POST", "/api/new", {"agent": "greedy", "start": "5,4,4,4,4,4,0,4,4,4,4,4,4,0 S"}, None, None, 422),
        ("new: start a number", "POST", "/api/new", {"agent": "greedy", "start": 1}, None, None, 400),
        ("new: ab for basico", "POST", "/api/new", {"agent": "ab", "game": BASICO}, None, None, 422),
        ("move: no session", "POST", "/api/move", {"move": "a"}, None, None, 400),
        ("move: session a number", "POST", "/api/move", {"session": 1, "move": "a"}, None, None, 400),
        ("move: session not an id", "POST", "/api/move", {"session": "xyz", "move": "a"}, None, None, 400),
        ("move: session upper case", "POST", "/api/move", {"session": unknown.upper(), "move": "a"}, None, None, 400),
        ("move: unknown session", "POST", "/api/move", {"session": unknown, "move": "a"}, None, None, 404),
        ("move: closed session", "POST", "/api/move", {"session": gone, "move": "a"}, None, None, 404),
        ("move: no move", "POST", "/api/move", {"session": s}, None, None, 400),
        ("move: move a number", "POST", "/api/move", {"session": s, "move": 1}, None, None, 400),
        ("move: not a pit", "POST", "/api/move", {"session": s, "move": "z"}, None, None, 422),
        ("move: two letters", "POST", "/api/move", {"session": s, "move": "ab"}, None, None, 422),
        ("move: opponent's pit", "POST", "/api/move", {"session": s, "move": "A"}, None, None, 422),
        ("move: empty pit", "POST", "/api/move", {"session": s, "move": "c"}, None, None, 422),
        ("move: basico upper case", "POST", "/api/move", {"session": b, "move": "A"}, None, None, 422),
        ("move: agent's turn", "POST", "/api/move", {"session": agent_turn, "move": "a"}, None, None, 409),
        ("agent: human's turn", "POST", "/api/agent", {"session": s}, None, None, 409),
        ("move: game over", "POST", "/api/move", {"session": done, "move": "a"}, None, None, 409),
        ("agent: game over", "POST", "/api/agent", {"session": done}, None, None, 409),
        ("undo: nothing to undo", "POST", "/api/undo", {"session": agent_turn}, None, None, 409),
        ("hint: game over", "POST", "/api/hint", {"session": done}, None, None, 409),
        ("analysis: game over", "POST", "/api/analysis", {"session": done}, None, None, 409),
        ("state: no session", "GET", "/api/state", None, None, None, 400),
        ("state: bad session", "GET", "/api/state?session=zz", None, None, None, 400),
        ("state: unknown session", "GET", f"/api/state?session={unknown}", None, None, None, 404),
        ("record: unknown session", "GET", f"/api/record?session={unknown}", None, None, None, 404),
        ("GET with a body", "GET", f"/api/state?session={s}", None, JSON, b'{}', 400),
        ("replay: nothing", "POST", "/api/replay", {}, None, None, 400),
        ("replay: record a number", "POST", "/api/replay", {"record": 5}, None, None, 400),
        ("replay: moves missing", "POST", "/api/replay", {"game": KALAH}, None, None, 400),
        ("replay: moves a string", "POST", "/api/replay", {"game": KALAH, "moves": "c f"}, None, None, 400),
        ("replay: move a number", "POST", "/api/replay", {"game": KALAH, "moves": [3]}, None, None, 400),
        ("replay: illegal move", "POST", "/api/replay", {"game": KALAH, "moves": ["c", "c"]}, None, None, 422),
        ("replay: unknown game", "POST", "/api/replay", {"game": "go", "moves": []}, None, None, 422),
        ("replay: not a record", "POST", "/api/replay", {"record": "hello"}, None, None, 422),
        ("replay: wrong result", "POST", "/api/replay", {"record": bad_result}, None, None, 422),
        ("replay: bad basico record", "POST", "/api/replay",
         {"record": '[Rules "basico:players=3"]\n[Result "*"]\n\nz *\n'}, None, None, 422),
        ("body too large", "POST", "/api/new", None, JSON, b'{"agent":"' + b'x' * 70000 + b'"}', 413),
        ("close: unknown session", "POST", "/api/close", {"session": unknown}, None, None, 404),
    ]
    kinds = 0
    for what, method, path, body, headers, raw, want in cases:
        for attempt in range(5):   # the server may close a connection after a refused body; that is fine
            try:
                st, out = call(c, method, path, body, headers, raw)
                break
            except (http.client.HTTPException, OSError):
                c = srv.conn()
                if attempt == 4:
                    raise
        if st != want:
            fail(f"{what}: {method} {path} answered {st} {out}, expected {want}")
        if not isinstance(out, dict) or out.get("status") != want or not out.get("error"):
            fail(f"{what}: the answer is not a JSON error: {out}")
        kinds += 1
    if kinds < 50:
        fail(f"only {kinds} kinds of bad request")
    # Far past the limit (16x) the server drops the connection instead of reading on; either way no 2xx.
    try:
        st, _ = call(srv.conn(), "POST", "/api/new", None, JSON, b'{"agent":"' + b'x' * (17 * 65536) + b'"}')
        if st != 413:
            fail(f"a 1.1 MB body answered {st}")
    except (http.client.HTTPException, OSError):
        pass
    ok(srv.conn(), "GET", "/api/info")   # still serving
    return kinds


def bounds():
    srv = Server("--agent", "random=random", "--max-sessions", "2", "--idle", "1")
    try:
        c = srv.conn()
        ok(c, "POST", "/api/new", {"agent": "random"})
        ok(c, "POST", "/api/new", {"agent": "random"})
        st, out = call(c, "POST", "/api/new", {"agent": "random"})
        if st != 503 or out.get("status") != 503:
            fail(f"a third session on a 2-session server: {st} {out}")
        time.sleep(1.2)   # both sessions idle past --idle 1: the next game takes their room
        ok(c, "POST", "/api/new", {"agent": "random"})
    finally:
        srv.stop(signal.SIGINT)


def main():
    srv = Server("--agent", "random=random", "--agent", "greedy=greedy", "--agent", "ab=ab:depth=4", "--seed", "3",
                 "--threads", "4")
    try:
        t = time.time()
        n = concurrent_games(srv)
        t_games = time.time() - t
        k = bad_requests(srv)
    finally:
        srv.stop()
    bounds()
    print(f"ok: {n} concurrent games in {t_games:.1f} s, {k} kinds of bad request, bounds, clean exits")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print("FAIL:", e)
        sys.exit(1)
