#!/usr/bin/python3
"""sowzero train under mpirun (train/mpi_train.h), on loopback with 3 ranks (a learner and two
self-play workers, --oversubscribe on a small machine):
  1. a short run completes; samples of BOTH workers reached the learner (mpi.csv), and what mpi.csv says
     was accepted is exactly what metrics.csv counts;
  2. --resume continues it under mpirun;
  3. the trained agent scores, against greedy, within the 95% interval of a single-process run of the same
     config (and the other way round);
  4. SIGUSR1 to mpirun stops the job cleanly (exit 0) with a checkpoint of the last iteration, which resumes;
     so does Ctrl-C (SIGINT to mpirun: SIGTERM to the ranks odls_base_sigkill_timeout seconds later, SIGKILL
     as long after that; 10 s here, so that a loaded machine checkpoints within it);
  5. a worker killed with SIGKILL ends the job (Open MPI aborts it: exit != 0), the run directory's
     checkpoints still read, and --resume continues.

usage: mpi_train.py SOWZERO_BIN MPIRUN TMPDIR       exit 0 ok, 1 failure, 77 skipped (no mpirun)
Processes are stopped by their own pids; every wait is bounded.
"""
import csv
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time

BIN, MPIRUN, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
MPI = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", "3"]
# One machine: shared memory only (vader). Open MPI's TCP transport has a lock-order inversion of its own
# in MPI_Init that ThreadSanitizer reports (mca_btl_tcp_add_procs / mca_btl_tcp_proc_remove); without it
# the run is TSan-clean, so the TSan pass runs this test too. The runtime's own wiring stays on loopback.
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMPI_MCA_btl="self,vader", OMPI_MCA_oob_tcp_if_include="lo")
CONFIG = """[rules]
game = kalah
pits = 6
seeds = 4
[net]
hidden = 32
[mcts]
sims = 16
[selfplay]
threads = 1
games_per_thread = 16
games = 64
[train]
batch_size = 64
steps_per_iteration = 40
replay_window = 20000
min_replay = 200
[eval]
opponents = greedy
games = 10
final_games = 200
every = 0
sims = 16
[run]
iterations = 5
checkpoint_every = 1
[mpi]
samples_per_message = 512
"""


def fail(msg):
    raise AssertionError(msg)


def run(args, mpi=True, timeout=300):
    cmd = (MPI if mpi else []) + [BIN, "train"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=ENV)
    return p.returncode, p.stdout, p.stderr


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def score(stdout):
    """(score, lo, hi) against greedy from the summary table."""
    m = re.search(r"^greedy\s+\d+\s+([\d.]+)\s+\[([\d.]+), ([\d.]+)\]", stdout, re.M)
    if not m:
        fail("no evaluation table in:\n" + stdout)
    return tuple(float(x) for x in m.groups())


def check_counts(d, workers=(1, 2)):
    """Both workers contributed, and mpi.csv's accepted samples / games are metrics.csv's totals."""
    log, met = rows(os.path.join(d, "mpi.csv")), rows(os.path.join(d, "metrics.csv"))
    per = {w: sum(int(r["samples"]) for r in log if int(r["worker_rank"]) == w) for w in workers}
    if not all(per[w] > 0 for w in workers):
        fail(f"{d}: samples per worker {per}: one worker's samples never reached the learner")
    last = met[-1]
    iters = {int(r["iteration"]) for r in log}
    if iters != set(range(1, int(last["iteration"]) + 1)):
        fail(f"{d}: mpi.csv covers iterations {sorted(iters)}, metrics.csv ends at {last['iteration']}")
    for key in ("samples", "games"):
        got = sum(int(r[key]) for r in log)
        if got != int(last[key]):
            fail(f"{d}: mpi.csv accepted {got} {key}, metrics.csv counts {last[key]}")
    return per


def wait_rows(d, n, p, limit=120):
    t0 = time.time()
    path = os.path.join(d, "metrics.csv")
    while time.time() - t0 < limit:
        if p.poll() is not None:
            fail(f"the job ended (exit {p.returncode}) before iteration {n}")
        if os.path.exists(path) and len(rows(path)) >= n:
            return
        time.sleep(0.2)
    fail(f"{d}: fewer than {n} iterations after {limit} s")


