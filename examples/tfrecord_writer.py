"""TFRecord files of tf.train.Example, written with the standard library only.

What examples/fashion_mnist_to_tfrecord.py and examples/ctr/make_ctr_data.py
share (TensorFlow is not needed):

  - the Example protos are encoded by hand in protobuf's wire format
    (tensorflow/core/example/example.proto, feature.proto; DTF's copies are
    runtime/data/proto/): int64_feature, float_feature, bytes_feature and
    example;
  - each record is framed as TensorFlow's record_writer.cc frames it, its
    length and data each followed by their masked CRC-32C (frame);
  - write_records writes a file under a hidden temporary name and renames
    it when complete, so an interrupted run leaves no half-written shard
    for a glob of the shards to find; RecordFile does the same for a
    caller that writes framed bytes itself (bench/make_stream_data.py).

A file is written plain, or compressed as a whole as TensorFlow's
TFRecordOptions(compression_type=...) writes it:

  - "gzip": one gzip stream over the whole file (".tfrecord.gz");
  - "zlib": one zlib-wrapped deflate stream (RFC 1950: a 2-byte header,
    the deflate data, an Adler-32) over the whole file (".tfrecord.zlib").

The gzip header holds no file name and a modification time of 0, so the
same records give the same bytes on every run.

CRC-32C is computed by a C implementation when one is installed (the
`crc32c` package, Debian's python3-crc32c, or `google-crc32c`), else four
bytes at a time with two tables of 65536 entries (built on first use,
about 0.05 s), about 20 MB/s in CPython (twice a table of bytes' speed).
"""

import array
import os
import struct
import sys
import zlib

_fast_crc32c = None
try:  # A C implementation when one is installed (python3-crc32c, pip crc32c).
    from crc32c import crc32c as _fast_crc32c
except ImportError:
    try:  # pip google-crc32c
        from google_crc32c import value as _fast_crc32c
        from google_crc32c import implementation as _google_implementation
        if _google_implementation != "c":  # its pure-Python fallback is slower than ours
            _fast_crc32c = None
    except ImportError:
        pass

# The file name's suffix of each compression.
SUFFIXES = {"none": ".tfrecord", "gzip": ".tfrecord.gz", "zlib": ".tfrecord.zlib"}
COMPRESSIONS = tuple(SUFFIXES)

_POLY = 0x82F63B78  # CRC-32C (Castagnoli), reflected


def _byte_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _byte_table()
_WORD_TABLES = None  # (after 32 zero bits, after 16), built on first use


def _word_tables():
    """Tables that advance the low and the high 16 bits of the register."""
    global _WORD_TABLES
    if _WORD_TABLES is None:
        table = _TABLE
        after16 = [0] * 65536
        for x in range(65536):
            crc = table[x & 0xFF] ^ (x >> 8)
            after16[x] = table[crc & 0xFF] ^ (crc >> 8)
        after32 = [0] * 65536
        for x in range(65536):
            crc = after16[x]
            after32[x] = after16[crc & 0xFFFF] ^ (crc >> 16)
        # Arrays of uint32 (256 KiB each) stay in the CPU's cache, where
        # lists of int objects (2.5 MiB each) would not.
        _WORD_TABLES = (array.array("I", after32), array.array("I", after16))
    return _WORD_TABLES


def crc32c_implementation():
    """Which CRC-32C crc32c() computes with: "c" or "python"."""
    return "c" if _fast_crc32c is not None else "python"


def crc32c(data):
    if _fast_crc32c is not None:
        return _fast_crc32c(data)
    crc = 0xFFFFFFFF
    table = _TABLE
    words = len(data) & ~3 if sys.byteorder == "little" else 0
    if words:
        low, high = _word_tables()
        for word in memoryview(data)[:words].cast("I"):
            x = crc ^ word
            crc = low[x & 0xFFFF] ^ high[x >> 16]
    for byte in data[words:]:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame(record):
    """The framed bytes of one record holding `record`."""
    length = struct.pack("<Q", len(record))
    return (length + struct.pack("<I", masked_crc(length)) + record +
            struct.pack("<I", masked_crc(record)))


