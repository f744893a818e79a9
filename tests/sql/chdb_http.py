#!/usr/bin/env python3
"""ClickHouse's HTTP interface in front of chDB (ClickHouse's engine in process, from PyPI), for tests/live/fetch.rs.

The Debian clickhouse-server this machine can install (18.16) predates window functions (ClickHouse 21.1), so
the rules' query runs here on chDB's engine (26.x) behind the part of the HTTP interface `lockreplay fetch` uses,
as documented at https://clickhouse.com/docs/interfaces/http:
  - the query is the `query` parameter followed by the POST body (GET carries only `query`);
  - `session_id` keeps a session (its temporary tables) across requests;
  - `default_format` names the output format of a query without `FORMAT`; other parameters are settings;
  - credentials by HTTP basic auth, the `X-ClickHouse-User`/`X-ClickHouse-Key` headers or the `user`/`password`
    parameters; wrong ones give HTTP 401 and `Code: 516. DB::Exception: ...: Authentication failed`;
  - an error is HTTP 500 (404 for an unknown table) with ClickHouse's text `Code: N. DB::Exception: ...` and the
    `X-ClickHouse-Exception-Code` header.
chDB allows one session in a process, so a request with a new `session_id` starts a new chDB session on the same
data folder: tables persist, a session's temporary tables do not, as in ClickHouse.

Usage: chdb_http.py --port-file F [--user U --password P] [--tls-cert C --tls-key K] [--data DIR]
The bound port is written to F once the server listens.
"""
import argparse
import base64
import http.server
import re
import ssl
import sys
import threading
import urllib.parse

from chdb import session as chs

LOCK = threading.Lock()
STATE = {"sid": None, "sess": None}


def current(data, sid):
    if STATE["sess"] is None or (sid and sid != STATE["sid"]):
        if STATE["sess"] is not None:
            STATE["sess"].close()
        STATE["sess"] = chs.Session(data)
        STATE["sid"] = sid
    return STATE["sess"]


def error_code(text):
    m = re.search(r"Code: (\d+)", text)
    return int(m.group(1)) if m else 1002


def make_handler(args):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            sys.stderr.write("chdb_http: " + (fmt % a) + "\n")

        def reply(self, status, body, code=None):
            data = body.encode() if isinstance(body, str) else body
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=UTF-8")
            self.send_header("Content-Length", str(len(data)))
            if code is not None:
                self.send_header("X-ClickHouse-Exception-Code", str(code))
            self.end_headers()
            self.wfile.write(data)

        def credentials(self, params):
            auth = self.headers.get("Authorization", "")
            if auth.startswith("Basic "):
                user, _, pw = base64.b64decode(auth[6:]).decode().partition(":")
                return user, pw
            if "X-ClickHouse-User" in self.headers:
                return self.headers["X-ClickHouse-User"], self.headers.get("X-ClickHouse-Key", "")
            return params.get("user", "default"), params.get("password", "")

        def handle_query(self, body):
            url = urllib.parse.urlparse(self.path)
            params = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
            if url.path == "/ping":
                return self.reply(200, "Ok.\n")
            user, pw = self.credentials(params)
            if (user, pw) != (args.user, args.password):
                return self.reply(401, f"Code: 516. DB::Exception: {user}: Authentication failed: password is "
                                       "incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)\n", 516)
            query = params.get("query", "")
            if body:
                query = (query + "\n" if query else "") + body.decode()
            if not query.strip():
                return self.reply(400, "Code: 62. DB::Exception: Empty query. (SYNTAX_ERROR)\n", 62)
            fmt = params.get("default_format", "TabSeparated")
            with LOCK:
                try:
                    res = current(args.data, params.get("session_id")).query(query, fmt)
                    out = res.bytes() if hasattr(res, "bytes") else str(res).encode()
                except Exception as e:  # chDB raises RuntimeError with the server's text
                    text = str(e).strip()
                    code = error_code(text)
                    status = 404 if code == 60 else 500
                    return self.reply(status, text + "\n", code)
            self.reply(200, out)

        def do_GET(self):
            self.handle_query(b"")

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0") or 0)
            self.handle_query(self.rfile.read(n) if n else b"")

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--user", default="default")
    ap.add_argument("--password", default="")
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    ap.add_argument("--data", default=":memory:")
    args = ap.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(args))
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os

    os.replace(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
