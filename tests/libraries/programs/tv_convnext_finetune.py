import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision import models

model = models.convnext_tiny(weights=None)
model.classifier[2] = nn.Linear(768, 5)
x = torch.randn(2, 3, 224, 224)
reveal_shape(model.features(x))  # [2 768 7 7]
reveal_shape(model(x))  # [2 5]
