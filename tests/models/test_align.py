#!/usr/bin/python3
"""The word aligner (models/tformer/align.py) and guided-alignment training, on CPU (seconds):
- on a synthetic corpus whose right links are known (a one-to-one word translation with local
  reordering and target words that translate nothing), both directions and the symmetrized links;
- grow-diag-final-and on small grids whose result follows from its definition;
- a recipe's links are cached beside its token files and computed from staged ids alone;
- the gold alignment of a batch (BatchAssembler.alignment) against one built pair by pair;
- the training loss with guided alignment: the explicitly computed head equals the reference
  attention's head, the added loss is the cross-entropy against the gold rows, and it trains the head;
- bad recipe keys and bad `models/tfm align` input give clear errors;
- the PyTorch reference's alignment is the metadata's alignment_head (bad values refused), and
  import-marian names the head of a Marian model trained with guided alignment.
Prints "N passed, N failed"."""
import os
import random
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "models"))
import tformer  # noqa: E402,F401
import numpy as np  # noqa: E402
import torch  # noqa: E402
from tformer import align as A  # noqa: E402
from tformer import tfm  # noqa: E402
from tformer.config import marian_convention  # noqa: E402
from tformer.data import BatchAssembler, load_corpus, write_staged_ids  # noqa: E402
from tformer.model import Transformer  # noqa: E402
from tformer.tokenizer import Tokenizer  # noqa: E402
from tformer.train import TrainingLoss, guided_alignment, target_positions  # noqa: E402

TFM = os.path.join(REPO, "models", "tfm")
results = []


