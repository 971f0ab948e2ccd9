#!/usr/bin/env python3
"""Validate the held-out corpus: every server file parses, every label matches an
item, every item has exactly one label. Prints counts. Exit 1 on any problem."""
import json, os, sys, glob
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"tool", "prompt", "resource", "resourceTemplate", "instructions"}
errors = []

def err(msg):
    errors.append(msg)

items = {}  # (server, kind, name) -> True
servers = {}
for fn in sorted(glob.glob(os.path.join(HERE, "servers", "*.json"))):
    name = os.path.basename(fn)[:-5]
    try:
        with open(fn, encoding="utf-8") as f:
            d = json.load(f)
    except Exception as e:
        err(f"{fn}: does not parse: {e}"); continue
    servers[name] = d
    if not isinstance(d.get("serverInfo"), dict) or "name" not in d["serverInfo"] or "version" not in d["serverInfo"]:
        err(f"{name}: serverInfo needs name and version")
    for key in ("tools", "prompts", "resources", "resourceTemplates"):
        if key in d and not isinstance(d[key], list):
            err(f"{name}: {key} is not a list")
    for key in ("promptResults", "readResults"):
        if key in d and not isinstance(d[key], dict):
            err(f"{name}: {key} is not an object")
    def add(kind, nm):
        k = (name, kind, nm)
        if k in items: err(f"{name}: duplicate {kind} {nm!r}")
        items[k] = True
    for t in d.get("tools", []):
        if "name" not in t or "inputSchema" not in t: err(f"{name}: tool without name or inputSchema")
        elif t["inputSchema"].get("type") != "object": err(f"{name}: tool {t['name']} inputSchema type is not object")
        add("tool", t.get("name"))
    for p in d.get("prompts", []):
        add("prompt", p.get("name"))
    for r in d.get("resources", []):
        add("resource", r.get("uri"))
    for t in d.get("resourceTemplates", []):
        add("resourceTemplate", t.get("uriTemplate"))
    if d.get("instructions"):
        add("instructions", None)
    pnames = {p.get("name") for p in d.get("prompts", [])}
    for k, v in d.get("promptResults", {}).items():
        if k not in pnames: err(f"{name}: promptResults key {k!r} is not a listed prompt")
        if not isinstance(v, dict) or not isinstance(v.get("messages"), list): err(f"{name}: promptResults[{k!r}] has no messages list")
    uris = {r.get("uri") for r in d.get("resources", [])}
    for k, v in d.get("readResults", {}).items():
        if k not in uris: err(f"{name}: readResults key {k!r} is not a listed resource")
        if not isinstance(v, dict) or not isinstance(v.get("contents"), list): err(f"{name}: readResults[{k!r}] has no contents list")

labelled = Counter()
labels = []
with open(os.path.join(HERE, "labels.jsonl"), encoding="utf-8") as f:
    for i, line in enumerate(f, 1):
        if not line.strip(): continue
        try:
            l = json.loads(line)
        except Exception as e:
            err(f"labels.jsonl:{i}: does not parse: {e}"); continue
        labels.append(l)
        for fld in ("server", "kind", "name", "poisoned", "family", "where", "language"):
            if fld not in l: err(f"labels.jsonl:{i}: missing {fld}")
        if l.get("kind") not in KINDS: err(f"labels.jsonl:{i}: bad kind {l.get('kind')!r}")
        if not isinstance(l.get("poisoned"), bool): err(f"labels.jsonl:{i}: poisoned is not a boolean")
        if l.get("poisoned") and (l.get("family") in (None, "", "honest") or not l.get("where")):
            err(f"labels.jsonl:{i}: poisoned label needs a family and a where")
        if l.get("poisoned") is False and l.get("family") != "honest":
            err(f"labels.jsonl:{i}: honest label must have family 'honest'")
        if l.get("server") not in servers: err(f"labels.jsonl:{i}: no server file {l.get('server')!r}"); continue
        key = (l["server"], l["kind"], None if l["kind"] == "instructions" else l["name"])
        if key not in items: err(f"labels.jsonl:{i}: no such item {key}")
        labelled[key] += 1

for k in items:
    if labelled[k] == 0: err(f"item without label: {k}")
    elif labelled[k] > 1: err(f"item with {labelled[k]} labels: {k}")

pois = [l for l in labels if l.get("poisoned")]
hon = [l for l in labels if l.get("poisoned") is False]
print(f"servers: {len(servers)}  items: {len(items)}  labels: {len(labels)}  poisoned: {len(pois)}  honest: {len(hon)}")
print("poisoned per family:", dict(sorted(Counter(l['family'] for l in pois).items())))
print("poisoned per language:", dict(sorted(Counter(l['language'] for l in pois).items())))
print("poisoned per where:", dict(sorted(Counter(l['where'] for l in pois).items())))
print("poisoned per kind:", dict(sorted(Counter(l['kind'] for l in pois).items())))
print("honest per language:", dict(sorted(Counter(l['language'] for l in hon).items())))
ps = Counter(l['server'] for l in pois)
if ps and max(ps.values()) > 4: err(f"a server holds more than 4 poisoned items: {[s for s, n in ps.items() if n > 4]}")
if errors:
    print(f"\n{len(errors)} problem(s):")
    for e in errors[:200]: print("  " + e)
    sys.exit(1)
print("OK")
