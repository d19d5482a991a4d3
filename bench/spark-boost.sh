#!/usr/bin/env bash
# (boost, boost) on the denoising set of bench/spark-scale.sh (160 training, 16 test images of SIZE x SIZE):
# one machine, local[2] with XGBoost's collective (the default), and local[2] fitted on the driver
# from gathered rows (spark.structlr.boost.onDriver); test errors per iteration side by side.
#
#   mvn -B -Pspark package -DskipTests && bench/spark-scale.sh 1 100 && bench/spark-boost.sh [ITERATIONS=10]
#
# Writes runs/spark-boost/{one,local2,local2-driver}.{csv,json}. One OpenMP thread per JVM.
set -euo pipefail
cd "$(dirname "$0")/.."
IT=${1:-10}
OUT=runs/spark-boost
DATA=runs/spark-scale/gen/data
[ -d "$DATA/train" ] || { echo "error: $DATA: missing; run bench/spark-scale.sh 1 100 first" >&2; exit 2; }
mkdir -p "$OUT"
. bench/spark-env.sh
TRAIN=(train --data "$DATA" --unary boost --pairwise boost --iterations "$IT" --threads 1 --quiet)
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
print("| test error | " + " | ".join(its) + " |")
print("|---|" + "---:|" * len(its))
for name, f in runs:
    print(f"| {name} | " + " | ".join(f"{float(r['test_error']):.4f}" for r in rows[f]) + " |")
for name, f in runs:
    s = json.load(open(f"{out}/{f}.json"))["seconds"]
    print(f"{name}: {float(rows[f][-1]['seconds']):.1f} s, oracle fits {s['oracle_fits']:.1f} s")
PY