def check(name, ok, detail=""):
    print(f"{'ok ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""), flush=True)
    results.append(bool(ok))


def synthetic(n, seed):
    """Pairs of id lists with their true links: target word = source word + 1000, adjacent words
    swapped with probability 0.2, and a word 5 (translating nothing) after 10% of the words."""
    rng = random.Random(seed)
    src, tgt, gold = [], [], []
    for _ in range(n):
        m = rng.randint(3, 15)
        s = [rng.randrange(100, 400) for _ in range(m)]
        order = list(range(m))
        for k in range(m - 1):
            if rng.random() < 0.2:
                order[k], order[k + 1] = order[k + 1], order[k]
        t, g = [], set()
        for i in order:
            g.add((i, len(t)))
            t.append(s[i] + 1000)
            if rng.random() < 0.1:
                t.append(5)
        src.append(s)
        tgt.append(t)
        gold.append(g)
    return src, tgt, gold


def flat(seqs):
    return (np.array([i for s in seqs for i in s], dtype=np.int64),
            np.concatenate([[0], np.cumsum([len(s) for s in seqs])]).astype(np.int64))


def precision_recall(found, gold):
    tp = sum(len(f & g) for f, g in zip(found, gold))
    return tp / max(sum(map(len, found)), 1), tp / max(sum(map(len, gold)), 1)


def aligner():
    src, tgt, gold = synthetic(3000, 1)
    (s, so), (t, to) = flat(src), flat(tgt)
    fwd = A.directional(s, so, t, to)
    found = []
    for k in range(len(src)):
        f = fwd[to[k]:to[k + 1]]
        found.append({(int(i), j) for j, i in enumerate(f) if i >= 0})
    p, r = precision_recall(found, gold)
    check("one direction (each target token from one source token or none): precision and recall above 0.97",
          p > 0.97 and r > 0.97, (p, r))
    nulls = [fwd[to[k]:to[k + 1]][[j for j, x in enumerate(tgt[k]) if x == 5]] for k in range(len(src))]
    nulls = np.concatenate(nulls)
    check("... words that translate nothing go to the null word (90% or more)", (nulls < 0).mean() >= 0.9,
          (nulls < 0).mean())
    links = A.align(s, so, t, to)
    found = [set(links.pair(k)) for k in range(len(src))]
    p, r = precision_recall(found, gold)
    check("both directions, grow-diag-final-and: precision and recall above 0.98", p > 0.98 and r > 0.98, (p, r))
    check("links come sorted per pair, as int16 positions", links.source.dtype == np.int16
          and links.pair(0) == sorted(links.pair(0)) and len(links) == len(src))
    small = A.align(s, so, t, to, cells=1 << 12)
    check("the batch size does not change the links", np.array_equal(small.offsets, links.offsets)
          and np.array_equal(small.source, links.source) and np.array_equal(small.target, links.target))
    try:
        A.align(s, so[:-1], t, to)
        check("different sentence counts are refused", False)
    except ValueError as e:
        check("different sentence counts are refused", "sentences" in str(e), e)


def grid(n, m, points):
    g = torch.zeros(1, n, m, dtype=torch.bool)
    for j, i in points:
        g[0, j, i] = True
    return g


def points(g):
    return sorted(tuple(x) for x in g[0].nonzero().tolist())


def symmetrization():
    # (row = target j, column = source i)
    fwd = grid(3, 3, [(0, 0), (1, 1), (2, 1)])
    rev = grid(3, 3, [(0, 0), (1, 1), (2, 2)])
    # intersection {(0,0),(1,1)}; union adds (2,1) and (2,2), both next to (1,1) with row 2 free:
    # grow-diag takes the first in row-major order, (2,1); then row 2 is aligned and column 2 free,
    # so (2,2) joins too.
    got = points(A.grow_diag_final_and(fwd, rev))
    check("grow-diag adds union points next to aligned ones while a row or column is free",
          got == [(0, 0), (1, 1), (2, 1), (2, 2)], got)
    fwd = grid(4, 4, [(0, 0), (3, 3)])
    rev = grid(4, 4, [(0, 0), (2, 3)])
    # (3,3) and (2,3) are not neighbours of (0,0): no growth; final-and adds forward's (3,3) (row 3
    # and column 3 free), after which reverse's (2,3) has its column taken.
    got = points(A.grow_diag_final_and(fwd, rev))
    check("final-and adds a direction's point only where its row and column are both unaligned",
          got == [(0, 0), (3, 3)], got)
    fwd = grid(3, 3, [(0, 0), (1, 2), (2, 2)])
    rev = grid(3, 3, [(0, 0)])
    got = points(A.grow_diag_final_and(fwd, rev))
    check("final-and: of two forward points in one free column, the first row's",
          got == [(0, 0), (1, 2)], got)


def parallel_text(folder, name, n, seed):
    """German/English lines with a word-for-word translation (the subword links follow)."""
    rng = random.Random(seed)
    words = {"hund": "dog", "katze": "cat", "mann": "man", "frau": "woman", "kind": "child", "haus": "house",
             "rot": "red", "blau": "blue", "groß": "big", "läuft": "runs", "spielt": "plays", "sitzt": "sits",
             "wiese": "meadow", "straße": "street", "baum": "tree", "wasser": "water"}
    de = list(words)
    with open(f"{folder}/{name}.de", "w") as fd, open(f"{folder}/{name}.en", "w") as fe:
        for _ in range(n):
            s = rng.sample(de, rng.randint(2, 10))  # no repeated word: one right link per word
            fd.write(" ".join(s) + "\n")
            fe.write(" ".join(words[w] for w in s) + "\n")
    return f"{folder}/{name}"


def recipe_links(tmp, tok, cfg):
    data = f"{tmp}/text"
    os.makedirs(data)
    prefix = parallel_text(data, "train", 400, 5)
    corpus = load_corpus(cfg, tok, [prefix], "de", "en", 40, cache_dir=f"{tmp}/cache")
    links = A.corpus_links(corpus, cfg, f"{tmp}/cache")
    cached = [f for f in os.listdir(f"{tmp}/cache") if f.startswith("align.")]
    check("a corpus's links are cached beside its token files", len(cached) == 1 and links.offsets[-1] > 0, cached)
    saved = A.align
    A.align = lambda *a, **k: (_ for _ in ()).throw(AssertionError("aligned again"))
    try:
        again = A.corpus_links(corpus, cfg, f"{tmp}/cache")
        check("... and read from there the next time", np.array_equal(again.source, links.source))
    except AssertionError as e:
        check("... and read from there the next time", False, e)
    finally:
        A.align = saved
    # Word-for-word text: a source word's pieces link to its translation's pieces, so the words
    # of every link are a dictionary pair.
    src_words = [line.split() for line in open(f"{prefix}.de", encoding="utf-8").read().splitlines()]
    tgt_words = [line.split() for line in open(f"{prefix}.en", encoding="utf-8").read().splitlines()]
    per_line = A.align_text([" ".join(w) for w in src_words], [" ".join(w) for w in tgt_words], tok, tok)
    found = [set(p) for p in per_line]
    gold = [{(k, k) for k in range(len(w))} for w in src_words]
    p, r = precision_recall(found, gold)
    # (The fixture's 256-piece vocabulary splits words into letters shared between words, "au",
    # "s", "e": some pieces link into a neighbouring word. Measured: precision 0.89, recall 0.998.)
    check("text of a word-for-word translation: word links with precision above 0.85, recall above 0.95",
          p > 0.85 and r > 0.95, (p, r))
    # Words as the gold set counts them (models/tfm aer): punctuation is a word of its own.
    extra = ([" ".join(w) for w in src_words], [" ".join(w) for w in tgt_words])
    got = A.align_text(["hund, katze"] * 30, ["dog, cat"] * 30, tok, tok, extra=extra)
    check("word links count punctuation as a word (models/tfm aer's words); extra data only adds statistics",
          len(got) == 30 and all(max(i for i, _ in p) <= 2 and max(j for _, j in p) <= 2 for p in got)
          and (0, 0) in got[0] and (2, 2) in got[0], got[0])
    # The GPU machine: only staged ids beside the text's path.
    staged = f"{tmp}/staged"
    os.makedirs(staged)
    for lang in ("de", "en"):
        write_staged_ids(f"{prefix}.{lang}", tok, f"{staged}/train.{lang}")
    corpus2 = load_corpus(cfg, tok, [f"{staged}/train"], "de", "en", 40, cache_dir=f"{tmp}/cache2")
    links2 = A.corpus_links(corpus2, cfg, f"{tmp}/cache2")
    check("links computed from staged ids alone equal those from the text",
          not os.path.exists(f"{staged}/train.de") and np.array_equal(links2.offsets, links.offsets)
          and np.array_equal(links2.source, links.source) and np.array_equal(links2.target, links.target))
    return corpus, links


def gold_batches(corpus, links, cfg):
    asm = BatchAssembler(corpus, "cpu", cfg.pad_id)
    asm.attach_links(links, 1)  # as a config with a source BOS would shift them
    idx = torch.tensor([3, 0, 7])
    L = 48
    got = asm.alignment(idx, L)
    want = torch.zeros(3, L, L)
    for b, k in enumerate(idx.tolist()):
        for i, j in links.pair(k):
            want[b, j, i + 1] += 1
    want = want / want.sum(-1, keepdim=True).clamp_min(1)
    rows = got.sum(-1)
    check("a batch's gold alignment: each linked target row sums to 1, the others 0, sources shifted",
          torch.allclose(got, want) and bool(((rows - 1).abs() < 1e-6)[rows > 0].all()), (got - want).abs().max())


def training_loss(corpus, links, cfg):
    torch.manual_seed(2)
    ga = guided_alignment({"guided_alignment": {"weight": 0.5, "layer": -1, "head": 2}}, cfg)
    check("guided_alignment resolves layer -1 to the last decoder layer",
          ga == {"weight": 0.5, "layer": cfg.decoder_layers - 1, "head": 2}, ga)
    model = Transformer(cfg, dropout=0.0).use_training_attention()
    ref = Transformer(cfg, dropout=0.0)
    ref.load_state_dict(model.state_dict())
    asm = BatchAssembler(corpus, "cpu", cfg.pad_id)
    asm.attach_links(links, int(cfg.source_bos))
    idx = torch.arange(6)
    L = int(corpus.bucket_lengths()[:6].max())
    S, s_len, T, t_len = asm.batch(idx, L)
    count = int(t_len.sum())
    sel = target_positions(t_len, L, count)
    gold = asm.alignment(idx, L)
    plain = TrainingLoss(Transformer(cfg, dropout=0.0).use_training_attention(), 0.1)
    plain.model.load_state_dict(model.state_dict())
    base, _ = plain(S, s_len, T, sel)
    fn = TrainingLoss(model, 0.1, alignment=ga)
    loss, _ = fn(S, s_len, T, sel, links=gold)
    memory, mask = ref.encode(S, s_len)
    _, w = ref.decode_states(ref.decoder_input(T), memory, mask)
    head = w[:, ga["head"]]
    ce = -(gold * torch.log(head + 1e-6)).sum()
    check("the explicit head of the training path equals the reference attention's head",
          torch.allclose(fn.states(S, s_len, T)[1][:, 0], head, atol=1e-6))
    check("loss = label loss + weight x cross-entropy of the head against the gold rows",
          abs(float(loss) - float(base) - 0.5 * float(ce)) < 1e-3 * float(loss), (float(loss), float(base), float(ce)))
    check("without gold (dev evaluation) nothing is added", abs(float(fn(S, s_len, T, sel)[0]) - float(base)) < 1e-4)
    # Training only the alignment loss lowers it: the gradient reaches the head.
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    first = None
    for _ in range(30):
        opt.zero_grad()
        loss, _ = fn(S, s_len, T, sel, links=gold)
        loss.backward()
        opt.step()
        first = float(fn.alignment_sum) if first is None else first
    check("training with the alignment loss lowers it", float(fn.alignment_sum) < 0.7 * first,
          (first, float(fn.alignment_sum)))
    for bad, word in (({"layer": 5}, "layer"), ({"layer": -3}, "layer"), ({"head": cfg.heads}, "head"),
                      ({"head": "0"}, "head"), ({"weight": 0}, "weight"), ({"cost": "mse"}, "expected")):
        try:
            guided_alignment({"guided_alignment": {"weight": 0.1, "layer": -1, "head": 0, **bad}}, cfg)
            check(f"train.guided_alignment {bad} is refused", False)
        except ValueError as e:
            check(f"train.guided_alignment {bad} is refused, naming {word}", word in str(e), e)
    check("no guided_alignment key: none", guided_alignment({}, cfg) is None)


def cli(tmp, spm_path):
    data = f"{tmp}/cli"
    os.makedirs(data)
    prefix = parallel_text(data, "t", 50, 9)
    p = subprocess.run([TFM, "align", "--source", f"{prefix}.de", "--target", f"{prefix}.en", "--vocab", spm_path,
                        "--device", "cpu"], capture_output=True, text=True, cwd=REPO)
    lines = p.stdout.splitlines()
    ok = p.returncode == 0 and len(lines) == 50 and all(
        all(x.count("-") == 1 for x in line.split()) for line in lines)
    check("models/tfm align --source --target --vocab prints one line of i-j links per pair", ok,
          (p.returncode, p.stderr[-300:]))
    with open(f"{data}/short.en", "w") as f:
        f.write("dog\n")
    p = subprocess.run([TFM, "align", "--source", f"{prefix}.de", "--target", f"{data}/short.en", "--vocab",
                        spm_path], capture_output=True, text=True, cwd=REPO)
    check("... different line counts: a clear error", p.returncode != 0 and "50 source lines but 1 target" in p.stderr
          and "Traceback" not in p.stderr, p.stderr[-300:])
    p = subprocess.run([TFM, "align", "--source", f"{prefix}.de"], capture_output=True, text=True, cwd=REPO)
    check("... missing arguments: a clear error", p.returncode != 0 and "give a recipe" in p.stderr, p.stderr[-300:])


def reference_head(tmp):
    """The PyTorch reference reads alignment_head from the metadata (export.load_tfm_model) and its
    greedy alignment is that head's weights; bad values are refused as the engine refuses them."""
    from tformer.decode import greedy, max_target_length, source_ids
    from tformer.export import load_tfm_model
    src_path = os.path.join(REPO, "tests/fixtures/marian/model.tfm")
    f = tfm.read(src_path)

    def with_head(head, name):
        f.metadata = {**f.metadata, "alignment_head": head}
        tfm.write(f"{tmp}/{name}.tfm", f)
        return f"{tmp}/{name}.tfm"
    model, tok, _, _ = load_tfm_model(with_head({"layer": 0, "head": 3}, "head"))
    check("load_tfm_model takes alignment_head from the metadata", model.alignment_head == (0, 3), model.alignment_head)
    src = source_ids(model.cfg, tok.encode("Zwei Hunde spielen im Schnee."))
    g = greedy(model, [src], [max_target_length(model.cfg, len(src), 2.0)], keep_alignment=True)[0]
    with torch.no_grad():
        memory, mask = model.encode(torch.tensor([src]), torch.tensor([len(src)]))
        _, w = model.decode_states(model.decoder_input(torch.tensor([g.tokens])), memory, mask, weights_layer=0)
    check("greedy's alignment is layer 0 head 3's cross-attention (recomputed over the whole prefix)",
          torch.allclose(torch.stack(g.alignment), w[0, 3], atol=1e-5))
    plain, _, _, _ = load_tfm_model(src_path)
    g2 = greedy(plain, [src], [max_target_length(plain.cfg, len(src), 2.0)], keep_alignment=True)[0]
    check("without the key: the mean over the last layer's heads",
          plain.alignment_head is None and g2.tokens == g.tokens and not torch.allclose(
              torch.stack(g2.alignment), torch.stack(g.alignment), atol=1e-3))
    for head, word in (({"layer": 2, "head": 0}, "layer 2 is not a decoder layer"),
                       ({"layer": 0, "head": 4}, "head 4 is not a head"),
                       ({"layer": 0, "head": True}, "must be integers"),
                       ({"layer": 0}, "must be {"), ([0, 1], "must be {")):
        try:
            load_tfm_model(with_head(head, "bad"))
            check(f"metadata alignment_head {head} is refused", False)
        except ValueError as e:
            check(f"metadata alignment_head {head} is refused: {word}", word in str(e), e)


def marian_import(tmp):
    """import-marian sets alignment_head for a model trained with guided alignment."""
    from tformer import marian, marian_io as mio
    from tformer.config import ModelConfig
    folder = f"{tmp}/marian"
    marian.export_marian(os.path.join(REPO, "tests/fixtures/marian/model.tfm"), folder)
    cfg = ModelConfig.from_dict(tfm.read(os.path.join(REPO, "tests/fixtures/marian/model.tfm")).config)
    vocabs = len(Tokenizer.from_tfm(tfm.read(os.path.join(REPO, "tests/fixtures/marian/model.tfm")), "source"))
    base = marian.options_from_config(cfg, (vocabs, vocabs))
    cases = [({}, None), ({"guided-alignment": "none"}, None),
             ({"guided-alignment": "corpus.align"}, {"layer": 1, "head": 0}),
             ({"guided-alignment": "corpus.align", "transformer-guided-alignment-layer": "last"}, {"layer": 1, "head": 0}),
             ({"guided-alignment": "corpus.align", "transformer-guided-alignment-layer": 1}, {"layer": 0, "head": 0})]
    for extra, want in cases:
        with open(f"{tmp}/train.yml", "w") as fh:
            fh.write(mio.dump_options({**base, **extra}))
        marian.import_marian(folder, f"{tmp}/imported.tfm", config=f"{tmp}/train.yml")
        got = tfm.read(f"{tmp}/imported.tfm").metadata.get("alignment_head")
        check(f"import-marian with {extra or 'no guided alignment'}: alignment_head {want}", got == want, got)
    with open(f"{tmp}/train.yml", "w") as fh:
        fh.write(mio.dump_options({**base, "guided-alignment": "a", "transformer-guided-alignment-layer": 3}))
    try:
        marian.import_marian(folder, f"{tmp}/imported.tfm", config=f"{tmp}/train.yml")
        check("import-marian refuses a guided-alignment layer the decoder lacks", False)
    except marian.MarianError as e:
        check("import-marian refuses a guided-alignment layer the decoder lacks", "layer '3'" in str(e), e)


def main():
    aligner()
    symmetrization()
    spm = Tokenizer.from_tfm(tfm.read(os.path.join(REPO, "tests/fixtures/marian/model.tfm")), "source").model_bytes
    tok = Tokenizer(spm)
    cfg = marian_convention(vocab_size=len(tok), d_model=32, heads=4, ffn_dim=64, encoder_layers=1,
                            decoder_layers=2, max_positions=128)
    with tempfile.TemporaryDirectory() as tmp:
        corpus, links = recipe_links(tmp, tok, cfg)
        gold_batches(corpus, links, cfg)
        training_loss(corpus, links, cfg)
        with open(f"{tmp}/vocab.spm", "wb") as f:
            f.write(spm)
        cli(tmp, f"{tmp}/vocab.spm")
        reference_head(tmp)
        marian_import(tmp)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
