"""sowzero.Net against `sowzero net --json` (Kalah and basico nets trained by the CLI), shapes, errors."""
import os

import numpy as np
import pytest

import sowzero
from conftest import START, cli

POSITIONS = [START, "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S", "0,5,5,5,5,4,0,4,4,4,4,4,4,0 N",
             "2,1,13,0,3,2,10,1,2,0,3,4,1,6 S", "0,0,0,0,0,1,20,3,2,1,0,5,4,12 N"]


def test_kalah_net_matches_cli(kalah_net):
    net = sowzero.Net.load(kalah_net)
    assert net.rules.startswith("kalah:pits=6") and net.encoding == sowzero.KALAH_ENCODING
    assert (net.input_dim, net.n_policy, net.n_value) == (14, 6, 1) and net.hidden == (32, 32)
    env = sowzero.VecEnv(copy=False, num_envs=len(POSITIONS))
    obs, info = env.reset()
    for i, p in enumerate(POSITIONS):
        env.set_position(i, p)
    policy, value = net(obs, info["action_mask"])
    assert policy.shape == (len(POSITIONS), 6) and value.shape == (len(POSITIONS), 1)
    assert policy.dtype == np.float32 and value.dtype == np.float32
    for i, p in enumerate(POSITIONS):
        want = cli("net", "--net", kalah_net, "--position", p, "--json")
        np.testing.assert_allclose(policy[i], want["policy"], rtol=0, atol=1e-6)
        np.testing.assert_allclose(value[i, 0], want["value"], rtol=0, atol=1e-6)
        assert np.all(policy[i][~info["action_mask"][i]] == 0)
    # one position as a vector; float64 input is converted; the batch does not change the numbers
    p1, v1 = net(obs[3].astype(np.float64), info["action_mask"][3])
    assert p1.shape == (6,) and v1.shape == (1,)
    np.testing.assert_allclose(p1, policy[3], atol=1e-6)
    # no mask: softmax over all slots
    p_all, _ = net(obs)
    np.testing.assert_allclose(p_all.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(p_all > 0)
    empty_p, empty_v = net(np.zeros((0, 14), dtype=np.float32))
    assert empty_p.shape == (0, 6) and empty_v.shape == (0, 1)


def test_basico_net_matches_cli(basico_net):
    net = sowzero.Net(basico_net)
    assert net.encoding == sowzero.BASICO_ENCODING and net.n_value == 3
    env = sowzero.VecEnv(copy=False, game="basico", rules=net.rules, num_envs=4, seed=3)
    obs, info = env.reset()
    for _ in range(5):
        obs, _, _, _, info = env.step(env.sample_actions())
    policy, value = net(obs, info["action_mask"])
    for i in range(4):
        want = cli("net", "--net", basico_net, "--position", env.get_position(i), "--json")
        np.testing.assert_allclose(policy[i], want["policy"], atol=1e-6)
        mover = want["mover"]
        assert mover == info["to_play"][i]
        # the net's outputs are mover first; the CLI lists them by absolute player
        absolute = [value[i][(q - mover) % 3] for q in range(3)]
        np.testing.assert_allclose(absolute, want["values"], atol=1e-6)


def test_net_errors(kalah_net, tmp_root):
    with pytest.raises(OSError):
        sowzero.Net.load(os.path.join(str(tmp_root), "missing.h5"))
    bad = os.path.join(str(tmp_root), "not-a-net.h5")
    with open(bad, "w") as f:
        f.write("hello")
    with pytest.raises((OSError, ValueError)):
        sowzero.Net.load(bad)
    with pytest.raises(ValueError, match="pits=4"):
        sowzero.Net.load(kalah_net, rules="kalah:pits=4")
    with pytest.raises(ValueError, match="rules"):
        sowzero.Net.load(kalah_net, rules="kalah:pits=99")
    with pytest.raises(TypeError):
        sowzero.Net.load(3)
    net = sowzero.Net.load(kalah_net, rules="kalah")
    with pytest.raises(ValueError, match="13 columns"):
        net(np.zeros((2, 13)))
    with pytest.raises(ValueError, match="mask"):
        net(np.zeros((2, 14)), np.ones((2, 5), dtype=bool))
    with pytest.raises(ValueError):
        net(np.zeros((2, 3, 14)))
    with pytest.raises((TypeError, ValueError)):
        net("not numbers")


def test_kept_workspace_batches_and_threads(kalah_onehot_net):
    """A Net keeps one workspace between calls (grown to the largest batch) and makes its own for a call
    that finds it taken by another thread: every batch size, in any order and from several threads at
    once, gives the numbers of a fresh Net's first call."""
    import threading
    env = sowzero.VecEnv(copy=False, num_envs=64, seed=7)
    obs, info = env.reset()
    for _ in range(9):
        obs, _, _, _, info = env.step(env.sample_actions())
    obs, mask = obs.copy(), info["action_mask"].copy()
    want = {n: sowzero.Net(kalah_onehot_net)(obs[:n], mask[:n]) for n in (1, 5, 64)}
    net = sowzero.Net(kalah_onehot_net)
    for n in (5, 1, 64, 5, 1):  # grows at 64, then smaller batches reuse it
        p, v = net(obs[:n], mask[:n])
        np.testing.assert_array_equal(p, want[n][0])
        np.testing.assert_array_equal(v, want[n][1])
    bad = []

    def worker(k):
        for i in range(40):
            n = (1, 5, 64)[(k + i) % 3]
            p, v = net(obs[:n], mask[:n])
            if not (np.array_equal(p, want[n][0]) and np.array_equal(v, want[n][1])):
                bad.append((k, i, n))
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bad == []
