"""`python -m grader gradescope-bundle` builds a zip Gradescope accepts, with only grading code."""

import json
import stat
import zipfile

import pytest
from grader_cli import run_grader
from gradescope_roots import HONEST_TWIN, PROJECT, REFERENCE, SEARCHER, build_bundle

from grader.install.requirements import RUNTIME, locked_requirements
from grader.integrations import gradescope, gradescope_run

pytestmark = []


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return build_bundle(tmp_path_factory.mktemp("bundle"))


def names_in(bundle):
    with zipfile.ZipFile(bundle) as archive:
        return archive.namelist()


def test_setup_and_run_autograder_sit_at_the_top_of_the_zip_and_are_executable(bundle):
    with zipfile.ZipFile(bundle) as archive:
        for name in ("setup.sh", "run_autograder"):
            mode = archive.getinfo(name).external_attr >> 16
            assert stat.S_ISREG(mode), name
            assert mode & stat.S_IXUSR, name
            assert archive.read(name).startswith(b"#!/usr/bin/env bash\n"), name


def test_the_bundle_holds_the_grader_its_hidden_tests_and_the_course_manifest(bundle):
    names = set(names_in(bundle))
    assert {
        "requirements.txt",
        "course/steps.toml",
        "course/carry/assemble.py",
        "grader/job/main.py",
    } <= names
    hidden = {n for n in names if n.startswith("grader/hidden/test_")}
    expected = {
        p.relative_to(PROJECT).as_posix() for p in (PROJECT / "grader" / "hidden").glob("test_*.py")
    }
    assert hidden == expected
    assert "grader/hidden/data/corpus.json" in names
    templates = PROJECT / "grader" / "reports" / "templates"
    assert {p.relative_to(PROJECT).as_posix() for p in templates.glob("*.j2")} <= names


def test_the_bundle_leaves_out_solutions_lessons_fixtures_and_tests(bundle):
    for name in names_in(bundle):
        top = name.split("/", 1)[0]
        assert top not in {"solutions", "lessons", "fixtures", "tests", "tooling"}, name
        assert "__pycache__" not in name
        assert not name.startswith("course/widgets/")


def test_the_bundle_carries_the_visible_checks_and_the_records_their_tools_read(bundle):
    names = set(names_in(bundle))
    assert {"course/checks/visible.py", "course/checks/envelope.py"} <= names
    assert {"course/records/users.json", "course/tools.py"} <= names
    assert "course/checks/testing.py" not in names  # step 8's own tests are not graded


def test_the_self_check_grades_the_reference_and_a_disk_searcher_beside_its_twin(bundle):
    with zipfile.ZipFile(bundle) as archive:
        selfcheck = {n: archive.read(n) for n in archive.namelist() if n.startswith("selfcheck/")}
    assert selfcheck == {
        "selfcheck/reference.py": REFERENCE.read_bytes(),
        "selfcheck/searches-disk-for-hidden-tests.py": SEARCHER.read_bytes(),
        "selfcheck/honest-twin.py": HONEST_TWIN.read_bytes(),
    }


def test_the_settings_default_to_visible_hidden_tests_and_required_bubblewrap(bundle):
    with zipfile.ZipFile(bundle) as archive:
        settings = json.loads(archive.read(gradescope.SETTINGS_FILE))
    assert settings == {"hidden_visibility": "visible", "isolation": "bubblewrap"}


@pytest.mark.parametrize("visibility", ["after_due_date", "after_published", "hidden"])
def test_the_chosen_visibility_of_hidden_tests_is_stored_in_the_bundle(visibility, tmp_path):
    path = build_bundle(tmp_path, "--hidden-visibility", visibility, "--isolation", "process")
    with zipfile.ZipFile(path) as archive:
        archive.extractall(tmp_path / "source")
    settings = gradescope.BundleSettings.read(tmp_path / "source")
    assert settings == gradescope.BundleSettings(visibility, "process")


def test_an_unknown_visibility_is_a_one_line_usage_error(tmp_path):
    command = ["gradescope-bundle", str(tmp_path / "a.zip"), "--hidden-visibility", "later"]
    completed = run_grader(*command, timeout=60)
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1 and "later" in completed.stderr
    assert not (tmp_path / "a.zip").exists()


def test_settings_that_gradescope_would_not_understand_are_refused(tmp_path):
    (tmp_path / gradescope.SETTINGS_FILE).write_text(
        json.dumps({"hidden_visibility": "after_deadline", "isolation": "bubblewrap"}),
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="after_deadline"):
        gradescope.BundleSettings.read(tmp_path)
    with pytest.raises(ValueError, match="auto"):
        gradescope.BundleSettings("visible", "auto")


def test_requirements_are_the_graders_own_dependencies_at_the_locks_versions(bundle):
    with zipfile.ZipFile(bundle) as archive:
        lines = archive.read("requirements.txt").decode("utf-8").splitlines()
    assert lines == locked_requirements(RUNTIME)
    assert sorted(line.split("==")[0] for line in lines) == ["jinja2", "markupsafe", "pyseccomp"]


def test_what_only_pytest_reads_stays_out_since_grading_never_runs_pytest(bundle):
    names = set(names_in(bundle))
    assert "grader/hidden/conftest.py" not in names
    assert "grader/hidden/pytest.ini" not in names
    with zipfile.ZipFile(bundle) as archive:
        requirements = archive.read("requirements.txt").decode("utf-8")
    assert "pytest" not in requirements


def test_building_twice_gives_the_same_zip(bundle, tmp_path):
    again = gradescope.build_bundle(tmp_path / "again.zip")
    assert again.read_bytes() == bundle.read_bytes()


def test_a_folder_of_lesson_notebooks_is_found_before_a_stray_python_file(tmp_path):
    lessons = tmp_path / "upload" / "bounded_results"
    lessons.mkdir(parents=True)
    (lessons / "01-the-envelope.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "scratch.py").write_text("x = 1\n", encoding="utf-8")
    found = gradescope_run.find_student_work(tmp_path)
    assert (found.path, found.kind) == (str(lessons), "lessons")


def test_a_single_python_file_is_found_and_hidden_folders_are_ignored(tmp_path):
    (tmp_path / "__MACOSX").mkdir()
    (tmp_path / "__MACOSX" / "answer.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "answer.py").write_text("x = 1\n", encoding="utf-8")
    found = gradescope_run.find_student_work(tmp_path)
    assert (found.path, found.kind) == (str(tmp_path / "answer.py"), "python")


def test_an_empty_submission_finds_nothing(tmp_path):
    assert gradescope_run.find_student_work(tmp_path) is None
