"""A real kernel driven as JupyterLab drives it: each cell run with its cell id, one at a time.

nbclient runs a whole notebook and sends no cell ids; JupyterLab sends the id of the cell it
runs with each request (`metadata.cellId`), which is what lets a check tell the cell a function
came from. `StudentKernel.run` does the same, and returns what the cell wrote to each stream.
"""

from dataclasses import dataclass

from jupyter_client.manager import start_new_kernel

TIMEOUT_SECONDS = 60


@dataclass(frozen=True)
class Ran:
    """What one cell run showed: its stdout, its stderr, and an error's name if it raised."""

    stdout: str
    stderr: str
    error: str = ""


class StudentKernel:
    """A python3 kernel in `folder` (the notebooks' folder, as JupyterLab starts it)."""

    def __init__(self, folder):
        self.manager, self.client = start_new_kernel(kernel_name="python3", cwd=str(folder))

    def run(self, source, cell_id):
        """Run `source` as the cell `cell_id`; return what it showed."""
        content = {
            "code": source,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        }
        message = self.client.session.msg("execute_request", content, metadata={"cellId": cell_id})
        self.client.shell_channel.send(message)
        streams = {"stdout": [], "stderr": []}
        error = ""
        while True:
            reply = self.client.get_iopub_msg(timeout=TIMEOUT_SECONDS)
            if reply["parent_header"].get("msg_id") != message["header"]["msg_id"]:
                continue
            kind, body = reply["msg_type"], reply["content"]
            if kind == "stream":
                streams[body["name"]].append(body["text"])
            elif kind == "error":
                error = body["ename"]
            elif kind == "status" and body["execution_state"] == "idle":
                break
        return Ran("".join(streams["stdout"]), "".join(streams["stderr"]), error)

    def close(self):
        """Stop the kernel."""
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)
