// Runs agent-security-scanner-mcp over the inputs `peers prepare` wrote:
//
//   node asm.mjs PACKAGE_DIR WORK
//
// A server's tools go through the package's own manifest check (the
// scan_mcp_server tool with manifest: true reads server.json's tools:
// scanManifest in src/tools/scan-mcp.js); everything else it has no
// reader for (instructions, prompts and their prompts/get messages,
// resources and their resources/read text, resource templates) through
// scan_agent_prompt, its check of a text an agent is about to read.
//
// scanManifest is not exported: it is imported from a copy of
// scan-mcp.js beside the original that exports it as well. The tool
// itself drops every finding after the first of a rule in server.json (it
// keys them by rule, file and line, and every manifest finding is on line
// 1); findings.jsonl keeps them all, findings-reported.jsonl only those
// the tool reports. Severities are mapped as the package's own
// normalize-finding.js maps them: ERROR high, WARNING medium, INFO info.
import { readFileSync, writeFileSync, readdirSync, existsSync } from "fs";
import { join, resolve } from "path";
import { pathToFileURL } from "url";

const [pkg, work] = process.argv.slice(2).map((p) => resolve(p));
if (!pkg || !work) {
  console.error("usage: node asm.mjs PACKAGE_DIR WORK");
  process.exit(2);
}
process.env.PROOFLAYER_DISABLE_TELEMETRY = "1";
process.env.PROOFLAYER_DISABLE_EMAIL_CAPTURE = "1";

const original = join(pkg, "src", "tools", "scan-mcp.js");
const copy = join(pkg, "src", "tools", "scan-mcp.peers.js");
if (!existsSync(copy)) {
  writeFileSync(copy, readFileSync(original, "utf-8") + "\nexport { scanManifest };\n");
}
const { scanManifest } = await import(pathToFileURL(copy).href);
const { scanAgentPrompt } = await import(pathToFileURL(join(pkg, "src", "tools", "scan-prompt.js")).href);

const SEVERITY = { ERROR: "high", WARNING: "medium", INFO: "info", CRITICAL: "critical", HIGH: "high", MEDIUM: "medium", LOW: "low" };
const sev = (s) => SEVERITY[s] || SEVERITY[String(s).toUpperCase()] || "medium"; // the package's default is MEDIUM

const all = [];
const reported = [];
const byRisk = [];
const dir = join(work, "asm", "servers");
for (const server of readdirSync(dir).sort()) {
  const manifest = join(dir, server, "server.json");
  const tools = (JSON.parse(readFileSync(manifest, "utf-8")).tools || []).map((t) => t.name || "");
  const seen = new Set();
  for (const f of scanManifest(manifest)) {
    let name = null;
    if (f.rule === "mcp.unicode-zero-width" || f.rule === "mcp.unicode-bidi-override" || f.rule === "mcp.manifest-name-spoofing") {
      name = f.match;
    } else {
      for (const t of tools) {
        if (f.message.includes(`"${t}"`) && (name === null || t.length > name.length)) name = t;
      }
    }
    const out = { server, kind: name === null ? "server" : "tool", name: name ?? "", severity: sev(f.severity), rule: f.rule, peerSeverity: f.severity };
    all.push(out);
    const key = `${f.rule}:${f.file}:${f.line}`;
    if (!seen.has(key)) {
      seen.add(key);
      reported.push(out);
    }
  }
}
for (const line of readFileSync(join(work, "asm", "texts.jsonl"), "utf-8").split("\n")) {
  if (!line.trim()) continue;
  const it = JSON.parse(line);
  if (!it.text.trim()) continue;
  const res = await scanAgentPrompt({ prompt_text: it.text, verbosity: "full" });
  const r = JSON.parse(res.content[0].text);
  for (const f of r.findings || []) {
    const out = { server: it.server, kind: it.kind, name: it.name, severity: sev(f.severity), rule: f.rule_id, peerSeverity: f.severity };
    all.push(out);
    reported.push(out);
  }
  if (r.risk_level && SEVERITY[r.risk_level]) {
    byRisk.push({ server: it.server, kind: it.kind, name: it.name, severity: SEVERITY[r.risk_level], rule: "risk_level", peerSeverity: r.risk_level });
  }
}
const jsonl = (xs) => xs.map((x) => JSON.stringify(x) + "\n").join("");
writeFileSync(join(work, "findings.jsonl"), jsonl(all));
writeFileSync(join(work, "findings-reported.jsonl"), jsonl(reported));
writeFileSync(join(work, "asm", "by-risk-level.jsonl"), jsonl(byRisk));
