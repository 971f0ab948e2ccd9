#!/usr/bin/env python3
"""Self-test of kit P.

For every server of kit.jsonl it starts the server, drives it with the hand-written client in
mcpclient.py through a battery of named checks taken from the specification, and compares the
failed checks with the expectation recorded in kitdef.py:

  * a control must fail no check at all;
  * a defective server must fail every check listed for its defect, and nothing else
    (so it shows its defect and is otherwise correct).

    python3 selftest.py                 # everything (parallel, a few minutes)
    python3 selftest.py P03 P117        # some ids
    python3 selftest.py -v P03          # print every check
    python3 selftest.py --jobs 2 ...

Exit status 0 when every server behaves as expected.
"""
import argparse
import base64
import concurrent.futures
import json
import os
import re
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

import kitdef  # noqa: E402
from mcpclient import (LEGACY, MODERN, T, Http25Conn, Http26Conn, Recorder, StdioConn, Timeout,  # noqa: E402
                       b64hdr, free_port, wait_port, x_mcp_paths)

LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
FULL25 = {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}}
FULL26 = {"roots": {}, "sampling": {}, "elicitation": {"form": {}}}
SENSITIVE = re.compile(r"pass(word|wd|phrase)|api[ _-]?key|secret|token|credit[ _-]?card|cvv|ssn|pin\b", re.I)


# ======================================================================================
# result collection

class Results:
    def __init__(self, verbose=False):
        self.fails = {}
        self.passes = set()
        self.lock = threading.Lock()

    def ok(self, name, cond, detail=""):
        with self.lock:
            if cond:
                self.passes.add(name)
            else:
                self.fails.setdefault(name, []).append(str(detail)[:300])

    def fail(self, name, detail):
        self.ok(name, False, detail)

    def step(self, name, fn, *a, **kw):
        """Runs fn; an exception fails `name` (unless name is None: then it is only reported)."""
        try:
            return fn(*a, **kw)
        except Exception as e:  # noqa
            self.fail(name or "internal", "%s: %s" % (type(e).__name__, e))
            return None


# ======================================================================================
# helpers: JSON Schema (small subset) and value checks

JSON_TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}


def schema_problems(s, path="#"):
    """Returns a list of reasons why s is not a valid JSON Schema (2020-12, common keywords)."""
    p = []
    if isinstance(s, bool):
        return p
    if not isinstance(s, dict):
        return ["%s: schema is not an object or boolean" % path]
    t = s.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not ts or any(x not in JSON_TYPES for x in ts):
            p.append("%s: invalid type %r" % (path, t))
    if "required" in s:
        r = s["required"]
        if not isinstance(r, list) or any(not isinstance(x, str) for x in r) or len(set(r)) != len(r):
            p.append("%s: required must be an array of unique strings, got %r" % (path, r))
    if "properties" in s:
        if not isinstance(s["properties"], dict):
            p.append("%s: properties must be an object" % path)
        else:
            for k, v in s["properties"].items():
                p += schema_problems(v, "%s/properties/%s" % (path, k))
    for kw in ("items", "additionalProperties", "not"):
        if kw in s:
            p += schema_problems(s[kw], "%s/%s" % (path, kw))
    for kw in ("anyOf", "oneOf", "allOf"):
        if kw in s:
            if not isinstance(s[kw], list) or not s[kw]:
                p.append("%s: %s must be a non-empty array" % (path, kw))
            else:
                for i, v in enumerate(s[kw]):
                    p += schema_problems(v, "%s/%s/%d" % (path, kw, i))
    if "enum" in s and not isinstance(s["enum"], list):
        p.append("%s: enum must be an array" % path)
    for kw in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        if kw in s and (not isinstance(s[kw], (int, float)) or isinstance(s[kw], bool)):
            p.append("%s: %s must be a number" % (path, kw))
    for kw in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"):
        if kw in s and (not isinstance(s[kw], int) or isinstance(s[kw], bool) or s[kw] < 0):
            p.append("%s: %s must be a non-negative integer" % (path, kw))
    if "$schema" in s and not isinstance(s["$schema"], str):
        p.append("%s: $schema must be a string" % path)
    return p


def type_ok(v, t):
    if t == "string":
        return isinstance(v, str)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == "integer":
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    if t == "boolean":
        return isinstance(v, bool)
    if t == "object":
        return isinstance(v, dict)
    if t == "array":
        return isinstance(v, list)
    if t == "null":
        return v is None
    return True


def validate(v, s, path="$"):
    """Minimal JSON Schema validation; returns a list of errors."""
    if s is True or s is None:
        return []
    if s is False:
        return ["%s: schema false" % path]
    errs = []
    t = s.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not any(type_ok(v, x) for x in ts):
            return ["%s: %r is not of type %s" % (path, v, t)]
    if "enum" in s and v not in s["enum"]:
        errs.append("%s: %r not in enum" % (path, v))
    if "const" in s and v != s["const"]:
        errs.append("%s: %r != const" % (path, v))
    if isinstance(v, dict):
        for r in s.get("required", []) if isinstance(s.get("required"), list) else []:
            if r not in v:
                errs.append("%s: missing required %r" % (path, r))
        props = s.get("properties") or {}
        for k, val in v.items():
            if k in props:
                errs += validate(val, props[k], "%s.%s" % (path, k))
            elif s.get("additionalProperties") is False:
                errs.append("%s: additional property %r" % (path, k))
            elif isinstance(s.get("additionalProperties"), dict):
                errs += validate(val, s["additionalProperties"], "%s.%s" % (path, k))
    if isinstance(v, list) and isinstance(s.get("items"), (dict, bool)):
        for i, x in enumerate(v):
            errs += validate(x, s["items"], "%s[%d]" % (path, i))
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if "minimum" in s and v < s["minimum"]:
            errs.append("%s: below minimum" % path)
        if "maximum" in s and v > s["maximum"]:
            errs.append("%s: above maximum" % path)
    return errs


URI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")


def uri_ok(u):
    return isinstance(u, str) and URI_RE.match(u) is not None


def b64_ok(s):
    if not isinstance(s, str) or len(s) % 4 != 0 or not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", s):
        return False
    try:
        base64.b64decode(s, validate=True)
        return True
    except Exception:
        return False


def content_problems(c):
    if not isinstance(c, dict):
        return ["content block is not an object"]
    t = c.get("type")
    if t == "text":
        return [] if isinstance(c.get("text"), str) else ["text block without text"]
    if t in ("image", "audio"):
        p = []
        if not b64_ok(c.get("data")):
            p.append("%s data is not base64: %r" % (t, str(c.get("data"))[:40]))
        if not isinstance(c.get("mimeType"), str) or "/" not in c.get("mimeType", ""):
            p.append("%s without a valid mimeType" % t)
        return p
    if t == "resource":
        r = c.get("resource") or {}
        p = [] if uri_ok(r.get("uri")) else ["embedded resource with an invalid uri"]
        if "blob" in r and not b64_ok(r["blob"]):
            p.append("embedded blob not base64")
        if "text" not in r and "blob" not in r:
            p.append("embedded resource without text or blob")
        return p
    if t == "resource_link":
        return [] if uri_ok(c.get("uri")) and isinstance(c.get("name"), str) else ["bad resource_link"]
    return ["unknown content type %r" % t]


def result_of(msg):
    return msg.get("result") if isinstance(msg, dict) and isinstance(msg.get("result"), dict) else None


def error_of(msg):
    return msg.get("error") if isinstance(msg, dict) and isinstance(msg.get("error"), dict) else None


def err_code(msg):
    e = error_of(msg)
    return e.get("code") if e else None


def texts(result):
    return "\n".join(c.get("text", "") for c in (result or {}).get("content", []) if isinstance(c, dict))


# ======================================================================================
# era-neutral client adapter

