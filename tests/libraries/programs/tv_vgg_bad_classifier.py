import torch
import torch.nn as nn
from torchvision.models import vgg11

model = vgg11(weights=None)
model.classifier = nn.Sequential(nn.Linear(512 * 7 * 7, 256), nn.ReLU(), nn.Linear(512, 3))
x = torch.randn(2, 3, 224, 224)
y = model(x)  # E: TS101
