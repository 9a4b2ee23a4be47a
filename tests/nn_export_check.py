"""Reproduce `sowzero net --net NET --position POS --json` with numpy + h5py (the README quotes this).

usage: python3 tests/nn_export_check.py NET.h5 "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"
prints {"policy": [...], "value": v}: probabilities over the mover's pits (a.. order) and the value; a net
with several value outputs (the n_value root attribute, absent = 1) prints "value" as a list of them.
"""
import json
import sys

import h5py
import numpy as np


def load(path):
    with h5py.File(path, "r") as f:
        assert f.attrs["format"] == "sowzero-net" and f.attrs["format_version"] == 1
        assert f.attrs["encoding"] == "kalah-mover-v1" and f.attrs["activation"] == "relu"
        residual = bool(f.attrs["residual"])
        # /layers/NN_kind sorted by name = evaluation order: hidden..., policy, value, [margin]
        layers = [(k.split("_", 1)[1], f["layers"][k]["W"][()], f["layers"][k]["b"][()])
                  for k in sorted(f["layers"])]
    return residual, layers


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


def forward(residual, layers, x, legal):
    h = x.astype(np.float64)
    for kind, W, b in layers:
        if kind == "hidden":  # h = relu(W h + b [+ h when residual and W is square])
            h = np.maximum(W @ h + b + (h if residual and W.shape[0] == W.shape[1] else 0), 0)
    out = {kind: W @ h + b for kind, W, b in layers if kind != "hidden"}
    logits = np.where(legal, out["policy"], -np.inf)  # illegal moves masked before the softmax
    p = np.exp(logits - logits.max())
    return p / p.sum(), np.tanh(out["value"])  # one value per row of the value layer (n_value)


if __name__ == "__main__":
    residual, layers = load(sys.argv[1])
    x, legal = encode(sys.argv[2])
    policy, value = forward(residual, layers, x, legal)
    print(json.dumps({"policy": policy.tolist(), "value": float(value[0]) if value.size == 1 else value.tolist()}))
