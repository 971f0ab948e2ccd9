#!/usr/bin/env bash
# How large mcpv's Go is (docs/ARCHITECTURE.md, "How large the house is"):
# lines outside tests and in them, functions over 80 lines and files over
# 500, over the main module. Needs Go alone. -list names the long ones.
#
#   scripts/size.sh [-list] [DIR]     DIR: a checkout (default: this one)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
args=() dir=$(cd "$here/.." && pwd)
for a in "$@"; do
  case $a in -*) args+=("$a") ;; *) dir=$(cd "$a" && pwd) ;; esac
done
cd "$here/size" && exec go run . "${args[@]}" "$dir"
