"""Serve the course's browser site on this computer: `python3 serve.py [--port N] [folder]`.

`make lite` copies this file into the site (build/lite/serve.py), so whoever has the site's
folder can serve it with Python alone. It is Python's own static file server plus the
Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy headers, which make the page
cross-origin isolated: the Pyodide kernel then talks to the page through shared memory rather
than through the site's service worker. The site works without them too (a static host that
cannot send headers); neither way does JupyterLite 0.8.6's Kernel → Interrupt stop a cell that
is running (it cancels cells still waiting), so a loop that never ends needs Kernel → Restart.
"""

import argparse
import contextlib
import functools
import os
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FIRST_NOTEBOOK = "lab/index.html?path=01-the-envelope.ipynb"
ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
}
# Types Python's table may lack or get wrong, which browsers refuse to run otherwise.
TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript"}


class IsolatedSiteHandler(SimpleHTTPRequestHandler):
    """A static file handler that sends the cross-origin isolation headers with every answer."""

    def end_headers(self) -> None:
        for name, value in ISOLATION_HEADERS.items():
            self.send_header(name, value)
        # The site changes only when it is rebuilt: the browser must not keep an old copy.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        """Return the file's content type, from TYPES first."""
        return TYPES.get(Path(path).suffix.lower()) or super().guess_type(path)

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet: one line per file would bury the address the student needs."""


def make_server(folder: Path, port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """Return a server for `folder` on `host`:`port` (0 picks a free port); not yet serving."""
    handler = functools.partial(IsolatedSiteHandler, directory=str(folder))
    return ThreadingHTTPServer((host, port), handler)


def main(argv: list[str] | None = None) -> int:
    """Serve the site until Ctrl+C; say where to open it."""
    parser = argparse.ArgumentParser(prog="python3 serve.py", description=__doc__)
    parser.add_argument("folder", nargs="?", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    args = parser.parse_args(argv)
    if not (args.folder / "index.html").is_file():
        print(f"error: {args.folder} holds no site (no index.html).", file=sys.stderr)
        return 1
    try:
        server = make_server(args.folder, args.port)
    except OSError as error:
        print(f"error: cannot listen on port {args.port}: {error.strerror}", file=sys.stderr)
        return 1
    port = server.server_address[1]
    print(f"Open http://127.0.0.1:{port}/{FIRST_NOTEBOOK} in your browser.")
    print("Keep this window open while you work; press Ctrl+C to stop.")
    with server, contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
