"""The same-run onnxruntime reference for the `minilm_reference` bench.

It embeds the texts the bench gives it with all-MiniLM-L6-v2 in
onnxruntime (fp32, every optimization on, one thread per core), the way a
fast Python embedder does: tokenized with the same tokenizer.json
(truncated at 256 tokens), sorted by token length, batches of 32 padded to
their longest text, mean pooling over the real tokens, L2 normalization.

No ONNX file of the model ships on a registry, so this script writes the
BERT graph itself from the installed model.safetensors (standard ONNX ops,
opset 17: the graph torch.onnx.export writes for BertModel) and lets
onnxruntime fuse it (attention, skip layer norm, bias GELU).

    python onnxruntime_reference.py MODEL_DIR TEXTS_JSON ITERATIONS [VECTORS_OUT]

prints one JSON line: {"seconds", "cpu_seconds", "chunks", "tokens",
"padded_tokens", "threads"} for ITERATIONS runs over all texts (model load
and graph build excluded), and writes the vectors (float32, texts' order)
to VECTORS_OUT when given, for the bench's agreement check.

Needs: onnxruntime, onnx, numpy, safetensors, tokenizers (PyPI).
"""

import json
import os
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file
from tokenizers import Tokenizer

BATCH_SIZE = 32


def build_graph(model_dir):
    """The BertModel graph (last hidden state) from the safetensors weights."""
    config = json.load(open(os.path.join(model_dir, "config.json")))
    weights = load_file(os.path.join(model_dir, "model.safetensors"))
    hidden = config["hidden_size"]
    heads = config["num_attention_heads"]
    head_size = hidden // heads
    eps = config["layer_norm_eps"]

    nodes, inits = [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op, inputs, output, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output

    def linear(x, prefix, out):
        w = init(prefix + ".weight_t", weights[prefix + ".weight"].T)
        b = init(prefix + ".bias", weights[prefix + ".bias"])
        return node("Add", [node("MatMul", [x, w], out + "_mm"), b], out)

    def layer_norm(x, prefix, out):
        g = init(prefix + ".weight", weights[prefix + ".weight"])
        b = init(prefix + ".bias", weights[prefix + ".bias"])
        return node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=eps)

    e = "embeddings"
    # Positions as the exporter writes them: the first seq_len of position_ids.
    ids_shape = node("Shape", ["input_ids"], "ids_shape")
    seq = node(
        "Slice",
        [ids_shape, init("one_1d", np.array([1], np.int64)), init("two_1d", np.array([2], np.int64))],
        "seq_len",
    )
    positions = node(
        "Slice",
        [
            init("position_ids", weights[e + ".position_ids"].astype(np.int64)),
            init("zero_1d", np.array([0], np.int64)),
            seq,
            init("one_axis", np.array([1], np.int64)),
        ],
        "positions",
    )
    words = node("Gather", [init("word_emb", weights[e + ".word_embeddings.weight"]), "input_ids"], "words")
    pos = node("Gather", [init("pos_emb", weights[e + ".position_embeddings.weight"]), positions], "pos")
    type0 = init("type0", weights[e + ".token_type_embeddings.weight"][0])
    summed = node("Add", [node("Add", [words, pos], "words_pos"), type0], "emb_sum")
    x = layer_norm(summed, e + ".LayerNorm", "emb")

    # The extended attention mask: 0 for tokens, the float minimum for padding.
    mask_f = node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    inverted = node("Sub", [init("one_f", np.array(1.0, np.float32)), mask_f], "mask_inv")
    big = init("neg_big", np.array(np.finfo(np.float32).min, np.float32))
    mask_add = node("Mul", [inverted, big], "mask_add_2d")
    mask_add = node("Unsqueeze", [mask_add, init("axes_12", np.array([1, 2], np.int64))], "mask_add")

    split_shape = init("split_shape", np.array([0, 0, heads, head_size], np.int64))
    merge_shape = init("merge_shape", np.array([0, 0, hidden], np.int64))
    sqrt2 = init("sqrt2", np.array(np.sqrt(2.0), np.float32))
    one = init("one_gelu", np.array(1.0, np.float32))
    half = init("half", np.array(0.5, np.float32))

    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}"
        t = f"l{layer}_"
        q = linear(x, p + ".attention.self.query", t + "q")
        k = linear(x, p + ".attention.self.key", t + "k")
        v = linear(x, p + ".attention.self.value", t + "v")
        q = node("Transpose", [node("Reshape", [q, split_shape], t + "q4")], t + "qt", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [k, split_shape], t + "k4")], t + "kt", perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [v, split_shape], t + "v4")], t + "vt", perm=[0, 2, 1, 3])
        scores = node("Div", [node("MatMul", [q, k], t + "qk"), node("Sqrt", [init(t + "hs", np.array(head_size, np.float32))], t + "sqrt_hs")], t + "scores_scaled")
        scores = node("Add", [scores, mask_add], t + "scores")
        probs = node("Softmax", [scores], t + "probs", axis=-1)
        context = node("MatMul", [probs, v], t + "ctx")
        context = node("Transpose", [context], t + "ctx_t", perm=[0, 2, 1, 3])
        context = node("Reshape", [context, merge_shape], t + "ctx_m")
        attn = linear(context, p + ".attention.output.dense", t + "attn")
        x1 = layer_norm(node("Add", [attn, x], t + "attn_res"), p + ".attention.output.LayerNorm", t + "x1")
        h = linear(x1, p + ".intermediate.dense", t + "h")
        erf = node("Erf", [node("Div", [h, sqrt2], t + "h_div")], t + "erf")
        gelu = node("Mul", [node("Mul", [h, node("Add", [erf, one], t + "erf1")], t + "h_erf"), half], t + "gelu")
        out = linear(gelu, p + ".output.dense", t + "out")
        x = layer_norm(node("Add", [out, x1], t + "out_res"), p + ".output.LayerNorm", t + "x")

    graph = helper.make_graph(
        nodes,
        "bert",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", "seq", hidden])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    model_dir, texts_path, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
    vectors_out = sys.argv[4] if len(sys.argv) > 4 else None
    texts = json.load(open(texts_path))

    threads = os.cpu_count() or 1
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        build_graph(model_dir).SerializeToString(), options, providers=["CPUExecutionProvider"]
    )

    tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tokenizer.no_padding()
    max_length = json.load(open(os.path.join(model_dir, "sentence_bert_config.json")))["max_seq_length"]
    tokenizer.enable_truncation(max_length)

    def embed_all():
        encodings = tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        vectors = np.zeros((len(texts), 384), np.float32)
        padded = 0
        for start in range(0, len(order), BATCH_SIZE):
            batch = order[start : start + BATCH_SIZE]
            longest = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), longest), np.int64)
            mask = np.zeros((len(batch), longest), np.int64)
            for row, i in enumerate(batch):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            padded += ids.size
            (hidden,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(1) / np.clip(weights.sum(1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            vectors[batch] = pooled
        tokens = sum(len(e.ids) for e in encodings)
        return vectors, tokens, padded

    embed_all()  # warm-up: first-run allocations and kernel selection
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(iterations):
        vectors, tokens, padded = embed_all()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if vectors_out:
        vectors.tofile(vectors_out)
    print(json.dumps({
        "seconds": wall,
        "cpu_seconds": cpu,
        "chunks": len(texts),
        "tokens": tokens,
        "padded_tokens": padded,
        "threads": threads,
    }))


if __name__ == "__main__":
    main()
