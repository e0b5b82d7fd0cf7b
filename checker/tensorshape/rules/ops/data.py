"""Data pipelines: ``torch.utils.data`` datasets and loaders, torchvision's datasets and transforms.

A dataset is a :class:`~tensorshape.model.values.DatasetV` (one sample, and the
length when known); a ``DataLoader`` is a :class:`~tensorshape.model.values.LoaderV`
whose batch is the sample collated ``batch_size`` times (a leading dim added to
every tensor, ints and floats become 1-d tensors).  When the last batch can be
smaller (``drop_last=False``, the default) the loader also carries that batch,
so the code that iterates it is analysed for both: with a known dataset length
that is not a multiple of the batch size, what fails on the last batch is an
error; with an unknown length, a requirement that ties the last batch's size to
``batch_size`` is the ``last-batch`` warning.
"""

from __future__ import annotations

from ...lang.render import render_dim
from ...model.dims import Dim, Unknown, UnknownSource
from ...model.shape import Shape
from ...model.values import (
    DatasetV,
    DictV,
    FloatV,
    IntV,
    LoaderV,
    ModuleV,
    NoneV,
    SeqKind,
    SeqV,
    TensorV,
    TupleV,
    UnknownV,
    Value,
)
from ...unify import arith
from ...unify.compare import eq3
from ..call import Call, as_dim
from ..context import Arg
from ..registry import rule

__all__ = ["collate", "dataset_of"]

#: Image size and channels of torchvision's datasets, as their samples come (PIL images).
_VISION = {
    "mnist": (1, 28, 28, 60000, 10000),
    "cifar": (3, 32, 32, 50000, 10000),
    "svhn": (3, 32, 32, 73257, 26032),
    "stl10": (3, 96, 96, 5000, 8000),
}


def collate(sample: Value, rows: Dim) -> Value:
    """What the default ``collate_fn`` makes of ``rows`` samples like ``sample``."""
    if isinstance(sample, TensorV):
        return TensorV(Shape((rows,) + sample.shape.items), sample.dtype)
    if isinstance(sample, IntV):
        return TensorV(Shape((rows,)), "int64")
    if isinstance(sample, FloatV):
        return TensorV(Shape((rows,)), "float64")
    if isinstance(sample, TupleV):
        return TupleV(tuple(collate(i, rows) for i in sample.items), sample.kind)
    if isinstance(sample, DictV):
        return DictV(tuple((k, collate(v, rows)) for k, v in sample.items))
    return UnknownV()


def dataset_of(v: Value) -> DatasetV | None:
    """A dataset value, or a tensor indexed by its first dim (``DataLoader(tensor)`` works too)."""
    if isinstance(v, DatasetV):
        return v
    if isinstance(v, TensorV) and v.shape.rank:
        return DatasetV(TensorV(Shape(v.shape.items[1:]), v.dtype), v.shape.items[0])
    return None


@rule("tensor_dataset")
def tensor_dataset(call: Call) -> Value:
    """``TensorDataset(*tensors)``: a sample is one row of each tensor; they must agree on dim 0."""
    v = call.value("tensors")
    items = v.items if isinstance(v, TupleV) else ()
    rows: list[Value] = []
    length: Dim | None = None
    first_label = ""
    for i, t in enumerate(items):
        if not isinstance(t, TensorV) or t.shape.rank is None or t.shape.rank == 0:
            rows.append(TensorV(Shape.unknown()) if not isinstance(t, TensorV) else t)
            continue
        n = t.shape.items[0]
        if length is None:
            length, first_label = n, f"tensor {i}"
        else:
            call.check(
                eq3(length, n, call.facts),
                (length, n),
                f"size mismatch between tensors: tensor {i} has {render_dim(n)} rows, "
                f"{first_label} has {render_dim(length)}",
                at="tensors",
                hint="every tensor of a TensorDataset must have the same size in dim 0",
            )
        rows.append(TensorV(Shape(t.shape.items[1:]), t.dtype))
    return DatasetV(TupleV(tuple(rows)), length)


