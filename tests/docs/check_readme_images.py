#!/usr/bin/python3
"""The README's pictures (issue #17 item 5): every docs/images/*.png it shows
exists, is one that scripts/screenshots renders, and is a real render (a PNG
with many colours, not one flat fill)."""
import re
import sys
from pathlib import Path

from PIL import Image

root = Path(sys.argv[1])
readme = (root / "README.md").read_text()
script = (root / "scripts/screenshots").read_text()
shown = sorted(set(re.findall(r"\(docs/images/([\w.-]+\.png)\)", readme)))
rendered = set(re.findall(r"^shot (\w+) ", script, re.M))
failures = []
if len(shown) < 4:
    failures.append(f"the README shows {len(shown)} pictures, fewer than 4")
for name in shown:
    path = root / "docs/images" / name
    if not path.is_file():
        failures.append(f"README shows docs/images/{name}, which does not exist")
        continue
    if name[:-4] not in rendered:
        failures.append(f"docs/images/{name} is not made by scripts/screenshots")
    img = Image.open(path).convert("RGB")
    colours = img.getcolors(maxcolors=1 << 16)
    if colours is not None and len(colours) < 32:
        failures.append(f"docs/images/{name} has {len(colours)} colours: not a real render")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"{len(shown)} README pictures, all rendered by scripts/screenshots")
