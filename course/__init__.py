"""Supplied code for the course "Return bounded values and useful failure codes".

Students import from here; the grader imports the same modules, so the course's copy of the
supplied names always wins over any copy a submission carries.
"""
