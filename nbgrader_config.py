"""nbgrader set-up for the course: `solutions/` is the instructor source, `lessons/` the release."""

c = get_config()  # noqa: F821 - nbgrader injects get_config when it loads this file

c.CourseDirectory.root = "."
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "lessons"
