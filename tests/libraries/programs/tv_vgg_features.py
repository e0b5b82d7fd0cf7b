import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision.models import vgg11

model = vgg11(weights=None)
x = torch.randn(2, 3, 224, 224)
feats = model.features(x)
reveal_shape(feats)  # [2 512 7 7]
model.classifier[-1] = nn.Linear(4096, 7)
logits = model(x)
reveal_shape(logits)  # [2 7]
