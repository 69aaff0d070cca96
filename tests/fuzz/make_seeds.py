#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (tests/fuzz/README.md): small files made from the test
fixtures plus the hostile cases of the robustness issue (deeply nested header JSON, overlapping
tensors, max_positions too small, special ids past the vocabulary, bad UTF-8, huge lines).
Standard library only. Usage: make_seeds.py FIXTURES_DIR OUT_DIR"""
import json
import os
import struct
import sys

fixtures, out = sys.argv[1], sys.argv[2]


def write(corpus, name, data):
    d = os.path.join(out, corpus)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode('utf-8', 'surrogateescape'))


def read_tfm(path):
    b = open(path, 'rb').read()
    n = struct.unpack('<Q', b[16:24])[0]
    header = json.loads(b[24:24 + n])
    start = (24 + n + 63) // 64 * 64
    return header, b[start:]


def pack(header_text, data):
    h = header_text.encode() if isinstance(header_text, str) else header_text
    pre = b'TFMODEL\0' + struct.pack('<I', 1) + b'\0' * 4 + struct.pack('<Q', len(h))
    body = pre + h
    body += b'\0' * ((-len(body)) % 64)
    return body + data


def variant_has_int8(header):
    return any(t['dtype'] == 'i8' for t in header['tensors'])


def small_model(header, data, keep):
    """The fixture's header and the data of the first `keep` tensors (and the tokenizer), repacked."""
    tensors, blob = [], b''
    small = [t['name'] for t in header['tensors'] if t['nbytes'] <= 4096 and not t['name'].endswith('.scales')]
    names = small[:keep] + [header['tokenizer']['source']]
    if variant_has_int8(header):  # one int8 matrix with its scales, however large
        names.append(next(t['name'] for t in header['tensors'] if t['dtype'] == 'i8'))
    scales = [t.get('scales') for t in header['tensors'] if t['name'] in names and t.get('scales')]
    for t in header['tensors']:
        if t['name'] not in names and t['name'] not in scales:
            continue
        raw = data[t['offset']:t['offset'] + t['nbytes']]
        if t['name'] == header['tokenizer']['source']:
            raw = raw[:256]  # the reader does not parse it; the tokenizer fuzzer has the real one
            t = dict(t, shape=[len(raw)], nbytes=len(raw))
        e = dict(t, offset=len(blob))
        tensors.append(e)
        blob += raw + b'\0' * ((-len(raw)) % 64)
    h = dict(header, tensors=tensors)
    return h, blob


# .tfm reader
for variant in ['marian', 'tutorial', 'marian-int8']:
    header, data = read_tfm(os.path.join(fixtures, variant, 'model.tfm'))
    h, blob = small_model(header, data, 3)
    write('model_file', f'{variant}.tfm', pack(json.dumps(h), blob))
    if variant == 'marian':
        text = json.dumps(h)
        deep = '[' * 100 + ']' * 100
        write('model_file', 'nested-arrays.tfm', pack('{"deep": ' + deep + ', ' + text[1:], blob))
        write('model_file', 'nested-objects.tfm', pack('{"deep": ' + '{"a": ' * 80 + '1' + '}' * 80 + ', ' + text[1:], blob))
        t0, t1 = h['tensors'][0], h['tensors'][1]
        overlap = json.loads(text)
        overlap['tensors'][1]['offset'] = t0['offset']
        overlap['tensors'][1]['nbytes'] = t0['nbytes']
        overlap['tensors'][1]['shape'] = t0['shape']
        overlap['tensors'][1]['dtype'] = t0['dtype']
        write('model_file', 'overlap.tfm', pack(json.dumps(overlap), blob))
        small = json.loads(text)
        small['config']['max_positions'] = 2
        small['config']['source_bos'] = True
        small['config']['bos_id'] = 2
        write('model_file', 'max-positions.tfm', pack(json.dumps(small), blob))
        ids = json.loads(text)
        ids['config']['vocab_size'] = 300
        ids['config']['eos_id'] = 299
        write('model_file', 'special-ids.tfm', pack(json.dumps(ids), blob))
        head = json.loads(text)  # the alignment head the decoder reads from the metadata
        head.setdefault('metadata', {})['alignment_head'] = {'layer': 0, 'head': 1}
        write('model_file', 'alignment-head.tfm', pack(json.dumps(head), blob))
        huge = json.loads(text)
        huge['config'].update(max_positions=65536, d_model=16384)
        write('model_file', 'huge-positions.tfm', pack(json.dumps(huge), blob))
write('model_file', 'empty', b'')
write('model_file', 'not-a-model', b'This is a text file, long enough to hold a preamble.\n')

# tokenizer + sentence splitter: the first byte picks the mode (fuzz_text.cc)
texts = [
    'Ein Mann fährt Fahrrad. Zwei Hunde spielen im Schnee.',
    'Die Katze schläft.\nWarum? "Ja!" sagte er... (am 3. Mai) z.B. Dr. Meier.',
    'Das Wetter ist \u2600\ufe0f heute. Der Preis beträgt 12,50 \u20ac.',
    '\x00\x01\x1b[31mrot\x1b[0m \u200b \ufeff \U0001F600',
    'Hund ' * 300,
    'x' * 2000,
    '',
]
for i, t in enumerate(texts):
    for mode in (0, 1):
        write('text', f'text-{i}-{mode}', bytes([mode]) + t.encode())
write('text', 'table-ok', bytes([3]) + b'<unk>\0a\0b\0')
write('text', 'table-bad', bytes([3]) + b'<unk>\0\0a')
write('text', 'table-dup', bytes([3]) + b'a\0a\0')

# the CLI's input: first byte picks the character limit (fuzz_cli_input.cc)
lines = [
    b'Hallo Welt.\nDie Katze schl\xc3\xa4ft.\r\n\nletzte Zeile ohne Umbruch',
    b'ok\nWelt \xff\nok\n',
    b'\xe2\x82\n\xc0\xaf\n\xed\xa0\x80\n\xf4\x90\x80\x80\n',
    b'abcdefghijklmnopqrstuvwxyz\n' * 3,
    b'\r\r\n\r\n' + b'\xc3\xa4' * 40 + b'\n',
]
for i, data in enumerate(lines):
    for limit in range(5):
        write('cli_input', f'lines-{i}-{limit}', bytes([limit]) + data)

# HTML: the fragments of the HTML table and malformed markup; the first byte picks the mode
# (fuzz_html.cc: bit 0 skips code, bit 1 renders no translation, bit 2 draws an alignment)
cases = json.load(open(os.path.join(fixtures, 'html', 'cases.json'), encoding='utf-8'))
fragments = [c['html'] for c in cases['projection']] + cases['end_to_end'] + [
    '<p>offen <b>fett <i>kursiv',
    '<b><i>x</b></i></p></div> y <',
    '<a href="x" title=\'y\' z=w/>Text<!-- offen',
    '<script>nicht</scr' + 'ipt',
    '<div>' * 70 + 'tief' + '</div>' * 70,
    '<span>' * 60 + 'Wort <img src=a> Wort' + '</span>' * 60,
    '&amp;&#x1F600;&#0;&#xD800;&#99999999;&nbsp;&unknown; &amp',
]
# and the markup that browsers read otherwise than a naive scan (quoted '>' in end tags, the other
# ends of comments, raw text, SVG...)
fragments += [c['html'] for c in json.load(open(os.path.join(fixtures, 'html', 'hostile.json'), encoding='utf-8'))['cases']]
for i, h in enumerate(fragments):
    write('html', f'html-{i}', bytes([i % 8]) + h.encode())
