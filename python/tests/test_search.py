"""sowzero.perft and sowzero.solve against the vectors and the CLI."""
import pytest

import sowzero
from conftest import START, cli, vectors


def test_perft_vectors():
    rows = vectors("perft.txt")
    by = {}
    for rules, pos, depth, nodes in rows:
        by.setdefault((rules, pos), {})[int(depth)] = int(nodes)
    checked = 0
    for (rules, pos), want in by.items():
        depth = min(max(want), 6)
        got = sowzero.perft(rules, pos, depth)
        assert got == [want[d] for d in range(1, depth + 1)], rules
        checked += 1
    assert checked >= 3


def test_perft_against_cli():
    for rules, pos in [("kalah:pits=4,seeds=3,capture=always", None), ("basico:players=3,pits=4", None),
                       ("basico:players=2,pits=6", None), ("kalah", "2,1,13,0,3,2,10,1,2,0,3,4,1,6 S")]:
        args = ["perft", "5", "--rules", rules, "--json"] + (["--position", pos] if pos else [])
        assert sowzero.perft(rules, pos, 5) == cli(*args)["nodes"]
    assert sowzero.perft(depth=2) == [6, 35]


def test_solve_vectors_and_cli():
    rows = vectors("solved.txt")
    small = [(r, int(v)) for r, v, _ in rows if "pits=1" in r or "pits=2" in r or r.startswith("kalah:pits=3,seeds=1")]
    assert small
    for rules, value in small:
        got = sowzero.solve(None, rules)
        assert got["value"] == value and not got["over"], rules
    rules, pos = "kalah:pits=4,seeds=3", "3,3,3,3,0,3,3,3,3,0 S"
    got, want = sowzero.solve(pos, rules, tt_mb=16), cli("solve", "--rules", rules, "--position", pos, "--endgame", "0", "--threads", "1", "--json")
    for key in ("value", "best", "nodes", "rules", "position", "over"):
        assert got[key] == want[key], key
    over = sowzero.solve("0,0,0,0,10,0,0,0,0,14 N", rules)
    assert over["over"] and over["best"] == [] and over["value"] == 4


def test_search_errors():
    with pytest.raises(ValueError, match="depth"):
        sowzero.perft("kalah", None, 0)
    with pytest.raises(ValueError, match="rules"):
        sowzero.perft("kalah:capture=sometimes", None, 1)
    with pytest.raises(ValueError, match="position"):
        sowzero.perft("kalah", "1,2 S", 1)
    with pytest.raises(TypeError):
        sowzero.perft("kalah", None, "3")
    with pytest.raises(ValueError, match="Kalah only"):
        sowzero.solve(None, "basico")
    with pytest.raises(ValueError, match="tt_mb"):
        sowzero.solve(START, tt_mb=0)
    with pytest.raises(ValueError, match="max_sows"):
        sowzero.solve(None, "kalah:pits=2,seeds=2,max_sows=10", endgame=4)
