"""The hidden grader: load a submission, run the hidden tests in isolation, score, report."""
