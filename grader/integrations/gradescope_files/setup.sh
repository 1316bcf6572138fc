#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (an Ubuntu image).
# It installs Python 3.11 or newer, bubblewrap for the sandbox and what grading needs
# (requirements.txt: the grader's own dependencies, pinned), makes the source folder, which holds
# the hidden tests, root's alone, and ends with the bundle's self-check: an image where the
# reference would lose a point, or where a submission could read the hidden tests, fails here,
# when the autograder is built, not when students submit. AUTOGRADER_ROOT replaces /autograder,
# so the bundle can be tried anywhere.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
VENV="$ROOT/venv"
export DEBIAN_FRONTEND=noninteractive

apt-get update
apt-get install -y --no-install-recommends python3 python3-venv bubblewrap libseccomp2
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

# The bytecode of the grader and of the hidden tests goes into the image: every submission starts
# a fresh container from it, which would otherwise compile them again (about 0.4 s).
(cd "$SOURCE" && "$VENV/bin/python" -m grader.install.bytecode)

# Workers run as user ids of their own: they cannot even enter a folder that is root's alone.
chown -R 0:0 "$SOURCE"
chmod -R go-rwx "$SOURCE"

cd "$SOURCE"
"$VENV/bin/python" -m grader.integrations.gradescope_run selfcheck "$ROOT"
