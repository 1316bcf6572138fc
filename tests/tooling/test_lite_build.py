"""The browser site: what `make lite` put in it, and the server that serves it.

The site's own tests (Chromium, offline) are in tests/browser/test_lite_site_offline.py; these
read the built site (`make lite`, which `make test` runs first) and try the pieces alone.
"""

import hashlib
import json
import threading
import urllib.request
import zipfile

import pytest

from grader.paths import LESSONS
from tooling.lite.build import (
    DATA_FILES,
    LITE_KERNELSPEC,
    LITE_LANGUAGE_INFO,
    SITE,
    STUDENT_FILES,
    check_kernel_metadata,
    copy_for_the_site,
    js_literal,
    patch_synchronous_waits,
    pinned_wheels,
    without_table,
)
from tooling.lite.serve import make_server
from tooling.paths import assignment_name

PYODIDE = SITE / "static" / "pyodide"
# They read the built site, which `make test` builds first and `make test-fast` does not.
# Reads the site `make lite` builds for the browser tests (`make test` builds it first).
pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def lock():
    """The site's pyodide-lock.json."""
    if not (PYODIDE / "pyodide-lock.json").is_file():
        pytest.fail(f"{SITE} holds no site: run `make lite` first (`make test` does).")
    return json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))


def test_every_wheel_the_lock_lists_is_in_the_site_with_its_hash(lock):
    for name, entry in lock["packages"].items():
        wheel = PYODIDE / entry["file_name"]
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"], name
        assert set(entry["depends"]) <= set(lock["packages"]), name


def test_the_lock_lists_the_pinned_wheels_and_the_course_and_nothing_from_a_cdn(lock):
    pinned = {pin.name.lower().replace("_", "-"): pin for pin in pinned_wheels()}
    assert set(lock["packages"]) == {*pinned, "bounded-results-lesson"}
    for name, pin in pinned.items():
        assert lock["packages"][name]["sha256"] == pin.sha256
    assert not any("/" in entry["file_name"] for entry in lock["packages"].values())


def test_the_course_wheel_holds_course_only_and_brings_the_widgets(lock):
    entry = lock["packages"]["bounded-results-lesson"]
    assert entry["imports"] == ["course"]
    assert entry["depends"] == ["ipywidgets"]
    with zipfile.ZipFile(PYODIDE / entry["file_name"]) as wheel:
        tops = {name.split("/", 1)[0] for name in wheel.namelist()}
    assert tops == {"course", "bounded_results_lesson-0.1.0.dist-info"}