@rule("dataloader")
def dataloader(call: Call) -> Value:
    ds = dataset_of(call.value("dataset"))
    if ds is None:
        return UnknownV(UnknownSource.UNSUPPORTED)
    if call.has("batch_size") and isinstance(call.value("batch_size"), NoneV):
        # Automatic batching off: every item is a sample.
        return LoaderV(ds.sample, ds, None, length=ds.length)
    bs = call.int("batch_size") if call.has("batch_size") else 1
    if bs is None or isinstance(bs, Unknown):
        bs = call.fresh("batch_size")
    collate_fn = call.value("collate_fn") if call.has("collate_fn") else NoneV()
    sample = ds.sample

    def batch_of(rows: Dim) -> Value:
        """The batch of ``rows`` samples: what the ``collate_fn`` makes of a list of them, else the default."""
        if isinstance(collate_fn, NoneV):
            return collate(sample, rows)
        return _invoke(call, collate_fn, SeqV(sample, SeqKind.LIST, rows))

    drop_last = call.bool("drop_last") if call.has("drop_last") else False
    n = ds.length
    fewer = _fewer_rows(call, n, bs)
    if fewer is not None and drop_last is False:
        # Fewer samples than a batch holds: a single batch of them all (one of ``n`` rows), not a full
        # batch of ``bs`` and a last one.  Where that holds only for the options' defaults, the batch
        # has ``min(n, bs)`` rows: a size of its own.
        rows = n if fewer and n is not None else call.fresh("batch")
        return LoaderV(batch_of(rows), ds, rows, length=1 if fewer else None)
    batch = batch_of(bs)
    if drop_last is None:
        return LoaderV(batch, ds, bs)
    if drop_last:
        return LoaderV(batch, ds, bs, length=_floordiv(n, bs))
    length = _ceildiv(n, bs)
    if bs == 1:
        return LoaderV(batch, ds, bs, length=length)

    if type(n) is int and type(bs) is int:
        r = n % bs
        if r == 0:
            return LoaderV(batch, ds, bs, length=length)
        cond = f"on the last batch: {n} samples in batches of {bs} leave {r}"
        return LoaderV(batch, ds, bs, batch_of(r), r, cond, length)
    rest = call.fresh("last_batch")
    cond = f"on the last batch, which has fewer than {render_dim(bs)} rows unless len(dataset) is a multiple of it"
    option = call.ctx.defaults.get(bs)
    if option is not None and type(n) is int and n % option[1]:
        flag, default = option
        cond = f"on the last batch: {n} samples in batches of {default} (the default {flag}) leave {n % default}"
    return LoaderV(batch, ds, bs, batch_of(rest), rest, cond, length)


def _fewer_rows(call: Call, n: Dim | None, bs: Dim) -> bool | None:
    """Whether a dataset of ``n`` samples has fewer than a batch of ``bs`` holds: ``True`` when certain
    (two ints), ``False`` when it is so with the command-line options' defaults only (``n`` or ``bs``
    an option), ``None`` when not (or not known)."""
    usual = [d if type(d) is int else call.ctx.defaults[d][1] if d in call.ctx.defaults else None for d in (n, bs)]
    if usual[0] is None or usual[1] is None or usual[0] >= usual[1]:
        return None
    return type(n) is int and type(bs) is int


def _invoke(call: Call, fn: Value, value: Value) -> Value:
    """``fn(value)`` for a callable the front end knows (a ``collate_fn``, a transform)."""
    if call.ctx.invoke is None:
        return UnknownV()
    out = call.ctx.invoke(fn, [Arg(value, call.span, None)], {}, call.span)
    return out if isinstance(out, Value) else UnknownV()


def _floordiv(n: Dim | None, bs: Dim) -> Dim | None:
    return None if n is None or isinstance(n, Unknown) else arith.floordiv(n, bs)


def _ceildiv(n: Dim | None, bs: Dim) -> Dim | None:
    return None if n is None or isinstance(n, Unknown) else arith.ceildiv(n, bs)


@rule("random_split")
def random_split(call: Call) -> Value:
    """``random_split(dataset, [n1, n2])``: datasets of those lengths (fractions: unknown lengths)."""
    ds = dataset_of(call.value("dataset"))
    lengths = call.value("lengths")
    if ds is None:
        return UnknownV()
    parts = lengths.items if isinstance(lengths, TupleV) else None
    if parts is None:
        return SeqV(DatasetV(ds.sample, None), SeqKind.LIST)
    out = [DatasetV(ds.sample, d if isinstance(p, IntV) and (d := as_dim(p)) is not None else None) for p in parts]
    return TupleV(tuple(out), SeqKind.LIST)


@rule("subset")
def subset(call: Call) -> Value:
    ds = dataset_of(call.value("dataset"))
    if ds is None:
        return UnknownV()
    idx = call.value("indices")
    n: Dim | None = None
    if isinstance(idx, TupleV):
        n = len(idx.items)
    elif isinstance(idx, TensorV) and idx.shape.rank == 1:
        n = idx.shape.items[0]
    return DatasetV(ds.sample, n)


@rule("vision_dataset")
def vision_dataset(call: Call) -> Value:
    """torchvision's datasets: a PIL image (a uint8 ``[C H W]`` here) through ``transform``, and a label."""
    family = call.params["family"]
    c, h, w, n_train, n_test = _VISION[family]
    train = call.bool("train") if call.has("train") else True
    split = call.str("split") if call.has("split") else None
    length: Dim | None = None
    if family == "svhn" or family == "stl10":
        length = {"train": n_train, "test": n_test}.get(split or "train")
    elif train is not None:
        length = n_train if train else n_test
    image: Value = TensorV(Shape((c, h, w)), "pil")
    image = _apply(call, "transform", image)
    label: Value = _apply(call, "target_transform", IntV(Unknown(UnknownSource.DATA_DEPENDENT)))
    return DatasetV(TupleV((image, label)), length)


