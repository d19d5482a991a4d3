#!/usr/bin/env bash
# The serve benchmark (docs/serve.md, issue 25). Stops by itself; loopback only.
#
#   bench/serve/run.sh PHOTOS_DIR [OUT]
#
# For the horses model (models/horses) on the first 16 photos of PHOTOS_DIR (any .jpg/.png) and a
# freshly trained linear denoising model (demo: 10 iterations on 4 images; DENOISE_MODEL=models/denoise-boost
# for the boosted one, several seconds per example) on 16 fresh 100x100 examples:
#   1. one `structlr serve` process; LoadBench at concurrency 1, 8 and 32 (N requests each, after a
#      warm-up): requests/s, p50/p99 latency, errors; the batch sizes reached (from /metrics);
#   2. the alternative: one `structlr predict` process per request, K of them in a row;
# then SOAK requests in a row to the horses server (the photos in turn) with its resident memory sampled
# every 100 (OUT/soak.csv, OUT/soak.png). Settings: N (default 200), K (10), SOAK (10000), THREADS
# (engine threads, 1), MAX_BATCH (8), MAX_WAIT_MS (5), PARTS ("load soak": which parts to run).
# Prints `uptime` before and after: the numbers mean little on a busy machine.
set -euo pipefail
PHOTOS=${1:?usage: bench/serve/run.sh PHOTOS_DIR [OUT]}
OUT=${2:-docs/results/serve}
PARTS=${PARTS:-load soak}
N=${N:-200}; K=${K:-10}; SOAK=${SOAK:-10000}; THREADS=${THREADS:-1}; MAX_BATCH=${MAX_BATCH:-8}; MAX_WAIT_MS=${MAX_WAIT_MS:-5}
cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
TMP=$(mktemp -d)
SERVER=
cleanup() { [ -n "$SERVER" ] && kill -TERM "$SERVER" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT

# CLASSES: compiled main and test classes to use (default: compile this checkout's)
if [ -z "${CLASSES:-}" ]; then
  mvn -B -q -o test-compile >/dev/null
  CLASSES=target/classes:target/test-classes
fi
mvn -B -q -o dependency:build-classpath -Dmdep.outputFile="$TMP/cp.txt" >/dev/null
CP="$CLASSES:$(cat "$TMP/cp.txt")"
export OMP_NUM_THREADS=$THREADS
JAVA=(java --add-modules jdk.incubator.vector -Xmx4g -cp "$CP")
quiet_jvm() { "$@" 2> >(grep -v 'Using incubator modules' >&2); }   # the JVM's one-line note on the Vector API
STRUCTLR=("${JAVA[@]}" org.structlr.cli.Main)

echo "# serve benchmark $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD)"
echo "# machine before: $(uptime)"
echo "# settings: N=$N K=$K SOAK=$SOAK THREADS=$THREADS MAX_BATCH=$MAX_BATCH MAX_WAIT_MS=$MAX_WAIT_MS"

# inputs: 16 photos; 16 denoising examples of 100x100 (seed 7)
mkdir -p "$TMP/photos"
mapfile -t ALL_PHOTOS < <(find "$PHOTOS" -maxdepth 1 -type f \( -iname '*.jpg' -o -iname '*.png' \) | sort)
[ "${#ALL_PHOTOS[@]}" -gt 0 ] || { echo "no .jpg/.png photos in $PHOTOS"; exit 2; }
cp "${ALL_PHOTOS[@]:0:16}" "$TMP/photos/"
[[ " $PARTS " == *" load "* ]] && "${STRUCTLR[@]}" demo --iterations 10 --train 4 --test 16 --size 100 --seed 7 --threads 1 --quiet --out "$TMP/dn" >/dev/null
DENOISE_MODEL=${DENOISE_MODEL:-$TMP/dn/model}
PHOTO_FILES=("$TMP"/photos/*)
DN_FILES=("$TMP"/dn/data/test/*.npz)

serve() {   # MODEL -> sets SERVER (pid) and URL
  "${STRUCTLR[@]}" serve --model "$1" --port 0 --threads "$THREADS" --max-batch "$MAX_BATCH" --max-wait-ms "$MAX_WAIT_MS" \
      --max-queue 256 > "$TMP/serve.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 600); do grep -q '^ready:' "$TMP/serve.log" && break; sleep 0.5; done
  grep -q '^ready:' "$TMP/serve.log" || { cat "$TMP/serve.log"; exit 1; }
  URL=$(grep -o 'listening on http://[^ ]*' "$TMP/serve.log" | head -1 | cut -d' ' -f3)
}

stop() {
  kill -TERM "$SERVER"; wait "$SERVER" || true; SERVER=
  grep -E '^(stopping|stopped):' "$TMP/serve.log" | sed 's/^/  server /'
}

batches() {   # the batch-size histogram from /metrics
  curl -s "$URL/metrics" | awk '/^structlr_batch_size_bucket/ {match($0, /le="[^"]*"/); le=substr($0, RSTART+4, RLENGTH-5); printf "%s<=%s:%s ", "", le, $2} /^structlr_batch_size_count/ {c=$2} /^structlr_batch_size_sum/ {s=$2} END {printf "\n  batches %d, mean batch %.2f examples\n", c, (c > 0 ? s / c : 0)}'
}

bench_model() {   # NAME MODEL PATH TYPE FILES...
  local name=$1 model=$2 path=$3 type=$4; shift 4
  echo "## $name: $model, $path, ${#@} inputs"
  serve "$model"
  quiet_jvm "${JAVA[@]}" org.structlr.serve.LoadBench load "$URL" "$path" "$type" 4 20 "$@" > /dev/null   # warm-up
  for c in 1 8 32; do
    echo -n "  serve "; quiet_jvm "${JAVA[@]}" org.structlr.serve.LoadBench load "$URL" "$path" "$type" "$c" "$N" "$@"
  done
  echo -n "  batch sizes (warm-up included): "; batches
  stop
  # one predict process per request, in a row
  local lat=() t0 t1 s e
  t0=$(date +%s.%N)
  for k in $(seq 0 $((K - 1))); do
    local in=${@:$((k % ${#@} + 1)):1}
    local ext=${in##*.}; [ "$ext" = npz ] && ext=npz || ext=png
    s=$(date +%s.%N)
    quiet_jvm "${STRUCTLR[@]}" predict --model "$model" --input "$in" --output "$TMP/out.$ext" --threads "$THREADS" --quiet > /dev/null
    e=$(date +%s.%N)
    lat+=("$(echo "($e - $s) * 1000" | bc -l)")
  done
  t1=$(date +%s.%N)
  printf '  %s\n' "${lat[@]}" | sort -n > "$TMP/lat.txt"
  echo "  predict per request: $K requests in $(printf '%.1f' "$(echo "$t1 - $t0" | bc -l)") s, $(printf '%.2f' "$(echo "$K / ($t1 - $t0)" | bc -l)") requests/s, p50 $(printf '%.0f' "$(sed -n "$(( (K + 1) / 2 ))p" "$TMP/lat.txt")") ms, max $(printf '%.0f' "$(tail -1 "$TMP/lat.txt")") ms"
}

if [[ " $PARTS " == *" load "* ]]; then
  bench_model "horses" models/horses /v1/segment image/jpeg "${PHOTO_FILES[@]}"
  bench_model "denoising" "$DENOISE_MODEL" /v1/predict application/x-npz "${DN_FILES[@]}"
fi
if [[ " $PARTS " == *" soak "* ]]; then
  echo "## soak: $SOAK requests in a row, horses model on the photos"
  serve models/horses
  quiet_jvm "${JAVA[@]}" org.structlr.serve.LoadBench soak "$URL" /v1/segment image/jpeg "$SERVER" "$SOAK" "$OUT/soak" "${PHOTO_FILES[@]}"
  echo -n "  batch sizes: "; batches
  stop
fi
echo "# machine after: $(uptime)"
