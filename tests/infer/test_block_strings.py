"""A block string parsed as timm's EfficientNet builder parses it (issue 22): ``re.split`` of a known
pattern and string, ``int("24")``/``float("0.25")`` of a known string, ``skip is False`` of
``skip = None``, and ``"n" in options`` of a dict the function built and kept to itself (a key it
lacks is not in it), so the options the string gives are sizes.  A dict that escapes (an alias, an
argument, a return) or a module's dict (a registry other modules may fill) keeps an absent key
undecided.  Checked against torch."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import re

import torch
from tensorshape import reveal_shape


def decode(block_str):
    ops = block_str.split("_")
    block_type = ops[0]
    options = {}
    skip = None
    for op in ops[1:]:
        if op == "noskip":
            skip = False
        else:
            splits = re.split(r"(\\d.*)", op)
            if len(splits) >= 2:
                key, value = splits[:2]
                options[key] = value
    act = options["n"] if "n" in options else None
    args = dict(block_type=block_type, out_chs=int(options["c"]), stride=int(options["s"]), act=act)
    if "e" in options:
        args["exp_ratio"] = float(options["e"])
    args["noskip"] = skip is False
    return args, int(options["r"])


"""

CASES = {
    "a_block_string_gives_its_sizes": """
        args, repeats = decode("ir_r2_k3_s2_e6_c24_se0.25")
        x = torch.zeros(4, 16, 32, 32)
        conv = torch.nn.Conv2d(16, args["out_chs"], 3, stride=args["stride"], padding=1)
        reveal_shape(conv(x))
        reveal_shape(torch.zeros(repeats, int(args["exp_ratio"]) * args["out_chs"]))
    """,
    "the_options_a_string_lacks_are_absent": """
        args, repeats = decode("ds_r1_k3_s1_c16_noskip")
        width = 8 if args["act"] is None else 100
        width += 2 if args["noskip"] else 0
        reveal_shape(torch.zeros(width, repeats, len(args)))
    """,
    "a_wrong_size_from_a_block_string": """
        args, repeats = decode("ir_r2_k3_s2_e6_c24_se0.25")
        conv = torch.nn.Conv2d(args["out_chs"], 8, 3)
        conv(torch.zeros(1, 16, 8, 8))  # E: TS101
    """,
    "a_dict_given_away_keeps_an_absent_key_undecided": """
        def fill(d):
            d["n"] = 5


        def build():
            options = {"c": 3}
            fill(options)
            return torch.zeros(options["n"] if "n" in options else 7)


        reveal_shape(build())
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("block_strings"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
