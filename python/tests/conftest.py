"""Shared fixtures: the sowzero binary (SOWZERO_BIN, set by run.py), scratch space, the vectors, and
small nets trained by the CLI once per session (one quick.ini iteration, a few games)."""
import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VECTORS = os.path.join(ROOT, "tests", "vectors")
START = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"


def sowzero_bin():
    path = os.environ.get("SOWZERO_BIN", os.path.join(ROOT, "build", "sowzero"))
    if not os.path.exists(path):
        pytest.skip("the sowzero binary is not built: %s" % path)
    return path


def cli(*args, expect=0):
    """Runs `sowzero ARGS...` and returns its --json object (the caller passes --json)."""
    p = subprocess.run([sowzero_bin()] + list(args), capture_output=True, text=True)
    assert p.returncode == expect, p.stderr
    return json.loads(p.stdout) if expect == 0 else p.stderr


def vectors(name):
    """Rows of a vectors file (docs/design.md's '|'-separated format), comments and blank lines skipped."""
    rows = []
    with open(os.path.join(VECTORS, name)) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                rows.append([c.strip() for c in line.split("|")])
    return rows


@pytest.fixture(scope="session")
def tmp_root(tmp_path_factory):
    return tmp_path_factory.mktemp("sowzero")


def _train(tmp_root, name, config, *extra):
    run = os.path.join(str(tmp_root), name)
    p = subprocess.run([sowzero_bin(), "train", os.path.join(ROOT, "configs", config),
                        "--set", "run.iterations=1", "--set", "eval.every=0", "--set", "eval.final_games=0",
                        "--set", "selfplay.threads=1", "--set", "selfplay.games=4",
                        "--set", "selfplay.games_per_thread=4", "--set", "mcts.sims=4",
                        "--set", "train.steps_per_iteration=4", "--set", "train.min_replay=1",
                        "--set", "train.batch_size=32", "--set", "train.threads=1", "--set", "net.hidden=32,32",
                        *extra, "--run-dir", run],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return os.path.join(run, "latest.h5")


@pytest.fixture(scope="session")
def kalah_net(tmp_root):
    return _train(tmp_root, "kalah", "quick.ini")


@pytest.fixture(scope="session")
def kalah_onehot_net(tmp_root):
    """A Kalah net whose first layer also reads the pits as one-hot features (nn/net.h)."""
    return _train(tmp_root, "kalah-onehot", "quick.ini", "--set", "net.onehot_levels=8")


@pytest.fixture(scope="session")
def basico_net(tmp_root):
    return _train(tmp_root, "basico", "basico-3p.ini")
