import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision import models

model = models.efficientnet_b0(weights=None)
model.classifier[-1] = nn.Linear(1280, 4)
x = torch.randn(2, 3, 128, 128)
reveal_shape(model.features(x))  # [2 1280 4 4]
out = model(x)
reveal_shape(out)  # [2 4]
