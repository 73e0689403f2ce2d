"""Fashion-MNIST from its gzipped IDX files, as dtf-run reads it: pixels
scaled to [0, 1], labels one-hot."""

import gzip
import os
import struct

import numpy as np


def load_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    ndim = magic & 0xFF
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_split(data_dir, prefix):
    images = load_idx(os.path.join(data_dir, prefix + "-images-idx3-ubyte.gz"))
    labels = load_idx(os.path.join(data_dir, prefix + "-labels-idx1-ubyte.gz"))
    images = images.reshape(images.shape[0], -1).astype(np.float32) / 255.0
    one_hot = np.zeros((labels.shape[0], 10), dtype=np.float32)
    one_hot[np.arange(labels.shape[0]), labels] = 1.0
    return images, one_hot
