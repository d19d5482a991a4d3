#!/usr/bin/env bash
# Learning over region labels on the denoising data: the paper's pairs against 2x2 patch factors
# (and both), the same images and settings, linear functions, one thread (docs/regions.md).
#   bench/regions/run.sh [OUT] [TRAIN] [TEST] [SIZE] [ITERATIONS]
# Defaults: docs/results/regions-denoise, 8 + 8 images of 40x40, 30 iterations. Needs target/structlr.jar.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-docs/results/regions-denoise}
jar=${STRUCTLR_JAR:-target/structlr.jar}
[ -f "$jar" ] || { echo "no $jar: run mvn -B package -DskipTests first" >&2; exit 2; }
OMP_NUM_THREADS=1 nice -n 10 java --add-modules jdk.incubator.vector -Xmx4g -cp "$jar" org.structlr.cli.RegionBench \
  "$out" "${2:-8}" "${3:-8}" "${4:-40}" "${5:-30}" pairs,patches,both
