"""sowzero.VecEnv: shapes, the rules against the vectors and `sowzero replay`, next-step autoreset, rewards,
to_play, errors, determinism, the Kalah stepper against the position-by-position engine."""
import threading

import numpy as np
import pytest

import sowzero
from conftest import START, cli, vectors

RULES = "kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0"


def play_random(env, steps, seed):
    """Steps env with random legal actions drawn in numpy; returns copies of every step's outputs."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = [(obs.copy(), info["action_mask"].copy(), info["to_play"].copy())]
    for _ in range(steps):
        score = rng.random(info["action_mask"].shape) + info["action_mask"]
        obs, rew, term, trunc, info = env.step(np.argmax(score, axis=1))
        out.append((obs.copy(), info["action_mask"].copy(), info["to_play"].copy(), rew.copy(), term.copy(),
                    trunc.copy()))
    return out


def test_shapes_and_dtypes():
    env = sowzero.VecEnv(copy=False, game="kalah", rules="kalah:pits=6,seeds=4", num_envs=5, seed=3)
    assert (env.num_envs, env.num_players, env.num_actions, env.obs_dim) == (5, 2, 6, 14)
    assert env.rules == RULES and env.game == "kalah" and env.autoreset_mode == "next_step"
    obs, info = env.reset()
    assert obs.shape == (5, 14) and obs.dtype == np.float32
    assert np.all(obs[:, :12] == 1.0) and np.all(obs[:, 12:] == 0.0)
    assert info["action_mask"].shape == (5, 6) and info["action_mask"].dtype == np.bool_
    assert info["action_mask"].all()
    assert info["to_play"].dtype == np.int8 and not info["to_play"].any()
    obs2, rew, term, trunc, info2 = env.step(np.zeros(5, dtype=np.int64))
    assert rew.shape == (5, 2) and rew.dtype == np.float32
    assert term.shape == (5,) and term.dtype == np.bool_ and trunc.shape == (5,) and not trunc.any()
    # in place: the same buffers every step, read-only for Python
    assert obs2 is obs and info2["action_mask"] is info["action_mask"]
    assert not obs.flags.writeable and not rew.flags.writeable
    with pytest.raises(ValueError):
        obs[0, 0] = 1.0


def test_moves_vectors():
    """Every single-move vector through set_position + step: position, extra turn (to_play), end,
    rewards."""
    rows = [r for r in vectors("moves.txt") if r[0].startswith("kalah")]
    assert len(rows) > 10
    for rules, before, move, after, extra, captured, over, winner in rows:
        for kernel in ("auto", "scalar"):
            env = sowzero.VecEnv(copy=False, rules=rules, num_envs=3, kernel=kernel)
            env.set_position(1, before)
            side = 0 if before.endswith("S") else 1
            pit = ord(move) - (ord("a") if side == 0 else ord("A"))
            acts = env.sample_actions().copy()
            acts[1] = pit
            obs, rew, term, trunc, info = env.step(acts)
            assert env.get_position(1) == after, (rules, before, move)
            assert bool(term[1]) == (over == "1")
            want_next = side if extra == "1" else 1 - side
            if over != "1":
                assert info["to_play"][1] == want_next
                assert list(rew[1]) == [0.0, 0.0]
            else:
                south = {"S": 1.0, "N": -1.0, "draw": 0.0}[winner]
                assert list(rew[1]) == [south, -south]
                assert not info["action_mask"][1].any()


def test_against_replay_cli():
    """A random game of env 0 replayed by `sowzero replay --json`: the same positions at every ply."""
    env = sowzero.VecEnv(copy=False, num_envs=7, seed=11)
    rng = np.random.default_rng(5)
    obs, info = env.reset()
    positions, letters = [env.get_position(0)], []
    while True:
        mask = info["action_mask"]
        acts = np.argmax(rng.random(mask.shape) + mask, axis=1)
        side = info["to_play"][0]
        letters.append(chr((ord("a") if side == 0 else ord("A")) + int(acts[0])))
        assert env.move_name(0, int(acts[0])) == letters[-1]
        obs, rew, term, trunc, info = env.step(acts)
        positions.append(env.get_position(0))
        if term[0]:
            break
    rep = cli("replay", "--rules", RULES, "--json", *letters)
    assert rep["positions"] == positions[1:]
    assert rep["over"]
    south, north = rep["stores"]
    assert list(rew[0]) == [float(np.sign(south - north)), float(np.sign(north - south))]


def test_observation_is_kalah_encode():
    """obs rows from the mover's view: own pits, opponent's pits, own store, opponent's store, / seeds."""
    env = sowzero.VecEnv(copy=False, rules="kalah:pits=4,seeds=3", num_envs=2)
    obs, info = env.reset()
    env.set_position(0, "1,2,3,0,5,0,1,2,10,0 N")  # updates the env's arrays in place
    assert info["to_play"][0] == 1 and list(info["action_mask"][0]) == [False, True, True, True]
    # kalah_encode multiplies by the float reciprocal of seeds
    want = np.array([0, 1, 2, 10, 1, 2, 3, 0, 0, 5], dtype=np.float32) * (np.float32(1) / np.float32(3))
    np.testing.assert_array_equal(obs[0], want)
    np.testing.assert_array_equal(obs[1], np.array([1] * 8 + [0, 0], dtype=np.float32))


