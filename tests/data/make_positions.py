#!/usr/bin/python3
"""Writes a small solved position set (eval/posset.h format) with the exact solver of the sowzero binary.

usage: make_positions.py SOWZERO RULES COUNT SEED [move] > FILE.positions.jsonl

Positions come from random games (Python's random.Random(SEED)) from the start of RULES: each game stops at
a uniformly drawn ply, and its position is kept when it is new and not finished. Every legal move's margin
is the child's exact value (`sowzero solve --json`), negated when the side to move changes (an extra turn
keeps the perspective), or the final margin when the move ends the game. For boards that solve in
milliseconds (tests/data/kalah-4-3.positions.jsonl: kalah:pits=4,seeds=3, 40 positions, seed 1).
With the fifth argument `move`, each position's margins come from one `sowzero move solver:endgame=12`
instead (the exact value of every move in one process, the table shared between them: several times
faster; tests/data/kalah-6-3.positions.jsonl: kalah:pits=6,seeds=3, 200 positions, seed 1, about 15
minutes on the shared 2-core machine). Both ways choose the same positions for the same seed."""
import json
import random
import subprocess
import sys


def run(binary, *args):
    out = subprocess.run([binary, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    binary, rules, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    via_move = sys.argv[5:] == ["move"]
    rng = random.Random(seed)
    start = run(binary, "solve", "--rules", rules)
    rules_text = start["rules"]
    pits = int(rules_text.split("pits=")[1].split(",")[0])
    seen, lines = set(), []
    while len(lines) < count:
        pos, ply, target = start["position"], 0, rng.randrange(0, 3 * pits * 2)
        over = False
        while ply < target and not over:
            cells = [int(c) for c in pos.split()[0].split(",")]
            side = pos.split()[1]
            row = cells[:pits] if side == "S" else cells[pits + 1:2 * pits + 1]
            legal = [k for k in range(pits) if row[k]]
            k = rng.choice(legal)
            letter = chr((ord("a") if side == "S" else ord("A")) + k)
            step = run(binary, "replay", "--rules", rules, "--position", pos, letter)
            pos, over, ply = step["positions"][-1], step["over"], ply + 1
        if over or pos in seen:
            continue
        seen.add(pos)
        cells = [int(c) for c in pos.split()[0].split(",")]
        side = pos.split()[1]
        row = cells[:pits] if side == "S" else cells[pits + 1:2 * pits + 1]
        moves = {}
        for k in range(pits):
            if not row[k]:
                continue
            letter = chr((ord("a") if side == "S" else ord("A")) + k)
            if via_move:
                moves[letter] = None
                continue
            step = run(binary, "replay", "--rules", rules, "--position", pos, letter)
            child = step["positions"][-1]
            if step["over"]:
                s, n = step["stores"]
                moves[letter] = s - n if side == "S" else n - s
            else:
                v = run(binary, "solve", "--rules", rules, "--position", child)["value"]
                moves[letter] = v if child.split()[1] == side else -v
        if via_move:
            moves = run(binary, "move", "solver:endgame=12", "--rules", rules, "--position", pos)["values"]
        value = max(moves.values())
        in_pits = sum(cells[:pits]) + sum(cells[pits + 1:2 * pits + 1])
        lines.append({"position": pos, "to_move": side, "seeds_in_pits": in_pits, "ply": ply,
                      "source": "random-walk", "value": value,
                      "best": [m for m in sorted(moves) if moves[m] == value], "moves": moves})
    header = {"format": "sowzero-positions", "format_version": 1, "rules": rules_text, "count": len(lines),
              "command": "tests/data/make_positions.py SOWZERO %s %d %d%s" % (rules, count, seed,
                                                                          " move" if via_move else ""),
              "commit": "", "seed": seed}
    for o in [header] + lines:
        print(json.dumps(o, separators=(",", ":")))


if __name__ == "__main__":
    main()
