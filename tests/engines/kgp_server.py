"""A minimal KGP 1.x freeplay server for sowzero's tests: serves one client on 127.0.0.1 (a free port,
printed as "port N" on stdout), plays one whole game of Kalah(6,4) against it, and prints the result.

    python3 kgp_server.py [--pits N] [--seeds S] [--ms T] [--major V]

The client moves for both sides (each state shows the mover's row first, as KGP freeplay does), within
T ms per move (default 2000); the server checks every move. Prints "moves a b ...", then
"result South N North M" and exits 0 when the game was played out; exits 1 with a message when the
client broke the protocol (an illegal move, no move in time, a closed connection). With --major V other
than 1 it greets with "kgp V 0 0", expects the client's error and goodbye, prints "refused" and exits 0.
"""
import socket
import sys
import time

pits, seeds, ms, major = 6, 4, 2000, 1
args = sys.argv[1:]
while args:
    a = args.pop(0)
    if a == "--pits":
        pits = int(args.pop(0))
    elif a == "--seeds":
        seeds = int(args.pop(0))
    elif a == "--ms":
        ms = int(args.pop(0))
    elif a == "--major":
        major = int(args.pop(0))


def fail(msg):
    print("error", msg, flush=True)
    sys.exit(1)


# cells: South pits 0..n-1, South store n, North pits n+1..2n, North store 2n+1
n = pits
cells = [seeds] * n + [0] + [seeds] * n + [0]
side = 0


def store(s):
    return n if s == 0 else 2 * n + 1


def pit(s, k):
    return k if s == 0 else n + 1 + k


def play(k):
    global side
    i = pit(side, k)
    seeds_ = cells[i]
    cells[i] = 0
    while seeds_:
        i = (i + 1) % (2 * n + 2)
        if i == store(1 - side):
            continue
        cells[i] += 1
        seeds_ -= 1
    if i == store(side):
        extra = True
    else:
        extra = False
        mine = range(pit(side, 0), pit(side, 0) + n)
        if i in mine and cells[i] == 1 and cells[2 * n - i] > 0:
            cells[store(side)] += cells[i] + cells[2 * n - i]
            cells[i] = cells[2 * n - i] = 0
    for s in (0, 1):
        if not any(cells[pit(s, j)] for j in range(n)):
            for t in (0, 1):
                for j in range(n):
                    cells[store(t)] += cells[pit(t, j)]
                    cells[pit(t, j)] = 0
            return True
    if not extra:
        side = 1 - side
    return False


srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
srv.settimeout(30)
print("port", srv.getsockname()[1], flush=True)
conn, _ = srv.accept()
conn.settimeout(0.05)
buf = b""


def lines(deadline):
    global buf
    while time.time() < deadline:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line.decode().strip()
        try:
            got = conn.recv(4096)
        except socket.timeout:
            continue
        if not got:
            fail("the client closed the connection")
        buf += got


def send(text):
    conn.sendall((text + "\r\n").encode())


if major != 1:
    send("kgp %d 0 0" % major)
    said = []
    for line in lines(time.time() + 10):
        said.append(line)
        if line == "goodbye":
            break
    else:
        fail("no goodbye after kgp %d: %s" % (major, said))
    if not any(line.startswith("error") for line in said):
        fail("no error before goodbye: %s" % said)
    print("refused", flush=True)
    conn.close()
    sys.exit(0)
send("kgp 1 0 0")
for line in lines(time.time() + 10):
    if line.split()[-2:] == ["mode", "freeplay"] or line.endswith("mode freeplay"):
        break
else:
    fail("no mode freeplay")
send("2 init")
ident, played = 4, []
while True:
    me, other = side, 1 - side
    board = [n, cells[store(me)], cells[store(other)]] + [cells[pit(me, j)] for j in range(n)] + \
            [cells[pit(other, j)] for j in range(n)]
    send("%d state <%s>" % (ident, ",".join(map(str, board))))
    move = None
    for line in lines(time.time() + ms / 1000.0):
        parts = line.split()
        if not parts or parts[0] != "@%d" % ident:
            continue
        if parts[1] == "move":
            k = int(parts[2]) - 1
            if not 0 <= k < n or cells[pit(side, k)] == 0:
                fail("illegal move %s" % parts[2])
            move = k
        elif parts[1] == "yield":
            break
    else:
        send("%d@%d stop" % (ident + 2, ident))
    if move is None:
        fail("no move in time")
    played.append(("abcdefg" if side == 0 else "ABCDEFG")[move])
    ident += 4
    if play(move):
        break
send("goodbye")
conn.close()
print("moves", " ".join(played), flush=True)
print("result South %d North %d" % (cells[store(0)], cells[store(1)]), flush=True)
