"""The course in the browser: `make lite` builds the handout's lessons as a JupyterLite site.

`python -m tooling.lite build` writes build/lite/ (tooling/lite/build.py); `python -m
tooling.lite serve` serves it locally with the cross-origin isolation headers
(tooling/lite/serve.py, which the site carries as serve.py).
"""
