"""TensorFlow's side of saved_model.py, run by the bench venv's Python:
loads a SavedModel DTF exported with tf.saved_model.load, runs its
serving_default signature over the images of an .npy file (uint8, scaled
by 1/255 as dtf-run --predict's binding scales them), in batches of the
signature's batch when it has a static one, and prints the largest
difference from DTF's predictions of the same output, absolute and
relative to max(1, |DTF's value|):

    max_difference <absolute> <relative>
"""

import sys

import numpy as np
import tensorflow as tf


def main():
    saved_model, images, predictions, input_key, output_key = sys.argv[1:6]
    signature = tf.saved_model.load(saved_model).signatures["serving_default"]
    spec = signature.structured_input_signature[1][input_key]
    x = np.load(images).astype(np.float32) / 255.0
    x = x.reshape((len(x),) + tuple(spec.shape[1:]))
    batch = spec.shape[0] or len(x)
    theirs = np.concatenate([
        signature(**{input_key: tf.constant(x[i:i + batch])})[output_key].numpy()
        for i in range(0, len(x), batch)])
    ours = np.load(predictions)
    if theirs.shape != ours.shape:
        sys.exit("TensorFlow's %s has shape %s, DTF's %s" % (output_key, theirs.shape, ours.shape))
    difference = np.abs(theirs.astype(np.float64) - ours)
    print("max_difference %.9g %.9g" % (difference.max(),
                                        (difference / np.maximum(1.0, np.abs(ours))).max()))


if __name__ == "__main__":
    main()
