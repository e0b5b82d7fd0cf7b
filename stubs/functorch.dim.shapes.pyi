# First-class dimensions (functorch.dim): dim objects made by `dims`.  Indexing,
# `order` and implicit batching are in tensorshape/rules/levels.py and
# tensorshape/rules/ops/firstclass.py; `functorch.dim.softmax` is `torch.softmax`.

from tensorshape.rules.stubdsl import rule

@rule("fc_dims")
def dims(n: int | None = None, sizes=None) -> tuple: ...