def test_next_step_autoreset():
    """The ending step shows the terminal position; the next one resets that env alone, ignores its action
    and returns the start with reward 0 and termination False."""
    rules = "kalah:pits=2,seeds=1"
    env = sowzero.VecEnv(copy=False, rules=rules, num_envs=2)
    env.set_position(0, "0,1,2,0,1,0 S")  # b into the store empties South's row: South wins 3-1
    env.set_position(1, "1,1,0,1,1,0 S")  # b into the store: an extra turn, the game goes on
    obs, rew, term, trunc, info = env.step(np.array([1, 1]))
    want0 = cli("replay", "--rules", rules, "--position", "0,1,2,0,1,0 S", "--json", "b")
    want1 = cli("replay", "--rules", rules, "--position", "1,1,0,1,1,0 S", "--json", "b", "a")
    assert want0["over"] and want0["winner"] is not None
    assert list(term) == [True, False] and env.get_position(0) == want0["positions"][0]
    assert list(rew[0]) == [1.0, -1.0] and list(rew[1]) == [0.0, 0.0]
    assert not info["action_mask"][0].any() and info["to_play"][1] == 0
    terminal_obs = obs[0].copy()
    obs, rew, term, trunc, info = env.step(np.array([5, 0]))  # env 0's action (even out of range) is ignored
    assert env.get_position(0) == "1,1,0,1,1,0 S" and not term[0] and list(rew[0]) == [0.0, 0.0]
    assert info["action_mask"][0].all() and info["to_play"][0] == 0
    np.testing.assert_array_equal(obs[0], np.array([1, 1, 1, 1, 0, 0], dtype=np.float32))
    assert not np.array_equal(obs[0], terminal_obs)
    assert env.get_position(1) == want1["positions"][1] and bool(term[1]) == want1["over"]


def test_rewards_match_final_stores():
    env = sowzero.VecEnv(copy=False, num_envs=64, seed=2)
    out = play_random(env, 200, seed=2)
    ended = 0
    for step in out[1:]:
        rew, term = step[3], step[4]
        assert np.all(rew[~term] == 0)
        assert np.all(np.abs(rew[term]).sum(axis=1) <= 2) and np.all(rew[term].sum(axis=1) == 0)
        ended += int(term.sum())
    assert ended > 64  # 200 plies: every env finished at least one game
    st = env.stats()
    assert st["games"] == ended and st["sows"] > 0


def test_to_play_follows_extra_turns():
    env = sowzero.VecEnv(copy=False, num_envs=1)
    env.reset()
    _, _, _, _, info = env.step([2])  # c from the start: the last seed in the store, South again
    assert info["to_play"][0] == 0
    _, _, _, _, info = env.step([0])
    assert info["to_play"][0] == 1


@pytest.mark.parametrize("n", [1, 63, 64, 65, 130])
def test_stepper_equals_positions_engine(n):
    """The SIMD path (batch padded to 64) against the scalar kernel: identical outputs for any num_envs."""
    a = play_random(sowzero.VecEnv(copy=False, num_envs=n, seed=9), 120, seed=4)
    b = play_random(sowzero.VecEnv(copy=False, num_envs=n, seed=9, kernel="scalar"), 120, seed=4)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)


