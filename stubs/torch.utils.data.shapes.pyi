# torch.utils.data: datasets and loaders (rules in rules/ops/data.py).
# A dataset is a sample and a length; a DataLoader batches the sample (the default collate adds a
# leading dim of batch_size to every tensor) and keeps the smaller last batch when drop_last=False.

class TensorDataset:
    @rule("tensor_dataset")
    def __init__(self, *tensors): ...

class Subset:
    @rule("subset")
    def __init__(self, dataset, indices): ...

class DataLoader:
    @rule("dataloader")
    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers: int = 0,
        collate_fn=None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ): ...

@rule("random_split")
def random_split(dataset, lengths, generator=None): ...
