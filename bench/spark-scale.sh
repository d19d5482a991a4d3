#!/usr/bin/env bash
# Seconds per learning iteration of `train` (linear, linear) on a denoising set 10x the paper's
# (160 training images; 16 test images) on one machine, on an embedded Spark (local[2]) and on a
# 2-worker Spark standalone cluster on 127.0.0.1 (a Master and two one-core Workers started here
# through Spark's own classes), with where the time went (oracle fits, message passing, evaluation).
#
#   mvn -B -Pspark package -DskipTests && bench/spark-scale.sh [ITERATIONS=3] [SIZE=100]
#   UNARY=mlp PAIRWISE=linear bench/spark-scale.sh 2 100     # other classes (default linear, linear)
#
# Writes runs/spark-scale/[UNARY-PAIRWISE-]{one,local2,cluster}.json and prints a Markdown table. Run it on an
# otherwise idle machine: every setting runs one OpenMP thread per JVM.
set -euo pipefail
cd "$(dirname "$0")/.."
IT=${1:-3}
SIZE=${2:-100}
OUT=runs/spark-scale
UNARY=${UNARY:-linear}
PAIRWISE=${PAIRWISE:-linear}
TAG=""
[ "$UNARY-$PAIRWISE" = "linear-linear" ] || TAG="$UNARY-$PAIRWISE-"
mkdir -p "$OUT"
. bench/spark-env.sh
run() { java $FLAGS -Xmx4g -cp "$CP" "$@"; }

if [ ! -d "$OUT/gen/data/train" ]; then
  run org.structlr.cli.Main demo --train 160 --test 16 --size "$SIZE" --iterations 1 --unary zero --pairwise zero \
      --threads 1 --quiet --out "$OUT/gen" >/dev/null
fi
TRAIN=(train --data "$OUT/gen/data" --unary "$UNARY" --pairwise "$PAIRWISE" --iterations "$IT" --threads 1 --quiet)

run org.structlr.cli.Main "${TRAIN[@]}" --report "$OUT/${TAG}one.json"
run org.structlr.cli.Main "${TRAIN[@]}" --spark 'local[2]' --report "$OUT/${TAG}local2.json"

# the standalone cluster: executors get this classpath and the same flags
PORT=7177; UI=8180
SPARK_ENV=(env SPARK_HOME="$PWD/$OUT/spark-home" SPARK_TESTING=1 SPARK_SCALA_VERSION=2.12 SPARK_LOCAL_IP=127.0.0.1 OMP_NUM_THREADS=1)
mkdir -p "$OUT/spark-home" "$OUT/w0" "$OUT/w1"
"${SPARK_ENV[@]}" java $FLAGS -Xmx512m -cp "$CP" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port $PORT --webui-port $UI \
    >"$OUT/master.log" 2>&1 & MASTER=$!
W=()
for w in 0 1; do
  "${SPARK_ENV[@]}" java $FLAGS -Xmx512m -cp "$CP" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --cores 1 --memory 5g \
      --webui-port $((UI + 1 + w)) --work-dir "$OUT/w$w" spark://127.0.0.1:$PORT >"$OUT/worker-$w.log" 2>&1 & W+=($!)
done
trap 'kill ${W[*]} $MASTER 2>/dev/null || true' EXIT
for _ in $(seq 60); do
  curl -s "http://127.0.0.1:$UI/json/" | grep -q '"aliveworkers" *: *2' && break
  sleep 1
done
run -Dspark.driver.host=127.0.0.1 -Dspark.driver.bindAddress=127.0.0.1 -Dspark.executor.memory=4g \
    -Dspark.executor.extraClassPath="$CP" -Dspark.executor.extraJavaOptions="$FLAGS" -Dspark.executorEnv.OMP_NUM_THREADS=1 \
    org.structlr.cli.Main "${TRAIN[@]}" --spark spark://127.0.0.1:$PORT --report "$OUT/${TAG}cluster.json"

python3 - "$OUT" "$IT" "$TAG" <<'PY'
import json, sys
out, it, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [("one machine", "one"), ("Spark local[2]", "local2"), ("Spark standalone, 2 workers", "cluster")]
base = None
print("| setting | s / iteration | ratio to one machine | oracle fits s | message passing s | evaluation s | final objective | test error |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for name, f in rows:
    r = json.load(open(f"{out}/{tag}{f}.json"))
    curve = r["iterations"]; last = curve[-1]; s = r["seconds"]
    per = last["seconds"] / it
    base = base or per
    print(f"| {name} | {per:.1f} | {per / base:.2f} | {s['oracle_fits']:.1f} | {s['message_passing']:.1f} | {s['evaluation']:.1f} "
          f"| {last['objective']:.6f} | {last['test_error']:.4f} |")
PY
