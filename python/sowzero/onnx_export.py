"""sowzero.export_onnx: a network file as an ONNX model (Debian's python3-onnx; onnx.checker-valid).

The graph is the forward pass of nn/net.h, layer for layer (Net.layers()):

    inputs   obs   float32 [batch, input_dim]   the net's encoding (VecEnv's obs)
             mask  bool    [batch, n_policy]    legal moves (VecEnv's info["action_mask"])
    h_0      obs, or for a net with one-hot input features (Net.onehot_inputs = I > 0, K levels):
             Concat(obs, Reshape(OneHot(Cast(Clip(Round(obs[:, :I] * scale), 0, K - 1)), K), [-1, I*K]))
    h_i      Relu(Gemm(h_{i-1}, W_i, b_i, transB=1) [+ h_{i-1} when the layer is residual])
    policy   Softmax(Where(mask, Gemm(h_L, W_p, b_p), -inf), axis=-1)   (a row without a legal move is NaN;
             sowzero's own forward pass gives zeros there)
    value    Tanh(Gemm(h_L, W_v, b_v))            [batch, n_value]
    margin   Gemm(h_L, W_m, b_m)                  [batch, 1], only for a net with a margin head

Opset 13 (ONNX's Softmax over one axis). The metadata carries the file's rules and encoding.
"""
import os

import numpy as np

from ._sowzero import Net

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _is_hdf5(path):
    """The HDF5 signature at 0 or at a user block's end (512, 1024, ...: sowzero's nets have a 512-byte one)."""
    with open(path, "rb") as f:
        offset = 0
        while True:
            f.seek(offset)
            head = f.read(8)
            if head == HDF5_SIGNATURE:
                return True
            if len(head) < 8 or offset > 1 << 20:
                return False
            offset = 512 if offset == 0 else offset * 2


def export_onnx(net, path, opset=13):
    """Writes `net` (a sowzero.Net or the path of a network file) to `path` as ONNX and returns the
    onnx.ModelProto, after onnx.checker.check_model. ImportError when python3-onnx is missing."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    # The output never replaces a network file (the input itself, or a Net read from it): ValueError.
    if os.path.exists(path):
        if not isinstance(net, Net) and os.path.exists(net) and os.path.samefile(net, path):
            raise ValueError("export_onnx: the output %r is the input network file" % path)
        if _is_hdf5(path):
            raise ValueError("export_onnx: %r is an HDF5 file (a network?); it is not overwritten" % path)
    if not isinstance(net, Net):
        net = Net.load(net)
    layers = net.layers()
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def gemm(x, layer, out):
        nodes.append(helper.make_node("Gemm", [x, const(layer["name"] + "/W", layer["W"]),
                                               const(layer["name"] + "/b", layer["b"])], [out], transB=1))
        return out

    h = "obs"
    if net.onehot_inputs:  # nn/net.h: the first I inputs also as K one-hot levels each
        n_in, k = net.onehot_inputs, net.onehot_levels
        nodes.append(helper.make_node("Slice", ["obs", const("oh/starts", np.array([0], np.int64)),
                                                const("oh/ends", np.array([n_in], np.int64)),
                                                const("oh/axes", np.array([1], np.int64))], ["oh/x"]))
        nodes.append(helper.make_node("Mul", ["oh/x", const("oh/scale", np.array(net.onehot_scale, np.float32))],
                                      ["oh/scaled"]))
        nodes.append(helper.make_node("Round", ["oh/scaled"], ["oh/round"]))
        nodes.append(helper.make_node("Clip", ["oh/round", const("oh/lo", np.array(0, np.float32)),
                                               const("oh/hi", np.array(k - 1, np.float32))], ["oh/level"]))
        nodes.append(helper.make_node("Cast", ["oh/level"], ["oh/index"], to=TensorProto.INT64))
        nodes.append(helper.make_node("OneHot", ["oh/index", const("oh/depth", np.array(k, np.int64)),
                                                 const("oh/values", np.array([0, 1], np.float32))], ["oh/onehot"],
                                      axis=-1))
        nodes.append(helper.make_node("Reshape", ["oh/onehot", const("oh/shape", np.array([-1, n_in * k], np.int64))],
                                      ["oh/flat"]))
        nodes.append(helper.make_node("Concat", ["obs", "oh/flat"], ["h0"], axis=1))
        h = "h0"
    heads = {}
    for layer in layers:
        kind = layer["name"].split("_", 1)[1]
        if kind != "hidden":
            heads[kind] = layer
            continue
        y = gemm(h, layer, layer["name"] + "/linear")
        if layer["residual"]:
            nodes.append(helper.make_node("Add", [y, h], [layer["name"] + "/sum"]))
            y = layer["name"] + "/sum"
        nodes.append(helper.make_node("Relu", [y], [layer["name"] + "/out"]))
        h = layer["name"] + "/out"
    logits = gemm(h, heads["policy"], "logits")
    nodes.append(helper.make_node("Where", ["mask", logits, const("minus_inf", np.array(-np.inf, np.float32))],
                                  ["masked_logits"]))
    nodes.append(helper.make_node("Softmax", ["masked_logits"], ["policy"], axis=-1))
    nodes.append(helper.make_node("Tanh", [gemm(h, heads["value"], "value_linear")], ["value"]))
    outputs = [helper.make_tensor_value_info("policy", TensorProto.FLOAT, ["batch", net.n_policy]),
               helper.make_tensor_value_info("value", TensorProto.FLOAT, ["batch", net.n_value])]
    if "margin" in heads:
        gemm(h, heads["margin"], "margin")
        outputs.append(helper.make_tensor_value_info("margin", TensorProto.FLOAT, ["batch", 1]))
    inputs = [helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["batch", net.input_dim]),
              helper.make_tensor_value_info("mask", TensorProto.BOOL, ["batch", net.n_policy])]
    graph = helper.make_graph(nodes, "sowzero_net", inputs, outputs, inits)
    model = helper.make_model(graph, producer_name="sowzero", opset_imports=[helper.make_opsetid("", opset)])
    for key, value in (("rules", net.rules), ("encoding", net.encoding)):
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)
    tmp = "%s.tmp-%d" % (path, os.getpid())  # a failed write leaves any earlier file as it was
    try:
        onnx.save(model, tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return model
