// Reads a compat test file for scripts/compat.sh and prints, NUL-separated,
// what 'mcpv session' needs, with ${VAR}, ${env:VAR}, ${VAR:-default} and
// ${workspaceFolder} expanded as mcpv expands them:
//
//   node spec.mjs FILE start     the words after 'mcpv session start NAME'
//   node spec.mjs FILE count     how many x-session commands the file has
//   node spec.mjs FILE line N    the words of x-session command N (from 0)
//   node spec.mjs FILE serve     for an HTTP server, the command that starts
//                                it (x-serve: command and env), as words of
//                                env(1); nothing for a stdio server
import fs from "node:fs";
import path from "node:path";
import yaml from "js-yaml";

const [file, what, n] = process.argv.slice(2);
const doc = yaml.load(fs.readFileSync(file, "utf8"));
const dir = path.dirname(path.resolve(file));

function expand(s) {
  return String(s).replace(/\$\{(env:)?([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}/g, (m, env, name, hasDef, def) => {
    if (!env && name === "workspaceFolder") return dir;
    if (!env && name === "userHome") return process.env.HOME;
    if (process.env[name] !== undefined && process.env[name] !== "") return process.env[name];
    if (hasDef !== undefined) return def;
    console.error(`spec: ${file}: \${${name}} is not set`);
    process.exit(2);
  });
}
function print(words) {
  process.stdout.write(words.map((w) => expand(w) + "\0").join(""));
}

const server = doc.server || {};
const lines = doc["x-session"] || [];
if (what === "start") {
  // Every key of the server section is the flag of the same name.
  const words = [];
  for (const [k, v] of Object.entries(server)) {
    if (k === "command") continue;
    if (k === "env") for (const [name, val] of Object.entries(v)) words.push("--env", `${name}=${val}`);
    else if (k === "headers") for (const [name, val] of Object.entries(v)) words.push("-H", `${name}: ${val}`);
    else if (v === true) words.push(`--${k}`);
    else if (v !== false) words.push(`--${k}`, String(v));
  }
  if (Array.isArray(server.command)) words.push("--", ...server.command);
  print(words);
} else if (what === "serve") {
  const serve = doc["x-serve"];
  if (serve) print(["env", ...Object.entries(serve.env || {}).map(([k, v]) => `${k}=${v}`), ...serve.command]);
} else if (what === "count") {
  process.stdout.write(String(lines.length));
} else if (what === "line") {
  print(lines[Number(n)]);
} else {
  console.error("usage: node spec.mjs FILE start|count|line N");
  process.exit(2);
}
