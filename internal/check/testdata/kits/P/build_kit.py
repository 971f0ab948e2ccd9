#!/usr/bin/env python3
"""Writes kit.jsonl and README.md from kitdef.py.  (python3 build_kit.py)"""
import collections
import json
import os
import sys

sys.dont_write_bytecode = True

import kitdef

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rows = kitdef.entries()
    with open(os.path.join(HERE, "kit.jsonl"), "w") as f:
        for e in rows:
            o = {k: e[k] for k in ("id", "control", "era", "transport", "start", "path", "call", "level", "page",
                                   "rule", "defect")}
            if o["path"] is None:
                del o["path"]
            if e["control"]:
                o["note"] = e["_desc"]
            f.write(json.dumps(o, ensure_ascii=False) + "\n")

    defects = [e for e in rows if not e["control"]]
    controls = [e for e in rows if e["control"]]
    c = collections.Counter
    by_era = c(e["era"] for e in defects)
    by_tr = c(e["transport"] for e in defects)
    by_lvl = c(e["level"] for e in defects)
    by_cell = c((e["era"], e["transport"], e["level"]) for e in defects)
    by_page = c(e["page"].split("#")[0] for e in defects)
    ctl_cell = c((e["era"], e["transport"]) for e in controls)

    L = []
    w = L.append
    w("# Held-out kit P: MCP servers with one planted defect each")
    w("")
    w("Every server here is a correct MCP server except for **exactly one planted defect**; the controls have")
    w("none. The defects were written blind, from the text of the specification only")
    w("(`/work/spec/docs/specification/{2025-11-25,2026-07-28}` and the two `schema.json`), to measure a")
    w("conformance checker on defects its authors never planted. Each defect breaks one sentence of the")
    w("specification, quoted word for word in the manifest (`rule`, `page`, `level`).")
    w("")
    w("## Counts")
    w("")
    w("%d defective servers and %d controls (%d servers)." % (len(defects), len(controls), len(rows)))
    w("")
    w("| | MUST | SHOULD | total |")
    w("|---|---|---|---|")
    for era in (kitdef.E25, kitdef.E26):
        for tr in (kitdef.S, kitdef.H):
            m, s = by_cell[(era, tr, "MUST")], by_cell[(era, tr, "SHOULD")]
            w("| %s %s | %d | %d | %d |" % (era, tr, m, s, m + s))
    w("| **total** | **%d** | **%d** | **%d** |" % (by_lvl["MUST"], by_lvl["SHOULD"], len(defects)))
    w("")
    w("By era: " + ", ".join("%s %d" % kv for kv in sorted(by_era.items())) +
      ". By transport: " + ", ".join("%s %d" % kv for kv in sorted(by_tr.items())) +
      ". By level: " + ", ".join("%s %d" % kv for kv in sorted(by_lvl.items())) + ".")
    w("")
    w("Controls: " + ", ".join("%s %s %d" % (k[0], k[1], v) for k, v in sorted(ctl_cell.items())) + ".")
    w("")
    w("Defects per specification page:")
    w("")
    w("| page | defects |")
    w("|---|---|")
    for p, n in sorted(by_page.items()):
        w("| %s | %d |" % (p, n))
    w("")
    w("## Files")
    w("")
    w("* `kit.jsonl` - the manifest, one server per line: `id`, `control`, `era`, `transport`, `start` (run in")
    w("  this directory; `@PORT@` for HTTP), `path` (HTTP), `call` (tool calls a checker should be told to make,")
    w("  as `TOOL k=v`), `level`, `page`, `rule` (the sentence of the spec, quoted), `defect` (what the server")
    w("  does wrong, concretely). Controls have `level`/`page`/`rule`/`defect` null and a `note`.")
    w("* `srv.py` - the one server (Python 3.11, standard library only): `--era`, `--transport`, `--port`,")
    w("  `--defect NAME` and a few switches for legal-but-unusual control behaviour.")
    w("* `run.sh ID` - stdio: prints the command that starts the server; HTTP: starts it on a free port,")
    w("  prints its URL (the pid goes to stderr and to `.run/ID.pid`). `run.sh stop ID` stops it.")
    w("* `selftest.py` (+ `mcpclient.py`) - a hand-written client that drives every server through a battery")
    w("  of named checks and verifies that each control fails none and each defective server fails exactly")
    w("  the checks that show its defect. `python3 selftest.py [IDS...] [--jobs N] [-v]`.")
    w("* `kitdef.py` - the source table (defects, controls, the self-test's expected failures);")
    w("  `build_kit.py` regenerates `kit.jsonl` and this README from it.")
    w("")
    w("## What a checker has to do to see the defects")
    w("")
    w("Every server offers `echo` (`echo text=hi`). Most defects show on a plain run (listing, reading,")
    w("calling `echo`, probing error cases); some need the checker to go further, and the manifest's `call`")
    w("names the tool call that exercises them:")
    w("")
    w("* elicitation / sampling / roots defects show only when the checker calls `ask`, `summarize` or")
    w("  `list_roots` (2025-11-25: server-initiated requests, some of which depend on the client capabilities")
    w("  declared at initialize; 2026-07-28: InputRequiredResult and MissingRequiredClientCapabilityError);")
    w("* progress and cancellation defects need a progress token / a cancellation on the `slow` tool;")
    w("* task defects need task-augmented `tools/call` on `longjob` (taskSupport optional) or a plain call of")
    w("  `reindex` (taskSupport required);")
    w("* subscription defects need `resources/subscribe` (2025, with a GET stream on HTTP) or")
    w("  `subscriptions/listen` (2026) on `mem://ticker`, which changes every second;")
    w("* HTTP defects need probes such as a foreign `Origin`, a wrong `MCP-Protocol-Version`, mismatching")
    w("  `Mcp-Method`/`Mcp-Name`/`Mcp-Param-Region` headers, DELETE then reuse of a session, a GET stream.")
    w("")
    w("## Controls")
    w("")
    w("| id | era | transport | what is unusual (all legal) |")
    w("|---|---|---|---|")
    for e in controls:
        w("| %s | %s | %s | %s |" % (e["id"], e["era"], e["transport"], e["_desc"]))
    w("")
    w("## Content of every server")
    w("")
    w("Tools `echo`, `weather` (outputSchema + structuredContent; `city=Atlantis` is a tool error), `slow`")
    w("(`ms`, `steps`; progress when a token is given), `ask` (elicitation), `summarize` (sampling),")
    w("`list_roots` (roots), `big` (large text); 2025-11-25 adds `longjob` and `reindex` (tasks); 2026-07-28")
    w("HTTP adds `region_echo` (`x-mcp-header: Region`). Prompts `greet`, `code_review`, `picture` (image).")
    w("Resources `mem://readme`, `mem://logo.png` (blob), `mem://ticker` (subscribable, changes every second),")
    w("template `mem://notes/{id}` (alpha, beta, gamma). Completion for `code_review.language` and the")
    w("template's `id`. Logging: 2025 after `logging/setLevel`, 2026 per request via `_meta` logLevel.")
    w("")
    with open(os.path.join(HERE, "README.md"), "w") as f:
        f.write("\n".join(L))
    print("wrote kit.jsonl (%d lines) and README.md" % len(rows))


if __name__ == "__main__":
    main()
