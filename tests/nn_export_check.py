"""Reproduce `sowzero net --net NET --position POS --json` with numpy + h5py (the README quotes this).

usage: python3 tests/nn_export_check.py NET.h5 "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"
       python3 tests/nn_export_check.py BASICO.h5 "4,4,4,4,4,4,0,4,4,4,4,4,4,0,4,4,4,4,4,4,0 0"
prints {"policy": [...], "value": v}: probabilities over the mover's pits (a.. order) and the value; a Kalah-
encoded net with several value outputs (the n_value root attribute, absent = 1) prints "value" as a list of
them. A Mancala basico net (encoding basico-mover-v1, env/basico.h) prints, like `sowzero net`, the mover's
"value" and "values": one per player, player 0 first (the net's outputs are mover first).
"""
import json
import sys

import h5py
import numpy as np


def load(path):
    with h5py.File(path, "r") as f:
        # strings are fixed-length (h5py gives bytes); files from before that hold variable-length ones (str)
        text = {k: v.decode() if isinstance(v, bytes) else str(v) for k, v in f.attrs.items()}
        assert text["format"] == "sowzero-net" and f.attrs["format_version"] == 1
        encoding, rules = text["encoding"], text["rules"]
        assert encoding in ("kalah-mover-v1", "basico-mover-v1") and text["activation"] == "relu"
        residual = bool(f.attrs["residual"])
        # one-hot input features (nn/net.h): the first onehot_inputs inputs also as K levels each
        onehot = (int(f.attrs["onehot_inputs"]), int(f.attrs["onehot_levels"]), float(f.attrs["onehot_scale"])) \
            if "onehot_inputs" in f.attrs else (0, 0, 0.0)
        # /layers/NN_kind sorted by name = evaluation order: hidden..., policy, value, [margin]
        layers = [(k.split("_", 1)[1], f["layers"][k]["W"][()], f["layers"][k]["b"][()])
                  for k in sorted(f["layers"])]
    return residual, layers, encoding, rules, onehot


def encode_basico(rules, pos):
    """basico-mover-v1 (env/basico.h): for each player from the mover on, in playing order, its pits / seeds,
    1 if still in the circuit, and its rank score (players - place) / (players - 1) once its place is
    decided. Places: finishers take 1, 2, ... in order of finishing, resigners the last places from the
    bottom (a position still in play under full_ranking=0 has no finisher)."""
    r = dict(kv.split("=") for kv in rules.split(":", 1)[1].split(","))
    n, pits, seeds = int(r["players"]), int(r["pits"]), int(r["seeds"])
    fields = pos.split()
    cells = [0 if v == "-" else int(v) for v in fields[0].split(",")]
    mover = int(fields[1])
    place, top, bottom = {}, 1, n
    for leaver in (fields[2].split(",") if len(fields) > 2 else []):
        if leaver[1] == "r":
            place[int(leaver[0])] = bottom
            bottom -= 1
        else:
            place[int(leaver[0])] = top
            top += 1
    x = []
    for q in range(n):
        pl = (mover + q) % n
        x += [c / seeds for c in cells[pl * (pits + 1):pl * (pits + 1) + pits]]
        x += [0.0 if pl in place else 1.0, (n - place[pl]) / (n - 1) if pl in place else 0.0]
    mine = cells[mover * (pits + 1):mover * (pits + 1) + pits]
    return np.array(x, dtype=np.float32), np.array(mine) > 0, mover, n


def encode(pos):
    """kalah-mover-v1: mover's pits, opponent's pits, mover's store, opponent's store, each / seeds."""
    counts, side = pos.split()
    c = [int(v) for v in counts.split(",")]
    m = len(c) // 2 - 1
    south, north = c[:m], c[m + 1:2 * m + 1]
    mine, theirs, stores = (south, north, [c[m], c[2 * m + 1]]) if side == "S" else \
                           (north, south, [c[2 * m + 1], c[m]])
    seeds = sum(c) // (2 * m)  # seeds per pit at the start (the total never changes)
    x = np.array(mine + theirs + stores, dtype=np.float32) * np.float32(1.0 / seeds)
    return x, np.array(mine) > 0


def forward(residual, layers, x, legal, onehot=(0, 0, 0.0)):
    h = x.astype(np.float64)
    n, k, scale = onehot
    if n:  # level = round(x * scale) in float32, clamped to 0..K-1; its indicator among K
        level = np.clip(np.rint(x[:n] * np.float32(scale)), 0, k - 1).astype(int)
        h = np.concatenate([h, np.eye(k)[level].ravel()])
    for kind, W, b in layers:
        if kind == "hidden":  # h = relu(W h + b [+ h when residual and W is square])
            h = np.maximum(W @ h + b + (h if residual and W.shape[0] == W.shape[1] else 0), 0)
    out = {kind: W @ h + b for kind, W, b in layers if kind != "hidden"}
    logits = np.where(legal, out["policy"], -np.inf)  # illegal moves masked before the softmax
    p = np.exp(logits - logits.max())
    return p / p.sum(), np.tanh(out["value"])  # one value per row of the value layer (n_value)


if __name__ == "__main__":
    residual, layers, encoding, rules, onehot = load(sys.argv[1])
    if encoding == "basico-mover-v1":
        x, legal, mover, n = encode_basico(rules, sys.argv[2])
        policy, value = forward(residual, layers, x, legal, onehot)
        values = [float(value[(q - mover) % n]) for q in range(n)]  # output j is player (mover + j) % n
        print(json.dumps({"policy": policy.tolist(), "value": values[mover], "values": values}))
    else:
        x, legal = encode(sys.argv[2])
        policy, value = forward(residual, layers, x, legal, onehot)
        print(json.dumps({"policy": policy.tolist(),
                          "value": float(value[0]) if value.size == 1 else value.tolist()}))
