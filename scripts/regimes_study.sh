#!/usr/bin/env bash
# The runs behind docs/regimes.md, each on two disjoint seed ranges, then the reports, the replication tables
# and the intervals' split-half calibration.  Every sweep resumes its results file, so stopping (Ctrl-C) and
# starting again loses at most the games in flight; a larger size only adds games.
#
#   scripts/regimes_study.sh OUT                # the sizes docs/regimes.md states
#   SMALL_SEEDS=50 LARGE_SEEDS=50 SECOND=1000 scripts/regimes_study.sh OUT   # the paper's size per cell
#
# OUT gets one results file per study and seed range (NAME-START.parquet), report-NAME-START/ for each,
# replication-NAME.md for each pair, and calibration-small.json.  Run it under `nice` on a shared machine.
set -euo pipefail
out=${1:?usage: scripts/regimes_study.sh OUT}
small=${SMALL_SEEDS:-50}      # seeds per cell of paper-small (50: the paper's)
large=${LARGE_SEEDS:-20}      # seeds per cell of paper-large
sim=${SIM_SEEDS:-8}           # simultaneous-small
private=${PRIVATE_SEEDS:-5}   # private-small
ablation=${ABLATION_SEEDS:-5} # ablation-small
second=${SECOND:-1000}        # the first seed of the second range (the first starts at 0)
negtui=${NEGTUI:-negtui}
here=$(cd "$(dirname "$0")/.." && pwd)
specs=$here/docs/regimes/specs
mkdir -p "$out"

run() {  # NAME SEEDS ARGS...: the sweep at seeds 0.. and at $second..
  local name=$1 seeds=$2
  shift 2
  for start in 0 "$second"; do
    echo "== $name, $seeds seeds from $start" >&2
    $negtui sweep "$@" --seeds "$seeds" --seed-start "$start" -o "$out/$name-$start.parquet"
  done
}

$negtui sweep --preset table2 --rules paper,reference -o "$out/table2.parquet"
run small "$small" --preset paper-small --rules paper,reference
run simultaneous "$sim" "$specs/simultaneous-small.toml"
run large "$large" --preset paper-large --rules paper
run private "$private" "$specs/private-small.toml"
run ablation "$ablation" "$specs/ablation-small.toml"

for name in small simultaneous large private ablation; do
  for start in 0 "$second"; do
    $negtui report "$out/$name-$start.parquet" -o "$out/report-$name-$start" > /dev/null
  done
  python "$here/scripts/replication.py" "$out/$name-0.parquet" "$out/$name-$second.parquet" \
    --json "$out/replication-$name.json" > "$out/replication-$name.md"
done
$negtui report "$out/table2.parquet" -o "$out/report-table2" > /dev/null
python "$here/scripts/split_half.py" "$out/small-$second.parquet" --json "$out/calibration-small.json"
