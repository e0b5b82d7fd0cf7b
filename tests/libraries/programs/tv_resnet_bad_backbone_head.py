import torch
import torch.nn as nn
from torchvision.models import resnet18

backbone = nn.Sequential(*list(resnet18(weights=None).children())[:-1])
head = nn.Linear(2048, 5)
feats = torch.flatten(backbone(torch.randn(2, 3, 224, 224)), 1)
logits = head(feats)  # E: TS101
