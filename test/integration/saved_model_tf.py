"""TensorFlow's side of saved_model.py, run by the bench venv's Python:
loads a SavedModel DTF exported with tf.saved_model.load, runs its
serving_default signature over the inputs of .npy files (uint8 images
scaled by 1/255 as dtf-run --predict's binding scales them, any other
array as it is), in batches of the signature's batch when it has a static
one, and prints the largest difference from DTF's predictions of the same
output, absolute and relative to max(1, |DTF's value|):

    python saved_model_tf.py SAVED_MODEL PREDICTIONS OUTPUT_KEY INPUT=NPY...
    max_difference <absolute> <relative>
"""

import sys

import numpy as np
import tensorflow as tf


def main():
    saved_model, predictions, output_key = sys.argv[1:4]
    signature = tf.saved_model.load(saved_model).signatures["serving_default"]
    specs = signature.structured_input_signature[1]
    inputs = {}
    for binding in sys.argv[4:]:
        key, path = binding.split("=", 1)
        x = np.load(path)
        if x.dtype == np.uint8:
            x = x.astype(np.float32) / 255.0
        inputs[key] = x.reshape((len(x),) + tuple(specs[key].shape[1:])).astype(
            specs[key].dtype.as_numpy_dtype)
    examples = len(next(iter(inputs.values())))
    batch = next(iter(specs.values())).shape[0] or examples
    theirs = np.concatenate([
        signature(**{key: tf.constant(x[i:i + batch]) for key, x in inputs.items()})
        [output_key].numpy()
        for i in range(0, examples, batch)])
    ours = np.load(predictions)
    if theirs.shape != ours.shape:
        sys.exit("TensorFlow's %s has shape %s, DTF's %s" % (output_key, theirs.shape, ours.shape))
    difference = np.abs(theirs.astype(np.float64) - ours)
    print("max_difference %.9g %.9g" % (difference.max(),
                                        (difference / np.maximum(1.0, np.abs(ours))).max()))


if __name__ == "__main__":
    main()
