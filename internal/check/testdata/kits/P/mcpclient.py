"""A small hand-written MCP test client used by selftest.py (standard library only).

It speaks the JSON-RPC by hand over stdio and Streamable HTTP for both eras, records
everything it receives, and tolerates (but records) wire-level violations so that one
planted defect does not hide the rest of the server's behaviour.
"""
import base64
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

T = float(os.environ.get("KITP_TIMEOUT", "25"))      # generous: the test machine may be loaded
MODERN = "2026-07-28"
LEGACY = "2025-11-25"


class Timeout(Exception):
    pass


class Recorder:
    def __init__(self):
        self.issues = {}          # check name -> list of details (wire level problems)
        self.msgs = []            # (time, channel, msg)
        self.lock = threading.Lock()

    def issue(self, name, detail):
        with self.lock:
            self.issues.setdefault(name, []).append(detail)

    def add(self, chan, msg):
        with self.lock:
            self.msgs.append((time.time(), chan, msg))

    def check_msg(self, msg):
        if not isinstance(msg, dict):
            self.issue("wire.json", "message is not a JSON object: %r" % (msg,))
            return
        if msg.get("jsonrpc") != "2.0":
            self.issue("jsonrpc.version", "missing or wrong jsonrpc member: %s" % json.dumps(msg)[:200])
        if "error" in msg:
            e = msg["error"]
            if not isinstance(e, dict) or not isinstance(e.get("code"), int) or isinstance(e.get("code"), bool) \
                    or not isinstance(e.get("message"), str):
                self.issue("jsonrpc.error-shape", "bad error object: %s" % json.dumps(msg)[:200])
            if "result" in msg:
                self.issue("jsonrpc.error-shape", "error response also carries result: %s" % json.dumps(msg)[:200])


def auto_answer(method, params, caps):
    """Default client behaviour for server->client requests (legacy era)."""
    if method == "ping":
        return {"result": {}}
    if method == "elicitation/create":
        if (params or {}).get("mode") == "url":
            return {"result": {"action": "accept"}}
        return {"result": {"action": "accept", "content": {"answer": "forty-two"}}}
    if method == "sampling/createMessage":
        return {"result": {"role": "assistant", "content": {"type": "text", "text": "a short summary"},
                           "model": "test-model", "stopReason": "endTurn"}}
    if method == "roots/list":
        return {"result": {"roots": [{"uri": "file:///tmp/project", "name": "project"}]}}
    return {"error": {"code": -32601, "message": "Method not found"}}


# ======================================================================================
# stdio

