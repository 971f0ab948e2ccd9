#!/usr/bin/env python3
"""score.py KIT OUT: reads what measure.sh kept in OUT for each server of KIT
and prints one line per server (id, control, level, strict exit, the MUST
checks that failed, the other checks that failed or were inconclusive), as in
P/first-run.tsv, then the figures on stderr: MUST defects that fail a plain
run (a MUST check failed), defects a strict run exits 1 on, controls that
fail a plain run, servers that end inconclusive (exit 124)."""
import json, sys

kit, out = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(f"{kit}/kit.jsonl")]
print("id\tcontrol\tlevel\tstrict_exit\tfailed_must\tfailed_or_warned_other")
n = {"must": 0, "must_failed": 0, "must_124": 0, "defects": 0, "strict1": 0, "controls": 0, "controls_failed": 0, "controls_124": 0}
for k in rows:
    rc = open(f"{out}/{k['id']}.rc").read().strip()
    try:
        rep = json.load(open(f"{out}/{k['id']}.json"))
    except (OSError, ValueError):
        rep = {}
    checks = [c for a in rep.get("areas", []) for c in a.get("checks", [])]
    must = [c["id"] for c in checks if c["status"] == "failed" and c.get("level") == "MUST"]
    other = [c["id"] if c["status"] != "inconclusive" else c["id"] + "(inconclusive)"
             for c in checks if c["status"] in ("failed", "warned", "inconclusive") and not (c["status"] == "failed" and c.get("level") == "MUST")]
    print("\t".join([k["id"], str(k["control"]).lower(), str(k["level"]), rc, ",".join(must) or "-", ",".join(other) or "-"]))
    if k["control"]:
        n["controls"] += 1
        n["controls_failed"] += bool(must)
        n["controls_124"] += rc == "124"
        continue
    n["defects"] += 1
    n["strict1"] += rc == "1"
    if k["level"] == "MUST":
        n["must"] += 1
        n["must_failed"] += bool(must)
        n["must_124"] += rc == "124"
print(f"MUST defects failing a plain run: {n['must_failed']} of {n['must']} ({n['must_124']} inconclusive, exit 124); "
      f"a strict run exits 1 on {n['strict1']} of {n['defects']} defects; "
      f"controls failing a plain run: {n['controls_failed']} of {n['controls']} ({n['controls_124']} inconclusive)", file=sys.stderr)
