#!/usr/bin/env python3
"""A static file server on 127.0.0.1 that can misbehave on purpose, for tests of everything that downloads a tree.

    fault-server.py ROOT [--max-seconds 600] [--stop-on-stdin-close]

Prints the port it listens on (one line) and serves ROOT like a static host: GET and HEAD, Content-Type by
extension, ETag (SHA-256 of the bytes) with 304 on If-None-Match, 404 for anything missing or outside ROOT (symlinks
are not followed). Stops by itself after --max-seconds, and with --stop-on-stdin-close as soon as its standard input
closes (a test process that starts it with a pipe and crashes takes the server with it). Control requests (never
files):

    /__root?path=DIR            serve another folder from now on (a new release, or a rollback)
    /__faults?set=RULES         RULES: comma-separated PATH=MODE (PATH is a tree path, or * for every path)
    /__faults?clear=1           back to normal
    /__log                      JSON list of {path, status, bytes} for every file request so far
    /__log?clear=1              empties it

MODE is one of: 500, 404, truncate (full Content-Length, half the body, then close), corrupt (one byte flipped,
same length), reset (half the body, then a TCP reset), slow (no answer for 30 s), slowN (N seconds). Prefix
once: to apply a fault to the next matching request only. Hostile modes (a server that attacks its client):

    endless       200, no Content-Length: the body, then zeros without end (until the client hangs up)
    hugelength    200 with Content-Length 6 GB, then zeros without end
    gzipbomb      200, Content-Encoding: gzip, a 10 MB body that expands to 10 GiB of zeros
    trickle       the right headers and body, one byte a second
    301to404      301 to a path of this server that answers 404
    301tofile     301 to file:///etc/passwd
    301moved      301 to the same path under /moved/ (a site that moved)
"""
import hashlib, json, mimetypes, os, socket, struct, sys, threading, time, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

state = {"root": os.path.realpath(sys.argv[1]), "faults": {}, "log": []}
lock = threading.Lock()
TYPES = {".json": "application/json", ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".svg": "image/svg+xml", ".ts": "text/plain; charset=utf-8"}


