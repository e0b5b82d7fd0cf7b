# `torch.jit`'s predicates, as they answer when the code runs as Python (eager mode): the
# analysis reads the code as Python, so `if torch.jit.is_scripting():` takes the eager branch.

from tensorshape.rules.stubdsl import names, rule

@rule("eager_constant", value=False)
@names("is_scripting", "is_tracing")
def _eager() -> bool: ...
