#!/usr/bin/python3
"""The README's MPI figures, side by side on one machine, medians of ROUNDS alternated rounds:
  - self-play positions/s of the whole run (samples / elapsed, SGD included) of `sowzero train` in one
    process with selfplay.threads = CORES, beside `mpirun -np CORES+1` (a learner + CORES workers of 1 thread);
  - the learner's ingestion capacity: mpirun with [mpi] flood = true (workers resend one round's samples
    as fast as the learner takes them): samples/s over the run while it trains (the config's SGD steps per
    iteration), and while it only receives (train.steps_per_iteration = 0, 4096 games an iteration);
  - bytes per sample on the wire (mpi.csv: bytes / samples received).
The config is configs/quick.ini without evaluation, ITERATIONS iterations; any --set after the arguments
goes to every run.

usage: bench/mpi_figures.py [SOWZERO_BIN [MPIRUN [ROUNDS [ITERATIONS [CORES]]]]] [--set S.K=V]...
Exit 0 and one JSON object on stdout; 2 on bad arguments.
"""
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

args = [a for a in sys.argv[1:]]
sets = []
while "--set" in args:
    i = args.index("--set")
    sets += ["--set", args[i + 1]]
    del args[i:i + 2]
BIN = args[0] if len(args) > 0 else "./build/sowzero"
MPIRUN = args[1] if len(args) > 1 else "mpirun"
ROUNDS, ITERS, CORES = (int(args[k]) if len(args) > k else d for k, d in ((2, 3), (3, 6), (4, 2)))
if not os.access(BIN, os.X_OK) or not shutil.which(MPIRUN):
    print(f"mpi_figures: need an executable sowzero ({BIN}) and mpirun ({MPIRUN})", file=sys.stderr)
    sys.exit(2)
HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "..", "configs", "quick.ini")
BASE = ["--set", "eval.opponents=", f"--set", f"run.iterations={ITERS}", "--set", f"run.checkpoint_every={ITERS}"]
MPI = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", str(CORES + 1)]
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1")


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def train(d, mpi, extra):
    cmd = (MPI if mpi else []) + [BIN, "train", CONFIG, "--run-dir", d] + BASE + extra + sets
    subprocess.run(cmd, check=True, capture_output=True, env=ENV, timeout=3600)
    last = rows(os.path.join(d, "metrics.csv"))[-1]
    out = {"samples": int(last["samples"]), "elapsed_s": float(last["elapsed_s"])}
    out["positions_per_s"] = out["samples"] / out["elapsed_s"]
    if mpi:
        log = rows(os.path.join(d, "mpi.csv"))
        got = sum(int(r["samples"]) + int(r["dropped_stale"]) for r in log)
        out["bytes_per_sample"] = sum(int(r["bytes"]) for r in log) / got
    return out


res = {"single": [], "mpi": [], "flood": [], "receive": []}
with tempfile.TemporaryDirectory() as tmp:
    for r in range(ROUNDS):
        res["single"].append(train(f"{tmp}/s{r}", False, ["--set", f"selfplay.threads={CORES}"]))
        res["mpi"].append(train(f"{tmp}/m{r}", True, ["--set", "selfplay.threads=1"]))
        flood = ["--set", "selfplay.threads=1", "--set", "mpi.flood=true"]
        res["flood"].append(train(f"{tmp}/f{r}", True, flood))
        res["receive"].append(train(f"{tmp}/r{r}", True, flood + ["--set", "train.steps_per_iteration=0", "--set",
                                                                "selfplay.games=4096"]))
med = lambda k, f: statistics.median(x[f] for x in res[k])
fig = {
    "rounds": ROUNDS, "iterations": ITERS, "cores": CORES, "config": "configs/quick.ini, no evaluation",
    "single_positions_per_s": med("single", "positions_per_s"),
    "mpi_positions_per_s": med("mpi", "positions_per_s"),
    "bytes_per_sample": med("mpi", "bytes_per_sample"),
    "ingest_training_samples_per_s": med("flood", "positions_per_s"),
    "ingest_receive_only_samples_per_s": med("receive", "positions_per_s"),
    "load_average_1min": os.getloadavg()[0],
}
fig["ratio_mpi_to_single"] = fig["mpi_positions_per_s"] / fig["single_positions_per_s"]
# Workers of this machine's size one learner can feed: its ingestion while training / one node's output.
fig["nodes_one_learner_feeds"] = fig["ingest_training_samples_per_s"] / fig["single_positions_per_s"]
print(json.dumps(fig, indent=1))
