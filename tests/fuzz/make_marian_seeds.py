#!/usr/bin/python3
"""Seeds of fuzz_marian (tests/fuzz/fuzz_marian.cc): the fixture model (tests/fixtures/marian)
written as Marian files by models/tfm export-marian, each prefixed with the byte that tells the
harness what it is: 0 model .bin, 1 model .npz, 2 .gz of the .bin, 3 special:model.yml options,
4 decoder.yml / vocabulary YAML, 5 a lexical shortlist. Needs the model tools (numpy):
/usr/bin/python3. Usage: make_marian_seeds.py FIXTURES_DIR OUT_DIR"""
import gzip
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models"))
from tformer import marian_io, shortlist  # noqa: E402
from tformer.marian import export_marian  # noqa: E402

fixtures, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)


def write(name, selector, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes([selector]) + (data.encode() if isinstance(data, str) else data))


with tempfile.TemporaryDirectory() as work:
    export_marian(os.path.join(fixtures, "marian", "model.tfm"), work, formats=("npz", "bin"))
    with open(os.path.join(work, "model.bin"), "rb") as f:
        model_bin = f.read()
    with open(os.path.join(work, "model.npz"), "rb") as f:
        model_npz = f.read()
    options = marian_io.item_text(marian_io.read_bin(os.path.join(work, "model.bin"))[marian_io.MODEL_YML])
write("model.bin", 0, model_bin)
write("model.npz", 1, model_npz)
write("model.bin.gz", 2, gzip.compress(model_bin))
write("options.yml", 3, options)
write("options-pre.yml", 3, options.replace('transformer-preprocess: ""', 'transformer-preprocess: "n"'))
write("options-bad.yml", 3, "type: transformer\ndim-emb: [32\n")
write("decoder.yml", 4, "models:\n  - model.deen.bin\nvocabs:\n  - vocab.deen.spm\n  - vocab.deen.spm\n"
      "beam-size: 1\nrelative-paths: true\n")
write("vocab.yml", 4, '"</s>": 0\n"<unk>": 1\n"\\u2581a": 2\n"yes": 3\n')
write("lex.s2t.bin", 5, shortlist.write([[(3 * i) % 256, (3 * i + 1) % 256] for i in range(256)], 100, 50))
print(f"fuzz_marian seeds in {out}")
