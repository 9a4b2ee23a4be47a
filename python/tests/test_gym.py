"""Gymnasium's vector-env API of VecEnv, the single-env Env and the multi-agent AECEnv, checked against
the contract without gymnasium installed (sowzero.spaces stands in for gymnasium.spaces)."""
import numpy as np
import pytest

import sowzero
from sowzero import spaces

from conftest import START

GAMES = ["kalah", "oware", "congklak", "basico:players=3", "basico:players=4,pits=4"]


def test_vector_attributes():
    env = sowzero.VecEnv(num_envs=5, seed=3)
    assert env.single_action_space == spaces.Discrete(6)
    assert env.action_space == spaces.MultiDiscrete(np.full(5, 6))
    assert env.action_space.shape == (5,) and env.action_space.dtype == np.int64
    assert env.single_observation_space.shape == (14,) and env.observation_space.shape == (5, 14)
    assert env.observation_space is env.observation_space  # one object, seedable like gymnasium's
    assert env.metadata["autoreset_mode"] == "next_step" and "ansi" in env.metadata["render_modes"]
    assert env.render_mode is None and env.render() is None
    assert env.unwrapped is env and env.spec is None
    assert isinstance(env, sowzero._sowzero.VecEnv)
    obs, info = env.reset(seed=9)
    assert env.observation_space.contains(obs) and env.action_space.contains(env.sample_actions().astype(np.int64))
    assert env.np_random_seed == 9
    assert env.np_random.integers(1 << 30) == np.random.default_rng(9).integers(1 << 30)
    with pytest.raises(ValueError, match="render_mode"):
        sowzero.VecEnv(render_mode="human")


def test_masked_action_space_sample_is_legal():
    env = sowzero.VecEnv(num_envs=16, seed=1)
    env.action_space.seed(4)
    obs, info = env.reset()
    for _ in range(300):  # through game ends: all-False rows sample 0, which the reset ignores
        a = env.action_space.sample(mask=tuple(info["action_mask"].astype(np.int8)))
        live = info["action_mask"].any(axis=1)
        assert info["action_mask"][live, a[live]].all()
        obs, rew, term, trunc, info = env.step(a)
    with pytest.raises(ValueError, match="mask"):
        env.action_space.sample(mask=(np.ones(6, np.int8),))


def test_render_ansi_boards():
    env = sowzero.VecEnv(num_envs=2, render_mode="ansi")
    env.reset()
    env.set_position(1, "0,0,0,0,0,1,28,2,2,2,2,2,2,7 S")
    start, late = env.render()
    assert start == sowzero.board_text(START) and start.endswith("South to move\n")
    assert start.splitlines()[0].split() == list("FEDCBA") and start.splitlines()[4].split() == list("abcdef")
    assert late.splitlines()[2].split() == ["7", "28"]  # North's store left, South's right
    env.step(np.array([0, 5]))  # env 1: South's last seed ends the game
    assert env.render()[1].endswith("game over\n")
    four = sowzero.board_text(sowzero.VecEnv(rules="basico:players=4").get_position(0), "basico:players=4")
    assert four.count("player ") == 5 and "> player 0" in four


def test_reset_seed_forms_and_errors():
    env = sowzero.VecEnv(num_envs=3)
    env.reset(seed=[1, 2, 3])
    a = env.sample_actions().copy()
    env.reset(seed=(1, 2, 3))
    assert np.array_equal(env.sample_actions(), a)
    with pytest.raises(ValueError, match="2 seeds for 3 envs"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=[1, 2, -3])
    for bad in (-1, 2 ** 64, 2 ** 70):
        with pytest.raises(ValueError, match="0..2\\*\\*64-1"):
            env.reset(seed=bad)
        with pytest.raises(ValueError, match="0..2\\*\\*64-1"):
            sowzero.VecEnv(seed=bad)
    for bad in (1.5, "3", True):
        with pytest.raises(TypeError, match="seed"):
            sowzero.VecEnv(seed=bad)
        with pytest.raises(TypeError, match="seed"):
            env.reset(seed=bad)
    sowzero.VecEnv(seed=2 ** 64 - 1).reset(seed=2 ** 64 - 1)


def test_seed_list_draws_differ_from_other_lists():
    a, b = sowzero.VecEnv(num_envs=64), sowzero.VecEnv(num_envs=64)
    a.reset(seed=list(range(64)))
    b.reset(seed=list(range(1, 65)))
    assert not np.array_equal(a.sample_actions(), b.sample_actions())


