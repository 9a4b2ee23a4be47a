#!/usr/bin/python3
"""Proves that two sowzero net files hold the same net: every dataset (names, shapes, dtypes and raw bytes)
and every root attribute of the first are identical in the second; prints what the second adds (its
/search record). Exits non-zero (AssertionError) at the first difference.

    /usr/bin/python3 scripts/net_same_weights.py OLD.h5 NEW.h5

Used when nets/kalah-6-4.h5 got its search record (nets/README.md). Needs Debian's python3-h5py."""
import sys

import h5py
a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
def walk(f):
    out = {}
    f.visititems(lambda n, o: out.__setitem__(n, o) if isinstance(o, h5py.Dataset) else None)
    return out
da, db = walk(a), walk(b)
assert sorted(da) == sorted(db), (sorted(da), sorted(db))
for n in sorted(da):
    x, y = da[n][()], db[n][()]
    assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), n
    print(f"{n}: {x.dtype} {x.shape} identical ({x.nbytes} bytes)")
def text(v):  # a fixed-length string attribute reads as bytes, a variable-length one (older files) as str
    return v.decode() if isinstance(v, bytes) else v
for k in a.attrs:
    assert text(a.attrs[k]) == text(b.attrs[k]), k
print("root attributes identical:", ", ".join(sorted(a.attrs)))
print("only in", sys.argv[2], ":", sorted(set(b) - set(a)), {k: text(v) for k, v in b["search"].attrs.items()} if "search" in b else None)
