#!/usr/bin/env python3
"""The compute reference: the same MLP (784-100-10, relu, softmax, summed
clipped cross-entropy, Adam 0.01, batch 100) trained by PyTorch in one
process, no parameter server. Prints JSON: steps/s, examples/s, the final
test cross-entropy (per batch of 100, averaged) and accuracy."""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_replica_data import load_split  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    tx, ty = load_split(a.data, "train")
    vx, vy = load_split(a.data, "t10k")
    tx, ty, vx, vy = map(torch.from_numpy, (tx, ty, vx, vy))
    w1 = torch.nn.init.trunc_normal_(torch.empty(784, 100), std=1 / 28, a=-2 / 28, b=2 / 28).requires_grad_()
    b1 = torch.zeros(100, requires_grad=True)
    w2 = torch.nn.init.trunc_normal_(torch.empty(100, 10), std=0.1, a=-0.2, b=0.2).requires_grad_()
    b2 = torch.zeros(10, requires_grad=True)
    opt = torch.optim.Adam([w1, b1, w2, b2], lr=0.01, eps=1e-8)

    def model(x, y_):
        y = torch.softmax(torch.relu(x @ w1 + b1) @ w2 + b2, dim=1)
        loss = -(y_ * torch.log(torch.clamp(y, 1e-10, 1.0))).sum()
        acc = (y.argmax(1) == y_.argmax(1)).float().mean()
        return loss, acc

    rng = np.random.RandomState(1000)
    order = rng.permutation(tx.shape[0])
    nxt = 0
    start = time.time()
    for _ in range(a.steps):
        if nxt + 100 > len(order):
            order = rng.permutation(len(order))
            nxt = 0
        idx = torch.from_numpy(order[nxt:nxt + 100])
        nxt += 100
        loss, _ = model(tx[idx], ty[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    elapsed = time.time() - start
    with torch.no_grad():
        ls, acs = [], []
        for b in range(vx.shape[0] // 100):
            l, ac = model(vx[b * 100:(b + 1) * 100], vy[b * 100:(b + 1) * 100])
            ls.append(float(l))
            acs.append(float(ac))
    print(json.dumps({"steps": a.steps, "threads": a.threads, "seconds": elapsed,
                      "steps_per_s": a.steps / elapsed,
                      "examples_per_s": 100 * a.steps / elapsed,
                      "cross_entropy": sum(ls) / len(ls),
                      "accuracy": sum(acs) / len(acs),
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
