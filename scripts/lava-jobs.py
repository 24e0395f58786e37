#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""lava-jobs.py: write LAVA job definitions for the lab's suites and
benchmarks (make lava).

usage: lava-jobs.py --out DIR --kernel-url URL --ramdisk-url URL
                    [--board-kernel-url URL] [--dtb-url URL]
                    [--initramfs FILE] [--release R]
                    [--suites S,S...] [--families F,F...]
                    [--bench-mode quick|full] [--device-types T,T...]

One job per in-guest suite (suite-<name>-<type>.yaml) and per benchmark
family (bench-<family>-<type>.yaml), for each device type:
  qemu                         LAVA's qemu device type, arch arm64: the lab's
                               Image and initramfs, -M virt -cpu cortex-a72,
                               as make check boots them
  meson-g12b-a311d-khadas-vim3 a Khadas VIM3 board: Image (the board
                               kernel's, --board-kernel-url, default the
                               --kernel-url one), DTB and the initramfs
                               over tftp, booted by U-Boot
The suites are the *_test programs of the initramfs (--initramfs, default
the lab's arm64 build); the test definitions are inline, made of
lava/suite.sh and lava/bench.sh.  Run with /usr/bin/python3 (Debian's
python3-yaml).  Exit 2 on bad arguments.
"""
import argparse
import gzip
import os
import re
import sys

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("LAB_BUILD", os.path.join(TOP, "build"))
FAMILIES = ("pin", "purge", "cache", "share", "concurrency", "app", "arena")
BOARD = "meson-g12b-a311d-khadas-vim3"
DEVICE_TYPES = ("qemu", BOARD)
# The guest the lab boots (scripts/boot.sh): what the CSV header says.
QEMU_CPU = "cortex-a72"
SUITE_MINUTES = 20
BENCH_MINUTES = {"quick": 20, "full": 120}


def usage_error(msg):
    print(f"lava-jobs.py: {msg}", file=sys.stderr)
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    sys.exit(2)


def initramfs_suites(path):
    """The *_test programs in /opt/lab/bin of a gzipped newc cpio."""
    try:
        data = gzip.open(path).read()
    except OSError as e:
        sys.exit(f"lava-jobs.py: cannot read initramfs {path}: {e} "
                 "(run: make rootfs ARCH=arm64)")
    names, off = [], 0
    while off + 110 <= len(data):
        if data[off:off + 6] != b"070701":
            sys.exit(f"lava-jobs.py: {path}: not a newc cpio at byte {off}")
        size = int(data[off + 54:off + 62], 16)
        namesize = int(data[off + 94:off + 102], 16)
        name = data[off + 110:off + 110 + namesize - 1].decode()
        if name == "TRAILER!!!":
            break
        names.append(name)
        off = (off + 110 + namesize + 3) & ~3
        off = (off + size + 3) & ~3
    return sorted(n[len("opt/lab/bin/"):] for n in names
                  if re.fullmatch(r"opt/lab/bin/[^/]+_test", n))


def kernel_reports():
    """scripts/check-log.sh's patterns, as one extended regex."""
    text = open(os.path.join(TOP, "scripts", "check-log.sh")).read()
    block = re.search(r"^patterns=\((.*?)^\)", text, re.M | re.S)
    if not block:
        sys.exit("lava-jobs.py: no patterns=( ... ) in scripts/check-log.sh")
    return "|".join(re.findall(r"'([^']*)'", block.group(1)))


def guest_script(name):
    with open(os.path.join(TOP, "lava", name)) as f:
        return f.read()


def test_action(name, description, steps, params, minutes):
    return {"test": {
        "timeout": {"minutes": minutes},
        "definitions": [{
            "from": "inline",
            "name": name,
            "path": f"inline/{name}.yaml",
            "repository": {
                "metadata": {
                    "format": "Lava-Test Test Definition 1.0",
                    "name": name,
                    "description": description,
                    "os": ["oe"],
                    "scope": ["functional"],
                },
                # Inline definitions carry their parameters themselves:
                # LAVA writes them into run.sh as NAME='value' lines.
                "params": params,
                "run": {"steps": steps},
            },
        }],
    }}


def install_step(script, path):
    """A step that writes @script (a file of lava/) to @path in the guest."""
    return f"cat > {path} <<'LAB_EOF'\n{script}LAB_EOF"


def job(a, dtype, name, test, minutes, metadata):
    # The same kernel command line as make check's boots, with the guest's
    # /init giving a shell on the console (lab.mode=shell) for LAVA.
    if dtype == "qemu":
        append = "console=ttyAMA0,115200 lab.mode=shell"
        deploy = {"deploy": {
            "to": "tmpfs",
            "timeout": {"minutes": 5},
            "images": {
                "kernel": {
                    "url": a.kernel_url,
                    "image_arg": f"-kernel {{kernel}} -append \"{append}\"",
                },
                "ramdisk": {
                    "url": a.ramdisk_url,
                    "image_arg": "-initrd {ramdisk}",
                    "compression": "gz",
                    "format": "cpio.newc",
                    "overlays": {"lava": True},
                },
            },
        }}
        boot = {"boot": {"method": "qemu", "media": "tmpfs",
                         "timeout": {"minutes": 5},
                         "prompts": ["/root # ", "/ # "]}}
        context = {"arch": "arm64", "cpu": QEMU_CPU, "machine": "virt",
                   "memory": 1024, "extra_options": ["-smp 4"]}
    else:
        deploy = {"deploy": {
            "to": "tftp",
            "timeout": {"minutes": 5},
            "kernel": {"url": a.board_kernel_url, "type": "image"},
            "dtb": {"url": a.dtb_url},
            "ramdisk": {"url": a.ramdisk_url, "compression": "gz",
                        "format": "cpio.newc", "overlays": {"lava": True}},
            "os": "oe",
        }}
        boot = {"boot": {"method": "u-boot", "commands": "ramdisk",
                         "timeout": {"minutes": 5},
                         "prompts": ["/root # ", "/ # "]}}
        context = {"extra_kernel_args": "lab.mode=shell"}
    return {
        "device_type": dtype,
        "job_name": f"volatile-lab {name} on {dtype}",
        "timeouts": {"job": {"minutes": minutes + 15},
                     "action": {"minutes": minutes},
                     "connection": {"minutes": 2}},
        "priority": "medium",
        "visibility": "public",
        "context": context,
        "metadata": metadata,
        "actions": [deploy, boot, test],
    }


def parse_args():
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out")
    p.add_argument("--kernel-url")
    p.add_argument("--ramdisk-url")
    p.add_argument("--board-kernel-url", default="")
    p.add_argument("--dtb-url", default="")
    p.add_argument("--initramfs",
                   default=os.path.join(BUILD, "rootfs/arm64/initramfs.cpio.gz"))
    p.add_argument("--release", default="")
    p.add_argument("--suites", default="")
    p.add_argument("--families", default=",".join(FAMILIES))
    p.add_argument("--bench-mode", default="quick")
    p.add_argument("--device-types", default=",".join(DEVICE_TYPES))
    p.error = usage_error
    a = p.parse_args()
    for opt in ("out", "kernel_url", "ramdisk_url"):
        if not getattr(a, opt):
            usage_error(f"--{opt.replace('_', '-')} is required")
    a.board_kernel_url = a.board_kernel_url or a.kernel_url
    a.device_types = a.device_types.split(",")
    for t in a.device_types:
        if t not in DEVICE_TYPES:
            usage_error(f"unknown device type '{t}' "
                        f"(known: {', '.join(DEVICE_TYPES)})")
    if BOARD in a.device_types and not a.dtb_url:
        usage_error(f"--dtb-url is required for {BOARD}")
    if a.bench_mode not in BENCH_MINUTES:
        usage_error(f"unknown bench mode '{a.bench_mode}' (quick or full)")
    a.families = [f for f in a.families.split(",") if f]
    for f in a.families:
        if f not in FAMILIES:
            usage_error(f"unknown family '{f}' (known: {', '.join(FAMILIES)})")
    return a


def main():
    a = parse_args()
    suites = a.suites.split(",") if a.suites else initramfs_suites(a.initramfs)
    if not a.release:
        f = os.path.join(BUILD, "kernel/arm64/lab-release")
        try:
            a.release = open(f).read().strip()
        except OSError as e:
            sys.exit(f"lava-jobs.py: no --release and cannot read {f}: "
                     f"{e.strerror}")
    reports = kernel_reports()
    suite_sh, bench_sh = guest_script("suite.sh"), guest_script("bench.sh")
    os.makedirs(a.out, exist_ok=True)
    written = []
    for dtype in a.device_types:
        qemu = dtype == "qemu"
        for s in suites:
            test = test_action(
                s, f"volatile-lab suite {s}, one LAVA test case per TAP test",
                [install_step(suite_sh, "/tmp/lab-suite.sh"),
                 "export LAB_EXPECT_RELEASE=\"$EXPECT_RELEASE\" "
                 "LAB_KERNEL_REPORTS=\"$KERNEL_REPORTS\"",
                 "sh /tmp/lab-suite.sh \"$SUITE\""],
                {"SUITE": s, "EXPECT_RELEASE": a.release,
                 "KERNEL_REPORTS": reports},
                SUITE_MINUTES)
            written.append((f"suite-{s}-{dtype}.yaml", job(
                a, dtype, s, test, SUITE_MINUTES,
                {"lab.kind": "suite", "lab.suite": s,
                 "lab.release": a.release})))
        for fam in a.families:
            minutes = BENCH_MINUTES[a.bench_mode]
            test = test_action(
                f"bench-{fam}",
                f"volatile-lab benchmarks, family {fam} "
                f"({a.bench_mode}): one measurement per CSV row",
                [install_step(bench_sh, "/tmp/lab-bench.sh"),
                 "export LAB_MACHINE=\"$MACHINE\" LAB_ACCEL=\"$ACCEL\" "
                 "LAB_ARCH=arm64 LAB_CPU=\"$CPU\"",
                 "sh /tmp/lab-bench.sh \"$FAMILY\" \"$MODE\""],
                {"FAMILY": fam, "MODE": a.bench_mode,
                 "MACHINE": f"virt, {QEMU_CPU}" if qemu else "dt-model",
                 "ACCEL": "tcg" if qemu else "none",
                 "CPU": QEMU_CPU if qemu else "board"},
                minutes)
            written.append((f"bench-{fam}-{dtype}.yaml", job(
                a, dtype, f"bench {fam} ({a.bench_mode})", test, minutes,
                {"lab.kind": "bench", "lab.family": fam,
                 "lab.bench_mode": a.bench_mode, "lab.release": a.release})))
    for name, data in written:
        with open(os.path.join(a.out, name), "w") as f:
            f.write("# Written by scripts/lava-jobs.py (make lava).\n")
            yaml.safe_dump(data, f, sort_keys=False, default_flow_style=False,
                           width=1000)
    print(f"lava-jobs.py: {len(written)} jobs in {a.out}")


if __name__ == "__main__":
    main()
