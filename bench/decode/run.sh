#!/usr/bin/env bash
# Decode speed and pixel agreement of structlr's ImageDecoder (javax.imageio) against the OpenCV
# build structlr used before (bytedeco 4.5.5-1.5.7), on a folder of rgb/ and figure_ground/ images.
#   bench/decode/run.sh DB_FOLDER [ROUNDS]      (DB_FOLDER: the Weizmann Horse Database folder; ROUNDS default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
DB=${1:?usage: bench/decode/run.sh DB_FOLDER [ROUNDS] (the Weizmann Horse Database folder)}
ROUNDS=${2:-5}
OUT=target/bench-decode
mkdir -p "$OUT"
mvn -B -q compile
mvn -B -q dependency:build-classpath -Dmdep.outputFile="$OUT/project.cp" >/dev/null
mvn -B -q -f bench/decode/pom.xml dependency:build-classpath -Dmdep.outputFile="$PWD/$OUT/opencv.cp" -Djavacpp.platform=linux-x86_64 >/dev/null
CP="target/classes:$(cat "$OUT/project.cp"):$(cat "$OUT/opencv.cp")"
javac -d "$OUT" -cp "$CP" bench/decode/DecodeSpeed.java
OMP_NUM_THREADS=1 java -cp "$OUT:$CP" DecodeSpeed "$DB" "$ROUNDS" 2>&1 | grep -v '^SLF4J\|^Warning: Versions'