def varint(value):
    """An unsigned varint; a negative int64 as its 64-bit two's complement."""
    value &= 0xFFFFFFFFFFFFFFFF
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while True:
        bits = value & 0x7F
        value >>= 7
        if value:
            out.append(bits | 0x80)
        else:
            out.append(bits)
            return bytes(out)


def field(number, payload):
    """A length-delimited field (wire type 2)."""
    size = len(payload)
    if number < 16 and size < 0x80:  # one byte each
        return bytes((number << 3 | 2, size)) + payload
    return varint(number << 3 | 2) + varint(size) + payload


def int64_feature(values):
    """Feature{int64_list{value: values}}, packed; [] is an empty list."""
    packed = b"".join(varint(v) for v in values)
    return field(3, field(1, packed) if packed else b"")


def float_feature(values):
    """Feature{float_list{value: values}}, packed float32."""
    packed = struct.pack("<%df" % len(values), *values)
    return field(2, field(1, packed) if packed else b"")


def bytes_feature(values):
    """Feature{bytes_list{value: values}}."""
    return field(1, b"".join(field(1, value) for value in values))


def example(features):
    """tf.train.Example{features{feature: ...}} of (name, encoded Feature)
    pairs, the names str or bytes."""
    entries = b"".join(
        field(1, field(1, name.encode() if isinstance(name, str) else name) +
              field(2, feature))
        for name, feature in features)
    return field(1, entries)  # Example.features


def _compressor(compression, level):
    """A zlib compression object of `compression`, or None for "none"."""
    if compression in (None, "none"):
        return None
    if compression == "gzip":  # a gzip header and trailer (RFC 1952)
        return zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    if compression == "zlib":  # a zlib header and trailer (RFC 1950)
        return zlib.compressobj(level, zlib.DEFLATED, zlib.MAX_WBITS)
    raise ValueError("compression %r: not one of %s" % (compression, ", ".join(COMPRESSIONS)))


class RecordFile:
    """A TFRecord file being written: write() takes framed bytes (frame()),
    compressed as `compression` ("none", "gzip" or "zlib") at `level`. The
    bytes go to a hidden temporary name (.NAME.tmp), renamed to `path` by
    close() (or the end of a with block without an exception); an
    exception removes the temporary file instead."""

    def __init__(self, path, compression="none", level=6):
        self.path = path
        self.temporary = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
        self.compressor = _compressor(compression, level)
        self.file = open(self.temporary, "wb")
        self.bytes_in = 0  # framed bytes given to write()

    def write(self, data):
        self.bytes_in += len(data)
        if self.compressor is not None:
            data = self.compressor.compress(data)
        if data:
            self.file.write(data)

    def close(self):
        if self.file is None:
            return
        if self.compressor is not None:
            self.file.write(self.compressor.flush())
        self.file.close()
        self.file = None
        os.replace(self.temporary, self.path)

    def abandon(self):
        if self.file is not None:
            self.file.close()
            self.file = None
            os.unlink(self.temporary)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.close()
        else:
            self.abandon()
        return False


def write_records(path, records, compress=False, level=6, compression=None):
    """Writes the framed `records` (an iterable of bytes) to `path`, plain or
    compressed as `compression` ("none", "gzip" or "zlib"; `compress`=True
    is "gzip", for older callers), under a temporary name (.NAME.tmp)
    renamed when done. Returns the number of records."""
    if compression is None:
        compression = "gzip" if compress else "none"
    count = 0
    with RecordFile(path, compression, level) as f:
        chunk = []
        for record in records:
            chunk.append(frame(record))
            count += 1
            if len(chunk) == 4096:
                f.write(b"".join(chunk))
                chunk = []
        f.write(b"".join(chunk))
    return count
