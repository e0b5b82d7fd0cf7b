import torch
import torch.nn as nn
from torchvision.models import resnet18

model = resnet18(weights=None)
model.fc = nn.Linear(2048, 10)
x = torch.randn(2, 3, 224, 224)
y = model(x)  # E: TS101
