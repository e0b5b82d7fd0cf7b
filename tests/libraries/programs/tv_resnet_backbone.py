import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision.models import resnet18

model = resnet18(weights=None)
backbone = nn.Sequential(*list(model.children())[:-2])
images = torch.randn(2, 3, 224, 224)
features = backbone(images)
reveal_shape(features)  # [2 512 7 7]
pooled = torch.flatten(nn.AdaptiveAvgPool2d(1)(features), 1)
reveal_shape(pooled)  # [2 512]
