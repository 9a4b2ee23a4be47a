"""One training step of `sowzero bench net`'s default net in PyTorch on the CPU, for comparison.

Same net (14 inputs, hidden 256-256-256 ReLU, policy 6 / value tanh / margin heads), same batch (256),
same loss (cross-entropy + (z-v)^2 + 0.25 margin MSE + 1e-4 * sum W^2 over weight matrices), Adam(1e-3).
usage: /usr/bin/python3 bench/torch_train_step.py [--threads 1] [--batch 256] [--reps 7] [--min-ms 40]
prints {"train_step_ms": median, "batch": B, "threads": T, "torch": version}
"""
import argparse
import json
import statistics
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--batch", type=int, default=256)
ap.add_argument("--reps", type=int, default=7)
ap.add_argument("--min-ms", type=float, default=40)
a = ap.parse_args()
torch.set_num_threads(a.threads)
torch.manual_seed(1)

trunk = torch.nn.Sequential(torch.nn.Linear(14, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 256), torch.nn.ReLU())
heads = torch.nn.Linear(256, 6 + 1 + 1)  # policy, value, margin fused as in nn/net.h
params = list(trunk.parameters()) + list(heads.parameters())
weights = [p for p in params if p.dim() == 2]
opt = torch.optim.Adam(params, lr=1e-3)
B = a.batch
x = torch.rand(B, 14)
pi = torch.rand(B, 6)
pi /= pi.sum(1, keepdim=True)
z, m = torch.rand(B), torch.rand(B)


def step():
    out = heads(trunk(x))
    logp = torch.log_softmax(out[:, :6], 1)
    v = torch.tanh(out[:, 6])
    loss = (-(pi * logp).sum(1).mean() + ((z - v) ** 2).mean() + 0.25 * ((m - out[:, 7]) ** 2).mean()
            + 1e-4 * sum((w * w).sum() for w in weights))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


step()
iters, dt = 1, 0.0
while True:  # calibrate one repetition to about min-ms
    t0 = time.perf_counter()
    for _ in range(iters):
        step()
    dt = time.perf_counter() - t0
    if dt * 1e3 >= a.min_ms:
        break
    iters = max(iters * 2, int(iters * a.min_ms / max(dt * 1e3, 1e-3) * 1.2) + 1)
times = []
for _ in range(a.reps):
    t0 = time.perf_counter()
    for _ in range(iters):
        step()
    times.append((time.perf_counter() - t0) / iters)
print(json.dumps({"train_step_ms": 1e3 * statistics.median(times), "batch": B, "threads": a.threads,
                  "torch": torch.__version__}))
