#!/usr/bin/env bash
# Pairs against 2x2 patches on the denoising data, through the CLI: `structlr experiment denoise
# --regions LAYOUT` for each layout, on the same generated images (seed 1) with the same settings:
# linear functions, eps 0.1, 25 sweeps after each fit, 25 evaluation sweeps, one thread.
#   bench/regions/run.sh [OUT] [TRAIN] [TEST] [SIZE] [ITERATIONS] [LAYOUTS]
# Defaults: docs/results/regions-denoise, 8 + 8 images of 32x32, 20 iterations, none,patches2x2.
# Writes OUT/LAYOUT/ (the experiment's report.json, curve.csv, curve.png, model/, predictions.png)
# and OUT/table.md. Needs target/structlr.jar (mvn -B package -DskipTests).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-docs/results/regions-denoise}
n_train=${2:-8} n_test=${3:-8} size=${4:-32} iterations=${5:-20} layouts=${6:-none,patches2x2}
[ -f "${STRUCTLR_JAR:-target/structlr.jar}" ] || { echo "no target/structlr.jar: run mvn -B package -DskipTests first" >&2; exit 2; }
mkdir -p "$out"
table="$out/table.md"
{
  echo "| --regions | iterations | test error | train error | objective R | seconds (wall, with evaluation) | learning seconds (fits + passing) |"
  echo "|---|---|---|---|---|---|---|"
} > "$table.tmp"
for layout in ${layouts//,/ }; do
  echo "== --regions $layout ($(uptime | sed 's/.*load/load/'))" >&2
  OMP_NUM_THREADS=1 STRUCTLR_OPTS="${STRUCTLR_OPTS:--Xmx4g}" nice -n 10 bin/structlr experiment denoise \
    --train "$n_train" --test "$n_test" --size "$size" --seed 1 --iterations "$iterations" --regions "$layout" \
    --unary linear --pairwise linear --eps 0.1 --sweeps 25 --eval-sweeps 25 --eval-every 2 --threads 1 --out "$out/$layout"
  # curve.csv: iteration,objective,train_error,test_error,seconds,learning_seconds; the last row is the final one
  tail -n 1 "$out/$layout/curve.csv" | awk -F, -v l="$layout" '{printf "| %s | %d | %.4f | %.4f | %.5f | %.1f | %.1f |\n", l, $1, $4, $3, $2, $5, $6}' >> "$table.tmp"
done
mv "$table.tmp" "$table"
cat "$table"
