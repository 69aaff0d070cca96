#!/usr/bin/python3
"""`tformer models` and `tformer translate --from --to` against a local catalogue in Firefox's format
(tests/catalog/make_catalog.py, served by tests/catalog/server.py).

- A catalogue pair translates token for token as the same Marian folder loaded with -m (text and
  score); a pivot pair as the two folders run one after the other (one sentence per line), also
  with --html.
- Release sees version 1.0 although Nightly's 1.1a1 is newer (and --channel nightly takes 1.1a1);
  the qualityModel record is never fetched.
- A wrong hash, a 404, a download cut short, two zstd bombs and a wrong decompressedHash each give
  exit status 1 and a message naming what differs, leave nothing of the file in the cache, and the
  next attempt downloads again.
- A cached pair works with the server gone, and while it is up reads only the records again: a
  record that changed (another hash, a newer release version) replaces the cached files, the old
  version leaves the cache. Without a cache the error says so. A cached file that was damaged is downloaded again. A malformed or hostile
  catalogue is refused with a message.
- Hostile records (hostile.py: architecture, version, name or a language holding '..', '/', '\\', an
  absolute path, NUL or percent-encoded dots) are refused with an error naming the field, with
  --cache and with the default cache under a throwaway HOME, and nothing outside the cache folder
  is created, changed or deleted. A cache folder replaced by a link out of the cache is refused
  too, and only version folders the cache made (with its mark) are removed.

Usage: tests/catalog/test_cli.py [--keep DIR]    (ends with "N passed, N failed")
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # tests/: checks.py
import hostile  # noqa: E402
import make_catalog  # noqa: E402
from checks import check, closing  # noqa: E402
from server import RECORDS, CatalogServer  # noqa: E402

TFORMER = os.environ.get("TFORMER", os.path.join(ROOT, "build", "tformer"))
LINES = ["Bonjour tout le monde.", "Un chien joue dans le parc.", "Pourquoi?", "Deux femmes lisent un livre."]


def run(*args, stdin="\n".join(LINES) + "\n"):
    return subprocess.run([TFORMER, *args], input=stdin, capture_output=True, text=True, timeout=300)


def ok(r):
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr}"
    return r.stdout


class Env:
    def __init__(self, work, index):
        self.work = work
        self.index = index
        self.server = CatalogServer(index["catalog"]).start()
        self.caches = 0

    def cache(self):
        self.caches += 1
        return os.path.join(self.work, f"cache{self.caches}")

    def args(self, cache, server=None):
        return ["--catalog", server or self.server.url, "--cache", cache]

    def files_in(self, cache, pair):
        out = []
        for root, _, files in os.walk(cache):
            if f"/{pair}/" in root + "/":
                out += files
        return out

    def requested(self, part):
        return sum(part in p for p in self.server.requests)


def tests(env: Env):
    folders = env.index["folders"]
    shared = env.cache()

    def models_list():
        out = ok(run("models", *env.args(shared)))
        rows = {tuple(l.split()[:3]) for l in out.splitlines()[1:-1]}
        assert ("fr", "en", "direct") in rows and ("en", "de", "direct") in rows, out
        assert ("fr", "de", "via") in rows, out
        assert "tiny+base" in out and "fr     de" in out and "no" in out.splitlines()[2], out
        assert env.requested("qualityModel") == 0
        assert env.requested("/attachments/") == 0, "models must download no model file"
    check("models: pairs, direct and through English, with architecture and size; nothing downloaded", models_list)

    def direct():
        for extra in ([], ["--scores"], ["--beam", "3", "--nbest", "2"], ["--no-shortlist", "--scores"]):
            expected = ok(run("translate", "-m", folders["fren"], *extra))
            got = run("translate", "--from", "fr", "--to", "en", *env.args(shared), *extra)
            assert ok(got) == expected, (extra, got.stdout, expected)
        assert "downloading fr->en" in run("translate", "--from", "fr", "--to", "en", *env.args(env.cache())).stderr
        # The nightly version (other weights) is not what release gets.
        assert ok(run("translate", "-m", folders["fren-nightly"])) != ok(run("translate", "-m", folders["fren"]))
        assert sorted(os.listdir(os.path.join(shared, os.listdir(shared)[0], "fr-en"))) == ["1.0-tiny"]
    check("direct pair: token-identical to the same Marian folder (text, scores, n-best, shortlist off); "
          "release takes 1.0, not Nightly's newer 1.1a1", direct)

    def nightly():
        c = env.cache()
        got = ok(run("translate", "--from", "fr", "--to", "en", "--channel", "nightly", "--scores", *env.args(c)))
        assert got == ok(run("translate", "-m", folders["fren-nightly"], "--scores"))
        assert os.path.isdir(os.path.join(c, os.listdir(c)[0], "fr-en", "1.1a1-tiny"))
    check("--channel nightly takes the Nightly-only 1.1a1", nightly)

    def quality_model():
        assert env.requested("qualityModel") == 0
        records = json.load(open(os.path.join(env.index["catalog"], "records.json")))["data"]
        loc = [r["attachment"]["location"] for r in records if r["fileType"] == "qualityModel"][0]
        assert env.requested(loc) == 0
        assert not any("qualityModel" in f for f in env.files_in(shared, "fr-en"))
    check("the qualityModel record is never downloaded", quality_model)

    def pivot():
        c = env.cache()
        one = ok(run("translate", "-m", folders["fren"], "--no-split"))
        for extra in ([], ["--scores"]):
            expected = ok(run("translate", "-m", folders["ende"], "--no-split", *extra, stdin=one))
            got = run("translate", "--from", "fr", "--to", "de", *env.args(c), *extra)
            assert ok(got) == expected, (got.stdout, expected)
        assert "downloading fr->en, en->de" in run("translate", "--from", "fr", "--to", "de", *env.args(env.cache())).stderr
    check("pivot pair fr->de: token-identical to fr->en then en->de, one sentence per line", pivot)

    def pivot_html():
        html = "<p>Bonjour <b>tout</b> le monde.</p>\n<i>Un chien</i> joue <a href=\"x\">ici</a>.\n"
        one = ok(run("translate", "-m", folders["fren"], "--html", stdin=html))
        expected = ok(run("translate", "-m", folders["ende"], "--html", stdin=one))
        got = ok(run("translate", "--from", "fr", "--to", "de", "--html", *env.args(shared), stdin=html))
        assert got == expected, (got, expected)
        assert got.splitlines()[0].startswith("<p>") and "<b>" in got and 'href="x"' in got, got
    check("pivot pair with --html: the markup goes through both steps", pivot_html)

    def failures():
        expect = {"xa": "does not match its sha256", "xb": "HTTP status 404", "xc": "transfer closed",
                  "xd": "decompresses to more than the", "xe": "more than the", "xf": "does not match its decompressedHash"}
        for lang, message in expect.items():
            c = env.cache()
            model_loc = [r["attachment"]["location"] for r in
                         json.load(open(os.path.join(env.index["catalog"], "records.json")))["data"]
                         if r["sourceLanguage"] == lang and r["fileType"] == "model"][0]
            before = env.requested(model_loc)
            r = run("translate", "--from", lang, "--to", "en", *env.args(c))
            assert r.returncode == 1 and message in r.stderr and r.stdout == "", (lang, r.returncode, r.stderr)
            assert "tformer: error:" in r.stderr and "Traceback" not in r.stderr
            left = env.files_in(c, f"{lang}-en")
            assert not any(f.startswith("model.") for f in left), (lang, left)
            assert not any(".part-" in f for f in left), (lang, left)
            r = run("translate", "--from", lang, "--to", "en", *env.args(c))
            assert r.returncode == 1 and message in r.stderr
            assert env.requested(model_loc) == before + 2, f"{lang}: the next attempt must download again"
    check("wrong hash, 404, truncated download, zstd bombs, wrong decompressedHash: clear errors, nothing broken "
          "cached, the next attempt downloads again", failures)

    def offline():
        c = env.cache()
        online = ok(run("translate", "--from", "fr", "--to", "de", *env.args(c)))
        n = len(env.server.requests)
        assert ok(run("translate", "--from", "fr", "--to", "de", *env.args(c))) == online
        again = env.server.requests[n:]
        assert sorted(again) == ["/v1/", RECORDS], f"a cached pair reads the records again, and nothing else: {again}"
        # The server gone: the cached pair still translates; `models` lists the cached catalogue.
        gone = CatalogServer(env.index["catalog"]).start()
        url = gone.url
        c2 = env.cache()
        ok(run("translate", "--from", "fr", "--to", "en", *env.args(c2, url)))
        gone.stop()
        r = run("translate", "--from", "fr", "--to", "en", *env.args(c2, url))
        assert ok(r) == ok(run("translate", "-m", folders["fren"])), r.stderr
        r = run("models", *env.args(c2, url))
        assert r.returncode == 0 and "using the catalogue as cached" in r.stderr and "yes" in r.stdout, r
        # Not cached: a pair of the cached catalogue whose files are not there, and no cache at all.
        r = run("translate", "--from", "en", "--to", "de", *env.args(c2, url))
        assert r.returncode == 1 and "cannot download" in r.stderr, r.stderr
        r = run("translate", "--from", "fr", "--to", "en", *env.args(env.cache(), url))
        assert r.returncode == 1 and "no copy of this catalogue is cached" in r.stderr, r.stderr
    check("offline: a cached pair reads only the records and works with the server gone; without a cache a clear error",
          offline)

    def records_change():
        # A copy of the catalogue whose records change between two uses of the same cache.
        d = os.path.join(env.work, "changing")
        shutil.copytree(env.index["catalog"], d)
        s = CatalogServer(d).start()
        c = env.cache()
        release = ok(run("translate", "--from", "fr", "--to", "en", *env.args(c, s.url)))
        assert release == ok(run("translate", "-m", folders["fren"]))
        path = os.path.join(d, "records.json")
        doc = json.load(open(path))
        old = {r["fileType"]: r for r in doc["data"] if r["sourceLanguage"] == "fr" and r["version"] == "1.0"}
        new = {r["fileType"]: r for r in doc["data"] if r["sourceLanguage"] == "fr" and r["version"] == "1.1a1"}
        # 1. The same version, its records changed (the Nightly files, hashes and sizes): the cached
        #    files fail their records' checks and are downloaded again.
        for kind in ("model", "vocab", "lex"):
            for key in ("attachment", "decompressedHash", "decompressedSize"):
                old[kind][key] = new[kind][key]
        json.dump(doc, open(path, "w"))
        r = run("translate", "--from", "fr", "--to", "en", *env.args(c, s.url))
        assert ok(r) == ok(run("translate", "-m", folders["fren-nightly"])), r.stderr
        assert "downloading it again" in r.stderr, r.stderr
        # 2. A newer release version (the Nightly files, now for every channel as 1.2): it replaces
        #    the cached 1.0, which leaves the cache.
        doc = json.load(open(os.path.join(env.index["catalog"], "records.json")))
        for rec in doc["data"]:
            if rec["version"] == "1.1a1":
                rec["version"], rec["filter_expression"] = "1.2", ""
        json.dump(doc, open(path, "w"))
        r = run("translate", "--from", "fr", "--to", "en", *env.args(c, s.url))
        assert ok(r) == ok(run("translate", "-m", folders["fren-nightly"])), r.stderr
        root = os.path.join(c, [n for n in os.listdir(c) if n.startswith("catalog-")][0], "fr-en")
        assert sorted(os.listdir(root)) == ["1.2-tiny"], os.listdir(root)
        # 3. Offline: the cached 1.2 still works.
        s.stop()
        r = run("translate", "--from", "fr", "--to", "en", *env.args(c, s.url))
        assert ok(r) == ok(run("translate", "-m", folders["fren-nightly"])) and "using the catalogue as cached" in r.stderr
    check("a cached pair follows its records: a changed hash or a newer release version replaces the cached files; "
          "offline the cache still works", records_change)

    def damaged_cache():
        c = env.cache()
        ok(run("translate", "--from", "fr", "--to", "en", *env.args(c)))
        model = [os.path.join(root, f) for root, _, files in os.walk(c) for f in files if f.startswith("model.")][0]
        with open(model, "r+b") as f:
            f.seek(1000)
            b = f.read(1)
            f.seek(1000)
            f.write(bytes([b[0] ^ 0xff]))
        r = run("translate", "--from", "fr", "--to", "en", *env.args(c))
        assert ok(r) == ok(run("translate", "-m", folders["fren"])) and "downloading it again" in r.stderr, r.stderr
    check("a damaged cached file is checked, dropped and downloaded again", damaged_cache)

    def bad_catalogues():
        cases = {
            "not json": ("records", b"<html>oops</html>", "is not JSON"),
            "hostile location": ("location", "../../../etc/passwd", "not a relative path"),
            "no base url": ("server", None, "base_url"),
        }
        for name, (what, value, message) in cases.items():
            d = os.path.join(env.work, "bad-" + name.replace(" ", "-"))
            shutil.copytree(env.index["catalog"], d)
            if what == "records":
                open(os.path.join(d, "records.json"), "wb").write(value)
            elif what == "location":
                doc = json.load(open(os.path.join(d, "records.json")))
                doc["data"][0]["attachment"]["location"] = value
                json.dump(doc, open(os.path.join(d, "records.json"), "w"))
            s = CatalogServer(d).start()
            url = s.url if what != "server" else s.url.replace("/v1", "/nothing")
            r = run("translate", "--from", "fr", "--to", "en", *env.args(env.cache(), url))
            s.stop()
            assert r.returncode == 1 and (message in r.stderr or "HTTP status 404" in r.stderr), (name, r.stderr)
        r = run("translate", "--from", "fr", "--to", "xx", *env.args(shared))
        assert r.returncode == 1 and "cannot translate fr to xx" in r.stderr, r.stderr
        r = run("translate", "--from", "fr", "--to", "en", "-m", folders["fren"], *env.args(shared))
        assert r.returncode == 2
        r = run("translate", "--from", "fr", *env.args(shared))
        assert r.returncode == 2 and "--from and --to" in r.stderr
        r = run("translate", "--from", "fr", "--to", "en", "--channel", "aurora", *env.args(shared))
        assert r.returncode == 2
    check("malformed and hostile catalogues, unknown pairs and bad flags: clear errors", bad_catalogues)


    def hostile_records():
        base = os.path.join(env.work, "hostile")
        cases = hostile.write(env.index["catalog"], os.path.join(base, "catalogs"), os.path.join(base, "victim"))
        hostile.decoy(base)  # base/victim: what the absolute-path values name
        s = CatalogServer(cases[0]["catalog"]).start()  # one server, its folder switched per case
        try:
            for n, case in enumerate(cases):
                s.catalog = os.path.abspath(case["catalog"])
                for default_cache in (False, True):
                    box = os.path.join(base, f"run{n}-{int(default_cache)}")
                    hostile.decoy(box)
                    home = os.path.join(box, "home")
                    cache = os.path.join(home, ".cache", "tformer") if default_cache else os.path.join(box, "cache")
                    os.makedirs(cache)
                    before = hostile.listing(box, skip=[cache])
                    victim_before = hostile.listing(os.path.join(base, "victim"))
                    environ = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
                    environ["HOME"] = home
                    flags = ["--catalog", s.url] + ([] if default_cache else ["--cache", cache])
                    r = subprocess.run([TFORMER, "translate", "--from", "fr", "--to", "en", *flags], input=LINES[0] + "\n",
                                       capture_output=True, text=True, timeout=300, env=environ)
                    where = f"{case['field']}={case['value']!r} ({'default cache' if default_cache else '--cache'})"
                    assert r.returncode == 1 and "tformer: error:" in r.stderr, (where, r.returncode, r.stderr)
                    assert f"{case['field']} " in r.stderr, f"{where}: the error must name the field: {r.stderr}"
                    assert r.stdout == "", where
                    assert hostile.listing(box, skip=[cache]) == before, f"{where}: something outside the cache changed"
                    assert hostile.listing(os.path.join(base, "victim")) == victim_before, where
                    assert not any(f.startswith("model.") for _, _, fs in os.walk(cache) for f in fs), where
        finally:
            s.stop()
    check("hostile records (a field that reaches a cache path climbs out of it): refused naming the field, "
          "with --cache and the default cache; nothing outside the cache created, changed or deleted", hostile_records)

    def cache_links():
        box = os.path.join(env.work, "links")
        hostile.decoy(box)
        c = os.path.join(box, "cache")
        ok(run("translate", "--from", "fr", "--to", "en", *env.args(c)))
        pair = os.path.join(c, [n for n in os.listdir(c) if n.startswith("catalog-")][0], "fr-en")
        # A folder the cache did not make (no mark), and a link to a folder outside: both stay when
        # the pair's version changes.
        os.makedirs(os.path.join(pair, "0.9-tiny"))
        open(os.path.join(pair, "0.9-tiny", "mine.txt"), "w").write("not the cache's\n")
        os.symlink(os.path.join(box, "victim", "other"), os.path.join(pair, "0.8-tiny"))
        ok(run("translate", "--from", "fr", "--to", "en", "--channel", "nightly", *env.args(c)))
        assert sorted(os.listdir(pair)) == ["0.8-tiny", "0.9-tiny", "1.1a1-tiny"], os.listdir(pair)
        assert os.path.exists(os.path.join(box, "victim", "other", "photo.jpg"))
        # The pair's folder replaced by a link out of the cache: nothing is written through it.
        shutil.rmtree(pair)
        os.symlink(os.path.join(box, "victim", "keep"), pair)
        before = hostile.listing(box, skip=[c])
        r = run("translate", "--from", "fr", "--to", "en", *env.args(c))
        assert r.returncode == 1 and "outside the cache folder" in r.stderr, r.stderr
        assert hostile.listing(box, skip=[c]) == before
    check("the cache writes and removes only inside its folder: links out of it refused, folders without its mark kept",
          cache_links)


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--keep", help="keep the work folder here")
    a = p.parse_args(argv)
    work = a.keep or tempfile.mkdtemp(prefix="tformer-catalog-")
    os.makedirs(work, exist_ok=True)
    try:
        t0 = time.time()
        make_catalog.main([os.path.join(work, "made")])
        index = json.load(open(os.path.join(work, "made", "index.json")))
        print(f"catalogue written in {time.time() - t0:.1f} s", flush=True)
        env = Env(work, index)
        tests(env)
        env.server.stop()
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return closing()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
