"""What the host a test runs on should offer: the sandbox's tests assert it, never detect it.

A run of the sandbox's tests on another host (tests/hosts/: a user without root here, a
cgroup-v2 kernel in a VM) says what that host offers through these variables; unset, they
describe CI's machine, where the tests run as root on cgroup v1 with Landlock ABI 7. A test
that finds less than its host should offer fails, where detecting would quietly skip.

    HOST_CGROUPS   1, 2 or none: the hierarchy workers' groups are made in (none: no group)
    HOST_LANDLOCK  the least Landlock ABI version the kernel offers (0: none)
    HOST_SLOWDOWN  how many times slower than CI's machine the host runs code (an emulated VM
                   is several times slower): the tests' time limits grow by as much
    HOST_ATTACKS   all (the default), or walls: grade only the attacks whose walls differ from
                   host to host (files, keyrings, signals, shared memory), where code runs slowly

The strongest isolation expected is bubblewrap, unless GRADER_ISOLATION=process forbids it.
"""

import os
from collections.abc import Mapping

CONTROLLERS = {"1": ("memory", "pids", "cpu", "cpuacct"), "2": ("memory", "pids", "cpu")}


def expected_cgroups() -> str:
    return os.environ.get("HOST_CGROUPS", "1")


def expected_controllers() -> tuple[str, ...]:
    return CONTROLLERS.get(expected_cgroups(), ())


def expected_landlock() -> int:
    return int(os.environ.get("HOST_LANDLOCK", "1"))


def expected_mode() -> str:
    return "process" if os.environ.get("GRADER_ISOLATION") == "process" else "bubblewrap"


def slower(seconds: float, environment: Mapping[str, str] = os.environ) -> float:
    """Return a time limit of `seconds` on CI's machine, as long as it must be on a host.

    The host is the one whose `environment` says how slow it is: this one, unless told.
    """
    return seconds * float(environment.get("HOST_SLOWDOWN", "1"))


def only_host_walls() -> bool:
    return os.environ.get("HOST_ATTACKS", "all") == "walls"
