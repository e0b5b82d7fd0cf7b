"""Each generalisation rule: observed shapes in, the annotation out."""

from __future__ import annotations

from typing import Any

from tensorshape.annotate import INIT, Caller, ModuleNames, dtype_class, generalise


def t(*shape: int, dtype: str = "float32") -> dict[str, Any]:
    return {"shape": list(shape), "dtype": dtype}


def ann(calls: list[dict[str, Any]], order: list[str] | None = None, **kw: Any) -> dict[str, str]:
    order = order or list(dict.fromkeys(k for c in calls for k in c))
    return generalise(calls, order, **kw).annotations


def test_one_call_gives_literals_and_says_so() -> None:
    r = generalise([{"x": t(4, 3), "return": t(4)}], ["x", "return"])
    assert r.annotations == {"x": 'Float[Tensor, "4 3"]', "return": 'Float[Tensor, " 4"]'}
    assert any("one call" in n for n in r.notes)


def test_equal_in_every_call_is_a_literal_varying_is_a_name() -> None:
    got = ann([{"x": t(4, 3)}, {"x": t(8, 3)}])
    assert got == {"x": 'Float[Tensor, "batch 3"]'}


def test_configured_variable_size_is_named_even_when_constant() -> None:
    got = ann([{"x": t(32, 3)}, {"x": t(32, 3)}], module=ModuleNames(variable={32: "batch"}))
    assert got == {"x": 'Float[Tensor, "batch 3"]'}


def test_sizes_varying_together_share_one_name() -> None:
    got = ann([{"x": t(2, 5), "y": t(5, 7)}, {"x": t(3, 6), "y": t(6, 7)}], ["x", "y"])
    assert got == {"x": 'Float[Tensor, "batch n"]', "y": 'Float[Tensor, "n 7"]'}


def test_multiple_product_and_sum_are_expressions() -> None:
    calls = [
        {"x": t(2, 3), "y": t(4, 6, 5)},
        {"x": t(3, 5), "y": t(6, 15, 8)},
    ]
    assert ann(calls, ["x", "y"]) == {"x": 'Float[Tensor, "batch n"]', "y": 'Float[Tensor, "2*batch batch*n batch+n"]'}


def test_expression_only_over_earlier_names() -> None:
    # y's first axis is twice x's, but y comes first: jaxtyping binds y first, so y gets a name
    calls = [{"y": t(4), "x": t(2)}, {"y": t(6), "x": t(3)}]
    got = ann(calls, ["y", "x"])
    assert got["y"] == 'Float[Tensor, " n"]'
    assert got["x"] == 'Float[Tensor, " m"]'


def test_varying_rank_is_a_variadic_batch() -> None:
    calls = [{"x": t(4, 16), "return": t(4, 8)}, {"x": t(2, 3, 16), "return": t(2, 3, 8)}]
    assert ann(calls, ["x", "return"]) == {"x": 'Float[Tensor, "*batch 16"]', "return": 'Float[Tensor, "*batch 8"]'}


def test_names_from_the_code_and_from_int_arguments() -> None:
    calls = [{"x": t(2, 7, 16), "hidden_size": {"int": 16}}, {"x": t(3, 9, 32), "hidden_size": {"int": 32}}]
    got = ann(calls, ["x", "hidden_size"], code_names={"x": ["b", "t", None]})
    assert got == {"x": 'Float[Tensor, "b t hidden_size"]'}


def test_names_reused_across_functions_of_a_module_where_sizes_agree() -> None:
    names = ModuleNames()
    first = ann([{"x": t(4, 7)}, {"x": t(8, 9)}], module=names, code_names={"x": ["b", "s"]})
    assert first == {"x": 'Float[Tensor, "b s"]'}
    second = ann([{"logits": t(8, 10)}, {"logits": t(4, 10)}], module=names)
    assert second == {"logits": 'Float[Tensor, "b 10"]'}


