# `torch.compiler.is_compiling()`: False when the code runs as Python (eager mode).

from tensorshape.rules.stubdsl import rule

@rule("eager_constant", value=False)
def is_compiling() -> bool: ...
