#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints a test stage's slowest tests, each with the share of its timeout it used.

    scripts/stage_report.py BUILD_DIR JUNIT_XML [--top N]

BUILD_DIR is the CMake build folder the tests ran from (its ctest knows each test's timeout);
JUNIT_XML is what `ctest --output-junit` wrote there. A test over a quarter of its timeout is
marked: on a machine three times slower it would come close to failing, so it wants a shorter
run or a longer timeout. This only reports; timings never fail a build.
"""
import argparse
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

QUARTER = 0.25


def timeouts(build_dir):
    """Each test's TIMEOUT property, from ctest's own description of the build folder."""
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build_dir, check=True,
                         capture_output=True, text=True).stdout
    result = {}
    for test in json.loads(out).get("tests", []):
        for prop in test.get("properties", []):
            if prop.get("name") == "TIMEOUT":
                result[test["name"]] = float(prop["value"])
    return result


def durations(junit_path):
    root = ET.parse(junit_path).getroot()
    return {case.get("name"): float(case.get("time", 0)) for case in root.iter("testcase")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("junit")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--default-timeout", type=float, default=300.0,
                        help="for tests without a TIMEOUT property (the presets' execution.timeout)")
    args = parser.parse_args()

    limits = timeouts(args.build_dir)
    times = durations(args.junit)

    def limit(name):
        return limits.get(name, args.default_timeout)

    def share(name):
        return times[name] / limit(name)

    slowest = sorted(times, key=lambda n: times[n], reverse=True)[:args.top]
    parts = [f"{n} {times[n]:.1f} s of {limit(n):.0f} s ({100 * share(n):.0f}%)" for n in slowest]
    # The sum of the tests' own times: more than the stage's wall time where tests run in parallel.
    print(f"  {len(times)} tests, {sum(times.values()):.0f} s of test time; slowest: " +
          ", ".join(parts))
    over = [n for n in times if share(n) > QUARTER]
    if over:
        print("  OVER A QUARTER OF THE TIMEOUT: " + ", ".join(
            f"{n} ({100 * share(n):.0f}%)" for n in sorted(over, key=share, reverse=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
