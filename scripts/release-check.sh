#!/usr/bin/env bash
# Before a release: the tag is v<version> of Cargo.toml's [package] (the
# crate's and the npm package's one version), and CHANGELOG.md has that
# version's section, dated (Keep a Changelog: "## [0.1.0] - 2026-12-06").
#   scripts/release-check.sh TAG   (the release workflow passes its tag)
set -euo pipefail
ROOT=${RELEASE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
tag=${1:?usage: scripts/release-check.sh TAG}
version=$(awk '/^\[/{p = ($0 == "[package]")} p && /^version *= *"/{gsub(/^version *= *"|".*$/, ""); print; exit}' "$ROOT/Cargo.toml")
if [ -z "$version" ]; then
  echo "release-check: no version in the [package] table of Cargo.toml" >&2
  exit 1
fi
if [ "$tag" != "v$version" ]; then
  echo "release-check: the tag $tag is not v$version (Cargo.toml)" >&2
  exit 1
fi
if ! grep -Eq "^## \[${version//./\\.}\] - [0-9]{4}-[0-9]{2}-[0-9]{2}$" "$ROOT/CHANGELOG.md"; then
  echo "release-check: CHANGELOG.md has no dated section for $version (## [$version] - YYYY-MM-DD)" >&2
  exit 1
fi
echo "release-check: $tag is version $version, in CHANGELOG.md"