class StdioConn:
    def __init__(self, cmd, cwd, rec=None, caps=None):
        self.rec = rec or Recorder()
        self.caps = caps or {}
        self.proc = subprocess.Popen(cmd, cwd=cwd, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        self.cond = threading.Condition()
        self.responses = {}       # key -> msg
        self.notes = []           # (time, msg)
        self.server_requests = []  # (time, msg)
        self.order = []           # every message in order: (time, msg)
        self.next = 0
        self.pending = []         # ids we are waiting for, oldest first
        self.eof = False
        self.answer = auto_answer
        self.wlock = threading.Lock()
        threading.Thread(target=self._reader, daemon=True).start()

    # -- reading -----------------------------------------------------------------------
    def _reader(self):
        buf = b""
        out = self.proc.stdout
        while True:
            line = out.readline()
            if not line:
                break
            raw = line.rstrip(b"\n").rstrip(b"\r")
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                self.rec.issue("wire.utf8", "stdout line is not UTF-8: %r" % raw[:80])
                text = raw.decode("latin-1")
            if buf:
                buf_text = buf.decode("utf-8", "replace") + "\n" + text
                try:
                    msg = json.loads(buf_text)
                    buf = b""
                    self.rec.issue("wire.single-line", "a message spanned several lines")
                    self._got(msg)
                except ValueError:
                    buf = buf_text.encode("utf-8")
                    if len(buf) > 5_000_000 or text in ("}", "]"):
                        if text in ("}", "]"):
                            self.rec.issue("wire.json", "unparseable multi-line output")
                        buf = b""
                continue
            try:
                msg = json.loads(text)
            except ValueError:
                if text.strip() in ("{", "["):
                    buf = text.encode("utf-8")       # the first line of a pretty-printed message
                else:
                    self.rec.issue("wire.json", "stdout line is not a JSON-RPC message: %r" % text[:120])
                continue
            self._got(msg)
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def _got(self, msg):
        now = time.time()
        self.rec.add("stdout", msg)
        self.rec.check_msg(msg)
        if not isinstance(msg, dict):
            return
        with self.cond:
            self.order.append((now, msg))
        if "method" in msg and "id" in msg:
            with self.cond:
                self.server_requests.append((now, msg))
                self.cond.notify_all()
            ans = self.answer(msg["method"], msg.get("params"), self.caps)
            if ans is not None:
                out = {"jsonrpc": "2.0", "id": msg["id"]}
                out.update(ans)
                threading.Thread(target=self.send, args=(out,), daemon=True).start()
            return
        if "method" in msg:
            with self.cond:
                self.notes.append((now, msg))
                self.cond.notify_all()
            return
        if "result" in msg or "error" in msg:
            rid = msg.get("id")
            with self.cond:
                key = self._match(rid, msg)
                if key is not None:
                    self.responses[key] = msg
                else:
                    self.responses.setdefault(("unmatched",), []).append(msg)
                self.cond.notify_all()

    def _match(self, rid, msg):
        for p in self.pending:
            if p == rid and type(p) == type(rid):
                return repr(p)
        for p in self.pending:
            if str(p) == str(rid) and rid is not None:
                self.rec.issue("jsonrpc.id-match", "response id %r does not have the type of request id %r" % (rid, p))
                return repr(p)
        if rid is None and "error" in msg and self.pending:
            self.rec.issue("jsonrpc.error-id", "error response with null id for a readable request: %s"
                           % json.dumps(msg)[:200])
            return repr(self.pending[0])
        return None

    # -- writing -----------------------------------------------------------------------
    def send(self, obj):
        data = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
        with self.wlock:
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except Exception:
                pass

    def new_id(self):
        self.next += 1
        return self.next

    def request(self, method, params=None, rid=None, timeout=None, wait=True):
        rid = self.new_id() if rid is None else rid
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        with self.cond:
            self.pending.append(rid)
        self.send(msg)
        if not wait:
            return rid
        return self.wait_response(rid, timeout)

    def wait_response(self, rid, timeout=None):
        deadline = time.time() + (timeout or T)
        key = repr(rid)
        with self.cond:
            while key not in self.responses:
                left = deadline - time.time()
                if left <= 0 or self.eof:
                    if rid in self.pending:
                        self.pending.remove(rid)
                    raise Timeout("no response to %r" % (rid,))
                self.cond.wait(min(left, 0.5))
            if rid in self.pending:
                self.pending.remove(rid)
            return self.responses[key]

    def has_response(self, rid):
        with self.cond:
            return repr(rid) in self.responses

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def notes_since(self, t0, method=None):
        with self.cond:
            return [m for (t, m) in self.notes if t >= t0 and (method is None or m.get("method") == method)]

    def wait_note(self, pred, timeout=None, t0=0):
        deadline = time.time() + (timeout or T)
        with self.cond:
            while True:
                for (t, m) in self.notes:
                    if t >= t0 and pred(m):
                        return m
                left = deadline - time.time()
                if left <= 0 or self.eof:
                    return None
                self.cond.wait(min(left, 0.5))

    def unmatched(self):
        with self.cond:
            return list(self.responses.get(("unmatched",), []))

    def close_stdin(self):
        try:
            self.proc.stdin.close()
        except Exception:
            pass

    def wait_exit(self, timeout):
        try:
            self.proc.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill(self):
        try:
            os.killpg(self.proc.pid, 9)
        except Exception:
            pass
        try:
            self.proc.wait(5)
        except Exception:
            pass


# ======================================================================================
# http helpers

def parse_sse_lines(readline, on_event, stop=None):
    """Reads SSE from readline() until EOF; calls on_event(dict(id=..., data=..., retry=..., event=...))."""
    ev = {"data": [], "id": None, "retry": None, "event": None}
    while True:
        if stop is not None and stop.is_set():
            return
        try:
            line = readline()
        except Exception:
            return
        if not line:
            return
        line = line.decode("utf-8", "replace").rstrip("\r\n")
        if line == "":
            if ev["data"] or ev["id"] is not None or ev["retry"] is not None:
                on_event({"id": ev["id"], "retry": ev["retry"], "event": ev["event"],
                          "data": "\n".join(ev["data"]) if ev["data"] else None})
            ev = {"data": [], "id": None, "retry": None, "event": None}
            continue
        if line.startswith(":"):
            on_event({"comment": line})
            continue
        field, _, val = line.partition(":")
        if val.startswith(" "):
            val = val[1:]
        if field == "data":
            ev["data"].append(val)
        elif field == "id":
            ev["id"] = val
        elif field == "retry":
            ev["retry"] = int(val) if val.isdigit() else None
        elif field == "event":
            ev["event"] = val


class HttpResult:
    def __init__(self):
        self.status = None
        self.headers = {}
        self.body = b""
        self.messages = []     # JSON-RPC messages received (in order)
        self.events = []       # SSE events (dicts)
        self.sse = False
        self.response = None   # the JSON-RPC response for the request, if any
        self.resumed = 0
        self.closed_without_response = False

    def header(self, name):
        for k, v in self.headers.items():
            if k.lower() == name.lower():
                return v
        return None


class HttpBase:
    def __init__(self, url, rec=None, caps=None):
        from urllib.parse import urlparse
        u = urlparse(url)
        self.host, self.port, self.path = u.hostname, u.port, u.path
        self.rec = rec or Recorder()
        self.caps = caps or {}
        self.next = 0
        self.answer = auto_answer
        self.all_events = []   # (time, stream tag, event)
        self.lock = threading.Lock()

    def new_id(self):
        with self.lock:
            self.next += 1
            return self.next

    def conn(self, timeout=None):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout or T)

    def raw(self, method, headers=None, body=None, timeout=None, read=True):
        """One plain HTTP exchange; for SSE answers, reads the stream to its end."""
        c = self.conn(timeout)
        h = dict(headers or {})
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body, ensure_ascii=False)
        if isinstance(body, str):
            body = body.encode("utf-8")
        if body is not None:
            h.setdefault("Content-Type", "application/json")
        c.request(method, self.path, body=body, headers=h)
        r = c.getresponse()
        res = HttpResult()
        res.status = r.status
        res.headers = dict(r.getheaders())
        ct = (res.header("Content-Type") or "").lower()
        if read:
            if ct.startswith("text/event-stream"):
                res.sse = True
                parse_sse_lines(r.readline, lambda e: res.events.append(e))
                for e in res.events:
                    if e.get("data"):
                        try:
                            res.messages.append(json.loads(e["data"]))
                        except ValueError:
                            self.rec.issue("wire.json", "SSE data is not JSON: %r" % e["data"][:100])
            else:
                res.body = r.read()
                if res.body:
                    try:
                        res.messages.append(json.loads(res.body.decode("utf-8")))
                    except ValueError:
                        pass
        c.close()
        return res


