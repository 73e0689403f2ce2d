"""A reader of TensorBoard event files in plain Python, independent of DTF's
C++ code and of TensorFlow: the TFRecord framing with masked CRC-32C, and
the few Event/Summary fields DTF writes, decoded from the protobuf wire
format by field number (tensorflow/core/util/event.proto, summary.proto)."""

import struct


def _crc32c_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def read_records(path):
    """The data of every record of a TFRecord file; raises ValueError on a
    bad length or CRC or a truncated record."""
    with open(path, "rb") as f:
        blob = f.read()
    records, offset = [], 0
    while offset < len(blob):
        if offset + 12 > len(blob):
            raise ValueError("%s: truncated header at %d" % (path, offset))
        header = blob[offset:offset + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", blob[offset + 8:offset + 12])
        if length_crc != masked_crc32c(header):
            raise ValueError("%s: length CRC mismatch at %d" % (path, offset))
        data = blob[offset + 12:offset + 12 + length]
        footer = blob[offset + 12 + length:offset + 16 + length]
        if len(data) != length or len(footer) != 4:
            raise ValueError("%s: truncated record at %d" % (path, offset))
        if struct.unpack("<I", footer)[0] != masked_crc32c(data):
            raise ValueError("%s: data CRC mismatch at %d" % (path, offset))
        records.append(data)
        offset += 16 + length
    return records


def _varint(data, pos):
    result, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def fields(data):
    """(field number, wire type, value) of a protobuf message."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise ValueError("unexpected wire type %d" % wire)
        yield number, wire, value


def decode_event(data):
    """{'wall_time', 'step', 'file_version', 'values': {tag: value}}."""
    event = {"wall_time": None, "step": 0, "file_version": None, "values": {}}
    for number, wire, value in fields(data):
        if number == 1 and wire == 1:
            event["wall_time"] = struct.unpack("<d", value)[0]
        elif number == 2 and wire == 0:
            event["step"] = value
        elif number == 3 and wire == 2:
            event["file_version"] = value.decode()
        elif number == 5 and wire == 2:  # Summary
            for vnumber, vwire, entry in fields(value):
                if vnumber != 1 or vwire != 2:  # Summary.value
                    continue
                tag, simple = None, None
                for enumber, ewire, evalue in fields(entry):
                    if enumber == 1 and ewire == 2:
                        tag = evalue.decode()
                    elif enumber == 2 and ewire == 5:
                        simple = struct.unpack("<f", evalue)[0]
                event["values"][tag] = simple
    return event


def read_events(path):
    return [decode_event(record) for record in read_records(path)]