def test_tuples_of_tensors_and_non_tensors() -> None:
    calls = [{"return": {"tuple": [t(2, 3), t(2)]}, "n": None}, {"return": {"tuple": [t(5, 3), t(5)]}, "n": None}]
    got = generalise(calls, ["n", "return"])
    assert got.annotations == {"return": 'tuple[Float[Tensor, "batch 3"], Float[Tensor, " batch"]]'}
    mixed = generalise([{"x": t(2)}, {"x": {"int": 3}}], ["x"])
    assert mixed.annotations == {} and any("not a tensor" in n for n in mixed.notes)


def test_known_names_from_existing_annotations_are_reused() -> None:
    got = ann([{"x": t(4, 3)}, {"x": t(8, 3)}], known=[((4, 8), "batch_size")], reserved=["batch_size"])
    assert got == {"x": 'Float[Tensor, "batch_size 3"]'}
    other = ann([{"x": t(5, 3)}, {"x": t(6, 3)}], reserved=["batch"])
    assert other == {"x": 'Float[Tensor, "n 3"]'}


def test_dtype_classes() -> None:
    assert dtype_class(["float32", "bfloat16"]) == "Float"
    assert dtype_class(["int64"]) == "Int"
    assert dtype_class(["uint8"]) == "UInt"
    assert dtype_class(["uint8", "int32"]) == "Integer"
    assert dtype_class(["bool"]) == "Bool"
    assert dtype_class(["bool", "float32"]) == "Shaped"


NONE = {"none": True}


def test_a_tensor_or_none_is_optional_and_shares_names_where_it_is_given() -> None:
    """``mask`` given in some calls, None in others (perceiver-pytorch's ``Attention.forward``)."""
    calls = [
        {"x": t(2, 5, 8), "mask": t(2, 5, dtype="bool"), "return": t(2, 5, 8)},
        {"x": t(3, 7, 8), "mask": NONE, "return": t(3, 7, 8)},
        {"x": t(4, 6, 8), "mask": t(4, 6, dtype="bool"), "return": t(4, 6, 8)},
    ]
    got = ann(calls, ["x", "mask", "return"])
    assert got == {
        "x": 'Float[Tensor, "batch n 8"]',
        "mask": 'Bool[Tensor, "batch n"] | None',
        "return": 'Float[Tensor, "batch n 8"]',
    }


def test_never_a_tensor_says_nothing() -> None:
    r = generalise(
        [{"x": t(2), "dim": {"int": 1}, "flag": NONE}, {"x": t(3), "dim": {"int": 2}, "flag": NONE}],
        ["x", "dim", "flag"],
    )
    assert r.annotations == {"x": 'Float[Tensor, " n"]'}
    assert r.notes == []


def test_a_size_equal_to_a_constructor_argument_is_named_after_it() -> None:
    """perceiver-pytorch's ``Attention.forward``: every instance the run built had ``query_dim=32``
    (a literal 32 would refuse ``Attention(64)``), its ``context_dim`` differed between instances."""
    calls = [
        {
            "x": t(b, 16, 32),
            "context": t(b, n, c),
            "return": t(b, 16, 32),
            INIT: {"query_dim": 32, "context_dim": c, "heads": 4},
        }
        for b, n, c in ((1, 64, 21), (2, 30, 24), (3, 16, 32))
    ]
    got = ann(calls, ["x", "context", "return"])
    assert got == {
        "x": 'Float[Tensor, "batch 16 query_dim"]',
        "context": 'Float[Tensor, "batch n context_dim"]',
        "return": 'Float[Tensor, "batch 16 query_dim"]',
    }
    # the code's own name wins; a size equal to two constructor arguments, or not the last axis, stays a literal
    same = [{"x": t(b, 8, 8), INIT: {"d_model": 8, "heads": 2}} for b in (2, 3)]
    assert ann(same, ["x"], code_names={"x": ["b", "t", "d"]}) == {"x": 'Float[Tensor, "b 8 d"]'}
    both = [{"x": t(b, 4), INIT: {"dim": 4, "hidden": 4}} for b in (2, 3)]
    assert ann(both, ["x"]) == {"x": 'Float[Tensor, "batch 4"]'}
    # one call: literals, whatever the constructor
    assert ann([{"x": t(2, 32), INIT: {"dim": 32}}], ["x"]) == {"x": 'Float[Tensor, "2 32"]'}


