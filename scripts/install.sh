#!/usr/bin/env bash
# Create .venv and install the project with every extra (training, benchmarks, tests).
#
# Fast path: when pip is configured with a local wheel directory (find-links) that holds a CPU build
# of torch, that exact version is installed first, so the training extra does not pull a multi-GB
# CUDA build. Elsewhere pip resolves torch as usual (pyproject asks for torch>=2.1, no pin).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
. .venv/bin/activate
python -m pip install --quiet --upgrade pip

cpu_torch=$(python - <<'PY'
import glob, os, re, subprocess
out = subprocess.run(["pip", "config", "list"], capture_output=True, text=True).stdout
dirs = []
for line in out.splitlines():
    if "find-links" in line:
        dirs += line.split("=", 1)[1].strip().strip("'\"").split()
for d in dirs:
    for wheel in sorted(glob.glob(os.path.join(d.replace("file://", ""), "torch-*+cpu-*.whl"))):
        m = re.match(r"torch-([0-9.]+)\+cpu", os.path.basename(wheel))
        if m:
            print(m.group(1))
            raise SystemExit
PY
)
if [ -n "$cpu_torch" ]; then
    echo "install: local CPU wheel of torch $cpu_torch found; installing it first"
    python -m pip install --quiet "torch==$cpu_torch"
fi
python -m pip install --quiet -e ".[dev]"

# Chromium for the browser tests (tests/test_web_browser.py drives it with playwright; `playwright
# install` is never run): Debian's package, when missing and apt is there (root, or sudo without a
# password). Where it cannot be installed those tests skip and say why.
if ! [ -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
    if ! { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
           && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1; then
        echo "install: could not install chromium with apt-get; the browser tests will be skipped"
    fi
fi
python -m ipykernel install --user --name python3 >/dev/null 2>&1 || true
echo "install: done (.venv)"
