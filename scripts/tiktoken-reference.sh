#!/usr/bin/env bash
# Counts the texts of internal/cost/testdata/tiktoken.jsonl again with
# OpenAI's own tiktoken (its npm package: the Rust library built to
# WebAssembly), the counts TestCountsAgreeWithTiktoken holds mcpv to.
#
#   bash scripts/tiktoken-reference.sh
#
# Needs node and npm; tiktoken is installed outside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm init -y >/dev/null && npm install --silent tiktoken@1.0.22 >/dev/null)
cat >"$tmp/count.js" <<'JS'
// JSON lines {"text":...} in, each with its counts out.
const { get_encoding } = require("tiktoken");
const encs = ["o200k_base", "cl100k_base"].map(n => [n, get_encoding(n)]);
for (const line of require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean)) {
  const o = { text: JSON.parse(line).text };
  for (const [n, e] of encs) o[n] = e.encode(o.text, [], []).length;
  console.log(JSON.stringify(o));
}
JS
go test -count=1 -run '^TestWriteTexts$' ./internal/cost -write-texts "$tmp/texts.jsonl" >/dev/null
(cd "$tmp" && node count.js <texts.jsonl) >internal/cost/testdata/tiktoken.jsonl
echo "internal/cost/testdata/tiktoken.jsonl: $(wc -l <internal/cost/testdata/tiktoken.jsonl) texts counted by tiktoken 1.0.22"