class Client:
    """Uniform request API over StdioConn / Http25Conn / Http26Conn."""

    def __init__(self, era, transport, conn):
        self.era, self.transport, self.c = era, transport, conn
        self.last_http = None
        self.results_seen = []    # (method, result) for every result received
        self.errors_seen = []     # (method, error)

    @property
    def modern(self):
        return self.era == MODERN

    def req(self, method, params=None, caps=None, rid=None, meta_extra=None, no_meta=False, version=MODERN,
            timeout=None, headers=None, drop_headers=()):
        """Sends a request and returns the response message (dict). Raises Timeout."""
        if self.transport == "stdio":
            p = dict(params or {}) if (params is not None or self.modern) else None
            if self.modern and not no_meta:
                meta = {"io.modelcontextprotocol/protocolVersion": version,
                        "io.modelcontextprotocol/clientCapabilities": FULL26 if caps is None else caps,
                        "io.modelcontextprotocol/clientInfo": {"name": "kitp-selftest", "version": "0.1"}}
                meta.update(meta_extra or {})
                p["_meta"] = meta
            elif meta_extra:
                p = dict(p or {})
                p["_meta"] = dict(meta_extra)
            msg = self.c.request(method, p, rid=rid, timeout=timeout)
        elif self.modern:
            r = self.c.request(method, params, rid=rid, caps=FULL26 if caps is None else caps,
                               meta_extra=meta_extra, no_meta=no_meta, version=version, headers=headers,
                               drop_headers=drop_headers)
            self.last_http = r
            if r.response is None:
                raise Timeout("no JSON-RPC response (HTTP %s)" % r.status)
            msg = r.response
        else:
            p = params
            if meta_extra:
                p = dict(p or {})
                p["_meta"] = dict(meta_extra)
            rid = self.c.new_id() if rid is None else rid
            r = self.c.request(method, p, rid=rid, extra_headers=headers)
            self.last_http = r
            if r.response is None:
                got = self._late_get_response(rid)
                if got is None:
                    raise Timeout("no JSON-RPC response (HTTP %s)" % r.status)
                r.response = got
            msg = r.response
        if result_of(msg) is not None:
            self.results_seen.append((method, result_of(msg)))
        if error_of(msg) is not None:
            self.errors_seen.append((method, error_of(msg)))
        return msg

    def _late_get_response(self, rid):
        # A defective server may put the response on the standalone GET stream; accept it (it is recorded).
        end = time.time() + 5
        while time.time() < end:
            for m in list(self.c.response_on_get):
                if m.get("id") == rid or rid is None:
                    return m
            time.sleep(0.1)
        return None

    def result(self, method, params=None, **kw):
        msg = self.req(method, params, **kw)
        r = result_of(msg)
        if r is None:
            raise AssertionError("%s failed: %s" % (method, json.dumps(msg)[:200]))
        return r

    def list_all(self, method, key, params=None, **kw):
        """Follows nextCursor; returns (items, pages)."""
        items, pages = [], []
        cursor = None
        for _ in range(100):
            p = dict(params or {})
            if cursor is not None:
                p["cursor"] = cursor
            r = self.result(method, p, **kw)
            pages.append(r)
            items += r.get(key) or []
            if r.get("nextCursor") is None:
                break
            cursor = r["nextCursor"]
        return items, pages

    def notes_during(self, fn):
        """Runs fn() and returns (its value, notifications received meanwhile for stdio / in its stream)."""
        t0 = time.time()
        v = fn()
        if self.transport == "stdio":
            time.sleep(0.2)
            return v, self.c.notes_since(t0)
        if self.last_http is not None:
            return v, [m for m in self.last_http.messages if isinstance(m, dict) and "method" in m and "id" not in m]
        return v, []


# ======================================================================================
# server process management

class Server:
    def __init__(self, entry):
        self.e = entry
        self.procs = []
        self.port = None
        self.url = None
        self.proc = None

    def cmd(self):
        c = self.e["start"]
        if self.e["transport"] == "http":
            c = c.replace("@PORT@", str(self.port))
        return c

    def start_http(self):
        import subprocess
        self.port = free_port()
        self.proc = subprocess.Popen(self.cmd(), cwd=HERE, shell=True, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        if not wait_port(self.port, 90):
            raise RuntimeError("server did not start listening")
        self.url = "http://127.0.0.1:%d%s" % (self.port, self.e.get("path") or "/mcp")

    def stdio(self, caps=None, rec=None):
        c = StdioConn(self.cmd(), HERE, rec=rec, caps=caps)
        self.procs.append(c)
        return c

    def stop(self):
        for c in self.procs:
            c.kill()
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, 9)
            except Exception:
                pass
            try:
                self.proc.wait(5)
            except Exception:
                pass


# ======================================================================================
# shared feature checks (both eras)

def check_tools(R, cl, discover_caps=None):
    tools, pages = cl.list_all("tools/list", "tools")
    R.ok("tools.list", isinstance(tools, list) and len(tools) > 0, "no tools")
    probs = []
    for t in tools:
        if not isinstance(t.get("name"), str):
            probs.append("tool without name")
        s = t.get("inputSchema")
        if not isinstance(s, dict) or s.get("type") != "object":
            probs.append("%s: inputSchema must be an object schema with type object" % t.get("name"))
        probs += ["%s input: %s" % (t.get("name"), x) for x in schema_problems(s)]
        if "outputSchema" in t:
            probs += ["%s output: %s" % (t.get("name"), x) for x in schema_problems(t["outputSchema"])]
    R.ok("tools.schema-valid", not probs, probs)
    bad = [t.get("name") for t in tools if not re.fullmatch(r"[A-Za-z0-9_.\-]{1,128}", str(t.get("name")))]
    R.ok("tools.names", not bad, bad)
    names = [t.get("name") for t in tools]
    R.ok("tools.names-unique", len(names) == len(set(names)), names)
    return tools, pages


def check_calls(R, cl, tools):
    byname = {t.get("name"): t for t in tools}
    # echo
    if "echo" in byname:
        msg = R.step("tools.call-echo", cl.req, "tools/call", {"name": "echo", "arguments": {"text": "héllo ✓ 漢字"}})
        r = result_of(msg) if msg else None
        R.ok("tools.call-echo", r is not None and not r.get("isError") and "héllo ✓ 漢字" in texts(r),
             json.dumps(msg)[:200])
        if r is not None:
            probs = [x for c in r.get("content", []) for x in content_problems(c)]
            R.ok("tools.content", isinstance(r.get("content"), list) and not probs, probs)
        # invalid arguments: must not be a success
        msg = R.step("tools.invalid-args", cl.req, "tools/call", {"name": "echo", "arguments": {}})
        if msg is not None:
            r = result_of(msg)
            R.ok("tools.invalid-args", error_of(msg) is not None or (r is not None and r.get("isError") is True),
                 json.dumps(msg)[:200])
    # weather: structured content
    if "weather" in byname:
        t = byname["weather"]
        msg = R.step("tools.structured", cl.req, "tools/call", {"name": "weather", "arguments": {"city": "Paris"}})
        r = result_of(msg) if msg else None
        if r is not None and "outputSchema" in t:
            sc = r.get("structuredContent")
            errs = validate(sc, t["outputSchema"]) if "structuredContent" in r else ["no structuredContent"]
            R.ok("tools.structured", not errs, errs)
            if "structuredContent" in r:
                found = False
                for c in r.get("content", []):
                    try:
                        if c.get("type") == "text" and json.loads(c.get("text", "")) == sc:
                            found = True
                    except ValueError:
                        pass
                R.ok("tools.structured-text", found, "no TextContent with the serialized structuredContent")
        elif msg is not None:
            R.fail("tools.structured", json.dumps(msg)[:200])
        msg = R.step("tools.exec-error", cl.req, "tools/call", {"name": "weather", "arguments": {"city": "Atlantis"}})
        if msg is not None:
            r = result_of(msg)
            R.ok("tools.exec-error", r is not None and r.get("isError") is True, json.dumps(msg)[:200])
    # unknown tool
    msg = R.step("tools.unknown", cl.req, "tools/call", {"name": "no_such_tool_xyz", "arguments": {}})
    if msg is not None:
        R.ok("tools.unknown", error_of(msg) is not None, json.dumps(msg)[:200])


def check_prompts(R, cl, declared):
    msg = R.step("prompts.list", cl.req, "prompts/list")
    if msg is None:
        return
    if error_of(msg) is not None:
        R.ok("caps.prompts-declared", not declared, "prompts declared but prompts/list fails")
        return
    prompts, pages = cl.list_all("prompts/list", "prompts")
    R.ok("caps.prompts-declared", declared, "prompts/list works but the prompts capability is not declared")
    names = [p.get("name") for p in prompts]
    probs = []
    for name, args in (("greet", {"name": "Ann"}), ("code_review", {"code": "x = 1", "language": "python"}),
                       ("picture", {})):
        if name not in names:
            continue
        r = R.step("prompts.get", cl.result, "prompts/get", {"name": name, "arguments": args})
        if r is None:
            continue
        msgs = r.get("messages")
        if not isinstance(msgs, list) or not msgs:
            probs.append("%s: no messages" % name)
            continue
        for m in msgs:
            if m.get("role") not in ("user", "assistant"):
                probs.append("%s: role %r" % (name, m.get("role")))
            probs += ["%s: %s" % (name, x) for x in content_problems(m.get("content"))]
    R.ok("prompts.content", not probs, probs)
    msg = R.step("prompts.errors-unknown", cl.req, "prompts/get", {"name": "no_such_prompt", "arguments": {}})
    if msg is not None:
        R.ok("prompts.errors-unknown", err_code(msg) == -32602, json.dumps(msg)[:200])
    if "greet" in names:
        msg = R.step("prompts.errors-missing-arg", cl.req, "prompts/get", {"name": "greet", "arguments": {}})
        if msg is not None:
            R.ok("prompts.errors-missing-arg", err_code(msg) == -32602, json.dumps(msg)[:200])
    return pages


