"""The grader inside other systems: Gradescope's autograder bundle and what runs in it, and
nbgrader's grade cells, preprocessors and exporters."""
