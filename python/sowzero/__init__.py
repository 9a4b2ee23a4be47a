"""sowzero: the Kalah / Mancala engine of the sowzero project from Python, on numpy arrays.

VecEnv     N games stepped together in C (Kalah on the SIMD batch stepper), Gymnasium's vector-env API
Net        a network file evaluated on numpy batches (the project's forward pass)
Agent      any agent spec of `sowzero match` choosing moves for position strings
solve      the exact solver (Kalah)
perft      move-generator leaf counts
export_onnx  a network file as an ONNX model (needs Debian's python3-onnx)
spaces     the Box of VecEnv's observation spaces (gymnasium's own when it is installed)

Positions and moves are the project's notation (docs/design.md section 2): position strings in and out, move
letters (South a.., North A..), and relative pits 0..pits-1 as VecEnv actions (any integer dtype;
VecEnv.sample_actions draws uint8, info["to_play"] is int8). help(sowzero.VecEnv) etc. document every
argument, array shape, dtype and error.
"""
from ._sowzero import (  # noqa: F401  (the C extension, python/src/)
    BASICO_ENCODING,
    KALAH_ENCODING,
    Agent,
    Net,
    VecEnv,
    perft,
    solve,
)
from .onnx_export import export_onnx  # noqa: F401  (imports onnx only when called)

__all__ = ["VecEnv", "Net", "Agent", "solve", "perft", "export_onnx", "KALAH_ENCODING", "BASICO_ENCODING"]
