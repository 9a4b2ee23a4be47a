#!/usr/bin/env python3
"""Times `sowzero sowzero analyse` answers of a long-lived `sowzero engine AGENT` (docs/protocol.md): the
first query and the median and maximum of 24 more over five Kalah(6,4) positions.

    /usr/bin/python3 scripts/engine-latency.py [--sowzero build/sowzero] AGENT
"""
import argparse, statistics, subprocess, sys, time
ap = argparse.ArgumentParser()
ap.add_argument("--sowzero", default="build/sowzero")
ap.add_argument("agent")
args = ap.parse_args()
spec = args.agent
p = subprocess.Popen([args.sowzero, "engine", spec], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
p.stdin.write("kgp 1 0 0\n"); p.stdin.flush()
first = p.stdout.readline()  # mode freeplay
positions = ["4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "0,5,5,5,5,4,0,4,4,4,4,4,4,0 N", "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S",
             "4,4,0,0,6,6,2,5,5,4,4,4,4,0 N", "2,2,2,2,2,2,12,4,4,4,4,4,4,0 S"]
times = []
for i in range(25):
    pos = positions[i % len(positions)]
    t = time.perf_counter()
    p.stdin.write(f'{10+2*i} sowzero analyse "{pos}"\n'); p.stdin.flush()
    while True:
        line = p.stdout.readline()
        if not line: raise SystemExit("engine died")
        if " error " in line: raise SystemExit(line)
        if " best " in line: break
    times.append((time.perf_counter() - t) * 1000)
p.stdin.close(); p.wait(timeout=30)
print(spec, "first %.1f ms; then median %.2f ms, max %.2f ms over %d" % (times[0], statistics.median(times[1:]), max(times[1:]), len(times)-1))
print(line.strip())
