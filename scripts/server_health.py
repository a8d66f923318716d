"""Waiting for a `transcribe serve` to answer, for the Python clients the tests run."""

import time
import urllib.request


def wait_for(base, seconds=60):
    """Returns once `GET base/healthz` answers; raises its last error after `seconds`."""
    deadline = time.time() + seconds
    while True:
        try:
            urllib.request.urlopen(base + "/healthz", timeout=2).read()
            return
        except Exception:
            if time.time() > deadline:
                raise
            time.sleep(0.1)
