#!/usr/bin/env bash
# States the explorer's symmetry reduction saves: for 3, 5 and 7 brokers, an
# exhaustive search at a fixed depth with --symmetry off and on, in turns, on
# two topics with renamings: N partitions whose replica lists are rotations
# of each other (partition p on brokers p+1, p+2, p+3 mod N), and one
# partition on brokers 1, 2, 3 with the other brokers holding no replica.
# Prints one row per case: states off and on, their ratio, seconds each.
# Usage: scripts/bench-symmetry.sh [DEPTH]   (default 4; THREADS=N, default 1)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
depth=${1:-4}
threads=${THREADS:-1}
cargo build --release --quiet --bin highwater
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scenario() { # NAME BROKERS PARTITIONS ASSIGNMENT
  printf '{"version": 1, "name": "%s", "config": {"brokers": %s, "partitions": %s, "replication_factor": 3, "min_insync_replicas": 2, "protocol": "3.7", "assignment": %s}, "steps": []}\n' "$1" "$2" "$3" "$4"
}
echo "| brokers | topic | renamings | states, symmetry off | states, on | fewer | seconds off | seconds on |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for n in 3 5 7; do
  rotated=$(node -e 'const n = +process.argv[1]; console.log(JSON.stringify(Array.from({ length: n }, (_, p) => [0, 1, 2].map((j) => ((p + j) % n) + 1))))' "$n")
  scenario "rotated" "$n" "$n" "$rotated" > "$tmp/rotated-$n.json"
  scenario "idle" "$n" 1 '[[1, 2, 3]]' > "$tmp/idle-$n.json"
  for topic in rotated idle; do
    run() { target/release/highwater explore --prefix "$tmp/$topic-$n.json" --depth "$depth" --max-produces 2 --max-states 10000000 --threads "$threads" --symmetry "$1" --json; }
    read -r off_states off_s < <(run off | node -e 'const o = JSON.parse(require("fs").readFileSync(0, "utf8")); if (!o.complete) throw new Error("stopped"); console.log(o.states, o.seconds.toFixed(2))')
    read -r on_states on_s k < <(run on | node -e 'const o = JSON.parse(require("fs").readFileSync(0, "utf8")); if (!o.complete) throw new Error("stopped"); console.log(o.states, o.seconds.toFixed(2), o.symmetries)')
    what=$([ "$topic" = rotated ] && echo "$n partitions, lists rotated" || echo "1 partition on brokers 1-3")
    echo "| $n | $what | $k | $off_states | $on_states | $(node -e "console.log((+process.argv[1] / +process.argv[2]).toFixed(2) + 'x')" "$off_states" "$on_states") | $off_s | $on_s |"
  done
done
echo "(depth $depth, 2 records, 3.7, min ISR 2, $threads thread(s))"
