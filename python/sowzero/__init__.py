"""sowzero: the Kalah / Mancala engine of the sowzero project from Python, on numpy arrays.

VecEnv     N games stepped together in C (Kalah on the SIMD batch stepper): gymnasium.vector.VectorEnv's API
Env        one game: gymnasium.Env's API (the action mask in info)
AECEnv     one game of 2..4 players, one agent per player: PettingZoo's AEC API
Net        a network file evaluated on numpy batches (the project's forward pass)
Agent      any agent spec of `sowzero match` choosing moves for position strings
solve      the exact solver (Kalah)
perft      move-generator leaf counts
encode     the net's encoding of a position from any player's point of view
board_text a position string drawn as a text board (what render() returns)
export_onnx  a network file as an ONNX model (needs Debian's python3-onnx)
spaces     Box, Discrete, MultiDiscrete, Dict (gymnasium's own when it is installed)

Positions and moves are the project's notation (docs/design.md section 2): position strings in and out, move
letters (South a.., North A..), and relative pits 0..pits-1 as VecEnv actions (any integer dtype;
VecEnv.sample_actions draws uint8, info["to_play"] is int8). help(sowzero.VecEnv) etc. document every
argument, array shape, dtype and error.
"""
import sys as _sys

from ._build_info import NUMPY_VERSION as _BUILT_NUMPY
from ._build_info import PYTHON as _BUILT_PYTHON
from ._build_info import PYTHON_VERSION as _BUILT_PYTHON_VERSION
from ._build_info import VERSION as __version__


def _mismatch(exc):
    """The ImportError raised when the extension cannot load: what it was built for, and what runs."""
    try:
        import numpy
        have_numpy = "numpy " + numpy.__version__
    except Exception as e:  # noqa: BLE001  (any failure: say what it was)
        have_numpy = "no usable numpy (%s)" % e
    running = "%d.%d.%d" % _sys.version_info[:3]
    return ImportError(
        "sowzero's C extension cannot be loaded (%s). It was built for %s (Python %s) with numpy %s; this is "
        "%s (Python %s) with %s. Run it with %s, or build it for this interpreter: `%s -m pip install .` in "
        "the sowzero source tree (README, Python)."
        % (exc, _BUILT_PYTHON, _BUILT_PYTHON_VERSION, _BUILT_NUMPY, _sys.executable, running, have_numpy,
           _BUILT_PYTHON, _sys.executable))


try:
    import numpy as _np  # noqa: F401  (the extension needs it first)
    from . import _sowzero
except ImportError as _exc:
    raise _mismatch(_exc) from _exc

from ._sowzero import (  # noqa: F401,E402  (the C extension, python/src/)
    BASICO_ENCODING,
    KALAH_ENCODING,
    Agent,
    Net,
    encode,
    perft,
    solve,
)
from .aec import AECEnv  # noqa: E402
from .envs import Env, VecEnv, board_text  # noqa: E402
from .onnx_export import export_onnx  # noqa: F401,E402  (imports onnx only when called)

__all__ = ["VecEnv", "Env", "AECEnv", "Net", "Agent", "solve", "perft", "encode", "board_text", "export_onnx",
           "KALAH_ENCODING", "BASICO_ENCODING", "__version__"]
