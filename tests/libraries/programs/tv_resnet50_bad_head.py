import torch
import torch.nn as nn
from torchvision.models import resnet50

model = resnet50(weights=None)
model.fc = nn.Linear(512, 10)
x = torch.randn(2, 3, 224, 224)
y = model(x)  # E: TS101