def test_seeded_sampler_is_deterministic_and_legal():
    e1, e2 = sowzero.VecEnv(copy=False, num_envs=100, seed=7), sowzero.VecEnv(copy=False, num_envs=100, seed=7)
    _, info = e1.reset()
    e2.reset()
    counts = np.zeros(6)
    for _ in range(50):
        a1, a2 = e1.sample_actions().copy(), e2.sample_actions().copy()
        np.testing.assert_array_equal(a1, a2)
        live = info["action_mask"].any(axis=1)
        assert info["action_mask"][live, a1[live]].all()
        counts += np.bincount(a1[live], minlength=6)
        e1.step(a1)
        _, _, _, _, info = e2.step(a2)
    assert counts.min() > 0
    e1.reset(seed=7)
    e3 = sowzero.VecEnv(copy=False, num_envs=100, seed=7)
    np.testing.assert_array_equal(e1.sample_actions(), e3.sample_actions())


def test_illegal_actions_raise_naming_the_env():
    env = sowzero.VecEnv(copy=False, num_envs=4)
    env.reset()
    env.step([0, 0, 0, 0])  # pit a of South is empty now in every env, North to move
    before = [env.get_position(i) for i in range(4)]
    with pytest.raises(ValueError, match="env 2: action 6"):
        env.step([0, 0, 6, 0])
    with pytest.raises(ValueError, match="env 1: action -1"):
        env.step([0, -1, 0, 0])
    env.step([0, 0, 0, 0])  # North's a
    with pytest.raises(ValueError, match="env 3: action 0 is not a legal move"):
        env.step([1, 1, 1, 0])  # South's a is empty
    assert [env.get_position(i) for i in range(4)] != before  # the legal step above moved
    with pytest.raises(TypeError, match="integers"):
        env.step([0.5, 1, 1, 1])
    with pytest.raises(ValueError, match="3 actions for 4 envs"):
        env.step([1, 1, 1])
    with pytest.raises(ValueError):
        env.step(np.ones((4, 1), dtype=np.int64))
    before = [env.get_position(i) for i in range(4)]
    with pytest.raises(ValueError, match="env 2: action 200"):  # bytes are checked as bytes
        env.step(np.array([1, 1, 200, 1], dtype=np.uint8))
    with pytest.raises(ValueError, match="env 0: action 6"):
        env.step(np.array([6, 1, 1, 1], dtype=np.uint8))
    with pytest.raises(ValueError, match="env 3: action 0 is not a legal move"):
        env.step(np.array([1, 1, 1, 0], dtype=np.uint8))
    with pytest.raises(ValueError, match="3 actions for 4 envs"):
        env.step(np.ones(3, dtype=np.uint8))
    assert [env.get_position(i) for i in range(4)] == before  # nothing moved
    mask = env.step(np.array([1, 1, 1, 1], dtype=np.uint8))[4]["action_mask"]  # any integer dtype
    env.step(np.repeat(mask.argmax(axis=1).astype(np.uint8), 2)[::2])  # not contiguous: copied, then checked


def test_constructor_errors():
    with pytest.raises(ValueError, match="pits"):
        sowzero.VecEnv(copy=False, rules="kalah:pits=9")
    with pytest.raises(ValueError, match="num_envs"):
        sowzero.VecEnv(copy=False, num_envs=0)
    with pytest.raises(ValueError, match="game 'kalah' does not match"):
        sowzero.VecEnv(copy=False, game="kalah", rules="basico")
    with pytest.raises(ValueError, match="chess"):
        sowzero.VecEnv(copy=False, game="chess")
    assert sowzero.VecEnv(copy=False, rules="basico:players=4,pits=4").game == "basico"  # the game from the rules
    assert sowzero.VecEnv(copy=False, game="basico").rules == sowzero.VecEnv(copy=False, rules="basico").rules
    with pytest.raises(ValueError, match="kernel"):
        sowzero.VecEnv(copy=False, kernel="avx9")
    with pytest.raises(TypeError):
        sowzero.VecEnv(copy=False, num_envs="four")
    env = sowzero.VecEnv(copy=False, num_envs=2)
    with pytest.raises(ValueError, match="index 2"):
        env.get_position(2)
    with pytest.raises(ValueError, match="position"):
        env.set_position(0, "1,2,3 S")
    with pytest.raises(ValueError, match="unknown option"):
        env.reset(options={"x": 1})
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)


