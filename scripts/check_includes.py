#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the include rules of docs/architecture.md ("Folders, and who may include whom").

    scripts/check_includes.py [REPO_ROOT]

Every tracked .cc/.h file in a folder below may include project headers only from the folders its
rule allows (its own folder always), and storage/ and core/ never include Qt. Prints each
violation as FILE:LINE: what; exits 1 if there is any. scripts/test.sh runs it.
"""
import pathlib
import re
import subprocess
import sys

# Folder -> project folders it may include besides its own. "railyard" is the generated protobuf
# code (proto/). Keep this table and docs/architecture.md the same.
RULES = {
    "storage": [],
    "core/base": [],
    "core/balance": ["core/base"],
    "core/rpc": ["core/balance", "core/base", "railyard"],
    "core/http": ["core/rpc", "core/base"],
    "core/trace": ["core/base", "railyard"],
    "core/sim": ["core/balance", "core/trace", "core/base"],
    "core/cluster": ["core/rpc", "core/trace", "core/balance", "core/base", "railyard"],
    "core/node": ["core/cluster", "core/http", "core/rpc", "core/trace", "core/balance", "core/base", "storage",
                  "railyard"],
    "core/load": ["core/cluster", "core/rpc", "core/balance", "core/base", "railyard"],
    # The console reaches nodes through core/cluster only: no core/node, core/load or storage.
    "ui": ["core/cluster", "core/rpc", "core/trace", "core/sim", "core/balance", "core/base",
           "railyard"],
    "app": ["ui", "core/load", "core/node", "core/cluster", "core/http", "core/rpc", "core/trace", "core/sim",
            "core/balance", "core/base", "storage", "railyard"],
}
# Single headers a folder may include although its rule does not allow their folder: pure,
# header-only, standard-library-only code, so including one links nothing. The console predicts
# the next compaction set with the engine's own rule rather than a copy that could drift.
HEADER_EXCEPTIONS = {
    "ui": ["storage/compaction_rule.h"],
}
QT_FREE = ("storage", "core")
PROJECT_TOPS = ("storage", "core", "ui", "app", "tests", "bench", "railyard")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
QT_HEADER = re.compile(r"^(Q[A-Za-z0-9]+|Qt[A-Za-z]+/|qcustomplot)")


def owner(path):
    """The most specific folder of RULES that holds `path`, or None."""
    best = None
    for folder in RULES:
        if path == folder or path.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def included_folder(header):
    """The RULES folder (or 'railyard') a project header belongs to, or None if not ours."""
    if header.split("/")[0] not in PROJECT_TOPS:
        return None
    return owner(header) or header.split("/")[0]


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    files = subprocess.run(["git", "ls-files", "*.cc", "*.h"], cwd=root, check=True,
                           capture_output=True, text=True).stdout.split()
    problems = []
    checked = 0
    for name in files:
        folder = owner(name)
        if folder is None:
            continue  # tests/, bench/ and tools may include anything.
        checked += 1
        allowed = {folder, *RULES[folder]}
        for number, line in enumerate((root / name).read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            bracket, header = match.groups()
            if bracket == "<" and name.startswith(QT_FREE) and QT_HEADER.match(header):
                problems.append(f"{name}:{number}: {folder}/ never includes Qt, but includes <{header}>")
            if bracket != '"':
                continue
            target = included_folder(header)
            if header in HEADER_EXCEPTIONS.get(folder, []):
                continue
            if target is not None and target not in allowed:
                problems.append(f"{name}:{number}: {folder}/ may not include {target}/ ({header})")
    for problem in problems:
        print(problem)
    print(f"check_includes: {checked} files, {len(problems)} violations of docs/architecture.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