class Http25Conn(HttpBase):
    """2025-11-25 Streamable HTTP client: session ids, SSE, resumption, GET stream."""

    def __init__(self, url, rec=None, caps=None):
        super().__init__(url, rec, caps)
        self.sid = None
        self.version = None
        self.notes = []          # (time, tag, msg)
        self.server_requests = []
        self.cond = threading.Condition()
        self.get_threads = []
        self.event_ids = []      # all SSE event ids seen: (stream tag, id)
        self.primed = []         # per POST SSE stream: whether the first event was a priming event
        self.retry_before_close = []   # per closed-without-response stream: retry seen?
        self.response_on_get = []
        self.cancelled_ids = set()  # requests this client cancelled: their streams may just end

    def headers(self, extra=None):
        h = {"Accept": "application/json, text/event-stream"}
        if self.sid:
            h["Mcp-Session-Id"] = self.sid
        if self.version:
            h["MCP-Protocol-Version"] = self.version
        h.update(extra or {})
        return h

    def _handle_msg(self, tag, msg, want_id=None):
        now = time.time()
        self.rec.add(tag, msg)
        self.rec.check_msg(msg)
        if not isinstance(msg, dict):
            return None
        if "method" in msg and "id" in msg:
            with self.cond:
                self.server_requests.append((now, tag, msg))
                self.cond.notify_all()
            ans = self.answer(msg["method"], msg.get("params"), self.caps)
            if ans is not None:
                out = {"jsonrpc": "2.0", "id": msg["id"]}
                out.update(ans)
                threading.Thread(target=self._post_answer, args=(out,), daemon=True).start()
            return None
        if "method" in msg:
            with self.cond:
                self.notes.append((now, tag, msg))
                self.cond.notify_all()
            return None
        if tag.startswith("get"):
            self.response_on_get.append(msg)
        return msg

    def _post_answer(self, out):
        try:
            r = self.raw("POST", self.headers({"Content-Type": "application/json"}), out)
            if r.status != 202:
                self.rec.issue("http.notification-202", "client response POST answered %s" % r.status)
        except Exception as e:
            self.rec.issue("http.client-response", "posting a response failed: %s" % e)

    def initialize(self, version=LEGACY, caps=None, info=None):
        rid = self.new_id()
        body = {"jsonrpc": "2.0", "id": rid, "method": "initialize",
                "params": {"protocolVersion": version, "capabilities": caps if caps is not None else self.caps,
                           "clientInfo": info or {"name": "kitp-selftest", "version": "0.1"}}}
        res = self.post(body, rid)
        sid = res.header("Mcp-Session-Id")
        if sid:
            self.sid = sid
        if res.response and isinstance(res.response.get("result"), dict):
            self.version = res.response["result"].get("protocolVersion")
        return res

    def request(self, method, params=None, rid=None, extra_headers=None, on_event=None, cancel_after=None):
        rid = self.new_id() if rid is None else rid
        body = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            body["params"] = params
        return self.post(body, rid, extra_headers, on_event=on_event, cancel_after=cancel_after)

    def notify(self, method, params=None, extra_headers=None):
        body = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        return self.raw("POST", self.headers(extra_headers), body)

    def post(self, body, rid, extra_headers=None, on_event=None, cancel_after=None):
        c = self.conn()
        c.request("POST", self.path, body=json.dumps(body, ensure_ascii=False).encode("utf-8"),
                  headers=self.headers(dict({"Content-Type": "application/json"}, **(extra_headers or {}))))
        r = c.getresponse()
        res = HttpResult()
        res.status = r.status
        res.headers = dict(r.getheaders())
        ct = (res.header("Content-Type") or "").lower()
        if "id" in body and r.status == 200 and not (ct.startswith("application/json") or
                                                     ct.startswith("text/event-stream")):
            self.rec.issue("http.content-type", "request answered with Content-Type %r" % ct)
        if "id" in body and r.status == 202:
            self.rec.issue("http.request-not-202", "a request was answered with 202")
        if ct.startswith("text/event-stream"):
            res.sse = True
            tag = "post%s" % rid
            state = {"last": None, "retry": None, "first": True}
            cancel_ev = threading.Event()

            def handle(e):
                if "comment" in e:
                    return
                res.events.append(e)
                with self.lock:
                    self.all_events.append((time.time(), tag, e))
                if state["first"]:
                    state["first"] = False
                    self.primed.append(e.get("id") is not None and not e.get("data"))
                if e.get("id") is not None:
                    state["last"] = e["id"]
                    self.event_ids.append((tag, e["id"]))
                if e.get("retry") is not None:
                    state["retry"] = e["retry"]
                if e.get("data"):
                    try:
                        m = json.loads(e["data"])
                    except ValueError:
                        self.rec.issue("wire.json", "SSE data is not JSON")
                        return
                    res.messages.append(m)
                    got = self._handle_msg(tag, m)
                    if got is not None and (got.get("id") == rid or ("error" in got and got.get("id") is None)):
                        res.response = got
                    if on_event:
                        on_event(m)

            if cancel_after is not None:
                def canceller():
                    time.sleep(cancel_after)
                    cancel_ev.set()
                    try:
                        c.sock.shutdown(socket.SHUT_RDWR)
                    except Exception:
                        pass
                threading.Thread(target=canceller, daemon=True).start()
            parse_sse_lines(r.readline, handle, cancel_ev)
            c.close()
            if cancel_ev.is_set():
                res.cancelled = True
                return res
            if res.response is None:
                # a (defective) server may have put the response on the standalone GET stream
                end = time.time() + 1.0
                while time.time() < end and res.response is None:
                    for m in list(self.response_on_get):
                        if m.get("id") == rid:
                            res.response = m
                    time.sleep(0.05)
            tries = 0
            while res.response is None and tries < 5:
                res.closed_without_response = True
                if state["last"] is None or rid in self.cancelled_ids:
                    break
                self.retry_before_close.append(state["retry"] is not None)
                time.sleep((state["retry"] or 1000) / 1000.0)
                tries += 1
                res.resumed += 1
                c2 = self.conn()
                c2.request("GET", self.path, headers=self.headers({"Accept": "text/event-stream",
                                                                   "Last-Event-ID": state["last"]}))
                r2 = c2.getresponse()
                if r2.status != 200:
                    r2.read()
                    c2.close()
                    break
                parse_sse_lines(r2.readline, handle)
                c2.close()
        else:
            res.body = r.read()
            c.close()
            if res.body:
                try:
                    m = json.loads(res.body.decode("utf-8"))
                except ValueError:
                    m = None
                    if "id" in body:
                        self.rec.issue("wire.json", "HTTP body is not JSON: %r" % res.body[:100])
                if m is not None:
                    res.messages.append(m)
                    got = self._handle_msg("post%s" % rid, m)
                    if got is not None:
                        res.response = got
                        if got.get("id") is None and "error" in got and r.status == 200:
                            self.rec.issue("jsonrpc.error-id", "error response with null id: %s" % res.body[:200])
                        elif got.get("id") != rid or type(got.get("id")) != type(rid):
                            self.rec.issue("jsonrpc.id-match", "response id %r for request id %r" %
                                           (got.get("id"), rid))
        return res

    def open_get(self, tag="get"):
        """Opens a standalone GET SSE stream in a thread. Returns (status, stop event)."""
        c = self.conn(timeout=120)
        c.request("GET", self.path, headers=self.headers({"Accept": "text/event-stream"}))
        r = c.getresponse()
        stop = threading.Event()
        if r.status != 200 or not (r.getheader("Content-Type") or "").startswith("text/event-stream"):
            r.read()
            c.close()
            return r.status, r.getheader("Content-Type"), stop

        def handle(e):
            if "comment" in e:
                return
            with self.lock:
                self.all_events.append((time.time(), tag, e))
            if e.get("id") is not None:
                self.event_ids.append((tag, e["id"]))
            if e.get("data"):
                try:
                    m = json.loads(e["data"])
                except ValueError:
                    return
                self._handle_msg(tag, m)

        def run():
            parse_sse_lines(r.readline, handle, stop)
            c.close()

        def stopper():
            stop.wait()
            try:
                c.sock.shutdown(socket.SHUT_RDWR)
            except Exception:
                pass
        threading.Thread(target=run, daemon=True).start()
        threading.Thread(target=stopper, daemon=True).start()
        return 200, r.getheader("Content-Type"), stop

    def notes_since(self, t0, method=None, tag=None):
        with self.cond:
            return [m for (t, tg, m) in self.notes if t >= t0 and (method is None or m.get("method") == method)
                    and (tag is None or tg.startswith(tag))]

    def wait_note(self, pred, timeout=None, t0=0):
        deadline = time.time() + (timeout or T)
        with self.cond:
            while True:
                for (t, tg, m) in self.notes:
                    if t >= t0 and pred(m, tg):
                        return m
                left = deadline - time.time()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 0.5))


