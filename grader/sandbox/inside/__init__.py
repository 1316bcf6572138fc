"""The code that runs beside student code, in the worker: this package is exactly what is copied.

Nothing here is trusted for a verdict. The worker reports what it observed; the trusted side
(`grader.sandbox`) keeps the tools' bookkeeping and decides. The package imports only the
standard library and `course` (the supplied code a student has anyway), so the sandbox's copy of
the project is this folder, `course/` and the empty packages above it.

    faults      the classes handed to student code: tool errors, odd values (reachable by design)
    loop        the plain loop that calls `invoke_tool`; its frames hold nothing worth stealing
    forkserver  the warm parent that forks a worker per request
    guard       the audit hook holding the channel, its key and every record (never reachable)
    steps       the loop's steps as the guard answers them: work, scenarios, replies (guard-only)
    batch       a batch of scenarios whose tool calls the guard answers itself (guard-only)
    nesting     a tool that calls invoke_tool itself: the guard's orders and reports (guard-only)
    recipes     one reading of a tool's recipe, for the guard and the trusted side alike
    raising     builds the exceptions a tool raises from the recipes (guard-only)
    kinds       builds the values a tool returns from the recipes (guard-only)
    picture     tagged pictures of values (guard-only; the trusted side decodes them)
    report      what one scenario showed, computed from the guard's records (guard-only)
    replies     the load and check replies, read as data (guard-only)
    channel     the framed, keyed pipe protocol (guard-only)
    protocol    the messages between the job and its worker, declared once
    rules       what the guard refuses and checks (guard-only)
    resolve     where a path leads, with functions bound before student code (guard-only)
    seal        shuts the worker in before student code: user, limits, threads, signals
    syscalls    applies the late seccomp filter to the worker itself
    landlock    confines the worker's files (and, by kernel version, ports, signals, sockets)
"""
