# known-miss: efficientnet_b0's stem is exact ([2 32 80 80]) but its first MBConv stage (`features[1]`) is unknown, so the features are
import torch
import torch.nn as nn
from torchvision.models import efficientnet_b0

backbone = efficientnet_b0(weights=None).features
head = nn.Sequential(nn.Flatten(), nn.Linear(1280 * 7 * 7, 10))
images = torch.randn(2, 3, 160, 160)
fmap = backbone(images)
logits = head(fmap)  # E: TS101
