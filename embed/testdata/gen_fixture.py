#!/usr/bin/python3
"""Builds BERT-shaped ONNX encoders by hand with onnx.helper.

Two uses:

  gen_fixture.py                 writes the small committed test fixture into
                                 this directory: tiny/model.onnx, tiny/vocab.txt
                                 and tiny/expected.json (a numpy forward pass of
                                 the same graph, the reference for the Go test)
  gen_fixture.py --full OUT.onnx writes a random-weight model with the shape of
                                 snowflake-arctic-embed-xs (6 layers, hidden 384,
                                 12 heads, intermediate 1536, vocab 30522, 512
                                 positions) for benchmarks; ~90 MB, never commit it

Interface of both (the real model's): inputs input_ids, attention_mask,
token_type_ids (int64 [batch, seq]); output last_hidden_state (float32
[batch, seq, hidden]). Attention is real multi-head attention with the
attention mask turned into an additive -10000 bias on padded keys, so
padding must not change a sequence's output.

Needs Debian's python3-onnx and python3-numpy (apt-get install -y python3-onnx
python3-numpy); run with /usr/bin/python3.
"""
import argparse
import json
import math
import os
import string
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17  # LayerNormalization needs 17


def tiny_vocab():
    """A small uncased WordPiece vocabulary: specials, ASCII punctuation,
    digits, letters (initial and ## continuation) and a few whole words, so
    every lowercase ASCII word tokenizes without [UNK]."""
    toks = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    toks += list(string.punctuation) + list(string.digits) + list(string.ascii_lowercase)
    toks += ["##" + c for c in string.digits + string.ascii_lowercase]
    toks += ["hello", "world", "the", "data", "cloud", "func", "return", "error", "string",
             "class", "method", "function", "file", "path", "name", "this", "is", "an",
             "example", "passage", "represent", "sentence", "for", "searching", "relevant",
             "passages", "what", "snow", "##flake", "##ing", "##ed", "##er", "##s"]
    return toks


