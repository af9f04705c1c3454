# highwater: build, serve and test. `make serve` and `make test` first install
# whatever is missing (scripts/setup.sh), so they work on a fresh machine.
SHELL := /bin/bash
PORT ?= 8080
BENCH ?= cargo run --release --example bench
# make fuzz: how long, and the generator's seed (default: from the clock).
SECONDS ?= 60
SEED ?=

.PHONY: help setup build serve test test-native test-browser bench bench-worst bench-explorer fuzz bless screenshots package site check-sites clean

help:
	@echo "make serve   build the wasm package and serve www/ on http://127.0.0.1:$(PORT)/"
	@echo "make test    native tests (cargo test --release), wasm build, browser tests"
	@echo "make build   the wasm packages (www/pkg, www/pkg-quorum with the controller quorum, www/pkg-fast for the workers), the gallery, the first frames, the tours' answers, the posters and the bundle (www/bundle)"
	@echo "make bench   $(BENCH)"
	@echo "make bench-worst  the worst-case inputs natively and in wasm (Chromium): time, memory, outcome; the page's longest task opening each"
	@echo "make bench-explorer  distinct states/s against the first explorer (commit 3028687), interleaved runs, best of three"
	@echo "make fuzz    fuzz links, scenarios and the timeline for $(SECONDS) s (make fuzz SECONDS=600 SEED=N)"
	@echo "make bless   rewrite the golden traces (review the diff)"
	@echo "make screenshots  refresh docs/screenshot-*.png"
	@echo "make package  the npm package highwater-playground: dist/highwater-playground-<version>.tgz"
	@echo "make site    the whole static site in dist/site: the playground, the docs site under docs/, the package (make site BASE=/highwater/ for a sub-path)"
	@echo "make check-sites  each docs tool's recipe (docs/embedding.md) followed in a fresh site, built, served under /kafka/ and checked in Chromium; the results into the docs"
	@echo "make setup   install everything the above need"
	@echo "make clean   remove build output"

setup:
	@scripts/setup.sh all

build:
	@scripts/setup.sh wasm node
	@scripts/build-wasm.sh
	@node scripts/gallery.mjs
	@node scripts/first-frames.mjs
	@node scripts/tour-answers.mjs
	@node scripts/posters.mjs
	@node scripts/bundle.mjs

# Serves www/ and bundles it again on every change of a source file.
serve: build
	@node scripts/bundle.mjs --watch & trap 'kill $$!' EXIT; node scripts/serve.mjs --port $(PORT) --root www

# Installs first, then runs each part in order; the first failure stops it.
test:
	@scripts/setup.sh wasm browser docs
	@$(MAKE) --no-print-directory test-native
	@scripts/build-wasm.sh
	@node scripts/gallery.mjs
	@node scripts/first-frames.mjs
	@node scripts/tour-answers.mjs
	@node scripts/posters.mjs
	@node scripts/bundle.mjs
	@$(MAKE) --no-print-directory test-browser

test-native:
	cargo test --release --no-fail-fast

# Needs www/pkg, www/pkg-quorum and www/pkg-fast (make build) and the browser (scripts/setup.sh browser).
test-browser:
	@if compgen -G 'tests/browser/*.test.mjs' >/dev/null; then \
		echo "node --test tests/browser/"; node --test tests/browser/; \
	else \
		echo "browser tests: none yet (no tests/browser/*.test.mjs), skipped"; \
	fi

bench:
	$(BENCH)

# tests/worst-case/ and the slowest tests/fuzz-seeds/, native and wasm, then the page's longest task opening each: markdown tables.
bench-worst:
	@scripts/setup.sh wasm browser docs
	cargo build --release --bin highwater --example fuzz
	@scripts/build-wasm.sh
	@node scripts/gallery.mjs && node scripts/first-frames.mjs && node scripts/tour-answers.mjs && node scripts/posters.mjs && node scripts/bundle.mjs
	node scripts/worst-case.mjs
	node scripts/bench-main-thread.mjs --runs 3

# Builds the first explorer (3028687) in target/bench-explorer/first and prints the ratio of distinct states/s.
bench-explorer:
	@scripts/setup.sh node
	@scripts/bench-explorer.sh

# Findings (and the slowest inputs) go to target/fuzz-findings/; exit 1 if any failed.
fuzz:
	cargo run --release --example fuzz -- --seconds $(SECONDS) $(if $(SEED),--seed $(SEED))

# Refreshes docs/screenshot-*.png from the browser tests' screenshots.
screenshots:
	HIGHWATER_SCREENSHOTS=1 node --test tests/browser/layout.test.mjs tests/browser/tours.test.mjs tests/browser/whatif.test.mjs tests/browser/compare.test.mjs tests/browser/diagram.test.mjs

# Rewrites tests/golden/ from the current model; review the diff before committing.
bless:
	HIGHWATER_BLESS=1 cargo test --release --test golden

# dist/highwater-playground-<version>.tgz; builds the wasm packages first when they are missing.
.PHONY: package
package:
	@node scripts/package.mjs

# The playground at BASE, the sample docs site at BASE/docs/, the tarball beside them: any static host serves dist/site.
BASE ?= /
site:
	@scripts/setup.sh docs
	@node scripts/site.mjs --out dist/site --base $(BASE)

# Fresh sites made by the tools' own generators (npm and PyPI); target/check-sites keeps them for a look.
check-sites:
	@scripts/setup.sh wasm browser docs
	@node scripts/check-sites.mjs --write-docs

clean:
	cargo clean
	rm -rf www/pkg www/pkg-quorum www/pkg-fast www/bundle www/first-frames www/tour-answers www/posters
