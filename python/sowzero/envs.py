"""Gymnasium's environment APIs over the C engine: VecEnv (gymnasium.vector.VectorEnv) and Env
(gymnasium.Env), and board_text, the text board that render() returns.

When gymnasium is importable the classes also derive from gymnasium.vector.VectorEnv / gymnasium.Env
(so wrappers that check isinstance accept them) and their spaces are gymnasium.spaces'; without it they
are plain classes with the same attributes and the spaces of sowzero.spaces.
"""
import functools
import threading

import numpy as np

from . import _sowzero
from . import spaces as _spaces

try:  # pragma: no cover - depends on what is installed
    import gymnasium as _gym
    _VECTOR_BASES = (_gym.vector.VectorEnv,)
    _ENV_BASES = (_gym.Env,)
    _AUTORESET = getattr(getattr(_gym.vector, "AutoresetMode", None), "NEXT_STEP", "next_step")
except ImportError:
    _VECTOR_BASES = ()
    _ENV_BASES = ()
    _AUTORESET = "next_step"

RENDER_MODES = ("ansi",)


def _check_render_mode(who, render_mode):
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError("%s: render_mode=%r is not None or 'ansi'" % (who, render_mode))


_probe_lock = threading.Lock()


@functools.lru_cache(maxsize=16)
def _probe(rules):
    """A one-env VecEnv of these rules whose action mask view follows set_position (copy=False)."""
    env = _sowzero.VecEnv(rules=rules, num_envs=1, observations=False, copy=False)
    _, info = env.reset()
    return env, info["action_mask"]


def _state(position, rules):
    """(over, player to move) of a position string; ValueError for a bad one."""
    with _probe_lock:
        env, mask = _probe(rules)
        env.set_position(0, position)
        over = not mask[0].any()
    side = position.split()[1]
    return over, (0 if side == "S" else 1 if side == "N" else int(side))


def board_text(position, rules="kalah"):
    """The position string `position` of `rules` drawn as text: for two players the two rows of pits with
    North's above (its pits A.. from right to left, its store on the left) and South's below (a.. from
    left to right, its store on the right); for more, one row per player (pits a.., then its store in
    brackets, '-' once the player has left). The last line says who moves, or that the game is over.
    ValueError for a bad position or rules."""
    over, mover = _state(position, rules)
    env, _ = _probe(rules)
    players, pits = env.num_players, env.num_actions
    fields = position.split()
    cells = fields[0].split(",")
    width = pits + 1
    rows = [cells[p * width:(p + 1) * width] for p in range(players)]
    w = max(3, max(len(c) for c in cells) + 1)
    if players == 2:
        south, north = rows
        pad = " " * (w + 1)
        lines = [pad + "".join(chr(ord("A") + k).rjust(w) for k in reversed(range(pits))),
                 pad + "".join(c.rjust(w) for c in reversed(north[:pits])),
                 north[pits].rjust(w) + " " * (w * pits + 2) + south[pits].rjust(w),
                 pad + "".join(c.rjust(w) for c in south[:pits]),
                 pad + "".join(chr(ord("a") + k).rjust(w) for k in range(pits))]
        who = ("South", "North")[mover]
    else:
        lines = ["          " + "".join(chr(ord("a") + k).rjust(w) for k in range(pits))]
        for p, row in enumerate(rows):
            mark = ">" if p == mover and not over else " "
            lines.append("%s player %d" % (mark, p) + "".join(c.rjust(w) for c in row[:pits])
                         + "  [" + row[pits] + "]")
        if len(fields) > 2:
            lines.append("left the circuit: " + fields[2])
        who = "player %d" % mover
    lines.append("game over" if over else who + " to move")
    return "\n".join(lines) + "\n"


