"""python3 -m sowzero.bench: random-playout throughput through VecEnv.step beside `sowzero bench env`.

    PYTHONPATH=build/python /usr/bin/python3 -m sowzero.bench --sowzero build/sowzero [--envs 4096]
        [--obs-dtype both|float32|uint8] [--json]

One thread, num_envs boards. The measurements, alternated round by round (default 3 rounds), each
reported as the median over the rounds:
  c              `sowzero bench env --threads 1 --batch ENVS`: the C stepper's random playouts
                 (vecenv_run_random: moves drawn inside the SIMD kernel, each block of 64 boards kept in
                 registers for 64 steps, nothing written: no observations, no Python) -- the anchor
  c_gym          `bench env --mode gym`: vecenv_gym_step from C, the Python step's engine without Python
                 (every output row written, the next random moves drawn in the same pass)
  c_gym_noobs    `bench env --mode gym-noobs`: the same without observations
  c_gym_u8       `bench env --mode gym-u8`: the same with uint8 observations (the engine of sampler_u8)
  sampler        VecEnv.step(env.sample_actions()): the full Gymnasium step, actions from the env's own
                 C sampler, float32 observations (the default)
  sampler_u8     the same on VecEnv(obs_dtype="uint8"): the observations as the encoding's integers, a
                 quarter of the bytes (--obs-dtype: both, the default, runs sampler and sampler_u8)
  sampler_noobs  the same on VecEnv(observations=False): no observation rows (obs is None)
  sampler_copy   the same on VecEnv(copy=True), the default: every array of reset and step a new copy
                 (the other Python measurements use copy=False, the env's own buffers)
  table          VecEnv.step(table[packbits(mask), rng.integers(0, 420)]): drawn in numpy through a table
                 of the r-th legal pit (r mod count) per legal set; 420 = lcm(1..7), so every pit is
                 exactly equally likely
  numpy          VecEnv.step(argmax(rng.random(mask.shape) + mask)): drawn in numpy, the plain way
Each Python step writes every observation (float32 or uint8; not with observations=False), action mask, reward,
termination and to_play, as the Gymnasium API asks. sows/s counts sowings (a step that resets an env
after its game ended sows nothing there), the unit of `sowzero bench env`. ratio = sows/s divided by the
C stepper's (c) of the same round. sample_us is the time of sample_actions alone, per call. The rates
are given twice: by the wall clock (sows_per_s, ratio) and by the process's CPU time (sows_per_cpu_s,
cpu_ratio, `bench env`'s cpu_seconds): on a shared machine the other processes' load moves the wall-clock
rates much more than the CPU-time ones.

The store bound: a Gymnasium step must write its rows (obs, action_mask, to_play (int8), terminations,
the sample as bytes (sample_actions' uint8 actions), and the rewards of the boards where a game ended now
or at the previous step, counted as the lines of 8 boards they touch: a fraction 1 - (1 - p)^16 of them,
p = 1 / (sows_per_game + 1) the chance that a board's game ends at a step) and read and write back the stepper's own state (each board's
2m+2 cell bytes, side, 16-bit sowing counter, an eighth of a random state: 18 bytes), which does not stay
in L1 beside 4096 boards' rows: bytes_per_step, the sum (rows_bytes + state_bytes). store_GBps is this
core's rate of filling a buffer of that size in place (libc's memset through ctypes, CPU time, median of
the rounds; numpy's own fill is several times slower): a line written costs what a state line read and
written back costs, its fetch from L2 and its write-back. So store_us = bytes / rate is the least time a
step can take even if the sowing cost nothing, and bound = the C stepper's CPU time per step / store_us
is the highest ratio any implementation of the full step could reach here (bound_uint8: the same with
uint8 observation rows). load is os.getloadavg() before and after the run: other processes on the
machine (the CPU-time ratios hold up under load far better than the wall-clock ones).
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from . import VecEnv


def c_bench(binary, envs, seconds, rules, mode="playout"):
    out = subprocess.run([binary, "bench", "env", "--threads", "1", "--batch", str(envs), "--seconds",
                          str(seconds), "--rules", rules, "--mode", mode, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("sowzero bench env failed: " + out.stderr.strip())
    return json.loads(out.stdout)


LCM = 420  # lcm(1..7): r mod count is uniform for every count of legal pits


def pit_table(moves):
    """table[legal set as bits, r] = the (r mod count)-th legal pit."""
    table = np.zeros((256, LCM), dtype=np.int64)
    for code in range(1, 1 << moves):
        pits = [k for k in range(moves) if code >> k & 1]
        table[code] = [pits[r % len(pits)] for r in range(LCM)]
    return table


def py_bench(envs, seconds, rules, how, seed, obs_dtype="float32"):
    env = VecEnv(rules=rules, num_envs=envs, seed=seed, observations=how != "sampler_noobs",
                 obs_dtype="uint8" if how == "sampler_u8" else obs_dtype, copy=how == "sampler_copy")
    obs, info = env.reset()
    rng = np.random.default_rng(seed)
    mask = info["action_mask"]
    table = pit_table(env.num_actions)
    if how in ("sampler", "sampler_u8", "sampler_noobs", "sampler_copy"):
        draw = env.sample_actions
    elif how == "table":
        def draw():
            return table[np.packbits(mask, axis=1, bitorder="little")[:, 0], rng.integers(0, LCM, size=envs)]
    else:
        def draw():
            return np.argmax(rng.random(mask.shape, dtype=np.float32) + mask, axis=1)
    for _ in range(20):  # warm-up: first touch of the buffers
        env.step(draw())
    before = env.stats()["sows"]
    steps, t0, c0 = 0, time.perf_counter(), time.process_time()
    deadline = t0 + seconds
    while True:
        for _ in range(50):
            env.step(draw())
        steps += 50
        if time.perf_counter() >= deadline:
            break
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    sows = env.stats()["sows"] - before
    t1 = time.perf_counter()
    for _ in range(200):
        env.sample_actions()
    sample_us = (time.perf_counter() - t1) / 200 * 1e6
    return {"steps_per_s": steps / dt, "sows_per_s": sows / dt, "us_per_step": dt / steps * 1e6,
            "sows_per_cpu_s": sows / cpu, "cpu_us_per_step": cpu / steps * 1e6,
            "sample_us": sample_us, "kernel": env.kernel}


def store_rate(nbytes, seconds):
    """Bytes per second of memset over an nbytes buffer in place, over about `seconds`."""
    buf = np.zeros(nbytes, dtype=np.uint8)
    addr = buf.ctypes.data
    passes, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        for _ in range(100):
            ctypes.memset(addr, passes & 255, nbytes)
        passes += 100
    return nbytes * passes / (time.process_time() - t0)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m sowzero.bench", description=__doc__.splitlines()[0])
    ap.add_argument("--sowzero", default=os.environ.get("SOWZERO_BIN", "build/sowzero"),
                    help="the sowzero binary for the C side (default: $SOWZERO_BIN or build/sowzero)")
    ap.add_argument("--envs", type=int, default=4096, help="boards (num_envs and --batch; default 4096)")
    ap.add_argument("--seconds", type=float, default=2.0, help="per measurement (default 2)")
    ap.add_argument("--rounds", type=int, default=3, help="alternated rounds; medians reported (default 3)")
    ap.add_argument("--rules", default="kalah", help="Kalah rules (default kalah)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--obs-dtype", choices=("both", "float32", "uint8"), default="both",
                    help="the observations of the full step: float32 (sampler), uint8 (sampler_u8) or both, "
                         "side by side (default both); table and numpy use float32 unless uint8 alone")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.envs < 64 or args.envs % 64:
        ap.error("--envs must be a positive multiple of 64 (the C bench's batch)")
    if args.rounds < 1 or args.seconds <= 0:
        ap.error("--rounds must be >= 1 and --seconds > 0")
    if not os.path.exists(args.sowzero):
        ap.error("--sowzero %s: no such file (build the project first)" % args.sowzero)
    kinds = {"both": ("sampler", "sampler_u8"), "float32": ("sampler",),
             "uint8": ("sampler_u8",)}[args.obs_dtype] + ("sampler_noobs", "sampler_copy", "table", "numpy")
    draw_dtype = "uint8" if args.obs_dtype == "uint8" else "float32"  # table and numpy's env
    load_before = os.getloadavg()
    c_modes = {"c_gym": "gym", "c_gym_noobs": "gym-noobs", "c_gym_u8": "gym-u8"}
    runs = {k: [] for k in ("c",) + tuple(c_modes) + kinds}
    probe = VecEnv(rules=args.rules, num_envs=args.envs)
    first = c_bench(args.sowzero, args.envs, min(args.seconds, 0.5), args.rules)
    dirty = 1 - (1 - 1 / (first["sows_per_game"] + 1)) ** 16  # rewards rewritten: 8 boards, now or before
    other_rows = args.envs * (probe.num_actions + 1 + probe.num_players * 4 * dirty + 1 + 1)
    rows_bytes = args.envs * probe.obs_dim * 4 + other_rows
    rows_bytes_u8 = args.envs * probe.obs_dim + other_rows
    state_bytes = args.envs * (probe.obs_dim + 1 + 2 + 1)  # cells (2m+2), side, sowing counter, rng / 8
    bytes_per_step = int(rows_bytes + state_bytes)
    rates = []
    for _ in range(args.rounds):
        runs["c"].append(c_bench(args.sowzero, args.envs, args.seconds, args.rules))
        for key, mode in c_modes.items():
            runs[key].append(c_bench(args.sowzero, args.envs, args.seconds, args.rules, mode))
        for how in kinds:
            runs[how].append(py_bench(args.envs, args.seconds, args.rules, how, args.seed, draw_dtype))
        rates.append(store_rate(bytes_per_step, min(args.seconds, 1.0)))
        for key in tuple(c_modes) + kinds:  # each against the anchor of its own round
            runs[key][-1]["ratio"] = runs[key][-1]["sows_per_s"] / runs["c"][-1]["sows_per_s"]
            runs[key][-1]["cpu_ratio"] = runs[key][-1]["sows_per_cpu_s"] / runs["c"][-1]["sows_per_cpu_s"]
    med = lambda rows, key: statistics.median(r[key] for r in rows)  # noqa: E731
    c_sows, c_cpu = med(runs["c"], "sows_per_s"), med(runs["c"], "sows_per_cpu_s")
    result = {"envs": args.envs, "rounds": args.rounds, "seconds": args.seconds, "rules": runs["c"][0]["rules"],
              "kernel": runs["c"][0]["kernel"], "c_sows_per_s": c_sows, "c_sows_per_cpu_s": c_cpu}
    # the anchor's time per step: its boards sow every step (finished games restart within the step)
    c_us = args.envs / c_cpu * 1e6
    store_us = bytes_per_step / statistics.median(rates) * 1e6
    # the uint8 step's bytes at the same rate (a smaller buffer fills no slower: it stays nearer the core)
    store_us_u8 = (rows_bytes_u8 + state_bytes) / statistics.median(rates) * 1e6
    result["store"] = {"bytes_per_step": bytes_per_step, "rows_bytes": int(rows_bytes), "state_bytes": state_bytes,
                       "rewards_dirty": dirty, "store_GBps": statistics.median(rates) / 1e9,
                       "store_us": store_us, "c_us_per_step": c_us, "bound": c_us / store_us,
                       "bytes_per_step_uint8": int(rows_bytes_u8 + state_bytes), "store_us_uint8": store_us_u8,
                       "bound_uint8": c_us / store_us_u8}
    result["load"] = {"before": list(load_before), "after": list(os.getloadavg()), "cpus": os.cpu_count()}
    for key in c_modes:
        result[key] = {"sows_per_s": med(runs[key], "sows_per_s"), "ratio": med(runs[key], "ratio"),
                       "sows_per_cpu_s": med(runs[key], "sows_per_cpu_s"), "cpu_ratio": med(runs[key], "cpu_ratio"),
                       # a step sows on every board but those restarting: sows_per_game of each
                       # sows_per_game + 1 steps
                       "us_per_step": args.envs * med(runs[key], "sows_per_game") /
                       (med(runs[key], "sows_per_game") + 1) / med(runs[key], "sows_per_s") * 1e6}
    for key in kinds:
        result[key] = {k: med(runs[key], k) for k in ("steps_per_s", "sows_per_s", "us_per_step", "sample_us", "ratio",
                                                      "sows_per_cpu_s", "cpu_us_per_step", "cpu_ratio")}
    if args.json:
        print(json.dumps(result))
        return 0
    print("rules %s, %d envs, one thread, kernel %s, medians of %d alternated rounds of %.1f s"
          % (result["rules"], args.envs, result["kernel"], args.rounds, args.seconds))
    print("  load average %s before, %s after (%d CPUs)" % (" ".join("%.2f" % x for x in result["load"]["before"]),
          " ".join("%.2f" % x for x in result["load"]["after"]), result["load"]["cpus"]))
    print("  %-34s %14.0f sows/s  (%.0f per CPU second)" % ("sowzero bench env (C stepper)", c_sows, c_cpu))
    for key, label in (("c_gym", "bench env --mode gym (C)"), ("c_gym_u8", "bench env --mode gym-u8 (C)"),
                       ("c_gym_noobs", "bench env --mode gym-noobs (C)")):
        r = result[key]
        print("  %-34s %14.0f sows/s  %18.1f us/step  ratio %.3f  CPU-time ratio %.3f"
              % (label, r["sows_per_s"], r["us_per_step"], r["ratio"], r["cpu_ratio"]))
    for key, label in (("sampler", "VecEnv.step + sample_actions"),
                       ("sampler_u8", "  the same, obs_dtype='uint8'"),
                       ("sampler_noobs", "  the same, observations=False"),
                       ("sampler_copy", "  the same, copy=True (new arrays)"), ("table", "VecEnv.step + numpy table"),
                       ("numpy", "VecEnv.step + numpy argmax")):
        if key not in result:
            continue
        r = result[key]
        print("  %-34s %14.0f sows/s  %10.0f steps/s  %7.1f us/step  ratio %.3f  CPU: %.1f us/step, ratio %.3f"
              % (label, r["sows_per_s"], r["steps_per_s"], r["us_per_step"], r["ratio"], r["cpu_us_per_step"],
                 r["cpu_ratio"]))
    print("  sample_actions alone: %.1f us per call" % result[kinds[0]]["sample_us"])
    st = result["store"]
    print("  store bound: %d bytes per step (rows %d, state %d) at %.1f GB/s = %.1f us vs the C stepper's %.1f "
          "CPU us per step: ratio <= %.2f"
          % (st["bytes_per_step"], st["rows_bytes"], st["state_bytes"], st["store_GBps"], st["store_us"],
             st["c_us_per_step"], st["bound"]))
    print("  store bound, uint8 observations: %d bytes per step = %.1f us: ratio <= %.2f"
          % (st["bytes_per_step_uint8"], st["store_us_uint8"], st["bound_uint8"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
