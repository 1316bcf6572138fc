"""The sandbox: student code runs in worker processes; verdicts are made from plain data."""
