#!/usr/bin/env bash
# Installs what building and testing highwater needs. Safe to run again: it
# checks each thing first and prints one line for it.
#
#   scripts/setup.sh wasm      wasm32 std, wasm-bindgen-cli, wasm-pack
#   scripts/setup.sh node      the npm packages of package-lock.json (esbuild, playwright-core)
#   scripts/setup.sh browser   Chromium + chromedriver + CJK fonts (apt), and the npm packages
#   scripts/setup.sh docs      the sample documentation site's npm packages (site/: VitePress)
#   scripts/setup.sh [all]     all of these
#
# CRATE_DIR (default: the repo root) is the crate whose Cargo.lock decides the
# wasm-bindgen-cli version. WASM_STD=debian skips rustup and uses the Debian
# fallback for the wasm32 std (scripts/build-wasm.sh honours it too).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CRATE_DIR=${CRATE_DIR:-$ROOT}
WASM_STD=${WASM_STD:-auto}
WASM_PACK_VERSION=0.15.1
TARGET=wasm32-unknown-unknown
DEBIAN_WASM_LIB=/usr/lib/rustlib/$TARGET/lib
STAMP=$DEBIAN_WASM_LIB/.rustc-version   # which Debian rustc built the std there
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export DEBIAN_FRONTEND=noninteractive

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# Runs a noisy command; shows its output only when it fails.
quietly() {
  local log rc=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then cat "$log" >&2; rm -f "$log"; die "failed ($rc): $*"; fi
  rm -f "$log"
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "needs root: $*"; fi
}

# Prints those of the given Debian packages that are not installed.
missing_debs() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
  done
}

APT_UPDATED=
apt_install() {
  local t=$SECONDS apt=(apt-get -o DPkg::Lock::Timeout=300 -y)
  if [ -z "$APT_UPDATED" ]; then quietly as_root "${apt[@]}" update; APT_UPDATED=1; fi
  quietly as_root env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install "$@"
  say "apt-get installed $* ($((SECONDS - t)) s)"
}

has_std() { compgen -G "$1/libstd-*.rlib" >/dev/null; }

# True when the toolchain rustup picks for the crate has the wasm32 std.
rustup_has_wasm() {
  [ "$WASM_STD" != debian ] && command -v rustc >/dev/null || return 1
  has_std "$(cd "$CRATE_DIR" && rustc --print sysroot)/lib/rustlib/$TARGET/lib"
}

# True when Debian's rustc has a wasm32 std that it built itself.
debian_has_wasm() {
  [ -x /usr/bin/rustc ] && has_std "$DEBIAN_WASM_LIB" &&
    [ "$(cat "$STAMP" 2>/dev/null)" = "$(/usr/bin/rustc -vV)" ]
}

