"""What the predicted-plan benchmarks share: the repository root and
`rammer schedule --json` of one model and policy."""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CALIBRATION = os.path.join(ROOT, "resources/calibrations/h100.json")
COST_MODELS = (("analytic", []), ("calibrated", ["--calibration", CALIBRATION]))


def schedule(rammer, model, policy, *extra):
    out = subprocess.run([rammer, "-q", "schedule", model, "--policy", policy, "--json", *extra],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)
