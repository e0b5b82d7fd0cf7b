"""Canonical op names: the name the stubs declare for what a front end resolved."""

from __future__ import annotations

__all__ = ["canonical"]

#: External names that are the same op as a canonical one.
_ALIASES = {
    "torch.functional.einsum": "torch.einsum",
    "torch.functional.split": "torch.split",
    "torch.functional.norm": "torch.norm",
    "torch.functional.broadcast_tensors": "torch.broadcast_tensors",
    "torch.nn.parameter.Parameter": "torch.nn.Parameter",
    "torch.concat": "torch.cat",
    "functorch.dim.softmax": "torch.softmax",
}


def canonical(qualname: str) -> str:
    """``torch.nn.modules.linear.Linear`` -> ``torch.nn.Linear``, ``einops.einops.reduce`` -> ``einops.reduce``,
    ``torch.utils.data.dataloader.DataLoader`` -> ``torch.utils.data.DataLoader``, torchvision's
    ``transforms.v2.Resize`` -> ``transforms.Resize``..."""
    q = _ALIASES.get(qualname, qualname)
    if q.startswith("torch.nn.modules."):
        q = "torch.nn." + q.rsplit(".", 1)[-1]
    elif q.startswith("einops.einops."):
        q = "einops." + q[len("einops.einops.") :]
    elif q.startswith("torch.utils.data."):
        q = "torch.utils.data." + q.rsplit(".", 1)[-1]
    elif q.startswith("torchvision.transforms."):
        q = "torchvision.transforms." + q.rsplit(".", 1)[-1]
    elif q.startswith("torchvision.datasets."):
        q = "torchvision.datasets." + q.rsplit(".", 1)[-1]
    return q
