# torchvision.datasets: samples are (image, label); the image is the PIL image's [C H W] until a
# transform (ToTensor, Resize, ...) changes it.  Lengths are the datasets' published sizes.

class MNIST:
    @rule("vision_dataset", family="mnist")
    def __init__(self, root, train: bool = True, transform=None, target_transform=None, download: bool = False): ...

class FashionMNIST:
    @rule("vision_dataset", family="mnist")
    def __init__(self, root, train: bool = True, transform=None, target_transform=None, download: bool = False): ...

class KMNIST:
    @rule("vision_dataset", family="mnist")
    def __init__(self, root, train: bool = True, transform=None, target_transform=None, download: bool = False): ...

class CIFAR10:
    @rule("vision_dataset", family="cifar")
    def __init__(self, root, train: bool = True, transform=None, target_transform=None, download: bool = False): ...

class CIFAR100:
    @rule("vision_dataset", family="cifar")
    def __init__(self, root, train: bool = True, transform=None, target_transform=None, download: bool = False): ...

class SVHN:
    @rule("vision_dataset", family="svhn")
    def __init__(self, root, split: str = "train", transform=None, target_transform=None, download: bool = False): ...

class STL10:
    @rule("vision_dataset", family="stl10")
    def __init__(self, root, split: str = "train", folds=None, transform=None, target_transform=None, download: bool = False): ...

class ImageFolder:
    @rule("image_folder")
    def __init__(self, root, transform=None, target_transform=None, loader=None, is_valid_file=None, allow_empty: bool = False): ...
