import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision import models

model = models.shufflenet_v2_x1_0(weights=None)
model.fc = nn.Linear(model.fc.in_features, 10)
x = torch.randn(4, 3, 224, 224)
reveal_shape(model(x))  # [4 10]
