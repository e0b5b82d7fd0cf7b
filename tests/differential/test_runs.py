"""Every op and module class of the table on shapes holding a run of unknown length, against torch
with the run at lengths 0 to 3 (see :mod:`tests.differential.runs`; ``benchmarks/differential_report.py``
prints the whole sweep's figures)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from . import runs
from .harness import Call, T
from .runs import TR, RunCase

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

DRAWS = runs.draws()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DRAWS))
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_verdict_holds_for_every_run_length(name: str, data: st.DataObject) -> None:
    case = runs.draw_case(data, DRAWS[name])
    if case is None:
        return
    verdict = runs.check(case)
    assert verdict.status in ("agree", "missed", "bad-call"), verdict.detail


RUNS = ((), (2,), (3, 1), (1, 2, 2))


def _case(
    qualname: str, *args: object, kind: str = "function", init: tuple[object, ...] = (), **kwargs: object
) -> RunCase:
    return RunCase(Call(kind, qualname, tuple(args), kwargs, init), RUNS, "")


def _ix(before: tuple[int, ...]) -> TR:
    """An int64 index holding the run after ``before``."""
    return TR(before, (), "int64")


#: What the sweep found (each was a wrong shape, a crash or a false error before its fix).
FOUND = {
    # kron's stub allowed 2-d operands only: a run was taken as no dims at all
    "kron, a trailing run": _case("torch.kron", TR((3, 2), ()), T((4, 4))),
    "kron, a leading run": _case("torch.kron", TR((), (4, 1)), T((2, 1))),
    "kron, both runs": _case("torch.kron", TR((4,), ()), TR((4,), ())),
    # a 1-d or 2-d weight: the output's rank is not known
    "linear, a weight with a run": _case("torch.nn.functional.linear", TR((1,), ()), TR((1,), ()), None),
    # a spec ``*b c h w`` against ``[1 2 *s]``: ``b`` took the 1 although ``s`` may be one dim
    "pixel_shuffle, known dims before the run": _case("torch.nn.functional.pixel_shuffle", TR((1, 2), ()), 1),
    # adaptive average pooling to ones is torch's mean over the last dims, for any rank from 2 (3)
    "adaptive_avg_pool2d to 1, a leading run": _case("torch.nn.functional.adaptive_avg_pool2d", TR((), (1, 1, 1, 1)), 1),
    "adaptive_avg_pool3d to 1, a middle run": _case("torch.nn.functional.adaptive_avg_pool3d", TR((1, 3), (4, 2, 2)), 1),
    # einops' layers raise KeyError for a rank they have no recipe for
    "Rearrange, a rank with no recipe": _case(
        "einops.layers.torch.Rearrange", TR((2,), (3,)), kind="module", init=("b c -> c b",)
    ),
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_what_the_sweep_found(name: str) -> None:
    verdict = runs.check(FOUND[name])
    assert verdict.status == "agree", verdict.detail


def _module(name: str, x: object, *init: object) -> RunCase:
    return _case(f"torch.nn.{name}", x, kind="module", init=init)


#: Torch raises for every length of the run, and the rule now says so (each was a missed error:
#: a rule gave up on the run although its requirement was on other arguments or on dims around it).
ERRORS = {
    # the pads' count is odd whatever the input
    "ZeroPad2d, an odd number of pads": _module("ZeroPad2d", TR((), (1,)), (0, 0, 0)),
    "F.pad, an odd number of pads": _case("torch.nn.functional.pad", TR((2,), (3,)), (1, 1, 1)),
    # pooling's padding against its kernel, whatever the input
    "max_pool2d, padding over half the kernel": _case("torch.nn.functional.max_pool2d", TR((), (8, 3)), 1, None, 1),
    # the dims around the run are already more than torch accepts
    "t, three dims around the run": _case("torch.t", TR((), (3, 1, 3))),
    "ConvTranspose1d, four dims around the run": _module("ConvTranspose1d", TR((3, 4, 1), ()), 3, 1, 2),
    "sparse_, three dims around the run": _case("torch.nn.init.sparse_", TR((), (1, 3, 2)), 0.5),
    # an exact rank makes the run as long as the dims left: mv's matrix is [4 2]
    "mv, a matrix whose run must be empty": _case("torch.mv", TR((4, 2), ()), T((1,))),
    "bmm, a batch whose inner dims differ": _case("torch.bmm", TR((), (4,)), T((5, 3, 5))),
    # permute's dims repeat, flatten's start comes after its end, whatever the rank
    "permute, a repeated dim": _case("torch.permute", TR((2, 5), ()), (0, 0)),
    "flatten, start after end": _case("torch.flatten", TR((2, 4, 4), ()), 2, 0),
    "cross_entropy, class indices fix the scores' rank": _case(
        "torch.nn.functional.cross_entropy", TR((), (1, 1)), T((2,), "int64")
    ),
    "GRUCell, a 1-d state fixes a 1-d input": _case(
        "torch.nn.GRUCell", TR((2,), ()), T((6,)), kind="module", init=(2, 4)
    ),
    "rearrange, more dims around the run than axes": _case("einops.rearrange", TR((2, 3, 4), ()), "a b -> b a"),
    "einsum, an operand whose run must be empty": _case("torch.einsum", "ij,jk->ik", TR((2, 3), ()), T((4, 5))),
    # fewer counts than the dims around the run
    "repeat, no counts": _case("torch.Tensor.repeat", TR((), (1,)), ()),
    "repeat, fewer counts than dims": _case("torch.Tensor.repeat", TR((3,), (3,)), 2),
    # another operand's rank fixes the run's length, and the dim is then out of range
    "gather, a 1-d index fixes the input's rank": _case("torch.gather", TR((3,), ()), -2, T((2,), "int64")),
    "scatter, a 3-d index fixes the input's rank": _case(
        "torch.scatter", TR((5,), ()), 3, T((5, 1, 1), "int64"), TR((5,), ())
    ),
    "cross, a 1-d other fixes the input's rank": _case("torch.cross", TR((2, 3), ()), T((3,))),
    # the channel is a known size other than num_features for every rank the run allows
    "BatchNorm1d, a 2 as the channel of 2 or 3 dims": _module("BatchNorm1d", TR((), (2, 2)), 1),
    "BatchNorm1d, a 3 before the run": _module("BatchNorm1d", TR((2, 3), ()), 2),
    "BatchNorm1d, 2 or 5 as the channel": _module("BatchNorm1d", TR((), (5, 2)), 4),
    # a foreach op's tensor operand is one number: a run with a dim beside it has at least one dim
    "_foreach_mul, an operand of at least one dim": _case(
        "torch._foreach_mul", [TR((5, 1, 2), ()), TR((), ()), T((2, 5, 5))], TR((2,), ())
    ),
    # two items of known rank that do not broadcast, whatever the third's run
    "_foreach_addcmul, known items that do not broadcast": _case(
        "torch._foreach_addcmul",
        [TR((), ()), T((3, 1, 3)), TR((), ())],
        [TR((), ()), T((3, 3, 2, 2)), TR((), ())],
        [TR((), ()), TR((), ()), TR((), ())],
        0.5,
    ),
    "addcmul, two operands that do not broadcast beside a run": _case(
        "torch.addcmul", TR((), ()), T((3, 1, 3)), T((3, 3, 2, 2))
    ),
    # every row of the padded batch ends as the first sequence does (after its run)
    "pad_sequence, a row that ends otherwise": _case(
        "torch.nn.utils.rnn.pad_sequence", [TR((4,), (2,)), T((1, 2)), T((2, 3))]
    ),
    # every rank the run allows fails, each for its own reason: the channel for one, a spatial size
    # smaller than the kernel (or than the padding) for the other
    "Conv2d, a 1 as the channel or as the width": _module("Conv2d", TR((1, 4), (1,)), 4, 2, 2),
    "Conv3d, a 1 as the channel or as a spatial size": _module("Conv3d", TR((1,), (1,)), 4, 1, 3),
    "conv1d, a 2 as the channel or a 1 as the length": _case(
        "torch.nn.functional.conv1d", TR((2,), (1,)), T((2, 1, 3)), None, 2
    ),
    "AvgPool3d, a width of 2 for a kernel of 3": _module("AvgPool3d", TR((2,), (7, 2)), 3, 1),
    "MaxPool3d, a width of 1 for a kernel of 3": _module("MaxPool3d", TR((4, 4), (4, 1)), 3),
    "max_pool1d, a length of 1 for a kernel of 2": _case("torch.nn.functional.max_pool1d", TR((1,), (1,)), 2),
    "CircularPad2d, a pad of 3 of a width of 1": _module("CircularPad2d", TR((3,), (1,)), 3),
    "CircularPad2d, four dims around the run and a height of 1": _module("CircularPad2d", TR((2, 1), (1, 4)), 2),
    # a run in a 0-d or 1-d index is at most one dim, and so is the input's where it is the same run
    "index_select, a 1-d index fixes the input's rank": _case("torch.index_select", TR((1, 4, 3), ()), -4, _ix((3,))),
    "index_select, the index's run of at most one dim": _case("torch.Tensor.index_select", TR((), ()), -2, _ix(())),
    "index_add, a 1-d index fixes the input's rank": _case("torch.index_add", TR((3,), ()), -2, _ix((3,)), T((4, 4, 5))),
    "index_copy, a 1-d index fixes the input's rank": _case("torch.index_copy", TR((3,), ()), -2, _ix((3,)), T((4, 5))),
    "index_fill, a 1-d index fixes the input's rank": _case("torch.index_fill", TR((5, 2, 1), ()), 3, _ix((1,)), 0.0),
    "repeat_interleave, 1-d repeats fix the input's rank": _case(
        "torch.repeat_interleave", TR((2,), (), "int64"), TR((2,), (), "int64"), dim=1
    ),
    # the counts are wrong whatever the input
    "repeat_interleave, 2-d repeats": _case("torch.repeat_interleave", TR((), (1,)), T((1, 2), "int64"), dim=-4),
    "repeat_interleave, a negative count": _case("torch.Tensor.repeat_interleave", TR((), ()), -1, dim=-1),
    # a 0-d other leaves a 0-d input, which has no dim 1
    "cross, a 0-d other": _case("torch.cross", TR((), ()), T(()), 1),
    "cross, an other with no dim of size 3": _case("torch.cross", TR((), ()), T((1, 2))),
    "cross, the same run after 3 dims and none": _case("torch.cross", TR((1, 1, 3), ()), TR((), ())),
    # the dims around the run multiply to k: the tensor holds a multiple of k elements
    "reshape_as, 3 elements of [*b 4]": _case("torch.Tensor.reshape_as", TR((), (4,)), T((1, 1, 1, 3))),
    "view_as, 4 elements of [1 *b 4 5]": _case("torch.Tensor.view_as", TR((1,), (4, 5)), T((1, 2, 2))),
    "reshape, 1 element of [4 *b]": _case("torch.reshape", TR((4,), ()), (1, 1)),
    # the sizes fix the run's length (or bound it), and a dim before it cannot expand for any
    "expand, [3 *b 1] to [1 2]": _case("torch.Tensor.expand", TR((3,), (1,)), 1, 2),
    "expand_as, [2 *b] to [3 3 1]": _case("torch.Tensor.expand_as", TR((2,), ()), T((3, 3, 1))),
    "broadcast_to, [3 *b 1] to [1 2]": _case("torch.broadcast_to", TR((3,), (1,)), (1, 2)),
    "addmm, an input [*b 2 1] to a product [1 1]": _case("torch.addmm", TR((), (2, 1)), T((1, 1)), T((1, 1))),
    # the last dims of the output and of the broadcast shape differ, whatever the run
    "copy_, [1 2] into [*b 1]": _case("torch.Tensor.copy_", TR((), (1,)), T((1, 2))),
    # a norm's channel is dim 1 whatever the length of a run after it
    "batch_norm, running stats for 2 channels of a 1": _case(
        "torch.nn.functional.batch_norm", TR((2, 1, 3, 3), ()), T((2,)), T((2,))
    ),
    "batch_norm, a weight for 4 channels of a 3": _case(
        "torch.nn.functional.batch_norm", TR((2, 3), ()), None, None, T((4,)), training=True
    ),
    "group_norm, 5 channels into 2 groups": _case("torch.nn.functional.group_norm", TR((2, 5, 3), ()), 2),
    "group_norm, a weight for 3 channels of a 4": _case("torch.nn.functional.group_norm", TR((2, 4), ()), 2, T((3,))),
    "prelu, 4 weights for 3 channels": _case("torch.nn.functional.prelu", TR((3, 3), ()), T((4,))),
    "prelu, 5 weights for 4 channels before a middle run": _case(
        "torch.nn.functional.prelu", TR((2, 4), (4,)), T((5,))
    ),
    "PReLU, 4 parameters for 3 channels": _module("PReLU", TR((3, 3), ()), 4),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_for_every_length_of_the_run(name: str) -> None:
    case = ERRORS[name]
    verdict = runs.check(case)
    assert verdict.raised == len(RUNS), "torch must raise for every length"
    assert verdict.status == "agree", verdict.detail
    assert runs.run_rule(case.call)[2], "the rule must report the error"


#: Torch raises for some lengths only: no error, but a runtime check (an obligation) naming it
#: (each was silent before).
def _runs(case: RunCase, *lengths: tuple[int, ...]) -> RunCase:
    return RunCase(case.call, lengths, "")


CHECKED = {
    "log_softmax, a dim beyond the dims around the run": _runs(
        _case("torch.log_softmax", TR((), ()), 3), (), (2,), (1, 2, 3, 4)
    ),
    "sum, a negative dim beyond them": _case("torch.sum", TR((4,), ()), -3),
    "MaxPool2d, a rank of 3 or 4": _module("MaxPool2d", TR((4,), ()), 2),
    "conv2d, a rank of 3 or 4": _runs(
        _case("torch.nn.functional.conv2d", TR((), (4, 4)), T((2, 4, 1, 1))), (), (4,), (2, 4), (1, 2, 4)
    ),
    "BatchNorm2d, a rank of 4": _module("BatchNorm2d", TR((), (2, 2)), 1),
    "GRU, a rank of 2 or 3": _module("GRU", TR((), (2,)), 2, 4),
    "mm, a matrix": _case("torch.mm", TR((), (3,)), T((3, 2))),
    "rearrange, one dim per axis": _case("einops.rearrange", TR((), (3,)), "a b -> b a"),
    "nll_loss, scores of 1 or 2 dims": _case("torch.nn.functional.nll_loss", TR((), (3,)), T((2,), "int64")),
    "F.pad, more pads than dims around the run": _case("torch.nn.functional.pad", TR((), (4,)), (1, 1, 1, 1)),
    "kaiming_normal_, a fan needs two dims": _case("torch.nn.init.kaiming_normal_", TR((), (3,))),
    "sub, dims left of the run's suffix": _runs(_case("torch.sub", TR((2,), ()), T((1, 4, 3))), (), (3,), (4, 3)),
    "repeat, at most one dim per count": _case("torch.Tensor.repeat", TR((), (3,)), (2, 1)),
    "gather, the index's rank for the run": _case("torch.gather", TR((), (4,)), 0, T((2, 3), "int64")),
    "BatchNorm1d, the channel is the 2 for one rank only": _module("BatchNorm1d", TR((), (2, 5)), 2),
    # one rank the run allows works: the other's failure is no error
    "Conv2d, the channel is the 4 for 4 dims only": _module("Conv2d", TR((1, 4), (2,)), 4, 2, 2),
    "MaxPool3d, the dims fit the kernel for 4 dims": _module("MaxPool3d", TR((4, 4), (4, 3)), 3),
    "CircularPad2d, a pad of 2 of a height of 1 for 3 dims only": _module("CircularPad2d", TR((3, 1), (3,)), 2),
    "index_select, an index of at most one dim": _case("torch.Tensor.index_select", TR((), ()), -1, _ix(())),
}


@pytest.mark.parametrize("name", sorted(CHECKED))
def test_a_requirement_on_the_runs_length_is_checked_at_run_time(name: str) -> None:
    case = CHECKED[name]
    verdict = runs.check(case)
    assert 0 < verdict.raised < len(RUNS), f"torch must raise for some lengths only ({verdict.raised})"
    assert verdict.status == "agree", verdict.detail
    assert verdict.warned, "the rule must leave a runtime check"


def test_a_reflect_pad_as_long_as_the_dim_fails_for_every_rank() -> None:
    """``F.pad(x, (2, 2), "reflect")`` of ``[2 *b 2]`` needs 2 or 3 dims, and its last one longer
    than the pad either way (a longer run is not a shape case: torch has no such padding)."""
    case = _runs(_case("torch.nn.functional.pad", TR((2,), (2,)), (2, 2), "reflect"), (), (3,))
    verdict = runs.check(case)
    assert verdict.raised == 2 and verdict.status == "agree", verdict.detail
    assert runs.run_rule(case.call)[2], "the rule must report the error"


#: Torch raises for the lengths the sweep draws, but runs for another size of the run (a 0 in it, or
#: a longer run): the rule must not report an error.
ACCEPTED = {
    "gather, an index whose run holds a 0": _runs(_case("torch.gather", TR((2, 2, 1), ()), 0, _ix((1,))), (2,), (0,)),
    "reshape_as, a run holding a 0 to no elements": _runs(
        _case("torch.Tensor.reshape_as", TR((), (4,)), T((0, 3))), (), (2,), (0,)
    ),
    "reshape_as, 12 elements of [*b 4]": _runs(_case("torch.Tensor.reshape_as", TR((), (4,)), T((2, 6))), (), (3,)),
    "expand, -1 keeps the 3 before a run of one dim": _runs(
        _case("torch.Tensor.expand", TR((3,), (1,)), -1, 1, 2), (), (2,), (1,)
    ),
    "expand, the 3 lines up with a 3": _runs(_case("torch.Tensor.expand", TR((3,), (1,)), 3, 1, 2), (), (1,)),
    "topk, a run long enough for dim -4": _runs(_case("torch.topk", TR((), ()), 4, -4), (), (2,), (4, 4, 4, 4)),
    "index_add, an index and input of at most one dim": _runs(
        _case("torch.index_add", TR((), ()), 0, _ix(()), TR((), ())), (2,), (2, 2)
    ),
    # a run before dim 1 may hold the channel; a trailing run may hold the normalized dims
    "batch_norm, the channel in a leading run": _case(
        "torch.nn.functional.batch_norm", TR((), (3, 3)), T((2,)), T((2,))
    ),
    "group_norm, the channel in a leading run": _case("torch.nn.functional.group_norm", TR((), (5, 3)), 2),
    "prelu, the channel in the run after dim 0": _runs(
        _case("torch.nn.functional.prelu", TR((3,), ()), T((4,))), (), (4,)
    ),
    "LayerNorm, a trailing run of the normalized dims": _runs(_module("LayerNorm", TR((5,), ()), (7,)), (), (7,)),
    "RMSNorm, a trailing run ending in them": _runs(_module("RMSNorm", TR((5, 2, 1), ()), (7, 2, 1)), (), (7, 2, 1)),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_no_error_where_some_size_of_the_run_runs(name: str) -> None:
    case = ACCEPTED[name]
    verdict = runs.check(case)
    assert verdict.raised < len(case.runs), "torch must run for some size of the run"
    assert verdict.status == "agree", verdict.detail
    assert not runs.run_rule(case.call)[2]


@pytest.mark.parametrize(
    ("shape", "index"), [((2, 2, 1), (0,)), ((2, 2, 1), (1, 0)), ((), (2, 2)), ((2, 3), ()), ((), (2,)), ((3,), ())]
)
def test_gather_counts_a_0d_operand_as_1d_and_checks_no_empty_index(
    shape: tuple[int, ...], index: tuple[int, ...]
) -> None:
    """torch checks nothing against an index of no elements (was a false error: index [0] of a 3-d
    input), and takes a 0-d input or index as 1-d (a 2-d index of a 0-d input was a missed error)."""
    from .harness import compare

    compare(Call("function", "torch.gather", (T(shape), 0, T(index, "int64"))))


@pytest.mark.parametrize(("shape", "n"), [((3, 3), 4), ((3, 4), 4), ((3,), 4), ((), 4), ((3, 3), 1), ((2, 3, 3), 3)])
def test_prelu_modules_parameters_against_the_channels(shape: tuple[int, ...], n: int) -> None:
    """``nn.PReLU(n)`` has ``n`` weights: 1, or one per channel (dim 1; one channel below 2 dims).
    The module was taken as pointwise: ``PReLU(4)`` of ``[3 3]`` reported nothing."""
    from .harness import compare

    compare(Call("module", "torch.nn.PReLU", (T(shape),), {}, (n,)))


def test_bincount_of_an_empty_input_ignores_the_weights() -> None:
    """torch returns no bins for an empty input without looking at the weights (was a false error:
    ``bincount's weights must be 1-D``)."""
    case = _case("torch.bincount", TR((0,), (), "int64"), T((0, 1)))
    verdict = runs.check(RunCase(case.call, ((),), ""))
    assert verdict.status == "agree" and verdict.raised == 0, verdict.detail


def test_constant_padding_of_the_dims_after_the_run_keeps_it() -> None:
    case = _case("torch.nn.functional.pad", TR((), (4, 5)), (1, 2, 0, 1))
    got, warned, errors = runs.run_rule(case.call)
    assert runs._show(got) == "[*b 5 8]" and not warned and not errors
    assert runs.check(case).status == "agree"


@pytest.mark.parametrize("shape", [(2, 3, 4, 5, 6), (5, 6), (2, 3, 0, 4)])
def test_adaptive_average_pooling_to_ones_takes_any_rank(shape: tuple[int, ...]) -> None:
    """``F.adaptive_avg_pool2d(x, 1)`` is the mean of the last two dims whatever ``x``'s rank (was
    a false TS103 for a rank other than 3 or 4); a 1-d input has too few dims."""
    from .harness import compare

    compare(Call("function", "torch.nn.functional.adaptive_avg_pool2d", (T(shape), 1)))
    compare(Call("function", "torch.nn.functional.adaptive_avg_pool2d", (T(shape[-1:]), (1, 1))))


def test_a_failure_of_the_drawn_sizes_only_is_not_a_missed_error() -> None:
    """``reshape(x, 1, 2)`` of ``[*b]`` fails when the run holds one element and runs for ``*b = [2]``:
    the rule must not report an error, and the case is not counted as a missed one."""
    case = _runs(_case("torch.reshape", TR((), ()), (1, 2)), (), (1,), (1, 1), (1, 1, 1))
    verdict = runs.check(case)
    assert verdict.raised == 4
    assert verdict.status == "agree" and verdict.sized, verdict.detail
    assert runs.runs_for_some_size(case) is not None


def test_an_error_for_every_size_of_the_run_is_found_as_such() -> None:
    """``repeat(x, ())`` raises whatever ``[*b 1]`` is: no other size of the run makes it run."""
    case = _case("torch.Tensor.repeat", TR((), (1,)), ())
    assert runs.runs_for_some_size(case) is None


def test_repeat_of_a_run_has_one_dim_per_count() -> None:
    """``[*b 3].repeat(4, 1, 2)`` is ``[? ? 6]`` (torch: ``[4 1 6]``, ``[4 2 6]``, ``[8 3 6]``)."""
    case = _case("torch.Tensor.repeat", TR((), (3,)), (4, 1, 2))
    got, warned, errors = runs.run_rule(case.call)
    assert runs._show(got) == "[? ? 6]" and warned and not errors
    assert runs.check(case).status == "agree"