def test_the_site_runs_its_own_pyodide_and_never_falls_back_to_pypi():
    config = json.loads((SITE / "jupyter-lite.json").read_text(encoding="utf-8"))
    data = config["jupyter-config-data"]
    kernel = data["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["pyodideUrl"] == "./static/pyodide/pyodide.mjs"
    assert kernel["disablePyPIFallback"] is True
    assert data["settingsOverrides"]["@jupyterlab/apputils-extension:notification"] == {
        "fetchNews": "false",
        "checkForUpdates": False,
    }


def test_closing_a_notebooks_tab_in_the_site_shuts_its_kernel_down():
    # The issue: a closed tab's kernel kept running; 8 to 9 of them filled the browser's memory.
    config = json.loads((SITE / "jupyter-lite.json").read_text(encoding="utf-8"))
    tracker = config["jupyter-config-data"]["settingsOverrides"][
        "@jupyterlab/notebook-extension:tracker"
    ]
    assert tracker["kernelShutdown"] is True


def test_the_sites_notebooks_carry_the_kernel_metadata_its_kernel_writes():
    # The issue: every notebook opened marked unsaved, its metadata rewritten by the kernel.
    check_kernel_metadata(SITE)
    copies = sorted((SITE / "files").glob("*.ipynb"))
    assert {p.name for p in copies} >= {
        p.name for p in (LESSONS / assignment_name()).glob("*.ipynb")
    }
    for copy in copies:
        metadata = json.loads(copy.read_text(encoding="utf-8"))["metadata"]
        assert metadata["kernelspec"] == LITE_KERNELSPEC, copy.name
        assert metadata["language_info"] == LITE_LANGUAGE_INFO, copy.name


def test_a_copy_for_the_site_changes_the_kernel_metadata_only(tmp_path):
    lesson = next((LESSONS / assignment_name()).glob("*.ipynb"))
    copy_for_the_site(lesson, tmp_path / lesson.name)
    original = json.loads(lesson.read_text(encoding="utf-8"))
    copied = json.loads((tmp_path / lesson.name).read_text(encoding="utf-8"))
    assert original["metadata"]["kernelspec"]["name"] == "python3"  # the lessons keep ipykernel's
    assert copied["metadata"] == {
        "kernelspec": LITE_KERNELSPEC,
        "language_info": LITE_LANGUAGE_INFO,
    }
    assert {k: v for k, v in copied.items() if k != "metadata"} == {
        k: v for k, v in original.items() if k != "metadata"
    }


def test_a_kernel_that_writes_other_metadata_stops_the_build(tmp_path):
    static = tmp_path / "extensions" / "@jupyterlite" / "pyodide-kernel-extension" / "static"
    static.mkdir(parents=True)
    spec = f"spec:{js_literal(LITE_KERNELSPEC)[:-1]},argv:[]}}"
    language = f"language_info:{js_literal(LITE_LANGUAGE_INFO)},protocol_version"
    (static / "1.js").write_text(spec + language, encoding="utf-8")
    check_kernel_metadata(tmp_path)
    (static / "1.js").write_text(spec + language.replace('"3.8"', '"3.14"'), encoding="utf-8")
    with pytest.raises(RuntimeError, match="language_info"):
        check_kernel_metadata(tmp_path)


def test_a_js_literal_is_written_as_minified_code_writes_it():
    assert js_literal({"a": {"b": "x", "c": 3}, "d": True}) == '{a:{b:"x",c:3},d:true}'


def test_the_site_carries_nothing_of_axe_core_which_only_the_tests_run(lock):
    # package-lock.json pins it beside Pyodide, for tests/browser/test_reports_accessibility.py.
    found = [p for p in SITE.rglob("*") if p.name == "axe-core" or p.name.startswith("axe.")]
    assert not found


def test_the_kernels_waits_are_patched_in_the_built_site():
    static = SITE / "extensions" / "@jupyterlite" / "pyodide-kernel-extension" / "static"
    text = "".join(p.read_text(encoding="utf-8") for p in static.glob("*.js"))
    assert text.count('typeof v.then=="function"?v:Promise.resolve(v)') == 4


def test_a_wait_answered_at_once_is_patched_and_a_bundle_without_one_is_refused(tmp_path):
    static = tmp_path / "extensions" / "@jupyterlite" / "pyodide-kernel-extension" / "static"
    static.mkdir(parents=True)
    (static / "88.js").write_text("return A(u,s).value.then(()=>{x()})", encoding="utf-8")
    assert patch_synchronous_waits(tmp_path) == 1
    patched = (static / "88.js").read_text(encoding="utf-8")
    assert patched.startswith('return (v=>v&&typeof v.then=="function"?v:Promise.resolve(v))(')
    assert "(A(u,s).value).then(()=>{x()})" in patched
    (static / "88.js").write_text("nothing to patch", encoding="utf-8")
    with pytest.raises(RuntimeError, match="not found"):
        patch_synchronous_waits(tmp_path)


def test_the_site_wheel_leaves_out_the_handouts_jupyterlab_settings():
    project = (STUDENT_FILES / "pyproject.toml").read_text(encoding="utf-8")
    assert DATA_FILES in project
    stripped = without_table(project, DATA_FILES)
    assert DATA_FILES not in stripped and "overrides.json" not in stripped
    assert "[tool.setuptools.package-data]" in stripped


def test_serve_sends_the_isolation_headers_and_the_wasm_type(tmp_path):
    (tmp_path / "index.html").write_text("<p>site</p>", encoding="utf-8")
    (tmp_path / "a.wasm").write_bytes(b"\0asm")
    server = make_server(tmp_path, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        with urllib.request.urlopen(f"{base}/index.html", timeout=10) as page:
            headers = page.headers
        with urllib.request.urlopen(f"{base}/a.wasm", timeout=10) as wasm:
            wasm_type = wasm.headers["Content-Type"]
    finally:
        server.shutdown()
        server.server_close()
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
    assert headers["Cross-Origin-Embedder-Policy"] == "require-corp"
    assert wasm_type == "application/wasm"
