#!/usr/bin/python3
"""The lexical shortlist built from word links (models/tformer/shortlist.py, `models/tfm shortlist`):
- the ranking: per source word its targets by link count, ties to the lower id, at most --best;
- on a synthetic corpus whose translations are known, the aligner's links put each source word's
  true translation first in its list;
- the written file is Marian's binary format: it reads back through the reader the engine's rules
  follow (checksum, offsets, sizes), and the engine loads a .tfm carrying it and scores fewer words;
- `models/tfm shortlist` end to end on a tiny recipe, and its refusals (bad numbers, a model of
  another vocabulary, --into without --model).
Prints "N passed, N failed"."""
import os
import random
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "models"))
import numpy as np  # noqa: E402
import yaml  # noqa: E402
from tformer import align as A  # noqa: E402
from tformer import shortlist as S  # noqa: E402
from tformer import tfm  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402

TFM = os.path.join(REPO, "models", "tfm")
ENGINE = os.path.join(REPO, "build", "tformer")
results = []


def check(name, ok, detail=""):
    print(f"{'ok ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""), flush=True)
    results.append(bool(ok))


def ranking():
    # source 1: targets 7 (3 links), 4 (3 links), 9 (1); source 3: target 2 (2); source 0, 2: none
    src = np.array([1, 1, 1, 1, 1, 1, 1, 3, 3])
    tgt = np.array([7, 7, 7, 4, 4, 4, 9, 2, 2])
    lists = S.best_targets(*S.link_counts(src, tgt, 10), source_vocab=4, best_num=2)
    check("best_targets: by count, ties to the lower id, at most best_num, empty lists for unlinked words",
          [x.tolist() for x in lists] == [[], [4, 7], [], [2]], [x.tolist() for x in lists])
    blob = S.write(lists, first_num=3, best_num=2)
    read = S.LexicalShortlist(blob, 4, 10, shared_vocab=False)
    check("the written file reads back (magic, checksum, offsets) with its firstNum and bestNum",
          read.first_num == 3 and read.best_num == 2 and read.offsets.tolist() == [0, 0, 2, 2, 3])
    check("... and a sentence scores the first ids, its words' lists, padded to a multiple of 8",
          read.words([1]) == [0, 1, 2, 3, 4, 5, 6, 7], read.words([1]))
    broken = bytearray(blob)
    # The first target id's low bit: still a valid id, so only the checksum can tell. (Not the last
    # id: Marian's checksum covers whole uint64 words, so an odd count leaves the last uint32 out.)
    broken[48 + 8 * 5] ^= 1
    try:
        S.LexicalShortlist(bytes(broken), 4, 10, shared_vocab=False)
        check("a flipped byte is refused by the checksum", False)
    except ValueError as e:
        check("a flipped byte is refused by the checksum", "checksum" in str(e), e)


def synthetic_translations():
    """Source word w translates to w + 1000 (with local reordering and an untranslated filler)."""
    rng = random.Random(5)
    src, tgt = [], []
    for _ in range(1500):
        s = [rng.randrange(100, 300) for _ in range(rng.randint(3, 12))]
        t = [w + 1000 for w in s]
        for k in range(len(t) - 1):
            if rng.random() < 0.2:
                t[k], t[k + 1] = t[k + 1], t[k]
        if rng.random() < 0.3:
            t.insert(rng.randrange(len(t) + 1), 5)
        src.append(s)
        tgt.append(t)
    flat = []
    for seqs in (src, tgt):
        flat += [np.array([w for x in seqs for w in x], dtype=np.int64),
                 np.concatenate([[0], np.cumsum([len(x) for x in seqs])]).astype(np.int64)]
    links = A.align(*flat)
    pair = np.repeat(np.arange(len(links)), links.counts())
    s_ids = flat[0][flat[1][pair] + links.source]
    t_ids = flat[2][flat[3][pair] + links.target]
    lists = S.best_targets(*S.link_counts(s_ids, t_ids, 1400), source_vocab=400, best_num=5)
    seen = [w for w in range(100, 300) if len(lists[w])]
    right = sum(1 for w in seen if lists[w][0] == w + 1000)
    check("on a corpus of known translations, each source word's list starts with its translation",
          len(seen) == 200 and right >= 196, f"{right} of {len(seen)}")


def end_to_end(tmp):
    """A recipe of 400 German-English pairs in the vocabulary of the marian fixture."""
    fixture = os.path.join(REPO, "tests", "fixtures", "marian", "model.tfm")
    spm = Tokenizer.from_tfm(tfm.read(fixture), "source").model_bytes
    with open(f"{tmp}/vocab.spm", "wb") as f:
        f.write(spm)
    words = {"Hund": "dog", "Katze": "cat", "Haus": "house", "rot": "red", "groß": "big", "Baum": "tree",
             "Wasser": "water", "Frau": "woman", "Mann": "man", "Kind": "child"}
    rng = random.Random(3)
    for name, n in (("train", 400), ("dev", 20)):
        with open(f"{tmp}/{name}.de", "w") as fd, open(f"{tmp}/{name}.en", "w") as fe:
            for _ in range(n):
                chosen = rng.sample(list(words), rng.randint(2, 6))
                fd.write(" ".join(chosen) + "\n")
                fe.write(" ".join(words[w] for w in chosen) + "\n")
    recipe = {"name": "lex-test", "source_lang": "de", "target_lang": "en",
              "vocab": {"model": f"{tmp}/vocab.spm", "size": len(Tokenizer(spm)), "languages": ["de", "en"],
                        "train": [f"{tmp}/train"]},
              "data": {"train": [f"{tmp}/train"], "dev": f"{tmp}/dev", "max_length": 50, "token_cache": f"{tmp}/tokens"},
              "model": {"convention": "marian", "d_model": 32, "heads": 4, "ffn_dim": 64, "encoder_layers": 1,
                        "decoder_layers": 1, "max_positions": 64},
              "train": {"batch_tokens": 256, "lr": 1e-3, "warmup": 10, "eval_every": 10, "max_steps": 10},
              "work_dir": f"{tmp}/work"}
    path = f"{tmp}/lex-test.yaml"
    with open(path, "w") as f:
        yaml.safe_dump(recipe, f)

    def tool(*args):
        return subprocess.run(["/usr/bin/python3", TFM, "shortlist", path, *args], capture_output=True, text=True)
    into = f"{tmp}/with-lex.tfm"
    r = tool("--best", "4", "--first", "16", "-o", f"{tmp}/lex.s2t.bin", "--model", fixture, "--into", into)
    check("models/tfm shortlist writes lex.s2t.bin and a .tfm carrying it", r.returncode == 0 and os.path.exists(into),
          r.stderr[-400:])
    if r.returncode != 0:
        return
    blob = open(f"{tmp}/lex.s2t.bin", "rb").read()
    f = tfm.read(into)
    check("... the .tfm's shortlist tensor is the file, and its metadata says how it was made",
          f.tensors["shortlist"].tobytes() == blob and f.metadata["shortlist"]["best"] == 4
          and f.metadata["shortlist"]["first"] == 16, f.metadata.get("shortlist"))
    tok = Tokenizer(spm)
    lex = S.LexicalShortlist(blob, len(tok), len(tok), True)
    hund, dog = tok.encode("Hund"), tok.encode("dog")
    check("... and the pieces of 'Hund' list those of 'dog'",
          all(d in set(lex.words(hund)) for d in dog), (hund, dog))
    if os.path.exists(ENGINE):
        info = subprocess.run([ENGINE, "info", into], capture_output=True, text=True)
        check("the engine loads the .tfm with its shortlist", info.returncode == 0 and "shortlist" in info.stdout,
              info.stderr[-300:])
    for args, words in ((["--best", "0", "-o", f"{tmp}/x"], "--best"),
                        (["--into", f"{tmp}/y.tfm"], "--model"),
                        (["-o", f"{tmp}/x", "--model", os.path.join(REPO, "models", "tiny.deen", "model.tfm")],
                         "vocabularies")):
        r = tool(*args)
        check(f"refused with a clear error: {' '.join(args[:2])}", r.returncode != 0 and words in r.stderr,
              r.stderr[-300:])


def main():
    ranking()
    synthetic_translations()
    with tempfile.TemporaryDirectory() as tmp:
        end_to_end(tmp)
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
