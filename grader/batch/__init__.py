"""The parent side of the job boundary: a run spread over job processes, resumed, sharded.

    run.py       the run: submissions dealt to jobs, results read back as they come
    dispatch.py  job processes started, watched and restarted
    resume.py    each student's result kept with its fingerprint, for an interrupted run
    shards.py    one deterministic slice of a class per machine, then one merge

Nothing here imports grader.job: the two sides speak only through grader/jobfiles.py.
"""
