"""The generator of the hidden suite's scenarios (grader/hidden/data/corpus.json)."""