def check_resources(R, cl, declared):
    msg = R.step("resources.list", cl.req, "resources/list")
    if msg is None:
        return None
    if error_of(msg) is not None:
        R.ok("caps.resources-declared", not declared, "resources declared but resources/list fails")
        return None
    res, pages = cl.list_all("resources/list", "resources")
    R.ok("caps.resources-declared", declared, "resources/list works but the capability is not declared")
    R.ok("resources.uris", all(uri_ok(r.get("uri")) for r in res), [r.get("uri") for r in res])
    probs = []
    reads = []
    for r in res:
        if not uri_ok(r.get("uri")):
            continue
        msg = R.step("resources.read", cl.req, "resources/read", {"uri": r["uri"]})
        rr = result_of(msg) if msg else None
        if rr is None:
            probs.append("%s: %s" % (r["uri"], json.dumps(msg)[:100]))
            continue
        reads.append(rr)
        cs = rr.get("contents")
        if not isinstance(cs, list) or not cs:
            probs.append("%s: no contents" % r["uri"])
            continue
        for c in cs:
            if "blob" in c and not b64_ok(c["blob"]):
                probs.append("%s: blob is not base64" % r["uri"])
            if "text" not in c and "blob" not in c:
                probs.append("%s: neither text nor blob" % r["uri"])
    R.ok("resources.read", not probs, probs)
    tm = R.step("resources.templates", cl.req, "resources/templates/list")
    tpages = []
    if tm is not None and result_of(tm) is not None:
        tl, tpages = cl.list_all("resources/templates/list", "resourceTemplates")
        R.ok("resources.templates", all(isinstance(t.get("uriTemplate"), str) for t in tl), tl)
        if any(t.get("uriTemplate") == "mem://notes/{id}" for t in tl):
            rr = R.step("resources.templates", cl.result, "resources/read", {"uri": "mem://notes/alpha"})
            if rr is not None:
                reads.append(rr)
    msg = R.step("resources.notfound", cl.req, "resources/read", {"uri": "mem://does-not-exist/zz"})
    if msg is not None:
        r = result_of(msg)
        if cl.modern:
            R.ok("resources.notfound", err_code(msg) == -32602, json.dumps(msg)[:200])
        else:
            R.ok("resources.notfound", error_of(msg) is not None or (r and r.get("contents")), json.dumps(msg)[:200])
            R.ok("resources.notfound-code", err_code(msg) == -32002, json.dumps(msg)[:200])
    return {"list": pages, "templates": tpages, "reads": reads}


def check_completion(R, cl, declared):
    if not declared:
        msg = R.step("caps.completions-declared", cl.req, "completion/complete",
                     {"ref": {"type": "ref/prompt", "name": "code_review"},
                      "argument": {"name": "language", "value": "py"}})
        R.ok("caps.completions-declared", msg is None or result_of(msg) is None,
             "completion/complete works but the completions capability is not declared")
        return
    msg = R.step("completion.values", cl.req, "completion/complete",
                 {"ref": {"type": "ref/prompt", "name": "code_review"},
                  "argument": {"name": "language", "value": "py"}})
    if msg is not None:
        r = result_of(msg)
        comp = (r or {}).get("completion") or {}
        vals = comp.get("values")
        R.ok("completion.values", isinstance(vals, list) and len(vals) <= 100 and
             all(isinstance(v, str) for v in vals) and (r or {}).get("resultType", "complete") == "complete",
             json.dumps(msg)[:200])
        if cl.modern:
            R.ok("mrtr.only-allowed", (r or {}).get("resultType") != "input_required", json.dumps(msg)[:200])
    msg = R.step("completion.errors", cl.req, "completion/complete",
                 {"ref": {"type": "ref/prompt", "name": "no_such_prompt"}, "argument": {"name": "x", "value": ""}})
    if msg is not None:
        R.ok("completion.errors", err_code(msg) == -32602, json.dumps(msg)[:200])


def check_invalid_cursor(R, cl):
    msg = R.step("pagination.invalid-cursor", cl.req, "tools/list", {"cursor": "definitely-not-a-cursor!"})
    if msg is not None:
        R.ok("pagination.invalid-cursor", err_code(msg) == -32602, json.dumps(msg)[:200])


def progress_checks(R, cl, tools):
    """slow with a progress token: values increase, right token, nothing after the response."""
    if "slow" not in {t.get("name") for t in tools}:
        return
    tok = "tok-progress-1"
    t0 = time.time()
    if cl.transport == "stdio":
        p = {"name": "slow", "arguments": {"ms": 400, "steps": 4}}
        if cl.modern:
            rid = cl.c.new_id()
            p["_meta"] = {"io.modelcontextprotocol/protocolVersion": MODERN,
                          "io.modelcontextprotocol/clientCapabilities": FULL26, "progressToken": tok}
        else:
            rid = cl.c.new_id()
            p["_meta"] = {"progressToken": tok}
        msg = R.step("progress.monotonic", cl.c.request, "tools/call", p, rid)
        time.sleep(1.0)
        order = [m for (t, m) in cl.c.order if t >= t0]
        idx_resp = next((i for i, m in enumerate(order) if m.get("id") == rid and "method" not in m), None)
        notes = [(i, m) for i, m in enumerate(order) if m.get("method") == "notifications/progress"]
    else:
        msg = R.step("progress.monotonic", cl.req, "tools/call", {"name": "slow", "arguments": {"ms": 400, "steps": 4}},
                     meta_extra={"progressToken": tok})
        ms = cl.last_http.messages if cl.last_http else []
        order = [m for m in ms if isinstance(m, dict)]
        idx_resp = next((i for i, m in enumerate(order) if "method" not in m and ("result" in m or "error" in m)),
                        None)
        notes = [(i, m) for i, m in enumerate(order) if m.get("method") == "notifications/progress"]
    if msg is None:
        return
    mine = [(i, m) for i, m in notes if (m.get("params") or {}).get("progressToken") == tok]
    others = [m for i, m in notes if (m.get("params") or {}).get("progressToken") != tok]
    R.ok("progress.token", not others, [json.dumps(m)[:150] for m in others])
    vals = [(m.get("params") or {}).get("progress") for i, m in mine]
    R.ok("progress.monotonic", all(isinstance(v, (int, float)) for v in vals) and
         all(b > a for a, b in zip(vals, vals[1:])), vals)
    late = [m for i, m in mine if idx_resp is not None and i > idx_resp]
    R.ok("progress.after-response", not late, [json.dumps(m)[:120] for m in late])


# ======================================================================================
# 2025-11-25 battery

