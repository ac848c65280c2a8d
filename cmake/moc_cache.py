#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""moc through a cache, for AUTOMOC in fresh clones (cmake/MocCache.cmake).

    moc_cache.py SOURCE_DIR BUILD_DIR CACHE_DIR MOC [moc arguments...]

ccache does not see moc, and moc follows every #include of the file it reads (Qt's, protobuf's and
the standard library's headers): 1-2 s a file, about half of a warm CI build's time (docs/ci.md).
An entry is found by moc's identity, its arguments and the input's content, with BUILD_DIR and
SOURCE_DIR written as placeholders so that another clone of the repository, or another build
folder of it (CI's ASan stage after its release stage), hits it, and is used only if
every file moc read for it (its dependency list, `--output-dep-file`) still has the content it
had then, as ccache's direct mode does. Anything unexpected runs moc itself: the cache can cost a
miss, never a wrong file. Safe to run concurrently (entries are written whole and renamed).
"""
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

PLACEHOLDER = "<source>"
BUILD_PLACEHOLDER = "<build>"
MAX_ENTRIES = 4000  # Each about 10-40 KB; the oldest half goes past this.


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def parse(args):
    """The input file, the output file and the dep-file options AUTOMOC passed."""
    value_options = {"-o", "-I", "-F", "-D", "-U", "-M", "-p", "-f", "-b", "--include",
                     "--compiler-flavor", "--dep-file-path", "--dep-file-rule-name"}
    found = {"input": None, "output": None, "dep_path": None, "rule": None, "dep": False}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in value_options and i + 1 < len(args):
            value = args[i + 1]
            if arg == "-o":
                found["output"] = value
            elif arg == "--dep-file-path":
                found["dep_path"] = value
            elif arg == "--dep-file-rule-name":
                found["rule"] = value
            i += 2
            continue
        if arg == "--output-dep-file":
            found["dep"] = True
        elif arg.startswith("@"):
            return None  # An option file: not read here.
        elif not arg.startswith("-"):
            if found["input"] is not None:
                return None  # More than one input.
            found["input"] = arg
        i += 1
    return found if found["input"] and found["output"] else None


def read_deps(dep_file):
    """The files a Make-style dep file lists after its rule; None if one has a space in its name."""
    with open(dep_file) as f:
        text = f.read().replace("\\\n", " ")
    if "\\ " in text:
        return None
    _, _, rest = text.partition(": ")
    return rest.split()


def main():
    source_dir, build_dir, cache_dir, moc = sys.argv[1:5]
    args = sys.argv[5:]
    parsed = parse(args)
    if parsed is None or not os.path.isdir(source_dir) or not os.path.isdir(build_dir):
        os.execv(moc, [moc] + args)
    # The build folder first: it usually lies inside the checkout.
    roots = [(build_dir.rstrip("/"), BUILD_PLACEHOLDER), (source_dir.rstrip("/"), PLACEHOLDER)]

    def relative(text):
        for root, placeholder in roots:
            text = text.replace(root + "/", placeholder + "/")
            if text.endswith(root) and text[: -len(root)] in ("", "-I", "-F"):  # -I<checkout>
                text = text[: -len(root)] + placeholder
        return text

    def absolute(text):
        for root, placeholder in roots:
            text = text.replace(placeholder + "/", root + "/")
        return text

    moc_stat = os.stat(moc)
    key = hashlib.sha256()
    key.update(f"{os.path.realpath(moc)} {moc_stat.st_size} {moc_stat.st_mtime_ns}\n".encode())
    # moc names its input relative to its output: the same only where the build folder sits at the
    # same place in the checkout.
    key.update(os.path.relpath(source_dir, build_dir).encode() + b"\n")
    for arg in args:
        key.update(relative(arg).encode() + b"\0")
    key.update(file_digest(parsed["input"]).encode())
    entry = os.path.join(cache_dir, key.hexdigest()[:2], key.hexdigest())
    # Where moc writes its dependency list: where AUTOMOC asked for one, else a file of our own.
    dep_file = (parsed["dep_path"] or parsed["output"] + ".d") if parsed["dep"] else None

    try:
        with open(os.path.join(entry, "deps.json")) as f:
            stored = json.load(f)
        if all(file_digest(absolute(path)) == digest for path, digest in stored["deps"]):
            with open(os.path.join(entry, "out"), "rb") as f:
                output = f.read()
            with open(parsed["output"], "wb") as f:
                f.write(output)
            if dep_file:
                lines = [(parsed["rule"] or parsed["output"]) + ":"]
                lines += [absolute(path) for path, _ in stored["deps"]]
                with open(dep_file, "w") as f:
                    f.write(" \\\n  ".join(lines) + "\n")
            os.utime(entry)
            return 0
    except (OSError, ValueError, KeyError, TypeError):
        pass  # No entry, or a stale or damaged one: moc runs.

    own_dep_file = None
    extra = []
    if not dep_file:
        handle, own_dep_file = tempfile.mkstemp(suffix=".d")
        os.close(handle)
        extra = ["--output-dep-file", "--dep-file-path", own_dep_file]
    try:
        status = subprocess.run([moc] + args + extra).returncode
        if status != 0:
            return status
        paths = read_deps(dep_file or own_dep_file)
        if paths is None:
            return 0  # Not stored; the output moc wrote stands.
        store(entry, parsed["output"], [(relative(p), file_digest(p)) for p in paths])
        if random.random() < 0.02:
            prune(cache_dir)
    except (OSError, ValueError):
        pass  # Not stored; the output moc wrote stands.
    finally:
        if own_dep_file:
            os.unlink(own_dep_file)
    return 0


def store(entry, output_file, deps):
    os.makedirs(os.path.dirname(entry), exist_ok=True)
    staging = tempfile.mkdtemp(dir=os.path.dirname(entry))
    with open(output_file, "rb") as f:
        output = f.read()
    with open(os.path.join(staging, "out"), "wb") as f:
        f.write(output)
    with open(os.path.join(staging, "deps.json"), "w") as f:
        json.dump({"deps": deps}, f)
    try:
        os.rename(staging, entry)
    except OSError:  # Another build stored it first, or a stale entry is there: replaced.
        shutil.rmtree(entry, ignore_errors=True)
        try:
            os.rename(staging, entry)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)


def prune(cache_dir):
    entries = []
    for shard in os.listdir(cache_dir):
        shard_dir = os.path.join(cache_dir, shard)
        if os.path.isdir(shard_dir):
            entries += [os.path.join(shard_dir, e) for e in os.listdir(shard_dir)]
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda e: os.stat(e).st_mtime)
    for old in entries[: len(entries) // 2]:
        shutil.rmtree(old, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
