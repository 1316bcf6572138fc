"""What shapes the grade files beyond the verdict: the roster, late policy, LMS files."""
