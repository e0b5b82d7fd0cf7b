# `torch.compiler.is_compiling()` and `is_exporting()`: False when the code runs as Python (eager mode).

from tensorshape.rules.stubdsl import names, rule

@rule("eager_constant", value=False)
@names("is_compiling", "is_exporting")
def _eager() -> bool: ...
