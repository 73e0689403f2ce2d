"""Runs the MLIR fuzz target over the committed corpus, once per input:
parse + verify, then again with dtf-run's compile pipeline
(DTF_FUZZ_PIPELINE=1). --fuzzer: the libFuzzer binary (given files, it runs
each once and exits); --replay: the same target with a plain main(). Exits
77 (skipped) with the reason when the libFuzzer binary was not built."""

import argparse
import os
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fuzzer", default="")
    parser.add_argument("--replay", default="")
    parser.add_argument("--missing", default="")
    parser.add_argument("--corpus", required=True)
    args = parser.parse_args()
    binary = args.fuzzer or args.replay
    if not binary:
        print("SKIP: no libFuzzer binary: %s" % (args.missing or "not built"))
        sys.exit(77)
    files = sorted(os.path.join(args.corpus, f) for f in os.listdir(args.corpus))
    print("%d corpus inputs" % len(files))
    for pipeline in ("0", "1"):
        env = dict(os.environ, DTF_FUZZ_PIPELINE=pipeline)
        result = subprocess.run([binary] + files, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, timeout=240)
        tail = result.stdout.strip().splitlines()[-3:]
        print("DTF_FUZZ_PIPELINE=%s: exit %d: %s" % (pipeline, result.returncode,
                                                     " | ".join(tail)))
        if result.returncode != 0:
            print(result.stdout)
            print("FAIL")
            sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
