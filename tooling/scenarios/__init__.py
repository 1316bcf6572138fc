"""The generator of the hidden suite's scenarios (grader/hidden/generated/corpus.json)."""