class VecEnv(_sowzero.VecEnv, *_VECTOR_BASES):
    """VecEnv(game=None, rules=None, num_envs=1, *, seed=0, kernel='auto', observations=True,
           obs_dtype='float32', copy=True, render_mode=None)

    num_envs games of one rule set stepped together in C, with gymnasium.vector.VectorEnv's API:
    reset(seed=, options=) -> (obs, info); step(actions) -> (obs, rewards, terminations, truncations,
    info); single_observation_space / observation_space (Box), single_action_space (Discrete(num_actions))
    / action_space (MultiDiscrete of num_envs entries), metadata, render_mode, render(), np_random,
    unwrapped, close(). The C type's docstring (help(sowzero._sowzero.VecEnv)) gives every array, dtype
    and rule; the differences from a Gymnasium vector env of single-agent games:

    - rewards are (num_envs, num_players), by absolute player; info['to_play'] names the player to move,
      info['action_mask'] its legal actions (sample legal actions with sample_actions(), or with
      action_space.sample(mask=tuple(info['action_mask'].astype(np.int8)))).
    - Autoreset is NEXT_STEP (metadata['autoreset_mode']).
    - copy=True (the default, as Gymnasium's) returns new arrays from reset and step; copy=False returns
      the env's own read-only buffers, overwritten in place by the next call (copy what you keep), which
      saves the copies' time (docs/python-gym.md gives the figures).

    render_mode None or 'ansi': render() returns a tuple of num_envs board texts (board_text), or None
    without a render_mode. np_random is a numpy Generator seeded by reset(seed=) (the env's own draws,
    sample_actions, are seeded there too).
    """

    metadata = {"render_modes": list(RENDER_MODES), "autoreset_mode": _AUTORESET}
    spec = None

    def __init__(self, *args, render_mode=None, **kwargs):
        _check_render_mode("VecEnv", render_mode)
        super().__init__(*args, **kwargs)
        self.render_mode = render_mode
        self.single_action_space = _spaces.discrete(self.num_actions)
        self.action_space = _spaces.multi_discrete(self.num_actions, self.num_envs)
        self._single_observation_space = _sowzero.VecEnv.single_observation_space.__get__(self)
        self._observation_space = _sowzero.VecEnv.observation_space.__get__(self)
        self._np_random = None
        self._np_random_seed = None

    @property
    def single_observation_space(self):
        """Box(0, high, (obs_dim,), obs_dtype): one env's obs (None with observations=False)."""
        return self._single_observation_space

    @property
    def observation_space(self):
        """Box(0, high, (num_envs, obs_dim), obs_dtype): the batch's obs (None with observations=False)."""
        return self._observation_space

    @property
    def np_random(self):
        """A numpy Generator, seeded by reset(seed=) (unseeded until then)."""
        if self._np_random is None:
            self._np_random = np.random.default_rng()
        return self._np_random

    @np_random.setter
    def np_random(self, rng):
        self._np_random = rng

    @property
    def np_random_seed(self):
        """The seed of the last reset(seed=...), or None."""
        return self._np_random_seed

    @property
    def unwrapped(self):
        return self

    def reset(self, *, seed=None, options=None):
        """reset(*, seed=None, options=None) -> (obs, info); see help(sowzero._sowzero.VecEnv.reset)."""
        out = super().reset(seed=seed, options=options)
        if seed is not None:
            self._np_random = np.random.default_rng(seed)
            self._np_random_seed = seed
        return out

    def render(self):
        """A tuple of num_envs board texts (render_mode 'ansi'), or None without a render_mode."""
        if self.render_mode is None:
            return None
        return tuple(board_text(self.get_position(i), self.rules) for i in range(self.num_envs))

    def __repr__(self):
        return "VecEnv(rules=%r, num_envs=%d)" % (self.rules, self.num_envs)


