#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""lava-device.py TEMPLATE_DIR DEVICE [JOB]: print the device
configuration that a LAVA server would hand its dispatcher for DEVICE:
either a device type (e.g. qemu-aarch64), rendered from TEMPLATE_DIR
(lava-server's device-types/) as a one-line device dictionary
("{% extends 'DEVICE.jinja2' %}"), or the path of a device dictionary
(a .jinja2 file that extends a template of TEMPLATE_DIR, e.g.
lava/devices/*.jinja2).  It is rendered with the job's context, as
lava-server does, then checked with LAVA's device schema.
Run with /usr/bin/python3.  Exit 2 on bad arguments, 1 on any error.
"""
import os
import sys

import jinja2
import jinja2.sandbox
import yaml
from lava_common.schemas.device import validate


def main():
    if len(sys.argv) not in (3, 4):
        print("usage: lava-device.py TEMPLATE_DIR DEVICE [JOB]",
              file=sys.stderr)
        sys.exit(2)
    tdir, dtype = sys.argv[1], sys.argv[2]
    if dtype.endswith(".jinja2"):
        try:
            with open(dtype) as f:
                dictionary = f.read()
        except OSError as e:
            sys.exit(f"lava-device.py: cannot read device dictionary: {e}")
    elif os.path.isfile(os.path.join(tdir, dtype + ".jinja2")):
        dictionary = "{%% extends '%s.jinja2' %%}\n" % dtype
    else:
        sys.exit(f"lava-device.py: no device-type template {dtype}.jinja2 "
                 f"in {tdir}")
    context = {}
    if len(sys.argv) == 4:
        try:
            with open(sys.argv[3]) as f:
                context = (yaml.safe_load(f) or {}).get("context", {})
        except (OSError, yaml.YAMLError) as e:
            sys.exit(f"lava-device.py: cannot read job {sys.argv[3]}: {e}")
    env = jinja2.sandbox.SandboxedEnvironment(
        loader=jinja2.FileSystemLoader(tdir), autoescape=False,
        trim_blocks=True)
    try:
        text = env.from_string(dictionary).render(**context)
    except jinja2.TemplateError as e:
        sys.exit(f"lava-device.py: cannot render {dtype}: {e}")
    try:
        validate(yaml.safe_load(text))
    except Exception as e:
        sys.exit(f"lava-device.py: the rendered {dtype} device is invalid: {e}")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
