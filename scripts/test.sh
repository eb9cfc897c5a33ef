#!/usr/bin/env bash
# Builds the dev configuration and runs every test: GoogleTest unit tests and
# the lit/FileCheck compiler tests (GPU tests skip when no GPU is present);
# then fuzzes the compiler for 60 s with a fixed seed (scripts/fuzz.sh), and
# builds, installs and tests the Python package.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset dev >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure
scripts/fuzz.sh 60 -seed=1
# The Python package: `pip install .` (pyproject.toml; the portable library
# inside) into a fresh virtual environment, then its tests, on the CPU
# interpreter with NumPy arrays (python/tests/conftest.py).
rm -rf build-venv
python3 -m venv build-venv
build-venv/bin/pip install -q ".[test]"
build-venv/bin/pytest -q python/tests
