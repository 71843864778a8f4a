"""What pip is told, as flags for uv (make setup installs the packages with uv, as pip would).

uv reads no pip configuration, so what a machine tells pip (its PIP_* variables and config files, as
`pip config list` shows them) is handed on: the indexes, the folders of wheels (find-links, such as a
machine's CPU-only torch) and the constraints, with pip's choice of the best version across every index,
so that both pick the same wheels from the same places. Prints the flags on one line (nothing when pip is
told nothing)."""
import re
import subprocess
import sys

KEYS = ("index-url", "extra-index-url", "find-links", "constraint")


def main() -> None:
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    found = dict(re.findall(r"^(\S+?)='(.*)'$", listed, re.M))
    flags = []
    for key in KEYS:  # a variable wins over the user's file, which wins over the machine's, as for pip
        value = found.get(f":env:.{key}") or found.get(f"install.{key}") or found.get(f"global.{key}") or ""
        flags += [f"--{key}={v}" for v in value.split()]
    if any(f.startswith(("--index-url", "--extra-index-url")) for f in flags):
        flags.append("--index-strategy=unsafe-best-match")
    print(" ".join(flags))


if __name__ == "__main__":
    main()
