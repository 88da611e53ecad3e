"""Summarize a callgrind profile: the functions with the largest inclusive and self costs,
Swift symbols demangled, paths shortened.
Usage: callgrind_summary.py callgrind.out [N]
       callgrind_summary.py callgrind.out --callees TEXT   what each function whose demangled
                                                           name contains TEXT calls, inclusive"""
import re
import subprocess
import sys

LINE = re.compile(r"^\s*([\d,]+) \(\s*([\d.]+)%\)\s+(.*?)(?: \[(.*)\])?$")


def annotate(path, inclusive):
    args = ["callgrind_annotate", "--threshold=100", f"--inclusive={'yes' if inclusive else 'no'}", path]
    text = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    rows, started = [], False
    for line in text.splitlines():
        if "file:function" in line:
            started = True
            continue
        m = LINE.match(line) if started else None
        if m and "PROGRAM TOTALS" not in line:
            rows.append((int(m.group(1).replace(",", "")), float(m.group(2)), m.group(3), m.group(4) or ""))
    total = int(re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text).group(1).replace(",", ""))
    return total, rows


def demangle(names):
    p = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names),
                       capture_output=True, text=True)
    out = p.stdout.splitlines() if p.returncode == 0 else names
    return out if len(out) == len(names) else names


def short(fn, obj):
    file, _, func = fn.rpartition(":")
    file = re.sub(r"^(.*/)?Sources/", "", file)
    where = file if file and file != "???" else obj.rsplit("/", 1)[-1]
    return func, where


TREE = re.compile(r"^\s*([\d,]+) \(\s*([\d.]+)%\)\s+([<>*])\s+(.*?)(?: \((\d[\d,]*)x\))?(?: \[.*\])?$")


def callees(path, text):
    args = ["callgrind_annotate", "--threshold=100", "--inclusive=yes", "--tree=calling", path]
    rows = []
    for line in subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines():
        m = TREE.match(line)
        if m:
            rows.append((float(m.group(2)), m.group(3), m.group(4).rpartition(":")[2], m.group(5) or ""))
    names = demangle([r[2] for r in rows])
    current = None
    for (pct, mark, _, calls), name in zip(rows, names):
        if mark == "*":
            current = name if text in name and "closure" not in name[:12] else None
            if current:
                print(f"\n  {pct:5.1f}%  {name[:120]}")
        elif mark == ">" and current and pct >= 0.3:
            count = f"  ({calls}×)" if calls else ""
            print(f"    {pct:5.1f}%  > {re.sub(chr(92) + 's+', ' ', name)[:110]}{count}")


def main():
    path = sys.argv[1]
    if len(sys.argv) > 3 and sys.argv[2] == "--callees":
        callees(path, sys.argv[3])
        return
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    for inclusive in (True, False):
        total, rows = annotate(path, inclusive)
        seen, shown = set(), []
        for cost, pct, fn, obj in rows:
            func, where = short(fn, obj)
            if "<compiler-generated>" in fn or func.startswith("0x") or "(below main)" in func \
                    or func.endswith("'2") or "libc_start" in func or func == "annolink_main":
                continue
            shown.append((cost, pct, func, where))
        names = demangle([s[2] for s in shown])
        print(f"  {'inclusive' if inclusive else 'self'} cost, of {total:,} instructions:")
        count = 0
        for (cost, pct, _, where), name in zip(shown, names):
            name = re.sub(r"\s+", " ", name)[:110]
            key = name
            if key in seen or (inclusive and re.match(r"(partial apply for |specialized )?closure #", name)):
                continue
            seen.add(key)
            print(f"    {pct:5.1f}%  {name}  [{where}]")
            count += 1
            if count >= n:
                break


if __name__ == "__main__":
    main()
