import torch
from tensorshape import reveal_shape
from torchvision.models import mobilenet_v2

model = mobilenet_v2(num_classes=4)
x = torch.randn(2, 3, 160, 160)
feats = model.features(x)
reveal_shape(feats)  # [2 1280 5 5]
out = model(x)
reveal_shape(out)  # [2 4]
