"""SentencePiece models for the hostile-input tests and the fuzzers' seeds, written at the protobuf
wire level (Debian's python3-sentencepiece has no ModelProto class): a model's normalizer (field 3)
or denormalizer (field 5) precompiled_charsmap (field 2 of NormalizerSpec) read or replaced, and
darts-clone tries built unit by unit (darts_clone/darts.h, as sentencepiece's normalizer.cc reads
them). Standard library only."""
import struct


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(0x80 | (v & 0x7F))
        v >>= 7
    out.append(v)
    return bytes(out)


def _read_varint(b, pos):
    v = shift = 0
    while True:
        c = b[pos]
        pos += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, pos


def fields(message):
    """(number, wire type, raw field bytes, payload or None) for each field."""
    pos = 0
    while pos < len(message):
        start = pos
        key, pos = _read_varint(message, pos)
        payload = None
        if key & 7 == 0:
            _, pos = _read_varint(message, pos)
        elif key & 7 == 1:
            pos += 8
        elif key & 7 == 5:
            pos += 4
        else:
            n, pos = _read_varint(message, pos)
            payload = message[pos:pos + n]
            pos += n
        yield key >> 3, key & 7, message[start:pos], payload


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def charsmap_of(model, spec=3):
    for number, _, _, payload in fields(model):
        if number == spec and payload is not None:
            for n, _, _, p in fields(payload):
                if n == 2:
                    return p
    return b""


def with_charsmap(model, charsmap, spec=3):
    out, kept = b"", b""
    for number, wire, raw, payload in fields(model):
        if number == spec and wire == 2:
            kept += b"".join(r for n, _, r, _ in fields(payload) if n != 2)
        else:
            out += raw
    return out + field(spec, kept + field(2, charsmap))


NO_MATCH = 1 << 31  # a unit whose label never equals a byte (leaf units have this bit too)


def node(label, offset, has_leaf):
    return label | (1 << 8 if has_leaf else 0) | (offset << 10)


def charsmap(units, strings):
    return struct.pack("<I", 4 * len(units)) + struct.pack(f"<{len(units)}I", *units) + strings


def one_rule(frm, value):
    """Byte `frm` -> strings[value]: root state 256, the state after `frm` 512."""
    u = [NO_MATCH] * 768
    u[0] = node(0, 256, False)
    u[256 ^ frm] = node(frm, (256 ^ frm) ^ 512, True)
    u[512] = NO_MATCH | value
    return u
