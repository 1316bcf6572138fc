"""The hidden tests: one module per grading category of CONTRACT.md, run only by grader.job."""
