"""Run a command as on a kernel without Landlock: its calls fail with ENOSYS, for good.

    python tests/hosts/without_landlock.py COMMAND...

What a container whose seccomp profile predates Landlock sees, or a kernel built without it.
The filter passes to every process the command starts, workers included.
"""

import errno
import os
import sys

import pyseccomp

CALLS = ("landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self")


def main() -> None:
    rules = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    for name in CALLS:
        rules.add_rule(pyseccomp.ERRNO(errno.ENOSYS), name)
    rules.load()
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