def legacy_battery(R, srv, e):
    http = e["transport"] == "http"
    rec = Recorder()

    def new_conn(caps):
        if http:
            return Http25Conn(srv.url, rec, caps)
        return srv.stdio(caps, rec)

    # ---------------------------------------------------------------- bare session
    c = new_conn({})
    c.rec = rec
    cl = Client(LEGACY, e["transport"], c)
    if not http:
        msg = R.step("ping.before-init", c.request, "ping", None)
        if msg is not None:
            R.ok("ping.before-init", result_of(msg) == {}, json.dumps(msg)[:200])
    if http:
        res = R.step("init.version-fallback", c.initialize, "2099-01-01", {})
        init = (res.response if res else None)
    else:
        init = R.step("init.version-fallback", c.request, "initialize",
                      {"protocolVersion": "2099-01-01", "capabilities": {},
                       "clientInfo": {"name": "kitp-selftest", "version": "0.1"}})
    ir = result_of(init) if init else None
    v = (ir or {}).get("protocolVersion")
    R.ok("init.version-fallback", isinstance(v, str) and v != "2099-01-01" and re.fullmatch(r"\d{4}-\d\d-\d\d", v),
         v)
    if http and ir:
        c.version = v
    c.notify("notifications/initialized")
    tools = []
    r = R.step("tools.list", cl.result, "tools/list")
    if r:
        tools = r.get("tools") or []
    names = {t.get("name") for t in tools}
    t0 = time.time()
    for name, args, check in (("ask", {"question": "Ready?"}, "elicit.capability"),
                              ("summarize", {"text": "hello world"}, "sampling.capability"),
                              ("list_roots", {}, "roots.capability")):
        if name in names:
            R.step(check, cl.req, "tools/call", {"name": name, "arguments": args}, timeout=40)
    time.sleep(2.5)    # let periodic server pings (if any) happen
    sreqs = [m for (t, *rest) in c.server_requests for m in [rest[-1]]]
    methods = [m.get("method") for m in sreqs]
    R.ok("elicit.capability", "elicitation/create" not in methods, methods)
    R.ok("sampling.capability", "sampling/createMessage" not in methods, methods)
    R.ok("roots.capability", "roots/list" not in methods, methods)
    bare_ids = [m.get("id") for m in sreqs]
    R.ok("server-requests.unique-ids", len(bare_ids) == len(set(json.dumps(i) for i in bare_ids)), bare_ids)

    # ---------------------------------------------------------------- main session
    c = new_conn(FULL25)
    c.rec = rec
    cl = Client(LEGACY, e["transport"], c)
    if http:
        res = R.step("init.result", c.initialize, LEGACY, FULL25)
        init = res.response if res else None
    else:
        init = R.step("init.result", c.request, "initialize",
                      {"protocolVersion": LEGACY, "capabilities": FULL25,
                       "clientInfo": {"name": "kitp-selftest", "version": "0.1"}})
    ir = result_of(init) if init else None
    if ir is None:
        R.fail("init.result", "initialize failed: %s" % json.dumps(init)[:200])
        return
    si = ir.get("serverInfo")
    R.ok("init.result", isinstance(ir.get("capabilities"), dict) and isinstance(si, dict) and
         isinstance(si.get("name"), str) and isinstance(si.get("version"), str), json.dumps(ir)[:200])
    R.ok("init.version-same", ir.get("protocolVersion") == LEGACY, ir.get("protocolVersion"))
    caps = ir.get("capabilities") or {}
    stateless = http and c.sid is None     # a session-less server cannot route client answers or cancellations
    if http:
        sid = c.sid
        if sid is not None:
            R.ok("http.session-id-chars", re.fullmatch(r"[\x21-\x7e]+", sid) is not None, repr(sid))
    c.notify("notifications/initialized")

    get_ok = False
    if http:
        st, ct, stop = c.open_get("get1")
        R.ok("http.get", st == 405 or (st == 200 and (ct or "").startswith("text/event-stream")), "GET -> %s %s" % (st, ct))
        get_ok = st == 200
        time.sleep(0.3)

    # ping with a string id
    msg = R.step("ping.result", cl.req, "ping", None, rid="ping-a-1")
    if msg is not None:
        R.ok("ping.result", result_of(msg) == {}, json.dumps(msg)[:200])
    # unknown method
    msg = R.step("jsonrpc.method-not-found", cl.req, "kitp/no-such-method", {})
    if msg is not None:
        R.ok("jsonrpc.method-not-found", err_code(msg) == -32601, json.dumps(msg)[:200])
    # notifications get no response
    if not http:
        c.notify("notifications/kitp_unknown", {"x": 1})
        c.notify("notifications/roots/list_changed")
        time.sleep(3.0)
        R.ok("notify.no-response", not c.unmatched(), [json.dumps(m)[:150] for m in c.unmatched()])
    else:
        r1 = c.notify("notifications/kitp_unknown", {"x": 1})
        R.ok("http.notification-202", r1.status == 202 and not r1.body, "HTTP %s body %r" % (r1.status, r1.body[:80]))

    tools, pages = R.step("tools.list", check_tools, R, cl) or ([], [])
    R.ok("caps.tools-declared", "tools" in caps or not tools, "tools offered but not declared")
    check_calls(R, cl, tools)
    check_prompts(R, cl, "prompts" in caps)
    check_resources(R, cl, "resources" in caps)
    check_completion(R, cl, "completions" in caps)
    check_invalid_cursor(R, cl)
    # logging
    msg = R.step("logging.setlevel", cl.req, "logging/setLevel", {"level": "verbose"})
    if msg is not None and "logging" in caps:
        R.ok("logging.setlevel-invalid", err_code(msg) == -32602, json.dumps(msg)[:200])
    if "logging" in caps:
        msg = R.step("logging.setlevel", cl.req, "logging/setLevel", {"level": "debug"})
        if msg is not None:
            R.ok("logging.setlevel", result_of(msg) == {}, json.dumps(msg)[:200])
        R.step("logging.setlevel", cl.req, "tools/call", {"name": "echo", "arguments": {"text": "log me"}})
    # progress
    progress_checks(R, cl, tools)
    names = {t.get("name") for t in tools}
    # server -> client requests
    if "ask" in names:
        t0 = time.time()
        msg = R.step("elicit.roundtrip", cl.req, "tools/call", {"name": "ask", "arguments": {"question": "Ready?"}},
                     timeout=40)
        reqs = [m for m in server_requests(c, t0) if m.get("method") == "elicitation/create"]
        if not reqs and not stateless:
            R.fail("elicit.roundtrip", "no elicitation/create for a client that declared elicitation")
        for m in reqs:
            p = m.get("params") or {}
            R.ok("elicit.modes", p.get("mode", "form") == "form", "mode %r; client declared only form" % p.get("mode"))
            R.ok("elicit.shape", isinstance(p.get("message"), str) and
                 (p.get("mode") == "url" or flat_schema(p.get("requestedSchema"))), json.dumps(p)[:200])
            sens = [k for k, v in ((p.get("requestedSchema") or {}).get("properties") or {}).items()
                    if SENSITIVE.search(k) or SENSITIVE.search(str(v.get("title", ""))) or
                    SENSITIVE.search(str(v.get("description", "")))]
            R.ok("elicit.sensitive", p.get("mode") == "url" or not sens, sens)
            r = result_of(msg) if msg else None
            R.ok("elicit.roundtrip", r is not None and (p.get("mode") == "url" or "forty-two" in texts(r)),
                 json.dumps(msg)[:200])
    if "summarize" in names:
        t0 = time.time()
        msg = R.step("sampling.roundtrip", cl.req, "tools/call", {"name": "summarize", "arguments": {"text": "hello"}},
                     timeout=40)
        reqs = [m for m in server_requests(c, t0) if m.get("method") == "sampling/createMessage"]
        if not stateless:
            R.ok("sampling.roundtrip", reqs and msg is not None and "a short summary" in texts(result_of(msg)),
                 json.dumps(msg)[:200])
        for m in reqs:
            p = m.get("params") or {}
            R.ok("sampling.tools", "tools" not in p and "toolChoice" not in p, "tools sent to a client without sampling.tools")
            R.ok("sampling.includecontext", p.get("includeContext", "none") == "none", p.get("includeContext"))
    if "list_roots" in names:
        msg = R.step("roots.roundtrip", cl.req, "tools/call", {"name": "list_roots", "arguments": {}}, timeout=40)
        if not stateless:
            R.ok("roots.roundtrip", msg is not None and "file:///tmp/project" in texts(result_of(msg)),
                 json.dumps(msg)[:200])
    # tasks
    if "tasks" in caps:
        R.step("tasks.create", legacy_tasks, R, cl, names, caps.get("tasks") or {})
    # subscriptions
    if (caps.get("resources") or {}).get("subscribe") and (not http or get_ok):
        t0 = time.time()
        msg = R.step("subscribe.updates", cl.req, "resources/subscribe", {"uri": "mem://ticker"})
        got = c.wait_note((lambda m, *tg: m.get("method") == "notifications/resources/updated" and
                           (m.get("params") or {}).get("uri") == "mem://ticker"), timeout=12, t0=t0)
        R.ok("subscribe.updates", msg is not None and result_of(msg) is not None and got is not None,
             "no notifications/resources/updated after subscribing")
        R.step("subscribe.updates", cl.req, "resources/unsubscribe", {"uri": "mem://ticker"})
    # cancellation (stdio: in-band; http: POSTed notification)
    if "slow" in names and not stateless:
        legacy_cancel(R, cl, c, http)
    if http:
        legacy_http_probes(R, srv, c, cl, rec)
    # late cancellation of a finished request, then the server must still answer
    c.notify("notifications/cancelled", {"requestId": 1, "reason": "late"})
    c.notify("notifications/cancelled", {"requestId": "never-sent-9", "reason": "unknown"})
    time.sleep(1.0)
    msg = R.step("cancel.survives-late", cl.req, "tools/list", {})
    R.ok("cancel.survives-late", msg is not None and result_of(msg) is not None, json.dumps(msg)[:200])
    if http and get_ok:
        time.sleep(1.0)
        stop.set()

    # ---------------------------------------------------------------- global checks on the transcript
    allnotes = [m for (t, ch, m) in rec.msgs if isinstance(m, dict) and "method" in m and "id" not in m]
    lc = [m["method"] for m in allnotes if m["method"].endswith("/list_changed")]
    bad = [x for x in lc if not (caps.get(x.split("/")[1]) or {}).get("listChanged")]
    R.ok("caps.list-changed", not bad, bad)
    logs = [m for m in allnotes if m["method"] == "notifications/message"]
    if logs:
        R.ok("caps.logging-declared", "logging" in caps, "notifications/message without the logging capability")
    sreqs = server_requests(c, 0)
    ids = [json.dumps(m.get("id")) for m in sreqs]
    R.ok("server-requests.unique-ids", len(ids) == len(set(ids)), ids)
    if http:
        sse_checks(R, c)
    wire_checks(R, rec)


def flat_schema(s):
    if not isinstance(s, dict) or s.get("type") != "object":
        return False
    for v in (s.get("properties") or {}).values():
        if not isinstance(v, dict) or v.get("type") not in ("string", "number", "integer", "boolean", "array"):
            return False
    return True


def server_requests(c, t0):
    out = []
    for item in list(c.server_requests):
        t, m = item[0], item[-1]
        if t >= t0:
            out.append(m)
    return out


