"""Gymnasium's spaces for sowzero's environments, without needing gymnasium.

The environments build their spaces here: gymnasium.spaces' own classes when gymnasium is importable
(Debian has no package of it), else the classes below, which hold the same attributes (low, high, n,
start, nvec, shape, dtype, spaces) and answer contains(), sample() (with gymnasium's mask= form for the
discrete ones), seed() and np_random as gymnasium's do for these bounded spaces.
"""
import numpy as np

try:  # pragma: no cover - depends on what is installed
    import gymnasium.spaces as _gym_spaces
except ImportError:
    _gym_spaces = None


class _Space:
    """What every space shares: a numpy Generator (np_random), re-seeded by seed()."""

    def __init__(self, shape, dtype, seed=None):
        self.shape = shape
        self.dtype = np.dtype(dtype) if dtype is not None else None
        self._rng = np.random.default_rng(seed)

    @property
    def np_random(self):
        return self._rng

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)
        return [seed]

    def __contains__(self, x):
        return self.contains(x)


class Box(_Space):
    """A box of arrays of one shape and dtype with low <= x <= high element for element (bounded).

    low, high: arrays of `shape` (scalars are broadcast) in `dtype`; sample() draws uniformly in the
    bounds (integers: each value of low..high equally likely) from its own numpy Generator (seed()).
    """

    def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
        shape = tuple(shape) if shape is not None else np.shape(high)
        super().__init__(shape, dtype, seed)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), shape).copy()
        if np.any(self.low > self.high):
            raise ValueError("Box: low must not exceed high")

    def contains(self, x):
        x = np.asarray(x)
        return (x.shape == self.shape and np.can_cast(x.dtype, self.dtype)
                and bool(np.all(x >= self.low)) and bool(np.all(x <= self.high)))

    def sample(self, mask=None):
        if mask is not None:
            raise ValueError("Box.sample: masks are not supported for Box")
        if self.dtype.kind in "iu":
            return self._rng.integers(self.low, self.high, endpoint=True, dtype=self.dtype)
        return self._rng.uniform(self.low, self.high).astype(self.dtype)

    def __eq__(self, other):
        return (isinstance(other, Box) and self.shape == other.shape and self.dtype == other.dtype
                and np.array_equal(self.low, other.low) and np.array_equal(self.high, other.high))

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


def _masked_choice(rng, n, start, mask, what):
    """gymnasium's masked draw: uniformly among the k with mask[k] == 1; start when none is allowed."""
    mask = np.asarray(mask)
    if mask.dtype != np.int8 or mask.shape != (n,):
        raise ValueError("%s: mask must be an int8 array of shape (%d,), not %s %s" % (what, n, mask.dtype,
                                                                                     mask.shape))
    if not np.all((mask == 0) | (mask == 1)):
        raise ValueError("%s: mask entries must be 0 or 1" % what)
    allowed = np.flatnonzero(mask)
    return start + (int(rng.choice(allowed)) if allowed.size else 0)


class Discrete(_Space):
    """The integers start .. start+n-1 (int64 scalars): one env's action, a relative pit."""

    def __init__(self, n, seed=None, start=0):
        if int(n) < 1:
            raise ValueError("Discrete: n must be positive")
        super().__init__((), np.int64, seed)
        self.n = np.int64(n)
        self.start = np.int64(start)

    def sample(self, mask=None):
        if mask is None:
            return np.int64(self.start + self._rng.integers(self.n))
        return np.int64(_masked_choice(self._rng, int(self.n), int(self.start), mask, "Discrete.sample"))

    def contains(self, x):
        if isinstance(x, (int, np.integer)):
            v = int(x)
        elif isinstance(x, np.ndarray) and x.shape == () and x.dtype.kind in "iu":
            v = int(x)
        else:
            return False
        return int(self.start) <= v < int(self.start + self.n)

    def __eq__(self, other):
        return isinstance(other, Discrete) and self.n == other.n and self.start == other.start

    def __repr__(self):
        return f"Discrete({self.n})" if not self.start else f"Discrete({self.n}, start={self.start})"


