#!/usr/bin/env python3
"""Agents of `sowzero match` seated at a multi-player game through the PettingZoo-style AECEnv.

    python3 examples/aec_tournament.py [--rules basico:players=3] [--games 20] [--agents 'greedy;random;maxn:depth=2']

Every seat gets one agent spec (sowzero.Agent, which reads the position strings of the game); the seats
rotate over the games so each agent plays from every seat equally often. Prints one JSON line per agent:
its mean final reward (+1 first, -1 last; two players +1 win, -1 loss) and its games.
"""
import argparse
import json

import numpy as np

import sowzero


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="basico:players=3")
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--agents", default="greedy;random;random",
                    help="agent specs, one per player, separated by ';' (default greedy;random;random)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    env = sowzero.AECEnv(rules=args.rules)
    specs = args.agents.split(";")
    if len(specs) != len(env.possible_agents):
        ap.error("--agents: %d specs for %d players" % (len(specs), len(env.possible_agents)))
    agents = [sowzero.Agent(s, rules=env.rules) for s in specs]
    totals = np.zeros(len(specs))
    for game in range(args.games):
        seats = [(k + game) % len(specs) for k in range(len(specs))]  # seat p -> agent seats[p]
        env.reset(seed=args.seed + game)
        for k, a in enumerate(agents):
            a.new_game(seed=args.seed + game * 7 + k)
        for name in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                totals[seats[env.possible_agents.index(name)]] += reward
                env.step(None)
                continue
            agent = agents[seats[env.possible_agents.index(name)]]
            env.step(agent.pit(env.get_position()))
    for spec, total in zip(specs, totals):
        print(json.dumps({"agent": spec, "mean_reward": total / args.games, "games": args.games}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