def legacy_tasks(R, cl, names, tcaps):
    if "longjob" not in names:
        return
    msg = cl.req("tools/call", {"name": "longjob", "arguments": {"ms": 1500}, "task": {"ttl": 60000}})
    r = result_of(msg) or {}
    task = r.get("task") or {}
    tid = task.get("taskId")
    R.ok("tasks.create", isinstance(tid, str) and task.get("status") == "working" and
         isinstance(task.get("createdAt"), str) and isinstance(task.get("lastUpdatedAt"), str) and "ttl" in task,
         json.dumps(msg)[:250])
    if tid is None:
        return
    g = cl.req("tasks/get", {"taskId": tid})
    gr = result_of(g) or {}
    R.ok("tasks.get", gr.get("taskId") == tid and gr.get("status") in ("working", "completed", "input_required")
         and "ttl" in gr and isinstance(gr.get("createdAt"), str) and isinstance(gr.get("lastUpdatedAt"), str),
         json.dumps(g)[:250])
    res = cl.req("tasks/result", {"taskId": tid}, timeout=40)
    rr = result_of(res)
    R.ok("tasks.result", rr is not None and isinstance(rr.get("content"), list), json.dumps(res)[:200])
    if rr is not None:
        R.ok("tasks.result-meta", ((rr.get("_meta") or {}).get("io.modelcontextprotocol/related-task") or {})
             .get("taskId") == tid, json.dumps(rr.get("_meta")))
    else:
        # wait for completion another way, so later steps see a finished task
        for _ in range(60):
            g = result_of(cl.req("tasks/get", {"taskId": tid})) or {}
            if g.get("status") in ("completed", "failed", "cancelled"):
                break
            time.sleep(0.25)
    g = result_of(cl.req("tasks/get", {"taskId": tid})) or {}
    R.ok("tasks.get", g.get("status") == "completed", json.dumps(g)[:200])
    if "list" in tcaps:
        listed = []
        cursor = None
        for _ in range(50):
            lr = result_of(cl.req("tasks/list", {"cursor": cursor} if cursor else {})) or {}
            listed += [t.get("taskId") for t in lr.get("tasks") or []]
            cursor = lr.get("nextCursor")
            if cursor is None:
                break
        R.ok("tasks.list", tid in listed, "task %s retrievable with tasks/get but not listed" % tid)
    cm = cl.req("tasks/cancel", {"taskId": tid})
    R.ok("tasks.cancel-terminal", err_code(cm) == -32602, json.dumps(cm)[:200])
    # cancel a running task
    msg = cl.req("tools/call", {"name": "longjob", "arguments": {"ms": 2500}, "task": {"ttl": 60000}})
    t2 = ((result_of(msg) or {}).get("task") or {}).get("taskId")
    if t2 is not None:
        time.sleep(0.3)
        cm = cl.req("tasks/cancel", {"taskId": t2})
        R.ok("tasks.cancel", (result_of(cm) or {}).get("status") == "cancelled", json.dumps(cm)[:200])
        time.sleep(4.0)
        g = result_of(cl.req("tasks/get", {"taskId": t2}))
        R.ok("tasks.cancel-sticky", g is None or g.get("status") == "cancelled", json.dumps(g)[:200])
    bad = cl.req("tasks/get", {"taskId": "no-such-task-0000"})
    R.ok("tasks.unknown-id", err_code(bad) == -32602, json.dumps(bad)[:200])
    if "reindex" in names:
        m = cl.req("tools/call", {"name": "reindex", "arguments": {}})
        R.ok("tasks.required", err_code(m) == -32601, json.dumps(m)[:200])
    m = cl.req("tools/call", {"name": "echo", "arguments": {"text": "x"}, "task": {"ttl": 1000}})
    R.ok("tasks.forbidden", err_code(m) == -32601, json.dumps(m)[:200])


def legacy_cancel(R, cl, c, http):
    tok = "tok-cancel-1"
    if not http:
        rid = c.new_id()
        t0 = time.time()
        c.request("tools/call", {"name": "slow", "arguments": {"ms": 4000, "steps": 4},
                                 "_meta": {"progressToken": tok}}, rid=rid, wait=False)
        c.wait_note(lambda m: m.get("method") == "notifications/progress", timeout=15, t0=t0)
        c.notify("notifications/cancelled", {"requestId": rid, "reason": "selftest"})
        end = time.time() + 8
        while time.time() < end and not c.has_response(rid):
            time.sleep(0.2)
        R.ok("cancel.no-response", not c.has_response(rid), "a response was sent for a cancelled request")
        if rid in c.pending:
            c.pending.remove(rid)
    else:
        # POST the request in a thread, cancel it through a second POST
        box = {}
        rid = cl.c.new_id()

        def run():
            try:
                box["r"] = c.request("tools/call", {"name": "slow", "arguments": {"ms": 4000, "steps": 4},
                                                    "_meta": {"progressToken": tok}}, rid=rid)
            except Exception as ex:  # noqa
                box["e"] = ex
        th = threading.Thread(target=run, daemon=True)
        th.start()
        time.sleep(1.5)
        c.cancelled_ids.add(rid)
        n = c.notify("notifications/cancelled", {"requestId": rid, "reason": "selftest"})
        R.ok("http.notification-202", n.status == 202 and not n.body, "HTTP %s" % n.status)
        th.join(30)
        r = box.get("r")
        R.ok("cancel.no-response", r is None or r.response is None, "a response was sent for a cancelled request")


def legacy_http_probes(R, srv, c, cl, rec):
    base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    ping = {"jsonrpc": "2.0", "id": 9001, "method": "ping"}
    h = c.headers({"Origin": "http://evil.example"})
    r = c.raw("POST", h, ping)
    R.ok("http.origin", r.status == 403, "foreign Origin -> HTTP %s" % r.status)
    r = c.raw("POST", c.headers({"Origin": "http://localhost:%d" % srv.port}), ping)
    R.ok("http.origin", r.status == 200, "localhost Origin -> HTTP %s" % r.status)
    r = c.raw("POST", c.headers({"MCP-Protocol-Version": "1999-01-01"}), ping)
    R.ok("http.pv-header", r.status == 400, "MCP-Protocol-Version 1999-01-01 -> HTTP %s" % r.status)
    if c.sid:
        h = dict(base)
        h["MCP-Protocol-Version"] = c.version or LEGACY
        r = c.raw("POST", h, ping)
        R.ok("http.session-missing", r.status == 400, "no Mcp-Session-Id -> HTTP %s" % r.status)
        h2 = dict(h)
        h2["Mcp-Session-Id"] = "no-such-session-0123"
        r = c.raw("POST", h2, ping)
        R.ok("http.session-unknown", r.status == 404, "unknown session -> HTTP %s" % r.status)
        # a fresh session, deleted, then reused
        c2 = Http25Conn(srv.url, rec, {})
        c2.initialize(LEGACY, {})
        c2.notify("notifications/initialized")
        if c2.sid:
            d = c2.raw("DELETE", c2.headers())
            R.ok("http.session-deleted", d.status in (200, 202, 204, 405), "DELETE -> HTTP %s" % d.status)
            if d.status in (200, 202, 204):
                r = c2.raw("POST", c2.headers(), ping)
                R.ok("http.session-deleted", r.status == 404, "request after DELETE -> HTTP %s" % r.status)


def sse_checks(R, c):
    ids = [i for (tag, i) in c.event_ids]
    R.ok("sse.event-ids-unique", len(ids) == len(set(ids)), "duplicate SSE event ids: %s" %
         sorted({i for i in ids if ids.count(i) > 1})[:10])
    R.ok("sse.priming", all(c.primed), "SSE streams without a priming event: %d of %d" %
         (c.primed.count(False), len(c.primed)))
    R.ok("sse.retry-before-close", all(c.retry_before_close), "connection closed without retry before")
    R.ok("sse.no-response-on-get", not c.response_on_get, [json.dumps(m)[:120] for m in c.response_on_get])
    seen = {}
    dup = []
    for (t, tag, e) in c.all_events:
        d = e.get("data")
        if not d:
            continue
        seen.setdefault(d, set()).add(tag)
    for d, tags in seen.items():
        if len(tags) > 1:
            dup.append(d[:100])
    R.ok("sse.no-broadcast", not dup, dup)


def wire_checks(R, rec):
    for name in ("wire.json", "wire.utf8", "wire.single-line", "jsonrpc.version", "jsonrpc.error-shape",
                 "jsonrpc.id-match", "jsonrpc.error-id", "http.content-type", "http.request-not-202",
                 "http.notification-202"):
        R.ok(name, name not in rec.issues, rec.issues.get(name, [])[:3])


# ======================================================================================
# 2026-07-28 battery

