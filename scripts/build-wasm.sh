#!/usr/bin/env bash
# Builds the wasm packages with wasm-pack (run scripts/setup.sh wasm first):
#   www/pkg       the page's core, optimised for size (it is on the first load),
#                 without the controller quorum and without the views a
#                 reader opens by choice (the `quorum` and `views` features
#                 off: the fork, the space-time diagram, the operator's view);
#   www/pkg-quorum the full core, the same with both, which the page loads
#                 instead for a scenario with controllers or when one of
#                 those views is first opened;
#   www/pkg-fast  the same crate optimised for speed, for the Web Workers that
#                 run long searches (the explorer, the what-if grid) and check
#                 tours (with the `authoring` feature), loaded only when one
#                 starts.
# Usage: scripts/build-wasm.sh [CRATE_DIR [OUT_DIR [FAST_OUT_DIR [QUORUM_OUT_DIR]]]]
#   (default: repo root, www/pkg, www/pkg-fast, www/pkg-quorum; "-" skips
#   the workers' or the quorum's core)
# Settings to try others: WASM_OPT_LEVEL and WASM_PAGE_RUSTFLAGS (the page's
# core: "z" and an inline threshold), WASM_FAST_OPT_LEVEL and
# WASM_FAST_RUSTFLAGS (the workers'), WASM_STRIP=false (keep the names, for
# twiggy).
#
# Each build gets its own target dir; the native release build keeps
# opt-level 3. When rustup's toolchain has no wasm32 std, Debian's rustc/cargo
# (whose sysroot setup.sh gave one) are put first on PATH; WASM_STD=debian
# picks them even then.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CRATE_DIR=$(cd "${1:-$ROOT}" && pwd)
OUT_DIR=${2:-$CRATE_DIR/www/pkg}
FAST_OUT_DIR=${3:-$CRATE_DIR/www/pkg-fast}
QUORUM_OUT_DIR=${4:-$CRATE_DIR/www/pkg-quorum}
[[ $OUT_DIR = /* ]] || OUT_DIR=$PWD/$OUT_DIR
[[ $FAST_OUT_DIR = /* || $FAST_OUT_DIR = - ]] || FAST_OUT_DIR=$PWD/$FAST_OUT_DIR
[[ $QUORUM_OUT_DIR = /* || $QUORUM_OUT_DIR = - ]] || QUORUM_OUT_DIR=$PWD/$QUORUM_OUT_DIR
TARGET=wasm32-unknown-unknown
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CARGO_PROFILE_RELEASE_STRIP=${WASM_STRIP:-true}

has_std() { compgen -G "$1/lib/rustlib/$TARGET/lib/libstd-*.rlib" >/dev/null; }

if [ "${WASM_STD:-auto}" != debian ] && has_std "$(cd "$CRATE_DIR" && rustc --print sysroot 2>/dev/null)"; then
  toolchain="rustup"
elif [ -x /usr/bin/rustc ] && has_std "$(/usr/bin/rustc --print sysroot)"; then
  # rustup's cargo/rustc shims come first on PATH; shadow them with links.
  bin=${WASM_TARGET_DIR:-$CRATE_DIR/target/wasm}/debian-bin
  mkdir -p "$bin"
  ln -sf /usr/bin/rustc "$bin/rustc"
  ln -sf /usr/bin/cargo "$bin/cargo"
  export PATH="$bin:$PATH" RUSTC=/usr/bin/rustc
  toolchain="Debian"
else
  echo "build-wasm: no wasm32 std for any rustc; run scripts/setup.sh wasm" >&2
  exit 1
fi

# The files carry no path of the machine that built them: panic locations
# name the dependencies' sources under $CARGO_HOME/registry (or git), std's
# under the sysroot, and the crate's under its directory; each is rewritten
# to a fixed prefix, so the build is the same wherever it runs
# (tests/browser/build-paths.test.mjs checks the shipped files for paths, package.test.mjs the tarball).
cargo_home=${CARGO_HOME:-$HOME/.cargo}
sysroot=$(cd "$CRATE_DIR" && rustc --print sysroot)
remap=""
for pair in "$cargo_home/registry/src=/cargo/registry/src" "$cargo_home/git/checkouts=/cargo/git" "$sysroot=/rust/sysroot" "$CRATE_DIR=/highwater"; do
  case $pair in *" "*) echo "build-wasm: a space in ${pair%%=*}; --remap-path-prefix cannot take it in RUSTFLAGS" >&2; exit 1;; esac
  remap+=" --remap-path-prefix=$pair"
done
export RUSTFLAGS="${RUSTFLAGS:-}$remap"

# build OUT_DIR TARGET_DIR OPT_LEVEL EXTRA_RUSTFLAGS [CARGO_ARGS...]
build() {
  local out=$1 target=$2 opt=$3 flags=$4
  shift 4
  echo "build-wasm: $toolchain $(rustc -V | cut -d' ' -f1-2), wasm-pack $(wasm-pack -V | cut -d' ' -f2), opt-level $opt${flags:+, $flags}${*:+, $*} -> $out"
  [ $# -eq 0 ] || set -- -- "$@"
  CARGO_TARGET_DIR=$target CARGO_PROFILE_RELEASE_OPT_LEVEL=$opt RUSTFLAGS="$RUSTFLAGS${flags:+ $flags}" \
    wasm-pack --log-level error build --target web --release --out-dir "$out" "$CRATE_DIR" "$@"
  for f in "$out"/*.wasm; do echo "build-wasm: $f $(stat -c %s "$f") bytes, $(gzip -9 -c "$f" | wc -c) gzipped"; done
  class_check "$out/highwater.js"
}

# A method that takes a Simulation (`differencesWith`, in a core with the
# views) is guarded by the
# glue's class check, which throws a plain Error; every other argument the
# JS API refuses is a TypeError (src/boundary/wasm.rs, `args`), and this one
# is made one too, saying what it got.
class_check() {
  local js=$1
  local from='throw new Error(`expected instance of ${klass.name}`);'
  local to="throw new TypeError(\`expected an instance of \${klass.name}, got \${instance === null ? 'null' : Array.isArray(instance) ? 'an array' : typeof instance}\`);"
  if ! grep -qF "$from" "$js"; then
    grep -qF 'throw new TypeError(`expected an instance of' "$js" && return
    # A core without the views (`differencesWith`) takes no Simulation.
    grep -qF 'differencesWith' "$js" || return 0
    echo "build-wasm: $js has no class check to make a TypeError (a new wasm-bindgen?)" >&2
    exit 1
  fi
  FROM=$from TO=$to perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/g' "$js"
}

# The page's core is built for size: opt-level "z" with LLVM's inline
# threshold at 50 (between "z"'s 25 and "s"'s 75) is 12.5 KB smaller
# gzipped than "s" with the engine about as fast (7 % slower; "z" alone is
# 17 KB smaller but the engine 1.7x slower). The workers' core is built for
# speed at opt-level 3 (docs/performance.md, "The page's wasm" and "wasm
# speed against size").
# The page's first core has no controller quorum: a scenario without
# controllers (most) does not download its engine (src/model/quorum/slot.rs);
# nor the fork, the space-time diagram and the operator's view (36 KB
# gzipped), which load with the full core when first opened.
build "$OUT_DIR" "${WASM_TARGET_DIR:-$CRATE_DIR/target/wasm}" "${WASM_OPT_LEVEL:-z}" \
  "${WASM_PAGE_RUSTFLAGS--C llvm-args=-inline-threshold=50}" --no-default-features
if [ "$QUORUM_OUT_DIR" != - ]; then
  build "$QUORUM_OUT_DIR" "${WASM_QUORUM_TARGET_DIR:-$CRATE_DIR/target/wasm-quorum}" "${WASM_OPT_LEVEL:-z}" \
    "${WASM_PAGE_RUSTFLAGS--C llvm-args=-inline-threshold=50}"
fi
# The workers' core also has the tour author's calls (the `authoring`
# feature, src/boundary/authoring.rs): the page checks tours in a worker
# (www/workers/tour-worker.js), so the page's core does not carry them.
if [ "$FAST_OUT_DIR" != - ]; then
  build "$FAST_OUT_DIR" "${WASM_FAST_TARGET_DIR:-$CRATE_DIR/target/wasm-fast}" "${WASM_FAST_OPT_LEVEL:-3}" "${WASM_FAST_RUSTFLAGS:-}" --features authoring,workers
fi
