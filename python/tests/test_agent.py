"""sowzero.Agent: every agent kind of eval/agent.h and eval/basico_agent.h, against the solver and errors."""
import os

import numpy as np
import pytest

import sowzero
from conftest import ROOT, START, cli


@pytest.mark.parametrize("spec", ["random", "greedy,seed=3", "ab:depth=4", "ab:nodes=2000,tt_mb=1",
                                  "mcts:sims=30", "mcts:sims=16,rollouts=2,solver=0"])
def test_kalah_kinds_play_legal_moves(spec):
    agent = sowzero.Agent(spec)
    assert agent.spec == spec and agent.kind == spec.split(":")[0].split(",")[0]
    assert agent.rules.startswith("kalah:pits=6,seeds=4")
    env = sowzero.VecEnv(copy=False, num_envs=1, seed=1)
    _, info = env.reset()
    for _ in range(12):
        pos = env.get_position(0)
        side = info["to_play"][0]
        assert info["action_mask"][0, agent.pit(pos)]
        letter = agent.move(pos)  # the letter of the mover's row
        k = ord(letter) - (ord("a") if side == 0 else ord("A"))
        assert 0 <= k < 6 and info["action_mask"][0, k]
        _, _, term, _, info = env.step([k])
        if term[0]:
            break


def test_az_agent(kalah_net):
    agent = sowzero.Agent("az:net=%s,sims=8" % kalah_net)
    assert agent.kind == "az"
    assert agent.move(START) in "abcdef"
    raw = sowzero.Agent("az:net=%s,sims=0" % kalah_net)
    net = sowzero.Net.load(kalah_net)
    env = sowzero.VecEnv(copy=False, num_envs=1)
    obs, info = env.reset()
    policy, _ = net(obs, info["action_mask"])
    assert raw.pit(START) == int(np.argmax(policy[0]))  # sims=0: the raw policy's argmax


def test_az_agent_takes_the_nets_search_record(kalah_net):
    """A net records the search it was trained with (nn/h5io.h /search); the az agent plays with it unless
    the spec gives a key, through the same C code as the CLI (eval/agent.h)."""
    rec = cli("net", "--net", kalah_net, "--json")["search"]
    agent = sowzero.Agent("az:net=%s" % kalah_net)
    assert ",sims=%d,c_puct=%g,fpu=%g,batch=%d," % (rec["sims"], rec["c_puct"], rec["fpu_reduction"],
                                                     rec["batch"]) in agent.plays
    assert "(from the net's search record: sims, c_puct" in agent.plays
    assert ",sims=3,c_puct=2," in sowzero.Agent("az:net=%s,c_puct=2,sims=3" % kalah_net).plays
    assert sowzero.Agent("ab:depth=2").plays == "ab:depth=2"
    # the shipped net: no keys play exactly as its recorded settings given as keys
    shipped = os.path.join(ROOT, "nets", "kalah-6-4.h5")
    a = sowzero.Agent("az:net=%s,sims=40" % shipped)
    b = sowzero.Agent("az:net=%s,sims=40,c_puct=0.75,fpu=0.25,margin=5,solver=1,batch=1" % shipped)
    c = sowzero.Agent("az:net=%s,sims=40,c_puct=1.5,margin=0" % shipped)
    assert "c_puct=0.75,fpu=0.25,batch=1,margin=5,solver=1,root=puct" in a.plays
    assert "sims=800" in sowzero.Agent("az:net=%s" % shipped).plays
    env = sowzero.VecEnv(copy=False, num_envs=1, seed=3)
    _, info = env.reset()
    rng = np.random.default_rng(5)
    for _ in range(30):
        pos = env.get_position(0)
        assert a.pit(pos) == b.pit(pos), pos
        legal = np.flatnonzero(info["action_mask"][0])
        _, _, term, _, info = env.step([int(rng.choice(legal))])
        if term[0]:
            _, info = env.reset()
    assert ",c_puct=1.5,fpu=0.25,batch=1,margin=0,solver=1" in c.plays


def test_ab_finds_a_solver_optimal_move():
    rules = "kalah:pits=3,seeds=2"
    start = "2,2,2,0,2,2,2,0 S"
    best = sowzero.solve(start, rules)["best"]
    agent = sowzero.Agent("ab:depth=40", rules=rules)
    assert agent.move(start) in best
    agent.new_game(start, seed=5)
    assert agent.move(start) in best


def test_agent_determinism_by_game_seed():
    a, b = sowzero.Agent("random,seed=4"), sowzero.Agent("random,seed=4")
    a.new_game(seed=9)
    b.new_game(START, seed=9)
    assert [a.move(START) for _ in range(10)] == [b.move(START) for _ in range(10)]


@pytest.mark.parametrize("rules", ["basico:players=3,pits=4", "congklak:pits=4,seeds=3", "oware"])
def test_other_games_agents(rules):
    """eval/game_agent.h's kinds on every other game, for a few plies of a game."""
    env = sowzero.VecEnv(copy=False, rules=rules, num_envs=1)
    _, info = env.reset()
    specs = ["random", "greedy", "maxn:depth=2", "paranoid:depth=2", "mcts:sims=20"]
    if env.num_players == 2:
        specs += ["ab:depth=3"]
    for spec in specs:
        agent = sowzero.Agent(spec, rules=rules)
        assert agent.kind == spec.split(":")[0]
        for _ in range(3):
            pos = env.get_position(0)
            k = agent.pit(pos)
            legal = [env.move_name(0, j) for j in np.flatnonzero(info["action_mask"][0])]
            assert info["action_mask"][0, k] and agent.move(pos) in legal  # random, greedy: a fresh draw
            _, _, term, _, info = env.step([k])
            if term[0]:
                _, info = env.reset()
    if env.num_players == 2 and rules.startswith("congklak"):
        legal = [env.move_name(0, j) for j in np.flatnonzero(info["action_mask"][0])]
        assert sowzero.Agent("solve", rules=rules).move(env.get_position(0)) in legal


def test_agent_errors():
    with pytest.raises(ValueError, match="unknown key 'sim'"):
        sowzero.Agent("mcts:sim=5")
    with pytest.raises(ValueError, match="--rules"):
        sowzero.Agent("ab:pits=4")
    with pytest.raises(ValueError):
        sowzero.Agent("nosuchkind")
    with pytest.raises(ValueError):
        sowzero.Agent("ab:depth=3", rules="basico")  # ab is a Kalah kind
    with pytest.raises(ValueError, match="rules"):
        sowzero.Agent("random", rules="kalah:seeds=0")
    with pytest.raises(TypeError):
        sowzero.Agent(5)
    agent = sowzero.Agent("ab:depth=2")
    with pytest.raises(ValueError, match="position"):
        agent.move("4,4,4 S")
    with pytest.raises(ValueError, match="over"):
        agent.move("0,0,0,0,0,0,24,0,0,0,0,0,0,24 S")
    with pytest.raises(ValueError):
        agent.new_game("garbage")
