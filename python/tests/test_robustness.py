"""The package's version and import errors, Ctrl-C during long C calls, non-finite net input, and the
OSError of a missing net file."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import sowzero

from conftest import ROOT, cli


def test_version_is_the_cmake_project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        version = re.search(r"project\(sowzero VERSION ([0-9.]+)", f.read()).group(1)
    assert sowzero.__version__ == version


def test_import_under_another_numpy_names_both(tmp_path):
    """A numpy the extension was not built for: the ImportError names the interpreter and numpy it was
    built for and the ones running, instead of numpy's 'multiarray failed to import'."""
    fake = tmp_path / "numpy"
    fake.mkdir()
    (fake / "__init__.py").write_text("__version__ = '0.0.fake'\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), os.path.dirname(os.path.dirname(sowzero.__file__))])
    p = subprocess.run([sys.executable, "-c", "import sowzero"], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path))
    assert p.returncode != 0
    from sowzero import _build_info
    msg = p.stderr.strip().splitlines()[-1]
    assert msg.startswith("ImportError: sowzero's C extension cannot be loaded")
    assert "built for %s (Python %s) with numpy %s" % (_build_info.PYTHON, _build_info.PYTHON_VERSION,
                                                       _build_info.NUMPY_VERSION) in msg
    assert "this is %s" % sys.executable in msg and "numpy 0.0.fake" in msg and "pip install ." in msg


CTRL_C = """
import os, signal, threading, time, sowzero
threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
t = time.perf_counter()
try:
    sowzero.perft('kalah', None, 20)
except KeyboardInterrupt:
    print('interrupted %.3f' % (time.perf_counter() - t))
"""


def test_perft_stops_on_ctrl_c():
    """perft depth 20 runs for hours; SIGINT after 0.3 s raises KeyboardInterrupt at once."""
    p = subprocess.run([sys.executable, "-c", CTRL_C], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("interrupted"), p.stdout
    assert float(p.stdout.split()[1]) < 5.0


def test_solve_stops_on_ctrl_c():
    """An exact solve of Kalah(6,4) without a database takes minutes; SIGINT after 0.3 s stops it at once."""
    code = CTRL_C.replace("sowzero.perft('kalah', None, 20)", "sowzero.solve(None, 'kalah', tt_mb=64)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("interrupted"), p.stdout
    assert float(p.stdout.split()[1]) < 5.0
    # and a solve that is not interrupted still answers
    assert sowzero.solve("3,3,3,3,0,3,3,3,3,0 S", "kalah:pits=4,seeds=3", tt_mb=16)["value"] == 6


AGENT_CTRL_C = """
import os, signal, threading, time, sowzero
a = sowzero.Agent(%r, rules=%r)
threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
t = time.perf_counter()
try:
    a.move(%r)
    print('finished %%.3f' %% (time.perf_counter() - t))
except KeyboardInterrupt:
    print('interrupted %%.3f' %% (time.perf_counter() - t))
print(a.move(%r))
"""


START = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"
LATE = "0,0,0,0,0,1,24,0,0,0,0,0,1,22 S"   # one seed a side: every search ends at once


@pytest.mark.parametrize("spec,rules,pos", [
    ("mcts:sims=10000000", "kalah", START),
    ("ab:depth=60", "kalah", START),
    ("solver:endgame=0,tt_mb=16", "kalah", START),
    ("mcts:sims=10000000", "oware", START),
    ("ab:depth=30", "oware", START),
    ("solve:nodes=10000000000", "oware:max_sows=200", START),
    ("maxn:depth=12", "basico:players=3", "4,4,4,4,4,4,0,4,4,4,4,4,4,0,4,4,4,4,4,4,0 0"),
])
def test_agent_move_stops_on_ctrl_c(spec, rules, pos):
    """Agent.move with a search of minutes (huge sims, depth or node budget): SIGINT after 0.3 s raises
    KeyboardInterrupt within a couple of seconds, and the agent then answers its next move."""
    after = "0,0,0,0,0,1,20,0,0,0,0,0,1,20,0,0,0,0,0,1,29 0" if rules.startswith("basico") else LATE
    code = AGENT_CTRL_C % (spec, rules, pos, after)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ))
    out = p.stdout.split()
    assert p.returncode == 0 and out[:1] == ["interrupted"], (p.stdout, p.stderr)
    assert float(out[1]) < 2.5, p.stdout
    assert len(out) == 3, p.stdout   # the next move


