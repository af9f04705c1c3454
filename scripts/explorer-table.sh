#!/usr/bin/env bash
# Runs the explorer over each version preset and setting and prints docs/explorer-and-whatif.md's
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
    const v = o.violation;
    const notes = v ? [v.acks ? `acks=${v.acks}` : null, v.allowed_by ? `allowed by ${v.allowed_by}` : null].filter(Boolean) : [];
    const found = o.found ? `${v.kind}${notes.length ? ` (${notes.join(", ")})` : ""}` : "nothing";
    const steps = o.found ? o.scenario.steps.length : "-";
    console.log(`| ${process.argv[2]} | ${found} | ${o.depth} | ${steps} | ${o.states} | ${o.seconds.toFixed(2)} s |`);
  ' "$out" "$label"
}
echo "| version and setting | found | depth | steps after minimising | states | time |"
echo "| --- | --- | --- | --- | --- | --- |"
row "0.10, 2 brokers, acks=all" --brokers 2 --protocol 0.10 --acks all
row "0.10, 3 brokers, min ISR 2, acks=all" --brokers 3 --protocol 0.10 --min-isr 2 --acks all
row "0.10, 2 brokers, acks=all, unclean (0.10's default)" --brokers 2 --protocol 0.10 --acks all --unclean
row "0.10, 2 brokers, acks=all, unclean, its losses counted" --brokers 2 --protocol 0.10 --acks all --unclean --count-unclean
row "0.11, 2 brokers, acks=1" --brokers 2 --protocol 0.11 --acks 1
row "2.0, 2 brokers, acks=all" --brokers 2 --protocol 2.0 --acks all
row "2.1, 2 brokers, acks=all" --brokers 2 --protocol 2.1 --acks all
row "2.8, 2 brokers, acks=1" --brokers 2 --protocol 2.8 --acks 1
row "3.7, 2 brokers, min ISR 2, acks=all, power loss" --brokers 2 --protocol 3.7 --min-isr 2 --acks all --power-loss
row "4.1, 2 brokers, min ISR 2, acks=all, power loss" --brokers 2 --protocol 4.1 --min-isr 2 --acks all --power-loss
row "3.7, 3 brokers, min ISR 2, acks=all, 2 records" --brokers 3 --protocol 3.7 --min-isr 2 --acks all --max-produces 2
row "3.7, 3 brokers, min ISR 2, acks=all, cuts, 2 records" --brokers 3 --protocol 3.7 --min-isr 2 --acks all --network-faults --max-produces 2 --max-states 10000000
row "3.7, 3 brokers, min ISR 2, acks=all, unclean" --brokers 3 --protocol 3.7 --min-isr 2 --acks all --unclean
row "3.7, 3 brokers, min ISR 2, acks=all, unclean, its losses counted" --brokers 3 --protocol 3.7 --min-isr 2 --acks all --unclean --count-unclean
row "3.7, 3 brokers, min ISR 1, acks=all, 2 records" --brokers 3 --protocol 3.7 --min-isr 1 --acks all --max-produces 2
row "4.1, 3 brokers, min ISR 2, acks=all, power loss, 2 records" --brokers 3 --protocol 4.1 --min-isr 2 --acks all --power-loss --max-produces 2
