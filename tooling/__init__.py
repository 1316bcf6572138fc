"""The course's own build tools: generated lessons, notebook hygiene and the student handout."""
