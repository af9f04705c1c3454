#!/usr/bin/env bash
# Puts a runnable copy of RaftScope (github.com/ongardie/raftscope, the Raft
# visualisation) in target/raftscope/, for scripts/bench-first-load.mjs to
# load beside Highwater. Nothing of it enters the repository, www/ or the
# npm package: target/ is ignored.
#
#   scripts/fetch-raftscope.sh            # git clone --depth 1 of GitHub
#   RAFTSCOPE_MIRROR=/path/to/raftscope.git scripts/fetch-raftscope.sh
#                                         # a local git dir (bare or not): git archive HEAD
#
# Its two git submodules are not in an archive or a shallow clone; their files
# come from the npm registry, pinned, copied to the paths index.html names:
#   bootstrap-slider 4.1.1        (the submodule is a May 2014 commit, about
#                                  3.1; 4.1.1 is the oldest on npm.
#                                  js/bootstrap-slider.js and
#                                  dist/css/bootstrap-slider.css)
#   bootstrap-contextmenu 1.0.0   (the only version on npm; the same plugin as
#                                  the April 2014 submodule, a few fixes later)
# One difference shows: 4.x calls the tooltip option `formatter`, RaftScope
# passes `formater`, so its sliders' tooltips show raw numbers. The drawing is
# the same. Run again to refresh (it starts from an empty target/raftscope).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/target/raftscope
DEPS=$ROOT/target/raftscope-deps
SLIDER=bootstrap-slider@4.1.1
CONTEXTMENU=bootstrap-contextmenu@1.0.0

rm -rf "$OUT"
mkdir -p "$OUT" "$DEPS"

if [[ -n ${RAFTSCOPE_MIRROR:-} ]]; then
  echo "RaftScope from $RAFTSCOPE_MIRROR"
  git --git-dir="$RAFTSCOPE_MIRROR" rev-parse --verify -q HEAD >/dev/null ||
    git --git-dir="$RAFTSCOPE_MIRROR/.git" rev-parse --verify -q HEAD >/dev/null ||
    { echo "fetch-raftscope: $RAFTSCOPE_MIRROR is not a git dir" >&2; exit 1; }
  GIT_DIR=$RAFTSCOPE_MIRROR
  [[ -d $GIT_DIR/.git ]] && GIT_DIR=$GIT_DIR/.git
  git --git-dir="$GIT_DIR" archive HEAD | tar -x -C "$OUT"
  git --git-dir="$GIT_DIR" rev-parse HEAD > "$OUT/.commit"
else
  echo "RaftScope from GitHub (shallow clone)"
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  git clone -q --depth 1 https://github.com/ongardie/raftscope "$TMP/raftscope"
  git -C "$TMP/raftscope" rev-parse HEAD > "$OUT/.commit"
  git -C "$TMP/raftscope" archive HEAD | tar -x -C "$OUT"
fi

# The submodules' files, from npm (installed under target/, then copied).
npm install --silent --no-save --no-package-lock --no-audit --no-fund --ignore-scripts \
  --prefix "$DEPS" "$SLIDER" "$CONTEXTMENU"
NM=$DEPS/node_modules
mkdir -p "$OUT/bootstrap-slider/css" "$OUT/bootstrap-slider/js" "$OUT/bootstrap-contextmenu"
cp "$NM/bootstrap-slider/dist/css/bootstrap-slider.css" "$OUT/bootstrap-slider/css/"
cp "$NM/bootstrap-slider/js/bootstrap-slider.js" "$OUT/bootstrap-slider/js/"
cp "$NM/bootstrap-contextmenu/bootstrap-contextmenu.js" "$OUT/bootstrap-contextmenu/"

# Every script and style sheet index.html names must now be there.
missing=0
for f in $(grep -oE '(src|href)="[^"#:]+\.(js|css)"' "$OUT/index.html" | sed -E 's/^[a-z]+="//; s/"$//'); do
  [[ -f $OUT/$f ]] || { echo "fetch-raftscope: $f is missing" >&2; missing=1; }
done
(( missing == 0 )) || exit 1
echo "RaftScope $(cut -c1-7 "$OUT/.commit") in ${OUT#"$ROOT"/} ($SLIDER, $CONTEXTMENU)"