def test_max_sows_ends_as_termination():
    env = sowzero.VecEnv(copy=False, rules="kalah:max_sows=3", num_envs=1)
    env.reset()
    for k, (a, t) in enumerate([(0, False), (0, False), (1, True)]):
        _, rew, term, trunc, _ = env.step([a])
        assert bool(term[0]) == t and not trunc[0]


@pytest.mark.parametrize("rules", ["basico:players=3,pits=4,seeds=3", "basico:players=4,pits=4,seeds=3",
                                   "congklak", "congklak:pits=5,seeds=4", "oware"])
def test_other_games_against_replay_cli(rules):
    """Every other game of the registry, through the game interface: a random game of env 0 replayed by
    `sowzero replay --json` (positions, end), its rewards, to_play, and the next-step reset."""
    env = sowzero.VecEnv(copy=False, rules=rules, num_envs=3, seed=1)
    game = rules.split(":")[0]
    assert env.game == game and env.kernel == "positions"
    obs, info = env.reset()
    start = env.get_position(0)
    rng = np.random.default_rng(1)
    moves, positions = [], []
    for _ in range(2000):
        mask = info["action_mask"]
        acts = np.argmax(rng.random(mask.shape) + mask, axis=1)
        moves.append(env.move_name(0, int(acts[0])))
        obs, rew, term, trunc, info = env.step(acts)
        positions.append(env.get_position(0))
        if term[0]:
            break
        np.testing.assert_array_equal(rew[0], 0)
    assert term[0]
    rep = cli("replay", "--rules", rules, "--json", *moves)
    assert rep["positions"] == positions and rep["over"]
    P = env.num_players
    if game == "basico":
        want = [2.0 * (P - p) / (P - 1) - 1.0 for p in rep["places"]]
    else:
        south, north = rep["stores"]
        want = [float(np.sign(south - north)), float(np.sign(north - south))]
    np.testing.assert_allclose(rew[0], want)
    assert abs(float(rew[0].sum())) < 1e-6 or game == "basico"
    env.step(env.sample_actions())
    assert env.get_position(0) == start and info["to_play"][0] == 0


