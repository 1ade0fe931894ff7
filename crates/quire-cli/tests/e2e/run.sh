#!/usr/bin/env bash
# End-to-end tests: `quire serve` driven by the official Python MCP client.
#
# Creates a virtualenv at target/e2e-venv and installs tests/e2e/requirements.txt
# into it when the venv is missing or the requirements (or the Python) changed,
# builds the binary, and runs pytest. Safe to rerun; extra arguments go to pytest.
#
#   PYTHON     the interpreter for the venv (default: python3; needs >= 3.11)
#   QUIRE_BIN  test this binary instead of building target/debug/quire
set -euo pipefail
cd "$(dirname "$0")/../../../.."

python=${PYTHON:-python3}
venv=target/e2e-venv
requirements=crates/quire-cli/tests/e2e/requirements.txt
stamp=$venv/.requirements-stamp

if ! command -v "$python" >/dev/null 2>&1; then
  echo "error: $python not found; the e2e tests need Python >= 3.11 (set PYTHON)" >&2
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "error: the e2e tests need Python >= 3.11; $python is $("$python" -V 2>&1) (set PYTHON)" >&2
  exit 1
fi

# The stamp names the requirements' content and the interpreter the venv was
# made from: a change to either rebuilds the venv from scratch.
want=$("$python" - "$requirements" <<'EOF'
import hashlib, sys
digest = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
print(f"{digest} {sys.executable} {sys.version.split()[0]}")
EOF
)
if [[ ! -x $venv/bin/python || ! -f $stamp || "$(cat "$stamp")" != "$want" ]]; then
  echo "e2e: creating $venv from $requirements" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install \
    --quiet --no-input --require-virtualenv -r "$requirements"
  # Written last: an interrupted install is redone on the next run.
  printf '%s\n' "$want" >"$stamp"
fi

if [[ -z ${QUIRE_BIN:-} ]]; then
  cargo build --locked --bin quire
  target_dir=${CARGO_TARGET_DIR:-target}
  [[ $target_dir == /* ]] || target_dir=$(pwd)/$target_dir
  QUIRE_BIN=$target_dir/debug/quire
fi
export QUIRE_BIN

# The servers the tests start find no embedder unless a test gives them one
# (test_kiln_semantic.py passes QUIRE_E2E_MODELS_DIR on): each would load a
# model and write its index into the vault's .quire/, which the tests'
# snapshots of the vault would see.
export QUIRE_E2E_MODELS_DIR=${QUIRE_E2E_MODELS_DIR:-${QUIRE_MODELS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/quire/models}}
export QUIRE_MODELS_DIR=$(pwd)/target/e2e-no-models

# No __pycache__ or .pytest_cache in the source tree.
export PYTHONDONTWRITEBYTECODE=1
# -rs: every skipped test (e.g. the jj ones without jj) is listed with its reason.
exec "$venv/bin/python" -m pytest -q -rs crates/quire-cli/tests/e2e "$@"
