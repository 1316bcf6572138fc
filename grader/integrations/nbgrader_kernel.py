"""nbgrader's autograde runs each notebook in a confined kernel: ConfinedExecute.

nbgrader_config.py puts ConfinedExecute in the place of nbgrader's Execute, so `nbgrader
autograde` runs as before, each notebook in a kernel of its own, but that kernel is shut in as
grader/integrations/kernel_confinement.py decides and builds: a copy of the student's folder to
work in, the supplied course code, no network, nothing else of the course or of other students.
(Execute's own kernel_manager_class cannot be configured: nbgrader passes its own class when it
makes the step, and that wins over any configuration.)

Where no confinement can be had, autograde stops before any student code runs, with one line
saying why and what fixes it, unless the instructor set
`c.ConfinedExecute.run_student_code_with_instructor_rights = True`: then kernels run as
nbgrader runs them, with the instructor's rights, and each says so.

This module imports nbgrader; the grader itself never imports it.
"""

import asyncio
import os
import time
import uuid
from pathlib import Path
from typing import Any, NoReturn

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning.local_provisioner import LocalProvisioner
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Instance, Unicode

from grader.integrations.kernel_confinement import (
    BUBBLEWRAP,
    BUBBLEWRAP_ENVIRONMENT,
    UNCONFINED,
    ConfinementUnavailable,
    KernelConfinement,
    choose_kernel_confinement,
    confined_command,
)
from grader.integrations.kernel_places import KernelChannelError, KernelPlaces
from grader.integrations.nbgrader_bridge import student_folder
from grader.sandbox.cleanup import remove_tree

OPT_OUT = "run_student_code_with_instructor_rights"
CHANNELS_SECONDS = 60.0  # as long as nbclient waits for a kernel to start
CHANNELS_POLL_SECONDS = 0.02


