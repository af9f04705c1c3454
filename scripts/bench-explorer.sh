#!/usr/bin/env bash
# The explorer's speed against the first explorer (commit 3028687), in the
# same run: builds that commit in a work tree of its own
# (target/bench-explorer/first), then runs both on the same search,
# interleaved, and prints each one's best distinct states/s of RUNS runs and
# their ratio. This explorer runs on one thread, as the first one did; set
# THREADS to time it on more.
# Usage: scripts/bench-explorer.sh   (make bench-explorer; RUNS=3 by default)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
first=3028687
runs=${RUNS:-3}
threads=${THREADS:-1}
search=(explore --brokers 3 --protocol modern --min-isr 2 --acks all --depth 8 --max-states 5000000 --max-produces 2 --json)

tree=target/bench-explorer/first
if [ ! -e "$tree/.git" ]; then
  mkdir -p target/bench-explorer
  git worktree prune
  git worktree add --detach "$tree" "$first" >/dev/null
fi
echo "building the first explorer ($first) in $tree" >&2
(cd "$tree" && cargo build --release --quiet --bin highwater)
echo "building this explorer" >&2
cargo build --release --quiet --bin highwater

old="$tree/target/release/highwater"
new=target/release/highwater
rate() { node -e 'const o = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(o.states_per_second + " " + o.states)'; }
best_old=0 best_new=0
for i in $(seq "$runs"); do
  read -r r_old s_old < <("$old" "${search[@]}" | rate)
  read -r r_new s_new < <("$new" "${search[@]}" --threads "$threads" | rate)
  echo "run $i: first $r_old states/s ($s_old states), now $r_new states/s ($s_new states)" >&2
  best_old=$(node -e "console.log(Math.max($best_old, $r_old))")
  best_new=$(node -e "console.log(Math.max($best_new, $r_new))")
done
node -e '
  const [o, n, runs, threads] = process.argv.slice(1);
  console.log(`first explorer (3028687): ${Math.round(o).toLocaleString("en")} distinct states/s`);
  console.log(`this explorer (--threads ${threads}): ${Math.round(n).toLocaleString("en")} distinct states/s`);
  console.log(`ratio: ${(n / o).toFixed(2)}x (best of ${runs} interleaved runs each)`);
' "$best_old" "$best_new" "$runs" "$threads"
