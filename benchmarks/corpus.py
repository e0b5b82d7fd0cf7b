"""Download the real-world corpus (torchvision, timm, transformers model code) for benchmarks.

The wheels come from the package registry and are unpacked under
``benchmarks/.corpus/`` (git-ignored; never vendored).  Only Python sources are kept.

    python benchmarks/corpus.py            # download and unpack
    python benchmarks/corpus.py --list     # print the source folders
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / ".corpus"

#: (distribution, version, folders of model code inside the wheel)
PACKAGES = [
    ("torchvision", "0.29.1", ["torchvision/models"]),
    ("timm", "1.0.31", ["timm/models", "timm/layers"]),
    ("transformers", "5.23.0", ["transformers/models"]),
]


def ensure(verbose: bool = True) -> list[Path]:
    """Download and unpack what is missing; return the model-code folders."""
    CORPUS.mkdir(exist_ok=True)
    out = []
    for dist, version, folders in PACKAGES:
        root = CORPUS / f"{dist}-{version}"
        if not root.exists():
            wheels = CORPUS / "wheels"
            wheels.mkdir(exist_ok=True)
            have = list(wheels.glob(f"{dist}-{version}-*.whl"))
            if not have:
                if verbose:
                    print(f"downloading {dist}=={version} ...", file=sys.stderr)
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "pip",
                        "download",
                        "--no-deps",
                        "--only-binary=:all:",
                        "-q",
                        "-d",
                        str(wheels),
                        f"{dist}=={version}",
                    ],
                    check=True,
                )
                have = list(wheels.glob(f"{dist}-{version}-*.whl"))
            with zipfile.ZipFile(have[0]) as z:
                for name in z.namelist():
                    if name.endswith(".py"):
                        z.extract(name, root)
        out.extend(root / f for f in folders)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--list", action="store_true")
    args = p.parse_args()
    folders = ensure()
    if args.list:
        for f in folders:
            print(f)


if __name__ == "__main__":
    main()
