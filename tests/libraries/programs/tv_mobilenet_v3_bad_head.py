import torch
import torch.nn as nn
from torchvision import models

model = models.mobilenet_v3_large(weights=None)
# The last Linear of the classifier takes 1280 features, not 960.
model.classifier[-1] = nn.Linear(960, 7)
x = torch.randn(2, 3, 224, 224)
out = model(x)  # E: TS101
