#!/usr/bin/env bash
# measure-kit.sh BINARY KITDIR OUTDIR [JOBS]: runs `check --strict --format json` on every server of a kit
set -u
bin=$1 kit=$2 out=$3 jobs=${4:-2}
mkdir -p "$out"
one() {
  local id=$1 line era transport start path calls args=()
  line=$(grep "\"id\": *\"$id\"" "$kit/kit.jsonl")
  transport=$(jq -r .transport <<<"$line")
  while IFS= read -r c; do [ -n "$c" ] && args+=(--call "$c"); done < <(jq -r '.call[]?' <<<"$line")
  if [ "$transport" = stdio ]; then
    start=$(cd "$kit" && sh run.sh "$id")
    (cd "$kit" && timeout 600 "$bin" check --strict --format json "${args[@]}" -- sh -c "exec $start" >"$out/$id.json" 2>"$out/$id.err"; echo $? >"$out/$id.rc")
  else
    url=$(cd "$kit" && sh run.sh "$id" 2>/dev/null)
    (cd "$kit" && timeout 600 "$bin" check --strict --format json "${args[@]}" -u "$url" >"$out/$id.json" 2>"$out/$id.err"; echo $? >"$out/$id.rc")
    (cd "$kit" && sh run.sh stop "$id" >/dev/null 2>&1)
  fi
  echo "$id rc=$(cat $out/$id.rc)"
}
export -f one; export bin kit out
jq -r .id "$kit/kit.jsonl" | xargs -P "$jobs" -I{} bash -c 'one {}'
