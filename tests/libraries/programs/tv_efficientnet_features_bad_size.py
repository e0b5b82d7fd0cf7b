import torch
import torch.nn as nn
from torchvision.models import efficientnet_b0

backbone = efficientnet_b0(weights=None).features
head = nn.Sequential(nn.Flatten(), nn.Linear(1280 * 7 * 7, 10))
images = torch.randn(2, 3, 160, 160)
fmap = backbone(images)
logits = head(fmap)  # E: TS101