def test_lists_dicts_and_tuples_of_varying_length_annotate_their_items() -> None:
    calls = [
        {
            "xs": {"list": [t(b, 3, 8)] * k},
            "named": {"dict": {"a": t(b, 5), "b": t(b, 5)}},
            "parts": {"tuple": [t(b, 8)] * k},
            "maps": {"list": [t(b, 4, s, s) for s in (16, 8)]},
            "return": {"list": [t(b, 8)]},
        }
        for b, k in ((2, 1), (4, 3), (5, 2))
    ]
    got = ann(calls, ["xs", "named", "parts", "maps", "return"])
    assert got == {
        "xs": 'list[Float[Tensor, "batch 3 8"]]',
        "named": 'dict[str, Float[Tensor, "batch 5"]]',
        "parts": 'tuple[Float[Tensor, "batch 8"], ...]',
        "maps": 'list[Float[Tensor, "batch 4 _ _"]]',  # sizes that differ between a call's items
        "return": 'list[Float[Tensor, "batch 8"]]',
    }
    odd = generalise([{"xs": {"list": [t(2, 3), t(2)]}, "d": {"dict": {"1": t(2)}, "keys": "other"}}] * 2, ["xs", "d"])
    assert odd.annotations == {}
    assert any("differ in rank" in n for n in odd.notes) and any("keys are not all strings" in n for n in odd.notes)


def test_a_parameter_whose_literal_default_some_calls_used_is_annotated_from_the_others() -> None:
    calls = [{"x": t(2, 4), "bias": t(4)}, {"x": t(3, 4)}, {"x": t(5, 4), "bias": {"int": 0}}]
    assert ann(calls, ["x", "bias"], defaulted=["bias"]) == {
        "x": 'Float[Tensor, "batch 4"]',
        "bias": 'Float[Tensor, " 4"]',
    }
    assert ann(calls, ["x", "bias"]) == {"x": 'Float[Tensor, "batch 4"]'}


def test_a_sequence_axis_equal_to_a_constructor_argument_in_two_calls_is_a_coincidence() -> None:
    """perceiver-pytorch's driver: ``num_latents`` and ``dim_head`` were 16 and 8 in its two models."""
    calls = [{"x": t(b, n, 32), INIT: {"dim_head": n}} for b, n in ((1, 16), (2, 8))]
    assert ann(calls, ["x"]) == {"x": 'Float[Tensor, "batch n 32"]'}
    more = [{"x": t(b, n, 32), INIT: {"seq_len": n}} for b, n in ((1, 16), (2, 8), (3, 20))]
    assert ann(more, ["x"]) == {"x": 'Float[Tensor, "batch seq_len 32"]'}


def test_a_configured_size_keeps_its_name_on_other_axes() -> None:
    """linformer's ``LinformerLM.forward``: tokens ``[b seq_len]`` in, logits ``[b seq_len num_tokens]``
    out (a literal 32 in the result contradicted the name the argument gave it)."""
    calls = [
        {"x": t(b, 32, dtype="int64"), "return": t(b, 32, 100), INIT: {"num_tokens": 100, "seq_len": 32}}
        for b in (2, 3)
    ]
    assert ann(calls, ["x", "return"]) == {
        "x": 'Int[Tensor, "batch seq_len"]',
        "return": 'Float[Tensor, "batch seq_len num_tokens"]',
    }