def test_reset_options():
    env = sowzero.VecEnv(num_envs=4, seed=2)
    env.reset(options={})
    env.reset(seed=3, options={})
    with pytest.raises(ValueError, match="unknown option 'x'.*reset_mask"):
        env.reset(options={"x": 1})
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(options=[("reset_mask", None)])
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.ones(3, bool)})
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.ones(4, np.int64)})


@pytest.mark.parametrize("rules", GAMES)
def test_partial_reset(rules):
    env = sowzero.VecEnv(rules=rules, num_envs=4, seed=5)
    env.reset()
    for _ in range(3):
        env.step(env.sample_actions())
    before = [env.get_position(i) for i in range(4)]
    start = sowzero.VecEnv(rules=rules).get_position(0)
    obs, info = env.reset(options={"reset_mask": np.array([True, False, True, False])})
    assert [env.get_position(i) for i in range(4)] == [start, before[1], start, before[3]]
    fresh, finfo = sowzero.VecEnv(rules=rules).reset()
    assert np.array_equal(obs[0], fresh[0]) and np.array_equal(info["action_mask"][2], finfo["action_mask"][0])
    # the untouched envs keep playing from where they were, the reset ones from the start
    obs, rew, term, trunc, info = env.step(env.sample_actions())
    assert not rew.any() or term.any()


@pytest.mark.parametrize("rules", ["kalah", "basico:players=3"])
def test_copy_default_and_in_place(rules):
    c = sowzero.VecEnv(rules=rules, num_envs=8, seed=4)
    n = sowzero.VecEnv(rules=rules, num_envs=8, seed=4, copy=False)
    assert c.copy and not n.copy
    (oc, ic), (on, inn) = c.reset(), n.reset()
    assert oc.flags.writeable and not on.flags.writeable
    for _ in range(60):
        rc_ = c.step(c.sample_actions())
        rn = n.step(n.sample_actions())
        assert rc_[0] is not oc and rn[0] is on  # new arrays each step vs the same buffers
        for x, y in zip(rc_[:4], rn[:4]):
            assert np.array_equal(x, y) and x.dtype == y.dtype and x.shape == y.shape
        assert np.array_equal(rc_[4]["action_mask"], rn[4]["action_mask"])
        assert np.array_equal(rc_[4]["to_play"], rn[4]["to_play"])
        oc = rc_[0]
    kept = oc.copy()
    c.step(c.sample_actions())
    assert np.array_equal(oc, kept)  # a replay buffer's obs stays as it was


def test_close_then_step_raises():
    env = sowzero.VecEnv(num_envs=2)
    env.reset()
    env.close()
    assert env.closed
    env.close()  # a second close does nothing
    for call in (lambda: env.step(np.zeros(2, np.int64)), env.reset, env.sample_actions,
                 lambda: env.get_position(0), lambda: env.set_position(0, START)):
        with pytest.raises(RuntimeError, match="closed"):
            call()
    assert env.num_envs == 2  # attributes stay readable


@pytest.mark.parametrize("rules", GAMES)
def test_single_env_plays_whole_games(rules):
    env = sowzero.Env(rules=rules, render_mode="ansi")
    ref = sowzero.VecEnv(rules=rules, copy=False)
    assert env.action_space == spaces.Discrete(ref.num_actions)
    assert env.observation_space.shape == (ref.obs_dim,)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    rng = np.random.default_rng(1)
    for game in range(3):
        obs, info = env.reset(seed=game)
        robs, rinfo = ref.reset()
        assert set(info) == {"action_mask", "to_play", "rewards"}
        done, plies = False, 0
        while not done:
            assert np.array_equal(obs, robs[0]) and env.observation_space.contains(obs)
            assert env.render() == sowzero.board_text(env.get_position(), env.rules)
            mover = info["to_play"]
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, done, trunc, info = env.step(a)
            robs, rrew, rterm, _, rinfo = ref.step(np.array([a]))
            assert reward == rrew[0, mover] and np.array_equal(info["rewards"], rrew[0]) and done == rterm[0]
            assert not trunc and info["to_play"] == rinfo["to_play"][0]
            plies += 1
        assert not info["action_mask"].any() and info["rewards"].any() or len(set(info["rewards"])) == 1
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)
        ref.step(np.array([0]))  # the reference's next-step reset


