#!/usr/bin/env python3
"""Checks that every command of the README's walkthrough is run, word for word, by
scripts/walkthrough.sh, so the documented steps cannot drift from the tested ones.

Step 0 (building) and the last step (stopping the background jobs of an interactive shell) are
the reader's own and are not in the script. The ports are the one deliberate difference: the
script picks free ones, so that it runs beside anything already listening on 8080."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = (root / "README.md").read_text()
script = (root / "scripts" / "walkthrough.sh").read_text()

section = re.search(r"^## Walkthrough.*?(?=^## )", readme, re.S | re.M)
if not section:
    sys.exit("check_walkthrough: README.md has no '## Walkthrough' section")
blocks = re.findall(r"```sh\n(.*?)```", section.group(0), re.S)
script_lines = {line.strip() for line in script.splitlines()}
checked, missing = 0, []
for block in blocks:
    if "swift build" in block or "kill %" in block:
        continue
    for line in block.splitlines():
        line = line.strip()
        if not line:
            continue
        checked += 1
        if line == "PORT=8080 IDP_PORT=8090":
            continue
        if line not in script_lines:
            missing.append(line)
if missing or checked == 0:
    for line in missing:
        print(f"check_walkthrough: not in scripts/walkthrough.sh: {line}", file=sys.stderr)
    sys.exit(f"check_walkthrough: {len(missing)} of {checked} README commands are not run by the script")
print(f"check_walkthrough: all {checked} README walkthrough commands are run by scripts/walkthrough.sh")