def test_a_helper_reached_at_one_size_takes_its_callers_name() -> None:
    """egnn-pytorch's ``batched_index_select``: reached only by the test at 256 points, from
    ``EGNN.forward`` whose ``feats`` is ``"1 n dim"`` (16 and 256 points): its ``indices`` were
    ``"1 256 8"``, and the checker refused the caller's ``[1 n 8]``."""
    caller = Caller({"n": 256, "dim": 512}, same={"values": [None, "n", "dim"]})
    calls = [
        {"values": t(1, 256, 256, 3), "indices": t(1, 256, 8, dtype="int64"), "return": t(1, 256, 8, 3)},
        {"values": t(1, 256, 512), "indices": t(1, 256, 8, dtype="int64"), "return": t(1, 256, 8, 512)},
        {"values": t(1, 256), "indices": t(1, 256, 8, dtype="int64"), "return": t(1, 256, 8)},
    ]
    linked = Caller({"n": 256, "dim": 512})
    r = generalise(calls, ["values", "indices", "return"], callers=[linked, caller, linked])
    assert r.annotations["indices"] == 'Int[Tensor, "1 n 8"]'
    assert r.annotations["values"] == 'Float[Tensor, " *batch"]'
    assert any("256 named n, after the caller" in note for note in r.notes)
    # without the callers: the literals of the run
    assert ann(calls, ["values", "indices", "return"])["indices"] == 'Int[Tensor, "1 256 8"]'


def test_the_same_tensor_object_names_by_axis_and_sizes_alone_must_be_unambiguous() -> None:
    # x is the caller's own ``q`` ("b s s"): its two axes of 5 are the caller's s, in order
    same = Caller({"b": 2, "s": 5, "t": 5}, same={"x": ["b", "s", "t"]})
    assert ann([{"x": t(2, 5, 5)}], ["x"], callers=[same]) == {"x": 'Float[Tensor, "b s t"]'}
    # by size only, s and t are both 5: no name; b, the one named 2, is taken
    both = Caller({"b": 2, "s": 5, "t": 5})
    assert ann([{"x": t(2, 5, 5)}], ["x"], callers=[both]) == {"x": 'Float[Tensor, "b 5 5"]'}
    # linked calls must agree: 7 is the caller's n in one, its m in the other
    calls = [{"x": t(7, 3)}, {"x": t(7, 3)}]
    apart = [Caller({"n": 7, "m": 9}), Caller({"n": 8, "m": 7})]
    assert ann(calls, ["x"], callers=apart) == {"x": 'Float[Tensor, "7 3"]'}
    # a size 1 is not named by its size alone (a keepdim axis), only by the same object's axis
    one = Caller({"b": 1})
    assert ann([{"x": t(1, 4)}], ["x"], callers=[one]) == {"x": 'Float[Tensor, "1 4"]'}
    assert ann([{"x": t(1, 4)}], ["x"], callers=[Caller({"b": 1}, {"x": ["b", None]})]) == {"x": 'Float[Tensor, "b 4"]'}


def test_a_callers_name_taken_by_another_column_of_the_function_is_not_reused() -> None:
    # n already names the varying first axis; the caller's n (6) is another size: a literal stays
    calls = [{"x": t(b, 6)} for b in (2, 3)]
    got = ann(calls, ["x"], callers=[Caller({"n": 6}), Caller({"n": 6})], code_names={"x": ["n", None]})
    assert got == {"x": 'Float[Tensor, "n 6"]'}


def test_one_observation_takes_the_name_a_size_varies_under_elsewhere_in_the_module() -> None:
    names = ModuleNames()
    first = ann(
        [{"feats": t(1, n, 512)} for n in (16, 256)], ["feats"], module=names, code_names={"feats": ["b", "n", "d"]}
    )
    assert first == {"feats": 'Float[Tensor, "1 n 512"]'}
    # CoorsNorm.forward: three calls, all at 256 points; 8 and 3 varied nowhere
    norm = generalise([{"coors": t(1, 256, 8, 3)}] * 3, ["coors"], module=names)
    assert norm.annotations == {"coors": 'Float[Tensor, "1 n 8 3"]'}
    assert any("256 named n, after the module" in note for note in norm.notes)
    # two calls of different shapes: a constant 256 there is the function's own constant
    assert ann([{"x": t(256, 2)}, {"x": t(256, 3)}], ["x"], module=names) == {"x": 'Float[Tensor, "256 n"]'}
    # a size two module dims took is ambiguous: a literal
    names.by_sizes[frozenset({256, 512})] = "k"
    assert ann([{"y": t(256)}], ["y"], module=names) == {"y": 'Float[Tensor, " 256"]'}


