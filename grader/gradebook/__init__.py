"""What shapes the grade files beyond the verdict: summaries, the roster, late policy, LMS files."""
