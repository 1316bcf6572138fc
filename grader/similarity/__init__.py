"""Similarity between students' code: a reason to look at a pair, never a verdict or a grade.

`python -m grader grade … --similarity` compares what every student wrote (the code the load
step reads, less the released lessons' code and the supplied names) with copydetect's
tokenizer and winnowing, and the class report shows the pairs above a threshold. Nothing here
is read by scoring: a similarity run writes similarity.csv and a section of report.html, and
every other file is what a run without it writes.

- `pairs.py`: the plain data the reports render (no numpy, no copydetect);
- `fingerprints.py`: one student's code as copydetect's fingerprints, the boilerplate's hashes;
- `compare.py`: an index of hashes to students, so only pairs that share code are scored.
"""
