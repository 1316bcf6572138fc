"""`python -m tooling.lite build | serve [--port N]`: build the browser site, or serve it."""

import subprocess
import sys

from tooling.lite import serve
from tooling.lite.build import SITE, build_site
from tooling.paths import relative


def main(argv: list[str]) -> int:
    """Run the command named first in `argv`; one line and exit 1 when it fails."""
    command, *rest = argv or ["build"]
    if command == "serve":
        return serve.main([str(SITE), *rest])
    if command != "build" or rest:
        print("usage: python -m tooling.lite build | serve [--port N]", file=sys.stderr)
        return 2
    try:
        site = build_site()
    except (subprocess.CalledProcessError, RuntimeError, ValueError, OSError) as error:
        print(f"error: the site could not be built: {error}", file=sys.stderr)
        return 1
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) / 1e6
    print(f"Wrote {relative(site)}/ ({size:.0f} MB). Serve it with `make lite-serve`.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
