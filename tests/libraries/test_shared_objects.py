"""One object, many references (issue 22: transformers' attention dispatch).  A model's base
constructor writes the attention implementation through ``self.config``, the config object its
caller passed; the layers built after it, and the caller, read it through their own references.  The
attention functions live in a module-level dict-like registry (``ALL_ATTENTION_FUNCTIONS``), whose
``__setitem__`` writes into an inner dict, and which is read with the key the config holds.

A write through one reference is carried back to the caller's variables that hold the same object
when the callee made it on every way out; any other reference reads the attribute as unknown, never
the value before the write.  Each program is run with torch for the truth."""

from __future__ import annotations

from pathlib import Path

from tests.libraries.conftest import CheckWithSite, reveals, torch_shapes
from tests.libraries.test_dict_subclass import MAPPING

#: transformers' ``GeneralInterface``: class-wide items and an instance's own, which ``__setitem__``
#: writes into.
GENERIC = MAPPING

MODELING = """
import torch
import torch.nn as nn
import torch.nn.functional as F

from .generic import Interface


def sdpa_attention_forward(module, query, key, value):
    return F.scaled_dot_product_attention(query, key, value), None


def eager_attention_forward(module, query, key, value):
    weights = torch.softmax(query @ key.transpose(-1, -2) * module.scaling, dim=-1)
    return weights @ value, weights


class AttentionInterface(Interface):
    _global_mapping = {"sdpa": sdpa_attention_forward}

    def valid_keys(self):
        return list(self.keys())

    def get_interface(self, attn_implementation, default):
        if attn_implementation != "eager" and attn_implementation not in self:
            raise KeyError(f"{attn_implementation} is not a registered attention")
        return super().get(attn_implementation, default)


ALL_ATTENTION_FUNCTIONS = AttentionInterface()


class PretrainedConfig:
    def __init__(self, hidden_size=32, num_heads=4, attn_implementation=None):
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self._attn_implementation = attn_implementation

    @property
    def _attn_implementation(self):
        return self._attn_implementation_internal

    @_attn_implementation.setter
    def _attn_implementation(self, value):
        self._attn_implementation_internal = value


class PreTrainedModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.config._attn_implementation_internal = self._check_attn_implementation(self.config._attn_implementation)

    def _check_attn_implementation(self, requested):
        applicable = "sdpa" if requested is None else requested
        if applicable not in ["eager"] + ALL_ATTENTION_FUNCTIONS.valid_keys():
            raise ValueError(f"attn_implementation={applicable} is not supported")
        return applicable


class SelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.head_dim = config.hidden_size // config.num_heads
        self.scaling = self.head_dim**-0.5
        self.qkv = nn.Linear(config.hidden_size, 3 * config.hidden_size)

    def forward(self, hidden_states):
        shape = (*hidden_states.shape[:-1], -1, self.head_dim)
        q, k, v = (t.view(shape).transpose(1, 2) for t in self.qkv(hidden_states).chunk(3, dim=-1))
        attention_interface = ALL_ATTENTION_FUNCTIONS.get_interface(
            self.config._attn_implementation, eager_attention_forward
        )
        out, weights = attention_interface(self, q, k, v)
        return out.transpose(1, 2).flatten(2), weights


class Encoder(PreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.config = config
        self.attention = SelfAttention(config)

    def forward(self, hidden_states):
        return self.attention(hidden_states)[0]
"""

USER = """
import torch
from tensorshape import reveal_shape
from textlib.modeling import ALL_ATTENTION_FUNCTIONS, Encoder, PretrainedConfig


def last_only(module, query, key, value):
    return value[:, :, -1:], None


config = PretrainedConfig(hidden_size=32, num_heads=4)
model = Encoder(config)
x = torch.randn(2, 5, 32)
reveal_shape(model(x))
if config._attn_implementation == "sdpa":
    chosen = torch.zeros(1)
else:
    chosen = torch.zeros(2)
reveal_shape(chosen)
eager = Encoder(PretrainedConfig(hidden_size=32, num_heads=4, attn_implementation="eager"))
reveal_shape(eager.attention(x)[1])
config.hidden_size = 16
reveal_shape(torch.zeros(model.attention.config.hidden_size))
reveal_shape(torch.zeros(config.hidden_size))
ALL_ATTENTION_FUNCTIONS["sdpa"] = last_only
reveal_shape(ALL_ATTENTION_FUNCTIONS["sdpa"](None, x, x, x)[0])
reveal_shape(model(x))
"""

#: What torch gives on each ``reveal_shape`` line.
TRUTH = {14: "[2 5 32]", 19: "[1]", 21: "[2 4 5 5]", 23: "[16]", 24: "[16]", 26: "[2 5 1]", 27: "[2 1 32]"}
PACKAGE = {"textlib": {"generic": GENERIC, "modeling": MODELING}}


def test_the_programs_truth(tmp_path: Path) -> None:
    assert torch_shapes(tmp_path, USER, "textlib", PACKAGE["textlib"]) == TRUTH


def test_the_registry_is_read_with_the_key_the_constructor_wrote(check_with_site: CheckWithSite) -> None:
    """``PreTrainedModel.__init__`` writes ``"sdpa"`` through ``self.config``: the caller's ``config``
    and the layers built after it (from the constructor's own ``config``) read it, and the
    registry's ``__getitem__`` (``key in self._local_mapping``, an empty dict only its own methods
    edit) gives the function registered under it."""
    shown = reveals(check_with_site(USER, PACKAGE))
    assert shown[14] == f"revealed shape: {TRUTH[14]}", shown
    assert shown[19] == f"revealed shape: {TRUTH[19]}", shown
    # ``attn_implementation="eager"``: not a registered key, so the default (eager) function.
    assert shown[21] == f"revealed shape: {TRUTH[21]}", shown


def test_other_references_never_read_a_stale_value(check_with_site: CheckWithSite) -> None:
    """``config.hidden_size = 16`` after the model was built: the layer's ``self.config`` is the same
    object (torch: ``[16]``), so it reads unknown, never the 32 it was built with; the reference
    written through knows it."""
    shown = reveals(check_with_site(USER, PACKAGE))
    assert shown[23] == "revealed shape: [...]", shown
    assert shown[24] == f"revealed shape: {TRUTH[24]}", shown


def test_a_registry_write_runs_its_setitem(check_with_site: CheckWithSite) -> None:
    """``ALL_ATTENTION_FUNCTIONS["sdpa"] = last_only`` runs the class's ``__setitem__`` on the user's
    reference, which then reads the new function; the library's own reference (read by the model's
    attention) reads unknown, never the function registered before (``[2 5 32]``; torch: ``[2 1 32]``)."""
    found = check_with_site(USER, PACKAGE)
    shown = reveals(found)
    assert shown[26] == f"revealed shape: {TRUTH[26]}", shown
    assert shown[27] != "revealed shape: [2 5 32]", shown
    assert [d for d in found if d[1] != "TS900"] == [], found