def ranks_of(mpirun_pid):
    """{rank: pid} of mpirun's children (Open MPI puts OMPI_COMM_WORLD_RANK in each rank's environment)."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != mpirun_pid:
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
            out[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(pid)
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return out


def newest_checkpoint(d):
    its = [int(n[5:-3]) for n in os.listdir(os.path.join(d, "checkpoints")) if re.match(r"iter-\d+\.h5$", n)]
    return max(its) if its else 0


def main():
    if not shutil.which(MPIRUN):
        print(f"skipped: {MPIRUN} not found")
        return 77
    root = os.path.join(TMP, "mpi_train")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    cfg = os.path.join(root, "t.ini")
    with open(cfg, "w") as f:
        f.write(CONFIG)

    # 1. a short run; 2. resumed
    d = os.path.join(root, "mpi")
    rc, out, err = run([cfg, "--run-dir", d, "--set", "run.iterations=3"])
    if rc != 0:
        fail(f"mpirun -np 3 sowzero train: exit {rc}\n{out}\n{err}")
    if "2 self-play workers stopped" not in err:
        fail("the learner did not report stopping its workers:\n" + err)
    per = check_counts(d)
    rc, out, err = run(["--resume", d, "--set", "run.iterations=5"])
    if rc != 0 or "resuming" not in err:
        fail(f"mpirun ... --resume: exit {rc}\n{out}\n{err}")
    check_counts(d)
    if len(rows(os.path.join(d, "metrics.csv"))) != 5:
        fail("the resumed run does not end with 5 metrics rows")
    mpi_s = score(out)

    # 3. the same config in one process
    s = os.path.join(root, "single")
    rc, out, err = run([cfg, "--run-dir", s], mpi=False)
    if rc != 0:
        fail(f"sowzero train (one process): exit {rc}\n{err}")
    one_s = score(out)
    print(f"vs greedy, 200 games: mpirun -np 3 {mpi_s[0]:.3f} [{mpi_s[1]:.3f}, {mpi_s[2]:.3f}]; one process "
          f"{one_s[0]:.3f} [{one_s[1]:.3f}, {one_s[2]:.3f}]; samples per worker {per}")
    # Both agents are weak after 5 short iterations, so their scores differ by chance; only a distributed
    # agent weaker beyond 3 standard errors of the difference (two proportions, 200 games each; draws make
    # p(1-p) an upper bound on the per-game variance) says the learner lost the workers' samples.
    se = math.sqrt((mpi_s[0] * (1 - mpi_s[0]) + one_s[0] * (1 - one_s[0])) / 200)
    if mpi_s[0] < one_s[0] - 3 * se:
        fail(f"the distributed run's agent is weaker than the single-process one: {mpi_s[0]:.3f} vs "
             f"{one_s[0]:.3f}, more than 3 standard errors ({se:.3f}) below")

    # 4. SIGUSR1: a clean stop with a checkpoint of the iteration it ends on
    u = os.path.join(root, "usr1")
    p = subprocess.Popen(MPI + [BIN, "train", cfg, "--run-dir", u, "--set", "run.iterations=100000", "--set",
                                "run.checkpoint_every=100000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=ENV)
    try:
        wait_rows(u, 2, p)
        p.send_signal(signal.SIGUSR1)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    last = int(rows(os.path.join(u, "metrics.csv"))[-1]["iteration"])
    if p.returncode != 0 or f"stopped after iteration {last}" not in err or newest_checkpoint(u) != last:
        fail(f"SIGUSR1: exit {p.returncode}, last row {last}, checkpoint {newest_checkpoint(u)}\n{err}")
    rc, out, err = run(["--resume", u, "--set", f"run.iterations={last + 1}", "--set", "eval.final_games=2"])
    if rc != 0:
        fail(f"resuming after SIGUSR1: exit {rc}\n{err}")

    # 4b. Ctrl-C: the same checkpoint within mpirun's grace (its output is cut off at the SIGINT, so the files tell)
    c = os.path.join(root, "sigint")
    p = subprocess.Popen(MPI[:1] + ["--mca", "odls_base_sigkill_timeout", "10"] + MPI[1:] +
                         [BIN, "train", cfg, "--run-dir", c, "--set", "run.iterations=100000", "--set",
                          "run.checkpoint_every=100000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=ENV)
    try:
        wait_rows(c, 2, p)
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    last = int(rows(os.path.join(c, "metrics.csv"))[-1]["iteration"])
    if newest_checkpoint(c) != last:
        fail(f"Ctrl-C: metrics.csv ends at iteration {last}, the newest checkpoint is {newest_checkpoint(c)}")
    rc, out, err = run(["--resume", c, "--set", f"run.iterations={last + 1}", "--set", "eval.final_games=2"])
    if rc != 0:
        fail(f"resuming after Ctrl-C: exit {rc}\n{err}")

    # 5. a worker dies: the job stops, the run resumes
    k = os.path.join(root, "kill")
    p = subprocess.Popen(MPI + [BIN, "train", cfg, "--run-dir", k, "--set", "run.iterations=100000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        wait_rows(k, 2, p)
        ranks = ranks_of(p.pid)
        if 2 not in ranks:
            fail(f"cannot find rank 2 among mpirun's children: {ranks}")
        os.kill(ranks[2], signal.SIGKILL)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode == 0:
        fail("the job went on after a worker was killed (this code claims Open MPI stops it)")
    ck = newest_checkpoint(k)
    if ck < 1:
        fail("no checkpoint survived the killed job")
    rc, out, err = run(["--resume", k, "--set", f"run.iterations={ck + 1}", "--set", "eval.final_games=2"])
    if rc != 0 or f"from {k}/checkpoints/iter-{ck:06d}.h5" not in err:
        fail(f"resuming after a worker died: exit {rc}\n{err}")
    print(f"killed worker: mpirun exit {p.returncode}, resumed from iteration {ck}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