def test_a_name_from_the_code_or_the_constructor_reaches_every_axis_where_the_sizes_agree() -> None:
    """g-mlp-pytorch's ``gMLPVision.forward``: every instance had ``image_size=16``; the width (the
    last axis) is the configuration's, and so is the height before it, though it comes first."""
    calls = [{"img": t(b, 3, 16, 16), "return": t(b, 10), INIT: {"image_size": 16, "num_classes": 10}} for b in (1, 3)]
    assert ann(calls, ["img", "return"]) == {
        "img": 'Float[Tensor, "batch 3 image_size image_size"]',
        "return": 'Float[Tensor, "batch num_classes"]',
    }
    # the order of the arguments does not matter: a configured size of a later argument names an earlier one's
    later = [{"mask": t(b, 16), "x": t(b, 7, 16), INIT: {"dim": 16}} for b in (2, 5)]
    assert ann(later, ["mask", "x"]) == {"mask": 'Float[Tensor, "batch dim"]', "x": 'Float[Tensor, "batch 7 dim"]'}
    # the code's names of a later argument (``b, t, d = x.shape``) name the sizes of an earlier one
    coded = [{"mask": t(b, s, dtype="bool"), "x": t(b, s, 8)} for b, s in ((2, 5), (3, 9))]
    got = ann(coded, ["mask", "x"], code_names={"x": ["b", "t", "d"]})
    assert got == {"mask": 'Bool[Tensor, "b t"]', "x": 'Float[Tensor, "b t 8"]'}
    # but an axis the code names otherwise is not the configuration's: the literal stays, and an
    # axis of that size the code does not name is then unsure (only last axes take the name)
    named = [{"x": t(b, 8, 8), "return": t(b, 8, 8), INIT: {"d_model": 8}} for b in (2, 3)]
    assert ann(named, ["x", "return"], code_names={"x": ["b", "t", "d"]}) == {
        "x": 'Float[Tensor, "b 8 d"]',
        "return": 'Float[Tensor, "b 8 d"]',
    }
    # and an earlier axis equal to a constructor argument that no last axis is stays a literal
    seq = [{"x": t(b, 16, 4), INIT: {"heads": 16}} for b in (2, 3)]
    assert ann(seq, ["x"]) == {"x": 'Float[Tensor, "batch 16 4"]'}


def test_a_constant_size_an_existing_annotation_names_is_that_name() -> None:
    """examples/first_class_dims.py: ``batched_model(examples: "b f", weights: "f")`` calls
    ``model(feature_vec, weights)`` once; ``batched_model``'s axes are its annotation's names, so
    ``model``'s ``weights`` takes ``f`` from it (the literal 5 made the checker refuse the call)."""
    call = {"examples": t(3, 5), "weights": t(5), "return": t(3)}
    r = generalise([call], ["examples", "weights", "return"], known=[((3,), "b"), ((5,), "f")])
    assert r.axes == {"examples": ["b", "f"], "weights": ["f"], "return": ["b"]}
    assert "weights: 5 named f, after the function's annotations" in r.notes
    assert r.notes[0].startswith("one call observed: sizes are written as literals except those named")
    callee = generalise([{"weights": t(5)}], ["weights"], callers=[Caller(r.sizes[0], {"weights": ["f"]})])
    assert callee.annotations == {"weights": 'Float[Tensor, " f"]'}
    # two names of that size, or a size 1: the literal
    assert generalise([{"x": t(5)}], ["x"], known=[((5,), "f"), ((5,), "g")]).axes == {"x": [None]}
    assert generalise([{"x": t(1)}], ["x"], known=[((1,), "f")]).axes == {"x": [None]}
