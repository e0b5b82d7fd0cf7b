"""Command-line options: ``argparse`` parsers, their options and their defaults.

``args.batch_size`` after ``parser.add_argument("--batch-size", type=int,
default=64)`` is a size that the user may change on the command line, so it is
an opaque symbol (the same one wherever ``args.batch_size`` is read in one
analysis) whose default is remembered: a requirement that cannot be decided for
every value but fails for the default is a warning naming the option
(``option-default``), not an error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..model.values import NONE, BoolV, FloatV, IntV, StrV, TupleV, UnknownV, Value
from ..rules.context import Arg
from .values import NamespaceV, ParserMethodV

__all__ = ["PARSER_CLASSES", "call_parser_method", "destination", "option_value"]

#: Classes whose instances are parsers.
PARSER_CLASSES = frozenset({"argparse.ArgumentParser"})

#: Methods that return the parser itself (or an object that adds options to it).
_SAME_PARSER = frozenset({"add_argument_group", "add_mutually_exclusive_group"})


def destination(flags: Sequence[str], dest: str | None) -> tuple[str, str] | None:
    """``("--batch-size", "-b")`` -> ``("batch_size", "--batch-size")``, argparse's rule for ``dest``."""
    if not flags:
        return None
    long = [f for f in flags if f.startswith("--")]
    flag = long[0] if long else flags[0]
    if dest:
        return dest, flag
    if not flag.startswith("-"):
        return flag, flag  # a positional argument
    return flag.lstrip("-").replace("-", "_"), flag


def call_parser_method(method: ParserMethodV, args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> Value:
    parser = method.parser
    if method.name == "add_argument":
        flags = [a.value.value for a in args if isinstance(a.value, StrV) and a.value.value]
        dest_arg = kwargs.get("dest")
        dest = dest_arg.value.value if dest_arg is not None and isinstance(dest_arg.value, StrV) else None
        named = destination(flags, dest)
        if named is not None:
            default = kwargs["default"].value if "default" in kwargs else NONE
            action = kwargs.get("action")
            if (
                action is not None
                and isinstance(action.value, StrV)
                and action.value.value in ("store_true", "store_false")
            ):
                default = BoolV(action.value.value == "store_false")
            parser.options[named[0]] = (named[1], default)
        return UnknownV()
    if method.name == "set_defaults":
        for k, a in kwargs.items():
            flag = parser.options.get(k, (f"--{k.replace('_', '-')}", NONE))[0]
            parser.options[k] = (flag, a.value)
        return NONE
    if method.name in _SAME_PARSER:
        return parser
    if method.name == "parse_args":
        return NamespaceV(parser)
    if method.name == "parse_known_args":
        return TupleV((NamespaceV(parser), UnknownV()))
    return UnknownV()


def option_value(default: Value) -> Value | None:
    """What reading an option gives when it is not an int size: ``None`` when it is an int."""
    if isinstance(default, IntV) and type(default.value) is int and not isinstance(default.value, bool):
        return None
    if isinstance(default, FloatV):
        return FloatV(None)
    if isinstance(default, BoolV):
        return BoolV(None)
    if isinstance(default, StrV):
        return StrV(None)
    return UnknownV()
