#!/usr/bin/env bash
# Runs the explorer over each generation and setting and prints the README's
# table (markdown). Usage: scripts/explorer-table.sh [DEPTH]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release --quiet
depth=${1:-8}
row() {
  local label=$1; shift
  local out
  out=$(target/release/highwater explore --json --depth "$depth" "$@")
  node -e '
    const o = JSON.parse(process.argv[1]);
    const found = o.found ? `${o.violation.kind}${o.violation.acks ? " (acks=" + o.violation.acks + ")" : ""}` : "nothing";
    const steps = o.found ? o.scenario.steps.length : "-";
    console.log(`| ${process.argv[2]} | ${found} | ${o.depth} | ${steps} | ${o.states} | ${o.seconds.toFixed(2)} s |`);
  ' "$out" "$label"
}
echo "| generation and setting | found | depth | steps after minimising | states | time |"
echo "| --- | --- | --- | --- | --- | --- |"
row "legacy, 2 brokers, min ISR 1, acks=all" --brokers 2 --protocol legacy --min-isr 1 --acks all
row "legacy, 3 brokers, min ISR 2, acks=all" --brokers 3 --protocol legacy --min-isr 2 --acks all
row "kip101, 2 brokers, acks=1, 3 records (leader changes)" --brokers 2 --protocol kip101 --acks 1 --max-produces 3
row "kip101, 3 brokers, min ISR 2, acks=all" --brokers 3 --protocol kip101 --min-isr 2 --acks all
row "kip101, 2 brokers, acks=all, power loss" --brokers 2 --protocol kip101 --acks all --power-loss
row "modern, 2 brokers, acks=1, power loss" --brokers 2 --protocol modern --acks 1 --power-loss
row "modern, 3 brokers, min ISR 2, acks=all" --brokers 3 --protocol modern --min-isr 2 --acks all
row "modern, 3 brokers, min ISR 2, acks=all, cuts" --brokers 3 --protocol modern --min-isr 2 --acks all --network-faults
row "modern, 3 brokers, min ISR 2, acks=all, unclean" --brokers 3 --protocol modern --min-isr 2 --acks all --unclean
row "modern, 3 brokers, min ISR 2, acks=all, power loss" --brokers 3 --protocol modern --min-isr 2 --acks all --power-loss
row "modern, 3 brokers, min ISR 1, acks=all" --brokers 3 --protocol modern --min-isr 1 --acks all
