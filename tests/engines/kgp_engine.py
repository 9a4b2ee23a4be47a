"""A small outside engine for sowzero's tests: speaks KGP 1.x freeplay on stdin/stdout (docs/protocol.md).

    python3 kgp_engine.py [--fault KIND] [--after N] [--think SECONDS]

Without --fault it plays greedy Kalah correctly: the pit whose sowing gives the best store difference
(own minus other) at the end of its move, extra turns counted as one more look-ahead of the same kind;
ties go to the lowest pit. With --fault the engine misbehaves at its (N+1)-th position (N = --after,
default 0), the positions before are played correctly:
    illegal   answers an empty pit (or pit n+1 when none is empty)
    garbage   answers a line that is not a KGP command
    silent    answers nothing (and keeps reading)
    crash     exits with status 3 without answering
--think S makes it a slow engine: it sleeps S seconds (a decimal number) before each answer, its moves still
correct (for time controls: `match --tc`).
"""
import sys
import time

fault, after, think = None, 0, 0.0
args = sys.argv[1:]
while args:
    a = args.pop(0)
    if a == "--fault":
        fault = args.pop(0)
    elif a == "--after":
        after = int(args.pop(0))
    elif a == "--think":
        think = float(args.pop(0))
    else:
        sys.exit("kgp_engine.py: unknown argument " + a)


def send(line):
    sys.stdout.write(line + "\r\n")
    sys.stdout.flush()


def sow(n, board, pit):
    """Kalah sowing from the mover's pit (0-based). board = [my store, other store, my pits..., other pits...].
    Returns (new board, extra turn) with standard captures (opposite non-empty) and no end sweep."""
    mine, other = board[2:2 + n], board[2 + n:]
    stores = [board[0], board[1]]
    seeds, mine[pit] = mine[pit], 0
    side, pos = 0, pit + 1
    last = None
    while seeds:
        if pos == n:
            if side == 0:
                stores[0] += 1
                seeds -= 1
                last = ("store",)
            side, pos = 1 - side, 0
            continue
        row = mine if side == 0 else other
        row[pos] += 1
        seeds -= 1
        last = (side, pos)
        pos += 1
    if last == ("store",):
        return [stores[0], stores[1]] + mine + other, True
    if last[0] == 0 and mine[last[1]] == 1 and other[n - 1 - last[1]] > 0:
        stores[0] += mine[last[1]] + other[n - 1 - last[1]]
        mine[last[1]] = other[n - 1 - last[1]] = 0
    return [stores[0], stores[1]] + mine + other, False


def score(n, board, depth):
    best = None
    for k in range(n):
        if board[2 + k] == 0:
            continue
        b, extra = sow(n, board, k)
        v = b[0] - b[1]
        if extra and depth > 0 and any(b[2:2 + n]):
            v = max(v, score(n, b, depth - 1)[0])
        if best is None or v > best[0]:
            best = (v, k)
    return best if best else (board[0] - board[1], None)


def greedy(n, board):
    return score(n, board, 1)[1]


positions = 0
for raw in sys.stdin:
    line = raw.strip()
    if not line:
        continue
    parts = line.split()
    ident = ref = None
    if parts[0][0].isdigit() or parts[0][0] == "@":
        head = parts.pop(0)
        if "@" in head:
            ident, ref = head.split("@")
        else:
            ident = head
    cmd = parts[0] if parts else ""
    if cmd == "kgp":
        send("set info:name \"kgp_engine %s\"" % (fault or "greedy"))
        send("mode freeplay")
    elif cmd == "goodbye":
        break
    elif cmd == "ping":
        send("@%s pong" % ident if ident else "pong")
    elif cmd == "state":
        nums = [int(x) for x in parts[1].strip("<>").split(",")]
        n, board = nums[0], nums[1:]
        positions += 1
        tag = "@%s " % ident if ident else ""
        if think > 0:
            time.sleep(think)
        if fault and positions > after:
            if fault == "illegal":
                empty = [k for k in range(n) if board[2 + k] == 0]
                send(tag + "move %d" % ((empty[0] if empty else n) + 1))
            elif fault == "garbage":
                send("this is not a command!")
            elif fault == "silent":
                continue
            elif fault == "crash":
                sys.exit(3)
            continue
        send(tag + "move %d" % (greedy(n, board) + 1))
        send(tag + "yield")