def test_perft_counts_after_the_poll():
    """A walk that passes the signal poll many times (~1.3M calls) counts what game_perft (the CLI's)
    counts."""
    assert sowzero.perft("kalah", None, 10) == cli("perft", "10", "--json")["nodes"]
    assert sowzero.perft("basico:players=3", None, 8) == cli("perft", "8", "--rules", "basico:players=3",
                                                             "--json")["nodes"]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_net_refuses_non_finite_obs(kalah_net, bad):
    net = sowzero.Net.load(kalah_net)
    obs, _ = sowzero.VecEnv(num_envs=3).reset()
    obs[1, 4] = bad
    name = "nan" if np.isnan(bad) else "inf" if bad > 0 else "-inf"
    with pytest.raises(ValueError, match=r"obs\[1, 4\] is %s\b" % name):
        net(obs)
    with pytest.raises(ValueError, match="finite"):
        net(obs[1])


def test_net_refuses_none_and_non_numbers(kalah_net):
    net = sowzero.Net.load(kalah_net)
    row = [0.25] * 14
    with pytest.raises(ValueError, match=r"obs\[0, 0\] is nan \(or None\)"):
        net([None] + row[1:])
    with pytest.raises(ValueError, match=r"obs\[0, 13\] is nan"):
        net(np.array(row[:13] + [None], dtype=object))
    with pytest.raises(ValueError):
        net(["x"] * 14)
    policy, value = net(np.array(row, np.float32))  # finite input still evaluates
    assert np.isfinite(policy).all() and np.isfinite(value).all()


def test_missing_net_file_is_oserror_everywhere(tmp_path):
    missing = str(tmp_path / "nope.h5")
    with pytest.raises(FileNotFoundError) as a:
        sowzero.Agent("az:net=%s,sims=10" % missing)
    with pytest.raises(FileNotFoundError) as b:
        sowzero.Net.load(missing)
    assert missing in str(a.value) and missing in str(b.value)
    with pytest.raises(FileNotFoundError):
        sowzero.Agent("az:sims=10,net=%s" % missing, rules="basico:players=3")
    with pytest.raises(ValueError):
        sowzero.Agent("az:sims=10")  # no net at all: a bad spec


START = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"


class _NoInit(sowzero.VecEnv):
    def __init__(self):  # a subclass that never calls the base __init__
        pass


@pytest.mark.parametrize("use", [lambda e: e.reset(), lambda e: e.sample_actions(), lambda e: e.rules,
                                 lambda e: e.set_position(0, START), lambda e: e.get_position(0)])
def test_uninitialised_vecenv_raises(use):
    """A VecEnv whose __init__ never ran (bare __new__, a subclass that skips it) raises, never crashes."""
    for e in (sowzero.VecEnv.__new__(sowzero.VecEnv), _NoInit()):
        with pytest.raises(RuntimeError, match="not initialised"):
            use(e)


def test_failed_init_leaves_objects_reusable():
    e = sowzero.VecEnv.__new__(sowzero.VecEnv)
    with pytest.raises(ValueError):
        e.__init__(num_envs=0)
    with pytest.raises(RuntimeError, match="not initialised"):
        e.reset()
    e.__init__(num_envs=4)
    obs, _ = e.reset(seed=1)
    assert obs.shape[0] == 4
    with pytest.raises(RuntimeError, match="already initialised"):
        e.__init__(num_envs=2)
    a = sowzero.Agent.__new__(sowzero.Agent)
    for use in (lambda: a.move(START), lambda: a.new_game()):
        with pytest.raises(RuntimeError, match="not created"):
            use()
    with pytest.raises(ValueError):
        a.__init__("nope")
    with pytest.raises(RuntimeError, match="not created"):
        a.move(START)
    a.__init__("greedy")
    assert a.move(START) in "abcdef"


def test_numpy_integer_seeds_and_seed_ranges():
    assert sowzero.Env().reset(seed=np.int64(3))[0] is not None
    sowzero.VecEnv(seed=np.uint64(1)).reset(seed=np.int64(2))
    sowzero.VecEnv(num_envs=2).reset(seed=[np.int64(1), 2])
    a = sowzero.Agent("random")
    a.new_game(seed=np.int64(3))
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match="0..2"):
            a.new_game(seed=bad)
    with pytest.raises(TypeError):
        sowzero.VecEnv(seed=True)


def test_complex_obs_and_scalar_actions_are_refused(kalah_net):
    with pytest.raises(TypeError, match="real numbers"):
        sowzero.Net.load(kalah_net)(np.zeros((1, 14), dtype=np.complex64))
    with pytest.raises(ValueError, match="1-D array"):
        sowzero.VecEnv().step(0)


def test_aec_set_position_refused_leaves_the_game():
    env = sowzero.AECEnv(rules="kalah")
    env.reset(seed=1)
    env.step(0)
    before = (env.get_position(), env.agent_selection)
    with pytest.raises(ValueError, match="finished"):
        env.set_position("0,0,0,0,0,0,24,0,0,0,0,0,0,24 S")
    assert (env.get_position(), env.agent_selection) == before
