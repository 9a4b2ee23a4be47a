"""The examples/ scripts and the benchmark run and do what they say (briefly)."""
import json
import os
import subprocess
import sys

from conftest import ROOT, sowzero_bin


def run(args):
    p = subprocess.run([sys.executable] + args, capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_reinforce_example_learns():
    """Ten iterations of REINFORCE lift the linear policy's score against random North well above the
    untrained (all-zero) policy's."""
    out = run([os.path.join(ROOT, "examples", "reinforce_kalah.py"), "--iterations", "10", "--envs", "256",
               "--eval-every", "10", "--eval-games", "256"])
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0]["iteration"] == 0 and rows[-1]["iteration"] == 10
    assert rows[-1]["score_vs_random"] > rows[0]["score_vs_random"] + 0.2


def test_aec_tournament_example():
    """Greedy beats two random players at 3-player basico through AECEnv, and a two-player Kalah line-up
    of the same agent scores zero in sum."""
    out = run([os.path.join(ROOT, "examples", "aec_tournament.py"), "--games", "12"])
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["agent"] for r in rows] == ["greedy", "random", "random"] and rows[0]["games"] == 12
    assert rows[0]["mean_reward"] > max(rows[1]["mean_reward"], rows[2]["mean_reward"])
    out = run([os.path.join(ROOT, "examples", "aec_tournament.py"), "--rules", "kalah", "--games", "4",
               "--agents", "greedy;ab:depth=2"])
    rows = [json.loads(line) for line in out.splitlines()]
    assert abs(rows[0]["mean_reward"] + rows[1]["mean_reward"]) < 1e-9


def test_bench_runs():
    out = run(["-m", "sowzero.bench", "--sowzero", sowzero_bin(), "--envs", "128", "--seconds", "0.05",
               "--rounds", "1", "--json"])
    r = json.loads(out)
    assert r["envs"] == 128 and r["c_sows_per_s"] > 0
    for key in ("sampler", "sampler_u8", "sampler_copy", "table", "numpy"):
        assert r[key]["sows_per_s"] > 0 and 0 < r[key]["ratio"] and 0 < r[key]["cpu_ratio"]
    for key in ("c_gym", "c_gym_u8", "c_gym_noobs"):  # the Python steps' engines from C
        assert r[key]["sows_per_s"] > 0 and 0 < r[key]["cpu_ratio"]
    st = r["store"]  # the bound counts the rows written and the stepper's state (18 bytes per env)
    assert st["bytes_per_step"] == st["rows_bytes"] + st["state_bytes"] and st["state_bytes"] == 128 * 18
    assert 0 < st["rewards_dirty"] < 1 and 0 < st["bound"]
    # uint8 observations: 3 bytes fewer per element (14 per env)
    assert st["bytes_per_step"] - st["bytes_per_step_uint8"] == 128 * 14 * 3 and st["bound_uint8"] > st["bound"]
    assert len(r["load"]["before"]) == 3 and r["load"]["cpus"] >= 1
    one = json.loads(run(["-m", "sowzero.bench", "--sowzero", sowzero_bin(), "--envs", "64", "--seconds", "0.02",
                          "--rounds", "1", "--obs-dtype", "uint8", "--json"]))
    assert "sampler_u8" in one and "sampler" not in one
