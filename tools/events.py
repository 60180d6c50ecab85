"""events — a saved run log (JSON lines, the schema of common/event.h)
read back for Python's documents (record.py, plots.py's charts).
"""
import json


def read(path):
    """The events of the run log at path, in order. Raises OSError (no such
    file) or ValueError (a line that is not JSON)."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
