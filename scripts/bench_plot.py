#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws the kv and rpc comparisons of one scripts/bench.sh results file as PNG (with gnuplot).

    scripts/bench_plot.py RESULTS.jsonl OUT_DIR    writes OUT_DIR/bench-kv.png and bench-rpc.png

and prints the plotted medians, with the ratios the targets are set in, as Markdown tables for
docs/benchmarks.md. Where a figure was measured several times in the file (repeated runs, `--repeat N`), the plot shows
the median. A comparison with no lines in the file is left as it was.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def read_lines(path):
    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                print(f"bench_plot: {path}:{number}: not JSON, skipped", file=sys.stderr)
    return rows


def number(row, key):
    value = row.get(key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def subtitle(machine):
    if not machine:
        return ""
    return (f"{machine.get('cpu', '?')}, {machine.get('cores', '?')} cores, "
            f"load {machine.get('load_average', 0):.1f}; {machine.get('date', '')}, "
            f"commit {machine.get('commit', '?')}, {machine.get('sizes', '')} sizes")


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def plot_kv(rows, machine, out_png, work):
    # Per engine (and workload, where kv_bench names one): median keys/s of writes and of reads.
    groups = {}
    sizes = set()
    for row in rows:
        if row.get("bench") != "kv_bench" or "engine" not in row or row.get("errors"):
            continue
        n, write_s, read_s = number(row, "n"), number(row, "write_s"), number(row, "read_s")
        if not n or not write_s or not read_s:
            continue
        label = row["engine"]
        if row.get("workload"):
            label += f" ({row['workload']})"
        groups.setdefault(label, ([], []))
        groups[label][0].append(n / write_s)
        groups[label][1].append(n / read_s)
        sizes.add(n)
    if not groups:
        return False
    data = os.path.join(work, "kv.dat")
    medians = {label: (statistics.median(w), statistics.median(r)) for label, (w, r) in groups.items()}
    with open(data, "w") as f:
        for label, (writes, reads) in medians.items():
            f.write(f'"{label}" {writes:.0f} {reads:.0f}\n')
    ours = next((m for label, m in medians.items() if label.startswith("docstore")), None)
    print("| engine | writes/s | reads/s | docstore's writes, reads as a multiple |")
    print("|---|---|---|---|")
    for label, (writes, reads) in medians.items():
        ratio = f"{ours[0] / writes:.2f}x, {ours[1] / reads:.2f}x" if ours else ""
        print(f"| {label} | {writes:,.0f} | {reads:,.0f} | {ratio} |")
    print()
    keys = ", ".join(f"{n:,}" for n in sorted(sizes))
    gnuplot(f"""
set terminal pngcairo size 1000,560 font "DejaVu Sans,10"
set output "{out_png}"
set title "kv\\\\_bench: {keys} random writes, then as many checked random reads (median keys/s)\\n{{/*0.8 {subtitle(machine)}}}"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel "thousand keys per second"
set format y "%g"
set grid ytics
set key top right
set yrange [0:*]
set xrange [-0.5:{len(groups) - 0.5}]
# In thousands with plain numbers: "%.0s%c" printed 1.2M as "1M", beside the 1M tick.
plot "{data}" using ($2/1000):xtic(1) title "writes" lc rgb "#1f77b4", \\
     "" using ($3/1000) title "reads" lc rgb "#ff7f0e"
""")
    return True


def plot_rpc(rows, machine, out_png, work):
    # Per system and concurrency: median requests/s and p99.
    figures = {}
    for row in rows:
        if row.get("bench") != "rpc_bench" or "system" not in row or row.get("errors"):
            continue
        concurrency, rps, p99 = (number(row, "concurrency"), number(row, "requests_per_s"),
                                 number(row, "p99_us"))
        if concurrency is None or not rps or p99 is None:
            continue
        entry = figures.setdefault((row["system"], int(concurrency)), ([], []))
        entry[0].append(rps)
        entry[1].append(p99)
    if not figures:
        return False
    systems = sorted({s for s, _ in figures}, key=lambda s: (s != "raw", s))
    concurrencies = sorted({c for _, c in figures})
    data = os.path.join(work, "rpc.dat")
    with open(data, "w") as f:
        for c in concurrencies:
            cells = []
            for s in systems:
                rps, p99 = figures.get((s, c), ([], []))
                cells.append(f"{statistics.median(rps):.0f} {statistics.median(p99):.1f}"
                             if rps else "NaN NaN")
            f.write(f'"{c} callers" ' + " ".join(cells) + "\n")
    print("| callers | system | requests/s | p99 us | vs grpc | vs raw |")
    print("|---|---|---|---|---|---|")
    for c in concurrencies:
        median = {s: statistics.median(figures[(s, c)][0]) for s in systems if (s, c) in figures}
        for s in systems:
            if s not in median:
                continue
            vs_grpc = f"{median[s] / median['grpc']:.2f}x" if "grpc" in median else ""
            vs_raw = f"{100 * median[s] / median['raw']:.0f}%" if "raw" in median else ""
            p99 = statistics.median(figures[(s, c)][1])
            print(f"| {c} | {s} | {median[s]:,.0f} | {p99:,.0f} | {vs_grpc} | {vs_raw} |")
    print()
    palette = ["#2ca02c", "#1f77b4", "#ff7f0e", "#d62728", "#9467bd", "#8c564b"]

    def series(column_of):
        parts = []
        for i, s in enumerate(systems):
            using = f"{column_of(i)}:xtic(1)" if i == 0 else f"{column_of(i)}"
            source = f'"{data}"' if i == 0 else '""'
            parts.append(f'{source} using {using} title "{s}" lc rgb "{palette[i % len(palette)]}"')
        return ", \\\n     ".join(parts)

    gnuplot(f"""
set terminal pngcairo size 1000,800 font "DejaVu Sans,10"
set output "{out_png}"
set multiplot layout 2,1 title "rpc\\\\_bench: unary echo on loopback (median of the runs in the file)\\n{{/*0.8 {subtitle(machine)}}}"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top left
set yrange [0:*]
set xrange [-0.5:{len(concurrencies) - 0.5}]
set ylabel "requests per second"
set format y "%.0s%c"
plot {series(lambda i: 2 + 2 * i)}
set ylabel "p99 latency, microseconds"
set format y "%g"
plot {series(lambda i: 3 + 2 * i)}
unset multiplot
""")
    return True


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    results, out_dir = sys.argv[1], sys.argv[2]
    rows = read_lines(results)
    machine = next((r for r in rows if r.get("bench") == "machine"), None)
    with tempfile.TemporaryDirectory() as work:
        for name, plot in (("bench-kv.png", plot_kv), ("bench-rpc.png", plot_rpc)):
            path = os.path.join(out_dir, name)
            if plot(rows, machine, path, work):
                print(f"bench_plot: wrote {path}", file=sys.stderr)
            else:
                print(f"bench_plot: no figures for {name} in {results}; left as it was",
                      file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
