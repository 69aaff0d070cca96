#!/usr/bin/env python3
"""Writes the hostile model files of the CLI robustness tests (expect_robust.cmake,
expect_marian_hostile.cmake) from the test fixtures, at test time: each is a small edit of a
fixture's header, or (crafted-charsmap.tfm) of its SentencePiece model. Standard library only.
Usage: make_bad_models.py FIXTURES_DIR OUT_DIR"""
import json
import os
import re
import struct
import sys

fixtures, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)


def read_tfm(variant):
    b = open(os.path.join(fixtures, variant, 'model.tfm'), 'rb').read()
    n = struct.unpack('<Q', b[16:24])[0]
    return b[24:24 + n].decode(), b[(24 + n + 63) // 64 * 64:]


def write(name, header_text, data):
    h = header_text.encode()
    body = b'TFMODEL\0' + struct.pack('<I', 1) + b'\0' * 4 + struct.pack('<Q', len(h)) + h
    body += b'\0' * ((-len(body)) % 64)
    with open(os.path.join(out, name), 'wb') as f:
        f.write(body + data)


def edited(variant, edit):
    text, data = read_tfm(variant)
    header = json.loads(text)
    edit(header)
    return json.dumps(header), data


# Finding 1: max_positions 2 with source BOS and EOS (the tutorial convention).
write('max-positions.tfm', *edited('tutorial', lambda h: h['config'].update(max_positions=2)))

# Finding 2: nesting 60,000 deep (about 120 KB) in the metadata, a dtype and a shape.
text, data = read_tfm('marian')
nest = '[' * 60000 + ']' * 60000
for place in ('metadata', 'dtype', 'shape'):
    at = re.search(f'"{place}":\\s*', text).end()
    write(f'nested-{place}.tfm', text[:at] + nest + ', "kept": ' + text[at:], data)


# Finding 4: the file: d_model 1024, 256 + 256 layers and thousands of tensors sharing
# one region of the data (here 1 MB).
def overlapping(h):
    h['config'].update(d_model=1024, heads=16, ffn_dim=4096, encoder_layers=256, decoder_layers=256)
    tokenizer = [t for t in h['tensors'] if t['name'].startswith('tokenizer')]
    h['tensors'] = tokenizer + [
        {'name': f'shared.{i}', 'dtype': 'f32', 'shape': [256, 1024], 'offset': 0, 'nbytes': 1 << 20}
        for i in range(10000)]
    h['tensors'][0]['offset'] = 1 << 20  # the tokenizer after the shared region


text, data = edited('marian', overlapping)
spm = json.loads(read_tfm('marian')[0])
source = next(t for t in spm['tensors'] if t['name'] == 'tokenizer.source')
write('overlap.tfm', text, b'\0' * (1 << 20) + data[source['offset']:source['offset'] + source['nbytes']])


# Finding 5: special ids past the 256 pieces of the SentencePiece model.
def special(h):
    h['config'].update(vocab_size=300, bos_id=299)


write('special-ids.tfm', *edited('tutorial', special))


# A SentencePiece vocabulary whose normalisation table sends "a" far past its strings: the
# normalizer would read (and print) memory outside the model.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sentencepiece_proto as sp  # noqa: E402


def crafted_tokenizer(variant):
    header = json.loads(read_tfm(variant)[0])
    text, data = read_tfm(variant)
    source = next(t for t in header['tensors'] if t['name'] == header['tokenizer']['source'])
    model = data[source['offset']:source['offset'] + source['nbytes']]
    crafted = sp.with_charsmap(model, sp.charsmap(sp.one_rule(ord('a'), 0x7FFFFF00), b'b\0'))
    offset = (len(data) + 63) // 64 * 64
    for t in header['tensors']:
        if t['name'] == source['name']:
            t.update(offset=offset, nbytes=len(crafted), shape=[len(crafted)])
    return json.dumps(header), data + b'\0' * (offset - len(data)) + crafted


write('crafted-charsmap.tfm', *crafted_tokenizer('marian'))
