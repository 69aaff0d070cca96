#!/usr/bin/python3
"""A local Remote Settings server for the catalogue tests: Firefox's documents, nothing more.

  GET /v1/                                                        {"capabilities": {"attachments":
                                                                   {"base_url": "http://HOST:PORT/attachments/"}}, ...}
  GET /v1/buckets/main/collections/translations-models-v2/records CATALOG/records.json
  GET /attachments/<location>                                     CATALOG/attachments/<location>

Locations listed in CATALOG/faults.json under "truncate" are cut short: the full Content-Length is
sent, then half the bytes, then the connection closes (a download that fails partway). Every request
path is written to the log (--log FILE, or kept in memory for a test that runs the server itself).
Responses carry Access-Control-Allow-Origin: * and Cross-Origin-Resource-Policy: cross-origin, as a
cross-origin-isolated page needs.

Usage: tests/catalog/server.py CATALOG [--port N] [--log FILE]   (prints "listening on URL" when ready)
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

RECORDS = "/v1/buckets/main/collections/translations-models-v2/records"


class CatalogServer:
    def __init__(self, catalog: str, port: int = 0, log: str | None = None):
        self.catalog = os.path.abspath(catalog)
        self.requests = []
        self.log = log
        faults_path = os.path.join(self.catalog, "faults.json")
        faults = json.load(open(faults_path)) if os.path.exists(faults_path) else {}
        self.truncate = set(faults.get("truncate", []))
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send(self, status, body: bytes, content_type="application/json", length=None):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body) if length is None else length))
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                path = unquote(urlsplit(self.path).path)
                server.note(path)
                base = f"http://{self.headers.get('Host')}"
                if path in ("/v1", "/v1/"):
                    doc = {"project_name": "Remote Settings (tformer tests)", "url": base + "/v1/",
                           "capabilities": {"attachments": {"base_url": base + "/attachments/",
                                                            "bundle_url": base + "/attachments/bundles/"}}}
                    return self.send(200, json.dumps(doc).encode())
                if path == RECORDS:
                    with open(os.path.join(server.catalog, "records.json"), "rb") as f:
                        return self.send(200, f.read())
                if path.startswith("/attachments/"):
                    location = path[len("/attachments/"):]
                    file = os.path.normpath(os.path.join(server.catalog, "attachments", location))
                    if file.startswith(os.path.join(server.catalog, "attachments") + os.sep) and os.path.isfile(file):
                        with open(file, "rb") as f:
                            data = f.read()
                        if location in server.truncate:
                            self.send(200, data[:len(data) // 2], "application/zstd", length=len(data))
                            self.close_connection = True
                            return
                        return self.send(200, data, "application/zstd")
                self.send(404, json.dumps({"code": 404, "errno": 111, "error": "Not Found"}).encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def note(self, path):
        self.requests.append(path)
        if self.log:
            with open(self.log, "a", encoding="utf-8") as f:
                f.write(path + "\n")

    def start(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("catalog")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--log")
    a = p.parse_args(argv)
    s = CatalogServer(a.catalog, a.port, a.log)
    print(f"listening on {s.url}", flush=True)
    try:
        s.httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main(sys.argv[1:])
