#!/usr/bin/env bash
# Builds the wasm package with wasm-pack (run scripts/setup.sh wasm first).
# Usage: scripts/build-wasm.sh [CRATE_DIR [OUT_DIR]]   (default: repo root, www/pkg)
#
# The wasm build gets its own target dir and optimises for size; the native
# release build keeps opt-level 3. When rustup's toolchain has no wasm32 std, Debian's
# rustc/cargo (whose sysroot setup.sh gave one) are put first on PATH;
# WASM_STD=debian picks them even then.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CRATE_DIR=$(cd "${1:-$ROOT}" && pwd)
OUT_DIR=${2:-$CRATE_DIR/www/pkg}
[[ $OUT_DIR = /* ]] || OUT_DIR=$PWD/$OUT_DIR
TARGET=wasm32-unknown-unknown
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CARGO_TARGET_DIR=${WASM_TARGET_DIR:-$CRATE_DIR/target/wasm}
# opt-level "s" with stripped symbols keeps the file small; inlining buys
# speed with size (the explorer in V8: "s" 194 KB gzipped at 0.3x native,
# 2 or 3 224 to 226 KB at 0.47x; see README, "wasm speed against size").
export CARGO_PROFILE_RELEASE_OPT_LEVEL=${WASM_OPT_LEVEL:-s}
export CARGO_PROFILE_RELEASE_STRIP=${WASM_STRIP:-true}

has_std() { compgen -G "$1/lib/rustlib/$TARGET/lib/libstd-*.rlib" >/dev/null; }

if [ "${WASM_STD:-auto}" != debian ] && has_std "$(cd "$CRATE_DIR" && rustc --print sysroot 2>/dev/null)"; then
  toolchain="rustup"
elif [ -x /usr/bin/rustc ] && has_std "$(/usr/bin/rustc --print sysroot)"; then
  # rustup's cargo/rustc shims come first on PATH; shadow them with links.
  bin=$CARGO_TARGET_DIR/debian-bin
  mkdir -p "$bin"
  ln -sf /usr/bin/rustc "$bin/rustc"
  ln -sf /usr/bin/cargo "$bin/cargo"
  export PATH="$bin:$PATH" RUSTC=/usr/bin/rustc
  toolchain="Debian"
else
  echo "build-wasm: no wasm32 std for any rustc; run scripts/setup.sh wasm" >&2
  exit 1
fi

echo "build-wasm: $toolchain $(rustc -V | cut -d' ' -f1-2), wasm-pack $(wasm-pack -V | cut -d' ' -f2) -> $OUT_DIR"
wasm-pack --log-level error build --target web --release --out-dir "$OUT_DIR" "$CRATE_DIR"
for f in "$OUT_DIR"/*.wasm; do echo "build-wasm: $f $(stat -c %s "$f") bytes"; done
