#!/usr/bin/env python3
"""A recording, fault-injecting HTTP proxy on 127.0.0.1 in front of an S3 store on 127.0.0.1, for the publish tests.

    s3-proxy.py UPSTREAM_PORT [--max-seconds 600] [--stop-on-stdin-close]

Prints the port it listens on (one line). Every request (any method) is forwarded to 127.0.0.1:UPSTREAM_PORT with
its method, path, query, headers (Host included, so a SigV4 signature made for the proxy's address still verifies)
and body, and the answer is sent back. Each one is logged in order of its answer. Control requests (never
forwarded; no bucket name starts with "__"):

    /__log                      JSON list of {method, path, status} (path without the query, percent-decoded)
    /__log?clear=1              empties it
    /__faults?put-after=K&mode=M  after K PUTs have been forwarded, every further PUT gets M: "500" (an S3 error
                                document, not forwarded), "500once" (that for the next PUT only, then back to
                                normal) or "hang" (no answer until the faults are cleared, at most 120 s: for a
                                test that kills the client mid-upload)
    /__faults?delete-after=K&mode=M  the same for DELETEs (either one replaces the fault set before)
    /__faults?clear=1           back to normal (hanging requests then fail with 503)

Stops by itself after --max-seconds, and with --stop-on-stdin-close as soon as its standard input closes.
"""
import http.client, json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

UPSTREAM = int(sys.argv[1])
state = {"log": [], "method": None, "count": 0, "after": None, "mode": None}
lock = threading.Lock()
cleared = threading.Condition(lock)
HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "expect"}


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def control(self, path, query):
        q = parse_qs(query)
        with lock:
            if path == "/__log":
                if "clear" in q:
                    state["log"] = []
                out = json.dumps(state["log"]).encode()
            elif path == "/__faults":
                if "clear" in q:
                    state["method"], state["after"], state["mode"] = None, None, None
                    cleared.notify_all()
                else:
                    method = "PUT" if "put-after" in q else "DELETE"
                    state["method"], state["mode"] = method, q["mode"][0]
                    state["after"] = int(q["put-after" if method == "PUT" else "delete-after"][0])
                    state["count"] = 0
                out = b"ok"
            else:
                out = b"unknown control request"
        self.send(200, out, [("Content-Type", "application/json")])

    def handle_any(self):
        parts = urlsplit(self.path)
        if parts.path.startswith("/__"):
            return self.control(parts.path, parts.query)
        body = self.body()
        logged = {"method": self.command, "path": unquote(parts.path)}
        if self.command == state["method"]:
            with lock:
                faulty = state["after"] is not None and state["count"] >= state["after"]
                if not faulty:
                    state["count"] += 1
                mode = state["mode"]
                if faulty and mode == "500once":
                    state["method"], state["after"], state["mode"] = None, None, None
                if faulty and mode == "hang":
                    deadline = time.monotonic() + 120
                    while state["mode"] == "hang" and time.monotonic() < deadline:
                        cleared.wait(deadline - time.monotonic())
            if faulty:
                error = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code>'
                         b"<Message>fault injected by s3-proxy.py</Message></Error>")
                status = 503 if mode == "hang" else 500
                with lock:
                    state["log"].append(dict(logged, status=status))
                return self.send(status, error, [("Content-Type", "application/xml")])
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        headers["Content-Length"] = str(len(body))
        conn = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=60)
        try:
            conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for k, v in headers.items():
                conn.putheader(k, v)
            conn.endheaders(body)
            r = conn.getresponse()
            data = r.read()
            answer = [(k, v) for k, v in r.getheaders() if k.lower() not in HOP and k.lower() != "content-length"]
        finally:
            conn.close()
        with lock:
            state["log"].append(dict(logged, status=r.status))
        self.send(r.status, data, answer)

    do_GET = do_PUT = do_DELETE = do_HEAD = do_POST = handle_any


def main():
    max_seconds = 600
    if "--max-seconds" in sys.argv:
        max_seconds = int(sys.argv[sys.argv.index("--max-seconds") + 1])
    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stop = threading.Event()
    if "--stop-on-stdin-close" in sys.argv:
        threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait(max_seconds)
    # (Hanging requests are daemon threads: they end with the process.)
    os._exit(0)


if __name__ == "__main__":
    main()