class ConfinedExecute(Execute):
    """nbgrader's Execute, whose kernel runs confined (see the module docstring)."""

    run_student_code_with_instructor_rights = Bool(
        False,
        help="Where the kernel cannot be confined (no bubblewrap), run students' code anyway, "
        "with your rights: it can then read and change all that you can.",
    ).tag(config=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._confinement: KernelConfinement | None = None
        self._as_submitted: Path | None = None

    def preprocess(
        self, nb: NotebookNode, resources: Any = None, km: Any = None
    ) -> tuple[NotebookNode, Any]:
        """Decide the kernel's confinement, or stop autograde; then execute as nbgrader does."""
        try:
            self._confinement = choose_kernel_confinement(
                self.run_student_code_with_instructor_rights
            )
        except ConfinementUnavailable as unavailable:
            self._refuse(unavailable, resources or {})
        if self._confinement.mode == UNCONFINED:
            self.log.warning(
                "This kernel runs student code with your rights (%s, and %s is set).",
                self._confinement.missing,
                OPT_OUT,
            )
        self._as_submitted = student_folder(self.config, resources or {}, "submitted")
        return super().preprocess(nb, resources, km)

    def create_kernel_manager(self) -> AsyncKernelManager:
        """Make the confined kernel's manager, whatever the configuration names."""
        self.kernel_manager_class = ConfinedKernelManager
        manager = super().create_kernel_manager()
        manager.confinement = self._confinement
        manager.as_submitted = None if self._as_submitted is None else str(self._as_submitted)
        return manager

    def _refuse(self, unavailable: ConfinementUnavailable, resources: dict[str, Any]) -> NoReturn:
        """Stop autograde with one line, leaving this student as not autograded yet."""
        # nbgrader made this student's autograded folder for this run; a later run, even
        # without --force, must grade them rather than skip them (as nbgrader's own cleanup).
        autograded = student_folder(self.config, resources, "autograded")
        running_in = resources.get("metadata", {}).get("path")
        if autograded is not None and running_in and Path(running_in) == autograded:
            remove_tree(autograded)
        self.log.error("%s", refusal(unavailable))
        raise SystemExit(1)


class ConfinedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel runs as `confinement` says, over ipc sockets."""

    confinement = Instance(KernelConfinement, allow_none=True)
    as_submitted = Unicode(None, allow_none=True)  # the student's folder as submitted

    async def start_kernel(self, **kw: Any) -> None:  # type: ignore[override]
        """Start the kernel; when confined, through ConfinedProvisioner."""
        if self.confinement is None:  # made outside ConfinedExecute: decide here, never skip
            self.confinement = choose_kernel_confinement(unconfined_allowed=False)
        if self.confinement.mode == BUBBLEWRAP and self.provisioner is None:
            assert self.kernel_spec is not None
            # It has no network: sockets in a folder, and interrupts as messages, as signals
            # would reach bubblewrap, not the kernel in its own session.
            self.transport = "ipc"
            self.cache_ports = False
            self.kernel_spec.interrupt_mode = "message"
            self.kernel_id = self.kernel_id or str(uuid.uuid4())
            self.provisioner = ConfinedProvisioner(
                kernel_id=self.kernel_id,
                kernel_spec=self.kernel_spec,
                parent=self,
                confinement=self.confinement,
                as_submitted=self.as_submitted,
            )
        await super().start_kernel(**kw)


class ConfinedProvisioner(LocalProvisioner):
    """Starts the kernel in bubblewrap, in private folders, and connects only through host/."""

    confinement = Instance(KernelConfinement)
    as_submitted = Unicode(None, allow_none=True)
    places = Instance(KernelPlaces, allow_none=True)

    async def pre_launch(self, **kwargs: Any) -> dict[str, Any]:
        """Make the kernel's folders, its connection file and its confined command."""
        if self.places is not None:  # a restart: a fresh copy, as a fresh kernel would get
            self.places.remove()
        folder = kwargs.get("cwd")
        submitted = None if self.as_submitted is None else Path(self.as_submitted)
        self.places = KernelPlaces.make(
            Path(folder) if folder else None, self.confinement.uid, submitted
        )
        manager = self.parent
        assert isinstance(manager, ConfinedKernelManager)
        manager.ip = self.places.host_socket_prefix
        manager.connection_file = str(self.places.host_connection_file)
        kwargs = await super().pre_launch(**kwargs)
        inside = self.places.write_kernel_connection_file()
        host_names = {manager.connection_file, os.path.realpath(manager.connection_file)}
        argv = [inside if part in host_names else part for part in kwargs["cmd"]]
        if inside not in argv:
            raise RuntimeError("the kernel's command does not name its connection file")
        kwargs["cmd"] = confined_command(self.confinement, self.places, argv)
        kwargs["env"] = dict(BUBBLEWRAP_ENVIRONMENT)
        kwargs["cwd"] = str(self.places.root)
        return kwargs

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> Any:
        """Start the kernel, then wait until it opened every channel and link them for nbgrader."""
        info = await super().launch_kernel(cmd, **kwargs)
        try:
            await self._link_channels()
        except BaseException:
            await self.kill()
            await self.cleanup()
            raise
        return info

    async def _link_channels(self) -> None:
        assert self.places is not None and self.process is not None
        info = self.connection_info
        ports = [
            int(port)
            for port in (
                info["shell_port"],
                info["iopub_port"],
                info["stdin_port"],
                info["control_port"],
                info["hb_port"],
            )
        ]
        deadline = time.monotonic() + CHANNELS_SECONDS
        while ports := self.places.link_sockets(ports):
            if self.process.poll() is not None:
                return  # it ended: the manager reports a dead kernel, as for any other
            if time.monotonic() > deadline:
                raise KernelChannelError(
                    f"the kernel opened no socket for {len(ports)} of its channels "
                    f"within {CHANNELS_SECONDS:g} s"
                )
            await asyncio.sleep(CHANNELS_POLL_SECONDS)

    async def cleanup(self, restart: bool = False) -> None:
        """Remove the kernel's folders, whatever it left there."""
        await super().cleanup(restart)
        if not restart and self.places is not None:
            self.places.remove()
            self.places = None


def refusal(unavailable: ConfinementUnavailable) -> str:
    """Return the line autograde stops with: the cause, then its fix; running unconfined last."""
    return (
        f"Autograde stopped before running any student code: {unavailable.cause}, so the "
        f"notebooks' kernels cannot be confined. {unavailable.fix} (Only if students' code may "
        "read and change all that you can, its own grade included: "
        f"c.ConfinedExecute.{OPT_OUT} = True runs it unconfined.)"
    )