@rule("image_folder")
def image_folder(call: Call) -> Value:
    """``ImageFolder(root, transform)``: RGB images of unknown size, an int label, unknown length."""
    image: Value = TensorV(
        Shape((3, Unknown(UnknownSource.DATA_DEPENDENT), Unknown(UnknownSource.DATA_DEPENDENT))), "pil"
    )
    image = _apply(call, "transform", image)
    label = _apply(call, "target_transform", IntV(Unknown(UnknownSource.DATA_DEPENDENT)))
    return DatasetV(TupleV((image, label)), None)


def _apply(call: Call, param: str, value: Value) -> Value:
    if not call.has(param):
        return value
    fn = call.value(param)
    return value if isinstance(fn, NoneV) else _invoke(call, fn, value)


# -- transforms --------------------------------------------------------------------------------


def _image(call: Call, name: str = "img") -> TensorV | None:
    t = call.tensor(name)
    if t is None or t.shape.rank is None or t.shape.rank < 2:
        return None
    return t


@rule("to_tensor")
def to_tensor(call: Call) -> Value:
    """``ToTensor()``: a PIL image ``[C H W]`` becomes a float tensor of the same shape."""
    t = call.tensor("pic")
    if t is None:
        return UnknownV()
    return TensorV(t.shape, "float32")


@rule("resize")
def resize(call: Call) -> Value:
    """``Resize(size)``: ``(h, w)`` sets both; an int sets the smaller edge, keeping the aspect ratio."""
    t = _image(call)
    if t is None:
        return UnknownV()
    size = call.value("size")
    lead = t.shape.items[:-2]
    if isinstance(size, TupleV) and len(size.items) == 2:
        hw = tuple(as_dim(i) for i in size.items)
        if all(d is not None for d in hw):
            return TensorV(Shape(lead + hw), t.dtype)
    if isinstance(size, TupleV) and len(size.items) == 1:
        size = size.items[0]
    s = as_dim(size) if isinstance(size, IntV) else None
    h, w = t.shape.items[-2], t.shape.items[-1]
    if s is not None and type(s) is int and type(h) is int and type(w) is int:
        # torchvision: the short side becomes s, the long one int(s * long / short).
        if h <= w:
            return TensorV(Shape(lead + (s, int(s * w / h))), t.dtype)
        return TensorV(Shape(lead + (int(s * h / w), s)), t.dtype)
    if s is not None and h == w:
        return TensorV(Shape(lead + (s, s)), t.dtype)
    unknown = Unknown(UnknownSource.DATA_DEPENDENT)
    return TensorV(Shape(lead + (unknown, unknown)), t.dtype)


@rule("crop_to_size")
def crop_to_size(call: Call) -> Value:
    """``CenterCrop``/``RandomCrop``/``RandomResizedCrop(size)``: the last two dims become ``size``."""
    t = _image(call)
    if t is None:
        return UnknownV()
    size = call.value("size")
    dims: tuple[Dim | None, ...]
    if isinstance(size, TupleV):
        dims = tuple(as_dim(i) for i in size.items)
        if len(dims) == 1:
            dims = dims * 2
    else:
        d = as_dim(size)
        dims = (d, d)
    if len(dims) != 2 or any(d is None for d in dims):
        unknown = Unknown(UnknownSource.DATA_DEPENDENT)
        dims = (unknown, unknown)
    return TensorV(Shape(t.shape.items[:-2] + dims), t.dtype)


@rule("grayscale")
def grayscale(call: Call) -> Value:
    t = _image(call)
    if t is None or t.shape.rank is None or t.shape.rank < 3:
        return UnknownV()
    n = call.int("num_output_channels") if call.has("num_output_channels") else 1
    return TensorV(Shape(t.shape.items[:-3] + ((n if n is not None else 1),) + t.shape.items[-2:]), t.dtype)


@rule("same_image")
def same_image(call: Call) -> Value:
    """Transforms that keep the shape (flips, colour jitter, normalisation...)."""
    v = call.value("img") if call.has("img") else call.value("tensor")
    return v if isinstance(v, TensorV) else UnknownV()


@rule("compose_init")
def compose_init(call: Call) -> Value:
    """``Compose([t1, t2, ...])``: keep the transforms, in order."""
    v = call.value("transforms")
    children = v.items if isinstance(v, TupleV) else ()
    return ModuleV(call.op.qualname.rsplit(".", 1)[0], {}, children)


@rule("compose")
def compose(call: Call) -> Value:
    """``Compose([...])``: each transform in turn."""
    assert call.module is not None
    value: Value = call.value("img")
    for child in call.module.children:
        value = _invoke(call, child, value)
    return value
