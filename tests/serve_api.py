#!/usr/bin/python3
"""The JSON API of `sowzero serve`: 200 games played at once to the end (Kalah and basico against
random and greedy), each final board checked against /api/replay and a sample against `sowzero replay`;
more than 50 kinds of bad request, each answered with its 4xx and a JSON error; the session bounds (count,
idle expiry); a clean exit on SIGINT and SIGTERM, answering the requests in flight, those queued behind
busy request threads included; --bind's addresses
and its refusals (exit 2); many or long query strings answered 414 JSON at once; UTF-8 bodies when the
request echoed holds stray bytes.

usage: serve_api.py SOWZERO_BIN        exit 0 ok, 1 failure. Only 127.0.0.1 is contacted; loops are bounded.
"""
import http.client
import json
import random
import signal
import socket
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
    def __init__(self, *args, port="0"):
        self.p = subprocess.Popen([BIN, "serve", "--port", port, "--json", *args], stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        if not line:
            fail(f"sowzero serve {' '.join(args)} did not start")
        self.info = json.loads(line)
        self.port = self.info["port"]
        self.host = self.info["bind"]

    def conn(self, timeout=60):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def stop(self, sig=signal.SIGTERM, send=True, want=0):
        if send:
            self.p.send_signal(sig)
        try:
            rc = self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("the server did not stop within 30 s")
        if rc != want:
            fail(f"the server exited {rc} on signal {sig}, expected {want}")


def call(c, method, path, body=None, headers=None, raw=None):
    """One request; returns (status, parsed JSON or text)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    h = dict(JSON if body is not None and headers is None else headers or {})
    try:
        c.request(method, path, body=data, headers=h)
    except (BrokenPipeError, ConnectionResetError):
        pass   # a refused body: the server may answer (413) and close before the client has sent it all
    r = c.getresponse()
    raw_body = r.read()
    try:
        text = raw_body.decode("utf-8")   # strict: a stray byte fails the test
    except UnicodeDecodeError:
        fail(f"{method} {path}: the body is not UTF-8: {raw_body[:200]!r}")
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
        ("NUL escape", "POST", "/api/new", None, JSON, b'{"agent":"greedy\\u0000junk"}', 400),
        ("raw tab in a string", "POST", "/api/new", None, JSON, b'{"agent":"gre\tedy"}', 400),
        ("leading zero", "POST", "/api/new", None, JSON, b'{"agent":"greedy","seed":01}', 400),
        ("bare point", "POST", "/api/new", None, JSON, b'{"agent":"greedy","seed":1.}', 400),
        ("move: NUL escape", "POST", "/api/move", None, JSON,
         b'{"session":"' + s.encode() + b'","move":"c\\u0000junk"}', 400),
        ("state: NUL in the session", "GET", f"/api/state?session={s}%00junk", None, None, None, 400),
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


def shutdown_in_flight():
    """SIGTERM or SIGINT while agents search: every request in flight is answered in full (200, Connection:
    close), a new connection is refused, the server exits 0; a second signal exits at once (130)."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        srv = Server("--agent", "a=ab:depth=40", "--max-ms", "1500", "--threads", "4")
        c = srv.conn()
        sessions = [ok(c, "POST", "/api/new", {"agent": "a", "side": "second"})["session"] for _ in range(4)]
        results = {}

        def search(s):
            try:
                cs = srv.conn()
                cs.request("POST", "/api/agent", body=json.dumps({"session": s}), headers=JSON)
                r = cs.getresponse()
                results[s] = (r.status, json.loads(r.read()), r.getheader("Connection"))
            except Exception as e:  # reported below
                results[s] = (None, repr(e), None)

        # Around them: a request refused by libmicrohttpd itself (431), a body that stalls (it must not hold
        # the stop for the 30 s connection timeout) and an idle kept-alive connection (made first: a request
        # thread busy with a search serves none of its other connections meanwhile).
        st, _ = call(srv.conn(), "GET", "/api/info", headers={"X-Big": "y" * 40000})
        if st != 431:
            fail(f"a 40 kB header: {st}")
        stalled = socket.create_connection((srv.host, srv.port))
        stalled.sendall(b"POST /api/new HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        b"Content-Length: 100\r\n\r\n{")
        ok(c, "GET", "/api/info")
        threads = [threading.Thread(target=search, args=(s,)) for s in sessions]
        for t in threads:
            t.start()
        time.sleep(0.3)   # the four searches run (each up to 1.5 s)
        t0 = time.time()
        srv.p.send_signal(sig)
        time.sleep(0.2)
        try:
            late = srv.conn(timeout=5)
            late.request("GET", "/api/info")
            late.getresponse().read()
            refused = False
        except (http.client.HTTPException, OSError):
            refused = True
        for t in threads:
            t.join(timeout=60)
        srv.stop(sig, send=False)   # already signalled: waits for the exit and checks it is 0
        for s in sessions:
            st, body, conn = results.get(s, (None, "no result", None))
            if st != 200 or body.get("session") != s or len(body.get("moves", [])) != 1:
                fail(f"signal {sig}: the request in flight got {st} {body}")
            if (conn or "").lower() != "close":
                fail(f"signal {sig}: the last answer did not close its connection ({conn})")
        if not refused:
            fail(f"signal {sig}: a connection made while stopping was served")
        stalled.close()
        if time.time() - t0 > 10:
            fail(f"signal {sig}: stopping took {time.time() - t0:.1f} s")
    # A second signal exits at once (128 + SIGINT), cutting the search (ab capped at 20 s per move).
    srv = Server("--agent", "a=ab:depth=40", "--max-ms", "20000")
    c = srv.conn()
    s = ok(c, "POST", "/api/new", {"agent": "a", "side": "second"})["session"]
    c.request("POST", "/api/agent", body=json.dumps({"session": s}), headers=JSON)
    time.sleep(0.3)
    t0 = time.time()
    srv.p.send_signal(signal.SIGINT)
    time.sleep(0.3)
    srv.stop(signal.SIGINT, want=128 + signal.SIGINT)
    if time.time() - t0 > 10:
        fail(f"a second Ctrl-C took {time.time() - t0:.1f} s to stop the server")


def shutdown_queued():
    """SIGTERM with three times more searches in flight than request threads: the connections waiting for a
    thread (accepted by libmicrohttpd, or still in the listening socket's backlog) are answered in full as
    well, each with one move, and the server exits 0."""
    srv = Server("--agent", "a=ab:depth=40", "--max-ms", "700", "--threads", "2")
    c = srv.conn()
    sessions = [ok(c, "POST", "/api/new", {"agent": "a", "side": "second"})["session"] for _ in range(6)]
    c.close()
    results = {}

    def search(s):
        try:
            cs = srv.conn()
            cs.request("POST", "/api/agent", body=json.dumps({"session": s}), headers=JSON)
            r = cs.getresponse()
            results[s] = (r.status, json.loads(r.read()))
        except Exception as e:  # reported below
            results[s] = (None, repr(e))

    threads = [threading.Thread(target=search, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    time.sleep(0.3)   # two searches run, four requests wait for a thread
    t0 = time.time()
    srv.p.send_signal(signal.SIGTERM)
    for t in threads:
        t.join(timeout=60)
    srv.stop(signal.SIGTERM, send=False)
    for s in sessions:
        st, body = results.get(s, (None, "no result"))
        if st != 200 or body.get("session") != s or len(body.get("moves", [])) != 1:
            fail(f"SIGTERM with requests queued behind 2 busy threads: one got {st} {body}")
    if time.time() - t0 > 20:
        fail(f"SIGTERM with 6 searches on 2 threads: stopping took {time.time() - t0:.1f} s")


def start_fails(args, want_rc, want_text):
    p = subprocess.run([BIN, "serve", "--agent", "r=random", "--json", *args], capture_output=True, text=True,
                       timeout=30)
    if p.returncode != want_rc or want_text not in p.stderr:
        fail(f"serve {' '.join(args)}: exit {p.returncode} {p.stderr!r}, expected {want_rc} with {want_text!r}")


def can_bind(family, addr):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sk:
            sk.bind((addr, 0))
        return True
    except OSError:
        return False


def binding():
    """--bind: numeric IPv4 and IPv6 addresses and host names are served; addresses that do not parse, that
    are not this machine's, or a port in use are refused with exit 2 naming the flag."""
    start_fails(["--bind", "999.1.1.1", "--port", "0"], 2, "--bind '999.1.1.1' is not a numeric")
    start_fails(["--bind", "1.2.3", "--port", "0"], 2, "--bind '1.2.3' is not a numeric")
    start_fails(["--bind", "::g", "--port", "0"], 2, "--bind '::g' is not a numeric")
    start_fails(["--bind", "", "--port", "0"], 2, "--bind ''")
    start_fails(["--bind", "host.invalid", "--port", "0"], 2, "--bind 'host.invalid': cannot resolve")
    if not can_bind(socket.AF_INET, "192.0.2.1"):   # TEST-NET-1: no machine's address
        start_fails(["--bind", "192.0.2.1", "--port", "0"], 2, "--bind 192.0.2.1: not an address of this machine")
    taken = Server("--agent", "r=random")
    try:
        start_fails(["--port", str(taken.port)], 2, f"--port {taken.port}: the port is in use")
    finally:
        taken.stop()
    binds = ["127.0.0.1", "localhost"]
    if can_bind(socket.AF_INET6, "::1"):
        binds += ["::1", "[::1]"]
    for b in binds:
        srv = Server("--agent", "r=random", "--bind", b)
        try:
            want = "::1" if "::1" in b else "127.0.0.1" if b == "127.0.0.1" else None
            if want and srv.host != want:
                fail(f"--bind {b}: listening on {srv.host}")
            if srv.info["url"] != (f"http://[{srv.host}]:{srv.port}/" if ":" in srv.host
                                   else f"http://{srv.host}:{srv.port}/"):
                fail(f"--bind {b}: url {srv.info['url']}")
            ok(srv.conn(), "GET", "/api/info")
        finally:
            srv.stop()
    return len(binds)


def request_targets(srv):
    """Long or many-parameter query strings get a prompt 414 JSON error; bodies are UTF-8 however odd the
    request text they echo."""
    n = 0
    for params in (65, 480, 500, 1000):
        c = srv.conn(timeout=10)
        t0 = time.time()
        st, out = call(c, "GET", "/api/state?" + "a=b&" * params)
        if st != 414 or not isinstance(out, dict) or out.get("status") != 414 or time.time() - t0 > 5:
            fail(f"{params} query parameters: {st} {out} after {time.time() - t0:.1f} s")
        n += 1
    c = srv.conn()
    for target in ("/api/info?x=" + "y" * 4100, "/" + "p" * 4100):
        st, out = call(c, "GET", target)
        if st != 414 or out.get("status") != 414:
            fail(f"a {len(target)}-byte target: {st} {out}")
        c = srv.conn()
        n += 1
    # a body announced over --max-body is refused at its headers: no 100 Continue, no wait for the body
    for expect in (True, False):
        with socket.create_connection((srv.host, srv.port), timeout=10) as sk:
            t0 = time.time()
            sk.sendall(b"POST /api/new HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       b"Content-Length: 100000000\r\n" + (b"Expect: 100-continue\r\n" if expect else b"") +
                       b"\r\n")
            reply = b""
            while b"\r\n\r\n" not in reply:
                chunk = sk.recv(4096)
                if not chunk:
                    break
                reply += chunk
            head = reply.split(b"\r\n", 1)[0]
            if b" 413 " not in head or time.time() - t0 > 5:
                fail(f"Content-Length 100000000 (Expect: 100-continue {expect}): {head!r} after "
                     f"{time.time() - t0:.1f} s")
        n += 1
    # two Content-Length headers (request smuggling behind a proxy): refused, whichever would be read
    with socket.create_connection((srv.host, srv.port), timeout=10) as sk:
        sk.sendall(b"POST /api/new HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   b"Content-Length: 18\r\nContent-Length: 2\r\n\r\n{\"agent\":\"random\"}")
        head = sk.recv(4096).split(b"\r\n", 1)[0]
        if b" 400 " not in head:
            fail(f"two Content-Length headers: {head!r}")
    n += 1
    st, out = call(srv.conn(), "GET", "/api/info?" + "a=b&" * 60)   # within the limits: served
    if st != 200:
        fail(f"60 query parameters: {st} {out}")
    for path, body in (("/api/state?session=%ff%fe", None), ("/api/state?session=" + "a" * 39 + "%c3%a9", None),
                       ("/api/state?session=%ed%a0%80%c0%af", None),
                       ("/api/new", b'{"agent":"random","game":"k\xff\xfe"}'),
                       ("/api/move", b'{"session":"\xf8\x88\x80\x80\x80","move":"a"}')):
        st, out = call(srv.conn(), "POST" if body else "GET", path, raw=body, headers=JSON if body else None)
        if st not in (400, 422) or not isinstance(out, dict) or out.get("status") != st:
            fail(f"{path} {body}: {st} {out}")
        if "\ufffd" not in out["error"]:
            fail(f"{path} {body}: the stray bytes are not U+FFFD: {out}")
        n += 1
    return n


def main():
    srv = Server("--agent", "random=random", "--agent", "greedy=greedy", "--agent", "ab=ab:depth=4", "--seed", "3",
                 "--threads", "4")
    try:
        t = time.time()
        n = concurrent_games(srv)
        t_games = time.time() - t
        k = bad_requests(srv)
        k += request_targets(srv)
    finally:
        srv.stop()
    bounds()
    shutdown_in_flight()
    shutdown_queued()
    b = binding()
    print(f"ok: {n} concurrent games in {t_games:.1f} s, {k} kinds of bad request, bounds, {b} bind addresses, "
          "clean exits answering the requests in flight")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print("FAIL:", e)
        sys.exit(1)
