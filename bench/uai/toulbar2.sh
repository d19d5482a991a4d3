#!/usr/bin/env bash
# Best-known MAP labellings from toulbar2 (Debian package: apt-get install toulbar2) for the models
# of a list, each run with a CPU time limit, one after another, niced.
#   bench/uai/toulbar2.sh MODELS LIST SECONDS OUT
# MODELS: a checkout of https://github.com/mroavi/uai (the UAI 2014 competition's models; the list
# names paths inside it); LIST: bench/uai/pairwise.txt or higher.txt; OUT: a folder for NAME.sol
# (toulbar2's last solution: one label per variable) and NAME.log. A model's .evid is used when it
# has observations. Runs that already have a .log in OUT are skipped (rerun: delete them).
set -euo pipefail
models=$1; list=$2; secs=$3; out=$4
command -v toulbar2 >/dev/null || { echo "toulbar2 not found (apt-get install toulbar2)" >&2; exit 2; }
mkdir -p "$out"
while read -r rel; do
  [ -z "$rel" ] && continue
  case "$rel" in \#*) continue ;; esac
  name=$(basename "$rel" .uai)
  [ -f "$out/$name.log" ] && continue
  model="$models/$rel"
  evid=()
  if [ -f "$model.evid" ] && [ "$(head -c 20 "$model.evid" | tr -d ' \n')" != "0" ]; then evid=("$model.evid"); fi
  start=$(date +%s.%N)
  nice -n 10 toulbar2 "$model" "${evid[@]}" -timer="$secs" -w="$out/$name.sol" > "$out/$name.log.tmp" 2>&1 || true
  end=$(date +%s.%N)
  echo "wall $(echo "$end - $start" | bc)" >> "$out/$name.log.tmp"
  mv "$out/$name.log.tmp" "$out/$name.log"
  echo "$name: $(grep -E '^(Optimum|Time limit|End|No solution)' "$out/$name.log" | head -1)"
done < "$list"