def test_single_env_errors():
    env = sowzero.Env()
    env.reset()
    with pytest.raises(ValueError, match="not a legal move"):
        env.step(6)
    with pytest.raises(TypeError):
        env.step(1.0)
    with pytest.raises(TypeError):
        env.step(True)
    with pytest.raises(ValueError, match="unknown option"):
        env.reset(options={"reset_mask": [True]})
    with pytest.raises(TypeError, match="seed must be an int"):
        env.reset(seed=[1])
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=2 ** 64)
    env.reset(options={})
    env.set_position("0,0,0,0,0,1,28,2,2,2,2,2,2,7 S")
    obs, reward, term, trunc, info = env.step(5)
    assert term and reward == 1.0 and info["rewards"].tolist() == [1.0, -1.0]
    env.close()
    with pytest.raises(RuntimeError):
        env.reset()


def test_encode_views():
    pos = "3,0,0,3,6,1,16,5,2,0,3,1,0,8 S"
    north = pos[:-1] + "N"
    assert np.array_equal(sowzero.encode(pos, player=1), sowzero.encode(north))
    assert np.array_equal(sowzero.encode(pos, player=0), sowzero.encode(pos))
    env = sowzero.VecEnv(rules="basico:players=3", copy=False)
    obs, _ = env.reset()
    assert np.array_equal(sowzero.encode(env.get_position(0), "basico:players=3"), obs[0])
    with pytest.raises(ValueError, match="player=2"):
        sowzero.encode(pos, player=2)
    with pytest.raises(ValueError, match="position"):
        sowzero.encode("1,2 S")


def play_aec(env, seed, record=None):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    finals, steps = {}, 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        assert env.observation_space(agent).contains(obs)
        if term or trunc:
            finals[agent] = reward
            env.step(None)
            continue
        for other in env.agents:  # only the selected agent may act
            assert other == agent or not env.observe(other)["action_mask"].any()
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        if record is not None:
            record.append((agent, a))
        env.step(a)
        steps += 1
    return finals, steps


@pytest.mark.parametrize("rules", GAMES)
def test_aec_plays_like_vecenv(rules):
    env = sowzero.AECEnv(rules=rules)
    players = sowzero.VecEnv(rules=rules).num_players
    assert env.possible_agents == ["player_%d" % p for p in range(players)]
    assert env.max_num_agents == players and env.action_space("player_0") == spaces.Discrete(env._v.num_actions)
    moves = []
    finals, steps = play_aec(env, 7, moves)
    assert env.agents == [] and set(finals) == set(env.possible_agents)
    ref = sowzero.VecEnv(rules=rules, copy=False)
    obs, info = ref.reset()
    for agent, a in moves:  # the same moves by the same players end the game with the same values
        assert "player_%d" % info["to_play"][0] == agent
        obs, rew, term, _, info = ref.step(np.array([a]))
    assert term[0] and [finals[a] for a in env.possible_agents] == rew[0].tolist()
    assert play_aec(env, 7)[0] == finals  # a seeded replay


def test_aec_observe_and_turns():
    env = sowzero.AECEnv()
    env.reset()
    assert env.agent_selection == "player_0" and env.num_agents == 2
    view0, view1 = env.observe("player_0"), env.observe("player_1")
    assert view0["action_mask"].dtype == np.int8 and view0["action_mask"].tolist() == [1] * 6
    assert not view1["action_mask"].any()
    assert np.array_equal(view1["observation"], sowzero.encode(START, player=1))
    env.step(2)  # c: the last seed in South's store, an extra turn
    assert env.agent_selection == "player_0" and env.rewards == {"player_0": 0.0, "player_1": 0.0}
    env.step(0)
    assert env.agent_selection == "player_1"
    with pytest.raises(ValueError, match="None is only"):
        env.step(None)
    with pytest.raises(ValueError, match="not a legal move"):
        env.step(9)
    with pytest.raises(ValueError, match="unknown agent"):
        env.observe("player_7")
    with pytest.raises(ValueError, match="unknown option"):
        env.reset(options={"x": 1})
    with pytest.raises(TypeError, match="seed must be an int"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)


def test_aec_dead_steps():
    env = sowzero.AECEnv()
    env.reset()
    env.set_position("0,0,0,0,0,1,28,2,2,2,2,2,2,7 S")
    assert env.agent_selection == "player_0" and env.agents == env.possible_agents
    env.step(5)
    assert all(env.terminations.values()) and env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.agent_selection == "player_0"
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)
    env.step(None)
    assert env.agents == ["player_1"] and env.agent_selection == "player_1"
    assert env.last()[1] == -1.0
    env.step(None)
    assert env.agents == [] and list(env.agent_iter()) == []