class Builder:
    def __init__(self, rng, std):
        self.rng, self.std = rng, std
        self.nodes, self.inits, self.weights = [], [], {}
        self.n = 0

    def name(self, p):
        self.n += 1
        return "%s_%d" % (p, self.n)

    def w(self, name, shape, kind="normal"):
        if kind == "ones":
            a = np.ones(shape, np.float32)
        elif kind == "zeros":
            a = np.zeros(shape, np.float32)
        else:
            a = (self.rng.standard_normal(shape) * self.std).astype(np.float32)
        self.weights[name] = a
        self.inits.append(numpy_helper.from_array(a, name))
        return name

    def const(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def op(self, op, inputs, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out


def build(vocab, hidden, heads, layers, inter, positions, seed, std):
    rng = np.random.default_rng(seed)
    b = Builder(rng, std)
    hd = hidden // heads
    b.w("word_emb", (vocab, hidden))
    b.w("pos_emb", (positions, hidden))
    b.w("type_emb", (2, hidden))
    b.w("emb_ln_g", (hidden,), "ones")
    b.w("emb_ln_b", (hidden,), "zeros")
    b.const("c_zero", np.array(0, np.int64))
    b.const("c_one", np.array(1, np.int64))
    b.const("c_one_f", np.array(1.0, np.float32))
    b.const("c_neg", np.array(-10000.0, np.float32))
    b.const("c_scale", np.array(1.0 / math.sqrt(hd), np.float32))
    b.const("c_half", np.array(0.5, np.float32))
    b.const("c_rsqrt2", np.array(1.0 / math.sqrt(2.0), np.float32))
    b.const("shape_heads", np.array([0, 0, heads, hd], np.int64))
    b.const("shape_hidden", np.array([0, 0, hidden], np.int64))
    b.const("axes_12", np.array([1, 2], np.int64))

    # embeddings
    word = b.op("Gather", ["word_emb", "input_ids"])
    shape = b.op("Shape", ["input_ids"])
    seq = b.op("Gather", [shape, "c_one"], axis=0)
    rng_ = b.op("Range", ["c_zero", seq, "c_one"])
    pos = b.op("Gather", ["pos_emb", rng_])
    typ = b.op("Gather", ["type_emb", "token_type_ids"])
    x = b.op("Add", [b.op("Add", [word, pos]), typ])
    x = b.op("LayerNormalization", [x, "emb_ln_g", "emb_ln_b"], axis=-1, epsilon=1e-12)

    # additive attention bias [B,1,1,S]: 0 for real tokens, -10000 for padding
    m = b.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = b.op("Mul", [b.op("Sub", ["c_one_f", m]), "c_neg"])
    bias = b.op("Unsqueeze", [bias, "axes_12"])

    for l in range(layers):
        p = "l%d_" % l
        for t in ("q", "k", "v", "o"):
            b.w(p + "w" + t, (hidden, hidden))
            b.w(p + "b" + t, (hidden,), "zeros" if t == "o" else "normal")
        b.w(p + "w1", (hidden, inter)); b.w(p + "b1", (inter,))
        b.w(p + "w2", (inter, hidden)); b.w(p + "b2", (hidden,))
        for ln in ("ln1", "ln2"):
            b.w(p + ln + "_g", (hidden,), "ones"); b.w(p + ln + "_b", (hidden,), "zeros")

        def proj(t):
            y = b.op("Add", [b.op("MatMul", [x, p + "w" + t]), p + "b" + t])
            return b.op("Reshape", [y, "shape_heads"])  # [B,S,nh,hd]

        q = b.op("Transpose", [proj("q")], perm=[0, 2, 1, 3])  # [B,nh,S,hd]
        k = b.op("Transpose", [proj("k")], perm=[0, 2, 3, 1])  # [B,nh,hd,S]
        v = b.op("Transpose", [proj("v")], perm=[0, 2, 1, 3])
        s = b.op("Add", [b.op("Mul", [b.op("MatMul", [q, k]), "c_scale"]), bias])
        a = b.op("Softmax", [s], axis=-1)
        ctx = b.op("Transpose", [b.op("MatMul", [a, v])], perm=[0, 2, 1, 3])
        ctx = b.op("Reshape", [ctx, "shape_hidden"])
        att = b.op("Add", [b.op("MatMul", [ctx, p + "wo"]), p + "bo"])
        x = b.op("LayerNormalization", [b.op("Add", [att, x]), p + "ln1_g", p + "ln1_b"], axis=-1, epsilon=1e-12)
        h = b.op("Add", [b.op("MatMul", [x, p + "w1"]), p + "b1"])
        # GELU(h) = 0.5 h (1 + erf(h / sqrt 2))
        g = b.op("Mul", [b.op("Mul", [h, "c_half"]),
                         b.op("Add", ["c_one_f", b.op("Erf", [b.op("Mul", [h, "c_rsqrt2"])])])])
        f = b.op("Add", [b.op("MatMul", [g, p + "w2"]), p + "b2"])
        x = b.op("LayerNormalization", [b.op("Add", [f, x]), p + "ln2_g", p + "ln2_b"], axis=-1, epsilon=1e-12)

    b.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    ins = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
           for n in ("input_ids", "attention_mask", "token_type_ids")]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", hidden])
    graph = helper.make_graph(b.nodes, "bert_fixture", ins, [out], initializer=b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="gitnexus gen_fixture.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, b.weights


def forward(wt, ids, mask, types, heads, layers):
    """numpy reference of the same graph, float64."""
    w = {k: v.astype(np.float64) for k, v in wt.items()}
    ids, mask, types = np.asarray(ids), np.asarray(mask), np.asarray(types)
    S = ids.shape[1]
    H = w["word_emb"].shape[1]
    hd = H // heads

    def ln(x, g, bb):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * g + bb

    x = w["word_emb"][ids] + w["pos_emb"][:S][None] + w["type_emb"][types]
    x = ln(x, w["emb_ln_g"], w["emb_ln_b"])
    bias = ((1.0 - mask) * -10000.0)[:, None, None, :]
    erf = np.vectorize(math.erf)
    for l in range(layers):
        p = "l%d_" % l
        B = x.shape[0]
        split = lambda y: y.reshape(B, S, heads, hd).transpose(0, 2, 1, 3)
        q, k, v = (split(x @ w[p + "w" + t] + w[p + "b" + t]) for t in "qkv")
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + bias
        s = np.exp(s - s.max(-1, keepdims=True))
        a = s / s.sum(-1, keepdims=True)
        ctx = (a @ v).transpose(0, 2, 1, 3).reshape(B, S, H)
        x = ln(ctx @ w[p + "wo"] + w[p + "bo"] + x, w[p + "ln1_g"], w[p + "ln1_b"])
        h = x @ w[p + "w1"] + w[p + "b1"]
        g = 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))
        x = ln(g @ w[p + "w2"] + w[p + "b2"] + x, w[p + "ln2_g"], w[p + "ln2_b"])
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", metavar="OUT.onnx", help="write the shape-identical random-weight benchmark model")
    args = ap.parse_args()

    if args.full:
        model, _ = build(vocab=30522, hidden=384, heads=12, layers=6, inter=1536, positions=512, seed=7, std=0.02)
        onnx.save(model, args.full)
        print("wrote %s (%d bytes)" % (args.full, os.path.getsize(args.full)), file=sys.stderr)
        return

    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny")
    os.makedirs(here, exist_ok=True)
    vocab = tiny_vocab()
    heads, layers = 4, 2
    model, weights = build(vocab=len(vocab), hidden=32, heads=heads, layers=layers, inter=64,
                           positions=512, seed=42, std=0.5)
    onnx.save(model, os.path.join(here, "model.onnx"))
    with open(os.path.join(here, "vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")

    # Expected CLS vectors (L2-normalised) for two sequences padded into one
    # batch, from the numpy forward pass: the Go test feeds the same ids.
    tok = {t: i for i, t in enumerate(vocab)}
    seqs = [["[CLS]", "hello", "world", "[SEP]"],
            ["[CLS]", "the", "data", "cloud", "is", "an", "example", "passage", "[SEP]"]]
    ids = [[tok[t] for t in s] for s in seqs]
    S = max(len(s) for s in ids)
    pad = [s + [0] * (S - len(s)) for s in ids]
    mask = [[1] * len(s) + [0] * (S - len(s)) for s in ids]
    out = forward(weights, pad, mask, np.zeros((len(ids), S), np.int64), heads, layers)
    cls = out[:, 0, :]
    cls = cls / np.linalg.norm(cls, axis=1, keepdims=True)
    with open(os.path.join(here, "expected.json"), "w") as f:
        json.dump({"note": "numpy float64 forward pass of model.onnx; CLS pooling + L2 norm",
                   "input_ids": ids, "vectors": cls.round(7).tolist()}, f, indent=1)
    print("wrote %s" % here, file=sys.stderr)


if __name__ == "__main__":
    main()
