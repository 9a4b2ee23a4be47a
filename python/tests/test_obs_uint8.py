"""VecEnv(obs_dtype="uint8") against the float32 observations element for element (every game, every
Kalah kernel, many random steps with autoresets), the spaces' dtypes and bounds, bad obs_dtype values,
and Net on uint8 batches against the same batches in float32."""
import numpy as np
import pytest

import sowzero

RULE_SETS = ["kalah", "kalah:pits=7,seeds=18", "kalah:pits=3,seeds=2,capture=always,end=mover-empty",
             "kalah:pits=4,seeds=3,capture=none,max_sows=30", "congklak", "oware",
             "basico", "basico:players=3,pits=4", "basico:players=4,pits=4"]


def kernels(rules):
    if not rules.startswith("kalah"):
        return ["auto"]
    out = []
    for k in ("scalar", "avx2", "avx512"):
        try:
            sowzero.VecEnv(copy=False, rules=rules, num_envs=1, kernel=k)
        except ValueError:  # this CPU lacks it
            continue
        out.append(k)
    return out


def bits(x):
    return np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_uint8_obs_is_float32_obs_converted(rules):
    for kernel in kernels(rules):
        f = sowzero.VecEnv(copy=False, rules=rules, num_envs=100, seed=9, kernel=kernel)  # 100: padding boards (Kalah)
        u = sowzero.VecEnv(copy=False, rules=rules, num_envs=100, seed=9, kernel=kernel, obs_dtype="uint8")
        assert u.obs_dtype == np.uint8 and f.obs_dtype == np.float32
        scale = u.obs_scale
        assert scale.dtype == np.float32 and scale.shape == (u.obs_dim,)
        assert np.array_equal(scale, f.obs_scale)
        of, info_f = f.reset()
        ou, info_u = u.reset()
        ends = 0
        for step in range(300):
            assert ou.dtype == np.uint8 and ou.shape == of.shape
            # element for element: the float encoding is the integers times the scale, bit for bit
            assert np.array_equal(bits(ou.astype(np.float32) * scale), bits(of)), (kernel, step)
            assert u.single_observation_space.contains(ou[0]) and u.observation_space.contains(ou)
            assert f.observation_space.contains(of)
            assert np.array_equal(info_f["action_mask"], info_u["action_mask"])
            a = f.sample_actions()
            assert np.array_equal(a, u.sample_actions())
            of, rf, tf, _, info_f = f.step(a)
            ou, ru, tu, _, info_u = u.step(a.copy())  # a checked array this time, not the env's own draw
            assert np.array_equal(rf, ru) and np.array_equal(tf, tu)
            ends += int(tf.sum())
        assert ends > 20, "the steps must cross autoresets"
        # set_position writes its row through the game interface: the same integers
        f.set_position(7, f.get_position(3))
        u.set_position(7, u.get_position(3))
        assert np.array_equal(ou[7], ou[3]) and np.array_equal(bits(ou[7] * scale), bits(of[7]))


def test_uint8_kalah_values_are_seed_counts():
    env = sowzero.VecEnv(copy=False, rules="kalah:pits=6,seeds=4", num_envs=2, obs_dtype="uint8")
    obs, _ = env.reset()
    assert obs.tolist() == [[4] * 12 + [0, 0]] * 2
    env.set_position(1, "2,1,13,0,3,2,10,1,2,0,3,4,1,6 N")  # North to move: its pits first
    assert obs[1].tolist() == [1, 2, 0, 3, 4, 1, 2, 1, 13, 0, 3, 2, 6, 10]
    assert np.all(env.obs_scale == np.float32(0.25))


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_observation_spaces(dtype):
    env = sowzero.VecEnv(copy=False, rules="kalah:pits=6,seeds=4", num_envs=3, obs_dtype=dtype)
    one, batch = env.single_observation_space, env.observation_space
    assert one.shape == (14,) and batch.shape == (3, 14)
    assert one.dtype == np.dtype(dtype) and batch.dtype == np.dtype(dtype)
    assert np.all(one.low == 0) and np.all(batch.low == 0)
    # the largest value an element can take: all 48 seeds in one cell
    assert np.all(one.high == (48 if dtype == "uint8" else np.float32(48) * np.float32(0.25)))
    assert np.array_equal(batch.high, np.tile(one.high, (3, 1)))
    obs, _ = env.reset()
    assert batch.contains(obs) and one.contains(obs[0])
    assert one.contains(one.sample()) and batch.sample().shape == (3, 14)
    b = sowzero.VecEnv(copy=False, rules="basico:players=3,pits=4", obs_dtype=dtype).single_observation_space
    # per player: 4 pits (<= 48 stones), the in-circuit flag (<= 1), the rank score (uint8: <= 2 places)
    want = [48, 48, 48, 48, 1, 2] if dtype == "uint8" else [12, 12, 12, 12, 1, 1]
    assert b.high.tolist() == want * 3
    assert sowzero.VecEnv(copy=False, observations=False, obs_dtype=dtype).observation_space is None


@pytest.mark.parametrize("bad", ["float64", "int8", "uint16", "foo", 3, np.int32, "bool"])
def test_bad_obs_dtype_raises_value_error_naming_it(bad):
    with pytest.raises(ValueError, match="obs_dtype="):
        sowzero.VecEnv(copy=False, obs_dtype=bad)


def test_dtype_spellings_accepted():
    for d in ("uint8", np.uint8, np.dtype("uint8"), "u1"):
        assert sowzero.VecEnv(copy=False, obs_dtype=d).obs_dtype == np.uint8
    for d in (None, "float32", np.float32, "f4"):
        assert sowzero.VecEnv(copy=False, obs_dtype=d).obs_dtype == np.float32
    env = sowzero.VecEnv(copy=False, obs_dtype="uint8", observations=False)
    obs, _ = env.reset()
    assert obs is None


def _uint8_vs_float32(net, rules, steps):
    f = sowzero.VecEnv(copy=False, rules=rules, num_envs=40, seed=4)
    u = sowzero.VecEnv(copy=False, rules=rules, num_envs=40, seed=4, obs_dtype="uint8")
    of, info = f.reset()
    ou, _ = u.reset()
    for _ in range(steps):
        a = f.sample_actions()
        u.step(u.sample_actions())
        of, _, _, _, info = f.step(a)
    pf, vf = net(of, info["action_mask"])
    pu, vu = net(ou, info["action_mask"])
    assert np.array_equal(pf, pu) and np.array_equal(vf, vu)  # the same floats into the same forward pass
    p1, v1 = net(ou[5], info["action_mask"][5])  # one row (a batch of 1: BLAS may round otherwise)
    pf1, vf1 = net(of[5], info["action_mask"][5])
    assert np.array_equal(p1, pf1) and np.array_equal(v1, vf1)
    ps, _ = net(ou[::3])  # a strided view
    assert np.array_equal(ps, net(of[::3])[0])
    return ou


def test_net_takes_uint8_kalah(kalah_net):
    net = sowzero.Net.load(kalah_net)
    ou = _uint8_vs_float32(net, net.rules, 25)
    with pytest.raises(ValueError, match="13 columns"):
        net(ou[:, :13])
    e, _ = net(np.zeros((0, 14), dtype=np.uint8))
    assert e.shape == (0, 6)


def test_net_takes_uint8_basico(basico_net):
    net = sowzero.Net.load(basico_net)
    _uint8_vs_float32(net, net.rules, 30)