class Env(*_ENV_BASES):
    """Env(game=None, rules=None, *, obs_dtype='float32', render_mode=None)

    One game with gymnasium.Env's API: reset(seed=, options=) -> (obs, info); step(action) -> (obs,
    reward, terminated, truncated, info); observation_space (Box), action_space (Discrete(num_actions)),
    render(), close(), np_random, unwrapped. game / rules as VecEnv's (any game: kalah, basico, oware,
    congklak, with their rules specs).

    obs: float32 (obs_dim,) (or uint8 with obs_dtype='uint8'), the position from the point of view of the
    player to move. action: a relative pit 0..num_actions-1 of the player to move (int or numpy integer);
    ValueError for an illegal one, TypeError for a non-integer. reward: the final value of the game for
    the player who made this move (+1 win, -1 loss, 0 draw; basico 2*rank_score-1), 0 before the end.
    info: {'action_mask': bool (num_actions,) of the player to move next (all False at the end),
    'to_play': that player (int), 'rewards': float32 (num_players,) this step's reward of every player}.
    After terminated, step raises RuntimeError until reset() (no autoreset). The arrays are new each call.
    """

    metadata = {"render_modes": list(RENDER_MODES)}
    spec = None

    def __init__(self, game=None, rules=None, *, obs_dtype="float32", render_mode=None):
        _check_render_mode("Env", render_mode)
        self._v = VecEnv(game, rules, 1, obs_dtype=obs_dtype, copy=True)
        self.render_mode = render_mode
        self.observation_space = self._v.single_observation_space
        self.action_space = self._v.single_action_space
        self._np_random = None
        self._np_random_seed = None
        self._to_play = None  # None: reset() has not been called, or the game has ended

    num_players = property(lambda self: self._v.num_players, doc="players of the game")
    num_actions = property(lambda self: self._v.num_actions, doc="actions per turn (the mover's pits)")
    rules = property(lambda self: self._v.rules, doc="the canonical rules spec")
    game = property(lambda self: self._v.game, doc="the game's name")

    @property
    def np_random(self):
        """A numpy Generator, seeded by reset(seed=) (unseeded until then)."""
        if self._np_random is None:
            self._np_random = np.random.default_rng()
        return self._np_random

    @np_random.setter
    def np_random(self, rng):
        self._np_random = rng

    @property
    def np_random_seed(self):
        return self._np_random_seed

    @property
    def unwrapped(self):
        return self

    def _info(self, info, rewards):
        self._to_play = int(info["to_play"][0])
        return {"action_mask": info["action_mask"][0], "to_play": self._to_play, "rewards": rewards}

    def reset(self, *, seed=None, options=None):
        """reset(*, seed=None, options=None) -> (obs, info): the start position. seed: an int in
        0..2**64-1 (seeds np_random and action_space); options: None or {} (ValueError for any key)."""
        if options:
            if not isinstance(options, dict):
                raise TypeError("Env.reset: options must be a dict or None, not %s" % type(options).__name__)
            raise ValueError("Env.reset: unknown option %r (Env has none)" % next(iter(options)))
        if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool)):
            raise TypeError("Env.reset: seed must be an int in 0..2**64-1 or None, not %s" % type(seed).__name__)
        obs, info = self._v.reset(seed=seed, options=options)
        if seed is not None:
            self._np_random = np.random.default_rng(seed)
            self._np_random_seed = seed
            self.action_space.seed(seed)
        return (obs[0] if obs is not None else None), self._info(info, np.zeros(self.num_players, np.float32))

    def step(self, action):
        """step(action) -> (obs, reward, terminated, truncated, info); see the class docstring."""
        if self._to_play is None:
            raise RuntimeError("Env.step: the game has ended (or reset() was never called): call reset() first")
        if isinstance(action, (bool, np.bool_)):
            raise TypeError("Env.step: action must be an integer, not bool")
        mover = self._to_play
        obs, rew, term, trunc, info = self._v.step(np.asarray([action]))
        out = self._info(info, rew[0])
        if term[0] or trunc[0]:
            self._to_play = None
        return (obs[0] if obs is not None else None), float(rew[0, mover]), bool(term[0]), bool(trunc[0]), out

    def get_position(self):
        """The position string of the game."""
        return self._v.get_position(0)

    def set_position(self, position):
        """Loads a position string (ValueError for a bad one); a finished position ends the episode."""
        self._v.set_position(0, position)
        over, mover = _state(position, self.rules)
        self._to_play = None if over else mover

    def move_name(self, action):
        """The action in the game's notation (Kalah: 'c' for South, 'C' for North)."""
        return self._v.move_name(0, action)

    def render(self):
        """The board as text (render_mode 'ansi'), or None without a render_mode."""
        if self.render_mode is None:
            return None
        return board_text(self._v.get_position(0), self.rules)

    def close(self):
        self._v.close()

    def __repr__(self):
        return "Env(rules=%r)" % self.rules


GYM_IDS = {"sowzero/Kalah-v0": "kalah", "sowzero/Oware-v0": "oware", "sowzero/Congklak-v0": "congklak"}


def _register():
    """gymnasium.make('sowzero/Kalah-v0') (Env) and gymnasium.make_vec(..., vectorization_mode=
    'vector_entry_point') (VecEnv), when gymnasium is installed."""
    registry = getattr(_gym.envs.registration, "registry", {})
    for env_id, rules in GYM_IDS.items():
        if env_id in registry:
            continue
        try:
            _gym.register(id=env_id, entry_point="sowzero.envs:Env", vector_entry_point="sowzero.envs:VecEnv",
                          kwargs={"rules": rules})
        except TypeError:  # a gymnasium before vector_entry_point (0.29)
            _gym.register(id=env_id, entry_point="sowzero.envs:Env", kwargs={"rules": rules})


if _ENV_BASES:  # pragma: no cover - depends on what is installed
    _register()
