import torch
from tensorshape import reveal_shape
from torchvision import models

model = models.densenet121(weights=None)
x = torch.randn(2, 3, 224, 224)
stem = model.features.conv0(x)
reveal_shape(stem)  # [2 64 112 112]
reveal_shape(model.features.pool0(model.features.relu0(model.features.norm0(stem))))  # [2 64 56 56]
reveal_shape(model(x))  # [2 1000]
