#!/usr/bin/env bash
# The real-model MAP benchmark of the README ("infer on UAI models"): every model of
# bench/uai/pairwise.txt and bench/uai/higher.txt read and decoded by structlr (today's rounding
# decoder and the search, each model with a budget of SECONDS of CPU time of its one inference
# thread), against the best known MAP value (toulbar2's solution within its own SECONDS, or the
# competition's reference .MAP file, whichever is higher). Stops by itself; a rerun continues where
# an interrupted one stopped (delete OUT to start afresh).
#
#   bench/uai/run.sh MODELS [SECONDS] [OUT]      (VARIANTS="search round", SETS="pairwise higher" by default)
#
# MODELS: a checkout of the UAI 2014 competition's models and reference solutions,
#   git clone https://github.com/mroavi/uai MODELS   (the model files have no licence stated, so
#   they are not copied into this repository; the lists name paths inside that checkout).
# Needs toulbar2 (Debian: apt-get install toulbar2) and target/structlr.jar (mvn -B package -DskipTests).
# Writes OUT/{pairwise,higher}/{search,round}.tsv, OUT/{pairwise,higher}/best-known.tsv and
# OUT/{pairwise,higher}/table.md (default OUT: runs/uai-bench; the README's tables are copies of them
# in docs/results/uai-bench/). One thread, niced. Every model gets SECONDS of CPU time of its one
# inference thread (reading excluded), so a busy machine lengthens the wall time but not the work.
set -euo pipefail
cd "$(dirname "$0")/../.."
models=${1:?usage: bench/uai/run.sh MODELS [SECONDS] [OUT]}
secs=${2:-60}
out=${3:-runs/uai-bench}
read -r -a variants <<< "${VARIANTS:-search round}"
jar=${STRUCTLR_JAR:-target/structlr.jar}
[ -f "$jar" ] || { echo "no $jar: run mvn -B package -DskipTests first" >&2; exit 2; }
java=(env OMP_NUM_THREADS=1 nice -n 10 java --add-modules jdk.incubator.vector -Xmx6g -cp "$jar" org.structlr.cli.UaiBench)
for set in ${SETS:-pairwise higher}; do
  mkdir -p "$out/$set"
  bench/uai/toulbar2.sh "$models" "bench/uai/$set.txt" "$secs" "$out/toulbar2"
  "${java[@]}" best "$models" "bench/uai/$set.txt" "$out/toulbar2" "$out/$set/best-known.tsv" > /dev/null
  for variant in "${variants[@]}"; do
    "${java[@]}" run "$models" "bench/uai/$set.txt" "$out/$set" "$variant" "$secs"
  done
  "${java[@]}" table "$out/$set/best-known.tsv" "$out/$set" "${variants[@]}" > /dev/null
  echo "== $set: $out/$set/table.md"
done