def read_inside(root, rel):
    """Bytes of a regular file inside root, reached without following any symlink; None otherwise."""
    parts = [p for p in rel.split("/") if p]
    if any(p in (".", "..") or "\\" in p or "\0" in p for p in parts) or not parts:
        return None
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for p in parts[:-1]:
            nfd = os.open(p, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd); fd = nfd
        leaf = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
        try:
            import stat
            if not stat.S_ISREG(os.fstat(leaf).st_mode):
                return None
            with os.fdopen(leaf, "rb", closefd=False) as f:
                return f.read()
        finally:
            os.close(leaf)
    except OSError:
        return None
    finally:
        os.close(fd)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: with Nagle's algorithm on, each keep-alive response then waits for
    # the client's delayed ACK (40 ms a request), as no real static host does.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def control(self, path, query):
        q = parse_qs(query)
        with lock:
            if path == "/__root":
                state["root"] = os.path.realpath(q["path"][0])
            elif path == "/__faults":
                state["faults"] = {}
                for rule in (q.get("set", [""])[0]).split(","):
                    if "=" in rule:
                        k, v = rule.rsplit("=", 1)
                        state["faults"][k] = v
            elif path == "/__log":
                if "clear" in q:
                    state["log"] = []
                body = json.dumps(state["log"]).encode()
                return self.send(200, body, "application/json")
        self.send(200, b"ok\n", "text/plain")

    def send(self, status, body, ctype, extra=None, head=False):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def fault_for(self, rel):
        with lock:
            for key in (rel, "*"):
                mode = state["faults"].get(key)
                if mode:
                    if mode.startswith("once:"):
                        del state["faults"][key]
                        mode = mode[5:]
                    return mode
        return None

    def serve(self, head):
        url = urlsplit(self.path)
        path = unquote(url.path)
        if path.startswith("/__"):
            return self.control(path, url.query)
        rel = path.lstrip("/")
        if rel == "" or rel.endswith("/"):
            rel += "index.html"
        with lock:
            root = state["root"]
        body = read_inside(root, rel)
        mode = self.fault_for(rel)
        status = 200 if body is not None else 404
        if mode in ("500", "404"):
            status = int(mode)
        with lock:
            state["log"].append({"path": rel, "status": status, "bytes": len(body) if body is not None and status == 200 else 0})
        if status != 200:
            return self.send(status, b"error\n" if status == 500 else b"not found\n", "text/plain", head=head)
        etag = '"' + hashlib.sha256(body).hexdigest() + '"'
        if mode is None and self.headers.get("If-None-Match") == etag:
            self.send_response(304); self.send_header("ETag", etag); self.send_header("Content-Length", "0"); self.end_headers()
            return
        ctype = TYPES.get(os.path.splitext(rel)[1], mimetypes.guess_type(rel)[0] or "application/octet-stream")
        if mode in HOSTILE:
            return HOSTILE[mode](self, rel, body, ctype)
        if mode and mode.startswith("slow"):
            time.sleep(float(mode[4:] or 30))
        if mode == "corrupt" and body:
            body = body[:len(body) // 2] + bytes([body[len(body) // 2] ^ 0x20]) + body[len(body) // 2 + 1:]
        if mode in ("truncate", "reset"):
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body[:len(body) // 2])
                self.wfile.flush()
            if mode == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        self.send(200, body, ctype, {"ETag": etag, "Cache-Control": "no-cache"}, head=head)

    def do_GET(self):
        self.serve(False)

    def do_HEAD(self):
        self.serve(True)


def zeros_forever(handler):
    """Zeros until the client hangs up."""
    chunk = bytes(65536)
    try:
        while True:
            handler.wfile.write(chunk)
    except OSError:
        pass
    handler.close_connection = True


def endless(handler, rel, body, ctype, length=None):
    handler.send_response(200)
    handler.send_header("Content-Type", ctype)
    if length is not None:
        handler.send_header("Content-Length", str(length))
    handler.send_header("Connection", "close")
    handler.end_headers()
    try:
        handler.wfile.write(body)
    except OSError:
        return
    zeros_forever(handler)


def bomb_parts():
    """A gzip stream of 1 MiB blocks of zeros: its start, then a block that may repeat any number of times (each one
    ends with a full flush, so it refers to nothing before it)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    start = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    return start, again


BOMB = bomb_parts()


def gzipbomb(handler, rel, body, ctype):
    start, again = BOMB
    count = 10240                                   # 10 GiB of zeros, about 10 MB sent
    handler.send_response(200)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Encoding", "gzip")
    handler.send_header("Content-Length", str(len(start) + count * len(again)))
    handler.send_header("Connection", "close")
    handler.end_headers()
    try:
        handler.wfile.write(start)
        for _ in range(count):
            handler.wfile.write(again)
    except OSError:
        pass
    handler.close_connection = True


def trickle(handler, rel, body, ctype):
    handler.send_response(200)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    try:
        for i in range(len(body)):
            handler.wfile.write(body[i:i + 1])
            handler.wfile.flush()
            time.sleep(1)
    except OSError:
        pass
    handler.close_connection = True


def redirect(location):
    def send(handler, rel, body, ctype):
        target = location(handler, rel)
        handler.send_response(301)
        handler.send_header("Location", target)
        handler.send_header("Content-Length", "0")
        handler.end_headers()
    return send


HOSTILE = {
    "endless": endless,
    "hugelength": lambda h, rel, body, ctype: endless(h, rel, body, ctype, length=6 << 30),
    "gzipbomb": gzipbomb,
    "trickle": trickle,
    "301to404": redirect(lambda h, rel: "/gone/" + rel),
    "301tofile": redirect(lambda h, rel: "file:///etc/passwd"),
    "301moved": redirect(lambda h, rel: "http://127.0.0.1:%d/moved/%s" % (h.server.server_address[1], rel)),
}


def main():
    max_seconds = 600.0
    if "--max-seconds" in sys.argv:
        max_seconds = float(sys.argv[sys.argv.index("--max-seconds") + 1])
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    # A daemon: once serve_forever returns (stdin closed), the pending timer must not keep the process alive.
    timer = threading.Timer(max_seconds, server.shutdown)
    timer.daemon = True
    timer.start()
    if "--stop-on-stdin-close" in sys.argv:
        def watch():
            while sys.stdin.buffer.read(4096):
                pass
            server.shutdown()
        threading.Thread(target=watch, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