setup_wasm_std() {
  if rustup_has_wasm; then say "wasm32 std: ok (rustup)"; return; fi
  if debian_has_wasm; then say "wasm32 std: ok (Debian rustc $(/usr/bin/rustc -V | cut -d' ' -f2))"; return; fi

  # The normal path; on machines where rustup cannot download it, this hangs.
  if [ "$WASM_STD" != debian ] && command -v rustup >/dev/null &&
    (cd "$CRATE_DIR" && timeout -k 5 20 rustup target add "$TARGET" >/dev/null 2>&1) &&
    rustup_has_wasm; then
    say "wasm32 std: added with rustup"; return
  fi

  # Fallback: Debian's current rustc ships the std sources but no wasm32 std,
  # so build it once with -Zbuild-std and install it into Debian's sysroot.
  say "wasm32 std: rustup cannot add it, building it with Debian's rustc"
  local debs
  mapfile -t debs < <(missing_debs rustc-web cargo-web rust-web-src lld-22)
  [ ${#debs[@]} -eq 0 ] || apt_install "${debs[@]}"
  local t=$SECONDS tmp
  tmp=$(mktemp -d)
  mkdir "$tmp/src"
  : >"$tmp/src/lib.rs"
  cat >"$tmp/Cargo.toml" <<'TOML'
[package]
name = "wasm-std-build"
version = "0.0.0"
edition = "2021"

[profile.release]
panic = "abort"
TOML
  (cd "$tmp" && quietly env RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
    RUSTFLAGS=-Zforce-unstable-if-unmarked CARGO_TARGET_DIR="$tmp/target" \
    /usr/bin/cargo build --release --target "$TARGET" -Zbuild-std=std,panic_abort)
  as_root mkdir -p "$DEBIAN_WASM_LIB"
  as_root find "$DEBIAN_WASM_LIB" -maxdepth 1 -name '*.rlib' -delete
  as_root find "$tmp/target/$TARGET/release/deps" -name '*.rlib' ! -name 'libwasm_std_build-*' \
    -exec cp -t "$DEBIAN_WASM_LIB" {} +
  /usr/bin/rustc -vV | as_root tee "$STAMP" >/dev/null
  rm -rf "$tmp"
  debian_has_wasm || die "wasm32 std still missing in $DEBIAN_WASM_LIB"
  say "wasm32 std: built for Debian rustc $(/usr/bin/rustc -V | cut -d' ' -f2) ($((SECONDS - t)) s)"
}

# The wasm-bindgen version the crate resolves to: Cargo.lock, else Cargo.toml's pin.
wasm_bindgen_version() {
  local v=
  if [ -f "$CRATE_DIR/Cargo.lock" ]; then
    v=$(awk '/^\[\[package\]\]/ { name = "" }
             /^name = / { name = $3 }
             /^version = / && name == "\"wasm-bindgen\"" { gsub(/"/, "", $3); print $3; exit }' \
      "$CRATE_DIR/Cargo.lock")
  fi
  if [ -z "$v" ]; then
    v=$(sed -nE 's/^[[:space:]]*wasm-bindgen[[:space:]]*=[[:space:]]*(\{.*version[[:space:]]*=[[:space:]]*)?"=?([0-9]+\.[0-9]+\.[0-9]+)".*/\2/p' \
      "$CRATE_DIR/Cargo.toml" | head -n1)
  fi
  [ -n "$v" ] || die "no wasm-bindgen version in $CRATE_DIR/Cargo.lock or Cargo.toml"
  echo "$v"
}

cargo_install() { # crate version
  local t=$SECONDS
  say "$1: installing $2 with cargo install (a few minutes)"
  # Not --locked: the lock files published with these tools can name crate
  # versions that a registry mirror does not have yet.
  (cd / && quietly cargo install --version "=$2" "$1")
  say "$1: installed $2 ($((SECONDS - t)) s)"
}

setup_wasm_tools() {
  command -v cargo >/dev/null || die "cargo not found: install Rust with rustup first"
  local want have
  want=$(wasm_bindgen_version)
  have=$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2 || true)
  if [ "$have" = "$want" ]; then say "wasm-bindgen-cli: ok ($have)"
  else cargo_install wasm-bindgen-cli "$want"; fi

  # wasm-pack downloads nothing as long as a matching wasm-bindgen is on PATH.
  have=$(wasm-pack --version 2>/dev/null | cut -d' ' -f2 || true)
  if [ -n "$have" ]; then say "wasm-pack: ok ($have)"
  else cargo_install wasm-pack "$WASM_PACK_VERSION"; fi
}

setup_browser() {
  local debs
  # fonts-noto-cjk: the page in Chinese is drawn (and screenshotted) in a CJK face.
  mapfile -t debs < <(missing_debs chromium chromium-driver fonts-noto-cjk)
  if [ ${#debs[@]} -eq 0 ]; then
    say "chromium: ok ($(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}'))"
  else
    apt_install "${debs[@]}"
  fi
  setup_node
}

# The project's npm packages (package-lock.json): the bundler, playwright-core.
setup_node() {
  if ! command -v npm >/dev/null; then apt_install nodejs npm; fi
  # npm ci only when package-lock.json changed since the last install.
  local t=$SECONDS
  if cmp -s "$ROOT/package-lock.json" "$ROOT/node_modules/.setup-stamp"; then
    say "node modules: ok"
  else
    local npm_cmd=ci
    [ -f "$ROOT/package-lock.json" ] || npm_cmd=install
    (cd "$ROOT" && quietly npm "$npm_cmd" --no-audit --no-fund)
    cp "$ROOT/package-lock.json" "$ROOT/node_modules/.setup-stamp"
    say "node modules: installed ($((SECONDS - t)) s)"
  fi
}

# The sample docs site (site/): its own package-lock.json, its own node_modules.
setup_docs() {
  if ! command -v npm >/dev/null; then apt_install nodejs npm; fi
  local site=$ROOT/site t=$SECONDS
  if cmp -s "$site/package-lock.json" "$site/node_modules/.setup-stamp"; then
    say "docs site modules: ok"
  else
    (cd "$site" && quietly npm ci --no-audit --no-fund)
    cp "$site/package-lock.json" "$site/node_modules/.setup-stamp"
    say "docs site modules: installed ($((SECONDS - t)) s)"
  fi
}

[ $# -gt 0 ] || set -- all
for what in "$@"; do
  case $what in
    wasm) setup_wasm_std; setup_wasm_tools ;;
    node) setup_node ;;
    browser) setup_browser ;;
    docs) setup_docs ;;
    all) setup_wasm_std; setup_wasm_tools; setup_browser; setup_docs ;;
    *) die "unknown part '$what' (wasm, node, browser, docs, all)" ;;
  esac
done
