#!/usr/bin/env bash
# Installs ripgrep's `rg`, the baseline of benches/kiln_text_search.rs, unless
# it is already on PATH or in ~/.cargo/bin. Safe to rerun.
set -euo pipefail
if command -v rg >/dev/null 2>&1 || [[ -x ${CARGO_HOME:-$HOME/.cargo}/bin/rg ]]; then
  exit 0
fi
exec cargo install --locked ripgrep
