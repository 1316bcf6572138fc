"""The judge of the generated scenarios: the contract model, the rules and the judging.

Code only: the corpus it reads is data (grader/hidden/data/corpus.json, paths.GENERATED_CORPUS).
"""
