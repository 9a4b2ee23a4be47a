"""A game the user adds: tests/toy_kind.c, built as a module of its own (SOWZERO_TOYKIND, set by run.py),
registers "toysow" through the loaded extension's game_kind_register. The Python layer names no game, so
VecEnv (float32 and uint8 observations, autoreset, masks), set/get_position and Agent play it as they
play the built-in games. In a fresh interpreter: the registry is the process's, and the extension must be
loaded with its symbols global for the module to find game_kind_register."""
import os
import subprocess
import sys

import pytest

SCRIPT = r'''
import ctypes, os, sys
import numpy as np
import sowzero
from sowzero import _sowzero

# The extension's symbols made global (it is already loaded), then the kind's module resolves against it.
ctypes.CDLL(_sowzero.__file__, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
toy = ctypes.CDLL(os.environ["SOWZERO_TOYKIND"])
err = ctypes.create_string_buffer(512)
assert toy.toy_kind_register(err) == 0, err.value

rules = "toysow:pits=4,seeds=3"
try:
    sowzero.VecEnv(rules="toysow-unknown", num_envs=1)
    raise SystemExit("an unknown game was accepted")
except ValueError as e:
    assert "toysow" in str(e), e  # the message lists the registered kinds

f = sowzero.VecEnv(rules=rules, num_envs=32, seed=5)
u = sowzero.VecEnv(rules=rules, num_envs=32, seed=5, obs_dtype="uint8")
assert f.obs_dim == 10 and f.single_action_space.n == 4, (f.obs_dim, f.single_action_space)
of, info_f = f.reset()
ou, info_u = u.reset()
assert np.allclose(of[0], [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]), of[0]
ends = 0
tf = np.zeros(32, dtype=bool)
for step in range(400):
    mask = info_f["action_mask"]
    assert np.array_equal(mask, info_u["action_mask"])
    # the mover's own pits come first in the encoding: a legal pit is a non-empty one
    assert np.array_equal(mask.astype(bool), of[:, :4] > 0), step
    assert np.allclose(ou.astype(np.float32) * u.obs_scale, of, rtol=0, atol=1e-6)
    assert np.all(np.abs(of * 3 - np.rint(of * 3)) < 1e-5)  # seed counts over 3 seeds per pit
    a = f.sample_actions()
    assert np.array_equal(a, u.sample_actions())  # the two envs' draws stay in step
    live = ~tf  # a game that just ended is reset by this step (autoreset NEXT_STEP): its action is ignored
    assert mask[np.arange(32), a][live].all()
    of, rf, tf, _, info_f = f.step(a)
    ou, ru, tu, _, info_u = u.step(a.copy())
    assert np.array_equal(rf, ru) and np.array_equal(tf, tu)
    ends += int(tf.sum())
    # every finished game's rewards are a win, a loss or a draw, opposite for the two seats
    assert np.all(rf[tf].sum(axis=-1) == 0) if rf.ndim == 2 else True
assert ends > 30, ends

# positions: the kind's own notation, round trip, and an agent playing from one
pos = f.get_position(3)
f.set_position(0, pos)
assert f.get_position(0) == pos
start = "3,3,3,3,0,3,3,3,3,0 S"
agent = sowzero.Agent("mcts:sims=200", rules=rules)
k = agent.pit(start)
assert 0 <= k < 4
# a position the kind refuses is a ValueError with the kind's own message
try:
    agent.pit("3,3,3,3,0,3,3,3,3,1 S")
    raise SystemExit("a position of the wrong seed count was accepted")
except ValueError as e:
    assert "summing to 24" in str(e), e
print("ok", ends)
'''


def test_registered_kind_plays_through_python():
    path = os.environ.get("SOWZERO_TOYKIND", "")
    if not path or not os.path.exists(path):
        pytest.skip("the toy game module is not built (SOWZERO_TOYKIND)")
    p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=os.environ,
                       timeout=300)
    assert p.returncode == 0 and p.stdout.startswith("ok"), p.stdout + p.stderr
