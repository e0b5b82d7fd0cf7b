import torch
import torch.nn as nn
from torchvision.models import efficientnet_b0

model = efficientnet_b0(weights=None)
model.classifier[1] = nn.Linear(1024, 4)
model.eval()
with torch.no_grad():
    preds = model(torch.randn(2, 3, 224, 224))  # E: TS101
