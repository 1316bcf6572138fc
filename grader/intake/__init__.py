"""The untrusted input: submissions found on disk (discover) and read into code (load).

Everything here reads what students handed in, so nothing here trusts it: files are read
without following links, only inside the submission, within size caps (untrusted.py).
"""
