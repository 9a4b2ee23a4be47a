"""Gymnasium's Box space for VecEnv's observations, without needing gymnasium.

VecEnv.single_observation_space / observation_space build their Box here: gymnasium.spaces.Box itself
when gymnasium is importable (Debian has no package of it), else `Box` below, which holds the same
attributes (low, high, shape, dtype) and answers contains() and sample() as gymnasium's Box does for
bounded spaces.
"""
import numpy as np

try:  # pragma: no cover - depends on what is installed
    from gymnasium.spaces import Box as _GymBox
except ImportError:
    _GymBox = None


class Box:
    """A box of arrays of one shape and dtype with low <= x <= high element for element (bounded).

    low, high: arrays of `shape` (scalars are broadcast) in `dtype`; sample() draws uniformly in the
    bounds (integers: each value of low..high equally likely) from its own numpy Generator (seed()).
    """

    def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
        self.dtype = np.dtype(dtype)
        shape = tuple(shape) if shape is not None else np.shape(high)
        self.shape = shape
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), shape).copy()
        if np.any(self.low > self.high):
            raise ValueError("Box: low must not exceed high")
        self._rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)
        return [seed]

    def contains(self, x):
        x = np.asarray(x)
        return (x.shape == self.shape and np.can_cast(x.dtype, self.dtype)
                and bool(np.all(x >= self.low)) and bool(np.all(x <= self.high)))

    __contains__ = contains

    def sample(self):
        if self.dtype.kind in "iu":
            return self._rng.integers(self.low, self.high, endpoint=True, dtype=self.dtype)
        return self._rng.uniform(self.low, self.high).astype(self.dtype)

    def __eq__(self, other):
        return (isinstance(other, Box) and self.shape == other.shape and self.dtype == other.dtype
                and np.array_equal(self.low, other.low) and np.array_equal(self.high, other.high))

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


def observation_box(high, dtype, num_envs=0):
    """The Box of obs: bounds 0..high[j] per element (high: the largest value of each element, in dtype);
    one env's (shape (obs_dim,)) when num_envs is 0, else the batch's (num_envs, obs_dim)."""
    high = np.asarray(high, dtype=dtype)
    if num_envs:
        high = np.broadcast_to(high, (num_envs,) + high.shape)
    cls = _GymBox if _GymBox is not None else Box
    return cls(low=np.zeros(high.shape, dtype=dtype), high=np.array(high), shape=high.shape, dtype=dtype)
