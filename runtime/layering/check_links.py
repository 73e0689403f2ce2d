#!/usr/bin/env python3
"""Fails when a binary links what its layer may not (docs/ARCHITECTURE.md).

    check_links.py --forbid mlir BINARY      # links no MLIR/LLVM/dtf compiler
    check_links.py --forbid grpc BINARY      # links no gRPC
    check_links.py --forbid protobuf BINARY  # links no protobuf
    check_links.py --forbid kernels BINARY   # links no CPU kernel library
    check_links.py --require mlir BINARY     # the checks' positive controls:
    check_links.py --require grpc BINARY     # they must see what is there

A binary links a library when the dynamic loader would load it (ldd), or
when it defines that library's symbols (nm: static libraries bring them in):
namespaces mlir:: and llvm:: for MLIR, dtf::ir:: for the dtf dialect and
passes, grpc:: and grpc_ for gRPC, google::protobuf:: for protobuf (which
generated messages also define), dtf::kernels:: and OpenBLAS or oneDNN for
the runtime's CPU kernels.
"""
import argparse
import re
import subprocess
import sys

KINDS = {
    "mlir": (re.compile(r"\blib(MLIR|LLVM)[-.\w]*\.so"),
             re.compile(r"\b(mlir|llvm|dtf::ir)::")),
    "grpc": (re.compile(r"\blibgrpc[-+.\w]*\.so"),
             re.compile(r"\bgrpc(::|_)")),
    "protobuf": (re.compile(r"\blibprotobuf[-.\w]*\.so"),
                 re.compile(r"\bgoogle::protobuf::")),
    "kernels": (re.compile(r"\blib(openblas|blas|dnnl)[-.\w]*\.so"),
                re.compile(r"\bdtf::kernels::")),
}


def findings(binary, kind):
    """What of `kind` the binary links, as a list of findings."""
    shared, symbol = KINDS[kind]
    found = []
    ldd = subprocess.run(["ldd", binary], capture_output=True, text=True,
                         check=True).stdout
    found += sorted({m.group(0) for m in shared.finditer(ldd)})
    nm = subprocess.run(["nm", "-C", "--defined-only", binary],
                        capture_output=True, text=True, check=True).stdout
    symbols = [line.split(" ", 2)[-1] for line in nm.splitlines()
               if symbol.search(line)]
    if symbols:
        found.append(f"{len(symbols)} symbols, e.g. {symbols[0]}")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--forbid", choices=sorted(KINDS))
    group.add_argument("--require", choices=sorted(KINDS))
    parser.add_argument("binary")
    args = parser.parse_args()
    kind = args.forbid or args.require
    found = findings(args.binary, kind)
    if args.forbid and found:
        print(f"FAIL: {args.binary} links {kind}:", *found, sep="\n  ")
        return 1
    if args.require and not found:
        print(f"FAIL: {args.binary} links no {kind} that this check can "
              "see: the check is blind")
        return 1
    print(f"{args.binary}: " + ("; ".join(found) if found else f"no {kind}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
