import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision.models import regnet_y_400mf

model = regnet_y_400mf(weights=None)
backbone = nn.Sequential(*list(model.children())[:-2])
x = torch.randn(2, 3, 224, 224)
fmap = backbone(x)
reveal_shape(fmap)  # [2 440 7 7]
