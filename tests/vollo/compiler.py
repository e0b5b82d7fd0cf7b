"""Drive the real Vollo compiler (vollo-torch + vollo-compiler) on a model: ok / dynamic / unsupported."""

from __future__ import annotations

from typing import Any


def compiles(model: Any, example: Any, allow_dynamic_weights: bool) -> tuple[bool, str]:
    import vollo_compiler
    import vollo_torch

    try:
        prepared, _ = vollo_torch.fx.prepare_shape(model, example)
        nnir = vollo_torch.fx.nnir.to_nnir(prepared)
        config = vollo_compiler.Config.bittware_ia420f_c6b32()
        nnir.to_program(config, allow_dynamic_weights=allow_dynamic_weights, quick_compile=True)
    except Exception as e:  # noqa: BLE001 - every compiler rejection counts
        return False, f"{type(e).__name__}: {' '.join(str(e).split())}"
    return True, ""


def verdict(model: Any, example: Any) -> tuple[str, str]:
    """``ok``, ``dynamic`` (compiles only with allow_dynamic_weights), ``unsupported``, or
    ``op-unsupported`` (vollo-torch has no translation for an op: not a layout question)."""
    ok, why = compiles(model, example, False)
    if ok:
        return "ok", ""
    if "Unsupported operations" in why or "unsupported method" in why:
        return "op-unsupported", why
    ok2, why2 = compiles(model, example, True)
    if ok2:
        return "dynamic", why
    return "unsupported", why2