def modern_battery(R, srv, e):
    http = e["transport"] == "http"
    rec = Recorder()

    def new_conn():
        if http:
            return Http26Conn(srv.url, rec, FULL26)
        c = srv.stdio(FULL26, rec)
        c.answer = lambda *a: None     # 2026 clients never send JSON-RPC responses
        return c

    # ---------------------------------------------------------------- a fresh connection: capability errors first
    c = new_conn()
    cl = Client(MODERN, e["transport"], c)
    first_tools = (R.step("tools.list", cl.result, "tools/list", {}, caps={}) or {}).get("tools") or []
    msg = None
    if "ask" in {t.get("name") for t in first_tools}:
        msg = R.step("mrtr.missing-cap", cl.req, "tools/call", {"name": "ask", "arguments": {"question": "Ready?"}},
                     caps={})
    if msg is not None:
        rr = result_of(msg)
        data = (error_of(msg) or {}).get("data") or {}
        R.ok("mrtr.missing-cap", err_code(msg) == -32021 and "elicitation" in (data.get("requiredCapabilities") or {}),
             json.dumps(msg)[:200])
        if http:
            R.ok("http.status-400", cl.last_http.status == 400 or err_code(msg) != -32021,
                 "MissingRequiredClientCapability with HTTP %s" % cl.last_http.status)
        if rr is not None and rr.get("resultType") == "input_required":
            R.fail("mrtr.undeclared", "input requests for a client that declared no capabilities")
    if not http:
        # initialize from a legacy client (own process: a dual-era server switches that process to legacy)
        c0 = srv.stdio({}, rec)
        c0.answer = lambda *a: None
        msg = R.step("initialize.refusal", c0.request, "initialize",
                     {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "legacy", "version": "1"}})
        if msg is not None:
            legacy_ok = result_of(msg) is not None and (result_of(msg).get("protocolVersion") == LEGACY)
            R.ok("initialize.refusal", legacy_ok or (error_of(msg) is not None and MODERN in json.dumps(error_of(msg))),
                 json.dumps(msg)[:200])
        c0.kill()
    else:
        h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        r = c.raw("POST", h, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                              "params": {"protocolVersion": LEGACY, "capabilities": {},
                                         "clientInfo": {"name": "legacy", "version": "1"}}})
        R.ok("initialize.refusal", r.status >= 400 and MODERN in r.body.decode("utf-8", "replace"),
             "HTTP %s %r" % (r.status, r.body[:150]))

    # ---------------------------------------------------------------- main
    c = new_conn() if http else c
    cl = Client(MODERN, e["transport"], c)
    dr = None
    msg = R.step("discover.result", cl.req, "server/discover", {})
    if msg is not None:
        dr = result_of(msg)
        R.ok("discover.result", dr is not None and dr.get("resultType") == "complete" and
             isinstance(dr.get("supportedVersions"), list) and MODERN in dr["supportedVersions"] and
             isinstance(dr.get("capabilities"), dict), json.dumps(msg)[:200])
        if dr is not None:
            cache_fields_ok(R, "discover.cache", [dr])
            si = (dr.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo")
            R.ok("discover.serverinfo", isinstance(si, dict) and isinstance(si.get("name"), str) and
                 isinstance(si.get("version"), str), json.dumps(dr.get("_meta")))
    caps = (dr or {}).get("capabilities") or {}

    tools, pages = R.step("tools.list", check_tools, R, cl) or ([], [])
    if http:
        c.tools = {t.get("name"): t for t in tools}
    cache_fields_ok(R, "cache.fields", pages)
    scopes = {p.get("cacheScope") for p in pages}
    R.ok("cache.pages-scope", len(scopes) <= 1, scopes)
    xprobs = []
    for t in tools:
        xprobs += x_mcp_problems(t)
    R.ok("tools.x-mcp-header", not xprobs, xprobs)
    if dr is not None:
        R.ok("caps.tools-declared", "tools" in caps or not tools, "tools offered but not declared")
    tools2, _ = R.step("tools.order-stable", cl.list_all, "tools/list", "tools") or ([], [])
    R.ok("tools.order-stable", [t.get("name") for t in tools] == [t.get("name") for t in tools2],
         "tools/list order changed between two calls")
    check_calls(R, cl, tools)
    tools3, _ = R.step("tools.list-stable", cl.list_all, "tools/list", "tools") or ([], [])
    R.ok("tools.list-stable", {t.get("name") for t in tools} == {t.get("name") for t in tools3},
         "tools/list changed after other requests: %s" %
         sorted({t.get("name") for t in tools} ^ {t.get("name") for t in tools3}))
    pp = check_prompts(R, cl, "prompts" in caps) if dr is not None else None
    if pp:
        cache_fields_ok(R, "cache.fields", pp)
    rs = check_resources(R, cl, "resources" in caps) if dr is not None else None
    if rs:
        cache_fields_ok(R, "cache.fields", rs["list"] + rs["templates"] + rs["reads"])
    if dr is not None:
        check_completion(R, cl, "completions" in caps)
    check_invalid_cursor(R, cl)
    names = {t.get("name") for t in tools}

    # logging
    if "echo" in names:
        t0 = time.time()
        _, notes = cl.notes_during(lambda: cl.req("tools/call", {"name": "echo", "arguments": {"text": "quiet"}}))
        logs = [m for m in notes if m.get("method") == "notifications/message"]
        R.ok("logging.no-unrequested", not logs, [json.dumps(m)[:100] for m in logs])
        _, notes = cl.notes_during(lambda: cl.req("tools/call", {"name": "echo", "arguments": {"text": "loud"}},
                                                  meta_extra={"io.modelcontextprotocol/logLevel": "debug"}))
        logs = [m for m in notes if m.get("method") == "notifications/message"]
        if logs and dr is not None:
            R.ok("caps.logging-declared", "logging" in caps, "notifications/message without the logging capability")
        R.ok("logging.levels", all((m.get("params") or {}).get("level") in LOG_LEVELS for m in logs), logs[:2])
        msg = R.step("logging.loglevel-invalid", cl.req, "tools/call", {"name": "echo", "arguments": {"text": "x"}},
                     meta_extra={"io.modelcontextprotocol/logLevel": "verbose"})
        if msg is not None:
            R.ok("logging.loglevel-invalid", err_code(msg) == -32602, json.dumps(msg)[:200])

    progress_checks(R, cl, tools)

    # required _meta
    msg = R.step("meta.required", cl.req, "tools/list", {}, no_meta=True)
    if msg is not None:
        R.ok("meta.required", err_code(msg) == -32602, json.dumps(msg)[:200])
        if http:
            R.ok("http.status-400", cl.last_http.status == 400 or err_code(msg) != -32602,
                 "missing _meta rejected with HTTP %s" % cl.last_http.status)
    msg = R.step("meta.required-caps", cl.req, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}},
                 no_meta=True)
    if msg is not None:
        R.ok("meta.required-caps", err_code(msg) == -32602, json.dumps(msg)[:200])
    # unsupported version
    msg = R.step("version.unsupported", cl.req, "tools/list", {}, version="1999-01-01")
    if msg is not None:
        d = (error_of(msg) or {}).get("data") or {}
        R.ok("version.unsupported", err_code(msg) == -32022 and isinstance(d.get("supported"), list) and
             MODERN in d["supported"] and d.get("requested") == "1999-01-01", json.dumps(msg)[:200])
        if http:
            R.ok("http.status-400", cl.last_http.status == 400 or err_code(msg) != -32022,
                 "UnsupportedProtocolVersion with HTTP %s" % cl.last_http.status)

    # MRTR
    if "ask" in names:
        modern_mrtr(R, cl, names)
    # subscriptions/listen
    if (caps.get("resources") or {}).get("subscribe"):
        if http:
            modern_listen_http(R, c)
        else:
            modern_listen_stdio(R, c)
    if not http and "slow" in names:
        modern_cancel_stdio(R, c)
    if http:
        modern_http_probes(R, srv, c, cl, tools)

    # ---------------------------------------------------------------- global checks
    bad_rt = [(m, r.get("resultType")) for (m, r) in cl.results_seen
              if r.get("resultType") not in ("complete", "input_required")]
    R.ok("results.resultType", not bad_rt, bad_rt[:5])
    no_si = [m for (m, r) in cl.results_seen
             if not isinstance((r.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo"), dict)]
    R.ok("serverinfo.meta", not no_si, sorted(set(no_si))[:8])
    allmsgs = [m for (t, ch, m) in rec.msgs if isinstance(m, dict)]
    sreq = [m for m in allmsgs if "method" in m and "id" in m]
    R.ok("no-server-requests", not sreq, [json.dumps(m)[:120] for m in sreq[:3]])
    codes = [e.get("code") for m in allmsgs for e in [error_of(m)] if e]
    reserved = [x for x in codes if isinstance(x, int) and ((-32099 <= x <= -32020 and x not in (-32020, -32021, -32022))
                                                             or x in (-32002, -32042))]
    R.ok("errors.reserved-range", not reserved, reserved)
    legacy = [x for x in codes if isinstance(x, int) and -32019 <= x <= -32000 and x != -32002]
    R.ok("errors.legacy-range", not legacy, legacy)
    scancel = [m for m in allmsgs if m.get("method") == "notifications/cancelled"]
    R.ok("server-cancelled", not scancel, [json.dumps(m)[:120] for m in scancel])
    wire_checks(R, rec)
    if not http:
        # end-of-file must make the server exit
        c2 = srv.stdio(FULL26)
        c2.answer = lambda *a: None
        R.step(None, Client(MODERN, "stdio", c2).req, "server/discover", {})
        c2.close_stdin()
        R.ok("stdio.eof-exit", c2.wait_exit(20), "server still running 20 s after stdin was closed")


def cache_fields_ok(R, name, results):
    bad = []
    for r in results:
        if r is None or r.get("resultType", "complete") != "complete":
            continue
        ttl, sc = r.get("ttlMs"), r.get("cacheScope")
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0 or sc not in ("public", "private"):
            bad.append({"ttlMs": ttl, "cacheScope": sc})
    R.ok(name, not bad, bad[:3])


TCHAR = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


def x_mcp_problems(tool):
    probs = []
    seen = set()
    s = tool.get("inputSchema") or {}

    def walk(node, path, reachable):
        if isinstance(node, dict):
            if "x-mcp-header" in node and path:
                h = node["x-mcp-header"]
                if not reachable:
                    probs.append("%s: x-mcp-header on a property that is not statically reachable" % tool.get("name"))
                if not isinstance(h, str) or not TCHAR.match(h):
                    probs.append("%s: x-mcp-header %r is not an HTTP token" % (tool.get("name"), h))
                elif h.lower() in seen:
                    probs.append("%s: duplicate x-mcp-header %r" % (tool.get("name"), h))
                else:
                    seen.add(h.lower())
                if node.get("type") not in ("string", "integer", "boolean"):
                    probs.append("%s: x-mcp-header on a %r parameter" % (tool.get("name"), node.get("type")))
            for k, v in node.items():
                if k == "properties" and isinstance(v, dict):
                    for pk, pv in v.items():
                        walk(pv, path + (pk,), reachable)
                elif isinstance(v, (dict, list)) and k not in ("properties",):
                    walk(v, path + ("<%s>" % k,), False)
        elif isinstance(node, list):
            for x in node:
                walk(x, path, False)
    walk(s, (), True)
    return probs


def answer_inputs(reqs):
    out = {}
    for k, v in (reqs or {}).items():
        m = (v or {}).get("method")
        p = (v or {}).get("params") or {}
        if m == "elicitation/create":
            out[k] = {"action": "accept"} if p.get("mode") == "url" else \
                {"action": "accept", "content": {"answer": "forty-two"}}
        elif m == "sampling/createMessage":
            out[k] = {"role": "assistant", "content": {"type": "text", "text": "a short summary"},
                      "model": "test-model", "stopReason": "endTurn"}
        elif m == "roots/list":
            out[k] = {"roots": [{"uri": "file:///tmp/project", "name": "project"}]}
    return out


def modern_mrtr(R, cl, names):
    caps = {"elicitation": {"form": {}}}
    msg = R.step("mrtr.elicit", cl.req, "tools/call", {"name": "ask", "arguments": {"question": "Ready?"}}, caps=caps)
    r = result_of(msg) if msg else None
    ok = r is not None and r.get("resultType") == "input_required" and \
        (isinstance(r.get("inputRequests"), dict) or isinstance(r.get("requestState"), str))
    R.ok("mrtr.elicit", ok, json.dumps(msg)[:200])
    if ok:
        reqs = r.get("inputRequests") or {}
        bad = [v.get("method") for v in reqs.values() if not isinstance(v, dict) or
               v.get("method") not in ("elicitation/create", "sampling/createMessage", "roots/list")]
        R.ok("mrtr.elicit", not bad, bad)
        el = [v for v in reqs.values() if isinstance(v, dict) and v.get("method") == "elicitation/create"]
        undeclared = [v.get("method") for v in reqs.values() if isinstance(v, dict) and
                      v.get("method") in ("sampling/createMessage", "roots/list")]
        R.ok("mrtr.undeclared", not undeclared, undeclared)
        for v in el:
            p = v.get("params") or {}
            R.ok("mrtr.modes", p.get("mode", "form") == "form", "mode %r for a client that declared only form" % p.get("mode"))
            sens = [k for k in ((p.get("requestedSchema") or {}).get("properties") or {}) if SENSITIVE.search(k)]
            R.ok("elicit.sensitive", not sens, sens)
        params = {"name": "ask", "arguments": {"question": "Ready?"}, "inputResponses": answer_inputs(reqs)}
        if "requestState" in r:
            params["requestState"] = r["requestState"]
        m2 = R.step("mrtr.retry", cl.req, "tools/call", params, caps=caps)
        r2 = result_of(m2) if m2 else None
        url_mode = any((v.get("params") or {}).get("mode") == "url" for v in el)
        R.ok("mrtr.retry", r2 is not None and r2.get("resultType", "complete") == "complete" and
             (url_mode or "forty-two" in texts(r2)), json.dumps(m2)[:200])
        # tampered state
        st = r.get("requestState")
        if isinstance(st, str):
            tampered = tamper(st)
            params["requestState"] = tampered
            m3 = R.step("mrtr.state-integrity", cl.req, "tools/call", params, caps=caps)
            r3 = result_of(m3) if m3 else None
            R.ok("mrtr.state-integrity", not (r3 and r3.get("resultType") == "complete" and "TAMPERED" in texts(r3)),
                 json.dumps(m3)[:200])
    # the same call without elicitation, after calls that declared it: must not be served from memory
    msg = R.step("mrtr.stateless", cl.req, "tools/call", {"name": "ask", "arguments": {"question": "Again?"}}, caps={})
    if msg is not None:
        r = result_of(msg)
        R.ok("mrtr.stateless", not (r and r.get("resultType") == "input_required"),
             "input requests for a request that declared no capabilities: %s" % json.dumps(msg)[:150])
    # sampling and roots with their capabilities
    for tool, cap, check in (("summarize", {"sampling": {}}, "mrtr.sampling-tools"), ("list_roots", {"roots": {}}, None)):
        if tool not in names:
            continue
        args = {"text": "hello"} if tool == "summarize" else {}
        msg = R.step(check or "mrtr.retry", cl.req, "tools/call", {"name": tool, "arguments": args}, caps=cap)
        r = result_of(msg) if msg else None
        if r is None or r.get("resultType") != "input_required":
            R.fail(check or "mrtr.retry", "expected an InputRequiredResult: %s" % json.dumps(msg)[:150])
            continue
        reqs = r.get("inputRequests") or {}
        wrong = [v.get("method") for v in reqs.values() if isinstance(v, dict) and
                 v.get("method") not in ({"summarize": "sampling/createMessage", "list_roots": "roots/list"}[tool],)]
        R.ok("mrtr.undeclared", not wrong, wrong)
        if check:
            for v in reqs.values():
                p = (v or {}).get("params") or {}
                R.ok(check, "tools" not in p and "toolChoice" not in p, "tool-enabled sampling without sampling.tools")
        params = {"name": tool, "arguments": args, "inputResponses": answer_inputs(reqs)}
        if "requestState" in r:
            params["requestState"] = r["requestState"]
        m2 = R.step("mrtr.retry", cl.req, "tools/call", params, caps=cap)
        want = "a short summary" if tool == "summarize" else "file:///tmp/project"
        R.ok("mrtr.retry", m2 is not None and want in texts(result_of(m2)), json.dumps(m2)[:200])


def tamper(st):
    """Changes the question inside a requestState that looks like base64url(JSON)[.signature]."""
    raw, dot, sig = st.partition(".")
    try:
        d = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
        if isinstance(d, dict) and "q" in d:
            d["q"] = "TAMPERED"
        else:
            d["tampered"] = True
        raw2 = base64.urlsafe_b64encode(json.dumps(d, separators=(",", ":")).encode()).decode().rstrip("=")
        return raw2 + dot + sig
    except Exception:
        return st[:-2] + ("AA" if not st.endswith("AA") else "BB")


def listen_eval(R, rid, msgs):
    """msgs: notifications of one listen stream in order."""
    if not msgs:
        R.fail("listen.ack", "nothing received on the subscription")
        return
    first = msgs[0]
    R.ok("listen.ack", first.get("method") == "notifications/subscriptions/acknowledged",
         "first message is %s" % first.get("method"))
    subids = [((m.get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/subscriptionId") for m in msgs]
    R.ok("listen.subid", all(s == rid for s in subids), "subscriptionIds %s for listen request id %r" % (subids[:3], rid))
    ups = [m for m in msgs if m.get("method") == "notifications/resources/updated"]
    R.ok("listen.updates", any((m.get("params") or {}).get("uri") == "mem://ticker" for m in ups),
         "no resource update for mem://ticker")
    logs = [m for m in msgs if m.get("method") == "notifications/message"]
    R.ok("listen.filter", not logs, "notifications/message on a listen stream")


def modern_listen_stdio(R, c):
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    t0 = time.time()
    l1 = "listen-1"
    l2 = "listen-2"
    c.request("subscriptions/listen", {"_meta": meta, "notifications": {"resourceSubscriptions": ["mem://ticker"]}},
              rid=l1, wait=False)
    c.request("subscriptions/listen", {"_meta": meta, "notifications": {"toolsListChanged": True}}, rid=l2, wait=False)
    time.sleep(5.0)

    def subid(m):
        return ((m.get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/subscriptionId")
    kinds = ("notifications/subscriptions/acknowledged", "notifications/resources/updated")
    m1 = [m for m in c.notes_since(t0) if m.get("method") in kinds and subid(m) == l1]
    if not m1:
        # untagged or mistagged messages: still evaluate what arrived for the first subscription
        m1 = [m for m in c.notes_since(t0) if m.get("method") in kinds and subid(m) != l2]
    listen_eval(R, l1, m1)
    m2 = [m for m in c.notes_since(t0) if m.get("method") == "notifications/resources/updated" and
          ((m.get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/subscriptionId") == l2]
    R.ok("listen.filter", not m2, "resource updates on a subscription that asked only for toolsListChanged")
    c.notify("notifications/cancelled", {"requestId": l1})
    c.notify("notifications/cancelled", {"requestId": l2})
    time.sleep(1.5)
    t1 = time.time()
    time.sleep(3.0)
    after = [m for m in c.notes_since(t1) if ((m.get("params") or {}).get("_meta") or {})
             .get("io.modelcontextprotocol/subscriptionId") in (l1, l2)]
    R.ok("listen.cancel", not after, "%d messages after the subscription was cancelled" % len(after))
    for x in (l1, l2):
        if x in c.pending:
            c.pending.remove(x)


def modern_listen_http(R, c):
    box = {}

    def run(key, filt, dur):
        rid = c.new_id()
        box[key + "_id"] = rid
        r = c.request("subscriptions/listen", {"notifications": filt}, rid=rid, caps={}, cancel_after=dur)
        box[key] = r
    t1 = threading.Thread(target=run, args=("a", {"resourceSubscriptions": ["mem://ticker"]}, 5.0), daemon=True)
    t2 = threading.Thread(target=run, args=("b", {"toolsListChanged": True}, 5.0), daemon=True)
    t1.start()
    t2.start()
    t1.join(60)
    t2.join(60)
    ra, rb = box.get("a"), box.get("b")
    if ra is None:
        R.fail("listen.ack", "subscriptions/listen failed")
        return
    msgs = [m for m in ra.messages if isinstance(m, dict) and "method" in m]
    listen_eval(R, box["a_id"], msgs)
    if ra.sse:
        R.ok("sse.xaccel", (ra.header("X-Accel-Buffering") or "").lower() == "no", "listen stream without X-Accel-Buffering: no")
    if rb is not None:
        ups = [m for m in rb.messages if isinstance(m, dict) and m.get("method") == "notifications/resources/updated"]
        R.ok("listen.filter", not ups, "resource updates on a subscription that asked only for toolsListChanged")


def modern_cancel_stdio(R, c):
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": FULL26,
            "progressToken": "tok-cancel-26"}
    rid = c.new_id()
    t0 = time.time()
    c.request("tools/call", {"name": "slow", "arguments": {"ms": 4000, "steps": 4}, "_meta": meta}, rid=rid, wait=False)
    c.wait_note(lambda m: m.get("method") == "notifications/progress", timeout=15, t0=t0)
    tc = time.time()
    c.notify("notifications/cancelled", {"requestId": rid, "reason": "selftest"})
    end = time.time() + 8
    while time.time() < end and not c.has_response(rid):
        time.sleep(0.2)
    R.ok("cancel.no-response", not c.has_response(rid), "a response was sent for a cancelled request")
    late = [m for m in c.notes_since(tc) if m.get("method") == "notifications/progress" and
            (m.get("params") or {}).get("progressToken") == "tok-cancel-26"]
    R.ok("cancel.no-more-messages", len(late) <= 1, "%d progress notifications after cancellation" % len(late))
    if rid in c.pending:
        c.pending.remove(rid)


def modern_http_probes(R, srv, c, cl, tools):
    names = {t.get("name") for t in tools}
    base = c.std_headers("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    body = {"jsonrpc": "2.0", "id": 7001, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "x"}, "_meta": c.meta()}}

    def post(h, b=body):
        return c.raw("POST", h, b)

    def code(r):
        try:
            return (r.messages[0].get("error") or {}).get("code")
        except Exception:
            return None
    # origin
    h = dict(base, Origin="http://evil.example")
    r = post(h)
    R.ok("http.origin", r.status == 403, "foreign Origin -> HTTP %s" % r.status)
    r = post(dict(base, Origin="http://localhost:%d" % srv.port))
    R.ok("http.origin", r.status == 200, "localhost Origin -> HTTP %s" % r.status)
    # header validation
    probes = [("http.headers-pv-missing", {k: v for k, v in base.items() if k != "MCP-Protocol-Version"}),
              ("http.headers-pv-mismatch", dict(base, **{"MCP-Protocol-Version": LEGACY})),
              ("http.headers-method-mismatch", dict(base, **{"Mcp-Method": "tools/list"})),
              ("http.headers-method-mismatch", {k: v for k, v in base.items() if k != "Mcp-Method"}),
              ("http.headers-name-mismatch", dict(base, **{"Mcp-Name": "weather"})),
              ("http.headers-name-mismatch", {k: v for k, v in base.items() if k != "Mcp-Name"})]
    for name, h in probes:
        r = post(h)
        R.ok(name, r.status == 400, "HTTP %s %r" % (r.status, r.body[:100]))
        if r.status == 400:
            R.ok("http.headers-code", code(r) == -32020, "header validation failure with code %r" % code(r))
    # base64-encoded Mcp-Name must be decoded
    r = post(dict(base, **{"Mcp-Name": b64hdr("echo")}))
    R.ok("http.headers-name-base64", r.status == 200 and code(r) is None, "encoded Mcp-Name -> HTTP %s %r" %
         (r.status, r.body[:100]))
    prompts = []
    try:
        prompts = (result_of(cl.req("prompts/list", {})) or {}).get("prompts") or []
    except Exception:
        pass
    for p in prompts:
        if not re.fullmatch(r"[\x21-\x7e]+", p.get("name", "")):
            m = R.step("http.headers-name-base64", cl.req, "prompts/get", {"name": p["name"], "arguments": {}})
            R.ok("http.headers-name-base64", m is not None and result_of(m) is not None, json.dumps(m)[:200])
    # custom parameter headers
    if "region_echo" in names:
        rb = {"jsonrpc": "2.0", "id": 7002, "method": "tools/call",
              "params": {"name": "region_echo", "arguments": {"region": "eu-west1", "text": "hi"}, "_meta": c.meta()}}
        good = c.std_headers("tools/call", rb["params"])
        r = post(good, rb)
        R.ok("http.param-ok", r.status == 200 and code(r) is None, "HTTP %s %r" % (r.status, r.body[:100]))
        r = post(dict(good, **{"Mcp-Param-Region": "us-east1"}), rb)
        R.ok("http.param-mismatch", r.status == 400, "mismatching Mcp-Param-Region -> HTTP %s" % r.status)
        if r.status == 400:
            R.ok("http.headers-code", code(r) == -32020, code(r))
        r = post({k: v for k, v in good.items() if k != "Mcp-Param-Region"}, rb)
        R.ok("http.param-missing", r.status == 400, "missing Mcp-Param-Region -> HTTP %s" % r.status)
    # unknown method
    ub = {"jsonrpc": "2.0", "id": 7003, "method": "kitp/no-such-method", "params": {"_meta": c.meta()}}
    r = post(c.std_headers("kitp/no-such-method", {}), ub)
    R.ok("http.method-404", r.status == 404 and code(r) == -32601, "HTTP %s code %r" % (r.status, code(r)))
    # GET / DELETE
    r = c.raw("GET", {"Accept": "text/event-stream"}, timeout=10, read=False)
    R.ok("http.get-405", r.status == 405, "GET -> HTTP %s" % r.status)
    r = c.raw("DELETE", {}, timeout=10)
    R.ok("http.get-405", r.status == 405, "DELETE -> HTTP %s" % r.status)
    # sessions
    r = post(dict(base, **{"Mcp-Session-Id": "legacy-session-123"}))
    R.ok("http.no-session", r.status == 200 and r.header("Mcp-Session-Id") is None,
         "HTTP %s, Mcp-Session-Id %r" % (r.status, r.header("Mcp-Session-Id")))
    r = post(base)
    R.ok("http.no-session", r.header("Mcp-Session-Id") is None, "server minted Mcp-Session-Id")
    # notification
    r = c.raw("POST", {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"},
              {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}})
    R.ok("http.notification-202", r.status == 202 and not r.body, "HTTP %s body %r" % (r.status, r.body[:60]))
    # SSE streams: headers and relatedness (a slow call with progress)
    if "slow" in names:
        rr = c.request("tools/call", {"name": "slow", "arguments": {"ms": 2500, "steps": 5}}, caps=FULL26,
                       meta_extra={"progressToken": "tok-sse"})
        if rr.sse:
            R.ok("sse.xaccel", (rr.header("X-Accel-Buffering") or "").lower() == "no", "SSE without X-Accel-Buffering: no")
            unrelated = [m for m in rr.messages if isinstance(m, dict) and "method" in m and "id" not in m and
                         not (m["method"] == "notifications/progress" and
                              (m.get("params") or {}).get("progressToken") == "tok-sse")]
            R.ok("sse.related-only", not unrelated, [json.dumps(m)[:100] for m in unrelated])
        else:
            R.fail("sse.related-only", "slow call with a progress token was not streamed")


# ======================================================================================
# driver

def run_entry(e, verbose=False):
    R = Results()
    srv = Server(e)
    t0 = time.time()
    try:
        if e["transport"] == "http":
            srv.start_http()
        if e["era"] == LEGACY:
            legacy_battery(R, srv, e)
        else:
            modern_battery(R, srv, e)
            if "--dual-era" in e["start"]:
                legacy_battery(R, srv, e)     # a dual-era server must also serve legacy clients correctly
    except Exception:
        R.fail("internal", traceback.format_exc()[-800:])
    finally:
        srv.stop()
    failed = set(R.fails)
    expect = set(e["_expect"])
    ok = failed == expect
    return {"id": e["id"], "name": e["_name"], "ok": ok, "failed": sorted(failed), "expect": sorted(expect),
            "details": {k: R.fails[k][:3] for k in sorted(failed)}, "passed": sorted(R.passes - failed),
            "secs": round(time.time() - t0, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ids", nargs="*")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    entries = kitdef.entries()
    if a.ids:
        entries = [e for e in entries if e["id"] in a.ids or e["_name"] in a.ids]
    results = []
    lock = threading.Lock()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(run_entry, e, a.v): e for e in entries}
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            e = futs[f]
            with lock:
                results.append(r)
                tag = "control" if e["control"] else r["name"]
                status = "ok  " if r["ok"] else "FAIL"
                print("%s %-5s %-6s %-5s %-32s %5.1fs failed=%s" % (status, r["id"], e["era"][:4], e["transport"],
                                                                   tag, r["secs"], ",".join(r["failed"]) or "-"),
                      flush=True)
                if not r["ok"] or a.v:
                    if not r["ok"]:
                        print("     expected=%s" % (",".join(r["expect"]) or "-"))
                    for k, v in r["details"].items():
                        print("     %s: %s" % (k, v))
                    if a.v:
                        print("     passed: %s" % ", ".join(r["passed"]))
    results.sort(key=lambda r: int(r["id"][1:]))
    bad = [r for r in results if not r["ok"]]
    print("\n%d servers, %d as expected, %d not" % (len(results), len(results) - len(bad), len(bad)))
    if bad:
        print("not as expected: " + " ".join(r["id"] for r in bad))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