def b64hdr(v):
    return "=?base64?" + base64.b64encode(v.encode("utf-8")).decode() + "?="


def header_value(v):
    """Value encoding of the 2026 Streamable HTTP transport."""
    if isinstance(v, bool):
        s = "true" if v else "false"
    elif isinstance(v, (int, float)):
        s = str(v)
    else:
        s = str(v)
    safe = re.fullmatch(r"[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?", s) is not None
    if not safe or (s.startswith("=?base64?") and s.endswith("?=")):
        return b64hdr(s)
    return s


class Http26Conn(HttpBase):
    """2026-07-28 Streamable HTTP client: per-request metadata and mirrored headers."""

    def __init__(self, url, rec=None, caps=None):
        super().__init__(url, rec, caps)
        self.tools = {}

    def meta(self, caps=None, version=MODERN, extra=None):
        m = {"io.modelcontextprotocol/protocolVersion": version,
             "io.modelcontextprotocol/clientCapabilities": self.caps if caps is None else caps,
             "io.modelcontextprotocol/clientInfo": {"name": "kitp-selftest", "version": "0.1"}}
        m.update(extra or {})
        return m

    def std_headers(self, method, params, version=MODERN):
        h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
             "MCP-Protocol-Version": version, "Mcp-Method": method}
        if method in ("tools/call", "prompts/get"):
            h["Mcp-Name"] = header_value(params.get("name", ""))
        elif method == "resources/read":
            h["Mcp-Name"] = header_value(params.get("uri", ""))
        if method == "tools/call":
            tool = self.tools.get(params.get("name"))
            if tool:
                for path, hname in x_mcp_paths(tool.get("inputSchema")):
                    v = params.get("arguments") or {}
                    for k in path:
                        v = v.get(k) if isinstance(v, dict) else None
                    if v is not None:
                        h["Mcp-Param-" + hname] = header_value(v)
        return h

    def request(self, method, params=None, rid=None, caps=None, meta_extra=None, headers=None, drop_headers=(),
                no_meta=False, version=MODERN, cancel_after=None, on_message=None):
        rid = self.new_id() if rid is None else rid
        params = dict(params or {})
        if not no_meta:
            params["_meta"] = dict(self.meta(caps, version), **(meta_extra or {}))
        body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        h = self.std_headers(method, params, version)
        h.update(headers or {})
        for d in drop_headers:
            h.pop(d, None)
        return self.post(body, rid, h, cancel_after=cancel_after, on_message=on_message)

    def post(self, body, rid, h, cancel_after=None, on_message=None):
        c = self.conn()
        c.request("POST", self.path, body=json.dumps(body, ensure_ascii=False).encode("utf-8"), headers=h)
        r = c.getresponse()
        res = HttpResult()
        res.status = r.status
        res.headers = dict(r.getheaders())
        ct = (res.header("Content-Type") or "").lower()
        tag = "post%s" % rid
        if r.status == 200 and not (ct.startswith("application/json") or ct.startswith("text/event-stream")):
            self.rec.issue("http.content-type", "request answered with Content-Type %r" % ct)
        if r.status == 202:
            self.rec.issue("http.request-not-202", "a request was answered with 202")
        if ct.startswith("text/event-stream"):
            res.sse = True
            stop = threading.Event()

            def handle(e):
                if "comment" in e:
                    res.events.append(e)
                    return
                res.events.append(e)
                with self.lock:
                    self.all_events.append((time.time(), tag, e))
                if e.get("data"):
                    try:
                        m = json.loads(e["data"])
                    except ValueError:
                        self.rec.issue("wire.json", "SSE data is not JSON")
                        return
                    self.rec.add(tag, m)
                    self.rec.check_msg(m)
                    res.messages.append(m)
                    if isinstance(m, dict) and "method" not in m and ("result" in m or "error" in m):
                        res.response = m
                    if on_message:
                        on_message(m)
            if cancel_after is not None:
                def canceller():
                    time.sleep(cancel_after)
                    stop.set()
                    try:
                        c.sock.shutdown(socket.SHUT_RDWR)
                    except Exception:
                        pass
                threading.Thread(target=canceller, daemon=True).start()
            parse_sse_lines(r.readline, handle, stop)
        else:
            res.body = r.read()
            if res.body:
                try:
                    m = json.loads(res.body.decode("utf-8"))
                    self.rec.add(tag, m)
                    self.rec.check_msg(m)
                    res.messages.append(m)
                    res.response = m
                except ValueError:
                    self.rec.issue("wire.json", "HTTP body is not JSON: %r" % res.body[:100])
        c.close()
        if res.response is not None:
            got = res.response.get("id")
            if got is None and "error" in res.response and res.status < 500:
                pass
            elif got != rid or type(got) != type(rid):
                self.rec.issue("jsonrpc.id-match", "response id %r for request id %r" % (got, rid))
        return res


def x_mcp_paths(schema, path=()):
    out = []
    if not isinstance(schema, dict):
        return out
    props = schema.get("properties")
    if isinstance(props, dict):
        for k, sub in props.items():
            if isinstance(sub, dict):
                if "x-mcp-header" in sub:
                    out.append((path + (k,), str(sub["x-mcp-header"])))
                out.extend(x_mcp_paths(sub, path + (k,)))
    return out


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            return True
        except OSError:
            time.sleep(0.2)
    return False