class MultiDiscrete(_Space):
    """Arrays x of nvec's shape with start[i] <= x[i] < start[i] + nvec[i]: a batch's actions."""

    def __init__(self, nvec, dtype=np.int64, seed=None, start=None):
        nvec = np.array(nvec, dtype=dtype, copy=True)
        if np.any(nvec < 1):
            raise ValueError("MultiDiscrete: every nvec entry must be positive")
        super().__init__(nvec.shape, dtype, seed)
        self.nvec = nvec
        self.start = np.zeros_like(nvec) if start is None else np.array(start, dtype=dtype, copy=True)

    def sample(self, mask=None):
        if mask is None:
            return (self._rng.random(self.nvec.shape) * self.nvec).astype(self.dtype) + self.start
        if self.nvec.ndim != 1 or not isinstance(mask, tuple) or len(mask) != self.nvec.shape[0]:
            raise ValueError("MultiDiscrete.sample: mask must be a tuple of %d int8 arrays (one per entry)"
                             % self.nvec.shape[0])
        return np.array([_masked_choice(self._rng, int(n), int(s), m, "MultiDiscrete.sample")
                         for n, s, m in zip(self.nvec, self.start, mask)], dtype=self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return (x.shape == self.shape and x.dtype.kind in "iu" and bool(np.all(x >= self.start))
                and bool(np.all(x < self.start + self.nvec)))

    def __eq__(self, other):
        return (isinstance(other, MultiDiscrete) and self.dtype == other.dtype
                and np.array_equal(self.nvec, other.nvec) and np.array_equal(self.start, other.start))

    def __repr__(self):
        return f"MultiDiscrete({self.nvec})"


class Dict(_Space):
    """A dict of named spaces (the multi-agent observation: 'observation' and 'action_mask')."""

    def __init__(self, spaces, seed=None):
        super().__init__(None, None, seed)
        self.spaces = dict(spaces)

    def __getitem__(self, key):
        return self.spaces[key]

    def keys(self):
        return self.spaces.keys()

    def seed(self, seed=None):
        super().seed(seed)
        children = np.random.SeedSequence(seed).spawn(len(self.spaces))
        for space, child in zip(self.spaces.values(), children):
            space.seed(int(child.generate_state(1)[0]))
        return [seed]

    def sample(self, mask=None):
        return {k: s.sample() for k, s in self.spaces.items()}

    def contains(self, x):
        return (isinstance(x, dict) and x.keys() == self.spaces.keys()
                and all(s.contains(x[k]) for k, s in self.spaces.items()))

    def __eq__(self, other):
        return isinstance(other, Dict) and self.spaces == other.spaces

    def __repr__(self):
        return "Dict(" + ", ".join(f"{k!r}: {s!r}" for k, s in self.spaces.items()) + ")"


def _cls(name):
    """gymnasium.spaces' class of that name when gymnasium is installed, else this module's."""
    return getattr(_gym_spaces, name) if _gym_spaces is not None else globals()[name]


def observation_box(high, dtype, num_envs=0):
    """The Box of obs: bounds 0..high[j] per element (high: the largest value of each element, in dtype);
    one env's (shape (obs_dim,)) when num_envs is 0, else the batch's (num_envs, obs_dim)."""
    high = np.asarray(high, dtype=dtype)
    if num_envs:
        high = np.broadcast_to(high, (num_envs,) + high.shape)
    return _cls("Box")(low=np.zeros(high.shape, dtype=dtype), high=np.array(high), shape=high.shape, dtype=dtype)


def box(low, high, shape, dtype):
    """A Box (gymnasium's when installed)."""
    return _cls("Box")(low=low, high=high, shape=shape, dtype=dtype)


def discrete(n):
    """Discrete(n): one env's action (gymnasium's when installed)."""
    return _cls("Discrete")(int(n))


def multi_discrete(n, num_envs):
    """MultiDiscrete of num_envs entries of n each (int64): gymnasium's batch_space of Discrete(n)."""
    return _cls("MultiDiscrete")(np.full((num_envs,), n, dtype=np.int64))


def dict_space(spaces):
    """A Dict of the named spaces (gymnasium's when installed)."""
    return _cls("Dict")(spaces)
