"""sowzero.export_onnx: the model passes onnx.checker, and its graph, evaluated node by node in numpy,
gives Net's numbers. Net.layers() against Net's own forward pass."""
import os

import numpy as np
import pytest

import sowzero

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402


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
        else:
            raise AssertionError("unexpected operator " + node.op_type)
        env[node.output[0]] = y
    return {o.name: env[o.name] for o in model.graph.output}


@pytest.mark.parametrize("which", ["kalah_net", "basico_net"])
def test_onnx_matches_net(which, request, tmp_root):
    path = request.getfixturevalue(which)
    net = sowzero.Net.load(path)
    out = os.path.join(str(tmp_root), which + ".onnx")
    model = sowzero.export_onnx(path, out)
    onnx.checker.check_model(onnx.load(out))
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta == {"rules": net.rules, "encoding": net.encoding}
    env = sowzero.VecEnv(rules=net.rules, num_envs=32, seed=5)
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


def test_layers_are_the_forward_pass(kalah_net):
    net = sowzero.Net.load(kalah_net)
    layers = net.layers()
    assert [l["name"].split("_", 1)[1] for l in layers] == ["hidden", "hidden", "policy", "value", "margin"]
    assert layers[0]["W"].shape == (32, 14) and layers[2]["W"].shape == (6, 32) and layers[3]["b"].shape == (1,)
    assert sum(l["W"].size + l["b"].size for l in layers) == net.n_params
    x = np.random.default_rng(1).random((5, 14), dtype=np.float32)
    h = x.astype(np.float64)
    for l in layers[:2]:
        h = np.maximum(h @ l["W"].T + l["b"], 0)
    logits = h @ layers[2]["W"].T + layers[2]["b"]
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    policy, value = net(x)
    np.testing.assert_allclose(policy, p / p.sum(axis=1, keepdims=True), atol=1e-5)
    np.testing.assert_allclose(value, np.tanh(h @ layers[3]["W"].T + layers[3]["b"]), atol=1e-5)
