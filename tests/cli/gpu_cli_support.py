"""What the GPU-facing CLI checks share: whether a CUDA driver is present,
failing with a message, and running the tool with a time limit."""
import ctypes
import subprocess
import sys


def driver_present():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, env=None):
    return subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)
