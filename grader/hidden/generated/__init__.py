"""The hidden suite's generated scenarios: the corpus, the contract model and the rules."""
