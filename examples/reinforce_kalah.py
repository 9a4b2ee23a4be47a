#!/usr/bin/env python3
"""REINFORCE (Williams 1992) on sowzero.VecEnv with numpy alone: a linear softmax policy for South learns
to beat a uniformly random North at Kalah(6,4).

    PYTHONPATH=build/python /usr/bin/python3 examples/reinforce_kalah.py --seconds 20

Every iteration steps `--envs` games `--horizon` plies at once: South samples from its policy
softmax(obs @ W + b) over the legal pits (info["action_mask"]), North plays VecEnv.sample_actions().
A South move's return is the game's final result for South (+1 win, -1 loss, 0 draw: rewards[:, 0] on
the terminal step); moves of games still running at the end of the rollout wait for the next one. The
gradient of log pi(a|s) of a linear softmax is x (onehot(a) - pi), scaled by (return - mean return).
It prints one JSON line per evaluation: South's score against random North (wins + draws/2) over
`--eval-games` games played greedily (argmax policy).
"""
import argparse
import json
import time

import numpy as np

import sowzero


def masked_softmax(logits, mask):
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def evaluate(W, b, games, seed):
    """South's score with the greedy policy against random North, over exactly `games` games."""
    env = sowzero.VecEnv(num_envs=games, seed=seed)
    obs, info = env.reset()
    done = np.zeros(games, dtype=bool)
    score = np.zeros(games)
    while not done.all():
        south = info["to_play"] == 0
        greedy = np.argmax(np.where(info["action_mask"], obs @ W + b, -np.inf), axis=1)
        actions = np.where(south, greedy, env.sample_actions())
        obs, rewards, term, _, info = env.step(actions)
        new = term & ~done
        score[new] = (rewards[new, 0] + 1) / 2  # win 1, draw 0.5, loss 0
        done |= term
    return float(score.mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="training time (default 20)")
    ap.add_argument("--iterations", type=int, default=0, help="stop after this many iterations instead")
    ap.add_argument("--envs", type=int, default=512)
    ap.add_argument("--horizon", type=int, default=64, help="plies per rollout")
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--eval-every", type=int, default=10, help="iterations between evaluations")
    ap.add_argument("--eval-games", type=int, default=512)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    env = sowzero.VecEnv(num_envs=args.envs, seed=args.seed)
    W = np.zeros((env.obs_dim, env.num_actions))
    b = np.zeros(env.num_actions)
    obs, info = env.reset()
    resetting = np.zeros(args.envs, dtype=bool)  # next-step autoreset: this step's action is ignored
    # moves of unfinished games, carried into the next rollout: (obs, mask, action, env index)
    carry = []
    results = [{"iteration": 0, "score_vs_random": evaluate(W, b, args.eval_games, seed=10**6)}]
    print(json.dumps(results[-1]), flush=True)
    t0, it = time.monotonic(), 0
    while (args.iterations and it < args.iterations) or (not args.iterations and time.monotonic() - t0 < args.seconds):
        it += 1
        steps = carry
        finished = []  # (obs, mask, action, return)
        for _ in range(args.horizon):
            mask = info["action_mask"]
            south = (info["to_play"] == 0) & ~resetting
            p = masked_softmax(obs @ W + b, mask | ~mask.any(axis=1, keepdims=True))
            sampled = (p.cumsum(axis=1) > rng.random((args.envs, 1))).argmax(axis=1)
            actions = np.where(south, sampled, env.sample_actions())
            idx = np.flatnonzero(south)
            steps.append((obs[idx].copy(), mask[idx].copy(), actions[idx], idx))
            obs, rewards, term, _, info = env.step(actions)
            resetting = term.copy()
            if term.any():
                # every stored South move of an env whose game just ended gets that game's result
                keep = []
                for o, m, a, i in steps:
                    ended = term[i]
                    if ended.any():
                        finished.append((o[ended], m[ended], a[ended], rewards[i[ended], 0].copy()))
                    if (~ended).any():
                        keep.append((o[~ended], m[~ended], a[~ended], i[~ended]))
                steps = keep
        carry = steps
        if finished:
            X = np.concatenate([f[0] for f in finished])
            M = np.concatenate([f[1] for f in finished])
            A = np.concatenate([f[2] for f in finished])
            G = np.concatenate([f[3] for f in finished])
            adv = G - G.mean()
            P = masked_softmax(X @ W + b, M)
            D = -P
            D[np.arange(len(A)), A] += 1.0  # d log pi(a) / d logits = onehot(a) - pi
            D *= adv[:, None] / len(A)
            W += args.lr * X.T @ D
            b += args.lr * D.sum(axis=0)
        if it % args.eval_every == 0:
            results.append({"iteration": it, "seconds": round(time.monotonic() - t0, 2),
                            "score_vs_random": evaluate(W, b, args.eval_games, seed=10**6)})
            print(json.dumps(results[-1]), flush=True)
    if results[-1]["iteration"] != it:
        results.append({"iteration": it, "seconds": round(time.monotonic() - t0, 2),
                        "score_vs_random": evaluate(W, b, args.eval_games, seed=10**6)})
        print(json.dumps(results[-1]), flush=True)


if __name__ == "__main__":
    main()
