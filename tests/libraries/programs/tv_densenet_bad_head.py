import torch
import torch.nn as nn
from torchvision import models

model = models.densenet121(weights=None)
model.classifier = nn.Linear(2048, 3)
batch = torch.randn(2, 3, 64, 64)
out = model(batch)  # E: TS101
