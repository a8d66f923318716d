"""What a running `transcribe serve` process uses, read from /proc, and whether it is ready:
shared by the serve benchmarks (abandon.py, abuse.py)."""

import os
import urllib.request

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User and system CPU seconds the process has used."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def descriptors(pid):
    """Open file descriptors."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_mib(pid):
    """Resident memory in MiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def readyz(base):
    """`GET /readyz`: (ready, the body's `active` or the failure)."""
    import json

    try:
        with urllib.request.urlopen(base + "/readyz", timeout=5) as response:
            body = json.loads(response.read())
            return response.status == 200, body.get("active")
    except Exception as error:  # noqa: BLE001 - any failure means not ready
        return False, str(error)
