"""With gymnasium importable, VecEnv and Env derive from its classes, use its spaces and register their
ids. Debian has no gymnasium: a stand-in package with the same names (classes, spaces, register) checks
sowzero's side of it; a real gymnasium, where installed, is used as it is."""
import os
import subprocess
import sys
import textwrap

import sowzero

FAKE = {
    "__init__.py": """
        from . import spaces, vector, envs
        class Env:
            metadata = {}
            render_mode = None
            spec = None
        registered = {}
        def register(id, entry_point, vector_entry_point=None, kwargs=None):
            registered[id] = (entry_point, vector_entry_point, kwargs)
        register.__module__ = __name__
        """,
    "vector.py": """
        from typing import Generic, TypeVar
        T = TypeVar("T")
        class VectorEnv(Generic[T]):
            metadata = {}
            spec = None
            render_mode = None
            closed = False
            def __del__(self):
                if not getattr(self, "closed", True):
                    self.close()
        class AutoresetMode:
            NEXT_STEP = "NextStep"
        """,
    "envs/__init__.py": "from . import registration\n",
    "envs/registration.py": "registry = {}\n",
    "spaces.py": """
        class _S:
            def __init__(self, *args, **kwargs):
                self.args, self.kwargs = args, kwargs
            def seed(self, seed=None):
                return [seed]
        class Box(_S): pass
        class Discrete(_S): pass
        class MultiDiscrete(_S): pass
        class Dict(_S): pass
        """,
}

CHECK = """
import gymnasium, numpy as np, sowzero
real = not hasattr(gymnasium, "registered")
v = sowzero.VecEnv(num_envs=3)
assert isinstance(v, gymnasium.vector.VectorEnv) and isinstance(v, sowzero._sowzero.VecEnv)
assert type(v.single_action_space) is gymnasium.spaces.Discrete
assert type(v.action_space) is gymnasium.spaces.MultiDiscrete
assert type(v.observation_space) is gymnasium.spaces.Box
assert v.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
obs, info = v.reset(seed=2)
obs, rew, term, trunc, info = v.step(v.sample_actions())
assert obs.shape == (3, 14) and v.unwrapped is v and not v.closed
v.close()
assert v.closed
e = sowzero.Env(rules="oware")
assert isinstance(e, gymnasium.Env) and type(e.action_space) is gymnasium.spaces.Discrete
e.reset(seed=1)
a = sowzero.AECEnv(rules="basico:players=3")
assert type(a.observation_space("player_0")) is gymnasium.spaces.Dict
if not real:
    assert gymnasium.registered["sowzero/Kalah-v0"] == ("sowzero.envs:Env", "sowzero.envs:VecEnv", {"rules": "kalah"})
    assert set(gymnasium.registered) == set(sowzero.envs.GYM_IDS)
else:
    gymnasium.make("sowzero/Kalah-v0").reset(seed=1)
del v
print("ok", real)
"""


def test_gymnasium_bases_spaces_and_ids(tmp_path):
    try:
        import gymnasium  # noqa: F401
        path = []
    except ImportError:
        for name, text in FAKE.items():
            f = tmp_path / "gymnasium" / name
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(textwrap.dedent(text))
        path = [str(tmp_path)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(path + [os.path.dirname(os.path.dirname(sowzero.__file__))]
                                        + [env.get("PYTHONPATH", "")])
    p = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("ok")
