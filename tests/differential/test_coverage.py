"""Every op of the table has a differential case, or an explicit reason why not."""

from __future__ import annotations

from pathlib import Path

from tensorshape.rules.stubs import load_table

from .cases import EXCLUDED, family_of
from .modules import EXCLUDED_MODULES, MODULES


def _is_module_member(q: str) -> bool:
    return q.rsplit(".", 1)[0] in load_table().classes


def test_every_function_and_method_is_covered() -> None:
    table = load_table()
    missing = [q for q in sorted(table.ops) if not _is_module_member(q) and family_of(q) is None and q not in EXCLUDED]
    assert missing == []


#: Classes that make datasets, loaders and image transforms rather than tensor ops, and where
#: they are compared: torch.utils.data's with torch itself; torchvision's transforms with
#: torchvision itself, its datasets (which need downloads) with their published sizes.
DATA_CLASSES = {
    "torch.utils.data.": "tests/infer/test_data_pipelines.py",
    "torchvision.transforms.": "tests/infer/test_torchvision_transforms.py",
    "torchvision.datasets.": "tests/infer/test_data_pipelines.py",
}


def test_every_module_class_is_covered() -> None:
    classes = [q for q in load_table().classes if not any(q.startswith(p) for p in DATA_CLASSES)]
    names = sorted(q.rsplit(".", 1)[1] for q in classes)
    missing = [n for n in names if n not in MODULES and n not in EXCLUDED_MODULES]
    assert missing == []
    for test in set(DATA_CLASSES.values()):
        assert (Path(__file__).resolve().parents[2] / test).is_file()


def test_exclusions_are_few_and_real() -> None:
    table = load_table()
    assert all(q in table.ops for q in EXCLUDED)
    assert all(any(c.endswith("." + n) for c in table.classes) for n in EXCLUDED_MODULES)
    # Ops compared with torch (or a reference implementation) in a test of their own do not count
    # against the cap, but that test must exist.
    elsewhere = {q: r for q, r in EXCLUDED.items() if "compared with" in r}
    for reason in set(elsewhere.values()):
        test = reason.rsplit(" in ", 1)[-1]
        assert (Path(__file__).resolve().parents[2] / test).is_file(), reason
    assert len(EXCLUDED) - len(elsewhere) + len(EXCLUDED_MODULES) <= 30
