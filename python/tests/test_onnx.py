"""sowzero.export_onnx: the model passes onnx.checker, and its graph, evaluated node by node in numpy,
gives Net's numbers. Net.layers() against Net's own forward pass."""
import os
import shutil

import numpy as np
import pytest

import sowzero

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_graph(model, feeds):
    """A numpy evaluation of exactly the operators export_onnx writes (onnx 1.12 has no reference
    evaluator)."""
    env = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    env.update(feeds)
    for node in model.graph.node:
        x = [env[name] for name in node.input]
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "Gemm":
            assert attrs == {"transB": 1}
            y = x[0].astype(np.float64) @ x[1].T.astype(np.float64) + x[2]
        elif node.op_type == "Add":
            y = x[0] + x[1]
        elif node.op_type == "Relu":
            y = np.maximum(x[0], 0)
        elif node.op_type == "Where":
            y = np.where(x[0], x[1], x[2])
        elif node.op_type == "Softmax":
            z = np.exp(x[0] - x[0].max(axis=attrs["axis"], keepdims=True))
            y = z / z.sum(axis=attrs["axis"], keepdims=True)
        elif node.op_type == "Tanh":
            y = np.tanh(x[0])
        elif node.op_type == "Slice":
            assert list(x[3]) == [1]
            y = x[0][:, int(x[1][0]):int(x[2][0])]
        elif node.op_type == "Mul":
            y = (x[0] * x[1]).astype(np.float32)
        elif node.op_type == "Round":
            y = np.rint(x[0])  # ONNX Round: half to even, as numpy's
        elif node.op_type == "Clip":
            y = np.clip(x[0], x[1], x[2])
        elif node.op_type == "Cast":
            assert attrs == {"to": onnx.TensorProto.INT64}
            y = x[0].astype(np.int64)
        elif node.op_type == "OneHot":
            assert attrs == {"axis": -1}
            y = np.where(np.arange(int(x[1]))[None, None, :] == x[0][:, :, None], x[2][1], x[2][0])
        elif node.op_type == "Reshape":
            y = x[0].reshape(tuple(int(v) for v in x[1]))
        elif node.op_type == "Concat":
            y = np.concatenate(x, axis=attrs["axis"])
        else:
            raise AssertionError("unexpected operator " + node.op_type)
        env[node.output[0]] = y
    return {o.name: env[o.name] for o in model.graph.output}


@pytest.mark.parametrize("which", ["kalah_net", "basico_net", "kalah_onehot_net"])
def test_onnx_matches_net(which, request, tmp_root):
    path = request.getfixturevalue(which)
    net = sowzero.Net.load(path)
    out = os.path.join(str(tmp_root), which + ".onnx")
    model = sowzero.export_onnx(path, out)
    onnx.checker.check_model(onnx.load(out))
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta == {"rules": net.rules, "encoding": net.encoding}
    env = sowzero.VecEnv(copy=False, rules=net.rules, num_envs=32, seed=5)
    obs, info = env.reset()
    for _ in range(7):
        obs, _, _, _, info = env.step(env.sample_actions())
    live = info["action_mask"].any(axis=1)
    x, mask = obs[live].copy(), info["action_mask"][live].copy()
    policy, value = net(x, mask)
    got = run_graph(model, {"obs": x, "mask": mask})
    np.testing.assert_allclose(got["policy"], policy, atol=2e-5)
    np.testing.assert_allclose(got["value"], value, atol=2e-5)
    assert ("margin" in got) == any(l["name"].endswith("_margin") for l in net.layers())


def assert_forward(net, layers, x, h):
    """Net(x) against the two hidden layers and the heads of `layers` applied in numpy to the first layer's
    input rows h."""
    for l in layers[:2]:
        h = np.maximum(h @ l["W"].T + l["b"], 0)
    logits = h @ layers[2]["W"].T + layers[2]["b"]
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    policy, value = net(x)
    np.testing.assert_allclose(policy, p / p.sum(axis=1, keepdims=True), atol=1e-5)
    np.testing.assert_allclose(value, np.tanh(h @ layers[3]["W"].T + layers[3]["b"]), atol=1e-5)


def test_layers_are_the_forward_pass(kalah_net):
    net = sowzero.Net.load(kalah_net)
    layers = net.layers()
    assert [l["name"].split("_", 1)[1] for l in layers] == ["hidden", "hidden", "policy", "value", "margin"]
    assert layers[0]["W"].shape == (32, 14) and layers[2]["W"].shape == (6, 32) and layers[3]["b"].shape == (1,)
    assert sum(l["W"].size + l["b"].size for l in layers) == net.n_params
    x = np.random.default_rng(1).random((5, 14), dtype=np.float32)
    assert_forward(net, layers, x, x.astype(np.float64))


def test_onehot_layer_is_the_forward_pass(kalah_onehot_net):
    """The first layer of a one-hot net reads [x, onehot(round(x_j * scale)) for the first I inputs]."""
    net = sowzero.Net.load(kalah_onehot_net)
    n_in, k, scale = net.onehot_inputs, net.onehot_levels, net.onehot_scale
    assert (n_in, k, scale) == (12, 8, 4.0)
    layers = net.layers()
    assert layers[0]["W"].shape == (32, 14 + n_in * k)
    counts = np.random.default_rng(2).integers(0, 12, size=(6, 14))
    x = (counts / np.float32(4.0)).astype(np.float32)
    feats = np.zeros((6, n_in * k))
    for j in range(n_in):
        feats[np.arange(6), j * k + np.minimum(counts[:, j], k - 1)] = 1.0
    assert_forward(net, layers, x, np.concatenate([x.astype(np.float64), feats], axis=1))


def test_onnx_never_overwrites_a_net(tmp_root):
    """The output path is never the network file (given by path, or loaded into a Net), nor another HDF5."""
    src = os.path.join(ROOT, "nets", "kalah-6-4.h5")
    copy = os.path.join(str(tmp_root), "overwrite-me.h5")
    shutil.copyfile(src, copy)
    before = open(copy, "rb").read()
    with pytest.raises(ValueError, match="input network file"):
        sowzero.export_onnx(copy, copy)
    with pytest.raises(ValueError, match="HDF5"):
        sowzero.export_onnx(sowzero.Net.load(copy), copy)
    with pytest.raises(ValueError, match="HDF5"):
        sowzero.export_onnx(src, copy)
    assert open(copy, "rb").read() == before
