#!/usr/bin/env bash
# (boost, boost) on a denoising set, by default that of bench/spark-scale.sh (160 training, 16 test
# images of SIZE x SIZE): one machine, local[2] with XGBoost's collective (the default), and local[2]
# fitted on the driver from gathered rows (spark.structlr.boost.onDriver); test errors and
# objectives per iteration side by side (every iteration evaluated).
#
#   mvn -B -Pspark package -DskipTests && bench/spark-scale.sh 1 100 && bench/spark-boost.sh [ITERATIONS=10]
#   bench/spark-boost.sh 10 runs/demo/data runs/spark-boost-paper    # the paper's set, as `demo` writes it
#
# Writes OUT/{one,local2,local2-driver}.{csv,json} (OUT default runs/spark-boost). One OpenMP thread per JVM.
set -euo pipefail
cd "$(dirname "$0")/.."
IT=${1:-10}
DATA=${2:-runs/spark-scale/gen/data}
OUT=${3:-runs/spark-boost}
[ -d "$DATA/train" ] || { echo "error: $DATA: missing (for the default, run bench/spark-scale.sh 1 100 first)" >&2; exit 2; }
mkdir -p "$OUT"
. bench/spark-env.sh
TRAIN=(train --data "$DATA" --unary boost --pairwise boost --iterations "$IT" --eval-every 1 --threads 1 --quiet)
java $FLAGS -Xmx4g -cp "$CP" org.structlr.cli.Main "${TRAIN[@]}" --report "$OUT/one.json" --csv "$OUT/one.csv"
java $FLAGS -Xmx4g -cp "$CP" org.structlr.cli.Main "${TRAIN[@]}" --spark 'local[2]' --report "$OUT/local2.json" --csv "$OUT/local2.csv"
java $FLAGS -Xmx4g -cp "$CP" -Dspark.structlr.boost.onDriver=true org.structlr.cli.Main "${TRAIN[@]}" --spark 'local[2]' \
    --report "$OUT/local2-driver.json" --csv "$OUT/local2-driver.csv"

python3 - "$OUT" <<'PY'
import csv, json, sys
out = sys.argv[1]
runs = [("one machine", "one"), ("local[2], XGBoost's collective", "local2"), ("local[2], gathered on the driver", "local2-driver")]
rows = {f: list(csv.DictReader(open(f"{out}/{f}.csv"))) for _, f in runs}
its = [r["iteration"] for r in rows["one"]]
print("| iteration | " + " | ".join(its) + " |")
print("|---|" + "---:|" * len(its))
for name, f in runs:
    print(f"| test error, {name} | " + " | ".join(f"{float(r['test_error']):.4f}" for r in rows[f]) + " |")
for name, f in runs:
    print(f"| objective, {name} | " + " | ".join(f"{float(r['objective']):.5f}" for r in rows[f]) + " |")
for name, f in runs:
    s = json.load(open(f"{out}/{f}.json"))["seconds"]
    print(f"{name}: {float(rows[f][-1]['seconds']):.1f} s, oracle fits {s['oracle_fits']:.1f} s")
PY