def test_gil_released_while_stepping():
    """Two threads step their own envs; both finish with the results of stepping alone."""
    results = {}

    def run(key):
        env = sowzero.VecEnv(copy=False, num_envs=256, seed=key)
        env.reset()
        for _ in range(300):
            env.step(env.sample_actions())
        results[key] = env.stats()["sows"]

    threads = [threading.Thread(target=run, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alone = sowzero.VecEnv(copy=False, num_envs=256, seed=1)
    alone.reset()
    for _ in range(300):
        alone.step(alone.sample_actions())
    assert results[1] == alone.stats()["sows"]


@pytest.mark.parametrize("pits", [1, 2, 3, 7])
def test_action_mask_rows_for_any_shape(pits):
    """Masks of narrow boards and few envs (the rows are written as words: none may spill past the
    array or into a row already written)."""
    for n in (1, 2, 3, 9):
        env = sowzero.VecEnv(copy=False, rules="kalah:pits=%d,seeds=2" % pits, num_envs=n, seed=n)
        _, info = env.reset()
        for _ in range(6):
            for i in range(n):
                counts, side = env.get_position(i).split()
                c = [int(v) for v in counts.split(",")]
                row = c[:pits] if side == "S" else c[pits + 1:2 * pits + 1]
                live = info["action_mask"][i].any()
                assert list(info["action_mask"][i]) == ([v > 0 for v in row] if live else [False] * pits)
            env.step(env.sample_actions())


def test_action_mask_is_packed():
    """info["action_mask"] is a read-only, C-contiguous bool view (num_envs, pits) of the rows the kernel
    writes (packed: numpy's elementwise operations on a strided mask were three times slower)."""
    for kernel in ("auto", "scalar"):
        env = sowzero.VecEnv(copy=False, rules="kalah:pits=5,seeds=3", num_envs=70, seed=2, kernel=kernel)
        _, info = env.reset()
        mask = info["action_mask"]
        assert mask.shape == (70, 5) and mask.dtype == np.bool_ and mask.strides[1] == 1
        assert mask.strides[0] == 5 and mask.flags.c_contiguous and not mask.flags.writeable


def test_arrays_outlive_the_env():
    env = sowzero.VecEnv(copy=False, num_envs=3)
    obs, info = env.reset()
    mask = info["action_mask"]
    del env, info
    assert obs.shape == (3, 14) and float(obs.sum()) == 36.0 and mask.all()


def test_without_observations():
    """observations=False: obs is None, every other output is the one of the full env, step for step."""
    full = sowzero.VecEnv(copy=False, num_envs=70, seed=5)
    bare = sowzero.VecEnv(copy=False, num_envs=70, seed=5, observations=False)
    obs, info = full.reset()
    none, info2 = bare.reset()
    assert none is None and obs.shape == (70, 14)
    for _ in range(150):
        a = full.sample_actions()
        np.testing.assert_array_equal(a, bare.sample_actions())
        _, rew, term, _, info = full.step(a)
        none, rew2, term2, _, info2 = bare.step(a)
        assert none is None
        np.testing.assert_array_equal(rew, rew2)
        np.testing.assert_array_equal(term, term2)
        np.testing.assert_array_equal(info["action_mask"], info2["action_mask"])
        np.testing.assert_array_equal(info["to_play"], info2["to_play"])
    assert full.stats() == bare.stats() and full.stats()["games"] > 70
    other = sowzero.VecEnv(copy=False, rules="basico", num_envs=3, observations=False)
    assert other.reset()[0] is None and other.step(other.sample_actions())[0] is None


def test_sampler_draws_the_same_ahead_or_on_call():
    """Once the sampler is in use, a step or reset draws the next sample in its own pass: the draw equals
    the one made on call at the same point of the stream. Two calls without a step give two draws, and
    set_position drops a draw made ahead."""
    a, b = sowzero.VecEnv(copy=False, num_envs=130, seed=3), sowzero.VecEnv(copy=False, num_envs=130, seed=3)
    a.sample_actions()
    a.reset(seed=9)  # the sampler is in use: the reset draws ahead
    b.reset(seed=9)  # b draws on call
    np.testing.assert_array_equal(a.sample_actions(), b.sample_actions())
    _, info = a.reset()
    first, second = a.sample_actions().copy(), a.sample_actions().copy()
    assert not np.array_equal(first, second)  # 130 envs, 6 legal pits each
    for _ in range(40):
        x = a.sample_actions().copy()
        live = info["action_mask"].any(axis=1)
        assert info["action_mask"][live, x[live]].all() and not x[~live].any()
        _, _, _, _, info = a.step(x)
    a.set_position(0, "0,0,0,0,0,9,15,4,4,4,4,4,4,0 S")
    assert a.sample_actions()[0] == 5


def test_bench_env_gym_modes():
    for mode in ("playout", "gym", "gym-noobs", "gym-u8"):
        out = cli("bench", "env", "--batch", "128", "--steps", "50", "--mode", mode, "--json")
        assert out["mode"] == mode and out["sows"] > 0
    a = cli("bench", "env", "--batch", "128", "--steps", "200", "--mode", "gym", "--json")
    b = cli("bench", "env", "--batch", "128", "--steps", "200", "--mode", "gym-noobs", "--json")
    c = cli("bench", "env", "--batch", "128", "--steps", "200", "--mode", "gym-u8", "--json")
    assert a["sows"] == b["sows"] == c["sows"] and a["games"] == b["games"] == c["games"]  # only the rows differ


def test_every_integer_dtype_steps_alike():
    """Actions as uint8 (sample_actions' dtype, read as bytes), int64 (Gymnasium's), and every other integer
    dtype (widened to int64) give the same boards and rows as the env's own draw, on Kalah and basico."""
    dtypes = (np.uint8, np.int64, np.int8, np.int16, np.int32, np.uint16, np.uint32)  # uint64: TypeError
    for rules in ("kalah", "basico:players=3,pits=4"):
        own = sowzero.VecEnv(copy=False, rules=rules, num_envs=90, seed=8)
        envs = [sowzero.VecEnv(copy=False, rules=rules, num_envs=90, seed=8) for _ in dtypes]
        own.reset()
        for e in envs:
            e.reset()
        for t in range(60):
            x = own.sample_actions()
            assert x.dtype == np.uint8
            want = own.step(x)
            for dt, e in zip(dtypes, envs):
                got = e.step(x.astype(dt))
                for u, v in zip(want[:4], got[:4]):
                    if u is not None:
                        np.testing.assert_array_equal(u, v)
                np.testing.assert_array_equal(want[4]["action_mask"], got[4]["action_mask"])
                np.testing.assert_array_equal(want[4]["to_play"], got[4]["to_play"])
        assert all(e.stats() == own.stats() for e in envs)
    env = sowzero.VecEnv(copy=False, num_envs=3)
    env.reset()
    with pytest.raises(TypeError, match=r"step: actions of dtype .*uint64.* cannot be cast safely"):
        env.step(np.zeros(3, dtype=np.uint64))
    assert env.stats()["sows"] == 0


def test_sample_actions_array_holds_its_draw_through_the_next_step_and_call():
    """Kalah's step draws the next sample ahead, as bytes into the other of the env's two uint8 arrays: the
    array it was given keeps its draw through that step and the next sample_actions call (as on basico)."""
    for rules in ("kalah", "basico:players=3,pits=4"):
        env = sowzero.VecEnv(copy=False, rules=rules, num_envs=70, seed=5)
        env.reset()
        for _ in range(30):
            a = env.sample_actions()
            kept = a.copy()
            env.step(a)
            np.testing.assert_array_equal(a, kept)
            b = env.sample_actions()
            np.testing.assert_array_equal(a, kept)
            assert b is not a and b.dtype == np.uint8 and b.shape == (70,)
            env.step(b)


def test_own_sample_steps_unchecked_with_the_same_results():
    """step(env.sample_actions()) sows the draw without checking it again; a copy goes through the check:
    the same boards and rows either way. The array cannot be made writeable (its draw stays legal)."""
    a, b = sowzero.VecEnv(copy=False, num_envs=100, seed=4), sowzero.VecEnv(copy=False, num_envs=100, seed=4)
    a.reset()
    b.reset()
    for t in range(120):
        x = a.sample_actions()
        y = b.sample_actions().copy()
        np.testing.assert_array_equal(x, y)
        if t == 50:  # a step with other actions in between: the draw is no longer the boards'
            a.step(y)
            b.step(y)
            continue
        oa, ra, ta, _, ia = a.step(x)
        ob, rb, tb, _, ib = b.step(y)
        for u, v in ((oa, ob), (ra, rb), (ta, tb), (ia["action_mask"], ib["action_mask"]),
                     (ia["to_play"], ib["to_play"])):
            np.testing.assert_array_equal(u, v)
    assert a.stats() == b.stats()
    with pytest.raises(ValueError):
        x.setflags(write=True)
    x = a.sample_actions()
    south = [0] * 6
    south[(int(x[3]) + 1) % 6] = 24  # env 3's drawn pit is empty now
    a.set_position(3, ",".join(map(str, south + [0] + [4] * 6 + [0])) + " S")
    with pytest.raises(ValueError, match="env 3"):  # set_position after the draw: checked again
        a.step(x)


def test_step_results_are_fresh_to_whoever_holds_them():
    """A step may hand out its previous result tuple again only when nobody holds it or its info dict and
    the dict is untouched: a held result keeps its objects, an edited info dict never comes back."""
    env = sowzero.VecEnv(copy=False, num_envs=64, seed=2, obs_dtype="uint8")
    env.reset()
    first = env.step(env.sample_actions())
    second = env.step(env.sample_actions())
    assert second is not first and second[4] is not first[4]
    assert set(first[4]) == {"action_mask", "to_play"} and first[4]["to_play"] is second[4]["to_play"]
    del first, second
    info = env.step(env.sample_actions())[4]
    info["mine"] = 1
    del info
    for _ in range(3):
        obs, rew, term, trunc, info = env.step(env.sample_actions())
        assert set(info) == {"action_mask", "to_play"}
        info["action_mask"] = None  # replaced, then dropped: the next step builds its own dict
        del info
    again = env.step(env.sample_actions())
    assert again[4]["action_mask"].shape == (64, 6) and again[0] is obs
