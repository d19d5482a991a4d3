#!/usr/bin/env bash
# Per-pixel error of a horse model at the photos' own size: `predict` labels every test photo (even
# image numbers of the Weizmann Horse Database, the odd/even split of horses-data) at its own aspect
# ratio and returns a mask at the photo's size; MaskError.java compares it with the full-resolution
# figure-ground mask (both thresholded at 128).
#   bench/horses-own-size/run.sh DB_FOLDER MODEL OUT [predict options...]
set -euo pipefail
cd "$(dirname "$0")/../.."
DB=${1:?usage: bench/horses-own-size/run.sh DB_FOLDER MODEL OUT [predict options]}
MODEL=${2:?model folder}
OUT=${3:?output folder}
shift 3
mkdir -p "$OUT/photos" "$OUT/masks"
for f in "$DB"/rgb/horse*.jpg; do
  n=$(basename "$f" .jpg); n=${n#horse}
  if (( 10#$n % 2 == 0 )); then ln -sf "$(realpath "$f")" "$OUT/photos/"; fi
done
start=$(date +%s.%N)
bin/structlr predict --model "$MODEL" --input "$OUT/photos" --output "$OUT/masks" "$@"
end=$(date +%s.%N)
echo "predict: $(ls "$OUT/photos" | wc -l) photos in $(echo "$end - $start" | bc) s"
java bench/horses-own-size/MaskError.java "$OUT/masks" "$DB/figure_ground"
