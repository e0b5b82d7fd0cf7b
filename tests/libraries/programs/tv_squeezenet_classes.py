import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision import models

model = models.squeezenet1_1(weights=None)
model.classifier[1] = nn.Conv2d(512, 6, kernel_size=1)
x = torch.randn(2, 3, 224, 224)
reveal_shape(model.features(x))  # [2 512 13 13]
reveal_shape(model(x))  # [2 6]
