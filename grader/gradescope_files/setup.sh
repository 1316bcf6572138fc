#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (an Ubuntu image).
# It installs Python 3.11 or newer, bubblewrap for the sandbox, and what grading needs: pytest.
set -euo pipefail
SOURCE=/autograder/source
VENV=/autograder/venv
export DEBIAN_FRONTEND=noninteractive

apt-get update
apt-get install -y --no-install-recommends python3 python3-venv bubblewrap
PYTHON=python3
# The grader needs Python 3.11 (tomllib); older Ubuntu images ship 3.10 as python3.
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    apt-get install -y --no-install-recommends python3.11 python3.11-venv
    PYTHON=python3.11
fi

"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --no-cache-dir -r "$SOURCE/requirements.txt"
# The sandbox worker starts Python in isolated mode (-I), which ignores PYTHONPATH and the
# working folder, so the grader is put on the path with a .pth file in the environment.
SITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
echo "$SOURCE" > "$SITE/autograder-source.pth"
