#!/usr/bin/env python3
"""A small HTTP/1.1 file server for the remote-read tests: serves a folder
with HEAD, single-range GETs, a strong ETag and If-Match, and injects faults
chosen by the URL's first two path segments:

    /MODE/COUNT/path/in/root

the first COUNT GETs of that URL (any range) fail as MODE says, later ones are
served normally ("ok/0/..." always serves). Modes:

    drop      close the connection without answering
    reset     send the headers and part of the body, then reset the connection
    e500 e503 answer 500 / 503
    e403 e404 answer 403 / 404 with an S3-style XML error body
    truncate  announce the full Content-Length, send half the body, close
    wrong     send the right length with some bytes changed
    slow      send nothing for 30 s (the client's timeout fires first)
    norange   ignore Range: 200 with the whole file

With --sigv4 KEY:SECRET every request must carry an AWS SigV4 Authorization
header whose signature botocore (AWS's own Python implementation) computes the
same for the signed headers; otherwise 403 SignatureDoesNotMatch. Paths are
then /BUCKET/KEY under the root.

Every request is appended to --log as one JSON object per line (method, path,
range header, status, bytes sent, object size), which the tests read to check
what the client asked for. Prints "PORT <n>" once listening. Stops on SIGTERM.
"""
import argparse
import json
import os
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODES = {"ok", "drop", "reset", "e500", "e503", "e403", "e404", "truncate", "wrong", "slow", "norange"}


class State:
    def __init__(self, root, log, sigv4):
        self.root = os.path.realpath(root)
        self.log = open(log, "a", buffering=1) if log else None
        self.sigv4 = sigv4
        self.counts = {}
        self.lock = threading.Lock()

    def take(self, path):
        """The number of GETs of `path` before this one."""
        with self.lock:
            n = self.counts.get(path, 0)
            self.counts[path] = n + 1
            return n

    def record(self, **entry):
        if self.log:
            with self.lock:
                self.log.write(json.dumps(entry) + "\n")


def check_sigv4(handler, key, secret):
    """None when the request's SigV4 signature is right, else why not."""
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    auth = handler.headers.get("Authorization", "")
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return "no SigV4 Authorization header"
    parts = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
    cred = parts.get("Credential", "").split("/")
    if len(cred) != 5 or cred[0] != key:
        return "unknown access key"
    signed = parts.get("SignedHeaders", "").split(";")
    headers = {h: handler.headers.get(h, "") for h in signed}
    url = "http://%s%s" % (handler.headers.get("Host", ""), handler.path)
    req = AWSRequest(method=handler.command, url=url, headers=headers)
    req.context["timestamp"] = handler.headers.get("x-amz-date", "")
    signer = S3SigV4Auth(Credentials(key, secret), cred[3], cred[2])
    signer._expires = None
    canonical = signer.canonical_request(req)
    expected = signer.signature(signer.string_to_sign(req, canonical), req)
    return None if expected == parts.get("Signature") else "signature mismatch"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mindrecord-fault-server"

    def log_message(self, *args):
        pass

    def _error(self, code, s3code, message, record):
        body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>%s</Code><Message>%s</Message></Error>"
                % (s3code, message)).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        record(status=code, sent=0)

    def _serve(self):
        state = self.server.state
        path = self.path.split("?", 1)[0]
        rng = self.headers.get("Range")
        entry = {"method": self.command, "path": path, "range": rng}

        def record(**kw):
            entry.update(kw)
            state.record(**entry)

        if state.sigv4:
            why = check_sigv4(self, *state.sigv4)
            if why:
                return self._error(403, "SignatureDoesNotMatch", why, record)
        segs = path.lstrip("/").split("/", 2)
        mode, count, rel = "ok", 0, path.lstrip("/")
        if len(segs) == 3 and segs[0] in MODES and segs[1].isdigit():
            mode, count, rel = segs[0], int(segs[1]), segs[2]
        full = os.path.realpath(os.path.join(state.root, rel))
        if not full.startswith(state.root + os.sep) or not os.path.isfile(full):
            return self._error(404, "NoSuchKey", "The specified key does not exist.", record)
        st = os.stat(full)
        size = st.st_size
        entry["size"] = size
        etag = '"%x-%x"' % (int(st.st_mtime), size)
        failing = self.command == "GET" and state.take(path) < count
        if failing and mode == "e403":
            return self._error(403, "AccessDenied", "Access Denied", record)
        if failing and mode == "e404":
            return self._error(404, "NoSuchKey", "The specified key does not exist.", record)
        if failing and mode in ("e500", "e503"):
            return self._error(int(mode[1:]), "InternalError", "We encountered an internal error.", record)
        if failing and mode == "drop":
            record(status=0, sent=0)
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if failing and mode == "slow":
            record(status=0, sent=0)
            time.sleep(30)
            self.close_connection = True
            return
        if_match = self.headers.get("If-Match")
        if if_match and if_match != "*" and if_match != etag:
            return self._error(412, "PreconditionFailed", "At least one of the preconditions you specified did not "
                               "hold", record)
        begin, end, status = 0, size, 200
        if rng and not (failing and mode == "norange"):
            if not rng.startswith("bytes=") or "," in rng:
                return self._error(416, "InvalidRange", "bad range", record)
            a, _, b = rng[6:].partition("-")
            if not a:
                return self._error(416, "InvalidRange", "suffix ranges are not served here", record)
            begin = int(a)
            end = min(size, int(b) + 1) if b else size
            if begin >= size or end <= begin:
                return self._error(416, "InvalidRange", "The requested range is not satisfiable", record)
            status = 206
        with open(full, "rb") as f:
            f.seek(begin)
            body = f.read(end - begin)
        if failing and mode == "wrong":
            body = bytes(b ^ 0x5A if i % 997 == 0 else b for i, b in enumerate(body))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (begin, end - 1, size))
        self.end_headers()
        if self.command == "HEAD":
            return record(status=status, sent=0)
        if failing and mode in ("truncate", "reset"):
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            record(status=status, sent=len(body) // 2)
            self.close_connection = True
            if mode == "reset":  # RST rather than FIN: close the descriptor itself with a zero linger
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                os.close(self.connection.detach())
            else:
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(body)
        record(status=status, sent=len(body))

    def handle(self):
        try:
            super().handle()
        except OSError:
            pass  # a connection this server cut on purpose

    def do_GET(self):
        self._serve()

    def do_HEAD(self):
        self._serve()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log", default="")
    ap.add_argument("--sigv4", default="", help="KEY:SECRET: verify AWS SigV4 signatures")
    args = ap.parse_args()
    sigv4 = tuple(args.sigv4.split(":", 1)) if args.sigv4 else None
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.state = State(args.root, args.log, sigv4)
    print("PORT %d" % server.server_address[1], flush=True)
    import signal
    signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(SystemExit(0)))
    try:
        server.serve_forever()
    except SystemExit:
        pass


if __name__ == "__main__":
    sys.exit(main())
